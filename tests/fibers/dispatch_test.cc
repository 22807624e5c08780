// The perfect-hash dispatch tables: every key found in one probe, non-keys
// rejected, for random key sets of every size up to 64.
#include "fibers/dispatch.h"

#include <gtest/gtest.h>

#include <random>
#include <set>

namespace weft::fibers {
namespace {

TEST(DispatchTable, EmptyAndSingleKey) {
  DispatchTable empty = DispatchTable::build({}, {});
  EXPECT_EQ(empty.find(1), nullptr);
  EXPECT_EQ(empty.find(12345), nullptr);
  const uint64_t key = 42;
  const uint32_t value = 7;
  DispatchTable one = DispatchTable::build({&key, 1}, {&value, 1});
  ASSERT_NE(one.find(42), nullptr);
  EXPECT_EQ(one.find(42)->value, 7u);
  EXPECT_EQ(one.find(43), nullptr);
  EXPECT_EQ(one.size(), 1u);
}

TEST(DispatchTable, RandomKeySetsUpTo64AreCollisionFree) {
  std::mt19937_64 rng(20261122);
  for (size_t n = 2; n <= 64; ++n) {
    for (int round = 0; round < 20; ++round) {
      std::set<uint64_t> unique;
      // Tag identities are small store-unique integers; mix in large ones too.
      while (unique.size() < n) unique.insert(round % 2 ? (rng() % 1000) + 1 : rng() | 1);
      std::vector<uint64_t> keys(unique.begin(), unique.end());
      std::vector<uint32_t> values;
      for (size_t i = 0; i < n; ++i) values.push_back(uint32_t(i * 3 + 1));
      DispatchTable t = DispatchTable::build(keys, values);
      EXPECT_GE(t.size(), n);
      EXPECT_EQ(t.size() & (t.size() - 1), 0u) << "table size must be a power of two";
      for (size_t i = 0; i < n; ++i) {
        const DispatchTable::Entry* e = t.find(keys[i]);
        ASSERT_NE(e, nullptr) << "n=" << n << " key " << keys[i];
        EXPECT_EQ(e->value, values[i]);
      }
      for (int probe = 0; probe < 200; ++probe) {
        uint64_t other = rng() % 2000 + 1;
        if (!unique.count(other)) {
          EXPECT_EQ(t.find(other), nullptr) << other;
        }
      }
    }
  }
}

}  // namespace
}  // namespace weft::fibers
