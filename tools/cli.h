// Shared pieces of the `weft` subcommands: exit codes, option helpers and
// error printing. Each subcommand lives in its own cmd_*.cc file.
#pragma once

#include <chrono>

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "weft/weft.h"

namespace weft::cli {

// Exit codes of every subcommand (documented in docs/cli.md).
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;  // the input was rejected, a trap, a failed spec check
constexpr int kExitUsage = 2;    // bad command line: unknown option, missing file, bad argument
// A trap (and "call stack exhausted"), as wasmtime exits: 128 + SIGABRT, so
// scripts that read a status above 128 as "the program died" see it.
constexpr int kExitTrap = 134;

// Each registers one subcommand; its callback stores the exit code.
void add_run_command(CLI::App& app, int& exit_code);
void add_wast_command(CLI::App& app, int& exit_code);
void add_validate_command(CLI::App& app, int& exit_code);
void add_wat2wasm_command(CLI::App& app, int& exit_code);
void add_inspect_command(CLI::App& app, int& exit_code);

// `--tier=NAME`: the execution tier, "interp" (default) or "jit"; anything
// else is rejected while parsing the command line.
CLI::Option* add_tier_option(CLI::App& command, std::string& tier);
Config make_config(const std::string& tier);

// Resource limits (docs/cli.md, "Limits"): --fuel, --max-memory-pages,
// --max-table-elements, --max-call-depth, --max-fibers, --fiber-stack-size.
// Unset options keep Config's defaults.
struct LimitArgs {
  std::optional<uint64_t> fuel;
  std::optional<uint64_t> max_memory_pages;
  std::optional<uint64_t> max_table_elements;
  std::optional<uint32_t> max_call_depth;
  std::optional<uint64_t> max_fibers;        // fiber extension
  std::optional<uint64_t> fiber_stack_size;  // bytes per started fiber
  bool disable_fibers = false;               // strict Wasm 2.0: no 0xFA/0x5C/… encodings
  bool disable_function_references = false;  // no Wasm 3.0 typed function references
  bool disable_multi_memory = false;          // at most one memory per module (Wasm 2.0)
  bool disable_memory64 = false;              // no i64 address types (Wasm 2.0)
  bool disable_tail_call = false;             // no return_call* (Wasm 2.0)
  bool disable_extended_const = false;        // no arithmetic in constant expressions (Wasm 2.0)
  bool disable_exceptions = false;            // no throw, try_table, exnref (Wasm 2.0)
  // Set only through wasmtime's -W keys (max-wasm-stack, simd), see cmd_run.cc.
  std::optional<uint64_t> value_stack_bytes;
  std::optional<bool> enable_simd;
  std::string compile = "lazy";  // --compile=lazy|eager (Config::eager_compilation)
  std::string guard_regions = "on";  // --guard-regions=on|off (Config::guard_regions)
  // Set only by `weft run` (--timeout, -W timeout=): makes the store interruptible.
  std::optional<std::chrono::milliseconds> timeout;
};
void add_limit_options(CLI::App& command, LimitArgs& limits);
Config make_config(const std::string& tier, const LimitArgs& limits);

// Prints "error: <message>" to stderr and returns kExitUsage / kExitFailure.
int usage_error(const std::string& message);
int failure(const std::string& message);
// Prints an error from the library: traps as "error: trap: <message>" followed
// by the Wasm backtrace (exit code kExitTrap), everything else as
// "error: <kind> error at <where>: …" (kExitFailure, or kExitUsage).
int report_error(const Error& error, const std::string& context = {});

// Why `path` cannot be used as an input file, or nothing if it can.
std::optional<std::string> check_input_file(const std::string& path);
Result<std::string> read_file(const std::string& path);
// Reads and loads a module file, binary or text (tools/module_input.h).
Result<WasmModule> load_module_file(const Engine& engine, const std::string& path);

}  // namespace weft::cli
