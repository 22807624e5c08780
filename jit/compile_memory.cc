// Linear memory: loads and stores — unchecked in a guard region
// (jit/guard_regions.h), else with explicit bounds checks against the
// cached size (Registers::kMemorySize), memory.size, memory.grow (runtime helper).
// Memory 0 lives in the pinned registers; another memory (multi-memory) is
// loaded from its MemoryInstance at each access and always bounds-checked.
// A 64-bit memory (memory64) is at most 4 GiB here, like every memory: an
// i64 address above 2^32 - 1 traps, and below it the access is an i32 one.
#include "jit/compiler.h"
#include "jit/context.h"
#include "runtime/fuel.h"

namespace weft::jit {

namespace {
constexpr Reg kScratch = Registers::kScratch;
constexpr const Reg* kArg = Registers::kArg;

struct Access {
  MemWidth width;
  uint32_t bytes;
  bool store;
};

std::optional<Access> access_of(Opcode op) {
  switch (op) {
    case Opcode::I32Load: case Opcode::F32Load: return Access{MemWidth::U32, 4, false};
    case Opcode::I64Load: case Opcode::F64Load: return Access{MemWidth::U64, 8, false};
    case Opcode::I32Load8S: return Access{MemWidth::S8, 1, false};
    case Opcode::I32Load8U: case Opcode::I64Load8U: return Access{MemWidth::U8, 1, false};
    case Opcode::I32Load16S: return Access{MemWidth::S16, 2, false};
    case Opcode::I32Load16U: case Opcode::I64Load16U: return Access{MemWidth::U16, 2, false};
    case Opcode::I64Load8S: return Access{MemWidth::S8, 1, false};
    case Opcode::I64Load16S: return Access{MemWidth::S16, 2, false};
    case Opcode::I64Load32S: return Access{MemWidth::S32, 4, false};
    case Opcode::I64Load32U: return Access{MemWidth::U32, 4, false};
    case Opcode::I32Store: case Opcode::F32Store: case Opcode::I64Store32: return Access{MemWidth::U32, 4, true};
    case Opcode::I64Store: case Opcode::F64Store: return Access{MemWidth::U64, 8, true};
    case Opcode::I32Store8: case Opcode::I64Store8: return Access{MemWidth::U8, 1, true};
    case Opcode::I32Store16: case Opcode::I64Store16: return Access{MemWidth::U16, 2, true};
    default: return std::nullopt;
  }
}

// 32-bit loads that sign-extend must leave a zero-extended i32.
bool is_i32_signed_load(Opcode op) { return op == Opcode::I32Load8S || op == Opcode::I32Load16S; }

template <typename Field>
int32_t field_offset(const runtime::MemoryInstance* m, const Field* field) {
  return int32_t(reinterpret_cast<const char*>(field) - reinterpret_cast<const char*>(m));
}

}  // namespace

// The address operand, zero-extended into a register the caller owns: from
// the register holding a local (a pin or a mirror) in one instruction.
Reg FunctionCompiler::pop_address() {
  if (const StackValue v = stack_.back(); v.loc == Loc::Local)
    if (const int m = mirror_of_local(gpr_mirror_, uint32_t(v.imm)); m >= 0) {
      stack_.pop_back();
      Reg r = alloc_reg();
      masm_.zero_extend32(r, Reg(m));
      return r;
    }
  Reg r = pop_to_reg();
  masm_.zero_extend32(r, r);
  return r;
}

// An i64 address, index or length (memory64) that the code after this treats
// as an i32: above 2^32 - 1 it is out of bounds of anything this engine
// makes, so it traps here (`r` is left as it is; kScratch is clobbered).
void FunctionCompiler::trap_if_above_u32(Reg r, runtime::TrapKind kind) {
  if (r != kScratch) masm_.move(kScratch, r);
  masm_.shift_imm(ShiftOp::ShrU, true, kScratch, 32);
  masm_.test_bits(true, kScratch, kScratch);
  masm_.jump_if_nonzero(trap_label(kind));
}

// A 64-bit memory's address, checked: the register then holds the
// zero-extended i32 address the access continues with.
Reg FunctionCompiler::pop_address64() {
  Reg r = pop_to_reg();
  trap_if_above_u32(r, runtime::TrapKind::MemoryOutOfBounds);
  return r;
}

// The address operand, popped and checked for an access of `bytes` at the
// instruction's offset (see the top): the access is then at [base + addr +
// disp]. The caller frees addr, and base unless it is Registers::kMemoryBase.
FunctionCompiler::CheckedAddress FunctionCompiler::pop_checked_address(const Instruction& imm, uint32_t bytes) {
  const bool address64 = memory_at(imm.memory)->type.limits.address64;
  Reg addr = address64 ? pop_address64() : pop_address();
  // ea = zext(addr) + offset; in bounds iff ea + bytes ≤ size (64-bit: no overflow).
  uint64_t offset = imm.mem_offset;
  if (offset > UINT32_MAX) {  // (a 64-bit memory's) beyond any memory this engine makes
    masm_.jump(trap_label(runtime::TrapKind::MemoryOutOfBounds));
    offset = 0;
  }
  int32_t disp = int32_t(offset);
  if (offset + bytes > 0x7FFFFFFFu) {
    masm_.move_imm(kScratch, offset);
    masm_.int_op(IntOp::Add, true, addr, kScratch);
    disp = 0;
  }
  Reg base = Registers::kMemoryBase;
  if (imm.memory != 0) {
    // base and size of memory k into two registers; the size is free again after the check.
    const runtime::MemoryInstance* m = instance_.memories[imm.memory];
    base = alloc_reg();
    const Reg size = alloc_reg();
    move_instance_word(base, InstanceRef::Memory, imm.memory);
    masm_.load64(size, base, field_offset(m, &m->size_bytes));
    masm_.load64(base, base, field_offset(m, &m->data));
    masm_.address_of(kScratch, addr, disp + int32_t(bytes));
    masm_.compare(true, kScratch, size);
    masm_.jump_if_above(trap_label(runtime::TrapKind::MemoryOutOfBounds));
    free_reg(size);
  } else if (guarded_memory_) {
    // Any zext(addr) + offset + bytes lies inside the guard region: out of
    // bounds faults, and the handler resumes at this function's trap stub.
    if (!has_memory_trap_) {
      memory_trap_ = trap_label(runtime::TrapKind::MemoryOutOfBounds);
      has_memory_trap_ = true;
    }
  } else {
    masm_.address_of(kScratch, addr, disp + int32_t(bytes));
    masm_.compare(true, kScratch, Registers::kMemorySize);
    masm_.jump_if_above(trap_label(runtime::TrapKind::MemoryOutOfBounds));
  }
  return {addr, base, disp};
}

Result<void> FunctionCompiler::compile_memory(Opcode op, const Instruction& imm, bool& handled) {
  handled = true;
  if (std::optional<Access> access = access_of(op)) {
    // Floats load into a float register, and a float computed in one is
    // stored from there: no trip through a general register.
    const bool float_access = op == Opcode::F32Load || op == Opcode::F64Load || op == Opcode::F32Store ||
                              op == Opcode::F64Store;
    const bool f64 = op == Opcode::F64Load || op == Opcode::F64Store;
    const bool fp_value = access->store ? float_access && stack_.back().loc == Loc::Float : float_access;
    Reg value = 0;
    FReg fp = 0;
    if (access->store) {
      if (fp_value)
        fp = pop_to_fp();
      else
        value = pop_to_reg();
    }
    const auto [addr, base, disp] = pop_checked_address(imm, access->bytes);
    if (access->store && fp_value) {
      masm_.fp_store_mem(f64, base, addr, disp, fp);
      free_reg(addr);
      free_fp(fp);
    } else if (access->store) {
      masm_.store_mem(access->width, base, addr, disp, value);
      free_reg(addr);
      free_reg(value);
    } else if (fp_value) {
      fp = alloc_fp();
      masm_.fp_load_mem(f64, fp, base, addr, disp);
      free_reg(addr);
      push_fp(fp);
    } else {
      masm_.load_mem(access->width, addr, base, addr, disp);
      if (is_i32_signed_load(op)) masm_.zero_extend32(addr, addr);
      push_reg(addr);
    }
    if (base != Registers::kMemoryBase) free_reg(base);
    return {};
  }
  switch (op) {
    case Opcode::MemorySize: {
      Reg r = alloc_reg();
      if (imm.memory == 0) {
        masm_.move(r, Registers::kMemorySize);
      } else {
        const runtime::MemoryInstance* m = instance_.memories[imm.memory];
        move_instance_word(r, InstanceRef::Memory, imm.memory);
        masm_.load64(r, r, field_offset(m, &m->size_bytes));
      }
      masm_.shift_imm(ShiftOp::ShrU, true, r, 16);
      push_reg(r);
      return {};
    }
    case Opcode::MemoryGrow: {
      const bool address64 = memory_at(imm.memory)->type.limits.address64;
      Reg delta = pop_to_reg();
      spill_all();
      if (address64)
        masm_.move(kArg[1], delta);
      else
        masm_.zero_extend32(kArg[1], delta);
      free_reg(delta);
      move_instance_word(kArg[0], InstanceRef::Memory, imm.memory);
      masm_.call_absolute(address64 ? reinterpret_cast<const void*>(&weft_jit_memory_grow64)
                                    : reinterpret_cast<const void*>(&weft_jit_memory_grow));
      reload_after_call();  // memory 0's registers too: memory k may be memory 0 imported twice
      push_reg(Registers::kReturn);
      return {};
    }
    case Opcode::MemoryInit:
      spill_all();
      charge_fuel_bulk(height() - 1, runtime::fuel::kMemoryBytesShift, memory_at(imm.memory)->type.limits.address64);
      call_bulk(reinterpret_cast<const void*>(&weft_jit_memory_init), {InstanceRef::Memory, imm.memory},
                {InstanceRef::Data, imm.index}, 3, 0);
      return {};
    case Opcode::DataDrop:
      call_bulk(reinterpret_cast<const void*>(&weft_jit_data_drop), {InstanceRef::Data, imm.index}, {}, 0, 0);
      return {};
    case Opcode::MemoryCopy:
      spill_all();
      charge_fuel_bulk(height() - 1, runtime::fuel::kMemoryBytesShift,
                       memory_at(imm.memory)->type.limits.address64 && memory_at(imm.memory2)->type.limits.address64);
      call_bulk(reinterpret_cast<const void*>(&weft_jit_memory_copy), {InstanceRef::Memory, imm.memory},
                {InstanceRef::Memory, imm.memory2},
                3, 0);
      return {};
    case Opcode::MemoryFill:
      spill_all();
      charge_fuel_bulk(height() - 1, runtime::fuel::kMemoryBytesShift, memory_at(imm.memory)->type.limits.address64);
      call_bulk(reinterpret_cast<const void*>(&weft_jit_memory_fill), {InstanceRef::Memory, imm.memory}, {}, 3, 0);
      return {};
    default:
      handled = false;
      return {};
  }
}

void FunctionCompiler::call_bulk(const void* helper, BulkOperand a, BulkOperand b, uint32_t operands,
                                 uint32_t results) {
  spill_all();
  uint32_t first = height() - operands;
  move_instance_word(kArg[0], a.ref, a.index);
  if (b.used)
    move_instance_word(kArg[1], b.ref, b.index);
  else
    masm_.move_imm(kArg[1], 0);
  masm_.address_of(kArg[2], Registers::kFrame, stack_disp(first));
  masm_.call_absolute(helper);
  reload_pinned_locals();  // kReturn is not among them
  masm_.test_bits(false, Registers::kReturn, Registers::kReturn);
  masm_.jump_if_nonzero(thunk_trap_);
  truncate(first);
  push_slots(results);
}

}  // namespace weft::jit
