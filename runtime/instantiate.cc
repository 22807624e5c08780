// Instantiation of a validated module in a Store (Wasm 2.0 semantics).
#include "runtime/instantiate.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/instruction_reader.h"
#include "core/opcodes.h"
#include "runtime/trap.h"

namespace weft::runtime {

namespace {

Error unlinkable(const Import& imp, const std::string& why) {
  return make_error(ErrorKind::Unlinkable, why + " for import \"" + imp.module + "\" \"" + imp.name + "\"");
}

bool limits_match(uint64_t actual_min, std::optional<uint64_t> actual_max, const Limits& wanted) {
  if (actual_min < wanted.min) return false;
  if (wanted.max) {
    if (!actual_max || *actual_max > *wanted.max) return false;
  }
  return true;
}

// Module types compared across modules: a typed reference names its fiber
// type by module-local index, so each type is interned with those indices
// replaced by the referenced types' store-wide ids (structural equivalence).
class TypeCanonicalizer {
 public:
  TypeCanonicalizer(Store& store, std::shared_ptr<const Module> module)
      : store_(store), module_(*module), memo_(module->types.size(), kUnknown) {
    store.reserve_types(module->types.size());  // no rehashing as the table grows
    store.keep_module(std::move(module));      // its types are interned in place
  }

  TypeId type_id(uint32_t index) {
    if (memo_[index] >= 0) return TypeId(memo_[index]);
    // A type that refers back to itself (directly or not) is identified by its
    // position; such types only match themselves.
    if (memo_[index] == kInProgress) return TypeId(0x80000000u + index);
    memo_[index] = kInProgress;
    const FuncType& type = module_.types[index];
    auto typed_ref = [](ValType v) { return v.kind == ValType::TypedRef; };
    if (std::none_of(type.params.begin(), type.params.end(), typed_ref) &&
        std::none_of(type.results.begin(), type.results.end(), typed_ref)) {
      memo_[index] = store_.intern_kept_type(type);  // nothing to rewrite: no copy (most types)
      return TypeId(memo_[index]);
    }
    FuncType t = type;
    for (ValType& v : t.params) v = value_type(v);
    for (ValType& v : t.results) v = value_type(v);
    memo_[index] = store_.intern_type(t);
    return TypeId(memo_[index]);
  }
  ValType value_type(ValType v) {
    if (v.kind == ValType::TypedRef && v.type_index < module_.types.size()) v.type_index = type_id(v.type_index);
    return v;
  }

