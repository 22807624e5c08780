// weft as a drop-in for `wasmtime run`: the command lines of wasmtime's
// documentation (wasmtime_run_commands.txt) run against weft with their
// documented effect, and the wasmtime flags' edge cases — `--` after FILE,
// -W/-S errors, --preload failures, -v — on every tier.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/exec_test.h"
#include "tests/support/scratch.h"

namespace {

namespace fs = std::filesystem;

using weft::Tier;
using weft::test::CliResult;
using weft::test::shell_quote;
using weft::test::slurp;

const fs::path kDataFile = fs::path(WEFT_TOOLS_TEST_DIR) / "wasmtime_run_commands.txt";
const fs::path kFixtures = fs::path(WEFT_TOOLS_TEST_DIR) / "wasmtime_run";

// ---------------------------------------------------------------------------
// The data file: one record per command line (format in its header).

struct Record {
  int line = 0;        // of `command:` in the data file
  std::string source;  // the citation comments
  std::string command;
  std::vector<std::pair<std::string, std::string>> fixtures;  // NAME, SOURCE
  std::vector<std::string> mkdirs;
  std::vector<std::pair<std::string, std::string>> writes;  // PATH, TEXT
  std::vector<std::string> host_env;                        // NAME=VALUE
  std::optional<int> exit_code;
  std::optional<std::string> stdout_is;
  std::vector<std::string> stdout_has, stderr_has;
  std::vector<std::pair<std::string, std::string>> files;  // PATH, TEXT
  std::vector<std::string> no_files;
  std::string problem;  // why the record cannot be used, if it cannot
};

std::string unescape(const std::string& text) {
  std::string s;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && (text[i + 1] == 'n' || text[i + 1] == '\\')) {
      s += text[++i] == 'n' ? '\n' : '\\';
    } else {
      s += text[i];
    }
  }
  return s;
}

std::pair<std::string, std::string> split_once(const std::string& s, char sep) {
  const size_t at = s.find(sep);
  if (at == std::string::npos) return {s, ""};
  return {s.substr(0, at), s.substr(at + 1)};
}

void add_field(Record& r, const std::string& key, const std::string& value) {
  if (key == "command") {
    r.command = value;
  } else if (key == "fixture") {
    r.fixtures.push_back(split_once(value, '='));
  } else if (key == "mkdir") {
    std::istringstream dirs(value);
    for (std::string d; dirs >> d;) r.mkdirs.push_back(d);
  } else if (key == "write") {
    auto [path, text] = split_once(value, ' ');
    r.writes.emplace_back(path, unescape(text));
  } else if (key == "host-env") {
    r.host_env.push_back(value);
  } else if (key == "exit") {
    r.exit_code = std::atoi(value.c_str());
  } else if (key == "stdout") {
    r.stdout_is = unescape(value);
  } else if (key == "stdout-has") {
    r.stdout_has.push_back(unescape(value));
  } else if (key == "stderr-has") {
    r.stderr_has.push_back(unescape(value));
  } else if (key == "file") {
    auto [path, text] = split_once(value, ' ');
    r.files.emplace_back(path, unescape(text));
  } else if (key == "no-file") {
    r.no_files.push_back(value);
  } else {
    r.problem = "unknown key '" + key + "'";
  }
}

std::vector<Record> read_records() {
  std::ifstream in(kDataFile);
  if (!in) {
    Record unreadable;
    unreadable.problem = "cannot read " + kDataFile.string();
    return {unreadable};
  }
  std::vector<Record> records;
  std::optional<Record> current;
  std::string comments;
  int line_number = 0;
  const auto finish = [&] {
    if (current) records.push_back(std::move(*current));
    current.reset();
    comments.clear();
  };
  for (std::string line; std::getline(in, line);) {
    ++line_number;
    if (line.empty()) {
      finish();
    } else if (line[0] == '#') {
      comments += line.substr(line.size() > 1 ? 2 : 1) + "\n";
    } else {
      if (!current) {
        current.emplace();
        current->line = line_number;
        current->source = comments;
      }
      const size_t colon = line.find(": ");
      if (colon == std::string::npos) {
        current->problem = "line " + std::to_string(line_number) + ": expected KEY: VALUE";
      } else {
        add_field(*current, line.substr(0, colon), line.substr(colon + 2));
      }
    }
  }
  finish();
  return records;
}

