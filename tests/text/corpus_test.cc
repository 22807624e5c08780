// Spec-suite corpus tests: every root *.wast parses; quoted modules are
// rejected exactly when asserted malformed; text modules encode like wabt.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <span>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "binary/decoder.h"
#include "text/text.h"
#include "text/wast.h"
#include "tests/support/scratch.h"

namespace weft::text {
namespace {

namespace fs = std::filesystem;

fs::path suite_dir() {
  if (const char* env = std::getenv("WEFT_TESTSUITE")) return env;
  return WEFT_TESTSUITE_DEFAULT;
}

std::vector<fs::path> suite_files() {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(suite_dir(), ec))
    if (e.path().extension() == ".wast") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

using weft::test::slurp;

#define SKIP_WITHOUT_SUITE()                                                         \
  if (suite_files().empty()) GTEST_SKIP() << "spec suite not found at " << suite_dir()

TEST(Corpus, EveryScriptParses) {
  SKIP_WITHOUT_SUITE();
  auto start = std::chrono::steady_clock::now();
  size_t total_commands = 0, total_bytes = 0;
  for (const fs::path& file : suite_files()) {
    std::string src = slurp(file);
    total_bytes += src.size();
    Result<WastScript> script = parse_wast(src);
    ASSERT_TRUE(script.ok()) << file.filename() << ": " << script.error().to_string();
    total_commands += script->commands.size();
  }
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("[corpus] %zu files, %zu commands, %.1f MB parsed in %.0f ms\n", suite_files().size(), total_commands,
              total_bytes / 1e6, ms);
}

// Quoted modules whose malformedness only shows in the binary or validation
// phase, so parse_module accepts them. Keep this list empty if possible.
const std::set<std::pair<std::string, uint32_t>> kQuoteMalformedAccepted = {};

TEST(Corpus, QuotedModulesRejectedExactlyWhenMalformed) {
  SKIP_WITHOUT_SUITE();
  size_t failures = 0, malformed = 0, same_wording = 0;
  for (const fs::path& file : suite_files()) {
    std::string name = file.filename().string();
    Result<WastScript> script = parse_wast(slurp(file));
    ASSERT_TRUE(script.ok()) << name << ": " << script.error().to_string();
    size_t rejected = 0, accepted = 0;
    for (const WastCommand& cmd : script->commands) {
      if (!cmd.module || cmd.module->form != WastModule::Form::Quote) continue;
      // (The suite is Wasm 2.0's: limits and offsets are i32 constants there.)
      Result<Module> m = parse_module(cmd.module->quote, {.memory64 = false});
      bool should_fail = cmd.kind == WastCommand::Kind::AssertMalformed;
      if (should_fail && kQuoteMalformedAccepted.count({name, cmd.line})) continue;
      if (should_fail && m.ok()) {
        ADD_FAILURE() << name << ":" << cmd.line << ": malformed quote module accepted (expected \"" << cmd.text
                      << "\"):\n"
                      << cmd.module->quote;
        ++failures;
      } else if (!should_fail && !m.ok()) {
        ADD_FAILURE() << name << ":" << cmd.line << ": quote module rejected: " << m.error().to_string() << "\n"
                      << cmd.module->quote;
        ++failures;
      }
      (m.ok() ? accepted : rejected)++;
      if (should_fail) {
        ++malformed;
        if (!m.ok() && m.error().message.find(cmd.text) != std::string::npos) ++same_wording;
      }
    }
    if (rejected + accepted > 0)
      std::printf("[quote] %-40s rejected %4zu  accepted %4zu\n", name.c_str(), rejected, accepted);
  }
  // Informational: how often the error message contains the suite's expected
  // text (the reference interpreter's wording; runners need not compare it).
  std::printf("[quote] %zu of %zu malformed-module errors use the suite's wording\n", same_wording, malformed);
  EXPECT_EQ(failures, 0u);
}

// ---------------------------------------------------------------------------
// Cross-check with wabt's wast2json
// ---------------------------------------------------------------------------

// One command line of wast2json's JSON output (it writes one command per
// line); only the fields needed to find the module files.
struct JsonCommand {
  std::string type;
  uint32_t line = 0;
  std::string filename;
};

std::string json_string_field(const std::string& line, const std::string& key) {
  std::string pat = "\"" + key + "\": \"";
  size_t p = line.find(pat);
  if (p == std::string::npos) return {};
  p += pat.size();
  size_t e = line.find('"', p);
  return line.substr(p, e - p);
}

std::vector<JsonCommand> read_wabt_commands(const fs::path& json) {
  std::vector<JsonCommand> out;
  std::ifstream in(json);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find("{\"type\": \"") == std::string::npos) continue;
    JsonCommand c;
    c.type = json_string_field(line, "type");
    size_t lp = line.find("\"line\": ");
    if (lp != std::string::npos) c.line = uint32_t(std::strtoul(line.c_str() + lp + 8, nullptr, 10));
    // The command's own file comes first; nested objects carry none.
    c.filename = json_string_field(line, "filename");
    out.push_back(c);
  }
  return out;
}

