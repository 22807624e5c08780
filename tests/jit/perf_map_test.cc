// Config::perf_map: the JIT names its generated code in perf's JIT symbol map
// (/tmp/perf-PID.map), so `perf report` shows Wasm function names. JIT-only by
// nature: the interpreter generates no code to name.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/wat_harness.h"
#include "weft/weft.h"

namespace weft {
namespace {

TEST(JitPerfMap, NamesEachCompiledFunction) {
  const std::string map_path = "/tmp/perf-" + std::to_string(getpid()) + ".map";
  std::remove(map_path.c_str());
  Config config;
  config.tier = Tier::Jit;
  config.perf_map = true;
  test::WatHarness h(config, R"((module
    (func $add (export "add") (param i32 i32) (result i32) (i32.add (local.get 0) (local.get 1)))
    (func (export "twice") (param i32) (result i32) (call $add (local.get 0) (local.get 0))))
  )");
  ASSERT_TRUE(h.instance);
  // Functions are compiled, and named, at their first call.
  EXPECT_EQ(h.value("twice", {Value::i32(4)}), 8u);
  std::ifstream in(map_path);
  ASSERT_TRUE(in) << map_path << " was not written";
  std::stringstream text;
  text << in.rdbuf();
  // "START SIZE wasm:NAME", START and SIZE in hex.
  EXPECT_NE(text.str().find(" wasm:add\n"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find(" wasm:twice\n"), std::string::npos) << text.str();
  std::remove(map_path.c_str());
}

}  // namespace
}  // namespace weft
