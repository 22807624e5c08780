// `weft run` with WASI on hand-written modules: exit codes, output, and that
// malformed or hostile modules (unknown or mistyped imports, huge memory.grow,
// no memory export, runaway recursion) end with a clear error, never a crash.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "tests/support/exec_test.h"
#include "tests/support/scratch.h"

namespace {

namespace fs = std::filesystem;

using weft::test::CliResult;

// Every test runs `weft run` on every tier (--tier).
class RunWasi : public weft::test::ExecTest {
 protected:
  // Writes a module into the scratch directory; returns its quoted path.
  std::string module(const std::string& name, const std::string& text) {
    return weft::test::shell_quote(scratch_.write(name, text));
  }
  // Runs `weft ARGS` (ARGS already shell-quoted) in dir_; a signal shows as 128+N.
  // `weft run …` commands get the tier under test.
  CliResult weft(const std::string& args) {
    return weft::test::run_cli(WEFT_CLI_PATH, weft::test::with_tier(args, tier()), dir_);
  }

  weft::test::ScratchDir scratch_{"weft_run_wasi"};
  const fs::path& dir_ = scratch_.path();
};

// fd_write of the 3 bytes at 16 ("hi\n") through the iovec at 0.
const char* kHello = R"((module
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "\10\00\00\00\03\00\00\00")
  (data (i32.const 16) "hi\n")
  (func (export "_start") (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8))))
  (func (export "twice") (param i32) (result i32)
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))
    (i32.mul (local.get 0) (i32.const 2))))
)";

INSTANTIATE_TEST_SUITE_P(Exec, RunWasi, ::testing::ValuesIn(weft::test::available_tiers()),
                         weft::test::TierParamName());

TEST_P(RunWasi, HelloFromText) {
  CliResult r = weft("run " + module("hello.wat", kHello));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "hi\n");
  EXPECT_EQ(r.err, "");
}

TEST_P(RunWasi, InvokeWithWasi) {
  CliResult r = weft("run --invoke twice " + module("hello.wat", kHello) + " 21");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "hi\n42\n");
}

TEST_P(RunWasi, ProcExitCodeIsTheExitStatus) {
  std::string m = module("exit.wat", R"((module
    (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
    (memory (export "memory") 1)
    (func $deeper (param i32) (call $exit (local.get 0)) unreachable)
    (func (export "_start") (call $deeper (i32.const 3)) unreachable)))");
  CliResult r = weft("run " + m);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, "");  // an exit is not a trap
}

TEST_P(RunWasi, ProcExitInTheStartFunction) {
  std::string m = module("start_exit.wat", R"((module
    (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
    (func $init (call $exit (i32.const 5)))
    (start $init)
    (func (export "_start") unreachable)))");
  CliResult r = weft("run " + m);
  EXPECT_EQ(r.exit_code, 5) << r.err;
}

TEST_P(RunWasi, TrapPrintsMessageAndBacktrace) {
  std::string m = module("trap.wat", R"((module
    (memory (export "memory") 1)
    (func $boom unreachable)
    (func (export "_start") (call $boom))))");
  CliResult r = weft("run " + m);
  EXPECT_EQ(r.exit_code, 134);  // as wasmtime: 128 + SIGABRT
  EXPECT_NE(r.err.find("error: trap: unreachable"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("  at "), std::string::npos) << r.err;
}

TEST_P(RunWasi, RunawayRecursionTrapsCleanly) {
  std::string m = module("rec.wat", R"((module
    (func $f (param i32) (result i32) (i32.add (call $f (i32.add (local.get 0) (i32.const 1))) (i32.const 1)))
    (func (export "_start") (drop (call $f (i32.const 0))))))");
  CliResult r = weft("run " + m);
  EXPECT_EQ(r.exit_code, 134);  // stack exhaustion is a trap
  EXPECT_NE(r.err.find("call stack exhausted"), std::string::npos) << r.err;
}

TEST_P(RunWasi, UnknownWasiFunction) {
  std::string m = module("unknown.wat", R"((module
    (import "wasi_snapshot_preview1" "fd_teleport" (func (param i32) (result i32)))
    (func (export "_start"))))");
  CliResult r = weft("run " + m);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("\"fd_teleport\""), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("not a wasi_snapshot_preview1 function"), std::string::npos) << r.err;
}