 private:
  static constexpr int64_t kUnknown = -1, kInProgress = -2;
  Store& store_;
  const Module& module_;
  std::vector<int64_t> memo_;
};

// actual <: expected between value types of this store (typed references
// carry store-wide type ids, so equal ids are equal types): the validator's
// rule (validator/module_context.h) at link time.
bool store_subtype(const Store& store, ValType actual, ValType expected) {
  if (actual == expected) return true;
  if (!actual.is_ref() || !expected.is_ref() || (actual.nullable && !expected.nullable)) return false;
  if (actual.kind == expected.kind && actual.kind != ValType::TypedRef) return true;
  if (actual.kind != ValType::TypedRef || !store.has_type(actual.type_index)) return false;
  const bool fiber = store.type_of(TypeId(actual.type_index)).is_fiber;
  switch (expected.kind) {
    case ValType::FuncRef: return !fiber;
    case ValType::FiberRef: return fiber;
    case ValType::TypedRef: return actual.type_index == expected.type_index;
    default: return false;
  }
}

Result<void> check_import(Store& store, TypeCanonicalizer& types, const Import& imp, const ExternValue& ext) {
  if (ext.kind != imp.kind || ext.object == nullptr) return unlinkable(imp, "incompatible import type");
  switch (imp.kind) {
    case ExternKind::Func: {
      auto* f = static_cast<FuncInstance*>(ext.object);
      if (f->type_id != types.type_id(imp.type_index))
        return unlinkable(imp, "incompatible import type (function signature differs)");
      return {};
    }
    case ExternKind::Table: {
      auto* t = static_cast<TableInstance*>(ext.object);
      if (t->type.element != types.value_type(imp.table.element))
        return unlinkable(imp, "incompatible import type (element type)");
      if (t->type.limits.address64 != imp.table.limits.address64)
        return unlinkable(imp, "incompatible import type (table address type)");
      if (!limits_match(t->size(), t->type.limits.max, imp.table.limits))
        return unlinkable(imp, "incompatible import type (table limits)");
      return {};
    }
    case ExternKind::Memory: {
      auto* m = static_cast<MemoryInstance*>(ext.object);
      if (m->type.limits.address64 != imp.memory.limits.address64)
        return unlinkable(imp, "incompatible import type (memory address type)");
      if (!limits_match(m->pages(), m->type.limits.max, imp.memory.limits))
        return unlinkable(imp, "incompatible import type (memory limits)");
      return {};
    }
    case ExternKind::Global: {
      // An immutable global may be of a subtype of the imported type; a
      // mutable one is read and written, so its type must be the same.
      auto* g = static_cast<GlobalInstance*>(ext.object);
      const ValType wanted = types.value_type(imp.global.type);
      const bool fits = g->type.is_mutable == imp.global.is_mutable &&
                        (imp.global.is_mutable ? g->type.type == wanted : store_subtype(store, g->type.type, wanted));
      if (!fits) return unlinkable(imp, "incompatible import type (global type)");
      return {};
    }
    case ExternKind::Tag: {
      auto* t = static_cast<TagInstance*>(ext.object);
      if (t->type_id != types.type_id(imp.type_index))
        return unlinkable(imp, "incompatible import type (tag signature differs)");
      return {};
    }
  }
  return {};
}

}  // namespace

void eval_const_expr(const Instance& instance, const ConstExpr& expr, uint64_t out[2]) {
  // Validated input: instructions that leave exactly one value, then `end`.
  // Values are two slots wide (v128); the extended-const arithmetic pops two
  // and pushes one, wrapping as the instructions do.
  struct Slots {
    uint64_t lo = 0, hi = 0;
  };
  // Nearly every expression is one instruction (an elem segment has one per
  // item, thousands in a C program's function table): its value stays here,
  // without an allocation; a deeper extended-const expression continues on
  // the heap.
  struct Stack {
    Slots inline_values[4];
    std::vector<Slots> heap;
    Slots* values = inline_values;
    size_t count = 0, capacity = 4;
    void push_back(Slots v) {
      if (count == capacity) [[unlikely]] {
        if (values == inline_values) heap.assign(inline_values, inline_values + count);
        capacity *= 2;
        heap.resize(capacity);
        values = heap.data();
      }
      values[count++] = v;
    }
    Slots pop() { return values[--count]; }
    size_t size() const { return count; }
  } stack;
  InstructionReader reader(expr.code);
  Instruction in;
  auto pop = [&] { return stack.pop(); };
  while (reader.next(in) && in.op != Opcode::End) {
    switch (in.op) {
      case Opcode::I32Const:
      case Opcode::I64Const:
      case Opcode::F32Const:
      case Opcode::F64Const: stack.push_back({in.bits, 0}); break;
      case Opcode::V128Const: {
        Slots v;
        std::memcpy(&v.lo, in.bytes16, 8);
        std::memcpy(&v.hi, in.bytes16 + 8, 8);
        stack.push_back(v);
        break;
      }
      case Opcode::GlobalGet: {
        const GlobalInstance* g = instance.globals[in.index];
        stack.push_back({g->value[0], g->value[1]});
        break;
      }
      case Opcode::RefNull: stack.push_back({0, 0}); break;
      case Opcode::RefFunc: stack.push_back({reinterpret_cast<uint64_t>(instance.functions[in.index]), 0}); break;
      case Opcode::I32Add: case Opcode::I32Sub: case Opcode::I32Mul: {
        const uint32_t b = uint32_t(pop().lo), a = uint32_t(pop().lo);
        const uint32_t r = in.op == Opcode::I32Add ? a + b : in.op == Opcode::I32Sub ? a - b : a * b;
        stack.push_back({r, 0});
        break;
      }
      case Opcode::I64Add: case Opcode::I64Sub: case Opcode::I64Mul: {
        const uint64_t b = pop().lo, a = pop().lo;
        stack.push_back({in.op == Opcode::I64Add ? a + b : in.op == Opcode::I64Sub ? a - b : a * b, 0});
        break;
      }
      default: return;  // unreachable for validated input
    }
  }
  if (stack.size() == 1) {
    out[0] = stack.values[0].lo;
    out[1] = stack.values[0].hi;
  } else {
    out[0] = out[1] = 0;
  }
}

Result<Instance*> instantiate(Store& store, std::shared_ptr<const Module> module_ptr,
                              std::shared_ptr<const validator::ValidationInfo> info,
                              std::span<const ExternValue> imports) {
  const Module& module = *module_ptr;
  if (imports.size() != module.imports.size())
    return make_error(ErrorKind::Unlinkable, "wrong number of imports");
  TypeCanonicalizer types(store, module_ptr);
  for (size_t i = 0; i < imports.size(); ++i) WEFT_TRY(check_import(store, types, module.imports[i], imports[i]));

  // Allocate memories and tables before anything is visible so a resource failure leaves no partial instance.
  std::vector<std::unique_ptr<MemoryInstance>> new_memories;
  for (const Memory& mem : module.memories) {
    WEFT_TRY_ASSIGN(auto m, MemoryInstance::create(mem.type, store.config().max_memory_pages,
                                                   wants_guard_region(store.config())));
    new_memories.push_back(std::move(m));
  }
  std::vector<std::unique_ptr<TableInstance>> new_tables;
  for (const Table& table : module.tables) {
    TableType type = table.type;
    type.element = types.value_type(type.element);
    WEFT_TRY_ASSIGN(auto t, TableInstance::create(type, 0, store.config().max_table_elements));
    new_tables.push_back(std::move(t));
  }

  auto owned = std::make_unique<Instance>();
  Instance* inst = store.add_instance(std::move(owned));
  inst->module = module_ptr;
  inst->info = info;
  inst->store = &store;
  inst->type_ids.reserve(module.types.size());
  for (uint32_t i = 0; i < module.types.size(); ++i) inst->type_ids.push_back(types.type_id(i));

  for (size_t i = 0; i < imports.size(); ++i) {
    const ExternValue& ext = imports[i];
    switch (ext.kind) {
      case ExternKind::Func: inst->functions.push_back(static_cast<FuncInstance*>(ext.object)); break;
      case ExternKind::Table: inst->tables.push_back(static_cast<TableInstance*>(ext.object)); break;
      case ExternKind::Memory: inst->memories.push_back(static_cast<MemoryInstance*>(ext.object)); break;
      case ExternKind::Global: inst->globals.push_back(static_cast<GlobalInstance*>(ext.object)); break;
      case ExternKind::Tag: inst->tags.push_back(static_cast<TagInstance*>(ext.object)); break;
    }
  }
  const uint32_t num_imported_funcs = uint32_t(inst->functions.size());
  inst->functions.reserve(num_imported_funcs + module.functions.size());
  FuncInstance* defined = module.functions.empty() ? nullptr : store.add_functions(module.functions.size());
  for (size_t i = 0; i < module.functions.size(); ++i) {
    FuncInstance* f = &defined[i];
    f->type_id = inst->type_ids[module.functions[i].type_index];
    f->type = &store.type_of(f->type_id);
    f->param_slots = slot_count(f->type->params);
    f->result_slots = slot_count(f->type->results);
    f->instance = inst;
    f->index = num_imported_funcs + uint32_t(i);
    inst->functions.push_back(f);
  }
  for (auto& t : new_tables) inst->tables.push_back(store.add_table(std::move(t)));
  for (auto& m : new_memories) inst->memories.push_back(store.add_memory(std::move(m)));
  for (const Global& global : module.globals) {
    auto g = std::make_unique<GlobalInstance>();
    g->type = GlobalType{types.value_type(global.type.type), global.type.is_mutable};
    eval_const_expr(*inst, global.init, g->value);
    inst->globals.push_back(store.add_global(std::move(g)));
  }
  // Tables with an initializer (typed function references): it sees the
  // imported globals and the functions, as a global's initializer does.
  const size_t first_defined_table = inst->tables.size() - module.tables.size();
  for (size_t i = 0; i < module.tables.size(); ++i) {
    if (!module.tables[i].init) continue;
    uint64_t v[2];
    eval_const_expr(*inst, *module.tables[i].init, v);
    std::vector<uint64_t>& elements = inst->tables[first_defined_table + i]->elements;
    std::fill(elements.begin(), elements.end(), v[0]);
  }
  for (const Tag& tag : module.tags) inst->tags.push_back(store.add_tag(inst->type_ids[tag.type_index]));
  for (const Export& e : module.exports) {
    void* obj = nullptr;
    switch (e.kind) {
      case ExternKind::Func: obj = inst->functions[e.index]; break;
      case ExternKind::Table: obj = inst->tables[e.index]; break;
      case ExternKind::Memory: obj = inst->memories[e.index]; break;
      case ExternKind::Global: obj = inst->globals[e.index]; break;
      case ExternKind::Tag: obj = inst->tags[e.index]; break;
    }
    inst->exports.push_back({e.name, {e.kind, obj}});
  }
  inst->elems.resize(module.elems.size());
  for (size_t i = 0; i < module.elems.size(); ++i) {
    const ElemSegment& seg = module.elems[i];
    ElemInstance& ei = inst->elems[i];
    ei.type = seg.type;
    ei.refs.reserve(seg.items.size());
    for (const ConstExpr& item : seg.items) {
      uint64_t v[2];
      eval_const_expr(*inst, item, v);
      ei.refs.push_back(v[0]);
    }
  }
  inst->datas.resize(module.datas.size());
  for (size_t i = 0; i < module.datas.size(); ++i) inst->datas[i].bytes = module.datas[i].bytes;

  WEFT_TRY(store.executor().prepare_instance(*inst));

  // Segment initialisation, in order; a trap stops it but earlier writes stay.
  for (size_t i = 0; i < module.elems.size(); ++i) {
    const ElemSegment& seg = module.elems[i];
    ElemInstance& ei = inst->elems[i];
    if (seg.mode == SegmentMode::Active) {
      uint64_t off[2];
      eval_const_expr(*inst, seg.offset, off);
      TableInstance* table = inst->tables[seg.table];
      const uint64_t dst = table->type.limits.address64 ? off[0] : uint32_t(off[0]);
      if (dst > table->elements.size() || ei.refs.size() > table->elements.size() - dst)
        return make_error(ErrorKind::Trap, trap_message(TrapKind::TableOutOfBounds));
      std::copy(ei.refs.begin(), ei.refs.end(), table->elements.begin() + dst);
    }
    if (seg.mode != SegmentMode::Passive) ei.refs.clear();  // elem.drop
  }
  for (size_t i = 0; i < module.datas.size(); ++i) {
    const DataSegment& seg = module.datas[i];
    if (seg.mode != SegmentMode::Active) continue;
    uint64_t off[2];
    eval_const_expr(*inst, seg.offset, off);
    MemoryInstance* mem = inst->memories[seg.memory];
    const uint64_t dst = mem->type.limits.address64 ? off[0] : uint32_t(off[0]);
    if (dst > mem->size_bytes || seg.bytes.size() > mem->size_bytes - dst)
      return make_error(ErrorKind::Trap, trap_message(TrapKind::MemoryOutOfBounds));
    if (!seg.bytes.empty()) std::memcpy(mem->data + dst, seg.bytes.data(), seg.bytes.size());
    inst->datas[i].bytes = {};  // data.drop
  }

  if (module.start) {
    FuncInstance* start = inst->functions[*module.start];
    uint64_t scratch[2] = {0, 0};
    WEFT_TRY(store.invoke(start, scratch));
  }
  return inst;
}

}  // namespace weft::runtime
