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

Result<void> FunctionCompiler::compile_table(Opcode op, const Instruction& imm, bool& handled) {
  handled = true;
  const auto& tables = instance_.tables;
  if (op == Opcode::TableInit || op == Opcode::TableCopy || op == Opcode::TableGrow || op == Opcode::TableFill) {
    spill_all();
    charge_fuel_bulk(height() - 1, runtime::fuel::kTableElementsShift);  // the length / delta is on top
  }
  switch (op) {
    case Opcode::TableGet: call_bulk(fn(&weft_jit_table_get), tables[imm.index], nullptr, 1, 1); return {};
    case Opcode::TableSet: call_bulk(fn(&weft_jit_table_set), tables[imm.index], nullptr, 2, 0); return {};
    case Opcode::TableSize: call_bulk(fn(&weft_jit_table_size), tables[imm.index], nullptr, 0, 1); return {};
    case Opcode::TableGrow: call_bulk(fn(&weft_jit_table_grow), tables[imm.index], nullptr, 2, 1); return {};
    case Opcode::TableFill: call_bulk(fn(&weft_jit_table_fill), tables[imm.index], nullptr, 3, 0); return {};
    case Opcode::TableCopy:
      call_bulk(fn(&weft_jit_table_copy), tables[imm.index], tables[imm.index2], 3, 0);
      return {};
    case Opcode::TableInit:
      // Immediates: elem index, then table index.
      call_bulk(fn(&weft_jit_table_init), tables[imm.index2], &instance_.elems[imm.index], 3, 0);
      return {};
    case Opcode::ElemDrop: call_bulk(fn(&weft_jit_elem_drop), &instance_.elems[imm.index], nullptr, 0, 0); return {};
    default:
      handled = false;
      return {};
  }
}

}  // namespace weft::jit
