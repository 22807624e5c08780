// Spec-suite corpus for the validator: every module of the core test suite
// (root *.wast, SIMD files excluded) converted by wabt's wast2json, decoded by
// weft_binary and validated. assert_invalid modules must be rejected; module,
// assert_unlinkable, assert_uninstantiable and assert_trap modules accepted.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "binary/decoder.h"
#include "validator/validator.h"

namespace weft::validator {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

struct Command {
  std::string type;
  int line = 0;
  std::string filename;
  std::string text;  // assert_invalid: the spec interpreter's message
};

// wast2json writes one command per line; only the command's own "type",
// "line" and "filename" keys are needed (nested actions have no filename and
// come after them).
std::vector<Command> parse_commands(const std::string& json) {
  std::vector<Command> out;
  std::istringstream in(json);
  std::string line;
  auto value_after = [](const std::string& s, const std::string& key) -> std::string {
    size_t p = s.find(key);
    if (p == std::string::npos) return {};
    p += key.size();
    if (s[p] == '"') {
      size_t e = s.find('"', p + 1);
      return s.substr(p + 1, e - p - 1);
    }
    size_t e = p;
    while (e < s.size() && isdigit(static_cast<unsigned char>(s[e]))) ++e;
    return s.substr(p, e - p);
  };
  while (std::getline(in, line)) {
    size_t start = line.find_first_not_of(' ');
    if (start == std::string::npos || line.compare(start, 10, "{\"type\": \"") != 0) continue;
    Command c;
    c.type = value_after(line, "{\"type\": ");
    std::string l = value_after(line, "\"line\": ");
    c.line = l.empty() ? 0 : std::atoi(l.c_str());
    c.filename = value_after(line, "\"filename\": ");
    c.text = value_after(line, "\"text\": ");
    out.push_back(std::move(c));
  }
  return out;
}

// Top-level forms of a .wast script with their first line, skipping comments
// and strings. Used when wast2json cannot convert a whole file.
std::vector<std::pair<int, std::string>> split_forms(const std::string& s) {
  std::vector<std::pair<int, std::string>> forms;
  int line = 1, depth = 0, form_line = 0;
  size_t form_start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '\n') { ++line; continue; }
    if (c == ';' && i + 1 < s.size() && s[i + 1] == ';') {
      while (i < s.size() && s[i] != '\n') ++i;
      --i;
      continue;
    }
    if (c == '(' && i + 1 < s.size() && s[i + 1] == ';') {
      int nest = 1;
      for (i += 2; i < s.size() && nest > 0; ++i) {
        if (s[i] == '\n') ++line;
        else if (s[i] == '(' && i + 1 < s.size() && s[i + 1] == ';') { ++nest; ++i; }
        else if (s[i] == ';' && i + 1 < s.size() && s[i + 1] == ')') { --nest; ++i; }
      }
      --i;
      continue;
    }
    if (c == '"') {
      for (++i; i < s.size() && s[i] != '"'; ++i) {
        if (s[i] == '\\') ++i;
        else if (s[i] == '\n') ++line;
      }
      continue;
    }
    if (c == '(') {
      if (depth++ == 0) { form_start = i; form_line = line; }
    } else if (c == ')' && depth > 0 && --depth == 0) {
      forms.emplace_back(form_line, s.substr(form_start, i + 1 - form_start));
    }
  }
  return forms;
}

// The keyword of a form: "(module …)" → "module", skipping comments after "(".
std::string form_keyword(const std::string& form) {
  size_t i = 1;
  while (i < form.size()) {
    if (isspace(static_cast<unsigned char>(form[i]))) {
      ++i;
    } else if (form.compare(i, 2, ";;") == 0) {
      i = form.find('\n', i);
    } else if (form.compare(i, 2, "(;") == 0) {
      int nest = 0;
      do {
        if (form.compare(i, 2, "(;") == 0) { ++nest; i += 2; }
        else if (form.compare(i, 2, ";)") == 0) { --nest; i += 2; }
        else ++i;
      } while (nest > 0 && i < form.size());
    } else {
      break;
    }
  }
  size_t end = i;
  while (end < form.size() && (isalnum(static_cast<unsigned char>(form[end])) || form[end] == '_')) ++end;
  return i < form.size() ? form.substr(i, end - i) : std::string();
}

