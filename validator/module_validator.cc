// Module-level validation: types, imports, index spaces, limits, globals,
// exports, start, segments, tags, C.refs — then every function body.
#include <algorithm>
#include <atomic>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

#include "validator/code_validator.h"
#include "validator/module_context.h"
#include "validator/validator.h"

namespace weft::validator {
namespace {

Error module_error(std::string message) { return make_error(ErrorKind::Invalid, std::move(message)); }

std::string entity(const char* what, size_t index) { return std::string(what) + " " + std::to_string(index); }

// Equal keys (export names, type shapes) are found with an open-addressing
// table of indices (linear probing, at most half full): no allocation per key,
// unlike a node-based map or set, and linear time, unlike sorting.
constexpr uint32_t kEmptySlot = UINT32_MAX;

std::vector<uint32_t> index_table(size_t keys) {
  size_t size = 16;
  while (size < 2 * keys) size *= 2;
  return std::vector<uint32_t>(size, kEmptySlot);
}

// FNV-1a over bytes or over whole words, then a final mix so that the low
// bits (the slot) depend on every input bit.
uint64_t hash_bytes(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : bytes) h = (h ^ uint8_t(c)) * 0x100000001b3ull;
  return h ^ (h >> 29);
}
uint64_t hash_words(std::span<const uint64_t> words) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint64_t w : words) h = (h ^ w) * 0x100000001b3ull;
  return h ^ (h >> 29);
}

// The index of the first key equal to key `index` (`equal(j)`: key j equals
// it), which is `index` itself if it is the first; inserted in that case.
template <typename Equal>
uint32_t first_equal(std::vector<uint32_t>& table, uint64_t hash, uint32_t index, Equal equal) {
  const size_t mask = table.size() - 1;
  for (size_t slot = hash & mask;; slot = (slot + 1) & mask) {
    const uint32_t other = table[slot];
    if (other == kEmptySlot) {
      table[slot] = index;
      return index;
    }
    if (equal(other)) return other;
  }
}

Result<void> check_valtype(const ModuleContext& ctx, ValType t, const std::string& where,
                           uint32_t type_bound = UINT32_MAX) {
  if (std::string problem = ctx.valtype_problem(t, type_bound); !problem.empty())
    return module_error(problem + " in " + where);
  return {};
}

Result<void> check_type_index(const ModuleContext& ctx, uint32_t index, const std::string& where) {
  if (index >= ctx.module.types.size()) return module_error("unknown type " + std::to_string(index) + " in " + where);
  return {};
}

// Functions and tags need a function type, not a fiber type.
Result<void> check_function_type_index(const ModuleContext& ctx, uint32_t index, const std::string& where,
                                       const char* message = "type mismatch: function type expected") {
  WEFT_TRY(check_type_index(ctx, index, where));
  if (ctx.module.types[index].is_fiber)
    return module_error(std::string(message) + ": type " + std::to_string(index) + " is a fiber type, in " + where);
  return {};
}

Result<void> check_limits(const Limits& limits, uint64_t bound, const char* too_large, const std::string& where) {
  if (limits.min > bound || (limits.max && *limits.max > bound)) return module_error(too_large + (" in " + where));
  if (limits.max && limits.min > *limits.max)
    return module_error("size minimum must not be greater than maximum in " + where);
  return {};
}

// `filled`: the table's elements get a value other than the default (an
// imported table, or one with an initializer), which a non-nullable element
// type needs — with typed function references; the fiber extension's
// version 1 has nullable elements only.
Result<void> check_table_type(const ModuleContext& ctx, const TableType& type, bool filled, const std::string& where) {
  WEFT_TRY(check_valtype(ctx, type.element, where));
  if (!type.element.is_ref()) return module_error("malformed reference type: table of " + to_string(type.element));
  if (!is_defaultable(type.element) && !(filled && ctx.options.enable_function_references))
    return module_error("type mismatch: non-defaultable type " + to_string(type.element) + " as table element" +
                        (ctx.options.enable_function_references ? " without an initializer" : "") + " in " + where);
  if (type.limits.address64 && !ctx.options.enable_memory64)
    return module_error("64-bit tables (memory64) are not enabled: " + where);
  if (type.limits.address64) return check_limits(type.limits, UINT64_MAX, "", where);
  return check_limits(type.limits, kMaxTableSize, "table size must be at most 2^32-1", where);
}

