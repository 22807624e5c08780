// The x86-64 macro-assembler the single-pass compiler (jit/compiler.h) emits
// through: operations named by what the compiler needs (load a frame slot,
// a 32/64-bit integer operation, a bounds-checked memory access's pieces,
// a call to a helper), with the same names and contracts in every backend
// (jit/a64/macro_assembler.h). The frequent forms (moves, frame-slot
// accesses, ALU operations, jumps, calls) are encoded here directly into the
// asmjit code buffer, with the macro-assembler's own labels; the rest (SSE,
// shifts, division, indexed memory accesses) go through asmjit's
// x86::Assembler. Registers are ids in the hardware numbering (rax = 0 …
// r15 = 15; jit/x64/registers.h); `wide` selects the 64-bit form.
#pragma once

#include <asmjit/x86.h>

#include <cstdint>
#include <string>
#include <vector>

#include "jit/backend_types.h"
#include "jit/x64/registers.h"

namespace weft::jit::x64 {

class MacroAssembler {
 public:
  // A code position, bound once; jumps to it before that are patched by bind.
  // (The macro-assembler's own labels: asmjit's label bookkeeping — zone
  // allocated entries and links — cost more than the jumps themselves.)
  struct Label {
    uint32_t id = UINT32_MAX;
  };

  explicit MacroAssembler(asmjit::CodeHolder& code);
  // The first assembler error (asmjit reports e.g. an unbound label), or "".
  const std::string& error() const { return error_.message; }
  void clear_error() { error_.message.clear(); }
  size_t offset() const { return asm_.offset(); }
  // Pads to a function's start alignment.
  // Pads with long NOPs to the next multiple of `alignment` (a power of two).
  void align_code(uint32_t alignment = 16);
  // Loop heads start a 64-byte line, the unit Zen's op cache and fetch
  // work in: with 16 a bytecode dispatch loop (bench kernel `interp`) took
  // 0.45-0.66 s depending on where earlier code ended, with 64 0.32-0.39 s
  // (docs/performance.md, "Loop heads on 64-byte lines").
  static constexpr uint32_t kLoopAlignment = 64;
  // call_near/jump_near: rel32.
  static constexpr uint64_t kNearReach = uint64_t(1) << 31;

  // A function compiled into a buffer of its own may start anywhere in its
  // 64-byte line: after start_movable_function, the first loop head takes no
  // padding and instead fixes function_shift(), the bytes (0-63) by which
  // the code must be placed after the 64-byte aligned address it was
  // assembled for (set_code_address). The padding then lies in front of the
  // function, never executed, rather than at a loop head that every call
  // enters (fib's body is a loop: docs/performance.md). Later loop heads
  // align with the shift counted in.
  void start_movable_function() {
    shift_ = kShiftUndecided;
    unshifted_near_fields_.clear();
  }
  uint32_t function_shift() const { return shift_ == kShiftUndecided ? 0 : shift_; }

