// Construction of the perfect-hash dispatch tables.
#include "fibers/dispatch.h"

#include <bit>

namespace weft::fibers {

namespace {
// splitmix64: a fixed-seed source of well-mixed odd multipliers.
struct MultiplierSource {
  uint64_t state = 0x9E3779B97F4A7C15ull;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (z ^ (z >> 31)) | 1;
  }
};
}  // namespace

DispatchTable DispatchTable::build(std::span<const uint64_t> keys, std::span<const uint32_t> values) {
  DispatchTable t;
  t.key_count_ = uint32_t(keys.size());
  if (keys.empty()) return t;
  if (keys.size() == 1) {
    // One clause degenerates to a single compare: multiplier 0 maps every key to slot 0.
    t.slots_[0] = Entry{keys[0], values[0]};
    return t;
  }
  constexpr uint32_t kTriesPerSize = 4096;
  MultiplierSource source;
  std::vector<uint8_t> used;
  // Start at the next power of two ≥ 2n (load ≤ 1/2 finds a multiplier fast).
  uint32_t bits = uint32_t(std::bit_width(keys.size() * 2 - 1));
  for (;; ++bits) {
    const size_t size = size_t(1) << bits;
    const uint32_t shift = 64 - bits;
    used.assign(size, 0);
    for (uint32_t attempt = 0; attempt < kTriesPerSize; ++attempt) {
      const uint64_t a = source.next();
      ++t.attempts_;
      std::fill(used.begin(), used.end(), 0);
      bool ok = true;
      for (uint64_t key : keys) {
        uint8_t& slot = used[size_t((key * a) >> shift)];
        if (slot) {
          ok = false;
          break;
        }
        slot = 1;
      }
      if (!ok) continue;
      t.slots_.assign(size, Entry{});
      for (size_t i = 0; i < keys.size(); ++i) t.slots_[size_t((keys[i] * a) >> shift)] = Entry{keys[i], values[i]};
      t.multiplier_ = a;
      t.shift_ = shift;
      return t;
    }
  }
}

}  // namespace weft::fibers