Result<void> check_memory_type(const ModuleContext& ctx, const MemoryType& type, const std::string& where) {
  if (type.limits.address64 && !ctx.options.enable_memory64)
    return module_error("64-bit memories (memory64) are not enabled: " + where);
  // A 64-bit memory's bytes are 2^64 at most: 2^48 pages of 64 KiB.
  if (type.limits.address64)
    return check_limits(type.limits, uint64_t(1) << 48, "memory size must be at most 2^48 pages", where);
  return check_limits(type.limits, kMaxMemoryPages, "memory size must be at most 65536 pages (4GiB)", where);
}

// Tags (exception handling / fiber events) carry values but return nothing.
Result<void> check_tag_type(const ModuleContext& ctx, uint32_t type_index, const std::string& where) {
  if (!ctx.options.enable_fibers && !ctx.options.enable_exceptions)
    return module_error("tags are not part of Wasm 2.0 (exception handling and fibers are disabled) in " + where);
  WEFT_TRY(check_function_type_index(ctx, type_index, where, "type mismatch: tag type must be a function type"));
  if (!ctx.module.types[type_index].results.empty()) return module_error("non-empty tag result type in " + where);
  return {};
}

// -- Index spaces ----------------------------------------------------------

// Type section. Typed references may name earlier types, and a fiber type
// also itself (canonical_type_ids relies on it); a function type naming
// itself is an unknown type, as without recursion groups in Wasm 3.0.
Result<void> check_types(ModuleContext& ctx) {
  const Module& m = ctx.module;
  // Most types are function types over numbers, which need no check: the
  // others build their location for messages (a string per type would cost
  // more than the checks).
  auto numeric = [](ValType t) { return t.kind <= ValType::F64; };
  for (size_t i = 0; i < m.types.size(); ++i) {
    const FuncType& type = m.types[i];
    if (!type.is_fiber && std::ranges::all_of(type.params, numeric) && std::ranges::all_of(type.results, numeric))
      continue;
    const std::string where = entity("type", i);
    if (type.is_fiber) {
      if (!ctx.options.enable_fibers) return module_error("fiber support is not enabled: fiber type in " + where);
      if (!type.params.empty()) return module_error("fiber type with parameters in " + where);
    }
    const uint32_t bound = uint32_t(i) + (type.is_fiber ? 1 : 0);
    for (ValType t : type.params) WEFT_TRY(check_valtype(ctx, t, where, bound));
    for (ValType t : type.results) WEFT_TRY(check_valtype(ctx, t, where, bound));
  }
  ctx.canonical_types = canonical_type_ids(m);
  return {};
}

Result<void> build_index_spaces(ModuleContext& ctx) {
  const Module& m = ctx.module;
  WEFT_TRY(check_types(ctx));
  for (size_t i = 0; i < m.imports.size(); ++i) {
    const Import& imp = m.imports[i];
    const std::string where = "import " + std::to_string(i) + " \"" + imp.module + "\" \"" + imp.name + "\"";
    switch (imp.kind) {
      case ExternKind::Func:
        WEFT_TRY(check_function_type_index(ctx, imp.type_index, where));
        ctx.function_types.push_back(imp.type_index);
        break;
      case ExternKind::Table:
        WEFT_TRY(check_table_type(ctx, imp.table, true, where));
        ctx.tables.push_back(imp.table);
        break;
      case ExternKind::Memory:
        WEFT_TRY(check_memory_type(ctx, imp.memory, where));
        ++ctx.num_memories;
        ctx.memory_address64.push_back(imp.memory.limits.address64);
        break;
      case ExternKind::Global:
        WEFT_TRY(check_valtype(ctx, imp.global.type, where));
        ctx.globals.push_back(imp.global);
        ++ctx.num_imported_globals;
        break;
      case ExternKind::Tag:
        WEFT_TRY(check_tag_type(ctx, imp.type_index, where));
        ctx.tag_types.push_back(imp.type_index);
        break;
      default:
        return module_error("malformed import kind in " + where);
    }
  }
  ctx.function_types.reserve(ctx.function_types.size() + m.functions.size());
  for (size_t i = 0; i < m.functions.size(); ++i) {
    const uint32_t type_index = m.functions[i].type_index;
    if (type_index >= m.types.size() || m.types[type_index].is_fiber)  // (the location only for the message)
      WEFT_TRY(check_function_type_index(ctx, type_index, entity("function", ctx.function_types.size())));
    ctx.function_types.push_back(type_index);
  }
  for (const Table& table : m.tables) {
    WEFT_TRY(check_table_type(ctx, table.type, table.init.has_value(), entity("table", ctx.tables.size())));
    ctx.tables.push_back(table.type);
  }
  for (const Memory& memory : m.memories) {
    WEFT_TRY(check_memory_type(ctx, memory.type, entity("memory", ctx.num_memories)));
    ++ctx.num_memories;
    ctx.memory_address64.push_back(memory.type.limits.address64);
  }
  // Wasm 2.0 has one memory; more are Wasm 3.0's multi-memory.
  if (ctx.num_memories > 1 && !ctx.options.enable_multi_memory) return module_error("multiple memories");
  for (const Tag& tag : m.tags) {
    WEFT_TRY(check_tag_type(ctx, tag.type_index, entity("tag", ctx.tag_types.size())));
    ctx.tag_types.push_back(tag.type_index);
  }
  // The whole global index space is visible to code; constant expressions see
  // only the imported prefix (check_const_expr).
  for (const Global& global : m.globals) {
    WEFT_TRY(check_valtype(ctx, global.type.type, entity("global", ctx.globals.size())));
    ctx.globals.push_back(global.type);
  }
  return {};
}

