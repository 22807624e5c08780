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
  void align_code() { asm_.align(asmjit::AlignMode::kCode, 16); }

  Label new_label() {
    label_offset_.push_back(kUnbound);
    pending_.push_back(kNoJump);
    return Label{uint32_t(label_offset_.size() - 1)};
  }
  void bind(Label label);
  // Whether code jumps to (or otherwise refers to) the still unbound `label`.
  bool referenced(Label label) const { return pending_[label.id] != kNoJump; }
  // Labels created so far; bind_unbound binds those from `first` on that are
  // not bound yet at the current offset (code abandoned halfway).
  uint32_t label_count() const { return uint32_t(label_offset_.size()); }
  void bind_unbound(uint32_t first);
  // A bound label's offset in the code buffer (a second entry point, say).
  uint32_t offset_of(Label label) const { return label_offset_[label.id]; }

  // ---- data movement -------------------------------------------------------
  void move(Reg dst, Reg src);                 // 64-bit copy
  void move_imm(Reg dst, uint64_t value);      // shortest encoding of a 64-bit constant
  void load64(Reg dst, Reg base, int32_t disp);
  void load32(Reg dst, Reg base, int32_t disp);  // zero-extends
  void store64(Reg base, int32_t disp, Reg src);
  void store32(Reg base, int32_t disp, Reg src);
  void store64_imm(Reg base, int32_t disp, int32_t value);  // sign-extended imm32
  void zero_extend32(Reg dst, Reg src);        // dst = low 32 bits of src
  void sign_extend(Reg dst, Reg src, int from_bits, bool wide);
  void zero_extend_narrow(Reg dst, Reg src, int from_bits);      // 8/16 → 32
  void address_of(Reg dst, Reg base, int32_t disp);                  // dst = base + disp (64-bit)
  void address_of_index(Reg dst, Reg base, Reg index, int32_t disp);  // dst = base + index + disp

  // Linear memory: [base + index + disp], index already zero-extended.
  void load_mem(MemWidth width, Reg dst, Reg base, Reg index, int32_t disp);
  void store_mem(MemWidth width, Reg base, Reg index, int32_t disp, Reg src);

  // ---- integer arithmetic --------------------------------------------------
  void int_op(IntOp op, bool wide, Reg dst, Reg src);
  void int_op_imm(IntOp op, bool wide, Reg dst, int32_t imm);
  // dst = dst op [base + disp] (a local's slot read in place).
  void int_op_mem(IntOp op, bool wide, Reg dst, Reg base, int32_t disp);
  // dst = dst op (count mod width). x86 shifts by cl only: the count moves to
  // rcx, which the compiler keeps free (kShiftClobbers; dst is not rcx).
  static constexpr uint32_t kShiftClobbers = reg_bit(reg::rcx);
  void shift(ShiftOp op, bool wide, Reg dst, Reg count);
  void shift_imm(ShiftOp op, bool wide, Reg dst, uint8_t count);
  // Wasm's div/rem: traps to `div_by_zero` on a zero divisor and, for signed
  // division, to `overflow` on INT_MIN / -1 (rem of it is 0). Returns the
  // register holding the result. x86 divides rdx:rax: the compiler keeps both
  // free (kDivideClobbers; dividend and divisor are neither), the result is
  // rax (quotient) or rdx (remainder).
  static constexpr uint32_t kDivideClobbers = reg_bit(reg::rax) | reg_bit(reg::rdx);
  Reg divide(bool is_signed, bool wide, bool remainder, Reg dividend, Reg divisor, Label div_by_zero,
             Label overflow);

  // ---- floats in float registers (value-stack locations) --------------------
  // XMM registers 0–15; Registers::kFloatScratch0/1 are the scratch registers
  // of the GPR-operand float operations below. All moves are 64-bit: an f32
  // keeps clear upper bits in both register files.
  void fp_from_gpr(FReg dst, Reg src);
  void gpr_from_fp(Reg dst, FReg src);
  void fp_load(FReg dst, Reg base, int32_t disp);
  void fp_store(Reg base, int32_t disp, FReg src);
  void fp_op(FloatOp op, bool f64, FReg dst, FReg src);  // dst = dst op src
  void fp_sqrt(bool f64, FReg dst);

  // ---- floats (SSE2; float_round needs SSE4.1) ------------------------------
  // Float values live as bit patterns in general registers (f32 zero-extended
  // to 64 bits); each operation moves them through the float scratch
  // registers, which nothing else holds, and writes the result back to `dst`.
  // `f64` selects the double form.
  void float_op(FloatOp op, bool f64, Reg dst, Reg src);  // dst = dst op src
  void float_sqrt(bool f64, Reg dst);
  void float_compare(FloatCond cond, bool f64, Reg a, Reg b);  // a = (a cond b) ? 1 : 0
  void float_round(RoundMode mode, bool f64, Reg dst);  // only if can_round_floats()
  // roundss/roundsd are SSE4.1 (baseline x86-64 has only SSE2): without them
  // the compiler calls the rounding thunks.
  static bool can_round_floats();
  // Sign-bit operations stay in the general register: they must keep a NaN's
  // payload (and its signalling bit) exactly. float_copysign clobbers `src`.
  void float_abs(bool f64, Reg dst);
  void float_neg(bool f64, Reg dst);
  void float_copysign(bool f64, Reg dst, Reg src);
  void float_promote(Reg dst);  // f32 bits → f64 bits
  void float_demote(Reg dst);   // f64 bits → f32 bits
  // Signed integer (`wide`: i64, else i32) → float.
  void float_convert_s(bool f64, bool wide, Reg dst);

  // ---- comparisons and branches --------------------------------------------
  // Compares set the flags the conditions read (a against b).
  void compare(bool wide, Reg a, Reg b);
  void compare_imm(bool wide, Reg a, int32_t imm);
  void compare_mem64(Reg a, Reg base, int32_t disp);          // a against the word at [base + disp]
  void compare_mem(bool wide, Reg a, Reg base, int32_t disp);  // 32- or 64-bit
  void test_bits(bool wide, Reg a, Reg b);  // the flags of a & b: zero or not
  void set_cond(Cond cond, Reg dst);  // dst = cond ? 1 : 0 (32-bit)
  void set_zero(Reg dst, bool wide);  // dst = (flags from test_bits: zero) ? 1 : 0
  void move_if(Cond cond, Reg dst, Reg src);  // 64-bit conditional move
  void move_if_zero(Reg dst, Reg src);        // dst = src if test_bits gave zero
  void jump(Label target);
  void jump_if(Cond cond, Label target);
  void jump_if_zero(Label target);     // after test_bits
  void jump_if_nonzero(Label target);  // after test_bits
  void jump_if_above(Label target);    // unsigned >, after a compare
  void jump_if_below(Label target);    // unsigned <, after a compare
  // Jump table: jumps to entries[index] (index < count, already clamped);
  // clobbers kScratch and `index`.
  void jump_table(Reg index, const Label* entries, uint32_t count);

  // ---- calls, frames --------------------------------------------------------
  void call_absolute(const void* fn);              // clobbers kScratch
  void call_indirect_mem(Reg base, int32_t disp);  // calls the address at [base + disp]
  void jump_indirect_mem(Reg base, int32_t disp);  // jumps to it (tail calls)
  // Function entry and exit: saves (restores) Registers::kSaved, or
  // kSavedWithoutMemory when the function does not use memory.
  void enter_frame(bool uses_memory);
  void leave_frame(bool uses_memory);
  void return_to_caller();
  void compare_stack_pointer(Reg base, int32_t disp);  // the stack pointer against [base + disp]
  // Two machine words kept on the machine stack: push_words pushes the word
  // at [base + first], then the one at [base + second]; pop_words takes them
  // back, the second into [base + second], the first into `first`.
  void push_words(Reg base, int32_t first, int32_t second);
  void pop_words(Reg base, int32_t second, Reg first);
  void store8_imm(Reg base, int32_t disp, uint8_t value);
  void store32_imm(Reg base, int32_t disp, uint32_t value);
  void load64_indexed(Reg dst, Reg base, Reg index);  // dst = the word at [base + index * 8]
  void add32_imm(Reg dst, Reg src, int32_t imm);      // dst = low 32 bits of src + imm, zero-extended
  void compare8_mem_imm(Reg base, int32_t disp, uint8_t value);  // the byte at [base + disp] against value

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
  void switch_fiber_stack(Reg save_slot, Reg dest_slot, Label resume, uint32_t delivered);
  void add_mem32_imm(Reg base, int32_t disp, int32_t delta);  // the 32-bit word at [base + disp] += delta

  // ---- x86-64 only: the pieces of the operations above, and the underlying
  // assembler; the golden-encoding test (tests/jit/encoding_test.cc) checks
  // them. The compiler does not use them (no other backend has them).
  void push(Reg r);
  void pop(Reg r);
  void push_mem(Reg base, int32_t disp);  // push qword [base + disp]
  void pop_mem(Reg base, int32_t disp);   // pop qword [base + disp]
  asmjit::x86::Assembler& raw() { return asm_; }

 private:

  // Room for one directly encoded instruction at the buffer's end (nullptr if
  // the buffer cannot grow; the error is recorded), and the new end after it.
  static constexpr size_t kMaxDirectBytes = 16;  // the longest direct form is 10 bytes
  uint8_t* reserve() {
    if (size_t(asm_._bufferEnd - asm_._bufferPtr) >= kMaxDirectBytes) [[likely]]
      return asm_._bufferPtr;
    return grow();
  }
  uint8_t* grow();
  void commit(uint8_t* end) {
    asm_._bufferPtr = end;
    asmjit::CodeBuffer& buffer = asm_._section->_buffer;
    const size_t size = size_t(end - asm_._bufferData);
    if (size > buffer._size) buffer._size = size;
  }
  // jmp (cc < 0) or jcc (x86 condition code 0..15) to `target`, encoded
  // directly: rel8/rel32 to a bound label as asmjit would, rel32 to an unbound
  // one, patched by bind().
  void branch(int cc, Label target);
  void set_flag(int cc, Reg dst);  // setcc + movzx to 32 bits
  // A 32-bit field at `field` that must hold (label offset - base): a rel32
  // (base = the field's end) or a jump-table entry (base = the table).
  void refer(Label target, uint32_t field, uint32_t base);

  static constexpr uint32_t kUnbound = UINT32_MAX, kNoJump = UINT32_MAX;
  struct PendingJump {
    uint32_t field;  // buffer offset of the 32-bit field
    uint32_t base;   // the field gets (label offset - base)
    uint32_t next;   // next pending reference to the same label, or kNoJump
  };
  std::vector<uint32_t> label_offset_;  // per label: its offset, or kUnbound
  std::vector<uint32_t> pending_;       // per label: first pending reference, or kNoJump
  std::vector<PendingJump> jumps_;
  size_t unresolved_ = 0;  // references in jumps_ not patched yet

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