const std::vector<Record>& records() {
  static const std::vector<Record> all = read_records();
  return all;
}

std::vector<size_t> record_indices() {
  std::vector<size_t> indices(records().size());
  for (size_t i = 0; i < indices.size(); ++i) indices[i] = i;
  return indices;
}

// The documented command line as weft runs it: `wasmtime [run]` becomes weft
// with the tier under test, and `--dir=/ABS` is re-rooted in the record's
// directory (see the data file's header). The documented lines need no
// shell quoting, so splitting at spaces is exact.
std::string weft_command_line(const std::string& command, Tier tier) {
  std::istringstream in(command);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  std::string line = shell_quote(WEFT_CLI_PATH);
  size_t i = 1;
  if (words.size() > 1 && words[1] == "run") {
    line += " run";
    i = 2;
  }
  line += std::string(" --tier=") + weft::test::tier_cli_name(tier);
  for (; i < words.size(); ++i) {
    std::string w = words[i];
    if (w.rfind("--dir=/", 0) == 0) {
      const std::string host = w.substr(6, w.find("::") == std::string::npos ? std::string::npos : w.find("::") - 6);
      const std::string guest = w.find("::") == std::string::npos ? host : w.substr(w.find("::") + 2);
      w = "--dir=." + host + "::" + guest;
    }
    line += " " + w;
  }
  return line;
}

using RecordParam = std::tuple<Tier, size_t>;

class CliWasmtimeRun : public ::testing::TestWithParam<RecordParam> {};

// "Jit_line42": the tier and the record's line in the data file.
std::string record_test_name(const ::testing::TestParamInfo<RecordParam>& info) {
  return std::string(weft::test::tier_name(std::get<0>(info.param))) + "_line" +
         std::to_string(records()[std::get<1>(info.param)].line);
}

INSTANTIATE_TEST_SUITE_P(Exec, CliWasmtimeRun,
                         ::testing::Combine(::testing::ValuesIn(weft::test::available_tiers()),
                                            ::testing::ValuesIn(record_indices())),
                         record_test_name);

// Builds or copies a fixture into `dir`; false (with `why`) when the toolchain
// for a C fixture is missing.
bool place_fixture(const fs::path& dir, const std::string& name, const std::string& source, std::string& why) {
  const fs::path from = kFixtures / source, to = dir / name;
  std::string command;
  if (source.ends_with(".c")) {
    const char* clang = std::getenv("CLANG");
    command = std::string(clang ? clang : "clang") + " --target=wasm32-wasi --sysroot=/usr -O2 " + shell_quote(from) +
              " -o " + shell_quote(to) + " >/dev/null 2>&1";
    if (std::system(command.c_str()) != 0) {
      why = "no wasm32-wasi C toolchain for " + source +
            " (Debian: apt install clang lld wasi-libc libclang-rt-14-dev-wasm32)";
      return false;
    }
  } else if (source.ends_with(".wat") && name.ends_with(".wasm")) {
    command = shell_quote(WEFT_CLI_PATH) + " wat2wasm " + shell_quote(from) + " -o " + shell_quote(to);
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
  } else {
    fs::copy_file(from, to, fs::copy_options::overwrite_existing);
  }
  return true;
}

