// AArch64 expansions of the macro-assembler operations (asmjit asmjit::a64::Assembler).
#include "jit/a64/macro_assembler.h"

#include "fibers/arch/layout_arm64_aapcs.h"

#include <cstring>
#include <iterator>

namespace weft::jit::a64 {

namespace {
using namespace asmjit;
using asmjit::a64::CondCode;

constexpr Reg kTmp = Registers::kAsmScratch;    // x17
constexpr Reg kTmp2 = Registers::kAsmScratch2;  // x15
constexpr FReg kF0 = Registers::kFloatScratch0, kF1 = Registers::kFloatScratch1;

arm::GpX x(Reg r) { return arm::x(r); }
arm::GpW w(Reg r) { return arm::w(r); }
arm::Gp gp(Reg r, bool wide) { return wide ? arm::Gp(arm::x(r)) : arm::Gp(arm::w(r)); }
arm::Vec fv(FReg f, bool f64) { return f64 ? arm::Vec(arm::d(f)) : arm::Vec(arm::s(f)); }

CondCode cond_code(Cond c) {
  switch (c) {
    case Cond::Eq: return CondCode::kEQ;
    case Cond::Ne: return CondCode::kNE;
    case Cond::LtS: return CondCode::kLT;
    case Cond::LtU: return CondCode::kLO;
    case Cond::GtS: return CondCode::kGT;
    case Cond::GtU: return CondCode::kHI;
    case Cond::LeS: return CondCode::kLE;
    case Cond::LeU: return CondCode::kLS;
    case Cond::GeS: return CondCode::kGE;
    case Cond::GeU: return CondCode::kHS;
  }
  return CondCode::kEQ;
}
}  // namespace

MacroAssembler::MacroAssembler(CodeHolder& code) : asm_(&code) { asm_.setErrorHandler(&error_); }

void MacroAssembler::bind(Label l) {
  asm_.bind(labels_[l.id]);
  state_[l.id] |= kBound;
}

void MacroAssembler::bind_at(Label l, uint32_t offset) {
  // What BaseAssembler::bind does at the current offset: resolves the links.
  const asmjit::Error err = asm_.code()->bindLabel(labels_[l.id], asm_.code()->textSection()->id(), offset);
  if (err != asmjit::kErrorOk && error_.message.empty()) error_.message = asmjit::DebugUtils::errorAsString(err);
  state_[l.id] |= kBound;
}

void MacroAssembler::bind_unbound(uint32_t first) {
  for (uint32_t id = first; id < labels_.size(); ++id)
    if (!(state_[id] & kBound)) bind(Label{id});
}

// ---- operands ----------------------------------------------------------------

asmjit::a64::Mem MacroAssembler::mem(Reg base, int32_t disp, uint32_t size, bool* unscaled) {
  *unscaled = false;
  if (disp >= 0 && disp % int32_t(size) == 0 && disp / int32_t(size) < 4096) return asmjit::a64::ptr(x(base), disp);
  if (disp >= -256 && disp < 256) {
    *unscaled = true;
    return asmjit::a64::ptr(x(base), disp);
  }
  move_imm(kTmp2, uint64_t(int64_t(disp)));
  asm_.add(x(kTmp2), x(base), x(kTmp2));
  return asmjit::a64::ptr(x(kTmp2));
}

void MacroAssembler::load(Reg dst, Reg base, int32_t disp, uint32_t size, bool sign_extend_to_64) {
  bool u = false;
  const asmjit::a64::Mem m = mem(base, disp, size, &u);
  switch (size) {
    case 1:
      if (sign_extend_to_64)
        u ? asm_.ldursb(x(dst), m) : asm_.ldrsb(x(dst), m);
      else
        u ? asm_.ldurb(w(dst), m) : asm_.ldrb(w(dst), m);
      break;
    case 2:
      if (sign_extend_to_64)
        u ? asm_.ldursh(x(dst), m) : asm_.ldrsh(x(dst), m);
      else
        u ? asm_.ldurh(w(dst), m) : asm_.ldrh(w(dst), m);
      break;
    case 4:
      if (sign_extend_to_64)
        u ? asm_.ldursw(x(dst), m) : asm_.ldrsw(x(dst), m);
      else
        u ? asm_.ldur(w(dst), m) : asm_.ldr(w(dst), m);
      break;
    default: u ? asm_.ldur(x(dst), m) : asm_.ldr(x(dst), m); break;
  }
}

void MacroAssembler::store(Reg base, int32_t disp, Reg src, uint32_t size) {
  bool u = false;
  const asmjit::a64::Mem m = mem(base, disp, size, &u);
  switch (size) {
    case 1: u ? asm_.sturb(w(src), m) : asm_.strb(w(src), m); break;
    case 2: u ? asm_.sturh(w(src), m) : asm_.strh(w(src), m); break;
    case 4: u ? asm_.stur(w(src), m) : asm_.str(w(src), m); break;
    default: u ? asm_.stur(x(src), m) : asm_.str(x(src), m); break;
  }
}

// dst = src + value: one add/sub with a 12-bit (optionally shifted) immediate
// when it fits, else through kTmp (so src must not be kTmp then).
void MacroAssembler::add_imm(bool wide, Reg dst, Reg src, int64_t value) {
  const uint64_t magnitude = value < 0 ? uint64_t(-value) : uint64_t(value);
  const arm::Gp d = gp(dst, wide), s = gp(src, wide);
  if (magnitude < 4096) {
    value < 0 ? asm_.sub(d, s, Imm(magnitude)) : asm_.add(d, s, Imm(magnitude));
  } else if ((magnitude & 0xFFF) == 0 && magnitude < (uint64_t(1) << 24)) {
    value < 0 ? asm_.sub(d, s, Imm(magnitude >> 12), Imm(12)) : asm_.add(d, s, Imm(magnitude >> 12), Imm(12));
  } else {
    move_imm(kTmp, uint64_t(value));
    asm_.add(d, s, gp(kTmp, wide));
  }
}

// ---- data movement -------------------------------------------------------------

void MacroAssembler::move(Reg dst, Reg src) {
  if (dst != src) asm_.mov(x(dst), x(src));
}

void MacroAssembler::move_imm(Reg dst, uint64_t value) {
  // movz + movk per non-zero 16-bit chunk, or movn + movk per chunk that is
  // not 0xFFFF when that takes fewer; a value below 2^32 uses the 32-bit form
  // (zero-extending).
  const bool wide = value > 0xFFFFFFFFu;
  const int chunks = wide ? 4 : 2;
  int zeros = 0, ones = 0;
  for (int i = 0; i < chunks; ++i) {
    const uint16_t c = uint16_t(value >> (16 * i));
    zeros += c == 0;
    ones += c == 0xFFFF;
  }
  const arm::Gp d = gp(dst, wide);
  const bool inverted = ones > zeros;
  bool first = true;
  for (int i = 0; i < chunks; ++i) {
    const uint16_t c = uint16_t(value >> (16 * i));
    if (c == (inverted ? 0xFFFF : 0)) continue;
    if (first) {
      inverted ? asm_.movn(d, Imm(uint16_t(~c)), Imm(16 * i)) : asm_.movz(d, Imm(c), Imm(16 * i));
      first = false;
    } else {
      asm_.movk(d, Imm(c), Imm(16 * i));
    }
  }
  if (first) inverted ? asm_.movn(d, Imm(0)) : asm_.movz(d, Imm(0));  // all chunks 0 (or all 0xFFFF)
}

uint32_t MacroAssembler::move_patchable(Reg dst, uint64_t value) {
  // movz + three movk, whatever the chunks: patch_constant rewrites their imm16 fields.
  const uint32_t at = uint32_t(asm_.offset());
  const arm::Gp d = gp(dst, true);
  asm_.movz(d, Imm(uint16_t(value)), Imm(0));
  for (int i = 1; i < 4; ++i) asm_.movk(d, Imm(uint16_t(value >> (16 * i))), Imm(16 * i));
  return at;
}

namespace {
// The imm16 fields (bits 5-20) of `count` movz/movk at `at`, from `value`'s chunks.
void patch_imm16_chunks(uint8_t* code, uint32_t at, uint64_t value, int count) {
  for (int i = 0; i < count; ++i) {
    uint32_t insn;
    std::memcpy(&insn, code + at + 4 * i, 4);
    insn = (insn & ~(0xFFFFu << 5)) | (uint32_t(uint16_t(value >> (16 * i))) << 5);
    std::memcpy(code + at + 4 * i, &insn, 4);
  }
}
}  // namespace

void MacroAssembler::patch_constant(uint8_t* code, uint32_t at, uint64_t value) {
  patch_imm16_chunks(code, at, value, 4);
}

// The 32-bit forms: movz + movk of the w register (zero-extending), then the
// compare or store through it; patch_constant32 rewrites the two imm16 fields.
uint32_t MacroAssembler::move_patchable32(Reg dst, uint32_t value) {
  const uint32_t at = uint32_t(asm_.offset());
  const arm::Gp d = gp(dst, false);
  asm_.movz(d, Imm(uint16_t(value)), Imm(0));
  asm_.movk(d, Imm(uint16_t(value >> 16)), Imm(16));
  return at;
}
uint32_t MacroAssembler::compare_patchable32(Reg a, uint32_t value) {
  const uint32_t at = move_patchable32(kTmp, value);
  asm_.cmp(x(a), x(kTmp));
  return at;
}
uint32_t MacroAssembler::store64_patchable32(Reg base, int32_t disp, uint32_t value) {
  const uint32_t at = move_patchable32(kTmp, value);
  store(base, disp, kTmp, 8);
  return at;
}
void MacroAssembler::patch_constant32(uint8_t* code, uint32_t at, uint32_t value) {
  patch_imm16_chunks(code, at, value, 2);
}
uint32_t MacroAssembler::load64_patchable(Reg dst, Reg scratch, uint64_t address) {
  const uint32_t at = move_patchable(scratch, address);
  load64(dst, scratch, 0);
  return at;
}
uint32_t MacroAssembler::store64_patchable(Reg scratch, uint64_t address, Reg src) {
  const uint32_t at = move_patchable(scratch, address);
  store64(scratch, 0, src);
  return at;
}

void MacroAssembler::load64(Reg dst, Reg base, int32_t disp) { load(dst, base, disp, 8, false); }
void MacroAssembler::load32(Reg dst, Reg base, int32_t disp) { load(dst, base, disp, 4, false); }
void MacroAssembler::store64(Reg base, int32_t disp, Reg src) { store(base, disp, src, 8); }
void MacroAssembler::store32(Reg base, int32_t disp, Reg src) { store(base, disp, src, 4); }
void MacroAssembler::store64_run(Reg base, int32_t first_disp, uint32_t count, Reg src) {
  for (uint32_t i = 0; i < count; ++i) store64(base, first_disp + int32_t(8 * i), src);
}

void MacroAssembler::store64_imm(Reg base, int32_t disp, int32_t value) {
  if (value == 0) {
    bool u = false;
    const asmjit::a64::Mem m = mem(base, disp, 8, &u);
    u ? asm_.stur(asmjit::a64::xzr, m) : asm_.str(asmjit::a64::xzr, m);
    return;
  }
  move_imm(kTmp, uint64_t(int64_t(value)));
  store(base, disp, kTmp, 8);
}

void MacroAssembler::zero_extend32(Reg dst, Reg src) { asm_.mov(w(dst), w(src)); }

void MacroAssembler::sign_extend(Reg dst, Reg src, int from_bits, bool wide) {
  switch (from_bits) {
    case 8: asm_.sxtb(gp(dst, wide), w(src)); break;
    case 16: asm_.sxth(gp(dst, wide), w(src)); break;
    default: asm_.sxtw(x(dst), w(src)); break;
  }
}

void MacroAssembler::zero_extend_narrow(Reg dst, Reg src, int from_bits) {
  if (from_bits == 8)
    asm_.uxtb(w(dst), w(src));
  else
    asm_.uxth(w(dst), w(src));
}

void MacroAssembler::address_of(Reg dst, Reg base, int32_t disp) { add_imm(true, dst, base, disp); }

void MacroAssembler::address_of_index(Reg dst, Reg base, Reg index, int32_t disp) {
  asm_.add(x(dst), x(base), x(index));
  if (disp) add_imm(true, dst, dst, disp);
}

// [base + index + disp]: the register-offset form, with index + disp in kTmp2
// when disp is not 0.
void MacroAssembler::load_mem(MemWidth width, Reg dst, Reg base, Reg index, int32_t disp) {
  uint32_t size = 8;
  bool sign = false;
  switch (width) {
    case MemWidth::U8: size = 1; break;
    case MemWidth::S8: size = 1; sign = true; break;
    case MemWidth::U16: size = 2; break;
    case MemWidth::S16: size = 2; sign = true; break;
    case MemWidth::U32: size = 4; break;
    case MemWidth::S32: size = 4; sign = true; break;
    case MemWidth::U64: size = 8; break;
  }
  if (disp) add_imm(true, kTmp2, index, disp);
  const asmjit::a64::Mem m = asmjit::a64::ptr(x(base), x(disp ? kTmp2 : index));
  switch (size) {
    case 1: sign ? asm_.ldrsb(x(dst), m) : asm_.ldrb(w(dst), m); break;
    case 2: sign ? asm_.ldrsh(x(dst), m) : asm_.ldrh(w(dst), m); break;
    case 4: sign ? asm_.ldrsw(x(dst), m) : asm_.ldr(w(dst), m); break;
    default: asm_.ldr(x(dst), m); break;
  }
}

void MacroAssembler::store_mem(MemWidth width, Reg base, Reg index, int32_t disp, Reg src) {
  uint32_t size = 8;
  switch (width) {
    case MemWidth::U8: case MemWidth::S8: size = 1; break;
    case MemWidth::U16: case MemWidth::S16: size = 2; break;
    case MemWidth::U32: case MemWidth::S32: size = 4; break;
    case MemWidth::U64: size = 8; break;
  }
  if (disp) add_imm(true, kTmp2, index, disp);
  const asmjit::a64::Mem m = asmjit::a64::ptr(x(base), x(disp ? kTmp2 : index));
  switch (size) {
    case 1: asm_.strb(w(src), m); break;
    case 2: asm_.strh(w(src), m); break;
    case 4: asm_.str(w(src), m); break;
    default: asm_.str(x(src), m); break;
  }
}

// ---- integer arithmetic ----------------------------------------------------------

void MacroAssembler::int_op(IntOp op, bool wide, Reg dst, Reg src) {
  const arm::Gp d = gp(dst, wide), s = gp(src, wide);
  switch (op) {
    case IntOp::Add: asm_.add(d, d, s); break;
    case IntOp::Sub: asm_.sub(d, d, s); break;
    case IntOp::Mul: asm_.mul(d, d, s); break;
    case IntOp::And: asm_.and_(d, d, s); break;
    case IntOp::Or: asm_.orr(d, d, s); break;
    case IntOp::Xor: asm_.eor(d, d, s); break;
  }
}

void MacroAssembler::int_op_imm(IntOp op, bool wide, Reg dst, int32_t imm) {
  // The 64-bit form takes imm sign-extended, the 32-bit form its 32 bits.
  const int64_t value = wide ? int64_t(imm) : int64_t(uint32_t(imm));
  if (op == IntOp::Add || op == IntOp::Sub) {
    const int64_t v = wide ? value : int64_t(imm);  // 32-bit: wraps the same either way
    add_imm(wide, dst, dst, op == IntOp::Add ? v : -v);
    return;
  }
  move_imm(kTmp, uint64_t(value));
  int_op(op, wide, dst, kTmp);
}

void MacroAssembler::int_op_mem(IntOp op, bool wide, Reg dst, Reg base, int32_t disp) {
  load(kTmp, base, disp, wide ? 8 : 4, false);
  int_op(op, wide, dst, kTmp);
}

void MacroAssembler::shift(ShiftOp op, bool wide, Reg dst, Reg count) {
  const arm::Gp d = gp(dst, wide), c = gp(count, wide);
  switch (op) {
    case ShiftOp::Shl: asm_.lsl(d, d, c); break;
    case ShiftOp::ShrS: asm_.asr(d, d, c); break;
    case ShiftOp::ShrU: asm_.lsr(d, d, c); break;
    case ShiftOp::Rotr: asm_.ror(d, d, c); break;
    case ShiftOp::Rotl:  // rotate right by -count (mod width)
      asm_.neg(gp(kTmp, wide), c);
      asm_.ror(d, d, gp(kTmp, wide));
      break;
  }
}

void MacroAssembler::shift_imm(ShiftOp op, bool wide, Reg dst, uint8_t count) {
  const arm::Gp d = gp(dst, wide);
  const uint32_t width = wide ? 64 : 32;
  count &= width - 1;
  switch (op) {
    case ShiftOp::Shl: asm_.lsl(d, d, Imm(count)); break;
    case ShiftOp::ShrS: asm_.asr(d, d, Imm(count)); break;
    case ShiftOp::ShrU: asm_.lsr(d, d, Imm(count)); break;
    case ShiftOp::Rotr: asm_.ror(d, d, Imm(count)); break;
    case ShiftOp::Rotl: asm_.ror(d, d, Imm((width - count) & (width - 1))); break;
  }
}

Reg MacroAssembler::divide(bool is_signed, bool wide, bool remainder, Reg dividend, Reg divisor, Label div_by_zero,
                           Label overflow, bool checked) {
  const arm::Gp a = gp(dividend, wide), b = gp(divisor, wide), t = gp(kTmp, wide);
  if (checked) asm_.cbz(b, label(div_by_zero));
  if (checked && is_signed && !remainder) {
    // INT_MIN / -1 overflows; sdiv would give INT_MIN. (INT_MIN rem -1 is 0,
    // which sdiv + msub compute as they are.)
    Label normal = new_label();
    asm_.cmn(b, Imm(1));
    asm_.b(CondCode::kNE, label(normal));
    move_imm(kTmp, wide ? 0x8000000000000000ull : 0x80000000ull);
    asm_.cmp(a, t);
    asm_.b(CondCode::kEQ, label(overflow));
    bind(normal);
  }
  if (!remainder) {
    is_signed ? asm_.sdiv(a, a, b) : asm_.udiv(a, a, b);
  } else {
    is_signed ? asm_.sdiv(t, a, b) : asm_.udiv(t, a, b);
    asm_.msub(a, t, b, a);  // a - (a / b) * b
  }
  return dividend;
}

// ---- floats in float registers ---------------------------------------------------

void MacroAssembler::fp_move(FReg dst, FReg src) {
  if (dst != src) asm_.fmov(arm::d(dst), arm::d(src));
}
void MacroAssembler::fp_from_gpr(FReg dst, Reg src) { asm_.fmov(arm::d(dst), x(src)); }
void MacroAssembler::gpr_from_fp(Reg dst, FReg src) { asm_.fmov(x(dst), arm::d(src)); }

void MacroAssembler::fp_load(FReg dst, Reg base, int32_t disp) {
  bool u = false;
  const asmjit::a64::Mem m = mem(base, disp, 8, &u);
  if (u) {
    add_imm(true, kTmp2, base, disp);
    asm_.ldr(arm::d(dst), asmjit::a64::ptr(x(kTmp2)));
  } else {
    asm_.ldr(arm::d(dst), m);
  }
}

void MacroAssembler::fp_store(Reg base, int32_t disp, FReg src) {
  bool u = false;
  const asmjit::a64::Mem m = mem(base, disp, 8, &u);
  if (u) {
    add_imm(true, kTmp2, base, disp);
    asm_.str(arm::d(src), asmjit::a64::ptr(x(kTmp2)));
  } else {
    asm_.str(arm::d(src), m);
  }
}

// An f32 operation writes the S register, which clears the rest of the
// vector register: f32 values stay zero-extended in both register files.
void MacroAssembler::fp_op(FloatOp op, bool f64, FReg dst, FReg src) {
  const arm::Vec a = fv(dst, f64), b = fv(src, f64);
  // Hardware IEEE results are Wasm's bit for bit except a NaN's payload,
  // which AArch64 (default-NaN mode off, as Linux leaves FPCR) takes from a
  // NaN operand, quietened: Wasm's arithmetic-NaN rule.
  switch (op) {
    case FloatOp::Add: asm_.fadd(a, a, b); break;
    case FloatOp::Sub: asm_.fsub(a, a, b); break;
    case FloatOp::Mul: asm_.fmul(a, a, b); break;
    case FloatOp::Div: asm_.fdiv(a, a, b); break;
  }
}

void MacroAssembler::fp_load_mem(bool f64, FReg dst, Reg base, Reg index, int32_t disp) {
  if (disp) add_imm(true, kTmp2, index, disp);
  const asmjit::a64::Mem m = asmjit::a64::ptr(x(base), x(disp ? kTmp2 : index));
  asm_.ldr(fv(dst, f64), m);  // an S load clears the rest of the register
}

void MacroAssembler::fp_store_mem(bool f64, Reg base, Reg index, int32_t disp, FReg src) {
  if (disp) add_imm(true, kTmp2, index, disp);
  const asmjit::a64::Mem m = asmjit::a64::ptr(x(base), x(disp ? kTmp2 : index));
  asm_.str(fv(src, f64), m);
}

void MacroAssembler::fp_branch(FloatCond cond, bool f64, FReg a, FReg b, bool when_true, Label target) {
  // After fcmp an unordered pair sets C and V (N and Z clear): MI, LS, GT and
  // GE are false on it, and their negations PL, HI, LE and LT true.
  asm_.fcmp(fv(a, f64), fv(b, f64));
  CondCode cc = CondCode::kEQ;
  switch (cond) {
    case FloatCond::Eq: cc = when_true ? CondCode::kEQ : CondCode::kNE; break;
    case FloatCond::Ne: cc = when_true ? CondCode::kNE : CondCode::kEQ; break;
    case FloatCond::Lt: cc = when_true ? CondCode::kMI : CondCode::kPL; break;
    case FloatCond::Le: cc = when_true ? CondCode::kLS : CondCode::kHI; break;
    case FloatCond::Gt: cc = when_true ? CondCode::kGT : CondCode::kLE; break;
    case FloatCond::Ge: cc = when_true ? CondCode::kGE : CondCode::kLT; break;
  }
  asm_.b(cc, label(target));
}

void MacroAssembler::fp_sqrt(bool f64, FReg dst) {
  const arm::Vec a = fv(dst, f64);
  asm_.fsqrt(a, a);
}

void MacroAssembler::fp_convert_s(bool f64, bool wide, FReg dst, Reg src) {
  asm_.scvtf(fv(dst, f64), gp(src, wide));  // a scalar write clears the upper bits
}

// ---- floats as bit patterns in general registers ------------------------------------

namespace {
// fmov between register files: the 32-bit form for f32 (the W write
// zero-extends).
void to_fp(asmjit::a64::Assembler& a, FReg f, Reg r, bool f64) {
  f64 ? a.fmov(arm::d(f), arm::x(r)) : a.fmov(arm::s(f), arm::w(r));
}
void from_fp(asmjit::a64::Assembler& a, Reg r, FReg f, bool f64) {
  f64 ? a.fmov(arm::x(r), arm::d(f)) : a.fmov(arm::w(r), arm::s(f));
}
}  // namespace

void MacroAssembler::float_op(FloatOp op, bool f64, Reg dst, Reg src) {
  to_fp(asm_, kF0, dst, f64);
  to_fp(asm_, kF1, src, f64);
  fp_op(op, f64, kF0, kF1);
  from_fp(asm_, dst, kF0, f64);
}

void MacroAssembler::float_sqrt(bool f64, Reg dst) {
  to_fp(asm_, kF0, dst, f64);
  fp_sqrt(f64, kF0);
  from_fp(asm_, dst, kF0, f64);
}

void MacroAssembler::float_compare(FloatCond cond, bool f64, Reg a, Reg b) {
  to_fp(asm_, kF0, a, f64);
  to_fp(asm_, kF1, b, f64);
  asm_.fcmp(fv(kF0, f64), fv(kF1, f64));
  // After fcmp, unordered sets C and V: MI (less), LS (less or equal), GT
  // and GE are false on it, NE true — exactly Wasm's results.
  CondCode cc = CondCode::kEQ;
  switch (cond) {
    case FloatCond::Eq: cc = CondCode::kEQ; break;
    case FloatCond::Ne: cc = CondCode::kNE; break;
    case FloatCond::Lt: cc = CondCode::kMI; break;
    case FloatCond::Le: cc = CondCode::kLS; break;
    case FloatCond::Gt: cc = CondCode::kGT; break;
    case FloatCond::Ge: cc = CondCode::kGE; break;
  }
  asm_.cset(w(a), Imm(uint32_t(cc)));
}

void MacroAssembler::float_round(RoundMode mode, bool f64, Reg dst) {
  to_fp(asm_, kF0, dst, f64);
  const arm::Vec v = fv(kF0, f64);
  // frint* quieten a signalling NaN, as Wasm requires.
  switch (mode) {
    case RoundMode::Nearest: asm_.frintn(v, v); break;
    case RoundMode::Floor: asm_.frintm(v, v); break;
    case RoundMode::Ceil: asm_.frintp(v, v); break;
    case RoundMode::Trunc: asm_.frintz(v, v); break;
  }
  from_fp(asm_, dst, kF0, f64);
}

void MacroAssembler::float_abs(bool f64, Reg dst) {
  if (f64)
    asm_.and_(x(dst), x(dst), Imm(0x7FFFFFFFFFFFFFFFull));
  else
    asm_.and_(w(dst), w(dst), Imm(0x7FFFFFFFu));
}

void MacroAssembler::float_neg(bool f64, Reg dst) {
  if (f64)
    asm_.eor(x(dst), x(dst), Imm(0x8000000000000000ull));
  else
    asm_.eor(w(dst), w(dst), Imm(0x80000000u));
}

void MacroAssembler::float_copysign(bool f64, Reg dst, Reg src) {
  if (f64) {
    asm_.and_(x(dst), x(dst), Imm(0x7FFFFFFFFFFFFFFFull));
    asm_.and_(x(src), x(src), Imm(0x8000000000000000ull));
    asm_.orr(x(dst), x(dst), x(src));
  } else {
    asm_.and_(w(dst), w(dst), Imm(0x7FFFFFFFu));
    asm_.and_(w(src), w(src), Imm(0x80000000u));
    asm_.orr(w(dst), w(dst), w(src));
  }
}

void MacroAssembler::float_promote(Reg dst) {
  asm_.fmov(arm::s(kF0), w(dst));
  asm_.fcvt(arm::d(kF0), arm::s(kF0));
  asm_.fmov(x(dst), arm::d(kF0));
}

void MacroAssembler::float_demote(Reg dst) {
  asm_.fmov(arm::d(kF0), x(dst));
  asm_.fcvt(arm::s(kF0), arm::d(kF0));
  asm_.fmov(w(dst), arm::s(kF0));
}


// ---- comparisons and branches ----------------------------------------------------

void MacroAssembler::compare(bool wide, Reg a, Reg b) { asm_.cmp(gp(a, wide), gp(b, wide)); }

void MacroAssembler::compare_imm(bool wide, Reg a, int32_t imm) {
  const arm::Gp r = gp(a, wide);
  if (imm >= 0 && imm < 4096) {
    asm_.cmp(r, Imm(imm));
  } else if (imm < 0 && imm > -4096) {
    asm_.cmn(r, Imm(-imm));
  } else {
    move_imm(kTmp, wide ? uint64_t(int64_t(imm)) : uint64_t(uint32_t(imm)));
    asm_.cmp(r, gp(kTmp, wide));
  }
}

void MacroAssembler::compare_mem64(Reg a, Reg base, int32_t disp) {
  load(kTmp, base, disp, 8, false);
  asm_.cmp(x(a), x(kTmp));
}

void MacroAssembler::compare_mem(bool wide, Reg a, Reg base, int32_t disp) {
  load(kTmp, base, disp, wide ? 8 : 4, false);
  asm_.cmp(gp(a, wide), gp(kTmp, wide));
}

void MacroAssembler::test_bits(bool wide, Reg a, Reg b) { asm_.tst(gp(a, wide), gp(b, wide)); }
void MacroAssembler::set_cond(Cond cond, Reg dst) { asm_.cset(w(dst), Imm(uint32_t(cond_code(cond)))); }
void MacroAssembler::set_zero(Reg dst, bool) { asm_.cset(w(dst), Imm(uint32_t(CondCode::kEQ))); }
void MacroAssembler::move_if(Cond cond, Reg dst, Reg src) {
  asm_.csel(x(dst), x(src), x(dst), Imm(uint32_t(cond_code(cond))));
}
void MacroAssembler::move_if_zero(Reg dst, Reg src) {
  asm_.csel(x(dst), x(src), x(dst), Imm(uint32_t(CondCode::kEQ)));
}
void MacroAssembler::jump(Label target) { asm_.b(label(target)); }
void MacroAssembler::jump_if(Cond cond, Label target) { asm_.b(cond_code(cond), label(target)); }
void MacroAssembler::jump_if_zero(Label target) { asm_.b(CondCode::kEQ, label(target)); }
void MacroAssembler::jump_if_nonzero(Label target) { asm_.b(CondCode::kNE, label(target)); }
void MacroAssembler::jump_if_above(Label target) { asm_.b(CondCode::kHI, label(target)); }
void MacroAssembler::jump_if_below(Label target) { asm_.b(CondCode::kLO, label(target)); }

void MacroAssembler::jump_table(Reg index, const Label* entries, uint32_t count) {
  // Entries are 32-bit offsets from the table start, as on x86-64.
  asmjit::Label table = asm_.newLabel();
  asm_.adr(x(kTmp), table);
  asm_.ldrsw(x(index), asmjit::a64::ptr(x(kTmp), x(index), arm::lsl(2)));
  asm_.add(x(kTmp), x(kTmp), x(index));
  asm_.br(x(kTmp));
  asm_.align(AlignMode::kData, 4);
  asm_.bind(table);
  for (uint32_t i = 0; i < count; ++i) asm_.embedLabelDelta(label(entries[i]), table, 4);
}

// The tables stay right after their `br`: `adr` reaches only ±1 MiB, less
// than a large function, and no effect of their placement was measured here.
void MacroAssembler::place_jump_tables() {}

// ---- calls, frames -----------------------------------------------------------------

void MacroAssembler::call_absolute(const void* fn) {
  move_imm(kTmp, reinterpret_cast<uint64_t>(fn));
  asm_.blr(x(kTmp));
}
uint32_t MacroAssembler::call_absolute_with(Reg arg0, Reg arg0_src, Reg arg1, uint64_t arg1_value, const void* fn) {
  move(arg0, arg0_src);
  const uint32_t at = move_patchable(arg1, arg1_value);
  call_absolute(fn);
  return at;
}
void MacroAssembler::count_up_leave_and_return(Reg depth) {
  int_op_imm(IntOp::Add, false, depth, 1);
  leave_frame();
  return_to_caller();
}

void MacroAssembler::call(Label target) { asm_.bl(label(target)); }

void MacroAssembler::set_code_address(uint64_t address) { code_address_ = address; }
void MacroAssembler::near_branch(uint32_t opcode, const void* target) {
  const int64_t distance = int64_t(reinterpret_cast<uintptr_t>(target) - (code_address_ + asm_.offset()));
  const uint32_t word = opcode | (uint32_t(distance >> 2) & 0x03FFFFFFu);  // b/bl imm26, in words
  asm_.embed(&word, sizeof word);
}
void MacroAssembler::call_near(const void* target) { near_branch(0x94000000u, target); }
void MacroAssembler::jump_near(const void* target) { near_branch(0x14000000u, target); }

void MacroAssembler::call_indirect_mem(Reg base, int32_t disp) {
  load(kTmp, base, disp, 8, false);
  asm_.blr(x(kTmp));
}

void MacroAssembler::jump_indirect_mem(Reg base, int32_t disp) {
  load(kTmp, base, disp, 8, false);
  asm_.br(x(kTmp));
}

// The frame record (x29, x30) first, then kFrame above it (16 bytes with a
// free word: the stack pointer stays aligned); x29 points at the record, so
// debuggers and profilers can walk the stack.
void MacroAssembler::enter_frame() {
  asm_.stp(x(reg::fp), x(reg::lr), asmjit::a64::ptr_pre(asmjit::a64::sp, -32));
  asm_.mov(x(reg::fp), asmjit::a64::sp);
  asm_.str(x(Registers::kFrame), asmjit::a64::ptr(asmjit::a64::sp, 16));
}

void MacroAssembler::leave_frame() {
  asm_.ldr(x(Registers::kFrame), asmjit::a64::ptr(asmjit::a64::sp, 16));
  asm_.ldp(x(reg::fp), x(reg::lr), asmjit::a64::ptr_post(asmjit::a64::sp, 32));
}

// The frame record, then kHostSaved in pairs above it.
namespace {
constexpr int32_t kHostFrameSize = int32_t(16 + std::size(Registers::kHostSaved) * 8);
}
void MacroAssembler::enter_host_frame() {
  const auto sp = asmjit::a64::sp;
  asm_.stp(x(reg::fp), x(reg::lr), asmjit::a64::ptr_pre(sp, -kHostFrameSize));
  asm_.mov(x(reg::fp), sp);
  for (size_t i = 0; i < std::size(Registers::kHostSaved); i += 2)
    asm_.stp(x(Registers::kHostSaved[i]), x(Registers::kHostSaved[i + 1]), asmjit::a64::ptr(sp, int32_t(16 + i * 8)));
}
void MacroAssembler::leave_host_frame() {
  const auto sp = asmjit::a64::sp;
  for (size_t i = 0; i < std::size(Registers::kHostSaved); i += 2)
    asm_.ldp(x(Registers::kHostSaved[i]), x(Registers::kHostSaved[i + 1]), asmjit::a64::ptr(sp, int32_t(16 + i * 8)));
  asm_.ldp(x(reg::fp), x(reg::lr), asmjit::a64::ptr_post(sp, kHostFrameSize));
  asm_.ret(x(reg::lr));
}

void MacroAssembler::return_to_caller() { asm_.ret(x(reg::lr)); }

void MacroAssembler::compare_stack_pointer(Reg base, int32_t disp) {
  load(kTmp, base, disp, 8, false);
  asm_.mov(x(kTmp2), asmjit::a64::sp);
  asm_.cmp(x(kTmp2), x(kTmp));
}

// One 16-byte slot (the stack pointer stays aligned): `second` at the lower
// address, as x86-64's two pushes leave it.
void MacroAssembler::push_words(Reg base, int32_t first, int32_t second) {
  load(kTmp, base, first, 8, false);
  load(kTmp2, base, second, 8, false);
  asm_.stp(x(kTmp2), x(kTmp), asmjit::a64::ptr_pre(asmjit::a64::sp, -16));
}

void MacroAssembler::pop_words(Reg base, int32_t second, Reg first) {
  asm_.ldp(x(kTmp), x(first), asmjit::a64::ptr_post(asmjit::a64::sp, 16));
  store(base, second, kTmp, 8);
}

void MacroAssembler::store8_imm(Reg base, int32_t disp, uint8_t value) {
  move_imm(kTmp, value);
  store(base, disp, kTmp, 1);
}

void MacroAssembler::store32_imm(Reg base, int32_t disp, uint32_t value) {
  move_imm(kTmp, value);
  store(base, disp, kTmp, 4);
}

void MacroAssembler::load64_indexed(Reg dst, Reg base, Reg index) {
  asm_.ldr(x(dst), asmjit::a64::ptr(x(base), x(index), arm::lsl(3)));
}

void MacroAssembler::add32_imm(Reg dst, Reg src, int32_t imm) { add_imm(false, dst, src, imm); }
void MacroAssembler::count_down(Reg r, Label exhausted) {
  asm_.subs(w(r), w(r), Imm(1));
  asm_.b(CondCode::kLO, label(exhausted));  // carry clear: the subtraction borrowed
}

void MacroAssembler::check_stack_limits(Reg depth, Reg ctx, int32_t native_limit, int32_t stack, int32_t stack_limit,
                                        Reg frame, int32_t frame_end, Reg t0, Reg t1, Label overflow) {
  check_stack_limits_one_by_one(*this, depth, ctx, native_limit, stack, stack_limit, frame, frame_end, t0, t1, overflow);
}

void MacroAssembler::repeat(uint32_t from, uint32_t size) {
  // Copied out first: asmjit may move the buffer as embed() grows it.
  uint8_t bytes[kMaxRepeatBytes];
  if (size > kMaxRepeatBytes || from + size > asm_.offset()) {
    if (error_.message.empty()) error_.message = "repeat: not bytes of this buffer";
    return;
  }
  std::memcpy(bytes, asm_.bufferData() + from, size);
  asm_.embed(bytes, size);
}

void MacroAssembler::compare8_mem_imm(Reg base, int32_t disp, uint8_t value) {
  load(kTmp, base, disp, 1, false);
  asm_.cmp(w(kTmp), Imm(value));
}

// The value in kTmp, the delta (if it does not fit an add) in kTmp2: mem()
// may use kTmp2 for the address before and after, never while it holds the delta.
void MacroAssembler::add_mem32_imm(Reg base, int32_t disp, int32_t delta) {
  load(kTmp, base, disp, 4, false);
  if (delta > -4096 && delta < 4096) {
    delta < 0 ? asm_.sub(w(kTmp), w(kTmp), Imm(-delta)) : asm_.add(w(kTmp), w(kTmp), Imm(delta));
  } else {
    move_imm(kTmp2, uint32_t(delta));
    asm_.add(w(kTmp), w(kTmp), w(kTmp2));
  }
  store(base, disp, kTmp, 4);
}

uint32_t MacroAssembler::switch_fiber_stack(Reg save_slot, Reg dest_slot, Label resume, uint32_t delivered) {
  static_assert(WEFT_FCTX_D8 == 0x00 && WEFT_FCTX_X19 == 0x40 && WEFT_FCTX_FP == 0x90 && WEFT_FCTX_LR == 0x98 &&
                    WEFT_FCTX_FPCR == 0xa0 && WEFT_FCTX_OWNER == 0xa8 && WEFT_FCTX_SIZE == 0xb0,
                "the frame below follows fibers/arch/layout_arm64_aapcs.h");
  const auto sp = asmjit::a64::sp;
  asm_.sub(sp, sp, Imm(WEFT_FCTX_SIZE));
  for (int i = 0; i < 8; i += 2)
    asm_.stp(arm::d(8 + i), arm::d(9 + i), asmjit::a64::ptr(sp, WEFT_FCTX_D8 + i * 8));
  for (int i = 0; i < 10; i += 2)
    asm_.stp(x(Reg(19 + i)), x(Reg(20 + i)), asmjit::a64::ptr(sp, WEFT_FCTX_X19 + i * 8));
  asm_.adr(x(kTmp), label(resume));
  asm_.stp(x(reg::fp), x(kTmp), asmjit::a64::ptr(sp, WEFT_FCTX_FP));  // LR slot = where this context resumes
  // FPCR and owner: copied from the target's frame (see the header).
  asm_.ldr(x(reg::x9), asmjit::a64::ptr(x(dest_slot)));
  asm_.ldp(x(reg::x10), x(reg::x11), asmjit::a64::ptr(x(reg::x9), WEFT_FCTX_FPCR));
  asm_.stp(x(reg::x10), x(reg::x11), asmjit::a64::ptr(sp, WEFT_FCTX_FPCR));
  asm_.mov(x(kTmp), sp);
  asm_.str(x(kTmp), asmjit::a64::ptr(x(save_slot)));
  // The target: its frame, as fibers/arch's switch restores it.
  asm_.mov(sp, x(reg::x9));
  asm_.str(asmjit::a64::xzr, asmjit::a64::ptr(x(dest_slot)));
  for (int i = 0; i < 8; i += 2)
    asm_.ldp(arm::d(8 + i), arm::d(9 + i), asmjit::a64::ptr(sp, WEFT_FCTX_D8 + i * 8));
  for (int i = 0; i < 10; i += 2)
    asm_.ldp(x(Reg(19 + i)), x(Reg(20 + i)), asmjit::a64::ptr(sp, WEFT_FCTX_X19 + i * 8));
  asm_.ldp(x(reg::fp), x(reg::lr), asmjit::a64::ptr(sp, WEFT_FCTX_FP));
  asm_.add(sp, sp, Imm(WEFT_FCTX_SIZE));
  move_imm(reg::x0, 0);
  const uint32_t delivered_at = move_patchable32(reg::x1, delivered);
  asm_.ret(x(reg::lr));
  return delivered_at;
}

}  // namespace weft::jit::a64

