// The x86-64 macro-assembler the single-pass compiler (jit/compiler.h) emits
// through: operations named by what the compiler needs (load a frame slot,
// a 32/64-bit integer operation, a bounds-checked memory access's pieces,
// a call to a helper). The frequent forms (moves, frame-slot accesses, ALU
// operations, jumps, calls) are encoded here directly into the asmjit code
// buffer, with the macro-assembler's own labels; the rest (SSE, shifts,
// division, indexed memory accesses) go through asmjit's x86::Assembler.
// Registers are general-purpose register ids in the hardware numbering
// (rax = 0 … r15 = 15); `wide` selects the 64-bit form of an instruction.
#pragma once

#include <asmjit/x86.h>

#include <cstdint>
#include <string>
#include <vector>

namespace weft::jit::x64 {

using Reg = uint8_t;
namespace reg {
constexpr Reg rax = 0, rcx = 1, rdx = 2, rbx = 3, rsp = 4, rbp = 5, rsi = 6, rdi = 7;
constexpr Reg r8 = 8, r9 = 9, r10 = 10, r11 = 11, r12 = 12, r13 = 13, r14 = 14, r15 = 15;
}  // namespace reg

// Wasm-level integer conditions (signed/unsigned).
enum class Cond : uint8_t { Eq, Ne, LtS, LtU, GtS, GtU, LeS, LeU, GeS, GeU };
Cond negate(Cond c);

enum class IntOp : uint8_t { Add, Sub, Mul, And, Or, Xor };
enum class ShiftOp : uint8_t { Shl, ShrS, ShrU, Rotl, Rotr };
enum class FloatOp : uint8_t { Add, Sub, Mul, Div };
// Wasm float comparisons: all false on an unordered (NaN) pair except Ne.
enum class FloatCond : uint8_t { Eq, Ne, Lt, Gt, Le, Ge };
// roundss/roundsd modes (the imm8 rounding-control values).
enum class RoundMode : uint8_t { Nearest = 0, Floor = 1, Ceil = 2, Trunc = 3 };

// Width and signedness of a linear-memory access.
enum class MemWidth : uint8_t { U8, S8, U16, S16, U32, S32, U64 };

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
  void zero_extend32(Reg dst, Reg src);        // mov r32, r32
  void sign_extend(Reg dst, Reg src, int from_bits, bool wide);  // movsx / movsxd
  void zero_extend_narrow(Reg dst, Reg src, int from_bits);      // movzx 8/16 → 32
  void lea(Reg dst, Reg base, int32_t disp);
  void lea_index(Reg dst, Reg base, Reg index, int32_t disp);  // base + index + disp

  // Linear memory: [base + index + disp], index already zero-extended.
  void load_mem(MemWidth width, Reg dst, Reg base, Reg index, int32_t disp);
  void store_mem(MemWidth width, Reg base, Reg index, int32_t disp, Reg src);

  // ---- integer arithmetic --------------------------------------------------
  void int_op(IntOp op, bool wide, Reg dst, Reg src);
  void int_op_imm(IntOp op, bool wide, Reg dst, int32_t imm);
  // dst = dst op [base + disp] (a local's slot read in place).
  void int_op_mem(IntOp op, bool wide, Reg dst, Reg base, int32_t disp);
  void shift_cl(ShiftOp op, bool wide, Reg dst);  // count in cl
  void shift_imm(ShiftOp op, bool wide, Reg dst, uint8_t count);
  // rdx:rax / divisor; quotient in rax, remainder in rdx (sign-extends or clears rdx first).
  void divide(bool is_signed, bool wide, Reg divisor);

  // ---- floats in XMM registers (value-stack locations) ----------------------
  // XMM registers are numbered 0–15; 0 and 1 are the scratch registers of the
  // GPR-operand float operations below, so the compiler allocates 2–15. All
  // moves are 64-bit: an f32 keeps clear upper bits in both register files.
  void xmm_from_gpr(uint8_t dst, Reg src);            // movq xmm, r64
  void gpr_from_xmm(Reg dst, uint8_t src);            // movq r64, xmm
  void xmm_load(uint8_t dst, Reg base, int32_t disp);   // movq xmm, [base + disp]
  void xmm_store(Reg base, int32_t disp, uint8_t src);  // movq [base + disp], xmm
  void xmm_op(FloatOp op, bool f64, uint8_t dst, uint8_t src);  // dst = dst op src
  void xmm_sqrt(bool f64, uint8_t dst);

  // ---- floats (SSE2; float_round needs SSE4.1) ------------------------------
  // Float values live as bit patterns in general registers (f32 zero-extended
  // to 64 bits); each operation moves them through the scratch registers
  // xmm0/xmm1, which nothing else holds, and writes the result back to `dst`.
  // `f64` selects the double form.
  void float_op(FloatOp op, bool f64, Reg dst, Reg src);  // dst = dst op src
  void float_sqrt(bool f64, Reg dst);
  void float_compare(FloatCond cond, bool f64, Reg a, Reg b);  // a = (a cond b) ? 1 : 0
  void float_round(RoundMode mode, bool f64, Reg dst);
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
  void cmp(bool wide, Reg a, Reg b);
  void cmp_imm(bool wide, Reg a, int32_t imm);
  void cmp_mem64(Reg a, Reg base, int32_t disp);  // cmp a, [base + disp]
  void cmp_mem(bool wide, Reg a, Reg base, int32_t disp);  // 32- or 64-bit
  void test(bool wide, Reg a, Reg b);
  void set_cond(Cond cond, Reg dst);  // dst = cond ? 1 : 0 (32-bit)
  void set_zero(Reg dst, bool wide);  // dst = (flags from test: zero) ? 1 : 0
  void cmove_if(Cond cond, Reg dst, Reg src);  // 64-bit conditional move
  void cmov_zero(Reg dst, Reg src);            // dst = src if ZF (after test)
  void jump(Label target);
  void jump_if(Cond cond, Label target);
  void jump_if_zero(Label target);     // after test
  void jump_if_nonzero(Label target);  // after test
  void jump_if_above(Label target);    // unsigned >, after cmp
  void jump_if_below(Label target);    // unsigned <, after cmp
  // Jump table: jumps to entries[index] (index < count, already clamped);
  // clobbers r11 and `index`.
  void jump_table(Reg index, const Label* entries, uint32_t count);

  // ---- calls, frames --------------------------------------------------------
  void call_absolute(const void* fn);        // via r11
  void call_indirect_mem(Reg base, int32_t disp);  // call [base + disp]
  void jump_indirect_mem(Reg base, int32_t disp);  // jmp [base + disp] (tail calls)
  void push(Reg r);
  void pop(Reg r);
  void ret();
  void cmp_rsp_mem(Reg base, int32_t disp);  // cmp rsp, [base + disp]
  void push_mem(Reg base, int32_t disp);     // push qword [base + disp]
  void pop_mem(Reg base, int32_t disp);      // pop qword [base + disp]
  void store8_imm(Reg base, int32_t disp, uint8_t value);  // mov byte [base + disp], value
  void store32_imm(Reg base, int32_t disp, uint32_t value);  // mov dword [base + disp], value
  void load64_scaled(Reg dst, Reg base, Reg index);  // mov dst, [base + index * 8]
  void lea32(Reg dst, Reg base, int32_t disp);       // lea dst32, [base + disp] (zero-extends)
  void cmp8_mem_imm(Reg base, int32_t disp, uint8_t value);  // cmp byte [base + disp], value

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
  void inc_mem32(Reg base, int32_t disp, int32_t delta);  // add dword [base + disp], delta

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
