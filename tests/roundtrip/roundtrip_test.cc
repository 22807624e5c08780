// Round trip of every text module in the official suite (root *.wast, no SIMD):
// our writer's bytes decode again to the same module with the same validation
// verdict and exports; where wabt's wast2json encodes the module too, the
// module decoded from our bytes equals the one decoded from wabt's.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <unistd.h>
#include <algorithm>

#include "binary/decoder.h"
#include "binary/writer.h"
#include "text/wast.h"
#include "validator/validator.h"
#include "tests/support/scratch.h"

namespace weft {
namespace {

namespace fs = std::filesystem;

fs::path suite_dir() {
  if (const char* env = std::getenv("WEFT_TESTSUITE")) return env;
  return WEFT_DEFAULT_TESTSUITE;
}

using weft::test::slurp;

// wast2json's JSON has one command per line: map line → .wasm for `module` commands.
std::map<uint32_t, fs::path> wabt_modules(const fs::path& wast, const fs::path& out_dir) {
  std::map<uint32_t, fs::path> result;
  fs::path json = out_dir / (wast.stem().string() + ".json");
  std::string cmd = "wast2json '" + wast.string() + "' -o '" + json.string() +
                    "' >/dev/null 2>&1";
  if (std::system(cmd.c_str()) != 0) return result;
  std::regex re(R"re(\{"type": "module", "line": (\d+)(?:, "name": "[^"]*")?, "filename": "([^"]+)")re");
  std::string text = slurp(json);
  for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it)
    result[uint32_t(std::stoul((*it)[1]))] = out_dir / (*it)[2].str();
  return result;
}

// Differences that matter, as text (empty = equal). Custom sections, names and
// the data count section are encoding choices and are not compared.
std::string compare(const Module& a, const Module& b) {
  if (a.types != b.types) return "types differ";
  if (a.imports != b.imports) return "imports differ";
  if (a.functions.size() != b.functions.size()) return "function counts differ";
  for (size_t i = 0; i < a.functions.size(); ++i)
    if (!(a.functions[i] == b.functions[i])) return "function " + std::to_string(i) + " differs";
  if (a.tables != b.tables) return "tables differ";
  if (a.memories != b.memories) return "memories differ";
  if (a.globals != b.globals) return "globals differ";
  if (a.exports != b.exports) return "exports differ";
  if (a.start != b.start) return "start differs";
  if (a.elems != b.elems) return "elem segments differ";
  if (a.datas != b.datas) return "data segments differ";
  return {};
}

TEST(RoundTrip, SpecSuiteTextModules) {
  fs::path dir = suite_dir();
  if (!fs::exists(dir)) GTEST_SKIP() << "spec test suite not found at " << dir << " (set WEFT_TESTSUITE)";
  fs::path tmp = fs::temp_directory_path() / ("weft-roundtrip-" + std::to_string(::getpid()));
  fs::create_directories(tmp);
  std::vector<fs::path> files;
  for (auto& e : fs::directory_iterator(dir)) {
    std::string name = e.path().filename().string();
    if (e.path().extension() == ".wast" && name.rfind("simd_", 0) != 0) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  size_t total = 0, compared_with_wabt = 0, failures = 0;
  for (const fs::path& file : files) {
    auto script = text::parse_wast(slurp(file));
    ASSERT_TRUE(script.ok()) << file << ": " << script.error().to_string();
    fs::path out_dir = tmp / file.stem();
    fs::create_directories(out_dir);
    auto wabt = wabt_modules(file, out_dir);
    size_t file_modules = 0, file_wabt = 0;
    for (const text::WastCommand& cmd : script->commands) {
      if (!cmd.module || cmd.module->form != text::WastModule::Form::Text) continue;
      if (cmd.kind != text::WastCommand::Kind::Module && cmd.kind != text::WastCommand::Kind::AssertInvalid &&
          cmd.kind != text::WastCommand::Kind::AssertUnlinkable && cmd.kind != text::WastCommand::Kind::AssertTrap &&
          cmd.kind != text::WastCommand::Kind::AssertUninstantiable)
        continue;
      ++total;
      ++file_modules;
      const Module& m = cmd.module->module;
      bool valid = validator::validate_module(m).ok();
      std::vector<uint8_t> bytes = binary::write_module(m);
      auto back = binary::decode_module(bytes);
      if (!back.ok()) {
        ADD_FAILURE() << file.filename() << ":" << cmd.line << ": our bytes do not decode: " << back.error().to_string();
        ++failures;
        continue;
      }
      if (validator::validate_module(*back).ok() != valid) {
        ADD_FAILURE() << file.filename() << ":" << cmd.line << ": validation verdict changed by the round trip";
        ++failures;
      }
      if (back->exports != m.exports) {
        ADD_FAILURE() << file.filename() << ":" << cmd.line << ": exports changed by the round trip";
        ++failures;
      }
      auto it = wabt.find(cmd.line);
      if (cmd.kind == text::WastCommand::Kind::Module && it != wabt.end()) {
        std::string wabt_bytes = slurp(it->second);
        auto theirs = binary::decode_module(
            std::span(reinterpret_cast<const uint8_t*>(wabt_bytes.data()), wabt_bytes.size()));
        if (!theirs.ok()) continue;  // wabt wrote something we reject: the binary tests cover decoding
        ++compared_with_wabt;
        ++file_wabt;
        std::string diff = compare(*back, *theirs);
        if (!diff.empty()) {
          ADD_FAILURE() << file.filename() << ":" << cmd.line << ": differs from wabt's encoding: " << diff;
          ++failures;
        }
      }
    }
    std::printf("  %-32s %4zu text modules, %4zu compared with wabt\n", file.filename().c_str(), file_modules, file_wabt);
  }
  fs::remove_all(tmp);
  std::printf("round trip: %zu modules, %zu compared with wabt, %zu failures\n", total, compared_with_wabt, failures);
}

}  // namespace
}  // namespace weft
