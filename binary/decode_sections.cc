// Decoding of the declaration sections (type … export, start, data count, tag)
// and the code section.
#include "binary/module_decoder.h"

namespace weft::binary::detail {

// ---------------------------------------------------------------------------
// Shared pieces

bool ModuleDecoder::limits(Reader& r, Limits& out) {
  // Bit 0: a maximum follows; bit 2 (memory64, Wasm 3.0): the address type is
  // i64 and the bounds are u64. Wasm 2.0 reads the flags as a 1-bit LEB: a
  // continuation bit is "too long", any other bit "too large". (No shared
  // limits: bit 1 is the threads proposal's.)
  uint8_t flags = 0;
  if (!r.u8(flags)) return false;
  const bool allowed = flags <= 1 || (options.enable_memory64 && (flags == 4 || flags == 5));
  if (!allowed) {
    if (options.enable_memory64) return r.fail_at(r.offset() - 1, "malformed limits flags");
    if (flags == 4 || flags == 5)
      return r.fail_at(r.offset() - 1, "integer too large: 64-bit memories and tables (memory64) are not enabled");
    if (flags & 0x80) return r.fail_at(r.offset() - 1, "integer representation too long");
    return r.fail_at(r.offset() - 1, "integer too large");
  }
  out.address64 = flags & 4;
  out.max.reset();
  if (out.address64) {
    uint64_t max = 0;
    if (!r.u64(out.min)) return false;
    if (flags & 1) {
      if (!r.u64(max)) return false;
      out.max = max;
    }
    return true;
  }
  uint32_t min = 0, max = 0;
  if (!r.u32(min)) return false;
  out.min = min;
  if (flags & 1) {
    // max < min and memory sizes beyond 4 GiB are validation errors, not malformed.
    if (!r.u32(max)) return false;
    out.max = max;
  }
  return true;
}

bool ModuleDecoder::table_type(Reader& r, TableType& out) {
  return read_ref_type(r, options.enable_fibers, out.element) && limits(r, out.limits);
}

bool ModuleDecoder::global_type(Reader& r, GlobalType& out) {
  if (!value_type(r, out.type)) return false;
  uint8_t mut = 0;
  if (!r.u8(mut)) return false;
  if (mut > 1) return r.fail_at(r.offset() - 1, "malformed mutability");
  out.is_mutable = mut == 1;
  return true;
}

bool ModuleDecoder::const_expr(Reader& r, ConstExpr& out) {
  // Any instruction sequence is well-formed here; which instructions are
  // constant is the validator's business.
  const uint8_t* start = r.pos();
  if (!walker.read_expression(r, expr_context())) return false;
  out.code.assign(start, r.pos());
  return true;
}

// ---------------------------------------------------------------------------
// Sections 1–8, 12, 13

bool ModuleDecoder::type_section(Reader& r) {
  auto read_type = [&](ValType& t) { return value_type(r, t); };
  return read_vec(r, module.types, 2, [&](FuncType& type) {
    uint8_t form = 0;
    if (!r.u8(form)) return false;
    // The spec reads the form as a one-byte signed LEB.
    if (form & 0x80) return r.fail_at(r.offset() - 1, "integer representation too long");
    if (form == 0x5C && options.enable_fibers) {
      // Fiber extension: `fiber (result r*)` = 0x5C vec(valtype), no params.
      type.is_fiber = true;
      return read_vec(r, type.results, 1, read_type);
    }
    if (form != 0x60) return r.fail_at(r.offset() - 1, "malformed function type");
    return read_vec(r, type.params, 1, read_type) && read_vec(r, type.results, 1, read_type);
  });
}

bool ModuleDecoder::import_section(Reader& r) {
  return read_vec(r, module.imports, 4, [&](Import& imp) { return import(r, imp); });
}

bool ModuleDecoder::import(Reader& r, Import& imp) {
  if (!r.name(imp.module) || !r.name(imp.name)) return false;
  const uint64_t kind_offset = r.offset();
  uint8_t kind = 0;
  if (!r.u8(kind)) return false;
  switch (kind) {
    case kExternFunc:
      imp.kind = ExternKind::Func;
      if (!r.u32(imp.type_index)) return false;
      break;
    case kExternTable:
      imp.kind = ExternKind::Table;
      if (!table_type(r, imp.table)) return false;
      break;
    case kExternMemory:
      imp.kind = ExternKind::Memory;
      if (!limits(r, imp.memory.limits)) return false;
      break;
    case kExternGlobal:
      imp.kind = ExternKind::Global;
      if (!global_type(r, imp.global)) return false;
      break;
    case kExternTag:
      if (!options.tags_enabled()) return r.fail_at(kind_offset, "malformed import kind");
      imp.kind = ExternKind::Tag;
      if (!tag_type(r, imp.type_index)) return false;
      break;
    default: return r.fail_at(kind_offset, "malformed import kind");
  }
  return true;
}

bool ModuleDecoder::function_section(Reader& r) {
  return read_vec(r, module.functions, 1, [&](Function& func) { return r.u32(func.type_index); });
}

bool ModuleDecoder::table_section(Reader& r) {
  return read_vec(r, module.tables, 3, [&](Table& table) {
    if (r.remaining() == 0 || *r.pos() != 0x40) return table_type(r, table.type);
    // 0x40 0x00 tabletype expr: a table with an initializer (typed function references).
    uint8_t zero = 0;
    if (!r.skip(1) || !r.u8(zero)) return false;
    if (zero != 0x00) return r.fail_at(r.offset() - 1, "malformed table");
    table.init.emplace();
    return table_type(r, table.type) && const_expr(r, *table.init);
  });
}

bool ModuleDecoder::memory_section(Reader& r) {
  return read_vec(r, module.memories, 2, [&](Memory& memory) { return limits(r, memory.type.limits); });
}

bool ModuleDecoder::tag_section(Reader& r) {
  return read_vec(r, module.tags, 2, [&](Tag& tag) { return tag_type(r, tag.type_index); });
}

bool ModuleDecoder::tag_type(Reader& r, uint32_t& type_index) {
  uint8_t attribute = 0;
  if (!r.u8(attribute)) return false;
  // The exception-handling attribute: 0 = exception, the only one defined.
  if (attribute != 0) return r.fail_at(r.offset() - 1, "malformed tag attribute");
  return r.u32(type_index);
}

bool ModuleDecoder::global_section(Reader& r) {
  return read_vec(r, module.globals, 3,
                  [&](Global& global) { return global_type(r, global.type) && const_expr(r, global.init); });
}

bool ModuleDecoder::export_section(Reader& r) {
  return read_vec(r, module.exports, 3, [&](Export& exp) {
    if (!r.name(exp.name)) return false;
    uint8_t kind = 0;
    if (!r.u8(kind)) return false;
    if (kind > kExternTag || (kind == kExternTag && !options.tags_enabled())) {
      return r.fail_at(r.offset() - 1, "malformed export kind");
    }
    exp.kind = ExternKind(kind);
    return r.u32(exp.index);
  });
}

bool ModuleDecoder::start_section(Reader& r) {
  uint32_t index = 0;
  if (!r.u32(index)) return false;
  module.start = index;
  return true;
}

bool ModuleDecoder::data_count_section(Reader& r) {
  uint32_t count = 0;
  if (!r.u32(count)) return false;
  module.data_count = count;
  return true;
}

// ---------------------------------------------------------------------------
// Code section

bool ModuleDecoder::code_section(Reader& r) {
  const uint64_t count_offset = r.offset();
  uint32_t n = 0;
  if (!r.count(n)) return false;
  if (n != module.functions.size()) {
    return r.fail_at(count_offset, "function and code section have inconsistent lengths");
  }
  saw_code_section = true;
  // The bodies are views (FunctionBody::view) of bytes the module keeps:
  // the caller's input when given an owner (Module::source), else one copy
  // of the rest of this section, made here — one allocation, not one per
  // function.
  if (!module.source) {
    auto copy = std::make_shared<const std::vector<uint8_t>>(r.pos(), r.end());
    code_copy_origin = r.pos();
    code_copy = copy->data();
    module.source = std::move(copy);
  }
  for (Function& func : module.functions) {
    uint32_t size = 0;
    if (!r.length(size)) return false;
    Reader body = r.take(size, kUnexpectedEndOfSection);
    if (!function_body(body, func)) return false;
  }
  return true;
}

bool ModuleDecoder::function_body(Reader& r, Function& func) {
  uint64_t total = 0;
  const bool locals_ok = read_vec(r, func.locals, 2, [&](LocalGroup& group) {
    const uint64_t at = r.offset();
    if (!r.u32(group.count)) return false;
    total += group.count;
    // The spec's only bound: the total must fit the u32 local index space.
    if (total > 0xFFFFFFFFull) return r.fail_at(at, "too many locals");
    return value_type(r, group.type);
  });
  if (!locals_ok) return false;

  const uint8_t* start = r.pos();
  if (options.defer_body_checks)
    r.seek(r.end());
  else if (!body_instructions(r, module.data_count.has_value()))
    return false;
  const uint8_t* kept = code_copy ? code_copy + (start - code_copy_origin) : start;
  func.body = FunctionBody::view({kept, size_t(r.pos() - start)});
  func.body_offset = r.offset_of(start);
  ++bodies_read;
  return true;
}

bool ModuleDecoder::body_instructions(Reader& r, bool have_data_count) {
  ExprContext ctx = expr_context();
  ctx.check_data_count = true;
  ctx.have_data_count = have_data_count;
  // A body that stops short of its `end`: at the end of the whole input the
  // spec reader hits end-of-data, elsewhere it reads on into the next body.
  ctx.missing_end_message = r.end() == bytes.data() + bytes.size() ? kUnexpectedEndOfSection
                                                                   : "END opcode expected";
  if (!walker.read_expression(r, ctx)) return false;
  if (!r.at_end()) return r.fail("section size mismatch");
  return true;
}

bool ModuleDecoder::check_bodies(const std::vector<Function>& functions, size_t count, bool have_data_count) {
  const uint8_t* base = bytes.data();
  for (size_t i = 0; i < count; ++i) {
    const Function& f = functions[i];
    const uint8_t* start = base + f.body_offset;
    Reader r(base, start, start + f.body.size(), &failure, kUnexpectedEndOfSection);
    if (!body_instructions(r, have_data_count)) return false;
  }
  return true;
}

}  // namespace weft::binary::detail