// wabt 1.0.32 cannot parse table.get/set/size/grow/fill without a table index;
// the spec defines an omitted index as 0, so spell it out.
std::string add_default_table_index(const std::string& s) {
  static const char* kOps[] = {"table.get", "table.set", "table.size", "table.grow", "table.fill"};
  std::string out;
  for (size_t i = 0; i < s.size();) {
    bool matched = false;
    for (const char* op : kOps) {
      size_t n = std::char_traits<char>::length(op);
      bool boundary = i == 0 || s[i - 1] == '(' || isspace(static_cast<unsigned char>(s[i - 1]));
      if (boundary && s.compare(i, n, op) == 0 && i + n < s.size() &&
          (isspace(static_cast<unsigned char>(s[i + n])) || s[i + n] == ')' || s[i + n] == '(')) {
        size_t next = s.find_first_not_of(" \t\r\n", i + n);
        out.append(s, i, n);
        if (next == std::string::npos || (s[next] != '$' && !isdigit(static_cast<unsigned char>(s[next]))))
          out += " 0";
        i += n;
        matched = true;
        break;
      }
    }
    if (!matched) out += s[i++];
  }
  return out;
}

bool run_wast2json(const fs::path& wast, const fs::path& json, const fs::path& log) {
  std::string cmd = std::string(WEFT_WAST2JSON) + " --no-check " + quote(wast.string()) + " -o " +
                    quote(json.string()) + " >" + quote(log.string()) + " 2>&1";
  return std::system(cmd.c_str()) == 0;
}

struct FileReport {
  int accepted = 0, rejected = 0;     // as expected
  int not_converted = 0;              // commands wast2json could not convert
  std::vector<std::string> mismatches;     // the validator disagrees with the suite
  std::vector<std::string> decode_errors;  // the decoder rejected the module
  int valid_not_decoded = 0;               // ... one the validator should have accepted
  std::vector<std::string> other_wording;  // rejected, but for a reason worded unlike the suite's
};

struct Job {
  fs::path json;
  std::vector<Command> commands;
};

// Converts `wast`; if wast2json fails on the file, converts each top-level
// command separately so one unsupported construct only loses that command.
std::vector<Job> convert(const fs::path& wast, const fs::path& dir, FileReport& report) {
  const std::string base = wast.stem().string();
  const fs::path log = dir / (base + ".log");
  const fs::path json = dir / (base + ".json");
  if (run_wast2json(wast, json, log)) return {{json, parse_commands(read_text(json))}};

  std::vector<Job> jobs;
  for (const auto& [line, form] : split_forms(read_text(wast))) {
    const std::string keyword = form_keyword(form);
    static const char* kWanted[] = {"module", "assert_invalid", "assert_unlinkable", "assert_uninstantiable",
                                    "assert_trap"};
    bool wanted = std::any_of(std::begin(kWanted), std::end(kWanted), [&](const char* w) { return keyword == w; });
    if (!wanted || (keyword == "assert_trap" && form.find("(module") == std::string::npos)) continue;
    const std::string name = base + "-L" + std::to_string(line);
    const fs::path part = dir / (name + ".wast");
    // Padding keeps wast2json's line numbers those of the original file.
    std::ofstream(part) << std::string(size_t(line - 1), '\n') << add_default_table_index(form) << '\n';
    const fs::path part_json = dir / (name + ".json");
    if (run_wast2json(part, part_json, log)) {
      jobs.push_back({part_json, parse_commands(read_text(part_json))});
    } else {
      ++report.not_converted;
    }
  }
  return jobs;
}

fs::path suite_dir() {
  if (const char* env = std::getenv("WEFT_TESTSUITE")) return env;
  return WEFT_TESTSUITE_DIR;
}