// C.refs: functions referenced anywhere outside function bodies.
void compute_declared_refs(ModuleContext& ctx) {
  const Module& m = ctx.module;
  std::vector<bool>& declared = ctx.declared_function_refs;
  declared.assign(ctx.num_functions(), false);
  for (const Global& global : m.globals) mark_ref_funcs(global.init, declared);
  for (const Table& table : m.tables)
    if (table.init) mark_ref_funcs(*table.init, declared);
  for (const ElemSegment& elem : m.elems) {
    mark_ref_funcs(elem.offset, declared);
    for (const ConstExpr& item : elem.items) mark_ref_funcs(item, declared);
  }
  for (const DataSegment& data : m.datas) mark_ref_funcs(data.offset, declared);
  for (const Export& exp : m.exports)
    if (exp.kind == ExternKind::Func && exp.index < declared.size()) declared[exp.index] = true;
}

// -- Module fields ------------------------------------------------------------

Result<void> check_globals(const ModuleContext& ctx) {
  const Module& m = ctx.module;
  for (size_t i = 0; i < m.globals.size(); ++i) {
    const std::string where = entity("global", ctx.num_imported_globals + i) + " initialiser";
    WEFT_TRY(check_const_expr(ctx, m.globals[i].init, m.globals[i].type.type, where));
  }
  return {};
}

// A table's initializer sees what a global's does (the imported globals).
Result<void> check_table_inits(const ModuleContext& ctx) {
  const Module& m = ctx.module;
  const size_t first_defined = ctx.tables.size() - m.tables.size();
  for (size_t i = 0; i < m.tables.size(); ++i) {
    if (!m.tables[i].init) continue;
    if (!ctx.options.enable_function_references)
      return module_error("function references are not enabled: initializer of " + entity("table", first_defined + i));
    const std::string where = entity("table", first_defined + i) + " initializer";
    WEFT_TRY(check_const_expr(ctx, *m.tables[i].init, m.tables[i].type.element, where));
  }
  return {};
}

Result<void> check_exports(const ModuleContext& ctx) {
  const Module& m = ctx.module;
  std::vector<uint32_t> table = index_table(m.exports.size());
  bool duplicate = false;
  const uint32_t num_tags = ctx.num_tags();
  for (uint32_t i = 0; i < m.exports.size(); ++i) {
    const Export& exp = m.exports[i];
    uint32_t count = 0;
    const char* space = "";
    switch (exp.kind) {
      case ExternKind::Func: count = ctx.num_functions(); space = "function"; break;
      case ExternKind::Table: count = uint32_t(ctx.tables.size()); space = "table"; break;
      case ExternKind::Memory: count = ctx.num_memories; space = "memory"; break;
      case ExternKind::Global: count = uint32_t(ctx.globals.size()); space = "global"; break;
      case ExternKind::Tag: count = num_tags; space = "tag"; break;
      default: return module_error("malformed export kind in export \"" + exp.name + "\"");
    }
    if (exp.index >= count)
      return module_error(std::string("unknown ") + space + " " + std::to_string(exp.index) + " in export \"" +
                          exp.name + "\"");
    const uint64_t hash = hash_bytes(exp.name);
    duplicate |= first_equal(table, hash, i, [&](uint32_t j) { return m.exports[j].name == exp.name; }) != i;
  }
  if (!duplicate) return {};
  // The message names the duplicated name that sorts first, as it always has.
  std::vector<std::string_view> names;
  names.reserve(m.exports.size());
  for (const Export& exp : m.exports) names.push_back(exp.name);
  std::sort(names.begin(), names.end());
  return module_error("duplicate export name \"" + std::string(*std::adjacent_find(names.begin(), names.end())) +
                      "\"");
}