std::vector<ValType> expand_locals(const Function& f) {
  std::vector<ValType> v;
  for (const LocalGroup& g : f.locals) v.insert(v.end(), g.count, g.type);
  return v;
}

std::string hex(std::span<const uint8_t> b) {
  std::string s;
  char buf[4];
  for (size_t i = 0; i < b.size() && i < 200; ++i) {
    std::snprintf(buf, sizeof buf, "%02x ", b[i]);
    s += buf;
  }
  return s;
}

// Compares what both encoders must agree on; returns a description of the
// first difference, or "" when equal.
std::string compare_modules(const Module& mine, const Module& wabt) {
  std::ostringstream d;
  if (mine.types != wabt.types) {
    d << "types differ (" << mine.types.size() << " vs " << wabt.types.size() << ")";
    return d.str();
  }
  if (mine.imports != wabt.imports) return "imports differ";
  if (mine.exports != wabt.exports) return "exports differ";
  if (mine.functions.size() != wabt.functions.size()) return "function count differs";
  for (size_t i = 0; i < mine.functions.size(); ++i) {
    const Function& a = mine.functions[i];
    const Function& b = wabt.functions[i];
    if (a.type_index != b.type_index) return "function " + std::to_string(i) + " type index differs";
    if (expand_locals(a) != expand_locals(b)) return "function " + std::to_string(i) + " locals differ";
    if (a.body != b.body) {
      d << "function " << i << " body differs:\n  weft: " << hex(a.body) << "\n  wabt: " << hex(b.body);
      return d.str();
    }
  }
  if (mine.tables != wabt.tables) return "tables differ";
  if (mine.memories != wabt.memories) return "memories differ";
  if (mine.globals != wabt.globals) return "globals differ";
  if (mine.start != wabt.start) return "start differs";
  if (mine.elems.size() != wabt.elems.size()) return "elem count differs";
  for (size_t i = 0; i < mine.elems.size(); ++i)
    if (!(mine.elems[i] == wabt.elems[i])) return "elem " + std::to_string(i) + " differs";
  if (mine.datas != wabt.datas) return "data segments differ";
  return {};
}

// The top-level forms of a script, as source slices (comments and strings
// skipped), so single commands can be handed to wast2json on their own.
std::vector<std::string> split_top_level(const std::string& src) {
  std::vector<std::string> out;
  size_t i = 0, n = src.size(), start = 0;
  int depth = 0;
  while (i < n) {
    char c = src[i];
    if (c == '"') {
      for (++i; i < n && src[i] != '"'; ++i)
        if (src[i] == '\\') ++i;
      ++i;
    } else if (c == ';' && i + 1 < n && src[i + 1] == ';') {
      while (i < n && src[i] != '\n') ++i;
    } else if (c == '(' && i + 1 < n && src[i + 1] == ';') {
      int d = 0;
      while (i < n) {
        if (src.compare(i, 2, "(;") == 0) ++d, i += 2;
        else if (src.compare(i, 2, ";)") == 0) { i += 2; if (--d == 0) break; }
        else ++i;
      }
    } else if (c == '(') {
      if (depth++ == 0) start = i;
      ++i;
    } else if (c == ')') {
      if (--depth == 0) out.push_back(src.substr(start, i + 1 - start));
      ++i;
    } else {
      ++i;
    }
  }
  return out;
}

// Where weft's encoding intentionally differs from wabt 1.0.32 (file, line).
const std::map<std::pair<std::string, uint32_t>, const char*> kIntentionalDifferences = {
    // `select (result)` is the typed select with an empty type vector (0x1C 0x00),
    // which the validator must reject with "invalid result arity"; wabt writes
    // the untyped select (0x1B) instead.
    {{"select.wast", 323}, "select (result) kept as typed select"},
};

struct WabtStats {
  size_t compared = 0, mismatches = 0, intentional = 0, not_comparable = 0, data_count_differs = 0;
};

// Converts `wast` with wast2json into `dir`; returns its commands, or nothing
// when wast2json rejects the input.
std::optional<std::vector<JsonCommand>> run_wast2json(const fs::path& wast, const fs::path& dir) {
  fs::path json = dir / "out.json";
  std::string cmd = std::string(WEFT_WAST2JSON) + " '" + wast.string() + "' -o '" + json.string() + "' >/dev/null 2>&1";
  if (std::system(cmd.c_str()) != 0) return std::nullopt;
  return read_wabt_commands(json);
}

