// Where the JIT's code lives. Eager compilation writes an instance's code
// straight into its executable memory — a private mapping, writable while the
// code is written and sealed executable before any of it runs — and lazy
// compilation into a mapping seen twice (jit/code_arena.h): either way no
// page of code is writable and executable at once. Eager code that outgrows
// its mapping is compiled again into a heap buffer (jit/executor.cc,
// compile_eagerly). Linux only, like the JIT: /proc/self/maps and perf's map
// (Config::perf_map) tell where each function's code is.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "jit/code_arena.h"
#include "jit/executor.h"
#include "weft/weft.h"

namespace weft {
namespace {

// `count` exported functions "cm_fK", each adding K, K+1, … K+terms-1 to its
// argument (expected()), one i32.add at a time.
std::string many_functions(int count, int terms) {
  std::string wat = "(module\n";
  for (int k = 0; k < count; ++k) {
    wat += "  (func $cm_f" + std::to_string(k) + " (export \"cm_f" + std::to_string(k) +
           "\") (param i32) (result i32) (local.get 0)";
    for (int t = 0; t < terms; ++t) wat += " (i32.const " + std::to_string(k + t) + ") (i32.add)";
    wat += ")\n";
  }
  return wat + ")";
}
int32_t expected(int k, int terms, int32_t x) {
  int32_t sum = x;
  for (int t = 0; t < terms; ++t) sum += k + t;
  return sum;
}

// The start addresses perf's map gives this process's functions named cm_f*.
std::vector<uintptr_t> code_addresses() {
  std::ifstream in("/tmp/perf-" + std::to_string(getpid()) + ".map");
  std::vector<uintptr_t> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.find(" wasm:cm_f") == std::string::npos) continue;
    out.push_back(uintptr_t(std::stoull(line.substr(0, line.find(' ')), nullptr, 16)));
  }
  return out;
}

// The mappings of this process (/proc/self/maps), each [start, end) with its
// permissions ("r-xp", …) and path ("" for anonymous memory, "[heap]", …).
struct Mapping {
  uintptr_t start = 0, end = 0;
  std::string permissions, path;
};
std::vector<Mapping> mappings() {
  std::ifstream maps("/proc/self/maps");
  std::vector<Mapping> out;
  std::string line;
  while (std::getline(maps, line)) {
    std::istringstream fields(line);
    std::string range, offset, device, inode;
    Mapping m;
    fields >> range >> m.permissions >> offset >> device >> inode >> m.path;
    const size_t dash = range.find('-');
    m.start = uintptr_t(std::stoull(range.substr(0, dash), nullptr, 16));
    m.end = uintptr_t(std::stoull(range.substr(dash + 1), nullptr, 16));
    out.push_back(m);
  }
  return out;
}
// The mapping holding `address` (end 0 if none does).
Mapping mapping_of(uintptr_t address) {
  for (const Mapping& m : mappings())
    if (address >= m.start && address < m.end) return m;
  return {};
}
// The permissions of the mapping holding `address`, or "" if none does.
std::string permissions_of(uintptr_t address) { return mapping_of(address).permissions; }

Config jit_config(bool eager) {
  Config config;
  config.tier = Tier::Jit;
  config.eager_compilation = eager;
  config.perf_map = true;
  return config;
}

class JitCodeMemory : public ::testing::TestWithParam<bool> {};  // the parameter: eager compilation

TEST_P(JitCodeMemory, IsNeverWritableAndExecutable) {
  const std::string map_path = "/tmp/perf-" + std::to_string(getpid()) + ".map";
  std::remove(map_path.c_str());
  constexpr int kFunctions = 12, kTerms = 30;
  Engine engine(jit_config(GetParam()));
  auto module = WasmModule::from_text(engine, many_functions(kFunctions, kTerms));
  ASSERT_TRUE(module.ok()) << module.error().to_string();
  Store store(engine);
  auto instance = store.instantiate(*module, Linker{});
  ASSERT_TRUE(instance.ok()) << instance.error().to_string();
  for (int k = 0; k < kFunctions; ++k) {
    const Value args[] = {Value::i32(5)};
    auto r = store.call(*instance->get_export("cm_f" + std::to_string(k)), args);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    EXPECT_EQ(r->at(0).as_i32(), expected(k, kTerms, 5));
  }
  const std::vector<uintptr_t> addresses = code_addresses();
  ASSERT_EQ(addresses.size(), size_t(kFunctions));
  for (uintptr_t address : addresses) {
    const std::string permissions = permissions_of(address);
    ASSERT_EQ(permissions.size(), 4u) << std::hex << address << " is in no mapping";
    EXPECT_EQ(permissions.substr(0, 3), "r-x") << std::hex << address;
    // Eager code: a private mapping, sealed once written.
    if (GetParam()) {
      EXPECT_EQ(permissions, "r-xp") << std::hex << address;
    }
  }
  std::remove(map_path.c_str());
}

