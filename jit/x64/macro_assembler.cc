// x86-64 expansions of the macro-assembler operations (asmjit x86::Assembler).
#include "jit/x64/macro_assembler.h"

#include "fibers/arch/layout_x86_64_sysv.h"

#include <algorithm>
#include <iterator>
#include <cstring>
#include <utility>

namespace weft::jit::x64 {

namespace {
using namespace asmjit;
using asmjit::x86::CondCode;

x86::Gp q(Reg r) { return x86::gpq(r); }
x86::Gp d(Reg r) { return x86::gpd(r); }
x86::Gp gp(Reg r, bool wide) { return wide ? q(r) : d(r); }

CondCode cond_code(Cond c) {
  switch (c) {
    case Cond::Eq: return CondCode::kEqual;
    case Cond::Ne: return CondCode::kNotEqual;
    case Cond::LtS: return CondCode::kSignedLT;
    case Cond::LtU: return CondCode::kUnsignedLT;
    case Cond::GtS: return CondCode::kSignedGT;
    case Cond::GtU: return CondCode::kUnsignedGT;
    case Cond::LeS: return CondCode::kSignedLE;
    case Cond::LeU: return CondCode::kUnsignedLE;
    case Cond::GeS: return CondCode::kSignedGE;
    case Cond::GeU: return CondCode::kUnsignedGE;
  }
  return CondCode::kEqual;
}

// ---- direct encoding --------------------------------------------------------
// The forms the compiler emits most (frame-slot loads/stores, register moves,
// constants, two-register ALU operations) are encoded here, byte for byte as
// asmjit encodes them (tests/jit/encoding_test.cc compares the two over all
// registers), straight into the assembler's buffer: asmjit's generic
// instruction dispatch was a quarter of the compile time.

// REX with W (64-bit operand), R (ModRM.reg bit 3), B (ModRM.rm/SIB.base bit 3);
// omitted when it would be 0x40.
inline uint8_t* put_rex(uint8_t* p, bool w, Reg r, Reg b) {
  uint8_t v = uint8_t(0x40 | (uint8_t(w) << 3) | ((r >> 3) << 2) | (b >> 3));
  if (v != 0x40) *p++ = v;
  return p;
}
inline uint8_t* put_modrm_reg(uint8_t* p, Reg r, Reg rm) {
  *p++ = uint8_t(0xC0 | ((r & 7) << 3) | (rm & 7));
  return p;
}
// [base + disp]: SIB for rsp/r12 bases, disp8 when it fits (and for rbp/r13 with 0).
inline uint8_t* put_modrm_mem(uint8_t* p, Reg r, Reg base, int32_t disp) {
  const uint8_t b = base & 7;
  const uint8_t mod = (disp == 0 && b != 5) ? 0 : (disp == int32_t(int8_t(disp))) ? 1 : 2;
  *p++ = uint8_t((mod << 6) | ((r & 7) << 3) | b);
  if (b == 4) *p++ = 0x24;
  if (mod == 1) {
    *p++ = uint8_t(disp);
  } else if (mod == 2) {
    std::memcpy(p, &disp, 4);
    p += 4;
  }
  return p;
}
// [base + index + disp] (scale 1; index is never rsp): ModRM with a SIB byte,
// disp8 when it fits (and for rbp/r13 bases with 0). The REX prefix (R, X, B,
// and W) is the caller's: put_rex_sib.
inline uint8_t* put_modrm_sib(uint8_t* p, Reg r, Reg base, Reg index, int32_t disp) {
  const uint8_t b = base & 7;
  const uint8_t mod = (disp == 0 && b != 5) ? 0 : (disp == int32_t(int8_t(disp))) ? 1 : 2;
  *p++ = uint8_t((mod << 6) | ((r & 7) << 3) | 4);
  *p++ = uint8_t(((index & 7) << 3) | b);
  if (mod == 1) {
    *p++ = uint8_t(disp);
  } else if (mod == 2) {
    std::memcpy(p, &disp, 4);
    p += 4;
  }
  return p;
}
// REX for a SIB operand; `byte_reg`: r is an 8-bit register operand, whose
// spl/bpl/sil/dil need a REX prefix (without one they are ah..bh).
inline uint8_t* put_rex_sib(uint8_t* p, bool w, Reg r, Reg base, Reg index, bool byte_reg = false) {
  const uint8_t v = uint8_t(0x40 | (uint8_t(w) << 3) | ((r >> 3) << 2) | ((index >> 3) << 1) | (base >> 3));
  if (v != 0x40 || (byte_reg && r >= 4)) *p++ = v;
  return p;
}
inline uint8_t* put_imm32(uint8_t* p, uint32_t v) {
  std::memcpy(p, &v, 4);
  return p + 4;
}
// op r/m, reg (MR) with a register destination.
inline uint8_t* put_rr(uint8_t* p, bool w, uint8_t opcode, Reg rm, Reg reg) {
  p = put_rex(p, w, reg, rm);
  *p++ = opcode;
  return put_modrm_reg(p, reg, rm);
}
inline uint8_t* put_rm(uint8_t* p, bool w, uint8_t opcode, Reg reg, Reg base, int32_t disp) {
  p = put_rex(p, w, reg, base);
  *p++ = opcode;
  return put_modrm_mem(p, reg, base, disp);
}
}  // namespace

// The direct encoder writes into asmjit's buffer through its public fields
// (`_bufferData`, `_bufferPtr`, `_section`) and `CodeHolder::growBuffer`, as
// in Debian's asmjit (snapshot 2022-12-10); later asmjit versions renamed them, so an
// asmjit upgrade needs grow()/reserve()/commit() and the label patching here
// adjusted (tests/jit/encoding_test.cc compares every direct form with asmjit).
uint8_t* MacroAssembler::grow() {
  // asmjit's own path: grows the section buffer and re-points the assembler.
  asmjit::Error err = asm_.code()->growBuffer(&asm_._section->_buffer, kMaxDirectBytes);
  if (err != asmjit::kErrorOk) {
    if (error_.message.empty()) error_.message = asmjit::DebugUtils::errorAsString(err);
    return nullptr;
  }
  return asm_._bufferPtr;
}

MacroAssembler::MacroAssembler(CodeHolder& code) : asm_(&code) {
  asm_.setErrorHandler(&error_);
  asm_.addEncodingOptions(asmjit::EncodingOptions::kOptimizedAlign);  // padding as one or two long NOPs
}

// The direct forms' entry: `p`, the buffer's end, when there is room for one
// form (kMaxDirectBytes); else the buffer grows and the whole form is emitted
// again, out of line (grow_then) — so that the usual path holds nothing across
// a call and saves no registers (a third of a frame-slot load's instructions).
// Whatever a form does before it must be free of effects.
#define WEFT_ROOM_OR_GROW(form, ...)  \
  uint8_t* p = asm_._bufferPtr;       \
  if (!has_room(p)) [[unlikely]]      \
  return grow_then<&MacroAssembler::form>(__VA_ARGS__)


void MacroAssembler::align_code(uint32_t alignment) {
  // The recommended long NOPs (9 bytes the longest), written directly:
  // asmjit's align() cost compilation more than everything else a loop head does.
  static constexpr uint8_t kNops[9][9] = {
      {0x90},
      {0x66, 0x90},
      {0x0F, 0x1F, 0x00},
      {0x0F, 0x1F, 0x40, 0x00},
      {0x0F, 0x1F, 0x44, 0x00, 0x00},
      {0x66, 0x0F, 0x1F, 0x44, 0x00, 0x00},
      {0x0F, 0x1F, 0x80, 0x00, 0x00, 0x00, 0x00},
      {0x0F, 0x1F, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00},
      {0x66, 0x0F, 0x1F, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00},
  };
  if (shift_ == kShiftUndecided && alignment == kLoopAlignment) {
    // The first loop head of a movable function: the function moves instead.
    shift_ = uint32_t(-asm_.offset()) & (kLoopAlignment - 1);
    for (uint32_t field : unshifted_near_fields_) {
      uint8_t* p = asm_._bufferData + field;
      int32_t displacement;
      std::memcpy(&displacement, p, 4);
      displacement -= int32_t(shift_);
      std::memcpy(p, &displacement, 4);
    }
    unshifted_near_fields_.clear();
    return;
  }
  uint32_t pad = uint32_t(-(asm_.offset() + function_shift())) & (alignment - 1);
  if (pad > 9) {
    // More than one NOP's worth: code falling in jumps over the padding —
    // one taken jump instead of up to seven NOPs at every entry into the
    // loop (a function whose body is a loop enters it once per call) — and
    // the padding is int3s, never executed.
    uint8_t* p = reserve();
    if (!p) return;
    *p++ = 0xEB;  // jmp rel8
    *p++ = uint8_t(pad - 2);
    if (size_t(asm_._bufferEnd - p) >= kLoopAlignment) {  // all the padding at once
      std::memset(p, 0xCC, pad - 2);
      commit(p + pad - 2);
      return;
    }
    commit(p);
    for (pad -= 2; pad > 0;) {
      p = reserve();
      if (!p) return;
      const uint32_t n = pad > 9 ? 9 : pad;
      std::memset(p, 0xCC, n);
      commit(p + n);
      pad -= n;
    }
    return;
  }
  if (pad == 0) return;
  if (uint8_t* p = reserve()) {  // one long NOP
    std::memcpy(p, kNops[pad - 1], pad);
    commit(p + pad);
  }
}

void MacroAssembler::bind_at(Label label, uint32_t target) {
  labels_[label.id].offset = target;
  for (uint32_t j = labels_[label.id].pending; j != kNoJump;) {
    const bool call = j & kCallBit;
    const PendingJump& ref = call ? calls_[j & ~kCallBit] : jumps_[j];
    int32_t value = int32_t(int64_t(target) - int64_t(ref.base));
    std::memcpy(asm_._bufferData + ref.field, &value, 4);
    if (!call) --unresolved_;
    j = ref.next;
  }
  labels_[label.id].pending = kNoJump;
  // Once nothing is pending (at every function's end) the list restarts
  // instead of growing for the whole module.
  if (unresolved_ == 0) jumps_.clear();
}

void MacroAssembler::bind_unbound(uint32_t first) {
  for (uint32_t id = first; id < labels_.size(); ++id)
    if (labels_[id].offset == kUnbound) bind(Label{id});
}

void MacroAssembler::refer(Label target, uint32_t field, uint32_t base) {
  jumps_.push_back(PendingJump{field, base, labels_[target.id].pending});
  labels_[target.id].pending = uint32_t(jumps_.size() - 1);
  ++unresolved_;
}

void MacroAssembler::branch(int cc, Label target) {
  WEFT_ROOM_OR_GROW(branch, cc, target);
  const int64_t at = int64_t(asm_.offset());
  const uint32_t bound = labels_[target.id].offset;
  if (bound != kUnbound) {
    const int64_t to = int64_t(bound);
    if (to - (at + 2) == int64_t(int8_t(to - (at + 2)))) {
      *p++ = cc < 0 ? 0xEB : uint8_t(0x70 | cc);
      *p++ = uint8_t(int8_t(to - (at + 2)));
    } else if (cc < 0) {
      *p++ = 0xE9;
      p = put_imm32(p, uint32_t(int32_t(to - (at + 5))));
    } else {
      *p++ = 0x0F;
      *p++ = uint8_t(0x80 | cc);
      p = put_imm32(p, uint32_t(int32_t(to - (at + 6))));
    }
    commit(p);
    return;
  }
  if (cc < 0) {
    *p++ = 0xE9;
  } else {
    *p++ = 0x0F;
    *p++ = uint8_t(0x80 | cc);
  }
  const uint32_t field = uint32_t(p - asm_._bufferData);
  refer(target, field, field + 4);
  commit(put_imm32(p, 0));
}

void MacroAssembler::move(Reg dst, Reg src) {
  if (dst == src) return;
  WEFT_ROOM_OR_GROW(move, dst, src);
  commit(put_rr(p, true, 0x89, dst, src));
}

namespace {
// movabs r64, imm64 (10 bytes): the immediate is the last 8, which is what a
// patchable constant's `at` points to (the returned end minus 8).
uint8_t* put_movabs(uint8_t* p, Reg dst, uint64_t value) {
  p = put_rex(p, true, 0, dst);
  *p++ = uint8_t(0xB8 + (dst & 7));
  std::memcpy(p, &value, 8);
  return p + 8;
}
// move_imm's bytes: the shortest form of the constant (at most 10 bytes).
uint8_t* put_move_imm(uint8_t* p, Reg dst, uint64_t value) {
  if (value == 0) {
    p = put_rr(p, false, 0x31, dst, dst);  // xor r32, r32
  } else if (value <= 0xFFFFFFFFu) {
    p = put_rex(p, false, 0, dst);  // mov r32, imm32 (zero-extends)
    *p++ = uint8_t(0xB8 + (dst & 7));
    p = put_imm32(p, uint32_t(value));
  } else if (int64_t(value) == int64_t(int32_t(value))) {
    p = put_rr(p, true, 0xC7, dst, 0);  // mov r64, sign-extended imm32
    p = put_imm32(p, uint32_t(value));
  } else {
    p = put_movabs(p, dst, value);
  }
  return p;
}
}  // namespace

void MacroAssembler::move_imm(Reg dst, uint64_t value) {
  WEFT_ROOM_OR_GROW(move_imm, dst, value);
  commit(put_move_imm(p, dst, value));
}

uint32_t MacroAssembler::move_patchable(Reg dst, uint64_t value) {
  WEFT_ROOM_OR_GROW(move_patchable, dst, value);
  p = put_movabs(p, dst, value);
  commit(p);
  return uint32_t(p - 8 - asm_._bufferData);
}

void MacroAssembler::patch_constant(uint8_t* code, uint32_t at, uint64_t value) { std::memcpy(code + at, &value, 8); }

// movabs scratch, imm64 and the access through it (mov value, [scratch]:
// 8B; mov [scratch], value: 89) in one reservation — a global.get or
// global.set each; without room for both, one after the other, the same bytes.
uint32_t MacroAssembler::access_patchable_one_by_one(uint8_t opcode, Reg value, Reg scratch, uint64_t address) {
  const uint32_t at = move_patchable(scratch, address);
  if (uint8_t* p = reserve()) commit(put_rm(p, true, opcode, value, scratch, 0));
  return at;
}
uint32_t MacroAssembler::access_patchable(uint8_t opcode, Reg value, Reg scratch, uint64_t address) {
  uint8_t* p = asm_._bufferPtr;
  if (size_t(asm_._bufferEnd - p) < 2 * kMaxDirectBytes) [[unlikely]]
    return access_patchable_one_by_one(opcode, value, scratch, address);
  p = put_movabs(p, scratch, address);
  const uint32_t at = uint32_t(p - 8 - asm_._bufferData);
  commit(put_rm(p, true, opcode, value, scratch, 0));
  return at;
}
uint32_t MacroAssembler::load64_patchable(Reg dst, Reg scratch, uint64_t address) {
  return access_patchable(0x8B, dst, scratch, address);
}
uint32_t MacroAssembler::store64_patchable(Reg scratch, uint64_t address, Reg src) {
  return access_patchable(0x89, src, scratch, address);
}

// The 32-bit forms: the immediate is each instruction's last four bytes.
uint32_t MacroAssembler::move_patchable32(Reg dst, uint32_t value) {
  uint8_t* p = reserve();
  if (!p) return 0;
  p = put_rex(p, false, 0, dst);  // mov r32, imm32 (zero-extends)
  *p++ = uint8_t(0xB8 + (dst & 7));
  const uint32_t at = uint32_t(p - asm_._bufferData);
  commit(put_imm32(p, value));
  return at;
}
uint32_t MacroAssembler::compare_patchable32(Reg a, uint32_t value) {
  uint8_t* p = reserve();
  if (!p) return 0;
  p = put_rr(p, true, 0x81, a, 7);  // cmp r64, imm32 (sign-extended): 81 /7 id, never the imm8 form
  const uint32_t at = uint32_t(p - asm_._bufferData);
  commit(put_imm32(p, value));
  return at;
}
uint32_t MacroAssembler::store64_patchable32(Reg base, int32_t disp, uint32_t value) {
  uint8_t* p = reserve();
  if (!p) return 0;
  p = put_rm(p, true, 0xC7, 0, base, disp);  // mov qword [base + disp], imm32 (sign-extended)
  const uint32_t at = uint32_t(p - asm_._bufferData);
  commit(put_imm32(p, value));
  return at;
}
void MacroAssembler::patch_constant32(uint8_t* code, uint32_t at, uint32_t value) { std::memcpy(code + at, &value, 4); }

void MacroAssembler::load64(Reg dst, Reg base, int32_t disp) {
  WEFT_ROOM_OR_GROW(load64, dst, base, disp);
  commit(put_rm(p, true, 0x8B, dst, base, disp));
}
void MacroAssembler::load32(Reg dst, Reg base, int32_t disp) {
  WEFT_ROOM_OR_GROW(load32, dst, base, disp);
  commit(put_rm(p, false, 0x8B, dst, base, disp));
}
void MacroAssembler::store64(Reg base, int32_t disp, Reg src) {
  WEFT_ROOM_OR_GROW(store64, base, disp, src);
  commit(put_rm(p, true, 0x89, src, base, disp));
}
void MacroAssembler::store64_run(Reg base, int32_t first_disp, uint32_t count, Reg src) {
  // At most 8 bytes a store (REX, opcode, ModRM, SIB, disp32): one
  // reservation for all; without room, store64 one by one (the same bytes).
  uint8_t* p = asm_._bufferPtr;
  if (size_t(asm_._bufferEnd - p) < size_t(count) * 8 + kMaxDirectBytes) [[unlikely]] {
    for (uint32_t i = 0; i < count; ++i) store64(base, first_disp + int32_t(8 * i), src);
    return;
  }
  for (uint32_t i = 0; i < count; ++i) p = put_rm(p, true, 0x89, src, base, first_disp + int32_t(8 * i));
  commit(p);
}
void MacroAssembler::store32(Reg base, int32_t disp, Reg src) {
  WEFT_ROOM_OR_GROW(store32, base, disp, src);
  commit(put_rm(p, false, 0x89, src, base, disp));
}
void MacroAssembler::store64_imm(Reg base, int32_t disp, int32_t value) {
  WEFT_ROOM_OR_GROW(store64_imm, base, disp, value);
  commit(put_imm32(put_rm(p, true, 0xC7, 0, base, disp), uint32_t(value)));
}
void MacroAssembler::zero_extend32(Reg dst, Reg src) {
  WEFT_ROOM_OR_GROW(zero_extend32, dst, src);
  commit(put_rr(p, false, 0x89, dst, src));
}

void MacroAssembler::sign_extend(Reg dst, Reg src, int from_bits, bool wide) {
  switch (from_bits) {
    case 8: asm_.movsx(gp(dst, wide), x86::gpb_lo(src)); break;
    case 16: asm_.movsx(gp(dst, wide), x86::gpw(src)); break;
    default: asm_.movsxd(q(dst), d(src)); break;
  }
}

void MacroAssembler::zero_extend_narrow(Reg dst, Reg src, int from_bits) {
  if (from_bits == 8)
    asm_.movzx(d(dst), x86::gpb_lo(src));
  else
    asm_.movzx(d(dst), x86::gpw(src));
}

void MacroAssembler::address_of(Reg dst, Reg base, int32_t disp) {
  WEFT_ROOM_OR_GROW(address_of, dst, base, disp);
  commit(put_rm(p, true, 0x8D, dst, base, disp));
}
void MacroAssembler::address_of_index(Reg dst, Reg base, Reg index, int32_t disp) {
  asm_.lea(q(dst), x86::ptr(q(base), q(index), 0, disp));
}

void MacroAssembler::load_mem(MemWidth width, Reg dst, Reg base, Reg index, int32_t disp) {
  WEFT_ROOM_OR_GROW(load_mem, width, dst, base, index, disp);
  // movzx r32 / movsx r64 / mov r32 / movsxd r64 / mov r64, [base + index + disp]
  const bool wide = width == MemWidth::S8 || width == MemWidth::S16 || width == MemWidth::S32 || width == MemWidth::U64;
  p = put_rex_sib(p, wide, dst, base, index);
  switch (width) {
    case MemWidth::U8: *p++ = 0x0F; *p++ = 0xB6; break;
    case MemWidth::S8: *p++ = 0x0F; *p++ = 0xBE; break;
    case MemWidth::U16: *p++ = 0x0F; *p++ = 0xB7; break;
    case MemWidth::S16: *p++ = 0x0F; *p++ = 0xBF; break;
    case MemWidth::U32: case MemWidth::U64: *p++ = 0x8B; break;
    case MemWidth::S32: *p++ = 0x63; break;
  }
  commit(put_modrm_sib(p, dst, base, index, disp));
}

void MacroAssembler::store_mem(MemWidth width, Reg base, Reg index, int32_t disp, Reg src) {
  WEFT_ROOM_OR_GROW(store_mem, width, base, index, disp, src);
  // mov [base + index + disp], r8 / r16 / r32 / r64
  switch (width) {
    case MemWidth::U8: case MemWidth::S8:
      p = put_rex_sib(p, false, src, base, index, /*byte_reg=*/true);
      *p++ = 0x88;
      break;
    case MemWidth::U16: case MemWidth::S16:
      *p++ = 0x66;
      p = put_rex_sib(p, false, src, base, index);
      *p++ = 0x89;
      break;
    case MemWidth::U32: case MemWidth::S32:
      p = put_rex_sib(p, false, src, base, index);
      *p++ = 0x89;
      break;
    case MemWidth::U64:
      p = put_rex_sib(p, true, src, base, index);
      *p++ = 0x89;
      break;
  }
  commit(put_modrm_sib(p, src, base, index, disp));
}

void MacroAssembler::int_op_mem(IntOp op, bool wide, Reg dst, Reg base, int32_t disp) {
  WEFT_ROOM_OR_GROW(int_op_mem, op, wide, dst, base, disp);
  switch (op) {  // op r, r/m (RM forms)
    case IntOp::Add: p = put_rm(p, wide, 0x03, dst, base, disp); break;
    case IntOp::Sub: p = put_rm(p, wide, 0x2B, dst, base, disp); break;
    case IntOp::And: p = put_rm(p, wide, 0x23, dst, base, disp); break;
    case IntOp::Or: p = put_rm(p, wide, 0x0B, dst, base, disp); break;
    case IntOp::Xor: p = put_rm(p, wide, 0x33, dst, base, disp); break;
    case IntOp::Mul:  // imul r, r/m: 0F AF /r
      p = put_rex(p, wide, dst, base);
      *p++ = 0x0F;
      *p++ = 0xAF;
      p = put_modrm_mem(p, dst, base, disp);
      break;
  }
  commit(p);
}

void MacroAssembler::compare_mem(bool wide, Reg a, Reg base, int32_t disp) {
  WEFT_ROOM_OR_GROW(compare_mem, wide, a, base, disp);
  commit(put_rm(p, wide, 0x3B, a, base, disp));  // cmp r, r/m
}

void MacroAssembler::int_op(IntOp op, bool wide, Reg dst, Reg src) {
  WEFT_ROOM_OR_GROW(int_op, op, wide, dst, src);
  switch (op) {
    case IntOp::Add: p = put_rr(p, wide, 0x01, dst, src); break;
    case IntOp::Sub: p = put_rr(p, wide, 0x29, dst, src); break;
    case IntOp::And: p = put_rr(p, wide, 0x21, dst, src); break;
    case IntOp::Or: p = put_rr(p, wide, 0x09, dst, src); break;
    case IntOp::Xor: p = put_rr(p, wide, 0x31, dst, src); break;
    case IntOp::Mul:  // imul r, r/m: 0F AF /r
      p = put_rex(p, wide, dst, src);
      *p++ = 0x0F;
      *p++ = 0xAF;
      p = put_modrm_reg(p, dst, src);
      break;
  }
  commit(p);
}

namespace {
// The /digit of op's group-1 form (81 /digit id, 83 /digit ib): add 0, or 1,
// and 4, sub 5, xor 6, cmp 7.
constexpr uint8_t kGroup1Add = 0, kGroup1Or = 1, kGroup1And = 4, kGroup1Sub = 5, kGroup1Xor = 6, kGroup1Cmp = 7;
uint8_t group1_digit(IntOp op) {
  switch (op) {
    case IntOp::Add: return kGroup1Add;
    case IntOp::Or: return kGroup1Or;
    case IntOp::And: return kGroup1And;
    case IntOp::Sub: return kGroup1Sub;
    case IntOp::Xor: return kGroup1Xor;
    case IntOp::Mul: break;
  }
  return kGroup1Add;  // Mul has no group-1 form (the callers encode imul)
}
// op r, imm (group 1): 83 /digit ib when the immediate fits a byte, else the
// accumulator's short form (digit*8+5 id) for rax, else 81 /digit id — the
// forms asmjit picks.
uint8_t* put_group1_imm(uint8_t* p, bool wide, uint8_t digit, Reg dst, int32_t imm) {
  if (imm == int32_t(int8_t(imm))) {
    p = put_rr(p, wide, 0x83, dst, digit);
    *p++ = uint8_t(imm);
    return p;
  }
  if (dst == reg::rax) {
    if (wide) *p++ = 0x48;
    *p++ = uint8_t(digit * 8 + 5);
  } else {
    p = put_rr(p, wide, 0x81, dst, digit);
  }
  return put_imm32(p, uint32_t(imm));
}
// The /digit of a shift's group-2 form: rol 0, ror 1, shl 4, shr 5, sar 7.
uint8_t group2_digit(ShiftOp op) {
  switch (op) {
    case ShiftOp::Rotl: return 0;
    case ShiftOp::Rotr: return 1;
    case ShiftOp::Shl: return 4;
    case ShiftOp::ShrU: return 5;
    case ShiftOp::ShrS: return 7;
  }
  return 4;
}
}  // namespace

void MacroAssembler::int_op_imm(IntOp op, bool wide, Reg dst, int32_t imm) {
  WEFT_ROOM_OR_GROW(int_op_imm, op, wide, dst, imm);
  if (op == IntOp::Mul) {
    // imul dst, dst, imm: 6B /r ib or 69 /r id
    const bool byte = imm == int32_t(int8_t(imm));
    p = put_rr(p, wide, byte ? 0x6B : 0x69, dst, dst);
    if (byte)
      *p++ = uint8_t(imm);
    else
      p = put_imm32(p, uint32_t(imm));
  } else {
    p = put_group1_imm(p, wide, group1_digit(op), dst, imm);
  }
  commit(p);
}

void MacroAssembler::shift(ShiftOp op, bool wide, Reg dst, Reg count) {
  move(reg::rcx, count);
  if (uint8_t* p = reserve()) commit(put_rr(p, wide, 0xD3, dst, group2_digit(op)));  // D3 /digit: by cl
}

void MacroAssembler::shift_imm(ShiftOp op, bool wide, Reg dst, uint8_t count) {
  WEFT_ROOM_OR_GROW(shift_imm, op, wide, dst, count);
  if (count == 1) {
    p = put_rr(p, wide, 0xD1, dst, group2_digit(op));  // D1 /digit: by one
  } else {
    p = put_rr(p, wide, 0xC1, dst, group2_digit(op));  // C1 /digit ib
    *p++ = count;
  }
  commit(p);
}

Reg MacroAssembler::divide(bool is_signed, bool wide, bool remainder, Reg dividend, Reg divisor,
                           Label div_by_zero, Label overflow, bool checked) {
  move(reg::rax, dividend);
  Label done = new_label();
  if (checked) {
    test_bits(wide, divisor, divisor);
    jump_if_zero(div_by_zero);
  }
  if (is_signed && checked) {
    // INT_MIN / -1 overflows (div traps, rem is 0); idiv would fault on it.
    Label normal = new_label();
    compare_imm(wide, divisor, -1);
    jump_if(Cond::Ne, normal);
    if (remainder) {
      move_imm(reg::rdx, 0);
      jump(done);
    } else {
      move_imm(reg::r11, wide ? 0x8000000000000000ull : 0x80000000ull);
      compare(wide, reg::rax, reg::r11);
      jump_if(Cond::Eq, overflow);
    }
    bind(normal);
  }
  if (uint8_t* p = reserve()) {
    if (is_signed) {
      if (wide) *p++ = 0x48;
      *p++ = 0x99;                                   // cdq / cqo: rdx:rax = sign-extended rax
      p = put_rr(p, wide, 0xF7, divisor, 7);         // idiv: F7 /7
    } else {
      p = put_rr(p, false, 0x31, reg::rdx, reg::rdx);  // xor edx, edx
      p = put_rr(p, wide, 0xF7, divisor, 6);           // div: F7 /6
    }
    commit(p);
  }
  bind(done);
  return remainder ? reg::rdx : reg::rax;
}

namespace {
// Moves a float's bits between a general register and an XMM register.
void to_xmm(x86::Assembler& a, const x86::Xmm& x, Reg r, bool f64) {
  if (f64)
    a.movq(x, q(r));
  else
    a.movd(x, d(r));
}
// movd to a 32-bit register zero-extends: f32 results keep the invariant that
// 32-bit values have clear upper halves.
void from_xmm(x86::Assembler& a, Reg r, const x86::Xmm& x, bool f64) {
  if (f64)
    a.movq(q(r), x);
  else
    a.movd(d(r), x);
}
}  // namespace

// The float moves are encoded directly too (register arguments and results
// made them frequent): a mandatory prefix, REX, 0F and the opcode.
namespace {
inline uint8_t* put_sse_rr(uint8_t* p, uint8_t prefix, bool w, uint8_t opcode, Reg reg, Reg rm) {
  if (prefix) *p++ = prefix;
  p = put_rex(p, w, reg, rm);
  *p++ = 0x0F;
  *p++ = opcode;
  return put_modrm_reg(p, reg, rm);
}
inline uint8_t* put_sse_rm(uint8_t* p, uint8_t prefix, bool w, uint8_t opcode, Reg reg, Reg base, int32_t disp) {
  if (prefix) *p++ = prefix;
  p = put_rex(p, w, reg, base);
  *p++ = 0x0F;
  *p++ = opcode;
  return put_modrm_mem(p, reg, base, disp);
}
inline uint8_t* put_sse_sib(uint8_t* p, uint8_t prefix, uint8_t opcode, Reg reg, Reg base, Reg index, int32_t disp) {
  *p++ = prefix;
  p = put_rex_sib(p, false, reg, base, index);
  *p++ = 0x0F;
  *p++ = opcode;
  return put_modrm_sib(p, reg, base, index, disp);
}
// movd xmm, r32 / movq xmm, r64 (66 0F 6E) and back (66 0F 7E).
inline uint8_t* put_to_xmm(uint8_t* p, FReg x, Reg r, bool f64) { return put_sse_rr(p, 0x66, f64, 0x6E, x, r); }
inline uint8_t* put_from_xmm(uint8_t* p, Reg r, FReg x, bool f64) { return put_sse_rr(p, 0x66, f64, 0x7E, x, r); }
}  // namespace

void MacroAssembler::fp_move(FReg dst, FReg src) {
  if (dst == src) return;
  // movaps: the whole register, no merge with dst's old bits.
  WEFT_ROOM_OR_GROW(fp_move, dst, src);
  commit(put_sse_rr(p, 0, false, 0x28, dst, src));
}
void MacroAssembler::fp_from_gpr(FReg dst, Reg src) {
  WEFT_ROOM_OR_GROW(fp_from_gpr, dst, src);
  commit(put_sse_rr(p, 0x66, true, 0x6E, dst, src));  // movq xmm, r64
}
void MacroAssembler::gpr_from_fp(Reg dst, FReg src) {
  WEFT_ROOM_OR_GROW(gpr_from_fp, dst, src);
  commit(put_sse_rr(p, 0x66, true, 0x7E, src, dst));  // movq r64, xmm
}
void MacroAssembler::fp_load(FReg dst, Reg base, int32_t disp) {
  WEFT_ROOM_OR_GROW(fp_load, dst, base, disp);
  commit(put_sse_rm(p, 0xF3, false, 0x7E, dst, base, disp));  // movq xmm, m64
}
void MacroAssembler::fp_store(Reg base, int32_t disp, FReg src) {
  WEFT_ROOM_OR_GROW(fp_store, base, disp, src);
  commit(put_sse_rm(p, 0x66, false, 0xD6, src, base, disp));  // movq m64, xmm
}

// An f32 result keeps the upper bits of `dst` (ss forms write the low 32
// bits only): they are clear, so f32 values stay zero-extended.
void MacroAssembler::fp_op(FloatOp op, bool f64, FReg dst, FReg src) {
  const x86::Xmm a = x86::xmm(dst), b = x86::xmm(src);
  switch (op) {
    case FloatOp::Add: f64 ? asm_.addsd(a, b) : asm_.addss(a, b); break;
    case FloatOp::Sub: f64 ? asm_.subsd(a, b) : asm_.subss(a, b); break;
    case FloatOp::Mul: f64 ? asm_.mulsd(a, b) : asm_.mulss(a, b); break;
    case FloatOp::Div: f64 ? asm_.divsd(a, b) : asm_.divss(a, b); break;
  }
}

void MacroAssembler::fp_load_mem(bool f64, FReg dst, Reg base, Reg index, int32_t disp) {
  // movsd / movss xmm, m (F2 / F3 0F 10): the load forms clear the upper bits.
  if (uint8_t* p = reserve()) commit(put_sse_sib(p, f64 ? 0xF2 : 0xF3, 0x10, dst, base, index, disp));
}

void MacroAssembler::fp_store_mem(bool f64, Reg base, Reg index, int32_t disp, FReg src) {
  if (uint8_t* p = reserve()) commit(put_sse_sib(p, f64 ? 0xF2 : 0xF3, 0x11, src, base, index, disp));  // movsd/movss m, xmm
}

void MacroAssembler::fp_branch(FloatCond cond, bool f64, FReg a, FReg b, bool when_true, Label target) {
  // ucomiss/ucomisd set ZF, PF and CF, all three on an unordered pair. a < b
  // and a <= b compare b with a, so that every ordering test is "above (or
  // equal)", which an unordered pair fails, and its negation "below (or
  // equal)", which it passes. Equality needs the parity flag.
  FReg x = a, y = b;
  if (cond == FloatCond::Lt || cond == FloatCond::Le) std::swap(x, y);
  if (uint8_t* p = reserve()) commit(put_sse_rr(p, f64 ? 0x66 : 0, false, 0x2E, x, y));  // ucomisd / ucomiss x, y
  const int parity = int(CondCode::kParityEven), equal = int(CondCode::kEqual), not_equal = int(CondCode::kNotEqual);
  switch (cond) {
    case FloatCond::Eq: case FloatCond::Ne:
      if ((cond == FloatCond::Eq) == when_true) {  // ordered and equal
        Label skip = new_label();
        branch(parity, skip);
        branch(equal, target);
        bind(skip);
      } else {  // unordered or not equal
        branch(parity, target);
        branch(not_equal, target);
      }
      break;
    case FloatCond::Gt: case FloatCond::Lt:
      branch(int(when_true ? CondCode::kUnsignedGT : CondCode::kUnsignedLE), target);
      break;
    case FloatCond::Ge: case FloatCond::Le:
      branch(int(when_true ? CondCode::kUnsignedGE : CondCode::kUnsignedLT), target);
      break;
  }
}

void MacroAssembler::fp_sqrt(bool f64, FReg dst) {
  const x86::Xmm a = x86::xmm(dst);
  f64 ? asm_.sqrtsd(a, a) : asm_.sqrtss(a, a);
}

void MacroAssembler::fp_convert_s(bool f64, bool wide, FReg dst, Reg src) {
  // cvtsi2ss/sd merge into the register's upper bits: clearing it first keeps
  // an f32's upper bits clear and the result from waiting on the last writer.
  const x86::Xmm a = x86::xmm(dst);
  asm_.xorps(a, a);
  f64 ? asm_.cvtsi2sd(a, gp(src, wide)) : asm_.cvtsi2ss(a, gp(src, wide));
}

void MacroAssembler::float_op(FloatOp op, bool f64, Reg dst, Reg src) {
  const x86::Xmm& a = x86::xmm0;
  const x86::Xmm& b = x86::xmm1;
  to_xmm(asm_, a, dst, f64);
  to_xmm(asm_, b, src, f64);
  // Hardware IEEE results are Wasm's bit for bit except a NaN's payload, which
  // x86 takes from a NaN operand (quietened) or makes the default NaN: exactly
  // Wasm's canonical/arithmetic NaN rule (runtime/numeric.h header comment).
  switch (op) {
    case FloatOp::Add: f64 ? asm_.addsd(a, b) : asm_.addss(a, b); break;
    case FloatOp::Sub: f64 ? asm_.subsd(a, b) : asm_.subss(a, b); break;
    case FloatOp::Mul: f64 ? asm_.mulsd(a, b) : asm_.mulss(a, b); break;
    case FloatOp::Div: f64 ? asm_.divsd(a, b) : asm_.divss(a, b); break;
  }
  from_xmm(asm_, dst, a, f64);
}

void MacroAssembler::float_sqrt(bool f64, Reg dst) {
  to_xmm(asm_, x86::xmm0, dst, f64);
  if (f64)
    asm_.sqrtsd(x86::xmm0, x86::xmm0);
  else
    asm_.sqrtss(x86::xmm0, x86::xmm0);
  from_xmm(asm_, dst, x86::xmm0, f64);
}

void MacroAssembler::float_compare(FloatCond cond, bool f64, Reg a, Reg b) {
  // cmpss/cmpsd predicates: 0 EQ (false if unordered), 1 LT, 2 LE (false if
  // unordered), 4 NEQ (true if unordered). Gt/Ge swap the operands, so every
  // comparison is one instruction and NaN needs no parity-flag fix-up.
  FReg x = 0, y = 1;  // xmm0, xmm1
  uint8_t predicate = 0;
  switch (cond) {
    case FloatCond::Eq: predicate = 0; break;
    case FloatCond::Ne: predicate = 4; break;
    case FloatCond::Lt: predicate = 1; break;
    case FloatCond::Le: predicate = 2; break;
    case FloatCond::Gt: predicate = 1; std::swap(x, y); break;
    case FloatCond::Ge: predicate = 2; std::swap(x, y); break;
  }
  uint8_t* p = reserve();
  if (!p) return;
  p = put_to_xmm(p, 0, a, f64);
  p = put_to_xmm(p, 1, b, f64);
  commit(p);
  if (!(p = reserve())) return;
  p = put_sse_rr(p, f64 ? 0xF2 : 0xF3, false, 0xC2, x, y);  // cmpsd / cmpss x, y, predicate
  *p++ = predicate;
  // The mask is all ones or all zeros; its low bit is the i32 result.
  p = put_from_xmm(p, a, x, false);  // movd a, x
  p = put_rr(p, false, 0x83, a, kGroup1And);  // and a, 1
  *p++ = 1;
  commit(p);
}

bool MacroAssembler::can_round_floats() {
  static const bool has = asmjit::CpuInfo::host().hasFeature(asmjit::CpuFeatures::X86::kSSE4_1);
  return has;
}

void MacroAssembler::float_round(RoundMode mode, bool f64, Reg dst) {
  to_xmm(asm_, x86::xmm0, dst, f64);
  // Bit 3 suppresses the precision exception; roundss/sd quieten a signalling
  // NaN as Wasm requires (the same instruction runtime/numeric.h uses).
  Imm imm(uint32_t(mode) | 8u);
  if (f64)
    asm_.roundsd(x86::xmm0, x86::xmm0, imm);
  else
    asm_.roundss(x86::xmm0, x86::xmm0, imm);
  from_xmm(asm_, dst, x86::xmm0, f64);
}

void MacroAssembler::float_abs(bool f64, Reg dst) {
  if (f64)
    asm_.btr(q(dst), Imm(63));
  else
    asm_.and_(d(dst), Imm(0x7FFFFFFF));
}

void MacroAssembler::float_neg(bool f64, Reg dst) {
  if (f64)
    asm_.btc(q(dst), Imm(63));
  else
    asm_.xor_(d(dst), Imm(int32_t(0x80000000u)));
}

void MacroAssembler::float_copysign(bool f64, Reg dst, Reg src) {
  if (f64) {
    asm_.btr(q(dst), Imm(63));
    asm_.shr(q(src), Imm(63));
    asm_.shl(q(src), Imm(63));
    asm_.or_(q(dst), q(src));
  } else {
    asm_.and_(d(dst), Imm(0x7FFFFFFF));
    asm_.and_(d(src), Imm(int32_t(0x80000000u)));
    asm_.or_(d(dst), d(src));
  }
}

void MacroAssembler::float_promote(Reg dst) {
  if (uint8_t* p = reserve()) {
    p = put_to_xmm(p, 0, dst, false);               // movd xmm0, dst
    p = put_sse_rr(p, 0xF3, false, 0x5A, 0, 0);     // cvtss2sd xmm0, xmm0
    commit(put_from_xmm(p, dst, 0, true));          // movq dst, xmm0
  }
}

void MacroAssembler::float_demote(Reg dst) {
  if (uint8_t* p = reserve()) {
    p = put_to_xmm(p, 0, dst, true);                // movq xmm0, dst
    p = put_sse_rr(p, 0xF2, false, 0x5A, 0, 0);     // cvtsd2ss xmm0, xmm0
    commit(put_from_xmm(p, dst, 0, false));         // movd dst, xmm0
  }
}


void MacroAssembler::compare(bool wide, Reg a, Reg b) {
  WEFT_ROOM_OR_GROW(compare, wide, a, b);
  commit(put_rr(p, wide, 0x39, a, b));
}
void MacroAssembler::compare_imm(bool wide, Reg a, int32_t imm) {
  WEFT_ROOM_OR_GROW(compare_imm, wide, a, imm);
  commit(put_group1_imm(p, wide, kGroup1Cmp, a, imm));
}
void MacroAssembler::compare_mem64(Reg a, Reg base, int32_t disp) {
  WEFT_ROOM_OR_GROW(compare_mem64, a, base, disp);
  commit(put_rm(p, true, 0x3B, a, base, disp));
}
void MacroAssembler::test_bits(bool wide, Reg a, Reg b) {
  WEFT_ROOM_OR_GROW(test_bits, wide, a, b);
  commit(put_rr(p, wide, 0x85, a, b));
}

void MacroAssembler::set_cond(Cond cond, Reg dst) { set_flag(int(cond_code(cond)), dst); }

void MacroAssembler::set_flag(int cc, Reg dst) {
  WEFT_ROOM_OR_GROW(set_flag, cc, dst);
  // setcc r8; movzx r32, r8 (a REX prefix selects spl/bpl/sil/dil over ah..bh)
  if (dst >= 4) *p++ = uint8_t(0x40 | (dst >> 3));
  *p++ = 0x0F;
  *p++ = uint8_t(0x90 | cc);
  p = put_modrm_reg(p, 0, dst);
  if (dst >= 4) *p++ = uint8_t(0x40 | ((dst >> 3) << 2) | (dst >> 3));
  *p++ = 0x0F;
  *p++ = 0xB6;
  commit(put_modrm_reg(p, dst, dst));
}

void MacroAssembler::set_zero(Reg dst, bool /*wide*/) { set_flag(int(CondCode::kZero), dst); }

void MacroAssembler::move_if(Cond cond, Reg dst, Reg src) {
  WEFT_ROOM_OR_GROW(move_if, cond, dst, src);
  {
    p = put_rex(p, true, dst, src);  // cmovcc r64, r64: REX.W 0F 40+cc /r
    *p++ = 0x0F;
    *p++ = uint8_t(0x40 | int(cond_code(cond)));
    commit(put_modrm_reg(p, dst, src));
  }
}
void MacroAssembler::move_if_zero(Reg dst, Reg src) { move_if(Cond::Eq, dst, src); }
void MacroAssembler::jump(Label target) { branch(-1, target); }
void MacroAssembler::jump_if(Cond cond, Label target) { branch(int(cond_code(cond)), target); }
void MacroAssembler::jump_if_zero(Label target) { branch(int(CondCode::kZero), target); }
void MacroAssembler::jump_if_nonzero(Label target) { branch(int(CondCode::kNotZero), target); }
void MacroAssembler::jump_if_above(Label target) { branch(int(CondCode::kUnsignedGT), target); }
void MacroAssembler::jump_if_below(Label target) { branch(int(CondCode::kUnsignedLT), target); }

void MacroAssembler::jump_table(Reg index, const Label* entries, uint32_t count) {
  // Entries are 32-bit offsets from the table start: position independent and
  // half the size of absolute addresses. The table goes after the function's
  // code (place_jump_tables), not after the jmp: the bytes there are fetched
  // and predecoded with the hot code, and table data that decodes as branches
  // left the predictor with phantom branches — a bytecode dispatch loop ran
  // 1.5× slower when its table's entries changed by a few bytes.
  uint8_t* p = reserve();
  if (!p) return;
  // lea r11, [rip + table]
  *p++ = 0x4C;
  *p++ = 0x8D;
  *p++ = 0x1D;
  deferred_tables_.push_back({uint32_t(p - asm_._bufferData), uint32_t(deferred_entries_.size()), count});
  deferred_entries_.insert(deferred_entries_.end(), entries, entries + count);
  p = put_imm32(p, 0);
  // movsxd index, dword [r11 + index * 4]
  *p++ = uint8_t(0x49 | ((index >> 3) << 2) | ((index >> 3) << 1));
  *p++ = 0x63;
  *p++ = uint8_t(((index & 7) << 3) | 4);
  *p++ = uint8_t((2 << 6) | ((index & 7) << 3) | (reg::r11 & 7));
  p = put_rr(p, true, 0x01, index, reg::r11);  // add index, r11
  p = put_rr(p, false, 0xFF, index, 4);        // jmp index: FF /4
  commit(p);
}

bool MacroAssembler::referenced(Label label) const {
  if (labels_[label.id].pending != kNoJump) return true;
  for (const Label& entry : deferred_entries_)
    if (entry.id == label.id) return labels_[label.id].offset == kUnbound;
  return false;
}

void MacroAssembler::place_jump_tables() {
  for (const DeferredTable& t : deferred_tables_) {
    uint8_t* p = reserve();
    if (!p) return;
    while ((p - asm_._bufferData) & 3) *p++ = 0xCC;  // int3 up to 4-byte alignment
    commit(p);
    const uint32_t table = uint32_t(asm_.offset());
    const int32_t rel = int32_t(table - (t.lea_field + 4));
    std::memcpy(asm_._bufferData + t.lea_field, &rel, 4);
    for (uint32_t i = t.first; i < t.first + t.count; ++i) {
      p = reserve();
      if (!p) return;
      const uint32_t field = uint32_t(p - asm_._bufferData);
      const uint32_t bound = labels_[deferred_entries_[i].id].offset;
      if (bound != kUnbound) {
        p = put_imm32(p, bound - table);
      } else {
        refer(deferred_entries_[i], field, table);
        p = put_imm32(p, 0);
      }
      commit(p);
    }
  }
  deferred_tables_.clear();
  deferred_entries_.clear();
}

void MacroAssembler::call_absolute(const void* fn) {
  move_imm(reg::r11, reinterpret_cast<uint64_t>(fn));
  if (uint8_t* p = reserve()) commit(put_rr(p, false, 0xFF, reg::r11, 2));  // call r11: FF /2
}
uint32_t MacroAssembler::call_absolute_with(Reg arg0, Reg arg0_src, Reg arg1, uint64_t arg1_value, const void* fn) {
  // At most 3 + 10 + 10 + 3 bytes in one reservation; without room for them,
  // the forms one by one, which emit the same bytes.
  uint8_t* p = asm_._bufferPtr;
  if (size_t(asm_._bufferEnd - p) < 2 * kMaxDirectBytes) [[unlikely]] {
    move(arg0, arg0_src);
    const uint32_t at = move_patchable(arg1, arg1_value);
    call_absolute(fn);
    return at;
  }
  if (arg0 != arg0_src) p = put_rr(p, true, 0x89, arg0, arg0_src);  // move's mov
  p = put_movabs(p, arg1, arg1_value);  // move_patchable's
  const uint32_t at = uint32_t(p - 8 - asm_._bufferData);
  p = put_move_imm(p, reg::r11, reinterpret_cast<uint64_t>(fn));
  commit(put_rr(p, false, 0xFF, reg::r11, 2));  // call r11
  return at;
}
void MacroAssembler::set_code_address(uint64_t address) { code_address_ = address; }
void MacroAssembler::near_branch(uint8_t opcode, const void* target) {
  WEFT_ROOM_OR_GROW(near_branch, opcode, target);
  *p++ = opcode;  // call/jmp rel32
  if (shift_ == kShiftUndecided) unshifted_near_fields_.push_back(uint32_t(p - asm_._bufferData));
  const uint64_t next = code_address_ + function_shift() + uint64_t(p - asm_._bufferData) + 4;
  commit(put_imm32(p, uint32_t(int32_t(int64_t(reinterpret_cast<uintptr_t>(target) - next)))));
}
void MacroAssembler::call_near(const void* target) { near_branch(0xE8, target); }
void MacroAssembler::jump_near(const void* target) { near_branch(0xE9, target); }

void MacroAssembler::call(Label target) {
  WEFT_ROOM_OR_GROW(call, target);
  *p++ = 0xE8;  // call rel32
  const uint32_t field = uint32_t(p - asm_._bufferData);
  const uint32_t bound = labels_[target.id].offset;
  if (bound != kUnbound) {
    commit(put_imm32(p, uint32_t(int32_t(int64_t(bound) - int64_t(field + 4)))));
    return;
  }
  // A call to a function not compiled yet: kept apart from the jumps, whose
  // list restarts at every function's end.
  calls_.push_back(PendingJump{field, field + 4, labels_[target.id].pending});
  labels_[target.id].pending = uint32_t(calls_.size() - 1) | kCallBit;
  commit(put_imm32(p, 0));
}

void MacroAssembler::call_indirect_mem(Reg base, int32_t disp) {
  WEFT_ROOM_OR_GROW(call_indirect_mem, base, disp);
  commit(put_rm(p, false, 0xFF, 2, base, disp));  // call [base + disp]: FF /2
}
void MacroAssembler::jump_indirect_mem(Reg base, int32_t disp) {
  if (uint8_t* p = reserve()) commit(put_rm(p, false, 0xFF, 4, base, disp));  // jmp [base + disp]: FF /4
}
void MacroAssembler::push(Reg r) {
  if (uint8_t* p = reserve()) {
    p = put_rex(p, false, 0, r);
    *p++ = uint8_t(0x50 + (r & 7));
    commit(p);
  }
}
void MacroAssembler::pop(Reg r) {
  if (uint8_t* p = reserve()) {
    p = put_rex(p, false, 0, r);
    *p++ = uint8_t(0x58 + (r & 7));
    commit(p);
  }
}
// One push after the return address: rsp is 16-byte aligned again at calls.
void MacroAssembler::enter_frame() { push(Registers::kFrame); }
void MacroAssembler::leave_frame() { pop(Registers::kFrame); }
void MacroAssembler::count_up_leave_and_return(Reg depth) {
  WEFT_ROOM_OR_GROW(count_up_leave_and_return, depth);
  p = put_group1_imm(p, false, group1_digit(IntOp::Add), depth, 1);  // int_op_imm's add
  p = put_rex(p, false, 0, Registers::kFrame);  // leave_frame's pop
  *p++ = uint8_t(0x58 + (Registers::kFrame & 7));
  *p++ = 0xC3;  // return_to_caller's ret
  commit(p);
}

// The return address and the pushes, padded to a multiple of 16.
namespace {
constexpr bool kHostFramePad = std::size(Registers::kHostSaved) % 2 == 0;
}
void MacroAssembler::enter_host_frame() {
  for (Reg r : Registers::kHostSaved) push(r);
  if (kHostFramePad) asm_.sub(x86::rsp, 8);
}
void MacroAssembler::leave_host_frame() {
  if (kHostFramePad) asm_.add(x86::rsp, 8);
  for (int i = int(std::size(Registers::kHostSaved)) - 1; i >= 0; --i) pop(Registers::kHostSaved[i]);
  asm_.ret();
}
void MacroAssembler::return_to_caller() {
  if (uint8_t* p = reserve()) {
    *p++ = 0xC3;  // ret
    commit(p);
  }
}
void MacroAssembler::compare_stack_pointer(Reg base, int32_t disp) { compare_mem64(reg::rsp, base, disp); }
void MacroAssembler::add_mem32_imm(Reg base, int32_t disp, int32_t delta) {
  if (delta != int32_t(int8_t(delta))) {
    asm_.add(x86::dword_ptr(q(base), disp), Imm(delta));
    return;
  }
  if (uint8_t* p = reserve()) {
    p = put_rm(p, false, 0x83, 0, base, disp);  // 83 /0 ib
    *p++ = uint8_t(delta);
    commit(p);
  }
}

void MacroAssembler::push_mem(Reg base, int32_t disp) {
  if (uint8_t* p = reserve()) commit(put_rm(p, false, 0xFF, 6, base, disp));  // FF /6
}
void MacroAssembler::pop_mem(Reg base, int32_t disp) {
  if (uint8_t* p = reserve()) commit(put_rm(p, false, 0x8F, 0, base, disp));  // 8F /0
}
void MacroAssembler::push_words(Reg base, int32_t first, int32_t second) {
  push_mem(base, first);
  push_mem(base, second);
}
void MacroAssembler::pop_words(Reg base, int32_t second, Reg first) {
  pop_mem(base, second);
  pop(first);
}
void MacroAssembler::store8_imm(Reg base, int32_t disp, uint8_t value) {
  if (uint8_t* p = reserve()) {
    p = put_rm(p, false, 0xC6, 0, base, disp);  // C6 /0 ib
    *p++ = value;
    commit(p);
  }
}
void MacroAssembler::store32_imm(Reg base, int32_t disp, uint32_t value) {
  if (uint8_t* p = reserve()) commit(put_imm32(put_rm(p, false, 0xC7, 0, base, disp), value));  // C7 /0 id
}
void MacroAssembler::load64_indexed(Reg dst, Reg base, Reg index) {
  asm_.mov(q(dst), x86::ptr(q(base), q(index), 3));
}
void MacroAssembler::add32_imm(Reg dst, Reg src, int32_t imm) {
  WEFT_ROOM_OR_GROW(add32_imm, dst, src, imm);
  commit(put_rm(p, false, 0x8D, dst, src, imm));  // lea r32, [src + imm]
}
void MacroAssembler::count_down(Reg r, Label exhausted) {
  int_op_imm(IntOp::Sub, false, r, 1);  // sub, not dec: the borrow is the carry flag
  jump_if(Cond::LtU, exhausted);        // sub + jb: one fused µop
}
void MacroAssembler::check_stack_limits(Reg depth, Reg ctx, int32_t native_limit, int32_t stack, int32_t stack_limit,
                                        Reg frame, int32_t frame_end, Reg t0, Reg t1, Label overflow) {
  // At most 54 bytes: the template's head (sub 4, jb 6, cmp rsp 8, jb 6, mov
  // 8), the lea (8) and the tail (cmp 8, ja 6); the three jumps rel32 to the
  // still unbound trap label. Otherwise — no room, or a bound label — the
  // forms one by one, which emit the same bytes (tests/jit/encoding_test.cc).
  constexpr size_t kBytes = 64;
  uint8_t* p = asm_._bufferPtr;
  if (size_t(asm_._bufferEnd - p) < kBytes || labels_[overflow.id].offset != kUnbound) [[unlikely]]
    return check_stack_limits_one_by_one(*this, depth, ctx, native_limit, stack, stack_limit, frame, frame_end, t0, t1,
                                         overflow);
  StackCheckTemplate& t = stack_check_;
  if (!t.made || t.depth != depth || t.ctx != ctx || t.t0 != t0 || t.t1 != t1 || t.native_limit != native_limit ||
      t.stack != stack || t.stack_limit != stack_limit) [[unlikely]] {
    auto jcc = [](uint8_t* q, CondCode cc) {  // jcc rel32, the field left zero
      *q++ = 0x0F;
      *q++ = uint8_t(0x80 | int(cc));
      return put_imm32(q, 0);
    };
    uint8_t* q = t.head;
    q = put_group1_imm(q, false, group1_digit(IntOp::Sub), depth, 1);  // sub depth32, 1
    q = jcc(q, CondCode::kUnsignedLT);
    t.head_fields[0] = uint8_t(q - 4 - t.head);
    q = put_rm(q, true, 0x3B, reg::rsp, ctx, native_limit);  // cmp rsp, [ctx + native_limit]
    q = jcc(q, CondCode::kUnsignedLT);
    t.head_fields[1] = uint8_t(q - 4 - t.head);
    q = put_rm(q, true, 0x8B, t1, ctx, stack);  // mov t1, [ctx + stack]
    t.head_size = uint8_t(q - t.head);
    q = put_rm(t.tail, true, 0x3B, t0, t1, stack_limit);  // cmp t0, [t1 + stack_limit]
    q = jcc(q, CondCode::kUnsignedGT);
    t.tail_field = uint8_t(q - 4 - t.tail);
    t.tail_size = uint8_t(q - t.tail);
    t.depth = depth, t.ctx = ctx, t.t0 = t0, t.t1 = t1;
    t.native_limit = native_limit, t.stack = stack, t.stack_limit = stack_limit;
    t.made = true;
  }
  const uint32_t head_at = uint32_t(p - asm_._bufferData);
  std::memcpy(p, t.head, sizeof t.head);  // whole arrays: fixed-size copies; the bytes past the size are overwritten
  refer(overflow, head_at + t.head_fields[0], head_at + t.head_fields[0] + 4);
  refer(overflow, head_at + t.head_fields[1], head_at + t.head_fields[1] + 4);
  p = put_rm(p + t.head_size, true, 0x8D, t0, frame, frame_end);  // lea t0, [frame + frame_end]
  const uint32_t tail_at = uint32_t(p - asm_._bufferData);
  std::memcpy(p, t.tail, sizeof t.tail);
  refer(overflow, tail_at + t.tail_field, tail_at + t.tail_field + 4);
  commit(p + t.tail_size);
}

void MacroAssembler::repeat(uint32_t from, uint32_t size) {
  if (size_t(asm_._bufferEnd - asm_._bufferPtr) < size_t(size) + kMaxDirectBytes) [[unlikely]] {
    asmjit::Error err = asm_.code()->growBuffer(&asm_._section->_buffer, size_t(size) + kMaxDirectBytes);
    if (err != asmjit::kErrorOk) {
      if (error_.message.empty()) error_.message = asmjit::DebugUtils::errorAsString(err);
      return;
    }
  }
  uint8_t* p = asm_._bufferPtr;
  std::memcpy(p, asm_._bufferData + from, size);  // (earlier bytes: no overlap)
  commit(p + size);
}

void MacroAssembler::compare8_mem_imm(Reg base, int32_t disp, uint8_t value) {
  if (uint8_t* p = reserve()) {
    p = put_rm(p, false, 0x80, 7, base, disp);  // 80 /7 ib
    *p++ = value;
    commit(p);
  }
}

uint32_t MacroAssembler::switch_fiber_stack(Reg save_slot, Reg dest_slot, Label resume, uint32_t delivered) {
  // Build the frame top-down with pushes: RIP = `resume`, then the registers
  // in the layout's order, the owner and the FP control words.
  static_assert(WEFT_FCTX_RIP == 0x40 && WEFT_FCTX_RBP == 0x38 && WEFT_FCTX_RBX == 0x30 && WEFT_FCTX_R15 == 0x28 &&
                    WEFT_FCTX_R14 == 0x20 && WEFT_FCTX_R13 == 0x18 && WEFT_FCTX_R12 == 0x10 &&
                    WEFT_FCTX_OWNER == 0x08 && WEFT_FCTX_MXCSR == 0 && WEFT_FCTX_X87CW == 4,
                "the push order below follows fibers/arch/layout_x86_64_sysv.h");
  if (uint8_t* p = reserve()) {
    // lea rax, [rip + resume]
    *p++ = 0x48;
    *p++ = 0x8D;
    *p++ = 0x05;
    const uint32_t field = uint32_t(p - asm_._bufferData);
    refer(resume, field, field + 4);
    commit(put_imm32(p, 0));
  }
  push(reg::rax);
  for (Reg r : {reg::rbp, reg::rbx, reg::r15, reg::r14, reg::r13, reg::r12}) push(r);
  // Owner and FP control words: copied from the target's frame. Both contexts
  // belong to this thread's fiber runtime and stop at a fiber instruction of
  // Wasm code, which cannot change FP modes, so the target's words are ours
  // (no STMXCSR/FNSTCW, no thread-pointer load); and nothing is reloaded.
  load64(reg::rcx, dest_slot, 0);
  push_mem(reg::rcx, WEFT_FCTX_OWNER);
  push_mem(reg::rcx, WEFT_FCTX_MXCSR);
  store64(save_slot, 0, reg::rsp);
  // The target: its frame, as fibers/arch's switch restores it, except the FP
  // control words (see above).
  move(reg::rsp, reg::rcx);
  store64_imm(dest_slot, 0, 0);
  load64(reg::r12, reg::rsp, WEFT_FCTX_R12);
  load64(reg::r13, reg::rsp, WEFT_FCTX_R13);
  load64(reg::r14, reg::rsp, WEFT_FCTX_R14);
  load64(reg::r15, reg::rsp, WEFT_FCTX_R15);
  load64(reg::rbx, reg::rsp, WEFT_FCTX_RBX);
  load64(reg::rbp, reg::rsp, WEFT_FCTX_RBP);
  load64(reg::rcx, reg::rsp, WEFT_FCTX_RIP);
  address_of(reg::rsp, reg::rsp, WEFT_FCTX_SIZE);
  move_imm(reg::rax, 0);
  const uint32_t delivered_at = move_patchable32(reg::rdx, delivered);
  if (uint8_t* p = reserve()) commit(put_rr(p, false, 0xFF, reg::rcx, 4));  // jmp rcx: FF /4
  return delivered_at;
}

}  // namespace weft::jit::x64