void compare_command(const std::string& name, const WastCommand& c, const JsonCommand& wabt, const fs::path& dir,
                     WabtStats& stats) {
  if (!c.module || wabt.filename.empty() || !wabt.filename.ends_with(".wasm")) return;
  const Module* mine = nullptr;
  Module quoted;
  if (c.module->form == WastModule::Form::Text) {
    mine = &c.module->module;
  } else if (c.module->form == WastModule::Form::Quote && c.kind != WastCommand::Kind::AssertMalformed) {
    Result<Module> m = parse_module(c.module->quote);
    if (!m.ok()) return;  // reported by the quote test
    quoted = std::move(m).value();
    mine = &quoted;
  } else {
    return;
  }
  std::string bytes = slurp(dir / wabt.filename);
  std::vector<uint8_t> data(bytes.begin(), bytes.end());
  Result<Module> theirs = binary::decode_module(data);
  if (!theirs.ok()) {
    // wabt wrote a binary that weft's decoder rejects (an assert_invalid
    // module whose encoding is itself not decodable): nothing to compare.
    ++stats.not_comparable;
    std::printf("[wabt]   %s:%u not comparable: weft cannot decode wabt's binary: %s\n", name.c_str(), c.line,
                theirs.error().to_string().c_str());
    return;
  }
  ++stats.compared;
  if (mine->data_count.has_value() != theirs->data_count.has_value()) ++stats.data_count_differs;
  std::string diff = compare_modules(*mine, *theirs);
  if (diff.empty()) return;
  if (kIntentionalDifferences.count({name, c.line})) {
    ++stats.intentional;
    return;
  }
  ++stats.mismatches;
  ADD_FAILURE() << name << ":" << c.line << ": " << diff;
}

TEST(Corpus, TextModulesMatchWabt) {
  SKIP_WITHOUT_SUITE();
  if (!fs::exists(WEFT_WAST2JSON)) GTEST_SKIP() << "wast2json not installed";
  fs::path tmp = fs::temp_directory_path() / ("weft_text_corpus_" + std::to_string(getpid()));
  fs::create_directories(tmp);
  WabtStats total;
  for (const fs::path& file : suite_files()) {
    std::string name = file.filename().string();
    std::string src = slurp(file);
    Result<WastScript> script = parse_wast(src);
    ASSERT_TRUE(script.ok()) << name;
    fs::path dir = tmp / file.stem();
    fs::create_directories(dir);
    WabtStats stats;
    const char* how = "";
    if (std::optional<std::vector<JsonCommand>> wabt = run_wast2json(file, dir)) {
      if (wabt->size() != script->commands.size()) {
        ADD_FAILURE() << name << ": " << script->commands.size() << " commands, wabt has " << wabt->size();
        continue;
      }
      for (size_t i = 0; i < wabt->size(); ++i) compare_command(name, script->commands[i], (*wabt)[i], dir, stats);
    } else {
      // wast2json rejects something in the file: convert the module commands
      // one by one and compare those it accepts.
      how = " (per command: wast2json rejects the whole file)";
      std::vector<std::string> forms = split_top_level(src);
      ASSERT_EQ(forms.size(), script->commands.size()) << name;
      for (size_t i = 0; i < forms.size(); ++i) {
        const WastCommand& c = script->commands[i];
        if (!c.module || c.module->form == WastModule::Form::Binary) continue;
        fs::path one = dir / ("cmd" + std::to_string(i) + ".wast");
        std::ofstream(one) << forms[i];
        fs::path sub = dir / ("cmd" + std::to_string(i));
        fs::create_directories(sub);
        std::optional<std::vector<JsonCommand>> wabt = run_wast2json(one, sub);
        if (!wabt || wabt->size() != 1) {
          if (c.kind != WastCommand::Kind::AssertMalformed) {
            ++stats.not_comparable;
            std::printf("[wabt]   %s:%u not comparable: wast2json rejects the command\n", name.c_str(), c.line);
          }
          continue;
        }
        compare_command(name, c, (*wabt)[0], sub, stats);
      }
    }
    std::printf("[wabt] %-36s compared %4zu  mismatches %zu  intentional %zu  not comparable %zu%s\n", name.c_str(),
                stats.compared, stats.mismatches, stats.intentional, stats.not_comparable, how);
    total.compared += stats.compared;
    total.mismatches += stats.mismatches;
    total.intentional += stats.intentional;
    total.not_comparable += stats.not_comparable;
    total.data_count_differs += stats.data_count_differs;
  }
  std::printf(
      "[wabt] total: %zu modules compared, %zu mismatches, %zu intentional differences, %zu not comparable; "
      "DataCount presence differs in %zu (weft: only with memory.init/data.drop)\n",
      total.compared, total.mismatches, total.intentional, total.not_comparable, total.data_count_differs);
  EXPECT_EQ(total.mismatches, 0u);
  fs::remove_all(tmp);
}

}  // namespace
}  // namespace weft::text
