// x86-64 expansions of the macro-assembler operations (asmjit x86::Assembler).
#include "jit/x64/macro_assembler.h"

#include <utility>

namespace weft::jit::x64 {

namespace {
using namespace asmjit;
using asmjit::x86::CondCode;

x86::Gp q(Reg r) { return x86::gpq(r); }
x86::Gp d(Reg r) { return x86::gpd(r); }
x86::Gp gp(Reg r, bool wide) { return wide ? q(r) : d(r); }
x86::Mem slot(Reg base, int32_t disp) { return x86::qword_ptr(q(base), disp); }

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
}  // namespace

Cond negate(Cond c) {
  switch (c) {
    case Cond::Eq: return Cond::Ne;
    case Cond::Ne: return Cond::Eq;
    case Cond::LtS: return Cond::GeS;
    case Cond::LtU: return Cond::GeU;
    case Cond::GtS: return Cond::LeS;
    case Cond::GtU: return Cond::LeU;
    case Cond::LeS: return Cond::GtS;
    case Cond::LeU: return Cond::GtU;
    case Cond::GeS: return Cond::LtS;
    case Cond::GeU: return Cond::LtU;
  }
  return c;
}

MacroAssembler::MacroAssembler(CodeHolder& code) : asm_(&code) { asm_.setErrorHandler(&error_); }

void MacroAssembler::move(Reg dst, Reg src) {
  if (dst != src) asm_.mov(q(dst), q(src));
}

void MacroAssembler::move_imm(Reg dst, uint64_t value) {
  if (value == 0)
    asm_.xor_(d(dst), d(dst));
  else if (value <= 0xFFFFFFFFu)
    asm_.mov(d(dst), Imm(uint32_t(value)));  // zero-extends
  else if (int64_t(value) == int64_t(int32_t(value)))
    asm_.mov(q(dst), Imm(int32_t(value)));  // sign-extended imm32
  else
    asm_.movabs(q(dst), Imm(value));
}

void MacroAssembler::load64(Reg dst, Reg base, int32_t disp) { asm_.mov(q(dst), slot(base, disp)); }
void MacroAssembler::load32(Reg dst, Reg base, int32_t disp) { asm_.mov(d(dst), x86::dword_ptr(q(base), disp)); }
void MacroAssembler::store64(Reg base, int32_t disp, Reg src) { asm_.mov(slot(base, disp), q(src)); }
void MacroAssembler::store32(Reg base, int32_t disp, Reg src) { asm_.mov(x86::dword_ptr(q(base), disp), d(src)); }
void MacroAssembler::store64_imm(Reg base, int32_t disp, int32_t value) { asm_.mov(slot(base, disp), Imm(value)); }
void MacroAssembler::zero_extend32(Reg dst, Reg src) { asm_.mov(d(dst), d(src)); }

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

void MacroAssembler::lea(Reg dst, Reg base, int32_t disp) { asm_.lea(q(dst), x86::ptr(q(base), disp)); }
void MacroAssembler::lea_index(Reg dst, Reg base, Reg index, int32_t disp) {
  asm_.lea(q(dst), x86::ptr(q(base), q(index), 0, disp));
}

void MacroAssembler::load_mem(MemWidth width, Reg dst, Reg base, Reg index, int32_t disp) {
  x86::Mem m = x86::ptr(q(base), q(index), 0, disp);
  switch (width) {
    case MemWidth::U8: m.setSize(1); asm_.movzx(d(dst), m); break;
    case MemWidth::S8: m.setSize(1); asm_.movsx(q(dst), m); break;
    case MemWidth::U16: m.setSize(2); asm_.movzx(d(dst), m); break;
    case MemWidth::S16: m.setSize(2); asm_.movsx(q(dst), m); break;
    case MemWidth::U32: m.setSize(4); asm_.mov(d(dst), m); break;
    case MemWidth::S32: m.setSize(4); asm_.movsxd(q(dst), m); break;
    case MemWidth::U64: m.setSize(8); asm_.mov(q(dst), m); break;
  }
}

void MacroAssembler::store_mem(MemWidth width, Reg base, Reg index, int32_t disp, Reg src) {
  x86::Mem m = x86::ptr(q(base), q(index), 0, disp);
  switch (width) {
    case MemWidth::U8: case MemWidth::S8: m.setSize(1); asm_.mov(m, x86::gpb_lo(src)); break;
    case MemWidth::U16: case MemWidth::S16: m.setSize(2); asm_.mov(m, x86::gpw(src)); break;
    case MemWidth::U32: case MemWidth::S32: m.setSize(4); asm_.mov(m, d(src)); break;
    case MemWidth::U64: m.setSize(8); asm_.mov(m, q(src)); break;
  }
}

void MacroAssembler::int_op(IntOp op, bool wide, Reg dst, Reg src) {
  x86::Gp a = gp(dst, wide), b = gp(src, wide);
  switch (op) {
    case IntOp::Add: asm_.add(a, b); break;
    case IntOp::Sub: asm_.sub(a, b); break;
    case IntOp::Mul: asm_.imul(a, b); break;
    case IntOp::And: asm_.and_(a, b); break;
    case IntOp::Or: asm_.or_(a, b); break;
    case IntOp::Xor: asm_.xor_(a, b); break;
  }
}

void MacroAssembler::int_op_imm(IntOp op, bool wide, Reg dst, int32_t imm) {
  x86::Gp a = gp(dst, wide);
  switch (op) {
    case IntOp::Add: asm_.add(a, Imm(imm)); break;
    case IntOp::Sub: asm_.sub(a, Imm(imm)); break;
    case IntOp::Mul: asm_.imul(a, a, Imm(imm)); break;
    case IntOp::And: asm_.and_(a, Imm(imm)); break;
    case IntOp::Or: asm_.or_(a, Imm(imm)); break;
    case IntOp::Xor: asm_.xor_(a, Imm(imm)); break;
  }
}

void MacroAssembler::shift_cl(ShiftOp op, bool wide, Reg dst) {
  x86::Gp a = gp(dst, wide);
  switch (op) {
    case ShiftOp::Shl: asm_.shl(a, x86::cl); break;
    case ShiftOp::ShrS: asm_.sar(a, x86::cl); break;
    case ShiftOp::ShrU: asm_.shr(a, x86::cl); break;
    case ShiftOp::Rotl: asm_.rol(a, x86::cl); break;
    case ShiftOp::Rotr: asm_.ror(a, x86::cl); break;
  }
}

void MacroAssembler::shift_imm(ShiftOp op, bool wide, Reg dst, uint8_t count) {
  x86::Gp a = gp(dst, wide);
  switch (op) {
    case ShiftOp::Shl: asm_.shl(a, Imm(count)); break;
    case ShiftOp::ShrS: asm_.sar(a, Imm(count)); break;
    case ShiftOp::ShrU: asm_.shr(a, Imm(count)); break;
    case ShiftOp::Rotl: asm_.rol(a, Imm(count)); break;
    case ShiftOp::Rotr: asm_.ror(a, Imm(count)); break;
  }
}

void MacroAssembler::divide(bool is_signed, bool wide, Reg divisor) {
  x86::Gp hi = gp(reg::rdx, wide), lo = gp(reg::rax, wide);
  if (is_signed) {
    if (wide)
      asm_.cqo(hi, lo);
    else
      asm_.cdq(hi, lo);
    asm_.idiv(hi, lo, gp(divisor, wide));
  } else {
    asm_.xor_(d(reg::rdx), d(reg::rdx));
    asm_.div(hi, lo, gp(divisor, wide));
  }
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
  to_xmm(asm_, x86::xmm0, a, f64);
  to_xmm(asm_, x86::xmm1, b, f64);
  // cmpss/cmpsd predicates: 0 EQ (false if unordered), 1 LT, 2 LE (false if
  // unordered), 4 NEQ (true if unordered). Gt/Ge swap the operands, so every
  // comparison is one instruction and NaN needs no parity-flag fix-up.
  x86::Xmm x = x86::xmm0, y = x86::xmm1;
  uint32_t predicate = 0;
  switch (cond) {
    case FloatCond::Eq: predicate = 0; break;
    case FloatCond::Ne: predicate = 4; break;
    case FloatCond::Lt: predicate = 1; break;
    case FloatCond::Le: predicate = 2; break;
    case FloatCond::Gt: predicate = 1; std::swap(x, y); break;
    case FloatCond::Ge: predicate = 2; std::swap(x, y); break;
  }
  if (f64)
    asm_.cmpsd(x, y, Imm(predicate));
  else
    asm_.cmpss(x, y, Imm(predicate));
  // The mask is all ones or all zeros; its low bit is the i32 result.
  asm_.movd(d(a), x);
  asm_.and_(d(a), Imm(1));
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
  asm_.movd(x86::xmm0, d(dst));
  asm_.cvtss2sd(x86::xmm0, x86::xmm0);
  asm_.movq(q(dst), x86::xmm0);
}

void MacroAssembler::float_demote(Reg dst) {
  asm_.movq(x86::xmm0, q(dst));
  asm_.cvtsd2ss(x86::xmm0, x86::xmm0);
  asm_.movd(d(dst), x86::xmm0);
}

void MacroAssembler::float_convert_s(bool f64, bool wide, Reg dst) {
  // cvtsi2ss/sd merge into xmm0's upper bits: clear it first so the result
  // does not wait on xmm0's last writer.
  asm_.xorps(x86::xmm0, x86::xmm0);
  if (f64)
    asm_.cvtsi2sd(x86::xmm0, gp(dst, wide));
  else
    asm_.cvtsi2ss(x86::xmm0, gp(dst, wide));
  from_xmm(asm_, dst, x86::xmm0, f64);
}

void MacroAssembler::cmp(bool wide, Reg a, Reg b) { asm_.cmp(gp(a, wide), gp(b, wide)); }
void MacroAssembler::cmp_imm(bool wide, Reg a, int32_t imm) { asm_.cmp(gp(a, wide), Imm(imm)); }
void MacroAssembler::cmp_mem64(Reg a, Reg base, int32_t disp) { asm_.cmp(q(a), slot(base, disp)); }
void MacroAssembler::test(bool wide, Reg a, Reg b) { asm_.test(gp(a, wide), gp(b, wide)); }

void MacroAssembler::set_cond(Cond cond, Reg dst) {
  asm_.set(cond_code(cond), x86::gpb_lo(dst));
  asm_.movzx(d(dst), x86::gpb_lo(dst));
}

void MacroAssembler::set_zero(Reg dst, bool /*wide*/) {
  asm_.set(CondCode::kZero, x86::gpb_lo(dst));
  asm_.movzx(d(dst), x86::gpb_lo(dst));
}

void MacroAssembler::cmove_if(Cond cond, Reg dst, Reg src) { asm_.cmov(cond_code(cond), q(dst), q(src)); }
void MacroAssembler::cmov_zero(Reg dst, Reg src) { asm_.cmov(CondCode::kZero, q(dst), q(src)); }
void MacroAssembler::jump(Label target) { asm_.jmp(target); }
void MacroAssembler::jump_if(Cond cond, Label target) { asm_.j(cond_code(cond), target); }
void MacroAssembler::jump_if_zero(Label target) { asm_.j(CondCode::kZero, target); }
void MacroAssembler::jump_if_nonzero(Label target) { asm_.j(CondCode::kNotZero, target); }
void MacroAssembler::jump_if_above(Label target) { asm_.j(CondCode::kUnsignedGT, target); }
void MacroAssembler::jump_if_below(Label target) { asm_.j(CondCode::kUnsignedLT, target); }

void MacroAssembler::jump_table(Reg index, const Label* entries, uint32_t count) {
  // Entries are 32-bit offsets from the table start: position independent and
  // half the size of absolute addresses.
  Label table = asm_.newLabel();
  asm_.lea(x86::r11, x86::ptr(table));
  asm_.movsxd(q(index), x86::dword_ptr(x86::r11, q(index), 2));
  asm_.add(q(index), x86::r11);
  asm_.jmp(q(index));
  asm_.align(AlignMode::kData, 4);
  asm_.bind(table);
  for (uint32_t i = 0; i < count; ++i) asm_.embedLabelDelta(entries[i], table, 4);
}

void MacroAssembler::call_absolute(const void* fn) {
  asm_.mov(x86::r11, Imm(reinterpret_cast<uint64_t>(fn)));
  asm_.call(x86::r11);
}
void MacroAssembler::call_indirect_mem(Reg base, int32_t disp) { asm_.call(slot(base, disp)); }
void MacroAssembler::push(Reg r) { asm_.push(q(r)); }
void MacroAssembler::pop(Reg r) { asm_.pop(q(r)); }
void MacroAssembler::ret() { asm_.ret(); }
void MacroAssembler::cmp_rsp_mem(Reg base, int32_t disp) { asm_.cmp(x86::rsp, slot(base, disp)); }
void MacroAssembler::inc_mem32(Reg base, int32_t disp, int32_t delta) {
  asm_.add(x86::dword_ptr(q(base), disp), Imm(delta));
}

}  // namespace weft::jit::x64
