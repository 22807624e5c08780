// Index-space lookups over a Module (imports come first in every index space).
#include "core/module.h"

#include <algorithm>

namespace weft {

uint32_t Module::count_imports(ExternKind kind) const {
  uint32_t n = 0;
  for (const Import& imp : imports) n += imp.kind == kind;
  return n;
}

namespace {
// The n-th import of a kind, or nullptr if n is past the imports of that kind.
const Import* nth_import(const std::vector<Import>& imports, ExternKind kind, uint32_t n) {
  for (const Import& imp : imports) {
    if (imp.kind != kind) continue;
    if (n == 0) return &imp;
    --n;
  }
  return nullptr;
}
}  // namespace

uint32_t Module::function_type_index(uint32_t func_index) const {
  if (const Import* imp = nth_import(imports, ExternKind::Func, func_index)) return imp->type_index;
  return functions[func_index - num_imported_functions()].type_index;
}

TableType Module::table_type(uint32_t table_index) const {
  if (const Import* imp = nth_import(imports, ExternKind::Table, table_index)) return imp->table;
  return tables[table_index - num_imported_tables()].type;
}

MemoryType Module::memory_type(uint32_t memory_index) const {
  if (const Import* imp = nth_import(imports, ExternKind::Memory, memory_index)) return imp->memory;
  return memories[memory_index - num_imported_memories()].type;
}

GlobalType Module::global_type(uint32_t global_index) const {
  if (const Import* imp = nth_import(imports, ExternKind::Global, global_index)) return imp->global;
  return globals[global_index - num_imported_globals()].type;
}

uint32_t Module::tag_type_index(uint32_t tag_index) const {
  if (const Import* imp = nth_import(imports, ExternKind::Tag, tag_index)) return imp->type_index;
  return tags[tag_index - num_imported_tags()].type_index;
}

std::string Module::function_name(uint32_t func_index) const {
  auto it = std::lower_bound(names.function_names.begin(), names.function_names.end(), func_index,
                             [](const auto& entry, uint32_t idx) { return entry.first < idx; });
  if (it != names.function_names.end() && it->first == func_index) return it->second;
  // No name in the name section: the name it is exported by is what a user
  // knows it as (wasmtime shows it too).
  for (const Export& e : exports)
    if (e.kind == ExternKind::Func && e.index == func_index) return e.name;
  return "func[" + std::to_string(func_index) + "]";
}

std::string Module::function_description(uint32_t func_index) const {
  std::string name = function_name(func_index);
  const std::string index = "func[" + std::to_string(func_index) + "]";
  return name == index ? index : name + " (" + index + ")";
}

}  // namespace weft
