// The packed relocation list (jit/code_template.h): every entry comes back as
// it was added — offsets going up, down and far, indices of every size, the
// narrow flag, every kind of reference — and renumbering touches only the
// site references.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "jit/code_template.h"

namespace weft::jit {
namespace {

bool same(const Relocation& a, const Relocation& b) {
  return a.at == b.at && a.index == b.index && a.ref == b.ref && a.narrow == b.narrow;
}

std::vector<Relocation> unpacked(const RelocationList& list) {
  std::vector<Relocation> out;
  list.for_each([&](const Relocation& r) { out.push_back(r); });
  return out;
}

TEST(RelocationList, EntriesComeBackAsAdded) {
  std::vector<Relocation> added = {
      {.at = 0, .index = 0, .ref = InstanceRef::Function},
      {.at = 10, .index = 127, .ref = InstanceRef::GlobalValue, .narrow = true},
      {.at = 12, .index = 128, .ref = InstanceRef::TypeId},
      {.at = 5, .index = 0xFFFFFFFF, .ref = InstanceRef::Memory},  // backwards
      {.at = 0xFFFFFFFF, .index = 1, .ref = InstanceRef::CatchSite, .narrow = true},  // the farthest
      {.at = 0, .index = 0x10000000, .ref = InstanceRef::DispatchKey},  // and all the way back
      // Around one and two LEB bytes' limits for the step (zigzag 127/128,
      // 16383/16384) and the index (127/128, 0x3FFF/0x4000).
      {.at = 63, .index = 0x3FFF, .ref = InstanceRef::Function},
      {.at = 127, .index = 0x4000, .ref = InstanceRef::Function},
      {.at = 127 + 8191, .index = 200, .ref = InstanceRef::GlobalValue},
      {.at = 127 + 8191 + 8192, .index = 5, .ref = InstanceRef::GlobalValue, .narrow = true},
      {.at = 127 + 8191 + 8192 - 8192, .index = 0x3FFF, .ref = InstanceRef::Table},
      {.at = 127 + 8191 + 8192 - 8192 - 8193, .index = 128, .ref = InstanceRef::Tag},
  };
  std::mt19937 rng(7);
  uint32_t at = 1000;
  for (int i = 0; i < 5000; ++i) {
    at += uint32_t(rng() % 40) - 4;
    const uint32_t index = rng() >> (rng() % 32);
    added.push_back({.at = at, .index = index, .ref = InstanceRef(rng() % (uint32_t(InstanceRef::TypeId) + 1)),
                     .narrow = (rng() & 1) != 0});
  }
  RelocationList list;
  for (const Relocation& r : added) list.add(r);
  ASSERT_EQ(list.size(), added.size());
  const std::vector<Relocation> back = unpacked(list);
  ASSERT_EQ(back.size(), added.size());
  for (size_t i = 0; i < added.size(); ++i) EXPECT_TRUE(same(back[i], added[i])) << "entry " << i;
  // The point of packing: small steps and indices take a few bytes, not 12.
  EXPECT_LT(list.bytes(), added.size() * 8);

  list.clear();
  EXPECT_TRUE(list.empty());
  list.add({.at = 3, .index = 4, .ref = InstanceRef::Table});
  ASSERT_EQ(unpacked(list).size(), 1u);
  EXPECT_TRUE(same(unpacked(list)[0], {.at = 3, .index = 4, .ref = InstanceRef::Table}));
}

TEST(RelocationList, RenumberingMovesOnlySiteIndices) {
  RelocationList list;
  list.add({.at = 1, .index = 9, .ref = InstanceRef::FiberSite});
  list.add({.at = 2, .index = 9, .ref = InstanceRef::ResumeCache, .narrow = true});
  list.add({.at = 3, .index = 12, .ref = InstanceRef::DispatchSlots});
  list.add({.at = 4, .index = 5, .ref = InstanceRef::CatchSite});
  list.add({.at = 5, .index = 9, .ref = InstanceRef::Function});
  list.add({.at = 6, .index = 9, .ref = InstanceRef::GlobalValue});
  list.renumber_sites(8, 5);
  const std::vector<Relocation> back = unpacked(list);
  ASSERT_EQ(back.size(), 6u);
  EXPECT_TRUE(same(back[0], {.at = 1, .index = 1, .ref = InstanceRef::FiberSite}));
  EXPECT_TRUE(same(back[1], {.at = 2, .index = 1, .ref = InstanceRef::ResumeCache, .narrow = true}));
  EXPECT_TRUE(same(back[2], {.at = 3, .index = 4, .ref = InstanceRef::DispatchSlots}));
  EXPECT_TRUE(same(back[3], {.at = 4, .index = 0, .ref = InstanceRef::CatchSite}));
  EXPECT_TRUE(same(back[4], {.at = 5, .index = 9, .ref = InstanceRef::Function}));
  EXPECT_TRUE(same(back[5], {.at = 6, .index = 9, .ref = InstanceRef::GlobalValue}));
}

}  // namespace
}  // namespace weft::jit