TEST_P(CliWasmtimeRun, HasTheDocumentedEffect) {
  const auto [tier, index] = GetParam();
  const Record& r = records()[index];
  ASSERT_EQ(r.problem, "") << kDataFile << ":" << r.line;
  ASSERT_NE(r.command, "") << kDataFile << ":" << r.line << ": a record without a command";
  ASSERT_NE(r.source, "") << kDataFile << ":" << r.line << ": no comment citing where the command line comes from";
  ASSERT_EQ(r.command.rfind("wasmtime ", 0), 0u) << r.command;
  SCOPED_TRACE(kDataFile.string() + ":" + std::to_string(r.line) + ": " + r.command + "\n" + r.source);

  weft::test::ScratchDir scratch{"weft_wasmtime_run"};
  const fs::path dir = scratch.path() / "cwd";  // the program's directory: only what the record puts there
  fs::create_directories(dir);
  for (const auto& [name, source] : r.fixtures) {
    std::string why;
    if (!place_fixture(dir, name, source, why)) GTEST_SKIP() << why;
  }
  for (const std::string& d : r.mkdirs) fs::create_directories(dir / d);
  for (const auto& [path, text] : r.writes) std::ofstream(dir / path, std::ios::binary) << text;

  std::string env;
  for (const std::string& var : r.host_env) {
    auto [name, value] = split_once(var, '=');
    env += name + "=" + shell_quote(value) + " ";
  }
  // `env` carries the host-env assignments (the program's directory also
  // receives weft's captured stdout and stderr files; no record looks at them).
  const std::string args = env + weft_command_line(r.command, tier);
  const CliResult result = weft::test::run_cli("env", args, dir);
  SCOPED_TRACE("ran: env " + args + "\nstdout:\n" + result.out + "stderr:\n" + result.err);

  if (r.exit_code) {
    EXPECT_EQ(result.exit_code, *r.exit_code);
  }
  if (r.stdout_is) {
    EXPECT_EQ(result.out, *r.stdout_is);
  }
  for (const std::string& part : r.stdout_has) EXPECT_NE(result.out.find(part), std::string::npos) << part;
  for (const std::string& part : r.stderr_has) EXPECT_NE(result.err.find(part), std::string::npos) << part;
  for (const auto& [path, text] : r.files) EXPECT_EQ(slurp(dir / path), text) << path;
  for (const std::string& path : r.no_files) EXPECT_FALSE(fs::exists(dir / path)) << path;
}

TEST(CliWasmtimeRunData, HasTheDocumentedCommandLines) {
  // At least the 20 command lines issue 22 asks for, each with a citation.
  EXPECT_GE(records().size(), 20u);
  for (const Record& r : records()) EXPECT_NE(r.source, "") << "line " << r.line;
}

// ---------------------------------------------------------------------------
// The wasmtime flags' edge cases.

class CliWasmtimeFlags : public weft::test::ExecTest {
 protected:
  // `weft ARGS` on the tier under test (ARGS shell-quoted): `run …` gets
  // --tier after `run`, a command line without `run` gets it first, where
  // it is an option of the implicit `run`.
  CliResult weft(const std::string& args) {
    const std::string line = args.rfind("run ", 0) == 0
                                 ? weft::test::with_tier(args, tier())
                                 : std::string("--tier=") + weft::test::tier_cli_name(tier()) + " " + args;
    return weft::test::run_cli(WEFT_CLI_PATH, line, dir_);
  }
  std::string fixture(const std::string& name) { return shell_quote(kFixtures / name); }
  std::string write(const std::string& name, const std::string& contents) {
    return shell_quote(scratch_.write(name, contents));
  }

  weft::test::ScratchDir scratch_{"weft_wasmtime_flags"};
  const fs::path& dir_ = scratch_.path();
};

INSTANTIATE_TEST_SUITE_P(Exec, CliWasmtimeFlags, ::testing::ValuesIn(weft::test::available_tiers()),
                         weft::test::TierParamName());