Result<void> check_start(const ModuleContext& ctx) {
  if (!ctx.module.start) return {};
  const uint32_t func = *ctx.module.start;
  if (func >= ctx.num_functions()) return module_error("unknown function " + std::to_string(func) + " as start");
  const FuncType& type = ctx.function_type(func);
  if (!type.params.empty() || !type.results.empty())
    return module_error("start function must have type [] -> [], has " + to_string(type));
  return {};
}

Result<void> check_elems(const ModuleContext& ctx) {
  const Module& m = ctx.module;
  for (size_t i = 0; i < m.elems.size(); ++i) {
    const ElemSegment& elem = m.elems[i];
    const std::string where = entity("elem segment", i);
    WEFT_TRY(check_valtype(ctx, elem.type, where));
    if (!elem.type.is_ref()) return module_error("malformed reference type in " + where);
    const std::string item_where = where + " item";
    for (const ConstExpr& item : elem.items) WEFT_TRY(check_const_expr(ctx, item, elem.type, item_where));
    if (elem.mode == SegmentMode::Active) {
      if (elem.table >= ctx.tables.size())
        return module_error("unknown table " + std::to_string(elem.table) + " in " + where);
      WEFT_TRY(check_const_expr(ctx, elem.offset,
                                ctx.tables[elem.table].limits.address64 ? ValType::i64() : ValType::i32(),
                                where + " offset"));
      const ValType table_elem = ctx.tables[elem.table].element;
      if (!ctx.is_subtype(ctx.elem_type(elem), table_elem))
        return module_error("type mismatch: " + where + " of " + to_string(elem.type) + " for a table of " +
                            to_string(table_elem));
    }
  }
  return {};
}

Result<void> check_datas(const ModuleContext& ctx) {
  const Module& m = ctx.module;
  for (size_t i = 0; i < m.datas.size(); ++i) {
    const DataSegment& data = m.datas[i];
    if (data.mode != SegmentMode::Active) continue;
    const std::string where = entity("data segment", i);
    if (data.memory >= ctx.num_memories)
      return module_error("unknown memory " + std::to_string(data.memory) + " in " + where);
    WEFT_TRY(check_const_expr(ctx, data.offset, ctx.memory_address64[data.memory] ? ValType::i64() : ValType::i32(),
                              where + " offset"));
  }
  if (m.data_count && *m.data_count != m.datas.size())
    return make_error(ErrorKind::Malformed, "data count and data section have inconsistent lengths");
  return {};
}

}  // namespace

std::vector<uint32_t> canonical_type_ids(const Module& module) {
  const size_t n = module.types.size();
  std::vector<uint32_t> canonical(n);
  // A type's key: its shape, then each value type with typed references
  // replaced by the canonical id of their target. Targets are earlier types
  // (already canonical) or the type itself (a distinct marker); anything else
  // is invalid and keeps its raw index, so it never matches a valid type.
  constexpr uint64_t kSelf = 1ull << 32, kRaw = 1ull << 33;
  std::vector<uint64_t> keys;              // every type's key, back to back
  std::vector<size_t> key_begin(n + 1, 0);  // type i's key: keys[key_begin[i], key_begin[i + 1])
  std::vector<uint32_t> table = index_table(n);
  auto key = [&](size_t i) {
    return std::span<const uint64_t>(keys.data() + key_begin[i], key_begin[i + 1] - key_begin[i]);
  };
  for (size_t i = 0; i < n; ++i) {
    const FuncType& type = module.types[i];
    key_begin[i] = keys.size();
    keys.push_back(uint64_t(type.is_fiber) | uint64_t(type.params.size()) << 1);
    auto add = [&](ValType t) {
      uint64_t target = 0;
      if (t.kind == ValType::TypedRef)
        target = t.type_index < i ? canonical[t.type_index] : t.type_index == i ? kSelf : kRaw | t.type_index;
      keys.push_back(uint64_t(t.kind) | uint64_t(t.is_ref() && t.nullable) << 8 | target << 16);
    };
    for (ValType t : type.params) add(t);
    for (ValType t : type.results) add(t);
    key_begin[i + 1] = keys.size();
    const std::span<const uint64_t> own = key(i);
    canonical[i] = first_equal(table, hash_words(own), uint32_t(i),
                               [&](uint32_t j) { return std::ranges::equal(key(j), own); });
  }
  return canonical;
}