TEST_P(RunWasi, MistypedWasiImport) {
  std::string m = module("mistyped.wat", R"((module
    (import "wasi_snapshot_preview1" "fd_write" (func (param i64) (result i32)))
    (func (export "_start"))))");
  CliResult r = weft("run " + m);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("incompatible import type"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("fd_write"), std::string::npos) << r.err;
  // A WASI name imported as a memory, not a function.
  m = module("kind.wat", R"((module (import "wasi_snapshot_preview1" "fd_read" (memory 1)) (func (export "_start"))))");
  r = weft("run " + m);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("incompatible import type"), std::string::npos) << r.err;
}

TEST_P(RunWasi, OtherModulesAreUnlinkable) {
  CliResult r = weft("run " + module("env.wat", R"((module (import "env" "f" (func)) (func (export "_start"))))"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("unknown import \"env\" \"f\""), std::string::npos) << r.err;
  r = weft("run " + module("old.wat", R"((module
    (import "wasi_unstable" "fd_write" (func (param i32 i32 i32 i32) (result i32)))
    (func (export "_start"))))"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("only wasi_snapshot_preview1"), std::string::npos) << r.err;
}

TEST_P(RunWasi, HugeMemoryGrowFailsGracefully) {
  // Each grow must return -1 (or succeed); exit 0 only if all of them behaved.
  std::string m = module("grow.wat", R"((module
    (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
    (memory (export "memory") 1)
    (func (export "_start")
      (if (i32.ne (memory.grow (i32.const 0x7fffffff)) (i32.const -1)) (then (call $exit (i32.const 10))))
      (if (i32.ne (memory.grow (i32.const 0xffffffff)) (i32.const -1)) (then (call $exit (i32.const 11))))
      (if (i32.ne (memory.grow (i32.const 65536)) (i32.const -1)) (then (call $exit (i32.const 12))))
      (if (i32.ne (memory.grow (i32.const 1)) (i32.const 1)) (then (call $exit (i32.const 13))))
      (i32.store (i32.const 0x1fffc) (i32.const 1))
      (call $exit (i32.const 0)))))");
  CliResult r = weft("run " + m);
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_P(RunWasi, WasiCallWithoutMemoryExport) {
  std::string m = module("nomem.wat", R"((module
    (import "wasi_snapshot_preview1" "fd_write" (func $w (param i32 i32 i32 i32) (result i32)))
    (memory 1)
    (func (export "_start") (drop (call $w (i32.const 1) (i32.const 0) (i32.const 0) (i32.const 0))))))");
  CliResult r = weft("run " + m);
  EXPECT_EQ(r.exit_code, 134);  // a trap
  EXPECT_NE(r.err.find("no memory named \"memory\""), std::string::npos) << r.err;
}

TEST_P(RunWasi, HostilePointersAreErrnosNotCrashes) {
  // fd_write with an iovec claiming 4 GiB at the end of memory: EFAULT (21).
  std::string m = module("efault.wat", R"((module
    (import "wasi_snapshot_preview1" "fd_write" (func $w (param i32 i32 i32 i32) (result i32)))
    (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
    (memory (export "memory") 1)
    (data (i32.const 0) "\f0\ff\00\00\ff\ff\ff\ff")
    (func (export "_start")
      (call $exit (call $w (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 0xfffffff0))))))");
  CliResult r = weft("run " + m);
  EXPECT_EQ(r.exit_code, 21) << r.err;
}

TEST_P(RunWasi, CommandLineErrors) {
  std::string m = module("hello.wat", kHello);
  CliResult r = weft("run --dir ./does-not-exist " + m);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cannot open directory './does-not-exist'"), std::string::npos) << r.err;
  r = weft("run --dir ::guest " + m);
  EXPECT_EQ(r.exit_code, 2);
  r = weft("run --env =value " + m);
  EXPECT_EQ(r.exit_code, 2);
  // _start with parameters is not a WASI command.
  r = weft("run " + module("params.wat", R"((module (func (export "_start") (param i32))))"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("_start"), std::string::npos) << r.err;
}

TEST_P(RunWasi, HelpDocumentsTheOptions) {
  CliResult r = weft("run --help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* text : {"--dir", "--env", "--invoke", "HOST::GUEST", "proc_exit", "wasm32-wasi", "ENOTCAPABLE"})
    EXPECT_NE(r.out.find(text), std::string::npos) << text;
}

}  // namespace
