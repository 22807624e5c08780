// Decoding of element segments (all eight encodings, normalised to constant
// expressions) and data segments.
#include "binary/module_decoder.h"

#include "core/leb128.h"

namespace weft::binary::detail {

namespace {
// The `ref.func i; end` expression that a function-index item stands for.
ConstExpr ref_func_expr(uint32_t func_index) {
  ConstExpr e;
  e.code.reserve(7);
  e.code.push_back(0xD2);
  write_leb_u32(e.code, func_index);
  e.code.push_back(0x0B);
  return e;
}
}  // namespace

bool ModuleDecoder::elem_section(Reader& r) {
  return read_vec(r, module.elems, 3, [&](ElemSegment& seg) { return elem_segment(r, seg); });
}

bool ModuleDecoder::elem_segment(Reader& r, ElemSegment& seg) {
  // Flag bits: 0 = passive/declarative, 1 = explicit table (active) or
  // declarative (otherwise), 2 = items are expressions.
  const uint64_t flags_offset = r.offset();
  uint32_t flags = 0;
  if (!r.u32(flags)) return false;
  if (flags > 7) return r.fail_at(flags_offset, "malformed elements segment kind");
  const bool passive_or_declarative = flags & 1;
  const bool has_table_or_declarative = flags & 2;
  seg.uses_expressions = flags & 4;

  if (passive_or_declarative) {
    seg.mode = has_table_or_declarative ? SegmentMode::Declarative : SegmentMode::Passive;
  } else {
    seg.mode = SegmentMode::Active;
    if (has_table_or_declarative && !r.u32(seg.table)) return false;
    if (!const_expr(r, seg.offset)) return false;
  }

  // Flags 0 and 4 imply funcref; the others spell out an element kind
  // (function indices) or a reference type (expressions).
  seg.type = ValType::funcref();
  if (flags & 3) {
    if (seg.uses_expressions) {
      if (!read_ref_type(r, options.enable_fibers, seg.type)) return false;
    } else {
      uint8_t elem_kind = 0;
      if (!r.u8(elem_kind)) return false;
      if (elem_kind != 0x00) return r.fail_at(r.offset() - 1, "malformed element kind");
    }
  }

  return read_vec(r, seg.items, 1, [&](ConstExpr& item) {
    if (seg.uses_expressions) return const_expr(r, item);
    uint32_t func_index = 0;
    if (!r.u32(func_index)) return false;
    item = ref_func_expr(func_index);
    return true;
  });
}

bool ModuleDecoder::data_section(Reader& r) {
  // Checked before the segments: the count is all the spec compares.
  Reader peek = r;
  uint32_t n = 0;
  if (!peek.u32(n)) return false;
  if (module.data_count && *module.data_count != n) {
    return r.fail("data count and data section have inconsistent lengths");
  }
  return read_vec(r, module.datas, 2, [&](DataSegment& seg) { return data_segment(r, seg); });
}

bool ModuleDecoder::data_segment(Reader& r, DataSegment& seg) {
  const uint64_t flags_offset = r.offset();
  uint32_t flags = 0;
  if (!r.u32(flags)) return false;
  switch (flags) {
    case 0:  // active, memory 0
      seg.mode = SegmentMode::Active;
      if (!const_expr(r, seg.offset)) return false;
      break;
    case 1:
      seg.mode = SegmentMode::Passive;
      break;
    case 2:  // active, explicit memory
      seg.mode = SegmentMode::Active;
      if (!r.u32(seg.memory) || !const_expr(r, seg.offset)) return false;
      break;
    default: return r.fail_at(flags_offset, "malformed data segment kind");
  }
  uint32_t size = 0;
  if (!r.length(size)) return false;
  seg.bytes.assign(r.pos(), r.pos() + size);
  return r.skip(size);
}

}  // namespace weft::binary::detail
