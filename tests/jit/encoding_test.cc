// Golden encodings: the bytes the macro-assembler emits for the instruction
// forms the compiler relies on, checked against the x86-64 manual's encodings
// (REX prefixes for r8–r15 and 64-bit operands, ModRM/SIB for frame slots and
// the [base + index + disp] memory form).
#include <algorithm>
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <vector>

#include "jit/x64/macro_assembler.h"

namespace weft::jit::x64 {
namespace {

std::vector<uint8_t> encode(const std::function<void(MacroAssembler&)>& emit) {
  asmjit::Environment env(asmjit::Arch::kX64);
  asmjit::CodeHolder code;
  code.init(env);
  MacroAssembler masm(code);
  emit(masm);
  EXPECT_EQ(masm.error(), "");
  const asmjit::CodeBuffer& buffer = code.textSection()->buffer();
  return std::vector<uint8_t>(buffer.data(), buffer.data() + buffer.size());
}

using Bytes = std::vector<uint8_t>;

TEST(JitEncoding, IntegerOperations) {
  EXPECT_EQ(encode([](auto& m) { m.int_op(IntOp::Add, false, reg::rax, reg::rcx); }), (Bytes{0x01, 0xC8}));
  EXPECT_EQ(encode([](auto& m) { m.int_op(IntOp::Add, true, reg::rax, reg::r9); }), (Bytes{0x4C, 0x01, 0xC8}));
  EXPECT_EQ(encode([](auto& m) { m.int_op(IntOp::Sub, false, reg::rdx, reg::rsi); }), (Bytes{0x29, 0xF2}));
  EXPECT_EQ(encode([](auto& m) { m.int_op(IntOp::Mul, false, reg::rax, reg::rcx); }), (Bytes{0x0F, 0xAF, 0xC1}));
  EXPECT_EQ(encode([](auto& m) { m.int_op_imm(IntOp::Add, false, reg::rax, 1); }), (Bytes{0x83, 0xC0, 0x01}));
  // The count moves to cl (nothing to move when it is there already).
  EXPECT_EQ(encode([](auto& m) { m.shift(ShiftOp::ShrS, true, reg::rax, reg::rcx); }), (Bytes{0x48, 0xD3, 0xF8}));
  EXPECT_EQ(encode([](auto& m) { m.shift(ShiftOp::Shl, false, reg::rax, reg::rsi); }),
            (Bytes{0x48, 0x89, 0xF1, 0xD3, 0xE0}));
  // Division with its checks, the traps bound at the start (backward jumps):
  // unsigned: mov rax, rsi; test rcx, rcx; jz trap; xor edx, edx; div rcx → rax.
  Reg result = 0;
  EXPECT_EQ(encode([&](auto& m) {
              auto trap = m.new_label();
              m.bind(trap);
              result = m.divide(false, true, false, reg::rsi, reg::rcx, trap, trap);
            }),
            (Bytes{0x48, 0x89, 0xF0, 0x48, 0x85, 0xC9, 0x74, 0xF8, 0x31, 0xD2, 0x48, 0xF7, 0xF1}));
  EXPECT_EQ(result, reg::rax);
  // signed remainder: test ecx, ecx; jz trap; cmp ecx, -1; jne normal;
  // xor edx, edx (INT_MIN rem -1 = 0); jmp done; normal: cdq; idiv ecx; done: → rdx.
  EXPECT_EQ(encode([&](auto& m) {
              auto trap = m.new_label();
              m.bind(trap);
              result = m.divide(true, false, true, reg::rax, reg::rcx, trap, trap);
            }),
            (Bytes{0x85, 0xC9, 0x74, 0xFC, 0x83, 0xF9, 0xFF, 0x0F, 0x85, 0x07, 0x00, 0x00, 0x00, 0x31, 0xD2, 0xE9,
                   0x03, 0x00, 0x00, 0x00, 0x99, 0xF7, 0xF9}));
  EXPECT_EQ(result, reg::rdx);
}

TEST(JitEncoding, Constants) {
  EXPECT_EQ(encode([](auto& m) { m.move_imm(reg::rax, 0); }), (Bytes{0x31, 0xC0}));
  EXPECT_EQ(encode([](auto& m) { m.move_imm(reg::rax, 0x12345678); }), (Bytes{0xB8, 0x78, 0x56, 0x34, 0x12}));
  EXPECT_EQ(encode([](auto& m) { m.move_imm(reg::rax, ~0ull); }),
            (Bytes{0x48, 0xC7, 0xC0, 0xFF, 0xFF, 0xFF, 0xFF}));
  EXPECT_EQ(encode([](auto& m) { m.move_imm(reg::rax, 0x123456789ull); }),
            (Bytes{0x48, 0xB8, 0x89, 0x67, 0x45, 0x23, 0x01, 0x00, 0x00, 0x00}));
}

TEST(JitEncoding, FrameSlots) {
  EXPECT_EQ(encode([](auto& m) { m.load64(reg::rax, reg::rbx, 16); }), (Bytes{0x48, 0x8B, 0x43, 0x10}));
  EXPECT_EQ(encode([](auto& m) { m.store64(reg::rbx, 8, reg::r15); }), (Bytes{0x4C, 0x89, 0x7B, 0x08}));
  EXPECT_EQ(encode([](auto& m) { m.store64_imm(reg::rbx, 0, -1); }),
            (Bytes{0x48, 0xC7, 0x03, 0xFF, 0xFF, 0xFF, 0xFF}));
  // r12 as a base needs a SIB byte: cmp rsp, [r12 + 8].
  EXPECT_EQ(encode([](auto& m) { m.compare_stack_pointer(reg::r12, 8); }), (Bytes{0x49, 0x3B, 0x64, 0x24, 0x08}));
}

TEST(JitEncoding, LinearMemory) {
  // movzx eax, byte [r13 + rcx + 4]
  EXPECT_EQ(encode([](auto& m) { m.load_mem(MemWidth::U8, reg::rax, reg::r13, reg::rcx, 4); }),
            (Bytes{0x41, 0x0F, 0xB6, 0x44, 0x0D, 0x04}));
  // mov [r13 + rax + 0], edx — r13 as a base always carries a displacement.
  EXPECT_EQ(encode([](auto& m) { m.store_mem(MemWidth::U32, reg::r13, reg::rax, 0, reg::rdx); }),
            (Bytes{0x41, 0x89, 0x54, 0x05, 0x00}));
  // movsxd rax, dword [r13 + rax + 0]
  EXPECT_EQ(encode([](auto& m) { m.load_mem(MemWidth::S32, reg::rax, reg::r13, reg::rax, 0); }),
            (Bytes{0x49, 0x63, 0x44, 0x05, 0x00}));
}

TEST(JitEncoding, Conditions) {
  // setl al; movzx eax, al
  EXPECT_EQ(encode([](auto& m) { m.set_cond(Cond::LtS, reg::rax); }), (Bytes{0x0F, 0x9C, 0xC0, 0x0F, 0xB6, 0xC0}));
  // setb sil; movzx esi, sil — both need a REX prefix to name sil rather than dh.
  EXPECT_EQ(encode([](auto& m) { m.set_cond(Cond::LtU, reg::rsi); }),
            (Bytes{0x40, 0x0F, 0x92, 0xC6, 0x40, 0x0F, 0xB6, 0xF6}));
  EXPECT_EQ(encode([](auto& m) { m.move_if_zero(reg::rax, reg::rcx); }), (Bytes{0x48, 0x0F, 0x44, 0xC1}));
  EXPECT_EQ(negate(Cond::LtS), Cond::GeS);
  EXPECT_EQ(negate(Cond::GtU), Cond::LeU);
}

// Floats travel GPR → xmm0/xmm1 → GPR: movq (66 REX.W 0F 6E/7E) for f64,
// movd (66 0F 6E/7E) for f32, whose 32-bit destination zero-extends.
TEST(JitEncoding, FloatArithmetic) {
  // movq xmm0, rax; movq xmm1, rcx; addsd xmm0, xmm1; movq rax, xmm0
  EXPECT_EQ(encode([](auto& m) { m.float_op(FloatOp::Add, true, reg::rax, reg::rcx); }),
            (Bytes{0x66, 0x48, 0x0F, 0x6E, 0xC0, 0x66, 0x48, 0x0F, 0x6E, 0xC9, 0xF2, 0x0F, 0x58, 0xC1,
                   0x66, 0x48, 0x0F, 0x7E, 0xC0}));
  // movd xmm0, r8d; movd xmm1, edx; mulss xmm0, xmm1; movd r8d, xmm0
  EXPECT_EQ(encode([](auto& m) { m.float_op(FloatOp::Mul, false, reg::r8, reg::rdx); }),
            (Bytes{0x66, 0x41, 0x0F, 0x6E, 0xC0, 0x66, 0x0F, 0x6E, 0xCA, 0xF3, 0x0F, 0x59, 0xC1, 0x66, 0x41,
                   0x0F, 0x7E, 0xC0}));
  // divsd xmm0, xmm1 / subss xmm0, xmm1 (middle instruction only differs)
  Bytes div = encode([](auto& m) { m.float_op(FloatOp::Div, true, reg::rax, reg::rcx); });
  EXPECT_EQ(Bytes(div.begin() + 10, div.begin() + 14), (Bytes{0xF2, 0x0F, 0x5E, 0xC1}));
  Bytes sub = encode([](auto& m) { m.float_op(FloatOp::Sub, false, reg::rax, reg::rcx); });
  EXPECT_EQ(Bytes(sub.begin() + 8, sub.begin() + 12), (Bytes{0xF3, 0x0F, 0x5C, 0xC1}));
  // movq xmm0, rax; sqrtsd xmm0, xmm0; movq rax, xmm0
  EXPECT_EQ(encode([](auto& m) { m.float_sqrt(true, reg::rax); }),
            (Bytes{0x66, 0x48, 0x0F, 0x6E, 0xC0, 0xF2, 0x0F, 0x51, 0xC0, 0x66, 0x48, 0x0F, 0x7E, 0xC0}));
  // roundsd xmm0, xmm0, 9 (floor | suppress precision exception)
  EXPECT_EQ(encode([](auto& m) { m.float_round(RoundMode::Floor, true, reg::rax); }),
            (Bytes{0x66, 0x48, 0x0F, 0x6E, 0xC0, 0x66, 0x0F, 0x3A, 0x0B, 0xC0, 0x09, 0x66, 0x48, 0x0F, 0x7E,
                   0xC0}));
}

TEST(JitEncoding, FloatComparisons) {
  // Gt swaps: cmpsd xmm1, xmm0, 1 (LT); movd eax, xmm1; and eax, 1
  EXPECT_EQ(encode([](auto& m) { m.float_compare(FloatCond::Gt, true, reg::rax, reg::rcx); }),
            (Bytes{0x66, 0x48, 0x0F, 0x6E, 0xC0, 0x66, 0x48, 0x0F, 0x6E, 0xC9, 0xF2, 0x0F, 0xC2, 0xC8, 0x01,
                   0x66, 0x0F, 0x7E, 0xC8, 0x83, 0xE0, 0x01}));
  // Ne: cmpss xmm0, xmm1, 4 (NEQ_UQ: true when unordered)
  EXPECT_EQ(encode([](auto& m) { m.float_compare(FloatCond::Ne, false, reg::rax, reg::rcx); }),
            (Bytes{0x66, 0x0F, 0x6E, 0xC0, 0x66, 0x0F, 0x6E, 0xC9, 0xF3, 0x0F, 0xC2, 0xC1, 0x04, 0x66, 0x0F,
                   0x7E, 0xC0, 0x83, 0xE0, 0x01}));
  // Eq 0 / Le 2 predicates.
  Bytes eq = encode([](auto& m) { m.float_compare(FloatCond::Eq, false, reg::rax, reg::rcx); });
  EXPECT_EQ(Bytes(eq.begin() + 8, eq.begin() + 13), (Bytes{0xF3, 0x0F, 0xC2, 0xC1, 0x00}));
  Bytes le = encode([](auto& m) { m.float_compare(FloatCond::Le, false, reg::rax, reg::rcx); });
  EXPECT_EQ(Bytes(le.begin() + 8, le.begin() + 13), (Bytes{0xF3, 0x0F, 0xC2, 0xC1, 0x02}));
}

TEST(JitEncoding, FloatSignBitsAndConversions) {
  EXPECT_EQ(encode([](auto& m) { m.float_abs(true, reg::rax); }), (Bytes{0x48, 0x0F, 0xBA, 0xF0, 0x3F}));  // btr rax, 63
  EXPECT_EQ(encode([](auto& m) { m.float_neg(true, reg::rax); }), (Bytes{0x48, 0x0F, 0xBA, 0xF8, 0x3F}));  // btc rax, 63
  // xor ecx, 0x80000000
  EXPECT_EQ(encode([](auto& m) { m.float_neg(false, reg::rcx); }), (Bytes{0x81, 0xF1, 0x00, 0x00, 0x00, 0x80}));
  // and ecx, 0x7FFFFFFF
  EXPECT_EQ(encode([](auto& m) { m.float_abs(false, reg::rcx); }), (Bytes{0x81, 0xE1, 0xFF, 0xFF, 0xFF, 0x7F}));
  // btr rax, 63; shr rcx, 63; shl rcx, 63; or rax, rcx
  EXPECT_EQ(encode([](auto& m) { m.float_copysign(true, reg::rax, reg::rcx); }),
            (Bytes{0x48, 0x0F, 0xBA, 0xF0, 0x3F, 0x48, 0xC1, 0xE9, 0x3F, 0x48, 0xC1, 0xE1, 0x3F, 0x48, 0x09, 0xC8}));
  // movd xmm0, eax; cvtss2sd xmm0, xmm0; movq rax, xmm0
  EXPECT_EQ(encode([](auto& m) { m.float_promote(reg::rax); }),
            (Bytes{0x66, 0x0F, 0x6E, 0xC0, 0xF3, 0x0F, 0x5A, 0xC0, 0x66, 0x48, 0x0F, 0x7E, 0xC0}));
  // movq xmm0, rax; cvtsd2ss xmm0, xmm0; movd eax, xmm0
  EXPECT_EQ(encode([](auto& m) { m.float_demote(reg::rax); }),
            (Bytes{0x66, 0x48, 0x0F, 0x6E, 0xC0, 0xF2, 0x0F, 0x5A, 0xC0, 0x66, 0x0F, 0x7E, 0xC0}));
  // Into a float register: xorps xmm2, xmm2; cvtsi2sd xmm2, eax (32-bit source: signed i32)
  EXPECT_EQ(encode([](auto& m) { m.fp_convert_s(true, false, 2, reg::rax); }),
            (Bytes{0x0F, 0x57, 0xD2, 0xF2, 0x0F, 0x2A, 0xD0}));
  // cvtsi2sd xmm2, rax (REX.W: i64 source)
  Bytes wide = encode([](auto& m) { m.fp_convert_s(true, true, 2, reg::rax); });
  EXPECT_EQ(Bytes(wide.begin() + 3, wide.end()), (Bytes{0xF2, 0x48, 0x0F, 0x2A, 0xD0}));
}

// The forms the macro-assembler encodes itself (macro_assembler.cc, "direct
// encoding") against asmjit's encoding of the same instruction, over every
// register pair, both widths and the displacement classes (0, disp8, disp32;
// rsp/r12 bases need a SIB byte, rbp/r13 a disp8 even for 0).
TEST(JitEncoding, DirectFormsMatchAsmjit) {
  using namespace asmjit;
  const int32_t disps[] = {0, 8, -8, 127, -128, 128, -129, 0x12345678, -0x7FFFFFFF};
  const uint64_t constants[] = {0, 1, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x100000000, ~0ull, uint64_t(-2),
                                uint64_t(int64_t(INT32_MIN)), 0x8000000000000000ull, 0x123456789ABCDEFull};
  const int32_t imms[] = {0, 1, -1, 127, -128, 128, -129, 0x7FFFFFFF, INT32_MIN};
  auto gp = [](Reg r, bool wide) -> x86::Gp { return wide ? x86::Gp(x86::gpq(r)) : x86::Gp(x86::gpd(r)); };
  auto same = [](const std::function<void(MacroAssembler&)>& mine, const std::function<void(x86::Assembler&)>& ref) {
    return encode(mine) == encode([&](MacroAssembler& m) { ref(m.raw()); });
  };
  EXPECT_TRUE(same([&](auto& m) { m.return_to_caller(); }, [&](auto& r) { r.ret(); }));
  for (Reg a = 0; a < 16; ++a) {
    EXPECT_TRUE(same([&](auto& m) { m.compare_stack_pointer(a, 8); }, [&](auto& r) { r.cmp(x86::rsp, x86::qword_ptr(x86::gpq(a), 8)); }))
        << int(a);
    EXPECT_TRUE(same([&](auto& m) { m.push(a); }, [&](auto& r) { r.push(x86::gpq(a)); })) << int(a);
    EXPECT_TRUE(same([&](auto& m) { m.pop(a); }, [&](auto& r) { r.pop(x86::gpq(a)); })) << int(a);
    for (uint64_t v : constants) {
      EXPECT_TRUE(same([&](auto& m) { m.move_imm(a, v); },
                       [&](auto& r) {
                         if (v == 0) r.xor_(x86::gpd(a), x86::gpd(a));
                         else if (v <= 0xFFFFFFFFu) r.mov(x86::gpd(a), Imm(uint32_t(v)));
                         else if (int64_t(v) == int64_t(int32_t(v))) r.mov(x86::gpq(a), Imm(int32_t(v)));
                         else r.movabs(x86::gpq(a), Imm(v));
                       }))
          << int(a) << " " << v;
    }
    for (bool wide : {false, true}) {
      for (int32_t imm : imms) {
        EXPECT_TRUE(same([&](auto& m) { m.int_op_imm(IntOp::Add, wide, a, imm); }, [&](auto& r) { r.add(gp(a, wide), Imm(imm)); }));
        EXPECT_TRUE(same([&](auto& m) { m.int_op_imm(IntOp::Sub, wide, a, imm); }, [&](auto& r) { r.sub(gp(a, wide), Imm(imm)); }));
        EXPECT_TRUE(same([&](auto& m) { m.int_op_imm(IntOp::And, wide, a, imm); }, [&](auto& r) { r.and_(gp(a, wide), Imm(imm)); }));
        EXPECT_TRUE(same([&](auto& m) { m.int_op_imm(IntOp::Or, wide, a, imm); }, [&](auto& r) { r.or_(gp(a, wide), Imm(imm)); }));
        EXPECT_TRUE(same([&](auto& m) { m.int_op_imm(IntOp::Xor, wide, a, imm); }, [&](auto& r) { r.xor_(gp(a, wide), Imm(imm)); }));
        EXPECT_TRUE(same([&](auto& m) { m.compare_imm(wide, a, imm); }, [&](auto& r) { r.cmp(gp(a, wide), Imm(imm)); }))
            << int(a) << " " << imm;
        EXPECT_TRUE(same([&](auto& m) { m.int_op_imm(IntOp::Mul, wide, a, imm); },
                         [&](auto& r) { r.imul(gp(a, wide), gp(a, wide), Imm(imm)); }))
            << int(a) << " " << imm;
      }
      for (uint8_t count : {uint8_t(1), uint8_t(2), uint8_t(31), uint8_t(63)}) {
        EXPECT_TRUE(same([&](auto& m) { m.shift_imm(ShiftOp::Shl, wide, a, count); }, [&](auto& r) { r.shl(gp(a, wide), Imm(count)); }));
        EXPECT_TRUE(same([&](auto& m) { m.shift_imm(ShiftOp::ShrS, wide, a, count); }, [&](auto& r) { r.sar(gp(a, wide), Imm(count)); }));
        EXPECT_TRUE(same([&](auto& m) { m.shift_imm(ShiftOp::ShrU, wide, a, count); }, [&](auto& r) { r.shr(gp(a, wide), Imm(count)); }));
        EXPECT_TRUE(same([&](auto& m) { m.shift_imm(ShiftOp::Rotl, wide, a, count); }, [&](auto& r) { r.rol(gp(a, wide), Imm(count)); }));
        EXPECT_TRUE(same([&](auto& m) { m.shift_imm(ShiftOp::Rotr, wide, a, count); }, [&](auto& r) { r.ror(gp(a, wide), Imm(count)); }))
            << int(a) << " " << int(count);
      }
      if (a != reg::rcx) {  // the count moves to rcx first (kShiftClobbers): the reference does the same
        for (Reg count : {reg::rcx, reg::rdx, reg::r9}) {
          if (count == a) continue;
          auto ref = [&](x86::Assembler& r, auto op) {
            if (count != reg::rcx) r.mov(x86::rcx, x86::gpq(count));
            op(r);
          };
          EXPECT_TRUE(same([&](auto& m) { m.shift(ShiftOp::Shl, wide, a, count); },
                           [&](auto& r) { ref(r, [&](auto& x) { x.shl(gp(a, wide), x86::cl); }); }));
          EXPECT_TRUE(same([&](auto& m) { m.shift(ShiftOp::ShrS, wide, a, count); },
                           [&](auto& r) { ref(r, [&](auto& x) { x.sar(gp(a, wide), x86::cl); }); }));
          EXPECT_TRUE(same([&](auto& m) { m.shift(ShiftOp::ShrU, wide, a, count); },
                           [&](auto& r) { ref(r, [&](auto& x) { x.shr(gp(a, wide), x86::cl); }); }));
          EXPECT_TRUE(same([&](auto& m) { m.shift(ShiftOp::Rotl, wide, a, count); },
                           [&](auto& r) { ref(r, [&](auto& x) { x.rol(gp(a, wide), x86::cl); }); }));
          EXPECT_TRUE(same([&](auto& m) { m.shift(ShiftOp::Rotr, wide, a, count); },
                           [&](auto& r) { ref(r, [&](auto& x) { x.ror(gp(a, wide), x86::cl); }); }))
              << int(a) << " " << int(count);
        }
      }
    }
    for (Reg b = 0; b < 16; ++b) {
      if (a != b) {
        EXPECT_TRUE(same([&](auto& m) { m.move(a, b); }, [&](auto& r) { r.mov(x86::gpq(a), x86::gpq(b)); }));
      }
      EXPECT_TRUE(same([&](auto& m) { m.zero_extend32(a, b); }, [&](auto& r) { r.mov(x86::gpd(a), x86::gpd(b)); }));
      if (a != b) {
        EXPECT_TRUE(same([&](auto& m) { m.fp_move(a, b); }, [&](auto& r) { r.movaps(x86::xmm(a), x86::xmm(b)); }));
      }
      EXPECT_TRUE(same([&](auto& m) { m.fp_from_gpr(a, b); }, [&](auto& r) { r.movq(x86::xmm(a), x86::gpq(b)); }));
      EXPECT_TRUE(same([&](auto& m) { m.gpr_from_fp(a, b); }, [&](auto& r) { r.movq(x86::gpq(a), x86::xmm(b)); }));
      for (bool wide : {false, true}) {
        x86::Gp ga = gp(a, wide), gb = gp(b, wide);
        EXPECT_TRUE(same([&](auto& m) { m.int_op(IntOp::Add, wide, a, b); }, [&](auto& r) { r.add(ga, gb); }));
        EXPECT_TRUE(same([&](auto& m) { m.int_op(IntOp::Sub, wide, a, b); }, [&](auto& r) { r.sub(ga, gb); }));
        EXPECT_TRUE(same([&](auto& m) { m.int_op(IntOp::Mul, wide, a, b); }, [&](auto& r) { r.imul(ga, gb); }));
        EXPECT_TRUE(same([&](auto& m) { m.int_op(IntOp::And, wide, a, b); }, [&](auto& r) { r.and_(ga, gb); }));
        EXPECT_TRUE(same([&](auto& m) { m.int_op(IntOp::Or, wide, a, b); }, [&](auto& r) { r.or_(ga, gb); }));
        EXPECT_TRUE(same([&](auto& m) { m.int_op(IntOp::Xor, wide, a, b); }, [&](auto& r) { r.xor_(ga, gb); }));
        EXPECT_TRUE(same([&](auto& m) { m.compare(wide, a, b); }, [&](auto& r) { r.cmp(ga, gb); }));
        EXPECT_TRUE(same([&](auto& m) { m.test_bits(wide, a, b); }, [&](auto& r) { r.test(ga, gb); })) << int(a) << int(b);
        for (int32_t disp : disps) {
          auto mem = [&](int32_t d) { return wide ? x86::qword_ptr(x86::gpq(b), d) : x86::dword_ptr(x86::gpq(b), d); };
          EXPECT_TRUE(same([&](auto& m) { m.int_op_mem(IntOp::Add, wide, a, b, disp); }, [&](auto& r) { r.add(ga, mem(disp)); }));
          EXPECT_TRUE(same([&](auto& m) { m.int_op_mem(IntOp::Sub, wide, a, b, disp); }, [&](auto& r) { r.sub(ga, mem(disp)); }));
          EXPECT_TRUE(same([&](auto& m) { m.int_op_mem(IntOp::Mul, wide, a, b, disp); }, [&](auto& r) { r.imul(ga, mem(disp)); }));
          EXPECT_TRUE(same([&](auto& m) { m.int_op_mem(IntOp::And, wide, a, b, disp); }, [&](auto& r) { r.and_(ga, mem(disp)); }));
          EXPECT_TRUE(same([&](auto& m) { m.int_op_mem(IntOp::Or, wide, a, b, disp); }, [&](auto& r) { r.or_(ga, mem(disp)); }));
          EXPECT_TRUE(same([&](auto& m) { m.int_op_mem(IntOp::Xor, wide, a, b, disp); }, [&](auto& r) { r.xor_(ga, mem(disp)); }));
          EXPECT_TRUE(same([&](auto& m) { m.compare_mem(wide, a, b, disp); }, [&](auto& r) { r.cmp(ga, mem(disp)); }))
              << int(a) << " " << int(b) << " " << disp;
        }
      }
      const std::pair<Cond, x86::CondCode> conds[] = {
          {Cond::Eq, x86::CondCode::kEqual},        {Cond::Ne, x86::CondCode::kNotEqual},
          {Cond::LtS, x86::CondCode::kSignedLT},    {Cond::LtU, x86::CondCode::kUnsignedLT},
          {Cond::GtS, x86::CondCode::kSignedGT},    {Cond::GtU, x86::CondCode::kUnsignedGT},
          {Cond::LeS, x86::CondCode::kSignedLE},    {Cond::LeU, x86::CondCode::kUnsignedLE},
          {Cond::GeS, x86::CondCode::kSignedGE},    {Cond::GeU, x86::CondCode::kUnsignedGE}};
      for (const auto& entry : conds) {
        const Cond cond = entry.first;  // not a structured binding: clang 14 cannot capture those
        const x86::CondCode code = entry.second;
        EXPECT_TRUE(same([&](auto& m) { m.move_if(cond, a, b); }, [&](auto& r) { r.cmov(code, x86::gpq(a), x86::gpq(b)); }))
            << int(a) << " " << int(b) << " " << int(cond);
      }
      EXPECT_TRUE(same([&](auto& m) { m.move_if_zero(a, b); }, [&](auto& r) { r.cmovz(x86::gpq(a), x86::gpq(b)); }));
      // Unchecked division (a constant divisor): the dividend to rax, then
      // the sign (or zero) extension into rdx and the divide.
      if (b != reg::rax && b != reg::rdx) {
        for (bool wide : {false, true}) {
          for (bool is_signed : {false, true}) {
            EXPECT_TRUE(same(
                [&](auto& m) {
                  auto never = m.new_label();
                  m.divide(is_signed, wide, false, a, b, never, never, false);
                  m.bind(never);
                },
                [&](auto& r) {
                  if (a != reg::rax) r.mov(x86::rax, x86::gpq(a));
                  if (is_signed) {
                    if (wide) r.cqo(x86::rdx, x86::rax); else r.cdq(x86::edx, x86::eax);
                    r.idiv(gp(reg::rdx, wide), gp(reg::rax, wide), gp(b, wide));
                  } else {
                    r.xor_(x86::edx, x86::edx);
                    r.div(gp(reg::rdx, wide), gp(reg::rax, wide), gp(b, wide));
                  }
                }))
                << int(a) << " " << int(b) << " " << wide << is_signed;
          }
        }
      }
      for (int32_t disp : disps) {
        EXPECT_TRUE(same([&](auto& m) { m.load64(a, b, disp); }, [&](auto& r) { r.mov(x86::gpq(a), x86::qword_ptr(x86::gpq(b), disp)); }));
        EXPECT_TRUE(same([&](auto& m) { m.load32(a, b, disp); }, [&](auto& r) { r.mov(x86::gpd(a), x86::dword_ptr(x86::gpq(b), disp)); }));
        EXPECT_TRUE(same([&](auto& m) { m.store64(b, disp, a); }, [&](auto& r) { r.mov(x86::qword_ptr(x86::gpq(b), disp), x86::gpq(a)); }));
        EXPECT_TRUE(same([&](auto& m) { m.store32(b, disp, a); }, [&](auto& r) { r.mov(x86::dword_ptr(x86::gpq(b), disp), x86::gpd(a)); }));
        EXPECT_TRUE(same([&](auto& m) { m.fp_load(a, b, disp); }, [&](auto& r) { r.movq(x86::xmm(a), x86::qword_ptr(x86::gpq(b), disp)); }));
        EXPECT_TRUE(same([&](auto& m) { m.fp_store(b, disp, a); }, [&](auto& r) { r.movq(x86::qword_ptr(x86::gpq(b), disp), x86::xmm(a)); }));
        EXPECT_TRUE(same([&](auto& m) { m.address_of(a, b, disp); }, [&](auto& r) { r.lea(x86::gpq(a), x86::ptr(x86::gpq(b), disp)); }));
        EXPECT_TRUE(same([&](auto& m) { m.add32_imm(a, b, disp); }, [&](auto& r) { r.lea(x86::gpd(a), x86::ptr(x86::gpq(b), disp)); }));
        EXPECT_TRUE(same([&](auto& m) { m.compare_mem64(a, b, disp); }, [&](auto& r) { r.cmp(x86::gpq(a), x86::qword_ptr(x86::gpq(b), disp)); }))
            << int(a) << " " << int(b) << " " << disp;
        if (a == 0) {
          for (int32_t imm : imms) {
            EXPECT_TRUE(same([&](auto& m) { m.store64_imm(b, disp, imm); }, [&](auto& r) { r.mov(x86::qword_ptr(x86::gpq(b), disp), Imm(imm)); }));
            EXPECT_TRUE(same([&](auto& m) { m.add_mem32_imm(b, disp, imm); }, [&](auto& r) { r.add(x86::dword_ptr(x86::gpq(b), disp), Imm(imm)); }))
                << int(b) << " " << disp << " " << imm;
          }
        }
      }
    }
  }
  // Linear-memory accesses: [base + index + disp], every width.
  const Reg indexes[] = {reg::rax, reg::rcx, reg::rbp, reg::rsi, reg::r8, reg::r12, reg::r13, reg::r15};
  const Reg values[] = {reg::rax, reg::rcx, reg::rdx, reg::rbx, reg::rsp, reg::rbp, reg::rsi, reg::rdi, reg::r8, reg::r12, reg::r15};
  const int32_t mem_disps[] = {0, 8, -128, 128, 0x12345678};
  for (Reg base = 0; base < 16; ++base) {
    for (Reg index : indexes) {
      for (Reg v : values) {
        for (int32_t disp : mem_disps) {
          auto at = [&](uint32_t size) { return x86::ptr(x86::gpq(base), x86::gpq(index), 0, disp, size); };
          EXPECT_TRUE(same([&](auto& m) { m.load_mem(MemWidth::U8, v, base, index, disp); }, [&](auto& r) { r.movzx(x86::gpd(v), at(1)); }));
          EXPECT_TRUE(same([&](auto& m) { m.load_mem(MemWidth::S8, v, base, index, disp); }, [&](auto& r) { r.movsx(x86::gpq(v), at(1)); }));
          EXPECT_TRUE(same([&](auto& m) { m.load_mem(MemWidth::U16, v, base, index, disp); }, [&](auto& r) { r.movzx(x86::gpd(v), at(2)); }));
          EXPECT_TRUE(same([&](auto& m) { m.load_mem(MemWidth::S16, v, base, index, disp); }, [&](auto& r) { r.movsx(x86::gpq(v), at(2)); }));
          EXPECT_TRUE(same([&](auto& m) { m.load_mem(MemWidth::U32, v, base, index, disp); }, [&](auto& r) { r.mov(x86::gpd(v), at(4)); }));
          EXPECT_TRUE(same([&](auto& m) { m.load_mem(MemWidth::S32, v, base, index, disp); }, [&](auto& r) { r.movsxd(x86::gpq(v), at(4)); }));
          EXPECT_TRUE(same([&](auto& m) { m.load_mem(MemWidth::U64, v, base, index, disp); }, [&](auto& r) { r.mov(x86::gpq(v), at(8)); }));
          EXPECT_TRUE(same([&](auto& m) { m.store_mem(MemWidth::U8, base, index, disp, v); }, [&](auto& r) { r.mov(at(1), x86::gpb_lo(v)); }));
          EXPECT_TRUE(same([&](auto& m) { m.store_mem(MemWidth::U16, base, index, disp, v); }, [&](auto& r) { r.mov(at(2), x86::gpw(v)); }));
          EXPECT_TRUE(same([&](auto& m) { m.store_mem(MemWidth::U32, base, index, disp, v); }, [&](auto& r) { r.mov(at(4), x86::gpd(v)); }));
          EXPECT_TRUE(same([&](auto& m) { m.store_mem(MemWidth::U64, base, index, disp, v); }, [&](auto& r) { r.mov(at(8), x86::gpq(v)); }))
              << int(base) << " " << int(index) << " " << int(v) << " " << disp;
          // v as an XMM register: movss/movsd loads and stores.
          EXPECT_TRUE(same([&](auto& m) { m.fp_load_mem(false, v, base, index, disp); }, [&](auto& r) { r.movss(x86::xmm(v), at(4)); }));
          EXPECT_TRUE(same([&](auto& m) { m.fp_load_mem(true, v, base, index, disp); }, [&](auto& r) { r.movsd(x86::xmm(v), at(8)); }));
          EXPECT_TRUE(same([&](auto& m) { m.fp_store_mem(false, base, index, disp, v); }, [&](auto& r) { r.movss(at(4), x86::xmm(v)); }));
          EXPECT_TRUE(same([&](auto& m) { m.fp_store_mem(true, base, index, disp, v); }, [&](auto& r) { r.movsd(at(8), x86::xmm(v)); }))
              << int(base) << " " << int(index) << " " << int(v) << " " << disp;
        }
      }
    }
  }
  // Floats: compares into an i32 (general registers), promote/demote, and
  // the ucomiss/ucomisd a fused float branch starts with.
  const std::pair<FloatCond, uint32_t> predicates[] = {{FloatCond::Eq, 0}, {FloatCond::Ne, 4}, {FloatCond::Lt, 1},
                                                       {FloatCond::Le, 2}, {FloatCond::Gt, 1}, {FloatCond::Ge, 2}};
  for (Reg a = 0; a < 16; ++a) {
    for (bool f64 : {false, true}) {
      auto to_xmm = [&](x86::Assembler& r, int x, Reg g) { f64 ? r.movq(x86::xmm(x), x86::gpq(g)) : r.movd(x86::xmm(x), x86::gpd(g)); };
      for (Reg b : {reg::rax, reg::rcx, reg::rsi, reg::r8, reg::r13, reg::r15}) {
        for (const auto& entry : predicates) {
          const FloatCond cond = entry.first;  // not a structured binding: clang 14 cannot capture those
          const uint32_t predicate = entry.second;
          const bool swapped = cond == FloatCond::Gt || cond == FloatCond::Ge;
          EXPECT_TRUE(same([&](auto& m) { m.float_compare(cond, f64, a, b); },
                           [&](auto& r) {
                             to_xmm(r, 0, a);
                             to_xmm(r, 1, b);
                             const x86::Xmm x = x86::xmm(swapped ? 1 : 0), y = x86::xmm(swapped ? 0 : 1);
                             f64 ? r.cmpsd(x, y, Imm(predicate)) : r.cmpss(x, y, Imm(predicate));
                             r.movd(x86::gpd(a), x);
                             r.and_(x86::gpd(a), Imm(1));
                           }))
              << int(a) << " " << int(b) << " " << int(cond) << " " << f64;
        }
      }
      for (Reg b = 0; b < 16; ++b) {  // XMM registers
        for (FloatCond cond : {FloatCond::Gt, FloatCond::Lt}) {
          const Bytes branch = encode([&](MacroAssembler& m) {
            auto target = m.new_label();
            m.fp_branch(cond, f64, a, b, true, target);
            m.bind(target);
          });
          const Bytes ucomis = encode([&](MacroAssembler& m) {
            const x86::Xmm x = x86::xmm(cond == FloatCond::Lt ? b : a), y = x86::xmm(cond == FloatCond::Lt ? a : b);
            f64 ? m.raw().ucomisd(x, y) : m.raw().ucomiss(x, y);
          });
          ASSERT_GE(branch.size(), ucomis.size());
          EXPECT_EQ(Bytes(branch.begin(), branch.begin() + ptrdiff_t(ucomis.size())), ucomis) << int(a) << " " << int(b);
        }
      }
    }
    EXPECT_TRUE(same([&](auto& m) { m.float_promote(a); },
                     [&](auto& r) { r.movd(x86::xmm0, x86::gpd(a)); r.cvtss2sd(x86::xmm0, x86::xmm0); r.movq(x86::gpq(a), x86::xmm0); }));
    EXPECT_TRUE(same([&](auto& m) { m.float_demote(a); },
                     [&](auto& r) { r.movq(x86::xmm0, x86::gpq(a)); r.cvtsd2ss(x86::xmm0, x86::xmm0); r.movd(x86::gpd(a), x86::xmm0); }))
        << int(a);
  }
  // The inline fiber switch's forms (jit/compile_fibers.cc).
  const uint8_t bytes[] = {0, 1, 2, 4, 0x7F, 0x80, 0xFF};
  const uint32_t words[] = {0, 1, 16, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF};
  for (Reg b = 0; b < 16; ++b) {
    for (int32_t disp : disps) {
      EXPECT_TRUE(same([&](auto& m) { m.push_mem(b, disp); }, [&](auto& r) { r.push(x86::qword_ptr(x86::gpq(b), disp)); }))
          << int(b) << " " << disp;
      EXPECT_TRUE(same([&](auto& m) { m.pop_mem(b, disp); }, [&](auto& r) { r.pop(x86::qword_ptr(x86::gpq(b), disp)); }))
          << int(b) << " " << disp;
      for (uint8_t v : bytes) {
        EXPECT_TRUE(same([&](auto& m) { m.store8_imm(b, disp, v); }, [&](auto& r) { r.mov(x86::byte_ptr(x86::gpq(b), disp), Imm(v)); }));
        EXPECT_TRUE(same([&](auto& m) { m.compare8_mem_imm(b, disp, v); }, [&](auto& r) { r.cmp(x86::byte_ptr(x86::gpq(b), disp), Imm(v)); }))
            << int(b) << " " << disp << " " << int(v);
      }
      for (uint32_t v : words) {
        EXPECT_TRUE(same([&](auto& m) { m.store32_imm(b, disp, v); }, [&](auto& r) { r.mov(x86::dword_ptr(x86::gpq(b), disp), Imm(v)); }))
            << int(b) << " " << disp << " " << v;
      }
    }
  }
  // Many direct forms in a row: the buffer grows under them.
  Bytes many = encode([](auto& m) {
    for (int i = 0; i < 100000; ++i) m.load64(reg::rax, reg::rbx, i * 8);
  });
  EXPECT_EQ(many.size(), 3u + 4u * 15 + 7u * (100000 - 16));  // disp 0, disp8, disp32
}

// Jumps, setcc and calls, encoded directly, against asmjit's encoding: forward
// jumps (rel32, patched at bind), backward jumps (rel8 when it fits, else rel32).
TEST(JitEncoding, DirectBranchesMatchAsmjit) {
  using namespace asmjit;
  auto same = [](const std::function<void(MacroAssembler&)>& mine, const std::function<void(x86::Assembler&)>& ref) {
    return encode(mine) == encode([&](MacroAssembler& m) { ref(m.raw()); });
  };
  const Cond conds[] = {Cond::Eq, Cond::Ne, Cond::LtS, Cond::LtU, Cond::GtS, Cond::GtU, Cond::LeS, Cond::LeU, Cond::GeS, Cond::GeU};
  const x86::CondCode codes[] = {x86::CondCode::kEqual, x86::CondCode::kNotEqual, x86::CondCode::kSignedLT,
                                 x86::CondCode::kUnsignedLT, x86::CondCode::kSignedGT, x86::CondCode::kUnsignedGT,
                                 x86::CondCode::kSignedLE, x86::CondCode::kUnsignedLE, x86::CondCode::kSignedGE,
                                 x86::CondCode::kUnsignedGE};
  for (int gap : {0, 1, 120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 300}) {
    auto nops = [gap](x86::Assembler& r) {
      for (int i = 0; i < gap; ++i) r.nop();
    };
    for (size_t c = 0; c < std::size(conds); ++c) {
      // Forward, twice to the same label, then backward.
      EXPECT_TRUE(same(
          [&](auto& m) {
            auto l = m.new_label(), back = m.new_label();
            m.bind(back);
            m.jump_if(conds[c], l);
            nops(m.raw());
            m.jump_if(conds[c], l);
            m.bind(l);
            nops(m.raw());
            m.jump_if(conds[c], back);
          },
          [&](auto& r) {
            Label l = r.newLabel(), back = r.newLabel();
            r.bind(back);
            r.j(codes[c], l);
            nops(r);
            r.j(codes[c], l);
            r.bind(l);
            nops(r);
            r.j(codes[c], back);
          }))
          << gap << " " << c;
    }
    EXPECT_TRUE(same(
        [&](auto& m) {
          auto l = m.new_label(), back = m.new_label();
          m.bind(back);
          m.jump(l);
          m.jump_if_zero(l);
          m.jump_if_nonzero(l);
          m.jump_if_above(l);
          m.jump_if_below(l);
          nops(m.raw());
          m.bind(l);
          nops(m.raw());
          m.jump(back);
          m.jump_if_zero(back);
          m.jump_if_nonzero(back);
          m.jump_if_above(back);
          m.jump_if_below(back);
        },
        [&](auto& r) {
          Label l = r.newLabel(), back = r.newLabel();
          r.bind(back);
          r.jmp(l);
          r.j(x86::CondCode::kZero, l);
          r.j(x86::CondCode::kNotZero, l);
          r.j(x86::CondCode::kUnsignedGT, l);
          r.j(x86::CondCode::kUnsignedLT, l);
          nops(r);
          r.bind(l);
          nops(r);
          r.jmp(back);
          r.j(x86::CondCode::kZero, back);
          r.j(x86::CondCode::kNotZero, back);
          r.j(x86::CondCode::kUnsignedGT, back);
          r.j(x86::CondCode::kUnsignedLT, back);
        }))
        << gap;
  }
  for (Reg a = 0; a < 16; ++a) {
    for (size_t c = 0; c < std::size(conds); ++c)
      EXPECT_TRUE(same([&](auto& m) { m.set_cond(conds[c], a); },
                       [&](auto& r) {
                         r.set(codes[c], x86::gpb_lo(a));
                         r.movzx(x86::gpd(a), x86::gpb_lo(a));
                       }))
          << int(a) << " " << c;
    EXPECT_TRUE(same([&](auto& m) { m.set_zero(a, true); },
                     [&](auto& r) {
                       r.set(x86::CondCode::kZero, x86::gpb_lo(a));
                       r.movzx(x86::gpd(a), x86::gpb_lo(a));
                     }));
    for (int32_t disp : {0, 8, 0x30, 200, -4})
    {
      EXPECT_TRUE(same([&](auto& m) { m.call_indirect_mem(a, disp); },
                       [&](auto& r) { r.call(x86::qword_ptr(x86::gpq(a), disp)); }))
          << int(a) << " " << disp;
      EXPECT_TRUE(same([&](auto& m) { m.jump_indirect_mem(a, disp); },
                       [&](auto& r) { r.jmp(x86::qword_ptr(x86::gpq(a), disp)); }))
          << int(a) << " " << disp;
    }
  }
  // call_absolute: the address in r11, then call r11.
  const void* fn = reinterpret_cast<const void*>(uintptr_t(0x123456789ABCull));
  EXPECT_EQ(encode([&](auto& m) { m.call_absolute(fn); }),
            (Bytes{0x49, 0xBB, 0xBC, 0x9A, 0x78, 0x56, 0x34, 0x12, 0x00, 0x00, 0x41, 0xFF, 0xD3}));
}

// The prologue's stack checks in one form (a template copied per function)
// against the seven forms they replaced: several functions in one buffer
// (the template reused, and made again when the registers or offsets change),
// bases that need a SIB byte or a displacement byte, frame ends of one and
// four bytes, and a label bound before (the forms one by one).
TEST(JitEncoding, StackCheckTemplateMatchesTheFormsItReplaces) {
  struct Args { Reg depth, ctx, t0, t1; int32_t native_limit, stack, stack_limit; Reg frame; int32_t frame_end; };
  const Args cases[] = {
      {reg::r15, reg::r12, reg::rax, reg::r11, 8, 16, 24, reg::rbp, 64},
      {reg::r15, reg::r12, reg::rax, reg::r11, 8, 16, 24, reg::rbp, 4096},
      {reg::r15, reg::r12, reg::rax, reg::r11, 8, 16, 24, reg::rbp, -8},
      {reg::rbx, reg::r13, reg::r10, reg::rsi, 0, 200, 0, reg::r12, 1 << 20},
      {reg::r15, reg::r12, reg::rax, reg::r11, 8, 16, 24, reg::rbp, 120},
  };
  for (const bool bound_before : {false, true}) {
    const Bytes fused = encode([&](MacroAssembler& m) {
      for (const Args& a : cases) {
        auto overflow = m.new_label();
        if (bound_before) m.bind(overflow);
        m.check_stack_limits(a.depth, a.ctx, a.native_limit, a.stack, a.stack_limit, a.frame, a.frame_end, a.t0, a.t1,
                             overflow);
        m.raw().nop();
        if (!bound_before) m.bind(overflow);
      }
    });
    const Bytes separate = encode([&](MacroAssembler& m) {
      for (const Args& a : cases) {
        auto overflow = m.new_label();
        if (bound_before) m.bind(overflow);
        m.count_down(a.depth, overflow);
        m.compare_stack_pointer(a.ctx, a.native_limit);
        m.jump_if_below(overflow);
        m.load64(a.t1, a.ctx, a.stack);
        m.address_of(a.t0, a.frame, a.frame_end);
        m.compare_mem64(a.t0, a.t1, a.stack_limit);
        m.jump_if_above(overflow);
        m.raw().nop();
        if (!bound_before) m.bind(overflow);
      }
    });
    EXPECT_EQ(fused, separate) << (bound_before ? "label bound before" : "label bound after");
  }
}

// load64_patchable/store64_patchable (global.get/global.set) emit what
// move_patchable and the access through the scratch register emit, return
// the same patch offsets, also while the buffer grows under them (3,000 of
// each: many reservations end without room for both forms).
TEST(JitEncoding, PatchableGlobalAccessMatchesTheFormsItReplaces) {
  constexpr int kCopies = 3000;
  const Reg regs[] = {reg::rax, reg::rbx, reg::rsp, reg::rbp, reg::r11, reg::r12, reg::r13, reg::r15};
  std::vector<uint32_t> fused_at, separate_at;
  const Bytes fused = encode([&](MacroAssembler& m) {
    for (int i = 0; i < kCopies; ++i) {
      const Reg value = regs[i % std::size(regs)], scratch = regs[(i / 3) % std::size(regs)];
      const uint64_t address = 0x123456789ABCDEF0ull + uint64_t(i) * 8;
      fused_at.push_back(m.load64_patchable(value, scratch, address));
      fused_at.push_back(m.store64_patchable(scratch, address, value));
      if (i % 7 == 0) m.raw().nop();  // odd lengths: the room left varies
    }
  });
  const Bytes separate = encode([&](MacroAssembler& m) {
    for (int i = 0; i < kCopies; ++i) {
      const Reg value = regs[i % std::size(regs)], scratch = regs[(i / 3) % std::size(regs)];
      const uint64_t address = 0x123456789ABCDEF0ull + uint64_t(i) * 8;
      separate_at.push_back(m.move_patchable(scratch, address));
      m.load64(value, scratch, 0);
      separate_at.push_back(m.move_patchable(scratch, address));
      m.store64(scratch, 0, value);
      if (i % 7 == 0) m.raw().nop();
    }
  });
  EXPECT_GT(fused.size(), size_t(kCopies) * 2 * 13);
  EXPECT_EQ(fused, separate);
  EXPECT_EQ(fused_at, separate_at);
}

// The trap paths' call and the function's exit, each one form in place of
// three, emit the bytes of the three (also while the buffer grows, and for
// helper addresses of every width move_imm knows).
TEST(JitEncoding, TrapCallAndExitMatchTheFormsTheyReplace) {
  constexpr int kCopies = 2000;
  const uint64_t helpers[] = {0x401000, 0x7F12345678AB, 0xFFFFFFFFFFFFFF00ull, 0};
  const Reg regs[] = {reg::rdi, reg::rsi, reg::rax, reg::r12, reg::r15, reg::rbx};
  std::vector<uint32_t> fused_at, separate_at;
  const Bytes fused = encode([&](MacroAssembler& m) {
    for (int i = 0; i < kCopies; ++i) {
      const Reg a0 = regs[i % std::size(regs)], src = regs[(i / 2) % std::size(regs)];
      const Reg a1 = regs[(i / 5) % std::size(regs)], depth = regs[(i / 3) % std::size(regs)];
      const auto* fn = reinterpret_cast<const void*>(helpers[i % std::size(helpers)]);
      fused_at.push_back(m.call_absolute_with(a0, src, a1, 0x5555000011112222ull + uint64_t(i), fn));
      m.count_up_leave_and_return(depth);
    }
  });
  const Bytes separate = encode([&](MacroAssembler& m) {
    for (int i = 0; i < kCopies; ++i) {
      const Reg a0 = regs[i % std::size(regs)], src = regs[(i / 2) % std::size(regs)];
      const Reg a1 = regs[(i / 5) % std::size(regs)], depth = regs[(i / 3) % std::size(regs)];
      const auto* fn = reinterpret_cast<const void*>(helpers[i % std::size(helpers)]);
      m.move(a0, src);
      separate_at.push_back(m.move_patchable(a1, 0x5555000011112222ull + uint64_t(i)));
      m.call_absolute(fn);
      m.int_op_imm(IntOp::Add, false, depth, 1);
      m.leave_frame();
      m.return_to_caller();
    }
  });
  EXPECT_GT(fused.size(), size_t(kCopies) * 20);
  EXPECT_EQ(fused, separate);
  EXPECT_EQ(fused_at, separate_at);
}

// store64_run (the entry's zeroed locals) emits the stores it stands for,
// for runs of every length up to 16, from several bases and displacements
// (disp8 and disp32 forms, an SIB for rsp/r12), while the buffer grows.
TEST(JitEncoding, StoreRunMatchesTheStoresItReplaces) {
  const Reg bases[] = {reg::rbp, reg::rsp, reg::r12, reg::r13, reg::rax};
  const Reg sources[] = {reg::rax, reg::r11, reg::rbx};
  const int32_t firsts[] = {0, 8, 96, 120, 4096, -64};
  auto each = [&](const std::function<void(MacroAssembler&, Reg, int32_t, uint32_t, Reg)>& emit) {
    return encode([&](MacroAssembler& m) {
      for (int round = 0; round < 20; ++round)
        for (const Reg base : bases)
          for (const int32_t first : firsts)
            for (uint32_t count = 1; count <= 16; count += 3) emit(m, base, first, count, sources[count % 3]);
    });
  };
  const Bytes run = each([](MacroAssembler& m, Reg base, int32_t first, uint32_t count, Reg src) {
    m.store64_run(base, first, count, src);
  });
  const Bytes one_by_one = each([](MacroAssembler& m, Reg base, int32_t first, uint32_t count, Reg src) {
    for (uint32_t i = 0; i < count; ++i) m.store64(base, first + int32_t(8 * i), src);
  });
  EXPECT_GT(run.size(), size_t(20) * 5 * 6 * 4 * 4);
  EXPECT_EQ(run, one_by_one);
}

// repeat(from, size) emits the same bytes as encoding the sequence again
// (the pinned locals' reloads after every call), also as the buffer grows
// under it (2,000 copies of ~40 bytes: the copy reads the grown buffer).
TEST(JitEncoding, RepeatEmitsTheBytesOfTheSequenceAgain) {
  auto reloads = [](MacroAssembler& m) {
    m.load64(reg::rbx, reg::rbp, 8);
    m.load64(reg::r13, reg::rbp, 200);
    m.load64(reg::r14, reg::rbp, -16);
    m.fp_load(10, reg::rbp, 24);
    m.fp_load(3, reg::rbp, 4096);
  };
  constexpr int kCopies = 2000;
  const Bytes copied = encode([&](MacroAssembler& m) {
    const uint32_t at = uint32_t(m.offset());
    reloads(m);
    const uint32_t size = uint32_t(m.offset()) - at;
    ASSERT_LE(size, MacroAssembler::kMaxRepeatBytes);
    for (int i = 0; i < kCopies; ++i) {
      m.raw().nop();  // something between: each copy is of the first bytes, not the last
      m.repeat(at, size);
    }
  });
  const Bytes encoded = encode([&](MacroAssembler& m) {
    reloads(m);
    for (int i = 0; i < kCopies; ++i) {
      m.raw().nop();
      reloads(m);
    }
  });
  EXPECT_GT(encoded.size(), size_t(kCopies) * 30);
  EXPECT_EQ(copied, encoded);
}

// The jump table (br_table) against the asmjit sequence it replaced: entries to
// labels bound before and after the table.
// Loop heads are padded to kLoopAlignment (64): up to 9 bytes with one long
// NOP, more with a short jump over int3s (several reserve() chunks): every
// start offset ends aligned, and what code falling in executes is one whole
// recommended NOP form or the jump to the aligned end.
TEST(JitEncoding, AlignCodePadsWithWholeNops) {
  const Bytes nops[] = {{0x90},
                        {0x66, 0x90},
                        {0x0F, 0x1F, 0x00},
                        {0x0F, 0x1F, 0x40, 0x00},
                        {0x0F, 0x1F, 0x44, 0x00, 0x00},
                        {0x66, 0x0F, 0x1F, 0x44, 0x00, 0x00},
                        {0x0F, 0x1F, 0x80, 0x00, 0x00, 0x00, 0x00},
                        {0x0F, 0x1F, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00},
                        {0x66, 0x0F, 0x1F, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00}};
  for (uint32_t alignment : {16u, MacroAssembler::kLoopAlignment}) {
    for (int before = 0; before < 70; ++before) {
      const Bytes code = encode([&](MacroAssembler& m) {
        for (int i = 0; i < before; ++i) m.raw().int3();
        m.align_code(alignment);
        m.raw().int3();
      });
      ASSERT_EQ((code.size() - 1) % alignment, 0u) << alignment << " " << before;
      const size_t pad = code.size() - 1 - size_t(before);
      if (pad > 9) {
        EXPECT_EQ(code[size_t(before)], 0xEB) << alignment << " " << before;
        EXPECT_EQ(size_t(before) + 2 + code[size_t(before) + 1], code.size() - 1) << "jumps to the aligned end";
        for (size_t at = size_t(before) + 2; at < code.size() - 1; ++at) EXPECT_EQ(code[at], 0xCC);
      } else if (pad > 0) {
        EXPECT_EQ(Bytes(code.begin() + before, code.end() - 1), nops[pad - 1]) << alignment << " " << before;
      }
    }
  }
}

// A function compiled on its own (lazily) moves within its 64-byte line so
// that its first loop head needs no padding: the shift is fixed there, the
// near calls emitted before it are corrected for it, and later loop heads
// align with it counted in.
TEST(JitEncoding, MovableFunctionShiftsInsteadOfPaddingItsFirstLoop) {
  constexpr uint64_t kPlanned = 0x10000;  // 64-byte aligned, as CodeArena::next gives
  const uint8_t* target = reinterpret_cast<const uint8_t*>(uintptr_t(0x20000));
  for (int before = 0; before < 70; ++before) {
    uint32_t shift = 0;
    size_t first_call = 0, second_call = 0, second_loop = 0;
    const Bytes code = encode([&](MacroAssembler& m) {
      m.set_code_address(kPlanned);
      m.start_movable_function();
      for (int i = 0; i < before; ++i) m.raw().int3();
      first_call = m.offset();
      m.call_near(target);
      m.align_code(MacroAssembler::kLoopAlignment);  // no padding: the function moves
      EXPECT_EQ(m.offset(), first_call + 5) << before;
      shift = m.function_shift();
      second_call = m.offset();
      m.call_near(target);
      m.raw().int3();
      m.align_code(MacroAssembler::kLoopAlignment);
      second_loop = m.offset();
    });
    EXPECT_EQ((kPlanned + shift + first_call + 5) % MacroAssembler::kLoopAlignment, 0u) << before;
    EXPECT_LT(shift, MacroAssembler::kLoopAlignment);
    EXPECT_EQ((kPlanned + shift + second_loop) % MacroAssembler::kLoopAlignment, 0u) << before;
    // Both calls reach the target from where the code will run.
    for (size_t call : {first_call, second_call}) {
      int32_t displacement;
      std::memcpy(&displacement, code.data() + call + 1, 4);
      EXPECT_EQ(kPlanned + shift + call + 5 + int64_t(displacement), uint64_t(0x20000)) << before << " " << call;
    }
  }
  // Without start_movable_function the code stays where it was assembled for.
  const Bytes fixed = encode([](MacroAssembler& m) {
    m.raw().int3();
    m.align_code(MacroAssembler::kLoopAlignment);
    EXPECT_EQ(m.function_shift(), 0u);
  });
  EXPECT_EQ(fixed.size(), size_t(MacroAssembler::kLoopAlignment));
}

TEST(JitEncoding, JumpTableMatchesAsmjit) {
  using namespace asmjit;
  for (Reg index : {reg::rax, reg::rcx, reg::rdi, reg::r8, reg::r15}) {
    for (int gap : {0, 1, 2, 3}) {
      Bytes mine = encode([&](MacroAssembler& m) {
        auto before = m.new_label(), after1 = m.new_label(), after2 = m.new_label();
        m.bind(before);
        for (int i = 0; i < gap; ++i) m.raw().nop();
        MacroAssembler::Label entries[] = {after1, before, after2, after1};
        m.jump_table(index, entries, 4);
        m.raw().nop();
        m.bind(after1);
        m.raw().int3();
        m.place_jump_tables();  // the table after the code, as at a function's end
        m.bind(after2);
      });
      // asmjit resolves label deltas at relocation, not at bind.
      Environment env(Arch::kX64);
      CodeHolder code;
      code.init(env);
      {
        x86::Assembler r(&code);
        asmjit::Label before = r.newLabel(), after1 = r.newLabel(), after2 = r.newLabel(), table = r.newLabel();
        r.bind(before);
        for (int i = 0; i < gap; ++i) r.nop();
        r.lea(x86::r11, x86::ptr(table));
        r.movsxd(x86::gpq(index), x86::dword_ptr(x86::r11, x86::gpq(index), 2));
        r.add(x86::gpq(index), x86::r11);
        r.jmp(x86::gpq(index));
        r.nop();
        r.bind(after1);
        r.int3();
        r.align(AlignMode::kData, 4);
        r.bind(table);
        for (asmjit::Label l : {after1, before, after2, after1}) r.embedLabelDelta(l, table, 4);
        r.bind(after2);
      }
      ASSERT_EQ(code.relocateToBase(0x10000), kErrorOk);
      const CodeBuffer& buffer = code.textSection()->buffer();
      Bytes ref(buffer.data(), buffer.data() + buffer.size());
      EXPECT_EQ(mine, ref) << int(index) << " " << gap;
    }
  }
}

}  // namespace
}  // namespace weft::jit::x64
