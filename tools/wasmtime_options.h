// wasmtime's grouped options for `weft run`: `-W KEY[=VAL][,KEY[=VAL]…]`
// (Wasm: limits and features) and `-S KEY[=VAL]…` (WASI), with wasmtime's
// spellings and value syntax, mapped onto weft's Config and WASI context.
// Keys weft knows but cannot honour yet are errors that say so; unknown keys
// are errors listing the known ones (docs/cli.md, "wasmtime flag → weft").
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "weft/weft.h"  // Result

namespace weft::tools {

// What `-W` set; unset fields keep weft's own flags or Config's defaults.
struct WasmOptionSettings {
  std::optional<uint64_t> fuel;
  std::optional<uint64_t> max_memory_pages;  // from max-memory-size=BYTES
  std::optional<uint64_t> max_table_elements;
  std::optional<uint64_t> value_stack_bytes;  // from max-wasm-stack=BYTES
  std::optional<bool> simd;
  std::optional<bool> fibers;  // stack-switching / fibers: weft's fiber extension
  std::optional<bool> function_references;  // Wasm 3.0 typed function references
  std::optional<bool> multi_memory;         // Wasm 3.0 multiple memories
  std::optional<bool> memory64;             // Wasm 3.0 64-bit memories and tables
  std::optional<bool> tail_call;            // Wasm 3.0 tail calls
  std::optional<bool> extended_const;       // Wasm 3.0 extended constant expressions
  std::optional<bool> exceptions;           // Wasm 3.0 exception handling
  std::optional<std::chrono::milliseconds> timeout;  // interrupt the run after this long
};

// A duration as wasmtime writes it: a number with a unit, ms, s, m or h
// ("500ms", "10s", "1m"); a bare number is seconds.
Result<std::chrono::milliseconds> parse_duration(std::string_view text);

// What `-S` set.
struct WasiOptionSettings {
  bool inherit_env = false;
  std::vector<std::string> tcp_listen;  // tcplisten=HOST:PORT, as --tcplisten
};

// Applies one `-W` / `-S` value (a comma-separated list). Errors are
// ErrorKind::Usage: an unknown key (listing the known ones), a bad value, or a
// wasmtime option weft does not support yet (saying so).
Result<void> apply_wasm_options(std::string_view list, WasmOptionSettings& settings);
Result<void> apply_wasi_options(std::string_view list, WasiOptionSettings& settings);

// `-W help` / `-S help`: one line per key, what it does in weft.
std::string wasm_options_help();
std::string wasi_options_help();

}  // namespace weft::tools