TEST(ValidatorCorpus, SpecSuite) {
  const fs::path suite = suite_dir();
  if (!fs::is_directory(suite)) GTEST_SKIP() << "no test suite at " << suite;
  if (!fs::exists(WEFT_WAST2JSON)) GTEST_SKIP() << "wast2json not found";

  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(suite)) {
    const fs::path& p = entry.path();
    if (p.extension() == ".wast" && p.filename().string().rfind("simd_", 0) != 0) files.push_back(p);
  }
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty());

  const fs::path tmp = fs::temp_directory_path() / ("weft-validator-corpus-" + std::to_string(getpid()));
  fs::create_directories(tmp);

  int total_ok = 0, total_mismatch = 0, total_decode = 0, total_valid_not_decoded = 0, total_unconverted = 0;
  for (const fs::path& wast : files) {
    FileReport report;
    for (const Job& job : convert(wast, tmp, report)) {
      for (const Command& c : job.commands) {
        bool expect_valid;
        if (c.type == "assert_invalid") expect_valid = false;
        else if (c.type == "module" || c.type == "assert_unlinkable" || c.type == "assert_uninstantiable" ||
                 c.type == "assert_trap") expect_valid = true;
        else continue;
        if (c.filename.empty() || fs::path(c.filename).extension() != ".wasm") continue;
        const std::string where = wast.filename().string() + ":" + std::to_string(c.line);
        std::string bytes_text = read_text(job.json.parent_path() / c.filename);
        std::vector<uint8_t> bytes(bytes_text.begin(), bytes_text.end());
        // The suite is Wasm 2.0's: one memory, memory indices as 0x00 bytes
        // (multi-memory, on by default, reversed those assertions).
        binary::DecodeOptions decode_options;
        decode_options.enable_multi_memory = false;
        decode_options.enable_memory64 = false;
        ValidateOptions validate_options;
        validate_options.enable_multi_memory = false;
        validate_options.enable_memory64 = false;
        auto decoded = binary::decode_module(bytes, decode_options);
        if (!decoded.ok()) {
          report.decode_errors.push_back(where + " (" + c.type + "): " + decoded.error().to_string());
          // A valid module lost to the decoder is validator coverage lost;
          // invalid ones may legitimately be malformed as wast2json wrote
          // them (e.g. memory.init without a DataCount section).
          report.valid_not_decoded += expect_valid;
          continue;
        }
        auto result = validate_module(*decoded, validate_options);
        if (result.ok() == expect_valid) {
          (expect_valid ? report.accepted : report.rejected)++;
          if (!expect_valid && (result.error().kind != ErrorKind::Invalid ||
                                result.error().message.find(c.text) == std::string::npos))
            report.other_wording.push_back(where + ": expected \"" + c.text + "\", got " + result.error().to_string());
        } else if (expect_valid) {
          report.mismatches.push_back(where + ": valid module rejected: " + result.error().to_string());
        } else {
          report.mismatches.push_back(where + ": invalid module accepted");
        }
      }
    }
    std::printf("%-32s %4d accepted, %4d rejected as expected, %zu mismatches", wast.filename().string().c_str(),
                report.accepted, report.rejected, report.mismatches.size());
    if (!report.decode_errors.empty()) std::printf(", %zu not decoded", report.decode_errors.size());
    if (report.not_converted) std::printf(", %d commands wast2json could not convert", report.not_converted);
    std::printf("\n");
    for (const std::string& m : report.mismatches) std::printf("    MISMATCH %s\n", m.c_str());
    for (const std::string& m : report.decode_errors) std::printf("    DECODE   %s\n", m.c_str());
    for (const std::string& m : report.other_wording) std::printf("    WORDING  %s\n", m.c_str());
    total_ok += report.accepted + report.rejected;
    total_mismatch += int(report.mismatches.size());
    total_decode += int(report.decode_errors.size());
    total_valid_not_decoded += report.valid_not_decoded;
    total_unconverted += report.not_converted;
  }
  std::printf("TOTAL: %d as expected, %d mismatches, %d not decoded, %d not converted (%zu files)\n", total_ok,
              total_mismatch, total_decode, total_unconverted, files.size());
  std::error_code ec;
  fs::remove_all(tmp, ec);
  EXPECT_EQ(total_mismatch, 0);
  EXPECT_EQ(total_valid_not_decoded, 0) << "valid modules the decoder rejected (DECODE lines)";
  EXPECT_GT(total_ok, 0);
}

}  // namespace
}  // namespace weft::validator
