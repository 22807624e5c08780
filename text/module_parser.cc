// WAT module parser: module fields, their abbreviations (inline imports,
// exports, elem and data), type uses with implicit types, identifier binding.
#include <algorithm>

#include "core/leb128.h"
#include "text/numbers.h"
#include "text/parser.h"
#include "text/text.h"

namespace weft::text {
namespace detail {

// ============================================================================
// Types
// ============================================================================

void encode_heaptype(std::vector<uint8_t>& out, ValType t) {
  switch (t.kind) {
    case ValType::FuncRef: out.push_back(0x70); break;
    case ValType::ExternRef: out.push_back(0x6F); break;
    case ValType::FiberRef: out.push_back(0x5B); break;
    case ValType::ExnRef: out.push_back(0x69); break;
    case ValType::TypedRef: write_leb_s64(out, int64_t(t.type_index)); break;  // an s33 type index
    default: out.push_back(0x00); break;  // not a reference type: never asked for
  }
}

void encode_valtype(std::vector<uint8_t>& out, ValType t) {
  switch (t.kind) {
    case ValType::I32: out.push_back(0x7F); break;
    case ValType::I64: out.push_back(0x7E); break;
    case ValType::F32: out.push_back(0x7D); break;
    case ValType::F64: out.push_back(0x7C); break;
    case ValType::V128: out.push_back(0x7B); break;
    case ValType::FuncRef:
    case ValType::ExternRef:
    case ValType::FiberRef:
    case ValType::ExnRef:
      // Nullable abstract references have one-byte forms (funcref, externref,
      // fiberref); `(ref ht)` is 0x64 ht.
      if (!t.nullable) out.push_back(0x64);
      encode_heaptype(out, t);
      break;
    case ValType::TypedRef:
      out.push_back(t.nullable ? 0x63 : 0x64);
      encode_heaptype(out, t);
      break;
  }
}


namespace {

// A byte string identifying a function or fiber type, for the implicit-type
// lookup: the kind, then each list with its length (binary value types are
// self-delimiting, so the key is unambiguous).
std::string signature_key(const FuncType& t) {
  std::vector<uint8_t> bytes;
  bytes.push_back(t.is_fiber ? 0x5C : 0x60);
  write_leb_u32(bytes, uint32_t(t.params.size()));
  for (ValType v : t.params) encode_valtype(bytes, v);
  write_leb_u32(bytes, uint32_t(t.results.size()));
  for (ValType v : t.results) encode_valtype(bytes, v);
  return std::string(bytes.begin(), bytes.end());
}

const char* space_name(Space s) {
  switch (s) {
    case Space::Type: return "type";
    case Space::Func: return "function";
    case Space::Table: return "table";
    case Space::Memory: return "memory";
    case Space::Global: return "global";
    case Space::Tag: return "tag";
    case Space::Elem: return "elem segment";
    case Space::Data: return "data segment";
    case Space::Count_: break;
  }
  return "?";
}

Space space_of(ExternKind k) {
  switch (k) {
    case ExternKind::Func: return Space::Func;
    case ExternKind::Table: return Space::Table;
    case ExternKind::Memory: return Space::Memory;
    case ExternKind::Global: return Space::Global;
    case ExternKind::Tag: return Space::Tag;
  }
  return Space::Func;
}

std::optional<ExternKind> extern_kind_of(Kw kw) {
  switch (kw) {
    case Kw::Func: return ExternKind::Func;
    case Kw::Table: return ExternKind::Table;
    case Kw::Memory: return ExternKind::Memory;
    case Kw::Global: return ExternKind::Global;
    case Kw::Tag: return ExternKind::Tag;
    default: return std::nullopt;
  }
}

ConstExpr i32_const_zero() { return ConstExpr{{0x41, 0x00, 0x0B}}; }
ConstExpr i64_const_zero() { return ConstExpr{{0x42, 0x00, 0x0B}}; }

}  // namespace

bool ModuleParser::parse_valtype(ValType& out) {
  const Token& t = peek();
  if (t.kind == TokKind::Atom) {
    switch (t.kw) {
      case Kw::I32: out = ValType::i32(); break;
      case Kw::I64: out = ValType::i64(); break;
      case Kw::F32: out = ValType::f32(); break;
      case Kw::F64: out = ValType::f64(); break;
      case Kw::V128: out = ValType::v128(); break;
      case Kw::FuncRef: out = ValType::funcref(); break;
      case Kw::ExternRef: out = ValType::externref(); break;
      case Kw::FiberRef: out = ValType{ValType::FiberRef, true, 0}; break;
      case Kw::ExnRef: out = ValType::exnref(); break;
      default: return unexpected("a value type");
    }
    ++pos_;
    return true;
  }
  if (at_form(Kw::Ref)) return parse_ref_form(out);
  return unexpected("a value type");
}

// `(ref null? heaptype)` (fiber extension / function references).
bool ModuleParser::parse_ref_form(ValType& out) {
  pos_ += 2;  // `(ref`
  const bool nullable = consume_kw(Kw::Null);
  if (!parse_heaptype(out)) return false;
  out.nullable = nullable;
  return expect_rparen();
}

bool ModuleParser::parse_reftype(ValType& out) {
  if (at_form(Kw::Ref)) return parse_ref_form(out);
  if (at_kw(Kw::FuncRef)) out = ValType::funcref();
  else if (at_kw(Kw::ExternRef)) out = ValType::externref();
  else if (at_kw(Kw::FiberRef)) out = ValType{ValType::FiberRef, true, 0};
  else if (at_kw(Kw::ExnRef)) out = ValType::exnref();
  else return unexpected("a reference type");
  ++pos_;
  return true;
}

size_t ModuleParser::reftype_tokens(size_t ahead) const {
  const Token& t = peek(ahead);
  if (t.kind == TokKind::Atom && (t.kw == Kw::FuncRef || t.kw == Kw::ExternRef || t.kw == Kw::FiberRef || t.kw == Kw::ExnRef))
    return 1;
  const Token& kw = peek(ahead + 1);
  if (t.kind == TokKind::LParen && kw.kind == TokKind::Atom && kw.kw == Kw::Ref) return t.close - (pos_ + ahead) + 1;
  return 0;
}

// A heap type: func, extern, fiber or a type index; `out` is the nullable
// reference to it.
bool ModuleParser::parse_heaptype(ValType& out) {
  if (at_index()) {
    uint32_t index;
    if (!parse_index(Space::Type, index)) return false;
    out = ValType{ValType::TypedRef, true, index};
    return true;
  }
  if (at_kw(Kw::Func)) out = ValType::funcref();
  else if (at_kw(Kw::Extern)) out = ValType::externref();
  else if (at_kw(Kw::Fiber)) out = ValType{ValType::FiberRef, true, 0};
  else if (at_kw(Kw::Exn)) out = ValType::exnref();
  else return unexpected("a heap type (func, extern, fiber, exn or a type index)");
  ++pos_;
  return true;
}

bool ModuleParser::parse_limits(Limits& out, unsigned bits) {
  uint64_t v = 0;
  auto parse_bound = [&]() {
    const Token& t = peek();
    if (t.kind != TokKind::Atom) return unexpected("a limit");
    NumResult<uint64_t> r = parse_unsigned(text(t), bits);
    if (r.status == NumStatus::NotANumber) return unexpected("a limit");
    if (r.status == NumStatus::OutOfRange) return fail(t, bits == 32 ? "i32 constant out of range" : "constant out of range");
    v = r.value;
    ++pos_;
    return true;
  };
  if (!parse_bound()) return false;
  out.min = v;
  out.max.reset();
  if (at(TokKind::Atom) && at_index()) {
    if (!parse_bound()) return false;
    out.max = v;
  }
  return true;
}

// `i32` / `i64` before a memory's or table's limits (memory64); i32 if absent.
bool ModuleParser::parse_address_type() {
  if (!options_.memory64 || !at_address_type()) return false;
  const bool address64 = peek().kw == Kw::I64;
  ++pos_;
  return address64;
}

bool ModuleParser::parse_memory_limits(Limits& out) {
  const bool address64 = parse_address_type();
  if (!parse_limits(out, address64 || options_.memory64 ? 64 : 32)) return false;
  out.address64 = address64;
  return true;
}

bool ModuleParser::parse_table_type(TableType& out) {
  return parse_memory_limits(out.limits) && parse_reftype(out.element);
}

bool ModuleParser::parse_global_type(GlobalType& out) {
  if (at_form(Kw::Mut)) {
    pos_ += 2;
    out.is_mutable = true;
    return parse_valtype(out.type) && expect_rparen();
  }
  out.is_mutable = false;
  return parse_valtype(out.type);
}

bool ModuleParser::parse_param_result_lists(FuncType& type,
                                            std::vector<std::pair<std::string_view, uint32_t>>* names,
                                            bool* has_any) {
  while (at_form(Kw::Param)) {
    pos_ += 2;
    if (has_any) *has_any = true;
    if (at(TokKind::Id)) {
      // `(param $x t)` names exactly one parameter.
      if (!names) return unexpected("a value type");
      std::string_view id = text(peek());
      ++pos_;
      names->emplace_back(id, uint32_t(type.params.size()));
      ValType t;
      if (!parse_valtype(t)) return false;
      type.params.push_back(t);
    } else {
      while (!at(TokKind::RParen)) {
        ValType t;
        if (!parse_valtype(t)) return false;
        type.params.push_back(t);
      }
    }
    if (!expect_rparen()) return false;
  }
  while (at_form(Kw::Result)) {
    pos_ += 2;
    if (has_any) *has_any = true;
    while (!at(TokKind::RParen)) {
      ValType t;
      if (!parse_valtype(t)) return false;
      type.results.push_back(t);
    }
    if (!expect_rparen()) return false;
  }
  if (at_form(Kw::Param) || at_form(Kw::Type)) return unexpected("no (param) or (type) after (result)");
  return true;
}

bool ModuleParser::parse_typeuse(TypeUse& use, bool allow_param_names) {
  use.token = uint32_t(pos_);
  if (at_form(Kw::Type)) {
    pos_ += 2;
    uint32_t index;
    if (!parse_index(Space::Type, index) || !expect_rparen()) return false;
    use.index = index;
  }
  return parse_param_result_lists(use.type, allow_param_names ? &use.param_names : nullptr, &use.has_inline);
}

bool ModuleParser::resolve_typeuse(const TypeUse& use, uint32_t& index) {
  if (use.index) {
    index = *use.index;
    // A bare `(type n)` out of range is the validator's to report ("unknown
    // type"); a written signature must be checked here, so its type must exist.
    if (use.has_inline) {
      const FuncType* t = type_at(index);
      if (!t) return fail(tl_.tokens[use.token], "unknown type " + std::to_string(index));
      if (*t != use.type) return fail(tl_.tokens[use.token], "inline function type does not match the type use");
    }
    return true;
  }
  index = find_or_add_type(use.type);
  return true;
}

uint32_t ModuleParser::find_or_add_type(const FuncType& type) {
  auto [it, inserted] = type_lookup_.emplace(signature_key(type), uint32_t(module_->types.size()));
  if (inserted) module_->types.push_back(type);
  return it->second;
}

bool ModuleParser::parse_index(Space space, uint32_t& out) {
  const Token& t = peek();
  if (t.kind == TokKind::Id) {
    const auto& ids = spaces_[size_t(space)].ids;
    auto it = ids.find(text(t));
    if (it == ids.end()) return fail(t, std::string("unknown ") + space_name(space) + " " + std::string(text(t)));
    out = it->second;
    ++pos_;
    return true;
  }
  if (t.kind == TokKind::Atom && at_index()) return parse_u32(out);
  return unexpected("an index");
}

// ============================================================================
// Pass 1: bind identifiers, read the type section
// ============================================================================

bool ModuleParser::bind(Space space, std::optional<std::string_view> id, const Token& at, const char* what) {
  Names& n = spaces_[size_t(space)];
  uint32_t index = n.count++;
  if (id && !n.ids.emplace(*id, index).second)
    return fail(at, std::string("duplicate ") + what + " " + std::string(*id));
  return true;
}

bool ModuleParser::scan_fields() {
  // Type identifiers first: a type definition may refer to a later one, as
  // in `(type $f (func (param (ref $g))))` before `(type $g (fiber))`.
  for (size_t p = pos_; tl_.tokens[p].kind == TokKind::LParen; p = tl_.tokens[p].close + 1) {
    const Token& kw = tl_.tokens[p + 1];
    if (kw.kind != TokKind::Atom || kw.kw != Kw::Type) continue;
    const Token& id = tl_.tokens[p + 2];
    if (!bind(Space::Type, id.kind == TokKind::Id ? std::optional(text(id)) : std::nullopt, kw, "type")) return false;
  }
  size_t p = pos_;
  while (tl_.tokens[p].kind == TokKind::LParen) {
    size_t close = tl_.tokens[p].close;
    const Token& kw = tl_.tokens[p + 1];
    pos_ = p + 2;
    auto id_here = [&]() -> std::optional<std::string_view> {
      if (at(TokKind::Id)) return text(peek());
      return std::nullopt;
    };
    switch (kw.kind == TokKind::Atom ? kw.kw : Kw::None) {
      case Kw::Type: {
        pos_ = p;
        FuncType type;
        std::optional<std::string_view> id;
        if (!parse_type_def(type, id)) return false;  // its id is bound above
        uint32_t index = uint32_t(module_->types.size());
        type_lookup_.emplace(signature_key(type), index);
        module_->types.push_back(std::move(type));
        break;
      }
      case Kw::Import: {
        // (import "m" "n" (kind $id? …)); shape errors are reported by pass 2.
        if (peek().kind != TokKind::String || peek(1).kind != TokKind::String || peek(2).kind != TokKind::LParen)
          break;
        pos_ += 3;
        std::optional<ExternKind> k = at(TokKind::Atom) ? extern_kind_of(peek().kw) : std::nullopt;
        if (!k) break;
        ++pos_;
        if (!bind(space_of(*k), id_here(), kw, to_string(*k))) return false;
        break;
      }
      case Kw::Func:
      case Kw::Table:
      case Kw::Memory:
      case Kw::Global:
      case Kw::Tag: {
        ExternKind k = *extern_kind_of(kw.kw);
        std::optional<std::string_view> id = id_here();
        if (!bind(space_of(k), id, kw, to_string(k))) return false;
        if (id) ++pos_;
        while (at_form(Kw::Export)) pos_ = peek().close + 1;
        if (at_form(Kw::Import)) break;
        // Inline element and data segments take the next segment index.
        if (k == ExternKind::Table && at_inline_elem(at_address_type())) spaces_[size_t(Space::Elem)].count++;
        if (k == ExternKind::Memory && at_form(Kw::Data, at_address_type())) spaces_[size_t(Space::Data)].count++;
        break;
      }
      case Kw::Elem:
        if (!bind(Space::Elem, id_here(), kw, "elem")) return false;
        break;
      case Kw::Data:
        if (!bind(Space::Data, id_here(), kw, "data")) return false;
        break;
      case Kw::Export:
      case Kw::Start:
        break;
      default:
        pos_ = p + 1;
        return unexpected("a module field");
    }
    p = close + 1;
  }
  pos_ = p;
  if (!at(TokKind::RParen) && !at(TokKind::Eof)) return unexpected("a module field");
  return true;
}

bool ModuleParser::parse_type_def(FuncType& type, std::optional<std::string_view>& id) {
  if (!expect_form(Kw::Type, "(type")) return false;
  id = consume_id();
  if (at_form(Kw::Fiber)) {
    // Fiber extension: `(fiber (result r*)*)`, a fiber type has no params.
    pos_ += 2;
    type.is_fiber = true;
    if (at_form(Kw::Param)) return fail(peek(1), "unexpected token param, a fiber type has no params");
    if (!parse_param_result_lists(type, nullptr, nullptr)) return false;
    return expect_rparen() && expect_rparen();
  }
  if (!at_form(Kw::Func)) return unexpected("(func or (fiber");
  pos_ += 2;
  std::vector<std::pair<std::string_view, uint32_t>> names;  // allowed, but carry no meaning
  if (!parse_param_result_lists(type, &names, nullptr)) return false;
  return expect_rparen() && expect_rparen();
}

// ============================================================================
// Pass 2: fields
// ============================================================================

bool ModuleParser::parse(Module& out) {
  module_ = &out;
  fields_begin_ = pos_;
  if (!scan_fields()) return false;
  pos_ = fields_begin_;
  while (at(TokKind::LParen))
    if (!parse_field()) return false;
  if (uses_data_count_) out.data_count = uint32_t(out.datas.size());
  return check_event_params();
}

// `(event $e (param t*) …)`: the written params must be the tag's. Checked
// once every field is read, since a tag may be defined after its first use.
bool ModuleParser::check_event_params() {
  std::vector<uint32_t> tag_types;  // the tag index space: imports first
  for (const Import& imp : module_->imports)
    if (imp.kind == ExternKind::Tag) tag_types.push_back(imp.type_index);
  for (const Tag& tag : module_->tags) tag_types.push_back(tag.type_index);
  for (const EventParams& e : event_params_) {
    // An unknown tag index is the validator's to report ("unknown tag").
    if (e.tag >= tag_types.size()) continue;
    const FuncType* type = type_at(tag_types[e.tag]);
    if (type && type->params != e.params)
      return fail(tl_.tokens[e.token], "inline type mismatch: event clause params are not those of tag " +
                                           std::string(text(tl_.tokens[e.token])));
  }
  return true;
}

bool ModuleParser::parse_field() {
  switch (peek(1).kw) {
    case Kw::Type: pos_ = peek().close + 1; return true;  // read in pass 1
    case Kw::Import: return parse_import();
    case Kw::Func: return parse_func();
    case Kw::Table: return parse_table();
    case Kw::Memory: return parse_memory();
    case Kw::Global: return parse_global();
    case Kw::Tag: {
      pos_ += 2;
      std::optional<std::string_view> id = consume_id();
      uint32_t index = next_[size_t(Space::Tag)]++;
      if (!parse_inline_exports(ExternKind::Tag, index)) return false;
      Import imp;
      bool imported = at_form(Kw::Import);
      const Token& at_import = peek();
      if (imported && (!parse_inline_import(imp) || !check_import_order(at_import))) return false;
      if (!imported) last_definition_ = "tag";
      TypeUse use;
      uint32_t type_index;
      if (!parse_typeuse(use, true) || !resolve_typeuse(use, type_index)) return false;
      if (imported) {
        imp.kind = ExternKind::Tag;
        imp.type_index = type_index;
        module_->imports.push_back(std::move(imp));
      } else {
        module_->tags.push_back(Tag{type_index});
      }
      (void)id;
      return expect_rparen();
    }
    case Kw::Export: return parse_export();
    case Kw::Start: return parse_start();
    case Kw::Elem: return parse_elem();
    case Kw::Data: return parse_data();
    default: ++pos_; return unexpected("a module field");
  }
}

bool ModuleParser::check_import_order(const Token& at) {
  if (last_definition_) return fail(at, std::string("import after ") + last_definition_);
  return true;
}

bool ModuleParser::parse_inline_import(Import& import) {
  pos_ += 2;  // `(import`
  return parse_name(import.module) && parse_name(import.name) && expect_rparen();
}

bool ModuleParser::parse_inline_exports(ExternKind kind, uint32_t index) {
  while (at_form(Kw::Export)) {
    pos_ += 2;
    Export e;
    e.kind = kind;
    e.index = index;
    if (!parse_name(e.name) || !expect_rparen()) return false;
    module_->exports.push_back(std::move(e));
  }
  return true;
}

bool ModuleParser::parse_import() {
  const Token& start = peek();
  pos_ += 2;
  Import imp;
  if (!parse_name(imp.module) || !parse_name(imp.name)) return false;
  if (!check_import_order(start)) return false;
  if (!expect_lparen()) return false;
  std::optional<ExternKind> kind = at(TokKind::Atom) ? extern_kind_of(peek().kw) : std::nullopt;
  if (!kind) return unexpected("an import kind");
  ++pos_;
  imp.kind = *kind;
  std::optional<std::string_view> id = consume_id();
  uint32_t index = next_[size_t(space_of(*kind))]++;
  switch (*kind) {
    case ExternKind::Func:
    case ExternKind::Tag: {
      TypeUse use;
      if (!parse_typeuse(use, true) || !resolve_typeuse(use, imp.type_index)) return false;
      if (*kind == ExternKind::Func && id) module_->names.function_names.emplace_back(index, std::string(id->substr(1)));
      break;
    }
    case ExternKind::Table:
      if (!parse_table_type(imp.table)) return false;
      break;
    case ExternKind::Memory:
      if (!parse_memory_limits(imp.memory.limits)) return false;
      break;
    case ExternKind::Global:
      if (!parse_global_type(imp.global)) return false;
      break;
  }
  module_->imports.push_back(std::move(imp));
  return expect_rparen() && expect_rparen();
}

bool ModuleParser::parse_func() {
  pos_ += 2;
  std::optional<std::string_view> id = consume_id();
  uint32_t index = next_[size_t(Space::Func)]++;
  if (id) module_->names.function_names.emplace_back(index, std::string(id->substr(1)));
  if (!parse_inline_exports(ExternKind::Func, index)) return false;
  if (at_form(Kw::Import)) {
    const Token& at_import = peek();
    Import imp;
    imp.kind = ExternKind::Func;
    TypeUse use;
    if (!parse_inline_import(imp) || !check_import_order(at_import)) return false;
    if (!parse_typeuse(use, true) || !resolve_typeuse(use, imp.type_index)) return false;
    module_->imports.push_back(std::move(imp));
    return expect_rparen();
  }
  last_definition_ = "function";
  Function func;
  TypeUse use;
  if (!parse_typeuse(use, true) || !resolve_typeuse(use, func.type_index)) return false;

  // Parameters and locals share one index space of names.
  locals_.clear();
  for (const auto& [name, param] : use.param_names)
    if (!locals_.emplace(name, param).second)
      return fail(tl_.tokens[use.token], "duplicate local " + std::string(name));
  const FuncType* sig = use.index && !use.has_inline ? type_at(func.type_index) : &use.type;
  uint32_t next_local = sig ? uint32_t(sig->params.size()) : 0;
  auto add_local = [&](ValType t) {
    if (!func.locals.empty() && func.locals.back().type == t) func.locals.back().count++;
    else func.locals.push_back(LocalGroup{1, t});
    ++next_local;
  };
  while (at_form(Kw::Local)) {
    pos_ += 2;
    if (at(TokKind::Id)) {
      const Token& name = peek();
      ++pos_;
      if (!locals_.emplace(text(name), next_local).second)
        return fail(name, "duplicate local " + std::string(text(name)));
      ValType t;
      if (!parse_valtype(t)) return false;
      add_local(t);
    } else {
      while (!at(TokKind::RParen)) {
        ValType t;
        if (!parse_valtype(t)) return false;
        add_local(t);
      }
    }
    if (!expect_rparen()) return false;
  }
  std::vector<uint8_t> body;
  if (!parse_expr(body, /*function_body=*/true)) return false;
  func.body = std::move(body);
  locals_.clear();
  module_->functions.push_back(std::move(func));
  return expect_rparen();
}

bool ModuleParser::parse_table() {
  pos_ += 2;
  consume_id();
  uint32_t index = next_[size_t(Space::Table)]++;
  if (!parse_inline_exports(ExternKind::Table, index)) return false;
  if (at_form(Kw::Import)) {
    const Token& at_import = peek();
    Import imp;
    imp.kind = ExternKind::Table;
    if (!parse_inline_import(imp) || !check_import_order(at_import) || !parse_table_type(imp.table)) return false;
    module_->imports.push_back(std::move(imp));
    return expect_rparen();
  }
  last_definition_ = "table";
  Table table;
  if (at_inline_elem(at_address_type())) {
    // (table reftype (elem …)): a table sized exactly for an active segment at 0.
    table.type.limits.address64 = parse_address_type();
    ElemSegment seg;
    if (!parse_reftype(seg.type)) return false;
    pos_ += 2;
    seg.table = index;
    seg.offset = table.type.limits.address64 ? i64_const_zero() : i32_const_zero();
    if (at(TokKind::LParen)) {
      seg.uses_expressions = true;
      if (!parse_elem_list(seg, false)) return false;
    } else {
      if (!parse_elem_list(seg, true)) return false;
    }
    if (!expect_rparen()) return false;
    table.type.element = seg.type;
    table.type.limits.min = seg.items.size();
    table.type.limits.max = seg.items.size();
    module_->elems.push_back(std::move(seg));
    next_[size_t(Space::Elem)]++;
  } else if (!parse_table_type(table.type)) {
    return false;
  } else if (!at(TokKind::RParen)) {  // (table limits reftype expr): every element's initial value
    table.init.emplace();
    if (!parse_expr(table.init->code)) return false;
  }
  module_->tables.push_back(std::move(table));
  return expect_rparen();
}

bool ModuleParser::parse_memory() {
  pos_ += 2;
  consume_id();
  uint32_t index = next_[size_t(Space::Memory)]++;
  if (!parse_inline_exports(ExternKind::Memory, index)) return false;
  if (at_form(Kw::Import)) {
    const Token& at_import = peek();
    Import imp;
    imp.kind = ExternKind::Memory;
    if (!parse_inline_import(imp) || !check_import_order(at_import) || !parse_memory_limits(imp.memory.limits))
      return false;
    module_->imports.push_back(std::move(imp));
    return expect_rparen();
  }
  last_definition_ = "memory";
  Memory memory;
  if (at_address_type() && peek(1).kind == TokKind::LParen && peek(2).kind == TokKind::Atom && peek(2).kw == Kw::Data)
    memory.type.limits.address64 = parse_address_type();
  if (at_form(Kw::Data)) {
    // (memory (data …)): a memory sized exactly for an active segment at 0.
    pos_ += 2;
    DataSegment seg;
    seg.memory = index;
    seg.offset = memory.type.limits.address64 ? i64_const_zero() : i32_const_zero();
    if (!parse_data_strings(seg.bytes) || !expect_rparen()) return false;
    uint64_t pages = (seg.bytes.size() + kWasmPageSize - 1) / kWasmPageSize;
    memory.type.limits.min = pages;
    memory.type.limits.max = pages;
    module_->datas.push_back(std::move(seg));
    next_[size_t(Space::Data)]++;
  } else if (!parse_memory_limits(memory.type.limits)) {
    return false;
  }
  module_->memories.push_back(memory);
  return expect_rparen();
}

bool ModuleParser::parse_global() {
  pos_ += 2;
  consume_id();
  uint32_t index = next_[size_t(Space::Global)]++;
  if (!parse_inline_exports(ExternKind::Global, index)) return false;
  if (at_form(Kw::Import)) {
    const Token& at_import = peek();
    Import imp;
    imp.kind = ExternKind::Global;
    if (!parse_inline_import(imp) || !check_import_order(at_import) || !parse_global_type(imp.global)) return false;
    module_->imports.push_back(std::move(imp));
    return expect_rparen();
  }
  last_definition_ = "global";
  Global global;
  if (!parse_global_type(global.type) || !parse_expr(global.init.code)) return false;
  module_->globals.push_back(std::move(global));
  return expect_rparen();
}

bool ModuleParser::parse_export() {
  pos_ += 2;
  Export e;
  if (!parse_name(e.name) || !expect_lparen()) return false;
  std::optional<ExternKind> kind = at(TokKind::Atom) ? extern_kind_of(peek().kw) : std::nullopt;
  if (!kind) return unexpected("an export kind");
  ++pos_;
  e.kind = *kind;
  if (!parse_index(space_of(*kind), e.index)) return false;
  module_->exports.push_back(std::move(e));
  return expect_rparen() && expect_rparen();
}

bool ModuleParser::parse_start() {
  const Token& start = peek();
  pos_ += 2;
  if (seen_start_) return fail(start, "multiple start sections");
  seen_start_ = true;
  uint32_t index;
  if (!parse_index(Space::Func, index)) return false;
  module_->start = index;
  return expect_rparen();
}

bool ModuleParser::parse_offset(ConstExpr& out) {
  if (at_form(Kw::Offset)) {
    pos_ += 2;
    return parse_expr(out.code) && expect_rparen();
  }
  if (!at(TokKind::LParen)) return unexpected("an offset expression");
  // A single folded instruction abbreviates (offset instr).
  out_ = &out.code;
  blocks_.clear();
  if (!parse_folded(false)) return false;
  out.code.push_back(0x0B);
  return true;
}

bool ModuleParser::parse_elem_list(ElemSegment& seg, bool allow_bare_indices) {
  auto add_function = [&](uint32_t f) {
    ConstExpr e;
    e.code.push_back(0xD2);
    write_leb_u32(e.code, f);
    e.code.push_back(0x0B);
    seg.items.push_back(std::move(e));
  };
  bool indices;
  if (consume_kw(Kw::Func)) {
    seg.type = ValType::funcref();
    indices = true;
  } else if (reftype_tokens(0) > 0) {
    if (!parse_reftype(seg.type)) return false;
    seg.uses_expressions = true;
    indices = false;
  } else if (seg.uses_expressions) {
    indices = false;  // (table t (elem (ref.func …) …)): expressions, type from the table
  } else if (allow_bare_indices) {
    indices = true;
  } else {
    return unexpected("an element list");
  }
  if (indices) {
    while (at_index()) {
      uint32_t f;
      if (!parse_index(Space::Func, f)) return false;
      add_function(f);
    }
    return true;
  }
  while (at(TokKind::LParen)) {
    ConstExpr e;
    if (at_form(Kw::Item)) {
      pos_ += 2;
      if (!parse_expr(e.code) || !expect_rparen()) return false;
    } else {
      out_ = &e.code;
      blocks_.clear();
      if (!parse_folded(false)) return false;
      e.code.push_back(0x0B);
    }
    seg.items.push_back(std::move(e));
  }
  return true;
}

bool ModuleParser::parse_elem() {
  pos_ += 2;
  consume_id();
  next_[size_t(Space::Elem)]++;
  ElemSegment seg;
  if (consume_kw(Kw::Declare)) {
    seg.mode = SegmentMode::Declarative;
    if (!parse_elem_list(seg, false)) return false;
  } else if (at(TokKind::LParen) && !at_form(Kw::Ref)) {  // `(ref …)` starts a passive segment's list
    seg.mode = SegmentMode::Active;
    if (at_form(Kw::Table)) {
      pos_ += 2;
      if (!parse_index(Space::Table, seg.table) || !expect_rparen()) return false;
    }
    // `(elem offset funcidx*)` is the MVP form: bare function indices.
    if (!parse_offset(seg.offset) || !parse_elem_list(seg, true)) return false;
  } else {
    seg.mode = SegmentMode::Passive;
    if (!parse_elem_list(seg, false)) return false;
  }
  module_->elems.push_back(std::move(seg));
  return expect_rparen();
}

bool ModuleParser::parse_data_strings(std::vector<uint8_t>& out) {
  while (at(TokKind::String)) {
    std::string s = decode_string(text(peek()));
    out.insert(out.end(), s.begin(), s.end());
    ++pos_;
  }
  return true;
}

bool ModuleParser::parse_data() {
  pos_ += 2;
  consume_id();
  next_[size_t(Space::Data)]++;
  DataSegment seg;
  if (at(TokKind::LParen)) {
    seg.mode = SegmentMode::Active;
    if (at_form(Kw::Memory)) {
      pos_ += 2;
      if (!parse_index(Space::Memory, seg.memory) || !expect_rparen()) return false;
    }
    if (!parse_offset(seg.offset)) return false;
  } else {
    seg.mode = SegmentMode::Passive;
  }
  if (!parse_data_strings(seg.bytes)) return false;
  module_->datas.push_back(std::move(seg));
  return expect_rparen();
}

}  // namespace detail

// ============================================================================
// Entry point
// ============================================================================

Result<Module> parse_module(std::string_view source, const TextOptions& options) {
  WEFT_TRY_ASSIGN(TokenList tokens, tokenize(source));
  Module module;
  size_t pos = 0;
  size_t close = 0;
  bool wrapped = tokens.tokens.size() > 2 && tokens.tokens[0].kind == TokKind::LParen &&
                 tokens.tokens[1].kind == TokKind::Atom && tokens.tokens[1].kw == Kw::Module;
  if (wrapped) {
    close = tokens.tokens[0].close;
    pos = 2;
    if (tokens.tokens[pos].kind == TokKind::Id) {
      module.names.module_name = std::string(tokens.text(tokens.tokens[pos]).substr(1));
      ++pos;
    }
    const Token& t = tokens.tokens[pos];
    if (t.kind == TokKind::Atom && (t.kw == Kw::Binary || t.kw == Kw::Quote))
      return tokens.error_at(t.offset, "module binary/quote is a script form, not a module");
  }
  detail::ModuleParser parser(tokens, pos, options);
  if (!parser.parse(module)) return parser.error();
  size_t end = parser.pos();
  if (wrapped) {
    if (end != close) return tokens.error_at(tokens.tokens[end].offset, "unexpected token, expected )");
    end = close + 1;
  }
  if (tokens.tokens[end].kind != TokKind::Eof)
    return tokens.error_at(tokens.tokens[end].offset, "unexpected token after the module");
  return module;
}

}  // namespace weft::text
