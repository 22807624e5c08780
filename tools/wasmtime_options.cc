// wasmtime's -W and -S option groups, as one table per group: the key, its
// value syntax, what it means in weft, and how it is applied.
#include "tools/wasmtime_options.h"

#include <algorithm>
#include <charconv>
#include <span>

#include "weft/weft.h"  // kMaxMemoryPages (core/types.h, part of the API)

namespace weft::tools {

namespace {

using OptionValue = std::optional<std::string_view>;  // the "=VAL" part, if given

Error usage(std::string message) { return make_error(ErrorKind::Usage, std::move(message)); }

// "KEY: PROBLEM"; apply_options puts the group's flag in front.
std::string key_value_error(std::string_view key, const std::string& problem) {
  return std::string(key) + ": " + problem;
}

// wasmtime's numbers: decimal or 0x hex, '_' separators ignored.
Result<uint64_t> parse_number(std::string_view key, OptionValue value) {
  if (!value) return usage(key_value_error(key, "needs a value: " + std::string(key) + "=N"));
  std::string digits;
  for (char c : *value)
    if (c != '_') digits += c;
  int base = 10;
  std::string_view text = digits;
  if (text.substr(0, 2) == "0x") {
    base = 16;
    text.remove_prefix(2);
  }
  uint64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n, base);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    return usage(key_value_error(key, "'" + std::string(*value) + "' is not a number"));
  return n;
}

// wasmtime's booleans: KEY, KEY=y|yes|true, KEY=n|no|false.
Result<bool> parse_bool(std::string_view key, OptionValue value) {
  if (!value || *value == "y" || *value == "yes" || *value == "true") return true;
  if (*value == "n" || *value == "no" || *value == "false") return false;
  return usage(key_value_error(key, "'" + std::string(*value) + "' is not y, yes, true, n, no or false"));
}

template <class Settings>
struct OptionKey {
  std::string_view name;
  std::string_view value_syntax;  // as `-W help` shows it: "=N", "[=y|n]"
  std::string_view meaning;       // in weft
  Result<void> (*apply)(std::string_view key, OptionValue value, Settings& settings);
};

// A `[=y|n]` key that switches a feature: parses the value into `field`.
template <std::optional<bool> WasmOptionSettings::*field>
Result<void> set_feature(std::string_view key, OptionValue value, WasmOptionSettings& s) {
  WEFT_TRY_ASSIGN(const bool on, parse_bool(key, value));
  s.*field = on;
  return {};
}

Error not_supported_yet(char group, std::string_view key, std::string_view why) {
  return usage("-" + std::string(1, group) + " " + std::string(key) + ": not supported yet: " + std::string(why));
}

constexpr uint64_t kPageBytes = 64 * 1024;

const OptionKey<WasmOptionSettings> kWasmKeys[] = {
    {"extended-const", "[=y|n]",
     "Wasm 3.0's extended constant expressions (on by default; =n is --disable-extended-const)",
     set_feature<&WasmOptionSettings::extended_const>},
    {"exceptions", "[=y|n]",
     "Wasm 3.0's exception handling: throw, try_table, exnref (on by default; =n is --disable-exceptions)",
     set_feature<&WasmOptionSettings::exceptions>},
    {"fuel", "=N",
     "execution budget, as --fuel: trap \"all fuel consumed\" when spent; weft charges per call and loop "
     "iteration, not per instruction",
     [](std::string_view key, OptionValue value, WasmOptionSettings& s) -> Result<void> {
       WEFT_TRY_ASSIGN(const uint64_t n, parse_number(key, value));
       s.fuel = n;
       return {};
     }},
    {"function-references", "[=y|n]",
     "Wasm 3.0's typed function references: call_ref, (ref $t), non-nullable locals and tables (on by "
     "default; =n is --disable-function-references)",
     set_feature<&WasmOptionSettings::function_references>},
    {"max-memory-size", "=BYTES",
     "largest linear memory in bytes, rounded down to whole 64 KiB pages (--max-memory-pages BYTES/65536); "
     "memory.grow beyond returns -1",
     [](std::string_view key, OptionValue value, WasmOptionSettings& s) -> Result<void> {
       WEFT_TRY_ASSIGN(const uint64_t bytes, parse_number(key, value));
       s.max_memory_pages = std::min(bytes / kPageBytes, kMaxMemoryPages);
       return {};
     }},
    {"max-table-elements", "=N", "largest table in elements, as --max-table-elements",
     [](std::string_view key, OptionValue value, WasmOptionSettings& s) -> Result<void> {
       WEFT_TRY_ASSIGN(const uint64_t n, parse_number(key, value));
       s.max_table_elements = n;
       return {};
     }},
    {"max-wasm-stack", "=BYTES",
     "bytes of weft's value stack, where the locals and operands of all active Wasm frames live (at least "
     "64 KiB; default 16 MiB); running out traps \"call stack exhausted\". Frames are also counted "
     "(--max-call-depth) and each fiber has its own stack (--fiber-stack-size)",
     [](std::string_view key, OptionValue value, WasmOptionSettings& s) -> Result<void> {
       WEFT_TRY_ASSIGN(const uint64_t bytes, parse_number(key, value));
       if (bytes < kPageBytes)
         return usage(key_value_error(key, "at least 65536 bytes (64 KiB) are needed, got " + std::to_string(bytes)));
       s.value_stack_bytes = bytes;
       return {};
     }},
    {"memory64", "[=y|n]",
     "Wasm 3.0's 64-bit memories and tables (on by default; =n is --disable-memory64)",
     set_feature<&WasmOptionSettings::memory64>},
    {"multi-memory", "[=y|n]",
     "Wasm 3.0's multiple memories per module (on by default; =n is --disable-multi-memory)",
     set_feature<&WasmOptionSettings::multi_memory>},
    {"simd", "[=y|n]", "the SIMD instructions and v128 (on by default)", set_feature<&WasmOptionSettings::simd>},
    {"stack-switching", "[=y|n]",
     "weft's fiber extension, its own stack-switching design (on by default; =n is --disable-fibers)",
     set_feature<&WasmOptionSettings::fibers>},
    {"tail-call", "[=y|n]", "Wasm 3.0's tail calls (on by default; =n is --disable-tail-call)",
     set_feature<&WasmOptionSettings::tail_call>},
    {"timeout", "=DURATION",
     "stop the program after DURATION (500ms, 10s, 1m; a bare number is seconds): it traps \"interrupted\" at its "
     "next call or loop iteration and weft exits 134; as --timeout",
     [](std::string_view key, OptionValue value, WasmOptionSettings& s) -> Result<void> {
       if (!value) return usage(key_value_error(key, "needs a duration, e.g. timeout=10s"));
       Result<std::chrono::milliseconds> d = parse_duration(*value);
       if (!d.ok()) return usage(key_value_error(key, d.error().message));
       s.timeout = *d;
       return {};
     }},
};

// Sockets the program creates itself (preview2's wasi:sockets, which these
// keys govern in wasmtime) do not exist in preview1; weft's WASI offers only
// sockets handed in with tcplisten. Turning them off is what weft does anyway.
Result<void> no_socket_creation(std::string_view key, OptionValue value, WasiOptionSettings&) {
  WEFT_TRY_ASSIGN(const bool on, parse_bool(key, value));
  if (!on) return {};
  return not_supported_yet('S', key,
                           "weft's WASI is preview1, where a program cannot create sockets; hand it listening "
                           "sockets with tcplisten=HOST:PORT");
}

const OptionKey<WasiOptionSettings> kWasiKeys[] = {
    {"inherit-env", "[=y|n]", "give the program the whole host environment; --env entries override it",
     [](std::string_view key, OptionValue value, WasiOptionSettings& s) -> Result<void> {
       WEFT_TRY_ASSIGN(const bool on, parse_bool(key, value));
       s.inherit_env = on;
       return {};
     }},
    {"inherit-network", "[=y|n]", "not supported yet (preview1 programs cannot create sockets); =n is accepted",
     no_socket_creation},
    {"allow-ip-name-lookup", "[=y|n]", "not supported yet (preview1 has no name lookup); =n is accepted",
     no_socket_creation},
    {"tcp", "[=y|n]", "not supported yet (preview1 programs cannot create sockets); =n is accepted",
     no_socket_creation},
    {"udp", "[=y|n]", "not supported yet (preview1 programs cannot create sockets); =n is accepted",
     no_socket_creation},
    {"tcplisten", "=HOST:PORT",
     "listen on HOST:PORT and hand the socket to the program as the next fd from 3 (before the --dir "
     "preopens), as --tcplisten; repeatable",
     [](std::string_view key, OptionValue value, WasiOptionSettings& s) -> Result<void> {
       if (!value || value->empty()) return usage(key_value_error(key, "needs an address, e.g. tcplisten=127.0.0.1:8080"));
       s.tcp_listen.emplace_back(*value);
       return {};
     }},
};

template <class Settings>
Result<void> apply_options(char group, std::span<const OptionKey<Settings>> keys, std::string_view list,
                           Settings& settings) {
  while (true) {
    const size_t comma = list.find(',');
    const std::string_view item = list.substr(0, comma);
    const size_t eq = item.find('=');
    const std::string_view key = item.substr(0, eq);
    const OptionValue value = eq == std::string_view::npos ? OptionValue{} : OptionValue{item.substr(eq + 1)};
    auto known = std::find_if(keys.begin(), keys.end(), [&](const OptionKey<Settings>& k) { return k.name == key; });
    if (known == keys.end()) {
      std::string names;
      for (const OptionKey<Settings>& k : keys) names += (names.empty() ? "" : ", ") + std::string(k.name);
      const std::string flag = "-" + std::string(1, group);
      return usage("unknown " + flag + " option '" + std::string(key) + "' (known: " + names + "; " + flag +
                   " help describes them)");
    }
    if (Result<void> applied = known->apply(key, value, settings); !applied.ok()) {
      Error e = applied.error();
      if (e.message.rfind("-", 0) != 0) e.message = "-" + std::string(1, group) + " " + e.message;
      return e;
    }
    if (comma == std::string_view::npos) return {};
    list.remove_prefix(comma + 1);
  }
}

template <class Settings>
std::string help(char group, std::span<const OptionKey<Settings>> keys) {
  std::string s;
  for (const OptionKey<Settings>& k : keys)
    s += "  -" + std::string(1, group) + " " + std::string(k.name) + std::string(k.value_syntax) + "  " +
         std::string(k.meaning) + "\n";
  return s;
}

}  // namespace

