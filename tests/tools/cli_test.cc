// Smoke tests of the built `weft` binary: exit codes and messages of each
// subcommand for good input, bad input and bad command lines.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "tests/support/exec_test.h"
#include "tests/support/scratch.h"

namespace {

namespace fs = std::filesystem;

using weft::test::CliResult;
using weft::test::slurp;

// Every test runs on every tier: `weft run` and `weft wast` commands that
// name no tier get the one under test.
class Cli : public weft::test::ExecTest {
 protected:
  fs::path write(const std::string& name, const std::string& contents) { return scratch_.write(name, contents); }
  // Runs `weft ARGS` (ARGS already shell-quoted) and captures both streams.
  CliResult weft(const std::string& args) {
    return weft::test::run_cli(WEFT_CLI_PATH, weft::test::with_tier(args, tier()), dir_);
  }
  std::string q(const fs::path& p) { return weft::test::shell_quote(p); }

  weft::test::ScratchDir scratch_{"weft_cli"};
  const fs::path& dir_ = scratch_.path();
};

const char* kAddWat = R"wast((module
  (func (export "add") (param i32 i32) (result i32) (i32.add (local.get 0) (local.get 1)))
  (func (export "half") (param f64) (result f64) (f64.mul (local.get 0) (f64.const 0.5)))
  (func (export "boom") (result i32) unreachable)
  (memory (export "mem") 1))
)wast";

INSTANTIATE_TEST_SUITE_P(Exec, Cli, ::testing::ValuesIn(weft::test::available_tiers()),
                         weft::test::TierParamName());

TEST_P(Cli, NoArgumentsIsAUsageError) {
  CliResult r = weft("");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(r.err.empty());
}

TEST_P(Cli, HelpAndVersionSucceed) {
  EXPECT_EQ(weft("--help").exit_code, 0);
  CliResult r = weft("--version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("weft"), std::string::npos);
}

TEST_P(Cli, UnknownCommandAndOption) {
  CliResult r = weft("frobnicate x");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown command 'frobnicate'"), std::string::npos) << r.err;
  r = weft("validate --frobnicate x.wasm");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("frobnicate"), std::string::npos) << r.err;
}

TEST_P(Cli, MissingFileIsAUsageError) {
  for (const char* command : {"run", "validate", "wast", "wat2wasm"}) {
    CliResult r = weft(std::string(command) + " " + q(dir_ / "missing.wasm"));
    EXPECT_EQ(r.exit_code, 2) << command;
    EXPECT_NE(r.err.find("missing.wasm"), std::string::npos) << command << ": " << r.err;
  }
}

TEST_P(Cli, UnknownTierIsRejected) {
  fs::path wat = write("add.wat", kAddWat);
  CliResult r = weft("run --tier=turbo --invoke add " + q(wat) + " 1 2");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unsupported tier 'turbo'"), std::string::npos) << r.err;
}

// A build without a JIT tier (the AArch64 build until its backend lands) has
// no code to show: a usage error saying so (docs/cli.md).
TEST_P(Cli, InspectDisasmPrintsJitCode) {
  fs::path wat = write("add.wat", kAddWat);
  CliResult r = weft("inspect --disasm add " + q(wat));
  if (!weft::test::jit_available()) {
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err, "error: inspect: this build has no JIT tier\n");
    EXPECT_EQ(r.out, "");
    return;
  }
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("add: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ret"), std::string::npos) << r.out;
}

TEST_P(Cli, JitTierRunsTheSameProgram) {
  fs::path wat = write("add.wat", kAddWat);
  CliResult r = weft("run --tier=jit --invoke add " + q(wat) + " 1 2");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, weft("run --tier=interp --invoke add " + q(wat) + " 1 2").out);
}

TEST_P(Cli, InvokePrintsResults) {
  fs::path wat = write("add.wat", kAddWat);
  CliResult r = weft("run --invoke add " + q(wat) + " 40 2");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "42\n");
  r = weft("run --invoke add " + q(wat) + " -1 0x7fffffff");
  EXPECT_EQ(r.out, "2147483646\n") << r.err;
  r = weft("run --tier=interp --invoke half " + q(wat) + " 3");
  EXPECT_EQ(r.out, "1.5\n") << r.err;
  r = weft("run --invoke half " + q(wat) + " -inf");
  EXPECT_EQ(r.out, "-inf\n") << r.err;
}

