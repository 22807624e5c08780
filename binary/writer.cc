// write_module: sections in canonical order, custom sections back where they
// were found, element segments in their most compact encoding.
#include "binary/writer.h"

#include <span>
#include <string>

#include "binary/names.h"
#include "core/instruction_reader.h"
#include "core/leb128.h"

namespace weft::binary {
namespace {

// Section ids in the order they are written; a custom section goes right after
// the section named by its `after_section` (0 = right after the header).
constexpr uint8_t kAnchorOrder[] = {0, 1, 2, 3, 4, 5, 13, 6, 7, 8, 9, 12, 10, 11};

class Encoder {
 public:
  explicit Encoder(std::vector<uint8_t>& out) : out_(out) {}

  void byte(uint8_t b) { out_.push_back(b); }
  void u32(uint32_t v) { write_leb_u32(out_, v); }
  void bytes(std::span<const uint8_t> v) { out_.insert(out_.end(), v.begin(), v.end()); }
  void name(const std::string& s) {
    u32(uint32_t(s.size()));
    out_.insert(out_.end(), s.begin(), s.end());
  }

  void value_type(ValType t) {
    switch (t.kind) {
      case ValType::I32: return byte(0x7F);
      case ValType::I64: return byte(0x7E);
      case ValType::F32: return byte(0x7D);
      case ValType::F64: return byte(0x7C);
      case ValType::V128: return byte(0x7B);
      case ValType::FuncRef: return ref_type(t.nullable, 0x70);
      case ValType::ExternRef: return ref_type(t.nullable, 0x6F);
      case ValType::FiberRef: return ref_type(t.nullable, 0x5B);
      case ValType::ExnRef: return ref_type(t.nullable, 0x69);
      case ValType::TypedRef:
        // Fiber extension: (ref null? $g) = 0x63/0x64 + s33 type index.
        byte(t.nullable ? 0x63 : 0x64);
        write_leb_s64(out_, int64_t(t.type_index));
        return;
    }
  }

  void limits(const Limits& l) {
    byte(uint8_t((l.max ? 0x01 : 0x00) | (l.address64 ? 0x04 : 0x00)));
    write_leb_u64(out_, l.min);
    if (l.max) write_leb_u64(out_, *l.max);
  }
  void table_type(const TableType& t) {
    value_type(t.element);
    limits(t.limits);
  }
  void global_type(const GlobalType& t) {
    value_type(t.type);
    byte(t.is_mutable ? 0x01 : 0x00);
  }

 private:
  // Nullable abstract references have one-byte shorthands; (ref ht) is 0x64 ht.
  void ref_type(bool nullable, uint8_t heap_type) {
    if (!nullable) byte(0x64);
    byte(heap_type);
  }

  std::vector<uint8_t>& out_;
};

// If `e` is exactly the canonical `ref.func i; end` (minimal LEB), sets `index`.
// Only then may the function-index encoding stand in for it: the decoder
// rebuilds exactly these bytes.
bool canonical_ref_func(const ConstExpr& e, uint32_t& index) {
  InstructionReader reader(e.code);
  Instruction in;
  if (!reader.next(in) || in.op != Opcode::RefFunc) return false;
  index = in.index;
  const size_t index_bytes = reader.pos() - 1;  // after the one opcode byte
  if (!reader.next(in) || in.op != Opcode::End || !reader.at_end()) return false;
  std::vector<uint8_t> minimal;
  write_leb_u32(minimal, index);
  return minimal.size() == index_bytes;
}

class ModuleWriter {
 public:
  explicit ModuleWriter(const Module& m) : m_(m) {}

  std::vector<uint8_t> run() {
    out_ = {0x00, 0x61, 0x73, 0x6D, 0x01, 0x00, 0x00, 0x00};
    for (uint8_t anchor : kAnchorOrder) {
      if (anchor != 0) known_section(anchor);
      customs_after(anchor);
    }
    // Customs anchored at ids no section has go last.
    for (const CustomSection& c : m_.customs) {
      if (!is_anchor(c.after_section)) custom(c.name, c.bytes);
    }
    if (has_names(m_.names) && !has_custom("name")) custom("name", encode_name_section(m_.names));
    return std::move(out_);
  }

 private:
  static bool is_anchor(uint8_t id) {
    for (uint8_t a : kAnchorOrder) {
      if (a == id) return true;
    }
    return false;
  }
  bool has_custom(std::string_view name) const {
    for (const CustomSection& c : m_.customs) {
      if (c.name == name) return true;
    }
    return false;
  }
  bool anchors_custom(uint8_t id) const {
    for (const CustomSection& c : m_.customs) {
      if (c.after_section == id) return true;
    }
    return false;
  }

  void customs_after(uint8_t anchor) {
    for (const CustomSection& c : m_.customs) {
      if (c.after_section == anchor) custom(c.name, c.bytes);
    }
  }

  void custom(const std::string& name, const std::vector<uint8_t>& payload) {
    content_.clear();
    Encoder e(content_);
    e.name(name);
    e.bytes(payload);
    flush(0);
  }