TEST_P(CliWasmtimeFlags, EverythingAfterTheFileIsTheProgramsEvenDashDash) {
  // As wasmtime's own tests (tests/all/cli_tests.rs, wasm_flags): a `--`
  // before FILE ends the options, after FILE it is an argument.
  CliResult r = weft("run -- " + fixture("foo.wat") + " -- --dir . -x");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "foo.wat\n--\n--dir\n.\n-x\n");
  r = weft(fixture("foo.wat") + " --");
  EXPECT_EQ(r.out, "foo.wat\n--\n") << r.err;
}

TEST_P(CliWasmtimeFlags, EnvInheritanceAndOverrides) {
  // -S inherit-env copies the host's variables; --env replaces one of them.
  CliResult r = weft("run -S inherit-env --env HOME=/guest-home " + fixture("foo.wat"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("env HOME=/guest-home\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("env HOME=" + std::string(std::getenv("HOME") ? std::getenv("HOME") : "?") + "\n"),
            std::string::npos)
      << r.out;
  // --env NAME of a variable the host does not have leaves it unset.
  r = weft("run --env WEFT_SURELY_UNSET_VARIABLE " + fixture("foo.wat"));
  EXPECT_EQ(r.out, "foo.wat\n") << r.err;
  // -S inherit-env=n is the default: nothing is inherited.
  r = weft("run -S inherit-env=n " + fixture("foo.wat"));
  EXPECT_EQ(r.out, "foo.wat\n") << r.err;
}

// -W timeout= / --timeout: a program looping forever is stopped, on every tier,
// with the trap's message and exit 134 (wasmtime's status for a trap).
TEST_P(CliWasmtimeFlags, TimeoutStopsAProgramLoopingForever) {
  for (const std::string flag : {"-W timeout=200ms", "--timeout 200ms"}) {
    CliResult r = weft("run " + flag + " " + fixture("spin.wat"));
    EXPECT_EQ(r.exit_code, 134) << flag << "\n" << r.err;
    EXPECT_NE(r.err.find("error: trap: interrupted"), std::string::npos) << flag << "\n" << r.err;
    EXPECT_NE(r.err.find("elapsed"), std::string::npos) << flag << "\n" << r.err;
  }
  CliResult quick = weft("run --timeout 10s " + fixture("foo.wat"));  // finishes first: no interrupt
  EXPECT_EQ(quick.exit_code, 0) << quick.err;
  EXPECT_EQ(quick.err.find("elapsed"), std::string::npos) << quick.err;
}

TEST_P(CliWasmtimeFlags, UnknownOrUnsupportedKeysAreUsageErrors) {
  CliResult r = weft("run -W frobnicate=1 " + fixture("foo.wat"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown -W option 'frobnicate' (known: extended-const, exceptions, fuel, function-references, max-memory-size, "
                       "max-table-elements, max-wasm-stack, memory64, multi-memory, simd, stack-switching, tail-call, timeout"),
            std::string::npos)
      << r.err;
  r = weft("run -S frobnicate " + fixture("foo.wat"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown -S option 'frobnicate' (known: inherit-env,"), std::string::npos) << r.err;
  r = weft("run -W timeout=soon " + fixture("spin.wat"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("-W timeout: 'soon' is not a duration"), std::string::npos) << r.err;
  r = weft("run -S inherit-network " + fixture("foo.wat"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("-S inherit-network: not supported yet"), std::string::npos) << r.err;
  r = weft("run -S tcplisten=8080 " + fixture("foo.wat"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cannot listen on '8080': expected HOST:PORT"), std::string::npos) << r.err;
  // A listening socket the program does not use; port 0 is chosen by the kernel and printed.
  r = weft("run -S tcplisten=127.0.0.1:0 " + fixture("foo.wat"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("weft: listening on 127.0.0.1:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(fd 3)"), std::string::npos) << r.err;
  r = weft("run -W fuel=lots " + fixture("foo.wat"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("-W fuel: 'lots' is not a number"), std::string::npos) << r.err;
  r = weft("run -W simd=maybe " + fixture("foo.wat"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("-W simd: 'maybe' is not y, yes, true, n, no or false"), std::string::npos) << r.err;
  // Turning sockets off is what weft's WASI does anyway.
  r = weft("run -S tcp=n,udp=no " + fixture("foo.wat"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_P(CliWasmtimeFlags, HelpListsTheKeys) {
  CliResult r = weft("run -W help");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const char* key : {"-W fuel=N", "-W max-memory-size=BYTES", "-W max-wasm-stack=BYTES", "-W timeout"})
    EXPECT_NE(r.out.find(key), std::string::npos) << key << "\n" << r.out;
  r = weft("run -S help");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("-S inherit-env"), std::string::npos) << r.out;
}

TEST_P(CliWasmtimeFlags, WasmOptionsCombineWithCommas) {
  // Both limits apply: the memory one decides the exit status.
  CliResult r = weft("run -W fuel=1000000,max-memory-size=0x20000 " + fixture("grow.wat"));
  EXPECT_EQ(r.exit_code, 2) << r.err;  // 2 pages of 64 KiB
  r = weft("run -Wmax-memory-size=262_144 " + fixture("grow.wat"));
  EXPECT_EQ(r.exit_code, 4) << r.err;
  r = weft("run " + fixture("grow.wat"));
  EXPECT_EQ(r.exit_code, 100) << r.err;
}

TEST_P(CliWasmtimeFlags, MaxWasmStackIsTheValueStack) {
  // deep.wat needs about a megabyte: the default stack has room.
  CliResult r = weft("run " + fixture("deep.wat"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = weft("run -W max-wasm-stack=1000 " + fixture("deep.wat"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("at least 65536 bytes"), std::string::npos) << r.err;
}

TEST_P(CliWasmtimeFlags, SimdSwitch) {
  // _start runs a SIMD instruction (on the JIT tier through the interpreter fallback).
  const std::string simd = write(
      "simd.wat", R"((module (func (export "_start") (drop (i32x4.extract_lane 3 (i32x4.splat (i32.const 1)))))))");
  CliResult r = weft("run -W simd=y " + simd);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = weft("run -W simd=n " + simd);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("SIMD support is not enabled"), std::string::npos) << r.err;
}

TEST_P(CliWasmtimeFlags, PreloadErrors) {
  CliResult r = weft("run --preload lib " + fixture("main.wat"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--preload 'lib': expected NAME=PATH"), std::string::npos) << r.err;
  r = weft("run --preload lib=missing.wasm " + fixture("main.wat"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("missing.wasm"), std::string::npos) << r.err;
  // The preload exists but does not export what main imports.
  r = weft("run --preload lib=" + fixture("add.wat") + " " + fixture("main.wat"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("unknown import \"lib\" \"answer\" (func): not exported by the --preload module lib"),
            std::string::npos)
      << r.err;
  // Without --preload the import names the option that would provide it.
  r = weft("run " + fixture("main.wat"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--preload NAME=PATH"), std::string::npos) << r.err;
}

TEST_P(CliWasmtimeFlags, TierStatsGoToStderr) {
  CliResult r = weft("run -v --invoke add " + fixture("add.wat") + " 1 2");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "3\n");
  if (tier() == Tier::Jit) {
    EXPECT_NE(r.err.find("weft: tier jit: 1 functions compiled, 0 fell back to the interpreter"), std::string::npos)
        << r.err;
  } else {
    EXPECT_NE(r.err.find("weft: tier interp"), std::string::npos) << r.err;
  }
  // Also when the program traps.
  r = weft("run --tier-stats -W fuel=1000 " + fixture("spin.wat"));
  EXPECT_EQ(r.exit_code, 134) << r.err;
  EXPECT_NE(r.err.find("all fuel consumed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("weft: tier "), std::string::npos) << r.err;
}

}  // namespace