// v128 arguments are one unsigned 128-bit number (decimal or 0x hex), as
// results print: lane 0 is the low bits.
TEST_P(Cli, InvokeTakesAndPrintsV128) {
  fs::path wat = write("lanes.wat", R"((module
    (func (export "add_lanes") (param v128 v128) (result v128) (i32x4.add (local.get 0) (local.get 1)))
    (func (export "lane") (param v128 i32) (result i32)
      (i32x4.extract_lane 3 (i8x16.shuffle 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 (local.get 0) (local.get 0)))
      (i32x4.extract_lane 0 (local.get 0))
      (select (local.get 1)))))");
  CliResult r = weft("run --invoke add_lanes " + q(wat) + " 0x00000004000000030000000200000001 18446744073709551617");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // lanes {1,2,3,4} + {1,0,1,0} = {2,2,4,4}
  EXPECT_EQ(r.out, "316912650130844326677603942402\n") << r.err;
  r = weft("run --invoke lane " + q(wat) + " 0x0000002a000000000000000000000007 1");
  EXPECT_EQ(r.out, "42\n") << r.err;
  r = weft("run --invoke lane " + q(wat) + " 0x0000002a000000000000000000000007 0");
  EXPECT_EQ(r.out, "7\n") << r.err;
  r = weft("run --invoke lane " + q(wat) + " -1 0");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("invalid v128 argument '-1'"), std::string::npos) << r.err;
}

TEST_P(Cli, InvokeArgumentErrors) {
  fs::path wat = write("add.wat", kAddWat);
  CliResult r = weft("run --invoke add " + q(wat) + " 1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("takes 2 argument"), std::string::npos) << r.err;
  r = weft("run --invoke add " + q(wat) + " 1 x");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("invalid i32 argument 'x'"), std::string::npos) << r.err;
  r = weft("run --invoke nope " + q(wat));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no exported function 'nope'"), std::string::npos) << r.err;
  r = weft("run --invoke mem " + q(wat));
  EXPECT_EQ(r.exit_code, 2);
  r = weft("run " + q(wat));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no _start export; use --invoke NAME"), std::string::npos) << r.err;
}

// A trap exits 134 (128 + SIGABRT), as in wasmtime, so scripts that take a
// status above 128 for "the program died" see it.
TEST_P(Cli, TrapExits134) {
  fs::path wat = write("add.wat", kAddWat);
  CliResult r = weft("run --invoke boom " + q(wat));
  EXPECT_EQ(r.exit_code, 134);
  EXPECT_NE(r.err.find("error: trap: unreachable"), std::string::npos) << r.err;
}

TEST_P(Cli, UsageErrorsExit2) {
  fs::path wat = write("add.wat", kAddWat);
  for (const std::string& args : {"run --frobnicate " + q(wat), "run -W frobnicate " + q(wat),
                                  "run --invoke add " + q(wat) + " 1", std::string("run"), "--frobnicate " + q(wat)}) {
    CliResult r = weft(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find("error: "), std::string::npos) << args << "\n" << r.err;
  }
}

// `weft FILE …` is `weft run FILE …`, as in wasmtime; run's options may come
// first.
TEST_P(Cli, RunIsTheDefaultCommand) {
  fs::path wat = write("add.wat", kAddWat);
  const std::string tier_flag = std::string("--tier=") + weft::test::tier_cli_name(tier());
  CliResult r = weft(tier_flag + " --invoke add " + q(wat) + " 40 2");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "42\n");
  r = weft(tier_flag + " " + q(write("start.wat", R"wast((module (func (export "_start"))))wast")));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // A file name that does not exist is a missing file, not an unknown command.
  r = weft("frobnicate.wasm");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cannot open 'frobnicate.wasm': no such file"), std::string::npos) << r.err;
}

// A file that is neither a binary module nor the text format says so, and
// shows what it found; run, validate and inspect read files the same way.
TEST_P(Cli, NotAModuleMessage) {
  const std::string lfs_pointer =
      "version https://git-lfs.github.com/spec/v1\n"
      "oid sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\n"
      "size 52736\n";
  fs::path pointer = write("x.wasm", lfs_pointer);
  for (const char* command : {"run ", "validate ", "inspect --dispatch "}) {
    CliResult r = weft(command + q(pointer));
    EXPECT_EQ(r.exit_code, 1) << command;
    EXPECT_NE(r.err.find("not a WebAssembly module (expected binary magic or text): found \"version "
                         "https://git-lfs.github.com/spec/v1\\n"),
              std::string::npos)
        << command << r.err;
    EXPECT_EQ(r.err.find("unknown operator"), std::string::npos) << command << r.err;
  }
  fs::path version2 = write("v2.wasm", std::string("\0asm\2\0\0\0", 8));
  CliResult r = weft("run " + q(version2));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("not a WebAssembly module (expected binary magic or text): found the binary magic \\0asm "
                       "with version 02 00 00 00"),
            std::string::npos)
      << r.err;
}

TEST_P(Cli, RunsStart) {
  fs::path wat = write("start.wat", R"wast((module (func (export "_start") (drop (i32.const 1)))))wast");
  CliResult r = weft("run " + q(wat));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST_P(Cli, UnknownWasiImportIsUnlinkable) {
  fs::path wat = write("wasi.wat", R"wast((module
    (import "wasi_snapshot_preview1" "fd_bogus" (func (param i32 i32 i32 i32) (result i32)))
    (func (export "_start"))))wast");
  CliResult r = weft("run " + q(wat));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("unlinkable"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("fd_bogus"), std::string::npos) << r.err;
}