namespace weft::jit::x64 {

namespace {
constexpr FReg kF0 = Registers::kFloatScratch0, kF1 = Registers::kFloatScratch1;
constexpr Reg kScratchReg = Registers::kScratch;
}  // namespace

// ---- 128-bit vectors ---------------------------------------------------------
// SSE4.1 is the baseline (docs/simd.md); movdqu because frame slots are 8-byte aligned.
void MacroAssembler::vec_load(FReg dst, Reg base, int32_t disp) {
  asm_.movdqu(x86::xmm(dst), x86::ptr(q(base), disp));
}
void MacroAssembler::vec_store(Reg base, int32_t disp, FReg src) {
  asm_.movdqu(x86::ptr(q(base), disp), x86::xmm(src));
}

void MacroAssembler::vec_load_mem(FReg dst, Reg base, Reg index, int32_t disp) {
  asm_.movdqu(x86::xmm(dst), x86::ptr(q(base), q(index), 0, disp));
}
void MacroAssembler::vec_store_mem(Reg base, Reg index, int32_t disp, FReg src) {
  asm_.movdqu(x86::ptr(q(base), q(index), 0, disp), x86::xmm(src));
}
void MacroAssembler::vec_move(FReg dst, FReg src) { asm_.movdqa(x86::xmm(dst), x86::xmm(src)); }
void MacroAssembler::vec_from_gprs(FReg dst, Reg lo, Reg hi) {
  asm_.movq(x86::xmm(dst), q(lo));
  asm_.pinsrq(x86::xmm(dst), q(hi), 1);
}
void MacroAssembler::gpr_from_vec_hi(Reg dst, FReg src) { asm_.pextrq(q(dst), x86::xmm(src), 1); }

bool MacroAssembler::vec_binary(Opcode op, FReg dst, FReg src, bool emit) {
  const x86::Xmm a = x86::xmm(dst), b = x86::xmm(src);
  // a < b as b > a, computed into b; a != b as not (a == b).
  auto swapped = [&](auto&& compare) {
    compare(b, a);
    asm_.movdqa(a, b);
  };
  auto negated = [&](auto&& compare) {
    compare(a, b);
    asm_.pcmpeqd(b, b);
    asm_.pxor(a, b);
  };
  // a >=u b (ge) or a <=u b (!ge): a == max_u(a, b) (min_u); `negate`: the opposite.
  auto unsigned_compare = [&](bool ge, bool negate, int bits) {
    const x86::Xmm t = x86::xmm(kF0);
    asm_.movdqa(t, a);
    if (bits == 8) ge ? asm_.pmaxub(t, b) : asm_.pminub(t, b);
    if (bits == 16) ge ? asm_.pmaxuw(t, b) : asm_.pminuw(t, b);
    if (bits == 32) ge ? asm_.pmaxud(t, b) : asm_.pminud(t, b);
    if (bits == 8) asm_.pcmpeqb(a, t);
    if (bits == 16) asm_.pcmpeqw(a, t);
    if (bits == 32) asm_.pcmpeqd(a, t);
    if (negate) {
      asm_.pcmpeqd(b, b);
      asm_.pxor(a, b);
    }
  };
  switch (op) {
    case Opcode::V128And: if (!emit) return true; asm_.pand(a, b); return true;
    case Opcode::V128Or: if (!emit) return true; asm_.por(a, b); return true;
    case Opcode::V128Xor: if (!emit) return true; asm_.pxor(a, b); return true;
    case Opcode::V128Andnot: if (!emit) return true; asm_.pandn(b, a); asm_.movdqa(a, b); return true;  // pandn: ~b & a into b
    case Opcode::I8x16Add: if (!emit) return true; asm_.paddb(a, b); return true;
    case Opcode::I8x16Sub: if (!emit) return true; asm_.psubb(a, b); return true;
    case Opcode::I8x16AddSatS: if (!emit) return true; asm_.paddsb(a, b); return true;
    case Opcode::I8x16AddSatU: if (!emit) return true; asm_.paddusb(a, b); return true;
    case Opcode::I8x16SubSatS: if (!emit) return true; asm_.psubsb(a, b); return true;
    case Opcode::I8x16SubSatU: if (!emit) return true; asm_.psubusb(a, b); return true;
    case Opcode::I8x16MinS: if (!emit) return true; asm_.pminsb(a, b); return true;
    case Opcode::I8x16MinU: if (!emit) return true; asm_.pminub(a, b); return true;
    case Opcode::I8x16MaxS: if (!emit) return true; asm_.pmaxsb(a, b); return true;
    case Opcode::I8x16MaxU: if (!emit) return true; asm_.pmaxub(a, b); return true;
    case Opcode::I8x16AvgrU: if (!emit) return true; asm_.pavgb(a, b); return true;
    case Opcode::I8x16Eq: if (!emit) return true; asm_.pcmpeqb(a, b); return true;
    case Opcode::I8x16Ne: if (!emit) return true; negated([&](x86::Xmm x, x86::Xmm y) { asm_.pcmpeqb(x, y); }); return true;
    case Opcode::I8x16GtS: if (!emit) return true; asm_.pcmpgtb(a, b); return true;
    case Opcode::I8x16LtS: if (!emit) return true; swapped([&](x86::Xmm x, x86::Xmm y) { asm_.pcmpgtb(x, y); }); return true;
    case Opcode::I16x8Add: if (!emit) return true; asm_.paddw(a, b); return true;
    case Opcode::I16x8Sub: if (!emit) return true; asm_.psubw(a, b); return true;
    case Opcode::I16x8Mul: if (!emit) return true; asm_.pmullw(a, b); return true;
    case Opcode::I16x8AddSatS: if (!emit) return true; asm_.paddsw(a, b); return true;
    case Opcode::I16x8AddSatU: if (!emit) return true; asm_.paddusw(a, b); return true;
    case Opcode::I16x8SubSatS: if (!emit) return true; asm_.psubsw(a, b); return true;
    case Opcode::I16x8SubSatU: if (!emit) return true; asm_.psubusw(a, b); return true;
    case Opcode::I16x8MinS: if (!emit) return true; asm_.pminsw(a, b); return true;
    case Opcode::I16x8MinU: if (!emit) return true; asm_.pminuw(a, b); return true;
    case Opcode::I16x8MaxS: if (!emit) return true; asm_.pmaxsw(a, b); return true;
    case Opcode::I16x8MaxU: if (!emit) return true; asm_.pmaxuw(a, b); return true;
    case Opcode::I16x8AvgrU: if (!emit) return true; asm_.pavgw(a, b); return true;
    case Opcode::I16x8Eq: if (!emit) return true; asm_.pcmpeqw(a, b); return true;
    case Opcode::I16x8Ne: if (!emit) return true; negated([&](x86::Xmm x, x86::Xmm y) { asm_.pcmpeqw(x, y); }); return true;
    case Opcode::I16x8GtS: if (!emit) return true; asm_.pcmpgtw(a, b); return true;
    case Opcode::I16x8LtS: if (!emit) return true; swapped([&](x86::Xmm x, x86::Xmm y) { asm_.pcmpgtw(x, y); }); return true;
    case Opcode::I32x4Add: if (!emit) return true; asm_.paddd(a, b); return true;
    case Opcode::I32x4Sub: if (!emit) return true; asm_.psubd(a, b); return true;
    case Opcode::I32x4Mul: if (!emit) return true; asm_.pmulld(a, b); return true;
    case Opcode::I32x4MinS: if (!emit) return true; asm_.pminsd(a, b); return true;
    case Opcode::I32x4MinU: if (!emit) return true; asm_.pminud(a, b); return true;
    case Opcode::I32x4MaxS: if (!emit) return true; asm_.pmaxsd(a, b); return true;
    case Opcode::I32x4MaxU: if (!emit) return true; asm_.pmaxud(a, b); return true;
    case Opcode::I32x4Eq: if (!emit) return true; asm_.pcmpeqd(a, b); return true;
    case Opcode::I32x4Ne: if (!emit) return true; negated([&](x86::Xmm x, x86::Xmm y) { asm_.pcmpeqd(x, y); }); return true;
    case Opcode::I32x4GtS: if (!emit) return true; asm_.pcmpgtd(a, b); return true;
    case Opcode::I32x4LtS: if (!emit) return true; swapped([&](x86::Xmm x, x86::Xmm y) { asm_.pcmpgtd(x, y); }); return true;
    case Opcode::I64x2Add: if (!emit) return true; asm_.paddq(a, b); return true;
    case Opcode::I64x2Sub: if (!emit) return true; asm_.psubq(a, b); return true;
    case Opcode::I64x2Eq: if (!emit) return true; asm_.pcmpeqq(a, b); return true;
    case Opcode::I64x2Ne: if (!emit) return true; negated([&](x86::Xmm x, x86::Xmm y) { asm_.pcmpeqq(x, y); }); return true;
    // IEEE arithmetic as Wasm defines it (a NaN result may be any NaN);
    // min/max (Wasm's NaN and signed-zero rules) stay thunks.
    case Opcode::F32x4Add: if (!emit) return true; asm_.addps(a, b); return true;
    case Opcode::F32x4Sub: if (!emit) return true; asm_.subps(a, b); return true;
    case Opcode::F32x4Mul: if (!emit) return true; asm_.mulps(a, b); return true;
    case Opcode::F32x4Div: if (!emit) return true; asm_.divps(a, b); return true;
    case Opcode::F64x2Add: if (!emit) return true; asm_.addpd(a, b); return true;
    case Opcode::F64x2Sub: if (!emit) return true; asm_.subpd(a, b); return true;
    case Opcode::F64x2Mul: if (!emit) return true; asm_.mulpd(a, b); return true;
    case Opcode::F64x2Div: if (!emit) return true; asm_.divpd(a, b); return true;
    // cmpps/cmppd predicates: 0 eq, 1 lt, 2 le (false on NaN), 4 neq (true on NaN).
    case Opcode::F32x4Eq: if (!emit) return true; asm_.cmpps(a, b, 0); return true;
    case Opcode::F32x4Ne: if (!emit) return true; asm_.cmpps(a, b, 4); return true;
    case Opcode::F32x4Lt: if (!emit) return true; asm_.cmpps(a, b, 1); return true;
    case Opcode::F32x4Le: if (!emit) return true; asm_.cmpps(a, b, 2); return true;
    case Opcode::F32x4Gt: if (!emit) return true; swapped([&](x86::Xmm x, x86::Xmm y) { asm_.cmpps(x, y, 1); }); return true;
    case Opcode::F32x4Ge: if (!emit) return true; swapped([&](x86::Xmm x, x86::Xmm y) { asm_.cmpps(x, y, 2); }); return true;
    case Opcode::F64x2Eq: if (!emit) return true; asm_.cmppd(a, b, 0); return true;
    case Opcode::F64x2Ne: if (!emit) return true; asm_.cmppd(a, b, 4); return true;
    case Opcode::F64x2Lt: if (!emit) return true; asm_.cmppd(a, b, 1); return true;
    case Opcode::F64x2Le: if (!emit) return true; asm_.cmppd(a, b, 2); return true;
    case Opcode::F64x2Gt: if (!emit) return true; swapped([&](x86::Xmm x, x86::Xmm y) { asm_.cmppd(x, y, 1); }); return true;
    case Opcode::F64x2Ge: if (!emit) return true; swapped([&](x86::Xmm x, x86::Xmm y) { asm_.cmppd(x, y, 2); }); return true;
    // Unsigned and non-strict compares from min/max and equality (SSE has
    // only eq and signed gt): a >=u b iff max_u(a, b) == a; the negations
    // through an all-ones register.
    case Opcode::I8x16GeU: if (!emit) return true; unsigned_compare(true, false, 8); return true;
    case Opcode::I8x16LeU: if (!emit) return true; unsigned_compare(false, false, 8); return true;
    case Opcode::I8x16LtU: if (!emit) return true; unsigned_compare(true, true, 8); return true;
    case Opcode::I8x16GtU: if (!emit) return true; unsigned_compare(false, true, 8); return true;
    case Opcode::I16x8GeU: if (!emit) return true; unsigned_compare(true, false, 16); return true;
    case Opcode::I16x8LeU: if (!emit) return true; unsigned_compare(false, false, 16); return true;
    case Opcode::I16x8LtU: if (!emit) return true; unsigned_compare(true, true, 16); return true;
    case Opcode::I16x8GtU: if (!emit) return true; unsigned_compare(false, true, 16); return true;
    case Opcode::I32x4GeU: if (!emit) return true; unsigned_compare(true, false, 32); return true;
    case Opcode::I32x4LeU: if (!emit) return true; unsigned_compare(false, false, 32); return true;
    case Opcode::I32x4LtU: if (!emit) return true; unsigned_compare(true, true, 32); return true;
    case Opcode::I32x4GtU: if (!emit) return true; unsigned_compare(false, true, 32); return true;
    // a <=s b is not (a > b); a >=s b is not (b > a).
    case Opcode::I8x16LeS: if (!emit) return true; negated([&](x86::Xmm x, x86::Xmm y) { asm_.pcmpgtb(x, y); }); return true;
    case Opcode::I16x8LeS: if (!emit) return true; negated([&](x86::Xmm x, x86::Xmm y) { asm_.pcmpgtw(x, y); }); return true;
    case Opcode::I32x4LeS: if (!emit) return true; negated([&](x86::Xmm x, x86::Xmm y) { asm_.pcmpgtd(x, y); }); return true;
    case Opcode::I8x16GeS: if (!emit) return true; negated([&](x86::Xmm x, x86::Xmm y) { asm_.pcmpgtb(y, x); asm_.movdqa(x, y); }); return true;
    case Opcode::I16x8GeS: if (!emit) return true; negated([&](x86::Xmm x, x86::Xmm y) { asm_.pcmpgtw(y, x); asm_.movdqa(x, y); }); return true;
    case Opcode::I32x4GeS: if (!emit) return true; negated([&](x86::Xmm x, x86::Xmm y) { asm_.pcmpgtd(y, x); asm_.movdqa(x, y); }); return true;
    // Saturating narrows: exactly Wasm's (signed input, signed or unsigned saturation).
    case Opcode::I8x16NarrowI16x8S: if (!emit) return true; asm_.packsswb(a, b); return true;
    case Opcode::I8x16NarrowI16x8U: if (!emit) return true; asm_.packuswb(a, b); return true;
    case Opcode::I16x8NarrowI32x4S: if (!emit) return true; asm_.packssdw(a, b); return true;
    case Opcode::I16x8NarrowI32x4U: if (!emit) return true; asm_.packusdw(a, b); return true;
    case Opcode::I32x4DotI16x8S: if (!emit) return true; asm_.pmaddwd(a, b); return true;  // (wraps as Wasm's does)
    // pmin(a, b) = b < a ? b : a, which is minps(b, a); pmax likewise.
    case Opcode::F32x4Pmin: if (!emit) return true; swapped([&](x86::Xmm x, x86::Xmm y) { asm_.minps(x, y); }); return true;
    case Opcode::F32x4Pmax: if (!emit) return true; swapped([&](x86::Xmm x, x86::Xmm y) { asm_.maxps(x, y); }); return true;
    case Opcode::F64x2Pmin: if (!emit) return true; swapped([&](x86::Xmm x, x86::Xmm y) { asm_.minpd(x, y); }); return true;
    case Opcode::F64x2Pmax: if (!emit) return true; swapped([&](x86::Xmm x, x86::Xmm y) { asm_.maxpd(x, y); }); return true;
    // swizzle: an index >= 16 selects 0 — saturating-add 0x70 sets bit 7 there, which pshufb zeroes.
    case Opcode::I8x16Swizzle: case Opcode::I8x16RelaxedSwizzle:
      if (!emit) return true;
      vec_constant(kF0, 0x7070707070707070ull, 0x7070707070707070ull);
      asm_.paddusb(b, x86::xmm(kF0));
      asm_.pshufb(a, b);
      return true;
    // Widening multiplies: both operands widened (the high half moved down
    // first), then multiplied; 64-bit lanes through pmuldq/pmuludq, which
    // multiply the low dword of each qword.
    case Opcode::I16x8ExtmulLowI8x16S: case Opcode::I16x8ExtmulHighI8x16S:
    case Opcode::I16x8ExtmulLowI8x16U: case Opcode::I16x8ExtmulHighI8x16U:
    case Opcode::I32x4ExtmulLowI16x8S: case Opcode::I32x4ExtmulHighI16x8S:
    case Opcode::I32x4ExtmulLowI16x8U: case Opcode::I32x4ExtmulHighI16x8U: {
      if (!emit) return true;
      const bool high = op == Opcode::I16x8ExtmulHighI8x16S || op == Opcode::I16x8ExtmulHighI8x16U ||
                        op == Opcode::I32x4ExtmulHighI16x8S || op == Opcode::I32x4ExtmulHighI16x8U;
      const bool is_signed = op == Opcode::I16x8ExtmulLowI8x16S || op == Opcode::I16x8ExtmulHighI8x16S ||
                             op == Opcode::I32x4ExtmulLowI16x8S || op == Opcode::I32x4ExtmulHighI16x8S;
      const bool bytes = op == Opcode::I16x8ExtmulLowI8x16S || op == Opcode::I16x8ExtmulHighI8x16S ||
                         op == Opcode::I16x8ExtmulLowI8x16U || op == Opcode::I16x8ExtmulHighI8x16U;
      for (const x86::Xmm& x : {a, b}) {
        if (high) asm_.psrldq(x, 8);
        if (bytes) is_signed ? asm_.pmovsxbw(x, x) : asm_.pmovzxbw(x, x);
        else is_signed ? asm_.pmovsxwd(x, x) : asm_.pmovzxwd(x, x);
      }
      bytes ? asm_.pmullw(a, b) : asm_.pmulld(a, b);
      return true;
    }
    case Opcode::I64x2ExtmulLowI32x4S: case Opcode::I64x2ExtmulHighI32x4S:
    case Opcode::I64x2ExtmulLowI32x4U: case Opcode::I64x2ExtmulHighI32x4U: {
      if (!emit) return true;
      const bool high = op == Opcode::I64x2ExtmulHighI32x4S || op == Opcode::I64x2ExtmulHighI32x4U;
      const uint8_t lanes = high ? 0xFA : 0x50;  // dwords 2,2,3,3 or 0,0,1,1
      asm_.pshufd(a, a, lanes);
      asm_.pshufd(b, b, lanes);
      op == Opcode::I64x2ExtmulLowI32x4S || op == Opcode::I64x2ExtmulHighI32x4S ? asm_.pmuldq(a, b) : asm_.pmuludq(a, b);
      return true;
    }
    // a·b mod 2^64 = lo·lo + ((hi_a·lo_b + lo_a·hi_b) << 32).
    case Opcode::I64x2Mul: {
      if (!emit) return true;
      const x86::Xmm t0 = x86::xmm(kF0), t1 = x86::xmm(kF1);
      asm_.movdqa(t0, a);
      asm_.psrlq(t0, 32);
      asm_.pmuludq(t0, b);
      asm_.movdqa(t1, b);
      asm_.psrlq(t1, 32);
      asm_.pmuludq(t1, a);
      asm_.paddq(t0, t1);
      asm_.psllq(t0, 32);
      asm_.pmuludq(a, b);
      asm_.paddq(a, t0);
      return true;
    }
    // pmulhrsw rounds as Wasm does; its one overflow, 0x8000 · 0x8000, gives
    // 0x8000 (no other product can), which Wasm saturates to 0x7fff.
    case Opcode::I16x8Q15mulrSatS: case Opcode::I16x8RelaxedQ15mulrS:
      if (!emit) return true;
      asm_.pmulhrsw(a, b);
      vec_constant(kF0, 0x8000800080008000ull, 0x8000800080008000ull);
      asm_.pcmpeqw(x86::xmm(kF0), a);
      asm_.pxor(a, x86::xmm(kF0));
      return true;
    default: return false;
  }
}

// A 128-bit constant into `dst` through kScratch.
void MacroAssembler::vec_constant(FReg dst, uint64_t lo, uint64_t hi) {
  if (lo == 0 && hi == 0) {
    asm_.pxor(x86::xmm(dst), x86::xmm(dst));
    return;
  }
  move_imm(kScratchReg, lo);
  asm_.movq(x86::xmm(dst), q(kScratchReg));
  if (hi != lo) move_imm(kScratchReg, hi);
  asm_.pinsrq(x86::xmm(dst), q(kScratchReg), 1);
}

bool MacroAssembler::vec_unary(Opcode op, FReg dst, bool emit) {
  const x86::Xmm a = x86::xmm(dst), t = x86::xmm(kF0);
  // 0 - a
  auto negate = [&](auto&& subtract) {
    asm_.pxor(t, t);
    subtract(t, a);
    asm_.movdqa(a, t);
  };
  // The sign bits of the lanes (all-ones shifted): cleared (abs) or flipped (neg).
  auto sign_mask = [&](bool f64, bool keep_rest) {
    asm_.pcmpeqd(t, t);
    if (keep_rest) f64 ? asm_.psrlq(t, 1) : asm_.psrld(t, 1);
    else f64 ? asm_.psllq(t, 63) : asm_.pslld(t, 31);
  };
  switch (op) {
    case Opcode::I8x16Abs: if (!emit) return true; asm_.pabsb(a, a); return true;
    case Opcode::I16x8Abs: if (!emit) return true; asm_.pabsw(a, a); return true;
    case Opcode::I32x4Abs: if (!emit) return true; asm_.pabsd(a, a); return true;
    case Opcode::I8x16Neg: if (!emit) return true; negate([&](x86::Xmm x, x86::Xmm y) { asm_.psubb(x, y); }); return true;
    case Opcode::I16x8Neg: if (!emit) return true; negate([&](x86::Xmm x, x86::Xmm y) { asm_.psubw(x, y); }); return true;
    case Opcode::I32x4Neg: if (!emit) return true; negate([&](x86::Xmm x, x86::Xmm y) { asm_.psubd(x, y); }); return true;
    case Opcode::I64x2Neg: if (!emit) return true; negate([&](x86::Xmm x, x86::Xmm y) { asm_.psubq(x, y); }); return true;
    case Opcode::F32x4Abs: if (!emit) return true; sign_mask(false, true); asm_.andps(a, t); return true;
    case Opcode::F64x2Abs: if (!emit) return true; sign_mask(true, true); asm_.andpd(a, t); return true;
    case Opcode::F32x4Neg: if (!emit) return true; sign_mask(false, false); asm_.xorps(a, t); return true;
    case Opcode::F64x2Neg: if (!emit) return true; sign_mask(true, false); asm_.xorpd(a, t); return true;
    case Opcode::F32x4Sqrt: if (!emit) return true; asm_.sqrtps(a, a); return true;
    case Opcode::F64x2Sqrt: if (!emit) return true; asm_.sqrtpd(a, a); return true;
    // roundps/roundpd immediates: 0 nearest-even, 1 down, 2 up, 3 toward zero.
    case Opcode::F32x4Nearest: if (!emit) return true; asm_.roundps(a, a, 0); return true;
    case Opcode::F32x4Floor: if (!emit) return true; asm_.roundps(a, a, 1); return true;
    case Opcode::F32x4Ceil: if (!emit) return true; asm_.roundps(a, a, 2); return true;
    case Opcode::F32x4Trunc: if (!emit) return true; asm_.roundps(a, a, 3); return true;
    case Opcode::F64x2Nearest: if (!emit) return true; asm_.roundpd(a, a, 0); return true;
    case Opcode::F64x2Floor: if (!emit) return true; asm_.roundpd(a, a, 1); return true;
    case Opcode::F64x2Ceil: if (!emit) return true; asm_.roundpd(a, a, 2); return true;
    case Opcode::F64x2Trunc: if (!emit) return true; asm_.roundpd(a, a, 3); return true;
    // Exact conversions (every i32 is an f64; an i32 → f32 rounds as Wasm's does).
    case Opcode::F32x4ConvertI32x4S: if (!emit) return true; asm_.cvtdq2ps(a, a); return true;
    case Opcode::F64x2ConvertLowI32x4S: if (!emit) return true; asm_.cvtdq2pd(a, a); return true;
    case Opcode::F64x2PromoteLowF32x4: if (!emit) return true; asm_.cvtps2pd(a, a); return true;
    case Opcode::F32x4DemoteF64x2Zero: if (!emit) return true; asm_.cvtpd2ps(a, a); return true;  // (zeroes the upper lanes)
    // Widening the low half; the high half moved down first.
    case Opcode::I16x8ExtendLowI8x16S: if (!emit) return true; asm_.pmovsxbw(a, a); return true;
    case Opcode::I16x8ExtendLowI8x16U: if (!emit) return true; asm_.pmovzxbw(a, a); return true;
    case Opcode::I32x4ExtendLowI16x8S: if (!emit) return true; asm_.pmovsxwd(a, a); return true;
    case Opcode::I32x4ExtendLowI16x8U: if (!emit) return true; asm_.pmovzxwd(a, a); return true;
    case Opcode::I64x2ExtendLowI32x4S: if (!emit) return true; asm_.pmovsxdq(a, a); return true;
    case Opcode::I64x2ExtendLowI32x4U: if (!emit) return true; asm_.pmovzxdq(a, a); return true;
    case Opcode::I16x8ExtendHighI8x16S: if (!emit) return true; asm_.psrldq(a, 8); asm_.pmovsxbw(a, a); return true;
    case Opcode::I16x8ExtendHighI8x16U: if (!emit) return true; asm_.psrldq(a, 8); asm_.pmovzxbw(a, a); return true;
    case Opcode::I32x4ExtendHighI16x8S: if (!emit) return true; asm_.psrldq(a, 8); asm_.pmovsxwd(a, a); return true;
    case Opcode::I32x4ExtendHighI16x8U: if (!emit) return true; asm_.psrldq(a, 8); asm_.pmovzxwd(a, a); return true;
    case Opcode::I64x2ExtendHighI32x4S: if (!emit) return true; asm_.psrldq(a, 8); asm_.pmovsxdq(a, a); return true;
    case Opcode::I64x2ExtendHighI32x4U: if (!emit) return true; asm_.psrldq(a, 8); asm_.pmovzxdq(a, a); return true;
    // Pairwise widening adds: pmaddubsw (unsigned × signed bytes) and
    // pmaddwd (signed words) against ones; unsigned words biased by 0x8000
    // first, the bias (2 · 0x8000 per pair) added back.
    case Opcode::I16x8ExtaddPairwiseI8x16S:
      if (!emit) return true;
      vec_constant(kF0, 0x0101010101010101ull, 0x0101010101010101ull);
      asm_.pmaddubsw(t, a);
      asm_.movdqa(a, t);
      return true;
    case Opcode::I16x8ExtaddPairwiseI8x16U:
      if (!emit) return true;
      vec_constant(kF0, 0x0101010101010101ull, 0x0101010101010101ull);
      asm_.pmaddubsw(a, t);
      return true;
    case Opcode::I32x4ExtaddPairwiseI16x8S:
      if (!emit) return true;
      vec_constant(kF0, 0x0001000100010001ull, 0x0001000100010001ull);
      asm_.pmaddwd(a, t);
      return true;
    case Opcode::I32x4ExtaddPairwiseI16x8U:
      if (!emit) return true;
      vec_constant(kF0, 0x8000800080008000ull, 0x8000800080008000ull);
      asm_.pxor(a, t);
      vec_constant(kF0, 0x0001000100010001ull, 0x0001000100010001ull);
      asm_.pmaddwd(a, t);
      vec_constant(kF0, 0x0001000000010000ull, 0x0001000000010000ull);
      asm_.paddd(a, t);
      return true;
    // popcnt: each nibble looked up in a 16-entry table (pshufb), the two summed.
    case Opcode::I8x16Popcnt: {
      if (!emit) return true;
      const x86::Xmm u = x86::xmm(kF1);
      constexpr uint64_t kNibbleBits = 0x0302020102010100ull, kNibbleBitsHigh = 0x0403030203020201ull;
      vec_constant(kF0, 0x0F0F0F0F0F0F0F0Full, 0x0F0F0F0F0F0F0F0Full);
      asm_.movdqa(u, a);
      asm_.psrlw(u, 4);
      asm_.pand(u, t);  // the high nibbles
      asm_.pand(a, t);  // the low nibbles
      vec_constant(kF0, kNibbleBits, kNibbleBitsHigh);
      asm_.pshufb(t, u);
      vec_constant(kF1, kNibbleBits, kNibbleBitsHigh);
      asm_.pshufb(u, a);
      asm_.movdqa(a, u);
      asm_.paddb(a, t);
      return true;
    }
    // trunc_sat: NaN lanes zeroed first; cvttps2dq gives 0x80000000 for any
    // lane out of range, which for a non-negative input becomes 0x7fffffff.
    case Opcode::I32x4TruncSatF32x4S: case Opcode::I32x4RelaxedTruncF32x4S:
      if (!emit) return true;
      asm_.movaps(t, a);
      asm_.cmpps(t, t, 0);  // all ones where not NaN
      asm_.andps(a, t);
      asm_.pxor(t, a);      // sign bit clear where the input was negative (or NaN)
      asm_.cvttps2dq(a, a);
      asm_.pand(t, a);
      asm_.psrad(t, 31);    // all ones where a non-negative input overflowed
      asm_.pxor(a, t);
      return true;
    // u32 → f32 with one rounding: the high 16 bits (halved, exact) and the
    // low 16 bits (exact) converted apart, the first doubled, then added.
    case Opcode::F32x4ConvertI32x4U:
      if (!emit) return true;
      asm_.pxor(t, t);
      asm_.pblendw(t, a, 0x55);  // the low 16 bits of each lane
      asm_.psubd(a, t);          // the high 16 bits
      asm_.cvtdq2ps(t, t);
      asm_.psrld(a, 1);
      asm_.cvtdq2ps(a, a);
      asm_.addps(a, a);
      asm_.addps(a, t);
      return true;
    // u32 → f64: each lane as the low half of the double 2^52 + x, minus 2^52.
    case Opcode::F64x2ConvertLowI32x4U:
      if (!emit) return true;
      vec_constant(kF0, 0x4330000043300000ull, 0x4330000043300000ull);
      asm_.unpcklps(a, t);
      vec_constant(kF0, 0x4330000000000000ull, 0x4330000000000000ull);
      asm_.subpd(a, t);
      return true;
    default: return false;
  }
}

bool MacroAssembler::vec_shift(Opcode op, FReg dst, Reg count, bool emit) {
  const x86::Xmm a = x86::xmm(dst), c = x86::xmm(kF0);
  int bits = 0;
  switch (op) {
    case Opcode::I16x8Shl: case Opcode::I16x8ShrS: case Opcode::I16x8ShrU: bits = 16; break;
    case Opcode::I32x4Shl: case Opcode::I32x4ShrS: case Opcode::I32x4ShrU: bits = 32; break;
    case Opcode::I64x2Shl: case Opcode::I64x2ShrU: bits = 64; break;  // (no arithmetic 64-bit shift in SSE)
    default: return false;
  }
  if (!emit) return true;
  // Wasm shifts by the count modulo the lane width; SSE by the whole count.
  asm_.and_(x86::gpd(count), bits - 1);
  asm_.movd(c, x86::gpd(count));
  switch (op) {
    case Opcode::I16x8Shl: asm_.psllw(a, c); break;
    case Opcode::I16x8ShrS: asm_.psraw(a, c); break;
    case Opcode::I16x8ShrU: asm_.psrlw(a, c); break;
    case Opcode::I32x4Shl: asm_.pslld(a, c); break;
    case Opcode::I32x4ShrS: asm_.psrad(a, c); break;
    case Opcode::I32x4ShrU: asm_.psrld(a, c); break;
    case Opcode::I64x2Shl: asm_.psllq(a, c); break;
    default: asm_.psrlq(a, c); break;
  }
  return true;
}

bool MacroAssembler::vec_test(Opcode op, Reg dst, FReg src, bool emit) {
  const x86::Xmm a = x86::xmm(src), t = x86::xmm(kF0);
  const x86::Gp r = x86::gpd(dst);
  // all_true: no lane equal to zero.
  auto all_true = [&](auto&& compare_eq) {
    asm_.pxor(t, t);
    compare_eq(t, a);
    asm_.pmovmskb(r, t);
    asm_.test(r, r);
    asm_.sete(x86::gpb(dst));
    asm_.movzx(r, x86::gpb(dst));
  };
  switch (op) {
    case Opcode::I8x16Bitmask: if (!emit) return true; asm_.pmovmskb(r, a); return true;
    case Opcode::I16x8Bitmask: if (!emit) return true; asm_.packsswb(a, a); asm_.pmovmskb(r, a); asm_.movzx(r, x86::gpb(dst)); return true;
    case Opcode::I32x4Bitmask: if (!emit) return true; asm_.movmskps(r, a); return true;
    case Opcode::I64x2Bitmask: if (!emit) return true; asm_.movmskpd(r, a); return true;
    case Opcode::I8x16AllTrue: if (!emit) return true; all_true([&](x86::Xmm x, x86::Xmm y) { asm_.pcmpeqb(x, y); }); return true;
    case Opcode::I16x8AllTrue: if (!emit) return true; all_true([&](x86::Xmm x, x86::Xmm y) { asm_.pcmpeqw(x, y); }); return true;
    case Opcode::I32x4AllTrue: if (!emit) return true; all_true([&](x86::Xmm x, x86::Xmm y) { asm_.pcmpeqd(x, y); }); return true;
    case Opcode::I64x2AllTrue: if (!emit) return true; all_true([&](x86::Xmm x, x86::Xmm y) { asm_.pcmpeqq(x, y); }); return true;
    default: return false;
  }
}

bool MacroAssembler::vec_load_extend(Opcode op, FReg dst, Reg base, Reg index, int32_t disp, bool emit) {
  const x86::Xmm a = x86::xmm(dst);
  const x86::Mem m = x86::qword_ptr(q(base), q(index), 0, disp);
  switch (op) {
    case Opcode::V128Load8x8S: if (!emit) return true; asm_.pmovsxbw(a, m); return true;
    case Opcode::V128Load8x8U: if (!emit) return true; asm_.pmovzxbw(a, m); return true;
    case Opcode::V128Load16x4S: if (!emit) return true; asm_.pmovsxwd(a, m); return true;
    case Opcode::V128Load16x4U: if (!emit) return true; asm_.pmovzxwd(a, m); return true;
    case Opcode::V128Load32x2S: if (!emit) return true; asm_.pmovsxdq(a, m); return true;
    case Opcode::V128Load32x2U: if (!emit) return true; asm_.pmovzxdq(a, m); return true;
    default: return false;
  }
}

void MacroAssembler::vec_shuffle(FReg dst, FReg src, const uint8_t* lanes) {
  // pshufb takes lane i from index lanes[i] of one register, or 0 where bit 7
  // of the index is set: the lanes of each operand, then or'ed.
  const ShuffleTables tables = split_shuffle_lanes(lanes, 0x80);
  const x86::Xmm a = x86::xmm(dst), b = x86::xmm(src), t = x86::xmm(kF0);
  if (tables.uses_b) {
    vec_constant(kF0, tables.from_b[0], tables.from_b[1]);
    asm_.pshufb(b, t);
  }
  if (tables.uses_a) {
    vec_constant(kF0, tables.from_a[0], tables.from_a[1]);
    asm_.pshufb(a, t);
  }
  if (tables.uses_a && tables.uses_b) asm_.por(a, b);
  else if (tables.uses_b) asm_.movdqa(a, b);
}

void MacroAssembler::vec_bitselect(FReg dst, FReg other, FReg mask) {
  // ((dst ^ other) & mask) ^ other: dst where the mask is set, other elsewhere.
  const x86::Xmm a = x86::xmm(dst), b = x86::xmm(other), m = x86::xmm(mask);
  asm_.pxor(a, b);
  asm_.pand(a, m);
  asm_.pxor(a, b);
}

}  // namespace weft::jit::x64