namespace {
// How many threads validate the function bodies: one below kBytesPerThread
// of code (starting a thread costs more than it saves), else up to one per
// core.
constexpr size_t kBytesPerThread = size_t(1) << 20;
constexpr uint32_t kFunctionsPerClaim = 32;

unsigned code_threads(const Module& module, unsigned requested) {
  if (requested) return requested;
  size_t bytes = 0;
  for (const Function& f : module.functions) bytes += f.body.size();
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  return unsigned(std::min<size_t>({cores, 8, std::max<size_t>(1, bytes / kBytesPerThread)}));
}

// The bodies are independent: several threads, each with its own
// CodeValidator, claim functions in order, kFunctionsPerClaim at a time. The
// error reported is the first failing function's — every function before it
// is validated — so it is the one a single thread reports.
Result<void> validate_code(const ModuleContext& ctx, ValidationInfo& info) {
  const uint32_t count = uint32_t(ctx.module.functions.size());
  const unsigned threads = code_threads(ctx.module, ctx.options.threads);
  if (threads <= 1) {
    CodeValidator code(ctx);
    for (uint32_t i = 0; i < count; ++i) WEFT_TRY(code.validate(i, info.functions[i]));
    return {};
  }
  std::atomic<uint32_t> next{0};
  std::atomic<uint32_t> first_failure{UINT32_MAX};
  struct Failure {
    uint32_t index = UINT32_MAX;
    std::optional<Error> error;
  };
  std::vector<Failure> failures(threads);
  auto work = [&](Failure& failure) {
    CodeValidator code(ctx);
    for (;;) {
      const uint32_t start = next.fetch_add(kFunctionsPerClaim, std::memory_order_relaxed);
      if (start >= count || start > first_failure.load(std::memory_order_relaxed)) return;
      const uint32_t end = std::min(count, start + kFunctionsPerClaim);
      for (uint32_t i = start; i < end; ++i) {
        Result<void> r = code.validate(i, info.functions[i]);
        if (r.ok()) continue;
        failure.index = i;
        failure.error = std::move(r.error());
        uint32_t seen = first_failure.load(std::memory_order_relaxed);
        while (i < seen && !first_failure.compare_exchange_weak(seen, i, std::memory_order_relaxed)) {
        }
        return;  // what is left is after this failure
      }
    }
  };
  std::vector<std::thread> helpers;
  for (unsigned t = 1; t < threads; ++t) {
    try {
      helpers.emplace_back(work, std::ref(failures[t]));
    } catch (const std::system_error&) {
      break;  // no more threads: the others do the rest
    }
  }
  work(failures[0]);
  for (std::thread& helper : helpers) helper.join();
  const Failure* first = nullptr;
  for (const Failure& f : failures)
    if (f.error && (!first || f.index < first->index)) first = &f;
  if (first) return *first->error;
  return {};
}
}  // namespace

Result<ValidationInfo> validate_module(const Module& module, const ValidateOptions& options) {
  ModuleContext ctx{.module = module, .options = options};
  WEFT_TRY(build_index_spaces(ctx));
  compute_declared_refs(ctx);
  WEFT_TRY(check_globals(ctx));
  WEFT_TRY(check_table_inits(ctx));
  WEFT_TRY(check_exports(ctx));
  WEFT_TRY(check_start(ctx));
  WEFT_TRY(check_elems(ctx));
  WEFT_TRY(check_datas(ctx));

  ValidationInfo info;
  info.functions.resize(module.functions.size());
  WEFT_TRY(validate_code(ctx, info));
  info.declared_function_refs = std::move(ctx.declared_function_refs);
  info.canonical_types = std::move(ctx.canonical_types);
  info.function_types = std::move(ctx.function_types);
  return info;
}

}  // namespace weft::validator
