// Internal: the state of one decode_module call, shared by the files that
// decode the module's sections (decoder.cc, decode_sections.cc, decode_segments.cc).
#pragma once

#include <cstdint>
#include <span>

#include "binary/code_walker.h"
#include "binary/decoder.h"
#include "binary/reader.h"
#include "core/module.h"

namespace weft::binary::detail {

// Known section ids.
enum SectionId : uint8_t {
  kCustomSection = 0,
  kTypeSection = 1,
  kImportSection = 2,
  kFunctionSection = 3,
  kTableSection = 4,
  kMemorySection = 5,
  kGlobalSection = 6,
  kExportSection = 7,
  kStartSection = 8,
  kElemSection = 9,
  kCodeSection = 10,
  kDataSection = 11,
  kDataCountSection = 12,
  kTagSection = 13,  // exception-handling / fiber tags
};

// The order known sections must appear in (each at most once); the tag
// section sits between memory and global as in the exception-handling proposal.
inline constexpr uint8_t kSectionOrder[] = {
    kTypeSection,  kImportSection, kFunctionSection, kTableSection,     kMemorySection,
    kTagSection,   kGlobalSection, kExportSection,   kStartSection,     kElemSection,
    kDataCountSection, kCodeSection, kDataSection,
};

// Wire encodings of import/export kinds.
enum ExternByte : uint8_t { kExternFunc = 0, kExternTable = 1, kExternMemory = 2, kExternGlobal = 3, kExternTag = 4 };

struct ModuleDecoder {
  ModuleDecoder(std::span<const uint8_t> bytes, const DecodeOptions& options)
      : bytes(bytes), options(options) {}

  Result<Module> decode();

  // decoder.cc
  bool header(Reader& r);
  bool section(uint8_t id, Reader& r);
  bool custom_section(Reader& r, uint8_t after_section);

  // decode_sections.cc
  bool type_section(Reader& r);
  bool import_section(Reader& r);
  bool import(Reader& r, Import& imp);
  bool function_section(Reader& r);
  bool table_section(Reader& r);
  bool memory_section(Reader& r);
  bool tag_section(Reader& r);
  bool tag_type(Reader& r, uint32_t& type_index);
  bool global_section(Reader& r);
  bool export_section(Reader& r);
  bool start_section(Reader& r);
  bool data_count_section(Reader& r);
  bool code_section(Reader& r);
  bool function_body(Reader& r, Function& func);
  // A body's instructions after its locals (the part defer_body_checks skips).
  bool body_instructions(Reader& r, bool have_data_count);
  // body_instructions of functions[0, count), read again from `bytes`.
  bool check_bodies(const std::vector<Function>& functions, size_t count, bool have_data_count);

  bool limits(Reader& r, Limits& out);
  bool table_type(Reader& r, TableType& out);
  bool global_type(Reader& r, GlobalType& out);
  bool value_type(Reader& r, ValType& out) {
    return read_value_type(r, options.enable_simd, options.enable_fibers, out);
  }
  ExprContext expr_context() const {
    ExprContext ctx;
    ctx.enable_simd = options.enable_simd;
    ctx.enable_fibers = options.enable_fibers;
    ctx.enable_multi_memory = options.enable_multi_memory;
    ctx.enable_memory64 = options.enable_memory64;
    return ctx;
  }
  bool const_expr(Reader& r, ConstExpr& out);

  // decode_segments.cc
  bool elem_section(Reader& r);
  bool elem_segment(Reader& r, ElemSegment& seg);
  bool data_section(Reader& r);
  bool data_segment(Reader& r, DataSegment& seg);

  std::span<const uint8_t> bytes;
  DecodeOptions options;
  Failure failure;
  Module module;
  CodeWalker walker;
  bool saw_code_section = false;
  size_t bodies_read = 0;  // function bodies sliced so far
  // The code section's copy the bodies view, and where it starts in the
  // input (null: the bodies view the input, kept by Module::source).
  const uint8_t* code_copy = nullptr;
  const uint8_t* code_copy_origin = nullptr;
};

}  // namespace weft::binary::detail
