// The spec-suite corpus: every .wasm that wabt's wast2json extracts from the
// root *.wast files (SIMD excluded) must be rejected iff it is an
// `assert_malformed (module binary …)`, and every other module must decode
// and round-trip through the writer.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/binary/mini_json.h"
#include "tests/binary/test_util.h"
#include "tests/support/scratch.h"

namespace weft::binary::test {
namespace {

namespace fs = std::filesystem;

fs::path suite_dir() {
  if (const char* env = std::getenv("WEFT_TESTSUITE"); env && *env) return env;
  return WEFT_DEFAULT_TESTSUITE;
}

using weft::test::slurp;

Bytes read_bytes(const fs::path& p) {
  std::string s = slurp(p);
  return Bytes(s.begin(), s.end());
}

std::string quoted(const fs::path& p) {
  std::string s = "'";
  for (char c : p.string()) {
    if (c == '\'') s += "'\\''";
    else s += c;
  }
  return s + "'";
}

struct FileStats {
  int decoded = 0;       // well-formed modules decoded and round-tripped
  int rejected = 0;      // malformed modules rejected
  int spec_wording = 0;  // … with a message starting like the spec's
  int wabt_quirk = 0;    // text modules wabt encodes without a required DataCount section
  int failures = 0;
};

FileStats run_file(const fs::path& wast, const fs::path& out_dir) {
  FileStats stats;
  const std::string stem = wast.stem().string();
  const fs::path json_path = out_dir / (stem + ".json");
  const fs::path log = out_dir / (stem + ".log");
  const std::string cmd = quoted(WEFT_WAST2JSON_PATH) + " " + quoted(wast) + " -o " + quoted(json_path) + " >" +
                          quoted(log) + " 2>&1";
  if (std::system(cmd.c_str()) != 0 || !fs::exists(json_path)) {
    stats.failures = -1;  // tool failure: reported and skipped by the caller
    return stats;
  }
  std::optional<json::Value> doc = json::parse(slurp(json_path));
  const json::Value* commands = doc ? doc->get("commands") : nullptr;
  if (!commands || commands->kind != json::Value::Array) {
    ADD_FAILURE() << stem << ": cannot parse " << json_path;
    stats.failures++;
    return stats;
  }
  for (const json::Value& cmd : commands->array) {
    const std::string filename = cmd.get_string("filename");
    if (filename.size() < 5 || filename.substr(filename.size() - 5) != ".wasm") continue;  // .wat quote modules
    const std::string type = cmd.get_string("type");
    const json::Value* line_value = cmd.get("line");
    const int line = line_value ? int(line_value->number) : 0;
    const Bytes bytes = read_bytes(out_dir / filename);
    // The suite is Wasm 2.0's: memory indices are 0x00 bytes (multi-memory,
    // on by default, reads a u32 there).
    DecodeOptions wasm2;
    wasm2.enable_multi_memory = false;
    wasm2.enable_memory64 = false;
    Result<Module> r = decode_module(bytes, wasm2);

    if (type == "assert_malformed") {
      if (r.ok()) {
        ADD_FAILURE() << stem << ".wast:" << line << ": malformed module decoded (expected \""
                      << cmd.get_string("text") << "\")";
        stats.failures++;
      } else {
        stats.rejected++;
        const std::string expected = cmd.get_string("text");
        if (r.error().message.compare(0, expected.size(), expected) == 0) {
          stats.spec_wording++;
        } else if (std::getenv("WEFT_CORPUS_VERBOSE")) {
          std::printf("  %s.wast:%d: \"%s\" (spec: \"%s\")\n", stem.c_str(), line, r.error().message.c_str(),
                      expected.c_str());
        }
      }
      continue;
    }
    // module, assert_invalid, assert_unlinkable, assert_uninstantiable, …:
    // possibly invalid, never malformed.
    if (!r.ok() && type == "assert_invalid" && r.error().message == "data count section required") {
      // A text module using data.drop/memory.init without data segments: wabt
      // then omits the DataCount section, which makes its *binary* malformed
      // (the spec decoder rejects it the same way). The text itself is only invalid.
      stats.wabt_quirk++;
      continue;
    }
    if (!r.ok()) {
      ADD_FAILURE() << stem << ".wast:" << line << " (" << type << "): " << r.error().to_string();
      stats.failures++;
      continue;
    }
    ::testing::AssertionResult rt = RoundTrips(*r);
    if (!rt) {
      ADD_FAILURE() << stem << ".wast:" << line << " (" << type << "): round trip: " << rt.message();
      stats.failures++;
      continue;
    }
    stats.decoded++;
  }
  return stats;
}

TEST(Corpus, SpecSuiteDecodesAndRoundTrips) {
  const fs::path suite = suite_dir();
  if (!fs::is_directory(suite)) GTEST_SKIP() << "spec test suite not found at " << suite << " (set WEFT_TESTSUITE)";
  if (std::string(WEFT_WAST2JSON_PATH).empty()) GTEST_SKIP() << "wast2json (wabt) not found at configure time";

  std::vector<fs::path> files;
  for (const fs::directory_entry& e : fs::directory_iterator(suite)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && e.path().extension() == ".wast" && name.rfind("simd_", 0) != 0) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty()) << "no .wast files in " << suite;

  std::string tmpl = (fs::temp_directory_path() / "weft-binary-corpus-XXXXXX").string();
  ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
  const fs::path tmp = tmpl;

  FileStats total;
  std::vector<std::string> tool_failures;
  std::printf("%-34s %8s %9s %8s %6s %9s\n", "file", "decoded", "rejected", "wording", "quirk", "failures");
  for (const fs::path& wast : files) {
    const fs::path dir = tmp / wast.stem();
    fs::create_directories(dir);
    FileStats s = run_file(wast, dir);
    if (s.failures < 0) {
      tool_failures.push_back(wast.filename().string());
      std::printf("%-34s   skipped: wast2json failed (%s)\n", wast.filename().c_str(),
                  slurp(dir / (wast.stem().string() + ".log")).substr(0, 60).c_str());
      continue;
    }
    std::printf("%-34s %8d %9d %8d %6d %9d\n", wast.filename().c_str(), s.decoded, s.rejected, s.spec_wording,
                s.wabt_quirk, s.failures);
    total.decoded += s.decoded;
    total.rejected += s.rejected;
    total.spec_wording += s.spec_wording;
    total.wabt_quirk += s.wabt_quirk;
    total.failures += s.failures;
  }
  std::printf("%-34s %8d %9d %8d %6d %9d\n", "TOTAL", total.decoded, total.rejected, total.spec_wording,
              total.wabt_quirk, total.failures);
  std::printf("decoded = decoded + round-tripped; rejected = assert_malformed binaries rejected; wording = of those, "
              "message starts with the spec's; quirk = assert_invalid text modules whose wabt binary lacks a required "
              "DataCount section (malformed as binaries)\n");
  std::printf("files: %zu run, %zu skipped (wast2json failed)", files.size() - tool_failures.size(),
              tool_failures.size());
  for (const std::string& f : tool_failures) std::printf(" %s", f.c_str());
  std::printf("\n");
  std::fflush(stdout);

  std::error_code ec;
  fs::remove_all(tmp, ec);
  EXPECT_EQ(total.failures, 0);
  EXPECT_GT(total.decoded, 0);
}

}  // namespace
}  // namespace weft::binary::test