namespace weft::jit::a64 {

// ---- 128-bit vectors ---------------------------------------------------------
// A q register: ldr/str with a 16-byte-scaled offset, else ldur/stur (±256),
// else the address in kTmp2. Slots are 8-byte aligned, so most need the unscaled form.
void MacroAssembler::vec_load(FReg dst, Reg base, int32_t disp) {
  if (disp >= 0 && disp % 16 == 0 && disp / 16 < 4096) {
    asm_.ldr(arm::v(dst), asmjit::a64::ptr(x(base), disp));
  } else if (disp >= -256 && disp < 256) {
    asm_.ldur(arm::v(dst), asmjit::a64::ptr(x(base), disp));
  } else {
    add_imm(true, kTmp2, base, disp);
    asm_.ldr(arm::v(dst), asmjit::a64::ptr(x(kTmp2)));
  }
}
void MacroAssembler::vec_store(Reg base, int32_t disp, FReg src) {
  if (disp >= 0 && disp % 16 == 0 && disp / 16 < 4096) {
    asm_.str(arm::v(src), asmjit::a64::ptr(x(base), disp));
  } else if (disp >= -256 && disp < 256) {
    asm_.stur(arm::v(src), asmjit::a64::ptr(x(base), disp));
  } else {
    add_imm(true, kTmp2, base, disp);
    asm_.str(arm::v(src), asmjit::a64::ptr(x(kTmp2)));
  }
}

void MacroAssembler::vec_load_mem(FReg dst, Reg base, Reg index, int32_t disp) {
  asm_.add(x(kTmp2), x(base), x(index));  // (vec_load's long form adds in place, through kTmp)
  vec_load(dst, kTmp2, disp);
}
void MacroAssembler::vec_store_mem(Reg base, Reg index, int32_t disp, FReg src) {
  asm_.add(x(kTmp2), x(base), x(index));
  vec_store(kTmp2, disp, src);
}
void MacroAssembler::vec_constant(FReg dst, uint64_t lo, uint64_t hi) {
  move_imm(kTmp, lo);
  move_imm(kTmp2, hi);
  vec_from_gprs(dst, kTmp, kTmp2);
}
void MacroAssembler::vec_move(FReg dst, FReg src) { asm_.mov(arm::v(dst).b16(), arm::v(src).b16()); }
void MacroAssembler::vec_from_gprs(FReg dst, Reg lo, Reg hi) {
  asm_.fmov(arm::d(dst), x(lo));  // (clears the high half)
  asm_.ins(arm::v(dst).d(1), x(hi));
}
void MacroAssembler::gpr_from_vec_hi(Reg dst, FReg src) { asm_.umov(x(dst), arm::v(src).d(1)); }

bool MacroAssembler::vec_binary(Opcode op, FReg dst, FReg src, bool emit) {
  const arm::Vec a = arm::v(dst), b = arm::v(src), t = arm::v(kF0);
  switch (op) {
    case Opcode::V128And: if (!emit) return true; asm_.and_(a.b16(), a.b16(), b.b16()); return true;
    case Opcode::V128Or: if (!emit) return true; asm_.orr(a.b16(), a.b16(), b.b16()); return true;
    case Opcode::V128Xor: if (!emit) return true; asm_.eor(a.b16(), a.b16(), b.b16()); return true;
    case Opcode::V128Andnot: if (!emit) return true; asm_.bic(a.b16(), a.b16(), b.b16()); return true;
    case Opcode::I8x16Add: if (!emit) return true; asm_.add(a.b16(), a.b16(), b.b16()); return true;
    case Opcode::I8x16Sub: if (!emit) return true; asm_.sub(a.b16(), a.b16(), b.b16()); return true;
    case Opcode::I16x8Add: if (!emit) return true; asm_.add(a.h8(), a.h8(), b.h8()); return true;
    case Opcode::I16x8Sub: if (!emit) return true; asm_.sub(a.h8(), a.h8(), b.h8()); return true;
    case Opcode::I16x8Mul: if (!emit) return true; asm_.mul(a.h8(), a.h8(), b.h8()); return true;
    case Opcode::I32x4Add: if (!emit) return true; asm_.add(a.s4(), a.s4(), b.s4()); return true;
    case Opcode::I32x4Sub: if (!emit) return true; asm_.sub(a.s4(), a.s4(), b.s4()); return true;
    case Opcode::I32x4Mul: if (!emit) return true; asm_.mul(a.s4(), a.s4(), b.s4()); return true;
    case Opcode::I64x2Add: if (!emit) return true; asm_.add(a.d2(), a.d2(), b.d2()); return true;
    case Opcode::I64x2Sub: if (!emit) return true; asm_.sub(a.d2(), a.d2(), b.d2()); return true;
    case Opcode::I8x16Eq: if (!emit) return true; asm_.cmeq(a.b16(), a.b16(), b.b16()); return true;
    case Opcode::I16x8Eq: if (!emit) return true; asm_.cmeq(a.h8(), a.h8(), b.h8()); return true;
    case Opcode::I32x4Eq: if (!emit) return true; asm_.cmeq(a.s4(), a.s4(), b.s4()); return true;
    case Opcode::I8x16GtS: if (!emit) return true; asm_.cmgt(a.b16(), a.b16(), b.b16()); return true;
    case Opcode::I16x8GtS: if (!emit) return true; asm_.cmgt(a.h8(), a.h8(), b.h8()); return true;
    case Opcode::I32x4GtS: if (!emit) return true; asm_.cmgt(a.s4(), a.s4(), b.s4()); return true;
    // IEEE arithmetic as Wasm defines it (a NaN result may be any NaN).
    case Opcode::F32x4Add: if (!emit) return true; asm_.fadd(a.s4(), a.s4(), b.s4()); return true;
    case Opcode::F32x4Sub: if (!emit) return true; asm_.fsub(a.s4(), a.s4(), b.s4()); return true;
    case Opcode::F32x4Mul: if (!emit) return true; asm_.fmul(a.s4(), a.s4(), b.s4()); return true;
    case Opcode::F32x4Div: if (!emit) return true; asm_.fdiv(a.s4(), a.s4(), b.s4()); return true;
    case Opcode::F64x2Add: if (!emit) return true; asm_.fadd(a.d2(), a.d2(), b.d2()); return true;
    case Opcode::F64x2Sub: if (!emit) return true; asm_.fsub(a.d2(), a.d2(), b.d2()); return true;
    case Opcode::F64x2Mul: if (!emit) return true; asm_.fmul(a.d2(), a.d2(), b.d2()); return true;
    case Opcode::F64x2Div: if (!emit) return true; asm_.fdiv(a.d2(), a.d2(), b.d2()); return true;
    case Opcode::I8x16AddSatS: if (!emit) return true; asm_.sqadd(a.b16(), a.b16(), b.b16()); return true;
    case Opcode::I8x16AddSatU: if (!emit) return true; asm_.uqadd(a.b16(), a.b16(), b.b16()); return true;
    case Opcode::I8x16SubSatS: if (!emit) return true; asm_.sqsub(a.b16(), a.b16(), b.b16()); return true;
    case Opcode::I8x16SubSatU: if (!emit) return true; asm_.uqsub(a.b16(), a.b16(), b.b16()); return true;
    case Opcode::I16x8AddSatS: if (!emit) return true; asm_.sqadd(a.h8(), a.h8(), b.h8()); return true;
    case Opcode::I16x8AddSatU: if (!emit) return true; asm_.uqadd(a.h8(), a.h8(), b.h8()); return true;
    case Opcode::I16x8SubSatS: if (!emit) return true; asm_.sqsub(a.h8(), a.h8(), b.h8()); return true;
    case Opcode::I16x8SubSatU: if (!emit) return true; asm_.uqsub(a.h8(), a.h8(), b.h8()); return true;
    case Opcode::I8x16MinS: if (!emit) return true; asm_.smin(a.b16(), a.b16(), b.b16()); return true;
    case Opcode::I8x16MinU: if (!emit) return true; asm_.umin(a.b16(), a.b16(), b.b16()); return true;
    case Opcode::I8x16MaxS: if (!emit) return true; asm_.smax(a.b16(), a.b16(), b.b16()); return true;
    case Opcode::I8x16MaxU: if (!emit) return true; asm_.umax(a.b16(), a.b16(), b.b16()); return true;
    case Opcode::I16x8MinS: if (!emit) return true; asm_.smin(a.h8(), a.h8(), b.h8()); return true;
    case Opcode::I16x8MinU: if (!emit) return true; asm_.umin(a.h8(), a.h8(), b.h8()); return true;
    case Opcode::I16x8MaxS: if (!emit) return true; asm_.smax(a.h8(), a.h8(), b.h8()); return true;
    case Opcode::I16x8MaxU: if (!emit) return true; asm_.umax(a.h8(), a.h8(), b.h8()); return true;
    case Opcode::I32x4MinS: if (!emit) return true; asm_.smin(a.s4(), a.s4(), b.s4()); return true;
    case Opcode::I32x4MinU: if (!emit) return true; asm_.umin(a.s4(), a.s4(), b.s4()); return true;
    case Opcode::I32x4MaxS: if (!emit) return true; asm_.smax(a.s4(), a.s4(), b.s4()); return true;
    case Opcode::I32x4MaxU: if (!emit) return true; asm_.umax(a.s4(), a.s4(), b.s4()); return true;
    case Opcode::I8x16AvgrU: if (!emit) return true; asm_.urhadd(a.b16(), a.b16(), b.b16()); return true;
    case Opcode::I16x8AvgrU: if (!emit) return true; asm_.urhadd(a.h8(), a.h8(), b.h8()); return true;
    // Unsigned and signed orderings: cmhi/cmhs/cmgt/cmge, swapped for < and <=.
    case Opcode::I8x16GtU: if (!emit) return true; asm_.cmhi(a.b16(), a.b16(), b.b16()); return true;
    case Opcode::I8x16GeU: if (!emit) return true; asm_.cmhs(a.b16(), a.b16(), b.b16()); return true;
    case Opcode::I8x16LtU: if (!emit) return true; asm_.cmhi(a.b16(), b.b16(), a.b16()); return true;
    case Opcode::I8x16LeU: if (!emit) return true; asm_.cmhs(a.b16(), b.b16(), a.b16()); return true;
    case Opcode::I8x16GeS: if (!emit) return true; asm_.cmge(a.b16(), a.b16(), b.b16()); return true;
    case Opcode::I8x16LtS: if (!emit) return true; asm_.cmgt(a.b16(), b.b16(), a.b16()); return true;
    case Opcode::I8x16LeS: if (!emit) return true; asm_.cmge(a.b16(), b.b16(), a.b16()); return true;
    case Opcode::I16x8GtU: if (!emit) return true; asm_.cmhi(a.h8(), a.h8(), b.h8()); return true;
    case Opcode::I16x8GeU: if (!emit) return true; asm_.cmhs(a.h8(), a.h8(), b.h8()); return true;
    case Opcode::I16x8LtU: if (!emit) return true; asm_.cmhi(a.h8(), b.h8(), a.h8()); return true;
    case Opcode::I16x8LeU: if (!emit) return true; asm_.cmhs(a.h8(), b.h8(), a.h8()); return true;
    case Opcode::I16x8GeS: if (!emit) return true; asm_.cmge(a.h8(), a.h8(), b.h8()); return true;
    case Opcode::I16x8LtS: if (!emit) return true; asm_.cmgt(a.h8(), b.h8(), a.h8()); return true;
    case Opcode::I16x8LeS: if (!emit) return true; asm_.cmge(a.h8(), b.h8(), a.h8()); return true;
    case Opcode::I32x4GtU: if (!emit) return true; asm_.cmhi(a.s4(), a.s4(), b.s4()); return true;
    case Opcode::I32x4GeU: if (!emit) return true; asm_.cmhs(a.s4(), a.s4(), b.s4()); return true;
    case Opcode::I32x4LtU: if (!emit) return true; asm_.cmhi(a.s4(), b.s4(), a.s4()); return true;
    case Opcode::I32x4LeU: if (!emit) return true; asm_.cmhs(a.s4(), b.s4(), a.s4()); return true;
    case Opcode::I32x4GeS: if (!emit) return true; asm_.cmge(a.s4(), a.s4(), b.s4()); return true;
    case Opcode::I32x4LtS: if (!emit) return true; asm_.cmgt(a.s4(), b.s4(), a.s4()); return true;
    case Opcode::I32x4LeS: if (!emit) return true; asm_.cmge(a.s4(), b.s4(), a.s4()); return true;
    case Opcode::I64x2Eq: if (!emit) return true; asm_.cmeq(a.d2(), a.d2(), b.d2()); return true;
    case Opcode::I64x2GtS: if (!emit) return true; asm_.cmgt(a.d2(), a.d2(), b.d2()); return true;
    case Opcode::I64x2GeS: if (!emit) return true; asm_.cmge(a.d2(), a.d2(), b.d2()); return true;
    case Opcode::I64x2LtS: if (!emit) return true; asm_.cmgt(a.d2(), b.d2(), a.d2()); return true;
    case Opcode::I64x2LeS: if (!emit) return true; asm_.cmge(a.d2(), b.d2(), a.d2()); return true;
    case Opcode::F32x4Eq: if (!emit) return true; asm_.fcmeq(a.s4(), a.s4(), b.s4()); return true;
    case Opcode::F32x4Gt: if (!emit) return true; asm_.fcmgt(a.s4(), a.s4(), b.s4()); return true;
    case Opcode::F32x4Ge: if (!emit) return true; asm_.fcmge(a.s4(), a.s4(), b.s4()); return true;
    case Opcode::F32x4Lt: if (!emit) return true; asm_.fcmgt(a.s4(), b.s4(), a.s4()); return true;
    case Opcode::F32x4Le: if (!emit) return true; asm_.fcmge(a.s4(), b.s4(), a.s4()); return true;
    case Opcode::F64x2Eq: if (!emit) return true; asm_.fcmeq(a.d2(), a.d2(), b.d2()); return true;
    case Opcode::F64x2Gt: if (!emit) return true; asm_.fcmgt(a.d2(), a.d2(), b.d2()); return true;
    case Opcode::F64x2Ge: if (!emit) return true; asm_.fcmge(a.d2(), a.d2(), b.d2()); return true;
    case Opcode::F64x2Lt: if (!emit) return true; asm_.fcmgt(a.d2(), b.d2(), a.d2()); return true;
    case Opcode::F64x2Le: if (!emit) return true; asm_.fcmge(a.d2(), b.d2(), a.d2()); return true;
    // Saturating narrows: the low half from dst, the high half from src.
    case Opcode::I8x16NarrowI16x8S: if (!emit) return true; asm_.sqxtn(a.b8(), a.h8()); asm_.sqxtn2(a.b16(), b.h8()); return true;
    case Opcode::I8x16NarrowI16x8U: if (!emit) return true; asm_.sqxtun(a.b8(), a.h8()); asm_.sqxtun2(a.b16(), b.h8()); return true;
    case Opcode::I16x8NarrowI32x4S: if (!emit) return true; asm_.sqxtn(a.h4(), a.s4()); asm_.sqxtn2(a.h8(), b.s4()); return true;
    case Opcode::I16x8NarrowI32x4U: if (!emit) return true; asm_.sqxtun(a.h4(), a.s4()); asm_.sqxtun2(a.h8(), b.s4()); return true;
    // Not-equal: equality inverted (a NaN lane compares unequal).
    case Opcode::I8x16Ne: if (!emit) return true; asm_.cmeq(a.b16(), a.b16(), b.b16()); asm_.mvn(a.b16(), a.b16()); return true;
    case Opcode::I16x8Ne: if (!emit) return true; asm_.cmeq(a.h8(), a.h8(), b.h8()); asm_.mvn(a.b16(), a.b16()); return true;
    case Opcode::I32x4Ne: if (!emit) return true; asm_.cmeq(a.s4(), a.s4(), b.s4()); asm_.mvn(a.b16(), a.b16()); return true;
    case Opcode::I64x2Ne: if (!emit) return true; asm_.cmeq(a.d2(), a.d2(), b.d2()); asm_.mvn(a.b16(), a.b16()); return true;
    case Opcode::F32x4Ne: if (!emit) return true; asm_.fcmeq(a.s4(), a.s4(), b.s4()); asm_.mvn(a.b16(), a.b16()); return true;
    case Opcode::F64x2Ne: if (!emit) return true; asm_.fcmeq(a.d2(), a.d2(), b.d2()); asm_.mvn(a.b16(), a.b16()); return true;
    // tbl yields 0 for an index past the table, as swizzle wants.
    case Opcode::I8x16Swizzle: case Opcode::I8x16RelaxedSwizzle:
      if (!emit) return true;
      asm_.tbl(a.b16(), a.b16(), b.b16());
      return true;
    // pmin(a, b) = b < a ? b : a; pmax(a, b) = a < b ? b : a: b inserted where the compare holds.
    case Opcode::F32x4Pmin: if (!emit) return true; asm_.fcmgt(t.s4(), a.s4(), b.s4()); asm_.bit(a.b16(), b.b16(), t.b16()); return true;
    case Opcode::F32x4Pmax: if (!emit) return true; asm_.fcmgt(t.s4(), b.s4(), a.s4()); asm_.bit(a.b16(), b.b16(), t.b16()); return true;
    case Opcode::F64x2Pmin: if (!emit) return true; asm_.fcmgt(t.d2(), a.d2(), b.d2()); asm_.bit(a.b16(), b.b16(), t.b16()); return true;
    case Opcode::F64x2Pmax: if (!emit) return true; asm_.fcmgt(t.d2(), b.d2(), a.d2()); asm_.bit(a.b16(), b.b16(), t.b16()); return true;
    // dot: the products of the low and of the high halves, then pairwise sums (wrapping, as Wasm's).
    case Opcode::I32x4DotI16x8S:
      if (!emit) return true;
      asm_.smull(t.s4(), a.h4(), b.h4());
      asm_.smull2(a.s4(), a.h8(), b.h8());
      asm_.addp(a.s4(), t.s4(), a.s4());
      return true;
    // Widening multiplies of the low or high halves (exactly Wasm's extmul).
    case Opcode::I16x8ExtmulLowI8x16S: if (!emit) return true; asm_.smull(a.h8(), a.b8(), b.b8()); return true;
    case Opcode::I16x8ExtmulHighI8x16S: if (!emit) return true; asm_.smull2(a.h8(), a.b16(), b.b16()); return true;
    case Opcode::I16x8ExtmulLowI8x16U: if (!emit) return true; asm_.umull(a.h8(), a.b8(), b.b8()); return true;
    case Opcode::I16x8ExtmulHighI8x16U: if (!emit) return true; asm_.umull2(a.h8(), a.b16(), b.b16()); return true;
    case Opcode::I32x4ExtmulLowI16x8S: if (!emit) return true; asm_.smull(a.s4(), a.h4(), b.h4()); return true;
    case Opcode::I32x4ExtmulHighI16x8S: if (!emit) return true; asm_.smull2(a.s4(), a.h8(), b.h8()); return true;
    case Opcode::I32x4ExtmulLowI16x8U: if (!emit) return true; asm_.umull(a.s4(), a.h4(), b.h4()); return true;
    case Opcode::I32x4ExtmulHighI16x8U: if (!emit) return true; asm_.umull2(a.s4(), a.h8(), b.h8()); return true;
    case Opcode::I64x2ExtmulLowI32x4S: if (!emit) return true; asm_.smull(a.d2(), a.s2(), b.s2()); return true;
    case Opcode::I64x2ExtmulHighI32x4S: if (!emit) return true; asm_.smull2(a.d2(), a.s4(), b.s4()); return true;
    case Opcode::I64x2ExtmulLowI32x4U: if (!emit) return true; asm_.umull(a.d2(), a.s2(), b.s2()); return true;
    case Opcode::I64x2ExtmulHighI32x4U: if (!emit) return true; asm_.umull2(a.d2(), a.s4(), b.s4()); return true;
    // (2ab + 2^15) >> 16, saturating: Wasm's (ab + 2^14) >> 15 with 0x8000² → 0x7fff.
    case Opcode::I16x8Q15mulrSatS: case Opcode::I16x8RelaxedQ15mulrS:
      if (!emit) return true;
      asm_.sqrdmulh(a.h8(), a.h8(), b.h8());
      return true;
    default: return false;
  }
}

bool MacroAssembler::vec_unary(Opcode op, FReg dst, bool emit) {
  const arm::Vec a = arm::v(dst);
  switch (op) {
    case Opcode::I8x16Abs: if (!emit) return true; asm_.abs(a.b16(), a.b16()); return true;
    case Opcode::I16x8Abs: if (!emit) return true; asm_.abs(a.h8(), a.h8()); return true;
    case Opcode::I32x4Abs: if (!emit) return true; asm_.abs(a.s4(), a.s4()); return true;
    case Opcode::I64x2Abs: if (!emit) return true; asm_.abs(a.d2(), a.d2()); return true;
    case Opcode::I8x16Neg: if (!emit) return true; asm_.neg(a.b16(), a.b16()); return true;
    case Opcode::I16x8Neg: if (!emit) return true; asm_.neg(a.h8(), a.h8()); return true;
    case Opcode::I32x4Neg: if (!emit) return true; asm_.neg(a.s4(), a.s4()); return true;
    case Opcode::I64x2Neg: if (!emit) return true; asm_.neg(a.d2(), a.d2()); return true;
    case Opcode::F32x4Abs: if (!emit) return true; asm_.fabs(a.s4(), a.s4()); return true;
    case Opcode::F64x2Abs: if (!emit) return true; asm_.fabs(a.d2(), a.d2()); return true;
    case Opcode::F32x4Neg: if (!emit) return true; asm_.fneg(a.s4(), a.s4()); return true;
    case Opcode::F64x2Neg: if (!emit) return true; asm_.fneg(a.d2(), a.d2()); return true;
    case Opcode::F32x4Sqrt: if (!emit) return true; asm_.fsqrt(a.s4(), a.s4()); return true;
    case Opcode::F64x2Sqrt: if (!emit) return true; asm_.fsqrt(a.d2(), a.d2()); return true;
    case Opcode::F32x4Nearest: if (!emit) return true; asm_.frintn(a.s4(), a.s4()); return true;
    case Opcode::F32x4Floor: if (!emit) return true; asm_.frintm(a.s4(), a.s4()); return true;
    case Opcode::F32x4Ceil: if (!emit) return true; asm_.frintp(a.s4(), a.s4()); return true;
    case Opcode::F32x4Trunc: if (!emit) return true; asm_.frintz(a.s4(), a.s4()); return true;
    case Opcode::F64x2Nearest: if (!emit) return true; asm_.frintn(a.d2(), a.d2()); return true;
    case Opcode::F64x2Floor: if (!emit) return true; asm_.frintm(a.d2(), a.d2()); return true;
    case Opcode::F64x2Ceil: if (!emit) return true; asm_.frintp(a.d2(), a.d2()); return true;
    case Opcode::F64x2Trunc: if (!emit) return true; asm_.frintz(a.d2(), a.d2()); return true;
    case Opcode::F32x4ConvertI32x4S: if (!emit) return true; asm_.scvtf(a.s4(), a.s4()); return true;
    case Opcode::F64x2ConvertLowI32x4S: if (!emit) return true; asm_.sxtl(a.d2(), a.s2()); asm_.scvtf(a.d2(), a.d2()); return true;
    case Opcode::F64x2PromoteLowF32x4: if (!emit) return true; asm_.fcvtl(a.d2(), a.s2()); return true;
    case Opcode::F32x4DemoteF64x2Zero: if (!emit) return true; asm_.fcvtn(a.s2(), a.d2()); return true;  // (zeroes the upper half)
    case Opcode::I16x8ExtendLowI8x16S: if (!emit) return true; asm_.sxtl(a.h8(), a.b8()); return true;
    case Opcode::I16x8ExtendLowI8x16U: if (!emit) return true; asm_.uxtl(a.h8(), a.b8()); return true;
    case Opcode::I32x4ExtendLowI16x8S: if (!emit) return true; asm_.sxtl(a.s4(), a.h4()); return true;
    case Opcode::I32x4ExtendLowI16x8U: if (!emit) return true; asm_.uxtl(a.s4(), a.h4()); return true;
    case Opcode::I64x2ExtendLowI32x4S: if (!emit) return true; asm_.sxtl(a.d2(), a.s2()); return true;
    case Opcode::I64x2ExtendLowI32x4U: if (!emit) return true; asm_.uxtl(a.d2(), a.s2()); return true;
    case Opcode::I16x8ExtendHighI8x16S: if (!emit) return true; asm_.sxtl2(a.h8(), a.b16()); return true;
    case Opcode::I16x8ExtendHighI8x16U: if (!emit) return true; asm_.uxtl2(a.h8(), a.b16()); return true;
    case Opcode::I32x4ExtendHighI16x8S: if (!emit) return true; asm_.sxtl2(a.s4(), a.h8()); return true;
    case Opcode::I32x4ExtendHighI16x8U: if (!emit) return true; asm_.uxtl2(a.s4(), a.h8()); return true;
    case Opcode::I64x2ExtendHighI32x4S: if (!emit) return true; asm_.sxtl2(a.d2(), a.s4()); return true;
    case Opcode::I64x2ExtendHighI32x4U: if (!emit) return true; asm_.uxtl2(a.d2(), a.s4()); return true;
    case Opcode::I8x16Popcnt: if (!emit) return true; asm_.cnt(a.b16(), a.b16()); return true;
    case Opcode::I16x8ExtaddPairwiseI8x16S: if (!emit) return true; asm_.saddlp(a.h8(), a.b16()); return true;
    case Opcode::I16x8ExtaddPairwiseI8x16U: if (!emit) return true; asm_.uaddlp(a.h8(), a.b16()); return true;
    case Opcode::I32x4ExtaddPairwiseI16x8S: if (!emit) return true; asm_.saddlp(a.s4(), a.h8()); return true;
    case Opcode::I32x4ExtaddPairwiseI16x8U: if (!emit) return true; asm_.uaddlp(a.s4(), a.h8()); return true;
    // fcvtzs/fcvtzu truncate, saturate and turn NaN into 0: exactly trunc_sat
    // (and weft's relaxed_trunc, which is trunc_sat).
    case Opcode::I32x4TruncSatF32x4S: case Opcode::I32x4RelaxedTruncF32x4S:
      if (!emit) return true;
      asm_.fcvtzs(a.s4(), a.s4());
      return true;
    case Opcode::I32x4TruncSatF32x4U: case Opcode::I32x4RelaxedTruncF32x4U:
      if (!emit) return true;
      asm_.fcvtzu(a.s4(), a.s4());
      return true;
    case Opcode::I32x4TruncSatF64x2SZero: case Opcode::I32x4RelaxedTruncF64x2SZero:
      if (!emit) return true;
      asm_.fcvtzs(a.d2(), a.d2());
      asm_.sqxtn(a.s2(), a.d2());  // (zeroes the upper half)
      return true;
    case Opcode::I32x4TruncSatF64x2UZero: case Opcode::I32x4RelaxedTruncF64x2UZero:
      if (!emit) return true;
      asm_.fcvtzu(a.d2(), a.d2());
      asm_.uqxtn(a.s2(), a.d2());
      return true;
    case Opcode::F32x4ConvertI32x4U: if (!emit) return true; asm_.ucvtf(a.s4(), a.s4()); return true;
    case Opcode::F64x2ConvertLowI32x4U: if (!emit) return true; asm_.uxtl(a.d2(), a.s2()); asm_.ucvtf(a.d2(), a.d2()); return true;
    default: return false;
  }
}

bool MacroAssembler::vec_shift(Opcode op, FReg dst, Reg count, bool emit) {
  int bits = 0;
  bool right = false, arithmetic = false;
  switch (op) {
    case Opcode::I8x16Shl: bits = 8; break;
    case Opcode::I8x16ShrS: bits = 8; right = arithmetic = true; break;
    case Opcode::I8x16ShrU: bits = 8; right = true; break;
    case Opcode::I16x8Shl: bits = 16; break;
    case Opcode::I16x8ShrS: bits = 16; right = arithmetic = true; break;
    case Opcode::I16x8ShrU: bits = 16; right = true; break;
    case Opcode::I32x4Shl: bits = 32; break;
    case Opcode::I32x4ShrS: bits = 32; right = arithmetic = true; break;
    case Opcode::I32x4ShrU: bits = 32; right = true; break;
    case Opcode::I64x2Shl: bits = 64; break;
    case Opcode::I64x2ShrS: bits = 64; right = arithmetic = true; break;
    case Opcode::I64x2ShrU: bits = 64; right = true; break;
    default: return false;
  }
  if (!emit) return true;
  // ushl/sshl shift each lane by the signed count in the same lane of the
  // count vector (negative: right); Wasm's count is modulo the lane width.
  asm_.and_(w(count), w(count), Imm(bits - 1));
  if (right) asm_.neg(w(count), w(count));
  const arm::Vec a = arm::v(dst), c = arm::v(kF0);
  auto shift = [&](arm::Vec x, arm::Vec y) { arithmetic ? asm_.sshl(x, x, y) : asm_.ushl(x, x, y); };
  switch (bits) {
    case 8: asm_.dup(c.b16(), w(count)); shift(a.b16(), c.b16()); break;
    case 16: asm_.dup(c.h8(), w(count)); shift(a.h8(), c.h8()); break;
    case 32: asm_.dup(c.s4(), w(count)); shift(a.s4(), c.s4()); break;
    default: asm_.sxtw(x(count), w(count)); asm_.dup(c.d2(), x(count)); shift(a.d2(), c.d2()); break;
  }
  return true;
}

bool MacroAssembler::vec_test(Opcode op, Reg dst, FReg src, bool emit) {
  const arm::Vec a = arm::v(src);
  // all_true: the smallest lane is not zero.
  auto all_true = [&](arm::Vec lanes, arm::Vec smallest) {
    asm_.uminv(smallest, lanes);
    asm_.fmov(x(dst), arm::d(src));
    asm_.cmp(x(dst), Imm(0));
    asm_.cset(w(dst), Imm(uint32_t(CondCode::kNE)));
  };
  switch (op) {
    case Opcode::I8x16AllTrue: if (!emit) return true; all_true(a.b16(), a.b()); return true;
    case Opcode::I16x8AllTrue: if (!emit) return true; all_true(a.h8(), a.h()); return true;
    case Opcode::I32x4AllTrue: if (!emit) return true; all_true(a.s4(), a.s()); return true;
    default: return false;  // bitmasks: no single NEON instruction; the thunk
  }
}

bool MacroAssembler::vec_load_extend(Opcode op, FReg dst, Reg base, Reg index, int32_t disp, bool emit) {
  const arm::Vec a = arm::v(dst);
  switch (op) {
    case Opcode::V128Load8x8S: case Opcode::V128Load8x8U: case Opcode::V128Load16x4S:
    case Opcode::V128Load16x4U: case Opcode::V128Load32x2S: case Opcode::V128Load32x2U: break;
    default: return false;
  }
  if (!emit) return true;
  asm_.add(x(kTmp2), x(base), x(index));
  fp_load(dst, kTmp2, disp);  // the 8 bytes into the low half
  switch (op) {
    case Opcode::V128Load8x8S: asm_.sxtl(a.h8(), a.b8()); break;
    case Opcode::V128Load8x8U: asm_.uxtl(a.h8(), a.b8()); break;
    case Opcode::V128Load16x4S: asm_.sxtl(a.s4(), a.h4()); break;
    case Opcode::V128Load16x4U: asm_.uxtl(a.s4(), a.h4()); break;
    case Opcode::V128Load32x2S: asm_.sxtl(a.d2(), a.s2()); break;
    default: asm_.uxtl(a.d2(), a.s2()); break;
  }
  return true;
}

void MacroAssembler::vec_shuffle(FReg dst, FReg src, const uint8_t* lanes) {
  // tbl takes lane i from index lanes[i] of its table register, or 0 for an
  // index past it: the lanes of each operand, then or'ed.
  const ShuffleTables tables = split_shuffle_lanes(lanes, 0xFF);
  const arm::Vec a = arm::v(dst), b = arm::v(src), t = arm::v(kF0);
  vec_constant(kF0, tables.from_b[0], tables.from_b[1]);
  asm_.tbl(b.b16(), b.b16(), t.b16());
  vec_constant(kF0, tables.from_a[0], tables.from_a[1]);
  asm_.tbl(a.b16(), a.b16(), t.b16());
  asm_.orr(a.b16(), a.b16(), b.b16());
}

void MacroAssembler::vec_bitselect(FReg dst, FReg other, FReg mask) {
  // bif: the bits of `other` inserted into dst where the mask is clear.
  asm_.bif(arm::v(dst).b16(), arm::v(other).b16(), arm::v(mask).b16());
}

}  // namespace weft::jit::a64