Result<std::chrono::milliseconds> parse_duration(std::string_view text) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 12)
    return make_error(ErrorKind::Usage, "'" + std::string(text) + "' is not a duration (e.g. 500ms, 10s, 1m)");
  const uint64_t n = std::stoull(std::string(text.substr(0, digits)));
  const std::string_view unit = text.substr(digits);
  if (unit == "ms") return std::chrono::milliseconds(n);
  if (unit == "s" || unit.empty()) return std::chrono::milliseconds(n * 1000);
  if (unit == "m") return std::chrono::milliseconds(n * 60'000);
  if (unit == "h") return std::chrono::milliseconds(n * 3'600'000);
  return make_error(ErrorKind::Usage, "unknown unit '" + std::string(unit) + "' in '" + std::string(text) +
                                          "' (ms, s, m or h)");
}

Result<void> apply_wasm_options(std::string_view list, WasmOptionSettings& settings) {
  return apply_options<WasmOptionSettings>('W', kWasmKeys, list, settings);
}

Result<void> apply_wasi_options(std::string_view list, WasiOptionSettings& settings) {
  return apply_options<WasiOptionSettings>('S', kWasiKeys, list, settings);
}

std::string wasm_options_help() { return help<WasmOptionSettings>('W', kWasmKeys); }
std::string wasi_options_help() { return help<WasiOptionSettings>('S', kWasiKeys); }

}  // namespace weft::tools
