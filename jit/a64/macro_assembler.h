// The AArch64 macro-assembler the single-pass compiler (jit/compiler.h) emits
// through: the operations and contracts of jit/x64/macro_assembler.h, over
// asmjit's a64::Assembler. Registers are ids in the hardware numbering (x0 = 0
// … x30 = 30; jit/a64/registers.h); `wide` selects the 64-bit (X) form, else
// the 32-bit (W) form, whose results are zero-extended as Wasm's i32 values
// must be. Frame-slot displacements are multiples of 8 below 32 KiB in
// practice (one load/store); any other displacement goes through the
// macro-assembler's scratch registers.
#pragma once

#include <asmjit/arm.h>
#include <asmjit/arm/a64assembler.h>

#include <cstdint>
#include <string>
#include <vector>

#include "jit/backend_types.h"
#include "jit/a64/registers.h"

namespace weft::jit::a64 {

class MacroAssembler {
 public:
  // A code position, bound once (an asmjit label underneath).
  struct Label {
    uint32_t id = UINT32_MAX;
  };

  explicit MacroAssembler(asmjit::CodeHolder& code);
  const std::string& error() const { return error_.message; }
  void clear_error() { error_.message.clear(); }
  size_t offset() const { return asm_.offset(); }
  void align_code(uint32_t alignment = 16) { asm_.align(asmjit::AlignMode::kCode, alignment); }
  // Loop heads: 16 bytes, as compilers align them for AArch64 cores (x86-64
  // uses 64 after a measurement; none was possible here, under qemu).
  static constexpr uint32_t kLoopAlignment = 16;
  // x86-64 moves a function within its 64-byte line so that its first loop
  // head needs no padding; here loop heads and functions are both 16-byte
  // aligned, so a function stays where it was assembled for.
  void start_movable_function() {}
  uint32_t function_shift() const { return 0; }
  // call_near/jump_near: b/bl, a 26-bit word offset.
  static constexpr uint64_t kNearReach = uint64_t(1) << 27;

  void reserve_labels(size_t count) {  // (see x86-64's)
    labels_.reserve(count);
    state_.reserve(count);
  }
  Label new_label() {
    labels_.push_back(asm_.newLabel());
    state_.push_back(0);
    return Label{uint32_t(labels_.size() - 1)};
  }
  void prefetch_label(Label label) const { __builtin_prefetch(&labels_[label.id]); }  // (see x86-64's)
  Label new_labels(uint32_t count) {  // consecutive ids (see x86-64's)
    const uint32_t first = uint32_t(labels_.size());
    for (uint32_t i = 0; i < count; ++i) new_label();
    return Label{first};
  }
  void bind(Label label);
  void bind_at(Label label, uint32_t offset);  // at code already emitted (see x86-64's)
  bool referenced(Label label) const { return (state_[label.id] & kReferenced) && !(state_[label.id] & kBound); }
  uint32_t label_count() const { return uint32_t(labels_.size()); }
  void bind_unbound(uint32_t first);
  // (see x86-64's) The ids from `first` on are reused; asmjit keeps its own
  // entries of the labels they named, all bound or never referred to.
  bool release_labels(uint32_t first) {
    for (uint32_t id = first; id < state_.size(); ++id)
      if ((state_[id] & kReferenced) && !(state_[id] & kBound)) return false;
    labels_.resize(first);
    state_.resize(first);
    return true;
  }
  uint32_t offset_of(Label label) const { return uint32_t(asm_.code()->labelOffset(labels_[label.id])); }

#include "jit/macro_assembler_interface.inc"

  // Register shifts take the count mod the width, sdiv/udiv any registers
  // (and do not fault: divide checks explicitly; the result replaces the
  // dividend): no fixed registers.
  static constexpr uint32_t kShiftClobbers = 0;
  static constexpr uint32_t kDivideClobbers = 0;
  static bool can_round_floats() { return true; }  // frintn/frintm/frintp/frintz are baseline
  static constexpr const char* kMachineName = "aarch64";

  // The inline fiber switch (jit/compile_fibers.cc): suspends this context in
  // the saved-context frame of fibers/arch/layout_arm64_aapcs.h with resume
  // address (LR slot) `resume`, stores its stack pointer in [save_slot], then
  // resumes the context whose stack pointer is in [dest_slot] (and clears the
  // slot) as the fibers/arch switch would, with x0 = 0 ("nothing to store":
  // this code stored its own context) and x1 = `delivered` (the event's tag
  // identity, never 0). FPCR and the owner are copied from the target's frame
  // (both contexts are this thread's and stop at a Wasm fiber instruction,
  // which cannot change FP modes). Clobbers every register but save_slot and
  // dest_slot (which must not be x9–x11 or x17).
  // Returns where `delivered` is, for patch_constant32 (a tag identity below 2^31).
  uint32_t switch_fiber_stack(Reg save_slot, Reg dest_slot, Label resume, uint32_t delivered);

 private:
  void near_branch(uint32_t opcode, const void* target);
  uint64_t code_address_ = 0;  // set_code_address
  // A [base + disp] operand for an access of `size` bytes: the scaled
  // unsigned-offset form, else the unscaled signed 9-bit form (`*unscaled`
  // set), else the address in kAsmScratch2.
  asmjit::a64::Mem mem(Reg base, int32_t disp, uint32_t size, bool* unscaled);
  void load(Reg dst, Reg base, int32_t disp, uint32_t size, bool sign_extend_to_64);
  void store(Reg base, int32_t disp, Reg src, uint32_t size);
  // dst = dst op value for add/sub with an immediate of any size.
  void add_imm(bool wide, Reg dst, Reg src, int64_t value);
  const asmjit::Label& label(Label l) {
    state_[l.id] |= kReferenced;
    return labels_[l.id];
  }

  static constexpr uint8_t kReferenced = 1, kBound = 2;
  std::vector<asmjit::Label> labels_;
  std::vector<uint8_t> state_;

  struct ErrorRecorder : asmjit::ErrorHandler {
    std::string message;
    void handleError(asmjit::Error, const char* msg, asmjit::BaseEmitter*) override {
      if (message.empty()) message = msg;
    }
  };
  ErrorRecorder error_;
  asmjit::a64::Assembler asm_;
};

}  // namespace weft::jit::a64