  // Room for `count` labels in all: a whole module's code takes hundreds of
  // thousands, and growing the lists by doubling copied them and freed large
  // blocks (which made malloc consolidate its free lists) mid-compilation.
  void reserve_labels(size_t count) {
    labels_.reserve(count);
  }
  Label new_label() {
    labels_.push_back(LabelState{});
    return Label{uint32_t(labels_.size() - 1)};
  }
  // A reference to `label` follows soon: its state is fetched meanwhile (a
  // call's target is one of thousands of function entries, seldom cached).
  void prefetch_label(Label label) const { __builtin_prefetch(&labels_[label.id]); }
  // `count` new labels with consecutive ids: the first is returned, the i-th is {first.id + i}.
  Label new_labels(uint32_t count) {
    const uint32_t first = uint32_t(labels_.size());
    labels_.resize(labels_.size() + count);
    return Label{first};
  }
  // Inline when nothing jumps to the label yet (most block ends): only its offset to note.
  void bind(Label label) {
    LabelState& state = labels_[label.id];
    if (state.pending == kNoJump) [[likely]] {
      state.offset = uint32_t(asm_.offset());
      return;
    }
    bind_at(label, uint32_t(asm_.offset()));
  }
  // Binds `label` at `offset`, code already emitted (a function's entry, once
  // the function compiled).
  void bind_at(Label label, uint32_t offset);
  // Whether code jumps to (or otherwise refers to) the still unbound `label`.
  // Something jumps to `label` and it is not bound yet (a jump table waiting
  // for place_jump_tables counts).
  bool referenced(Label label) const;
  // Labels created so far; bind_unbound binds those from `first` on that are
  // not bound yet at the current offset (code abandoned halfway).
  uint32_t label_count() const { return uint32_t(labels_.size()); }
  void bind_unbound(uint32_t first);
  // Forgets the labels from `first` on — a finished function's own, which
  // nothing refers to any more — so that the next function's labels reuse
  // their places: the lists stay as long as the module-wide labels plus one
  // function's, in cache, instead of growing through fresh memory for the
  // whole module. Kept (false) while any of them is still referred to (a
  // pending jump, a jump table not placed). Label values from `first` on are
  // invalid afterwards.
  bool release_labels(uint32_t first) {
    if (!deferred_entries_.empty()) return false;
    // Only jumps can wait for a function's own labels (calls go to entries,
    // which are made before them, or to the function's own, bound first):
    // with no jump unresolved in the buffer, none does — no walk over them.
    if (unresolved_ != 0)
      for (uint32_t id = first; id < labels_.size(); ++id)
        if (labels_[id].pending != kNoJump) return false;
    labels_.resize(first);
    if (unresolved_ == 0) jumps_.clear();  // (bind() clears it only when it patches)
    return true;
  }
  // A bound label's offset in the code buffer (a second entry point, say).
  uint32_t offset_of(Label label) const { return labels_[label.id].offset; }

#include "jit/macro_assembler_interface.inc"

  // x86 shifts by cl only: the count moves to rcx, which the compiler keeps free.
  static constexpr uint32_t kShiftClobbers = reg_bit(reg::rcx);
  // x86 divides rdx:rax: the compiler keeps both free; the result is rax
  // (quotient) or rdx (remainder).
  static constexpr uint32_t kDivideClobbers = reg_bit(reg::rax) | reg_bit(reg::rdx);
  // roundss/roundsd are SSE4.1 (baseline x86-64 has only SSE2): without them
  // the compiler calls the rounding thunks.
  static bool can_round_floats();
  static constexpr const char* kMachineName = "x86-64";

  // The inline fiber switch (jit/compile_fibers.cc): suspends this context in
  // the saved-context frame of fibers/arch/layout_x86_64_sysv.h with resume
  // address `resume`, stores its stack pointer in [save_slot], then resumes
  // the context whose stack pointer is in [dest_slot] (and clears the slot)
  // as the fibers/arch switch would, with rax = 0 ("nothing to store": this
  // code stored its own context) and rdx = `delivered` (the event's tag
  // identity, never 0). Either side may have been suspended by the assembly
  // switch instead, so the frame is complete and all registers are restored;
  // the FP control words and the owner are copied from the target's frame
  // and not reloaded (see the definition). The resume is an indirect jump,
  // which the branch predictor learns per switch site. Clobbers every
  // register but save_slot and dest_slot (which must not be rax, rcx, rdx or rsp).
  // Returns where `delivered` is, for patch_constant32 (a tag identity below 2^31).
  uint32_t switch_fiber_stack(Reg save_slot, Reg dest_slot, Label resume, uint32_t delivered);

  // ---- x86-64 only: the pieces of the operations above, and the underlying
  // assembler; the golden-encoding test (tests/jit/encoding_test.cc) checks
  // them. The compiler does not use them (no other backend has them).
  void push(Reg r);
  void pop(Reg r);
  void push_mem(Reg base, int32_t disp);  // push qword [base + disp]
  void pop_mem(Reg base, int32_t disp);   // pop qword [base + disp]
  asmjit::x86::Assembler& raw() { return asm_; }

 private:
  void near_branch(uint8_t opcode, const void* target);
  uint64_t code_address_ = 0;  // set_code_address
  static constexpr uint32_t kShiftUndecided = UINT32_MAX;
  uint32_t shift_ = 0;  // start_movable_function
  // rel32 fields of near branches emitted before the shift was known, fixed
  // up once it is.
  std::vector<uint32_t> unshifted_near_fields_;