TEST_P(Cli, ValidateReportsMalformedBinaryWithOffset) {
  // A type section that claims 5 bytes but ends after 1.
  fs::path wasm = write("bad.wasm", std::string("\0asm\1\0\0\0\1\5\1", 11));
  CliResult r = weft("validate " + q(wasm));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("malformed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("offset 0x"), std::string::npos) << r.err;
  r = weft("run " + q(wasm));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("offset 0x"), std::string::npos) << r.err;
  // A binary module of version 1 is not mistaken for "not a module".
  EXPECT_EQ(r.err.find("not a WebAssembly module"), std::string::npos) << r.err;
}

TEST_P(Cli, ValidateTextModules) {
  CliResult r = weft("validate " + q(write("ok.wat", kAddWat)));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "valid\n");
  r = weft("validate " + q(write("invalid.wat", "(module (func (result i32) (i64.const 1)))")));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("invalid"), std::string::npos) << r.err;
  r = weft("validate " + q(write("malformed.wat", "(module (func (i32.bogus)))")));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("malformed"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1:"), std::string::npos) << r.err;  // line:column
}

TEST_P(Cli, Wat2WasmRoundTrip) {
  fs::path wat = write("add.wat", kAddWat);
  fs::path wasm = dir_ / "out.wasm";
  CliResult r = weft("wat2wasm " + q(wat) + " -o " + q(wasm));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(slurp(wasm).substr(0, 4), std::string("\0asm", 4));
  r = weft("run --invoke add " + q(wasm) + " 2 3");
  EXPECT_EQ(r.out, "5\n") << r.err;
  // Default output name: the input with .wasm.
  r = weft("wat2wasm " + q(wat));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir_ / "add.wasm"));
  // Invalid modules are rejected unless --no-check.
  fs::path invalid = write("invalid.wat", "(module (func (result i32) (i64.const 1)))");
  EXPECT_EQ(weft("wat2wasm " + q(invalid) + " -o " + q(wasm)).exit_code, 1);
  EXPECT_EQ(weft("wat2wasm --no-check " + q(invalid) + " -o " + q(wasm)).exit_code, 0);
}

TEST_P(Cli, WastPassAndFail) {
  fs::path pass = write("pass.wast", R"wast((module (func (export "f") (result i32) (i32.const 1)))
(assert_return (invoke "f") (i32.const 1))
)wast");
  fs::path fail = write("fail.wast", R"wast((module (func (export "f") (result i32) (i32.const 1)))
(assert_return (invoke "f") (i32.const 2))
)wast");
  CliResult r = weft("wast --tier=interp " + q(pass));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("PASS " + pass.string() + ": 2 passed, 0 failed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("spec: 2 passed, 0 failed"), std::string::npos) << r.out;

  r = weft("wast " + q(pass) + " " + q(fail));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("FAIL " + fail.string() + ": 1 passed, 1 failed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(fail.string() + ":2: assert_return: expected (i32:2), got (i32:1)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("spec: 3 passed, 1 failed"), std::string::npos) << r.out;

  r = weft("wast --quiet " + q(fail));
  EXPECT_EQ(r.out.find("assert_return"), std::string::npos) << r.out;

  // Expected-failure mode: succeeds only while the file fails.
  EXPECT_EQ(weft("wast --expect-fail " + q(fail)).exit_code, 0);
  r = weft("wast --expect-fail " + q(pass));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("remove it from the expected-failure list"), std::string::npos) << r.err;
}

// A script that does not parse runs no check, so its error is the only
// explanation of the failure: every mode must show it with its location.
TEST_P(Cli, WastParseErrorShowsMessageAndLocationInEveryMode) {
  fs::path bad = write("bad.wast", "(module)\n(module\n  (bogus))\n");
  for (const char* mode : {"", "-v ", "-q "}) {
    CliResult r = weft(std::string("wast ") + mode + q(bad));
    EXPECT_EQ(r.exit_code, 1) << mode << r.out << r.err;
    EXPECT_NE(r.out.find(bad.string() + ":3:4: parse error: unknown operator bogus"), std::string::npos)
        << "mode '" << mode << "':\n" << r.out;
    EXPECT_NE(r.out.find("FAIL " + bad.string() + ": 1 passed, 1 failed"), std::string::npos) << mode << r.out;
  }
}

TEST_P(Cli, DemoExampleRuns) {
  CliResult r = weft(std::string("run --invoke fib '") + WEFT_EXAMPLES_DIR + "/fib.wat' 50");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "12586269025\n");
  r = weft(std::string("run --invoke fac '") + WEFT_EXAMPLES_DIR + "/fib.wat' 20");
  EXPECT_EQ(r.out, "2432902008176640000\n") << r.err;
}

}  // namespace