INSTANTIATE_TEST_SUITE_P(Jit, JitCodeMemory, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Eager" : "Lazy"; });

// Sets the eager arena's capacity for one test.
struct EagerArenaCapacity {
  explicit EagerArenaCapacity(size_t bytes) { jit::set_eager_arena_capacity_for_testing(bytes); }
  ~EagerArenaCapacity() { jit::set_eager_arena_capacity_for_testing(0); }
};

TEST(JitCodeMemory, EagerCodeThatOutgrowsItsArenaIsCompiledAgain) {
  constexpr int kFunctions = 40, kTerms = 40;  // ~20 KB of code
  EagerArenaCapacity capacity(4096);
  Engine engine(jit_config(/*eager=*/true));
  auto module = WasmModule::from_text(engine, many_functions(kFunctions, kTerms));
  ASSERT_TRUE(module.ok()) << module.error().to_string();
  // The first instance compiles (again, on the heap), the second copies
  // that: the template made by the second compilation is whole.
  for (int copy = 0; copy < 2; ++copy) {
    Store store(engine);
    auto instance = store.instantiate(*module, Linker{});
    ASSERT_TRUE(instance.ok()) << instance.error().to_string();
    for (int k = 0; k < kFunctions; ++k) {
      const Value args[] = {Value::i32(copy)};
      auto r = store.call(*instance->get_export("cm_f" + std::to_string(k)), args);
      ASSERT_TRUE(r.ok()) << r.error().to_string();
      EXPECT_EQ(r->at(0).as_i32(), expected(k, kTerms, copy)) << "cm_f" << k << ", instance " << copy;
    }
    const TierStats stats = store.tier_stats();
    EXPECT_EQ(stats.jit_fallbacks, 0u);
    EXPECT_EQ(stats.jit_compiled, copy == 0 ? uint32_t(kFunctions) : 0u);
    EXPECT_EQ(stats.jit_reused, copy == 0 ? 0u : uint32_t(kFunctions));
  }
  std::remove(("/tmp/perf-" + std::to_string(getpid()) + ".map").c_str());
}

// A sealable arena (eager code) of 2 MiB or more starts on a 2 MiB boundary,
// so that huge pages back its code from the first byte; every byte of its
// capacity is its own, writable until sealed and then executable only; and
// the room reserved to align it is given back.
TEST(JitCodeMemory, SealableArenasOfHugePageSizeStartOnAHugePage) {
  constexpr uintptr_t kHugePage = uintptr_t(2) << 20;
  for (const size_t requested : {size_t(3 << 20) + 12345, size_t(2) << 20, size_t(64) << 10, size_t(9 << 20)}) {
    std::unique_ptr<jit::CodeArena> arena = jit::CodeArena::create_sealable(requested);
    ASSERT_TRUE(arena) << requested;
    uint8_t* code = arena->unsealed_base();
    ASSERT_NE(code, nullptr);
    const uintptr_t base = reinterpret_cast<uintptr_t>(code);
    EXPECT_EQ(base, reinterpret_cast<uintptr_t>(arena->base()));
    ASSERT_GE(arena->capacity(), requested);
    if (requested >= kHugePage) {
      EXPECT_EQ(base % kHugePage, 0u) << requested << " bytes at " << std::hex << base;
    }
    code[0] = 0xC3;  // ret
    code[arena->capacity() - 1] = 0xCC;
    EXPECT_EQ(mapping_of(base).permissions, "rw-p");
    ASSERT_TRUE(arena->seal(arena->capacity()));
    const Mapping sealed = mapping_of(base);
    EXPECT_EQ(sealed.permissions, "r-xp");
    EXPECT_EQ(sealed.start, base);
    EXPECT_EQ(sealed.end, base + arena->capacity()) << requested;
    EXPECT_EQ(arena->base()[0], 0xC3);
    EXPECT_EQ(arena->base()[arena->capacity() - 1], 0xCC);
  }
  // The room reserved for the alignment (up to 2 MiB either side) is given
  // back: once the arena is gone, nothing new is mapped around where it was.
  for (int i = 0; i < 8; ++i) {
    const std::vector<Mapping> before = mappings();
    uintptr_t low = 0, high = 0;
    {
      std::unique_ptr<jit::CodeArena> arena = jit::CodeArena::create_sealable((size_t(5) << 20) + 12345);
      ASSERT_TRUE(arena);
      low = reinterpret_cast<uintptr_t>(arena->base()) - kHugePage;
      high = reinterpret_cast<uintptr_t>(arena->base()) + arena->capacity() + kHugePage;
    }
    for (const Mapping& m : mappings()) {
      if (m.end <= low || m.start >= high || m.path == "[heap]") continue;
      const bool existed = std::any_of(before.begin(), before.end(), [&](const Mapping& b) {
        return b.start == m.start && b.end == m.end && b.permissions == m.permissions;
      });
      EXPECT_TRUE(existed) << "left mapped: " << std::hex << m.start << "-" << m.end << " " << m.permissions;
    }
  }
}

}  // namespace
}  // namespace weft
