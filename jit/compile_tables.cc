// Table instructions and elem.drop, as helper calls on the spilled operands
// (jit/helpers.cc). table.get/set are candidates for inline fast paths once
// TableInstance exposes a stable data/size pair to generated code.
#include "jit/compiler.h"
#include "jit/context.h"
#include "runtime/fuel.h"

namespace weft::jit {

namespace {
const void* fn(BulkHelper helper) { return reinterpret_cast<const void*>(helper); }
}  // namespace

// An i64 index or length of a 64-bit table (memory64) that the helpers then
// read as an i32 (tables hold fewer than 2^32 elements): the operand `depth`
// from the top of the spilled stack, through trap_if_above_u32.
void FunctionCompiler::check_index64(uint32_t depth, runtime::TrapKind kind) {
  masm_.load64(Registers::kScratch, Registers::kFrame, stack_disp(height() - 1 - depth));
  trap_if_above_u32(Registers::kScratch, kind);
}

Result<void> FunctionCompiler::compile_table(Opcode op, const Instruction& imm, bool& handled) {
  handled = true;
  const auto& tables = instance_.tables;
  const auto wide = [&](uint32_t table) { return tables[table]->type.limits.address64; };
  const auto table = [](uint32_t index) { return BulkOperand{InstanceRef::Table, index}; };
  constexpr runtime::TrapKind kOut = runtime::TrapKind::TableOutOfBounds;
  // The same order of checks as the interpreter's (check_table64_operands), before the fuel.
  switch (op) {
    case Opcode::TableGet: case Opcode::TableSet: case Opcode::TableFill:
      if (!wide(imm.index)) break;
      spill_all();
      check_index64(op == Opcode::TableGet ? 0 : op == Opcode::TableSet ? 1 : 2, kOut);
      if (op == Opcode::TableFill) check_index64(0, kOut);
      break;
    case Opcode::TableInit:
      if (!wide(imm.index2)) break;
      spill_all();
      check_index64(2, kOut);
      break;
    case Opcode::TableCopy:
      if (!wide(imm.index) && !wide(imm.index2)) break;
      spill_all();
      if (wide(imm.index)) check_index64(2, kOut);
      if (wide(imm.index2)) check_index64(1, kOut);
      if (wide(imm.index) && wide(imm.index2)) check_index64(0, kOut);
      break;
    default: break;
  }
  if (op == Opcode::TableInit || op == Opcode::TableCopy || op == Opcode::TableGrow || op == Opcode::TableFill) {
    spill_all();
    charge_fuel_bulk(height() - 1, runtime::fuel::kTableElementsShift);  // the length / delta is on top
  }
  switch (op) {
    case Opcode::TableGet: call_bulk(fn(&weft_jit_table_get), table(imm.index), {}, 1, 1); return {};
    case Opcode::TableSet: call_bulk(fn(&weft_jit_table_set), table(imm.index), {}, 2, 0); return {};
    case Opcode::TableSize: call_bulk(fn(&weft_jit_table_size), table(imm.index), {}, 0, 1); return {};
    case Opcode::TableGrow: call_bulk(fn(&weft_jit_table_grow), table(imm.index), {}, 2, 1); return {};
    case Opcode::TableFill: call_bulk(fn(&weft_jit_table_fill), table(imm.index), {}, 3, 0); return {};
    case Opcode::TableCopy:
      call_bulk(fn(&weft_jit_table_copy), table(imm.index), table(imm.index2), 3, 0);
      return {};
    case Opcode::TableInit:
      // Immediates: elem index, then table index.
      call_bulk(fn(&weft_jit_table_init), table(imm.index2), {InstanceRef::Elem, imm.index}, 3, 0);
      return {};
    case Opcode::ElemDrop: call_bulk(fn(&weft_jit_elem_drop), {InstanceRef::Elem, imm.index}, {}, 0, 0); return {};
    default:
      handled = false;
      return {};
  }
}

}  // namespace weft::jit
