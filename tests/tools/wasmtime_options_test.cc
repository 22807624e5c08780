// wasmtime's -W and -S keys: spellings, value syntax and the errors for keys
// weft does not know or cannot honour yet.
#include "tools/wasmtime_options.h"

#include <gtest/gtest.h>

#include <chrono>

namespace weft::tools {
namespace {

std::string wasm_error(std::string_view list) {
  WasmOptionSettings s;
  Result<void> r = apply_wasm_options(list, s);
  EXPECT_FALSE(r.ok()) << list;
  return r.error().message;
}

TEST(WasmtimeOptions, WasmKeysMapOntoWeftLimits) {
  WasmOptionSettings s;
  ASSERT_TRUE(apply_wasm_options("fuel=1_000,max-memory-size=0x30000,max-table-elements=7", s).ok());
  EXPECT_EQ(s.fuel, 1000u);
  EXPECT_EQ(s.max_memory_pages, 3u);  // bytes, in whole 64 KiB pages
  EXPECT_EQ(s.max_table_elements, 7u);
  ASSERT_TRUE(apply_wasm_options("max-memory-size=131071", s).ok());
  EXPECT_EQ(s.max_memory_pages, 1u);  // rounded down: growing to 2 pages would exceed it
  ASSERT_TRUE(apply_wasm_options("max-memory-size=1099511627776", s).ok());
  EXPECT_EQ(s.max_memory_pages, 65536u);  // no more than a 32-bit memory can have
  ASSERT_TRUE(apply_wasm_options("max-wasm-stack=1048576", s).ok());
  EXPECT_EQ(s.value_stack_bytes, 1048576u);
}

TEST(WasmtimeOptions, BooleansAsWasmtimeSpellsThem) {
  WasmOptionSettings s;
  ASSERT_TRUE(apply_wasm_options("simd", s).ok());
  EXPECT_EQ(s.simd, true);
  for (const char* no : {"simd=n", "simd=no", "simd=false"}) {
    s.simd.reset();
    ASSERT_TRUE(apply_wasm_options(no, s).ok()) << no;
    EXPECT_EQ(s.simd, false) << no;
  }
  ASSERT_TRUE(apply_wasm_options("stack-switching=n", s).ok());
  EXPECT_EQ(s.fibers, false);
  ASSERT_TRUE(apply_wasm_options("function-references=n", s).ok());
  EXPECT_EQ(s.function_references, false);
  ASSERT_TRUE(apply_wasm_options("multi-memory=n", s).ok());
  EXPECT_EQ(s.multi_memory, false);
}

TEST(WasmtimeOptions, Errors) {
  EXPECT_EQ(wasm_error("frobnicate"),
            "unknown -W option 'frobnicate' (known: extended-const, exceptions, fuel, function-references, max-memory-size, max-table-elements, "
            "max-wasm-stack, memory64, multi-memory, simd, stack-switching, tail-call, timeout; -W help describes them)");
  EXPECT_EQ(wasm_error("fuel"), "-W fuel: needs a value: fuel=N");
  EXPECT_EQ(wasm_error("fuel=0x"), "-W fuel: '0x' is not a number");
  EXPECT_EQ(wasm_error("fuel=12abc"), "-W fuel: '12abc' is not a number");
  EXPECT_EQ(wasm_error("fuel=1,simd=perhaps"), "-W simd: 'perhaps' is not y, yes, true, n, no or false");
  EXPECT_EQ(wasm_error("timeout"), "-W timeout: needs a duration, e.g. timeout=10s");
  EXPECT_NE(wasm_error("timeout=10x").find("-W timeout: unknown unit 'x'"), std::string::npos);
}

TEST(WasmtimeOptions, Durations) {
  WasmOptionSettings s;
  ASSERT_TRUE(apply_wasm_options("timeout=250ms", s).ok());
  EXPECT_EQ(s.timeout, std::chrono::milliseconds(250));
  ASSERT_TRUE(apply_wasm_options("timeout=3", s).ok());  // a bare number is seconds
  EXPECT_EQ(s.timeout, std::chrono::milliseconds(3000));
  ASSERT_TRUE(apply_wasm_options("timeout=2m", s).ok());
  EXPECT_EQ(s.timeout, std::chrono::milliseconds(120'000));
  EXPECT_FALSE(parse_duration("").ok());
  EXPECT_FALSE(parse_duration("ms").ok());
}

TEST(WasmtimeOptions, WasiKeys) {
  WasiOptionSettings s;
  ASSERT_TRUE(apply_wasi_options("inherit-env", s).ok());
  EXPECT_TRUE(s.inherit_env);
  ASSERT_TRUE(apply_wasi_options("inherit-env=n,tcp=n,udp=n,inherit-network=n,allow-ip-name-lookup=n", s).ok());
  EXPECT_FALSE(s.inherit_env);
  Result<void> r = apply_wasi_options("inherit-network", s);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "-S inherit-network: not supported yet: weft's WASI is preview1, where a program cannot create "
            "sockets; hand it listening sockets with tcplisten=HOST:PORT");
  ASSERT_TRUE(apply_wasi_options("tcplisten=127.0.0.1:8080,tcplisten=[::1]:0", s).ok());
  EXPECT_EQ(s.tcp_listen, (std::vector<std::string>{"127.0.0.1:8080", "[::1]:0"}));
  r = apply_wasi_options("tcplisten", s);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "-S tcplisten: needs an address, e.g. tcplisten=127.0.0.1:8080");
  r = apply_wasi_options("nn", s);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("unknown -S option 'nn' (known: inherit-env, "), std::string::npos);
}

TEST(WasmtimeOptions, HelpNamesEveryKey) {
  for (const char* key : {"fuel=N", "function-references[=y|n]", "max-memory-size=BYTES", "max-table-elements=N", "max-wasm-stack=BYTES",
                          "memory64[=y|n]", "multi-memory[=y|n]", "simd[=y|n]", "stack-switching[=y|n]", "tail-call[=y|n]", "extended-const[=y|n]", "timeout=DURATION"})
    EXPECT_NE(wasm_options_help().find(key), std::string::npos) << key;
  EXPECT_NE(wasi_options_help().find("-S inherit-env[=y|n]"), std::string::npos);
}

}  // namespace
}  // namespace weft::tools