  // Writes section `id` if it has content. An empty vector section is still
  // written when a custom section was found after it, so decoding the output
  // gives the same `after_section`.
  void known_section(uint8_t id) {
    content_.clear();
    Encoder e(content_);
    const bool anchored = anchors_custom(id);
    auto vec_section = [&](size_t n, auto&& write_items) {
      if (n == 0 && !anchored) return;
      e.u32(uint32_t(n));
      write_items();
      flush(id);
    };
    switch (id) {
      case 1:
        vec_section(m_.types.size(), [&] {
          for (const FuncType& t : m_.types) {
            if (t.is_fiber) {
              e.byte(0x5C);  // fiber extension: `fiber (result r*)`, no params
            } else {
              e.byte(0x60);
              e.u32(uint32_t(t.params.size()));
              for (ValType v : t.params) e.value_type(v);
            }
            e.u32(uint32_t(t.results.size()));
            for (ValType v : t.results) e.value_type(v);
          }
        });
        break;
      case 2:
        vec_section(m_.imports.size(), [&] {
          for (const Import& imp : m_.imports) import(e, imp);
        });
        break;
      case 3:
        vec_section(m_.functions.size(), [&] {
          for (const Function& f : m_.functions) e.u32(f.type_index);
        });
        break;
      case 4:
        vec_section(m_.tables.size(), [&] {
          for (const Table& t : m_.tables) {
            if (t.init) {  // typed function references: 0x40 0x00 tabletype expr
              e.byte(0x40);
              e.byte(0x00);
            }
            e.table_type(t.type);
            if (t.init) e.bytes(t.init->code);
          }
        });
        break;
      case 5:
        vec_section(m_.memories.size(), [&] {
          for (const Memory& mem : m_.memories) e.limits(mem.type.limits);
        });
        break;
      case 13:
        vec_section(m_.tags.size(), [&] {
          for (const Tag& t : m_.tags) {
            e.byte(0x00);  // attribute: exception
            e.u32(t.type_index);
          }
        });
        break;
      case 6:
        vec_section(m_.globals.size(), [&] {
          for (const Global& g : m_.globals) {
            e.global_type(g.type);
            e.bytes(g.init.code);
          }
        });
        break;
      case 7:
        vec_section(m_.exports.size(), [&] {
          for (const Export& x : m_.exports) {
            e.name(x.name);
            e.byte(uint8_t(x.kind));
            e.u32(x.index);
          }
        });
        break;
      case 8:
        if (!m_.start) return;
        e.u32(*m_.start);
        flush(id);
        break;
      case 9:
        vec_section(m_.elems.size(), [&] {
          for (const ElemSegment& seg : m_.elems) elem(e, seg);
        });
        break;
      case 12:
        // The count the decoder checks against the data section.
        if (!m_.data_count) return;
        e.u32(uint32_t(m_.datas.size()));
        flush(id);
        break;
      case 10:
        vec_section(m_.functions.size(), [&] {
          for (const Function& f : m_.functions) code(e, f);
        });
        break;
      case 11:
        vec_section(m_.datas.size(), [&] {
          for (const DataSegment& seg : m_.datas) data(e, seg);
        });
        break;
      default: break;
    }
  }

  static void import(Encoder& e, const Import& imp) {
    e.name(imp.module);
    e.name(imp.name);
    e.byte(uint8_t(imp.kind));
    switch (imp.kind) {
      case ExternKind::Func: e.u32(imp.type_index); break;
      case ExternKind::Table: e.table_type(imp.table); break;
      case ExternKind::Memory: e.limits(imp.memory.limits); break;
      case ExternKind::Global: e.global_type(imp.global); break;
      case ExternKind::Tag:
        e.byte(0x00);
        e.u32(imp.type_index);
        break;
    }
  }

  void elem(Encoder& e, const ElemSegment& seg) {
    // Function indices when every item is a plain `ref.func`, else expressions.
    indices_.clear();
    bool use_indices = !seg.uses_expressions && seg.type == ValType::funcref();
    for (size_t i = 0; use_indices && i < seg.items.size(); ++i) {
      uint32_t index = 0;
      use_indices = canonical_ref_func(seg.items[i], index);
      indices_.push_back(index);
    }
    const bool implicit = seg.mode == SegmentMode::Active && seg.table == 0 && seg.type == ValType::funcref();
    uint32_t flags = use_indices ? 0 : 4;
    switch (seg.mode) {
      case SegmentMode::Active: flags |= implicit ? 0 : 2; break;
      case SegmentMode::Passive: flags |= 1; break;
      case SegmentMode::Declarative: flags |= 3; break;
    }
    e.u32(flags);
    if (seg.mode == SegmentMode::Active) {
      if (flags & 2) e.u32(seg.table);
      e.bytes(seg.offset.code);
    }
    if (flags & 3) {
      if (use_indices) e.byte(0x00);  // element kind: funcref
      else e.value_type(seg.type);
    }
    e.u32(uint32_t(seg.items.size()));
    if (use_indices) {
      for (uint32_t index : indices_) e.u32(index);
    } else {
      for (const ConstExpr& item : seg.items) e.bytes(item.code);
    }
  }

  static void code(Encoder& e, const Function& f) {
    std::vector<uint8_t> locals;
    write_leb_u32(locals, uint32_t(f.locals.size()));
    Encoder le(locals);
    for (const LocalGroup& g : f.locals) {
      le.u32(g.count);
      le.value_type(g.type);
    }
    e.u32(uint32_t(locals.size() + f.body.size()));
    e.bytes(locals);
    e.bytes(f.body);
  }

  static void data(Encoder& e, const DataSegment& seg) {
    if (seg.mode == SegmentMode::Active) {
      if (seg.memory == 0) {
        e.u32(0);
      } else {
        e.u32(2);
        e.u32(seg.memory);
      }
      e.bytes(seg.offset.code);
    } else {
      e.u32(1);
    }
    e.u32(uint32_t(seg.bytes.size()));
    e.bytes(seg.bytes);
  }

  void flush(uint8_t id) {
    out_.push_back(id);
    write_leb_u32(out_, uint32_t(content_.size()));
    out_.insert(out_.end(), content_.begin(), content_.end());
  }

  const Module& m_;
  std::vector<uint8_t> out_;
  std::vector<uint8_t> content_;
  std::vector<uint32_t> indices_;
};

}  // namespace

std::vector<uint8_t> write_module(const Module& module) { return ModuleWriter(module).run(); }

}  // namespace weft::binary
