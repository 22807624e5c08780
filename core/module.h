// The Module IR: pure data produced by binary/ (decoder) and text/ (parser),
// consumed by validator/, runtime/ and binary/ (writer). Function bodies and
// constant expressions are kept in their binary encoding: the text parser
// encodes instructions to bytes, so every later stage has one input format.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/function_body.h"
#include "core/types.h"

namespace weft {

// A constant expression (global initialiser, segment offset, element item):
// its instruction bytes including the final `end` (0x0B).
struct ConstExpr {
  std::vector<uint8_t> code;
  friend bool operator==(const ConstExpr&, const ConstExpr&) = default;
};

struct Import {
  std::string module;
  std::string name;
  ExternKind kind = ExternKind::Func;
  uint32_t type_index = 0;  // Func: function type index; Tag: tag's function type index
  TableType table;          // Table
  MemoryType memory;        // Memory
  GlobalType global;        // Global
  friend bool operator==(const Import&, const Import&) = default;
};

// Run-length locals as in the binary format: `count` locals of `type`.
struct LocalGroup {
  uint32_t count = 0;
  ValType type;
  friend bool operator==(const LocalGroup&, const LocalGroup&) = default;
};

// A function defined in the module (imports are in Module::imports).
struct Function {
  uint32_t type_index = 0;
  std::vector<LocalGroup> locals;  // declared locals, params excluded
  FunctionBody body;               // instruction bytes, ends with the function's `end`
  uint64_t body_offset = 0;        // byte offset of `body` in the binary (0 for text)
  friend bool operator==(const Function& a, const Function& b) {
    return a.type_index == b.type_index && a.locals == b.locals && a.body == b.body;
  }
};

struct Table {
  TableType type;
  // Every element's initial value (typed function references: binary
  // 0x40 0x00 tabletype expr); without one, null.
  std::optional<ConstExpr> init = std::nullopt;
  friend bool operator==(const Table&, const Table&) = default;
};

struct Memory {
  MemoryType type;
  friend bool operator==(const Memory&, const Memory&) = default;
};

struct Global {
  GlobalType type;
  ConstExpr init;
  friend bool operator==(const Global&, const Global&) = default;
};

struct Tag {
  uint32_t type_index = 0;  // a function type with no results
  friend bool operator==(const Tag&, const Tag&) = default;
};

struct Export {
  std::string name;
  ExternKind kind = ExternKind::Func;
  uint32_t index = 0;
  friend bool operator==(const Export&, const Export&) = default;
};

enum class SegmentMode : uint8_t { Active, Passive, Declarative };

struct ElemSegment {
  SegmentMode mode = SegmentMode::Active;
  ValType type = ValType::funcref();
  uint32_t table = 0;           // Active only
  ConstExpr offset;             // Active only
  // Every item as a constant expression; the function-index encodings become
  // `ref.func i; end`. `uses_expressions` remembers which encoding was used so
  // the writer can reproduce it.
  std::vector<ConstExpr> items;
  bool uses_expressions = false;
  friend bool operator==(const ElemSegment& a, const ElemSegment& b) {
    return a.mode == b.mode && a.type == b.type && a.table == b.table && a.offset == b.offset &&
           a.items == b.items;
  }
};

struct DataSegment {
  SegmentMode mode = SegmentMode::Active;  // Active or Passive
  uint32_t memory = 0;
  ConstExpr offset;
  std::vector<uint8_t> bytes;
  friend bool operator==(const DataSegment&, const DataSegment&) = default;
};

// A custom section, kept verbatim. `after_section` is the id of the last known
// section that preceded it (0 = before all), so the writer can put it back.
struct CustomSection {
  std::string name;
  std::vector<uint8_t> bytes;
  uint8_t after_section = 0;
  friend bool operator==(const CustomSection&, const CustomSection&) = default;
};

// Debug names from the "name" custom section (or text identifiers).
struct NameMap {
  std::optional<std::string> module_name;
  std::vector<std::pair<uint32_t, std::string>> function_names;  // sorted by index
};

struct Module {
  std::vector<FuncType> types;
  std::vector<Import> imports;
  std::vector<Function> functions;
  std::vector<Table> tables;
  std::vector<Memory> memories;
  std::vector<Global> globals;
  std::vector<Tag> tags;
  std::vector<Export> exports;
  std::optional<uint32_t> start;
  std::vector<ElemSegment> elems;
  std::vector<DataSegment> datas;
  std::optional<uint32_t> data_count;  // present iff the binary had a DataCount section
  std::vector<CustomSection> customs;
  NameMap names;
  // The bytes the decoder's function bodies view: the input, when the
  // caller handed it over (binary::decode_module with an owner), else one
  // copy of the code section. Shared, so that a copy of the module and
  // everything compiled from it keep the bytes alive.
  std::shared_ptr<const void> source;

  // Counts of imported entities, in index-space order (imports come first).
  uint32_t num_imported_functions() const { return count_imports(ExternKind::Func); }
  uint32_t num_imported_tables() const { return count_imports(ExternKind::Table); }
  uint32_t num_imported_memories() const { return count_imports(ExternKind::Memory); }
  uint32_t num_imported_globals() const { return count_imports(ExternKind::Global); }
  uint32_t num_imported_tags() const { return count_imports(ExternKind::Tag); }

  uint32_t total_functions() const { return num_imported_functions() + uint32_t(functions.size()); }
  uint32_t total_tables() const { return num_imported_tables() + uint32_t(tables.size()); }
  uint32_t total_memories() const { return num_imported_memories() + uint32_t(memories.size()); }
  uint32_t total_globals() const { return num_imported_globals() + uint32_t(globals.size()); }
  uint32_t total_tags() const { return num_imported_tags() + uint32_t(tags.size()); }

  // Index-space lookups (imports first). Callers must pass a valid index.
  uint32_t function_type_index(uint32_t func_index) const;
  const FuncType& function_type(uint32_t func_index) const { return types[function_type_index(func_index)]; }
  TableType table_type(uint32_t table_index) const;
  MemoryType memory_type(uint32_t memory_index) const;
  GlobalType global_type(uint32_t global_index) const;
  uint32_t tag_type_index(uint32_t tag_index) const;

  // Name of a function for backtraces: from the name section, else the name
  // it is exported by, else "func[N]".
  std::string function_name(uint32_t func_index) const;
  // One backtrace line's description: the name with the index beside it,
  // "inner (func[3])", or just "func[3]" when it has no name.
  std::string function_description(uint32_t func_index) const;

 private:
  uint32_t count_imports(ExternKind kind) const;
};

}  // namespace weft