  // check_stack_limits' bytes but the frame end's lea, encoded once for the
  // registers and offsets they were made for (every prologue passes the same)
  // and copied after: the head (sub, jb, cmp rsp, jb, mov) before the lea, the
  // tail (cmp, ja) after it, and where their rel32 fields are.
  struct StackCheckTemplate {
    Reg depth = 0, ctx = 0, t0 = 0, t1 = 0;
    int32_t native_limit = 0, stack = 0, stack_limit = 0;
    bool made = false;
    uint8_t head_size = 0, tail_size = 0;
    uint8_t head_fields[2] = {}, tail_field = 0;
    uint8_t head[32] = {}, tail[16] = {};
  };
  StackCheckTemplate stack_check_;

  // Room for one directly encoded instruction at the buffer's end (nullptr if
  // the buffer cannot grow; the error is recorded), and the new end after it.
  // Room one reserve() guarantees: the longest single direct form is 10 bytes,
  // the longest sequence written under one reserve() 14 (float_promote).
  static constexpr size_t kMaxDirectBytes = 16;
  uint8_t* reserve() {
    if (has_room(asm_._bufferPtr)) [[likely]] return asm_._bufferPtr;
    return grow();
  }
  uint8_t* grow();
  // The slow path of a direct form without room: grows the buffer and emits
  // the form again. Out of line and reached by a tail call, so that the fast
  // path holds nothing across a call and saves no registers.
  template <auto Emit, class... Args>
  [[gnu::noinline, gnu::cold]] auto grow_then(Args... args) {
    using Result = decltype((this->*Emit)(args...));
    if (!grow()) return Result();  // (the error is recorded)
    return (this->*Emit)(args...);
  }
  bool has_room(const uint8_t* p) const { return size_t(asm_._bufferEnd - p) >= kMaxDirectBytes; }
  // The buffer only grows at its end (nothing here or in asmjit moves the
  // position back), so the code's size is the new end's offset.
  void commit(uint8_t* end) {
    asm_._bufferPtr = end;
    asm_._section->_buffer._size = size_t(end - asm_._bufferData);
  }
  // jmp (cc < 0) or jcc (x86 condition code 0..15) to `target`, encoded
  // directly: rel8/rel32 to a bound label as asmjit would, rel32 to an unbound
  // one, patched by bind().
  void branch(int cc, Label target);
  [[gnu::always_inline]] inline uint32_t access_patchable(uint8_t opcode, Reg value, Reg scratch,
                                                          uint64_t address);  // load64/store64_patchable
  [[gnu::noinline, gnu::cold]] uint32_t access_patchable_one_by_one(uint8_t opcode, Reg value, Reg scratch,
                                                                   uint64_t address);
  void set_flag(int cc, Reg dst);  // setcc + movzx to 32 bits
  // A 32-bit field at `field` that must hold (label offset - base): a rel32
  // (base = the field's end) or a jump-table entry (base = the table).
  // (Inline: every forward jump and every function's stack check has one.)
  [[gnu::always_inline]] inline void refer(Label target, uint32_t field, uint32_t base);

  static constexpr uint32_t kUnbound = UINT32_MAX, kNoJump = UINT32_MAX;
  struct PendingJump {
    uint32_t field;  // buffer offset of the 32-bit field
    uint32_t base;   // the field gets (label offset - base)
    uint32_t next;   // next pending reference to the same label, or kNoJump
  };
  // Per label, side by side (one entry to make per label, one line to read):
  struct LabelState {
    uint32_t offset = kUnbound;  // its offset, or kUnbound
    uint32_t pending = kNoJump;  // first pending reference, or kNoJump
  };
  std::vector<LabelState> labels_;
  std::vector<PendingJump> jumps_;
  size_t unresolved_ = 0;  // references in jumps_ not patched yet
  // call(Label)s of labels bound later (other functions' entries), for the
  // whole buffer; their indices in LabelState::pending and `next` carry kCallBit.
  std::vector<PendingJump> calls_;
  static constexpr uint32_t kCallBit = 0x80000000u;
  // Jump tables waiting for place_jump_tables: the lea that addresses each,
  // and its entries (one flat list: [first, first + count) per table).
  struct DeferredTable {
    uint32_t lea_field;  // the lea's rel32
    uint32_t first, count;
  };
  std::vector<DeferredTable> deferred_tables_;
  std::vector<Label> deferred_entries_;

  struct ErrorRecorder : asmjit::ErrorHandler {
    std::string message;
    void handleError(asmjit::Error, const char* msg, asmjit::BaseEmitter*) override {
      if (message.empty()) message = msg;
    }
  };
  ErrorRecorder error_;
  asmjit::x86::Assembler asm_;
};

}  // namespace weft::jit::x64
