// Static perfect-hash dispatch tables for event delivery (docs/fibers.md §7):
// each suspension point maps tag identities to clause targets with one
// multiply, one shift, one load and one key compare, however many clauses.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace weft::fibers {

class DispatchTable {
 public:
  struct Entry {
    uint64_t key = 0;    // tag identity (never 0: 0 marks an empty slot)
    uint32_t value = 0;  // clause index
  };

  // Builds a collision-free table for distinct non-zero `keys` (values[i] is the
  // value of keys[i]). Searches an odd multiplier `a` such that
  // (key * a) >> shift is injective over the keys on a power-of-two table,
  // doubling the table when a size has no such multiplier among the candidates
  // tried. Deterministic: the candidates come from a fixed-seed generator.
  static DispatchTable build(std::span<const uint64_t> keys, std::span<const uint32_t> values);

  // The entry for `key`, or nullptr. One probe, one compare.
  const Entry* find(uint64_t key) const {
    const Entry& e = slots_[size_t((key * multiplier_) >> shift_)];
    return e.key == key ? &e : nullptr;
  }

  size_t size() const { return slots_.size(); }
  size_t key_count() const { return key_count_; }
  uint64_t multiplier() const { return multiplier_; }
  uint32_t shift() const { return shift_; }
  uint32_t attempts() const { return attempts_; }  // multipliers tried while building
  std::span<const Entry> slots() const { return slots_; }

 private:
  // An empty table: one empty slot; (key * 0) >> 63 is always slot 0.
  std::vector<Entry> slots_ = std::vector<Entry>(1);
  uint64_t multiplier_ = 0;
  uint32_t shift_ = 63;
  uint32_t key_count_ = 0;
  uint32_t attempts_ = 0;
};

}  // namespace weft::fibers
