// Instruction encoder: plain and folded WAT instructions → binary instruction
// bytes, driven by the opcode table's immediate kinds.
#include <bit>
#include <cstring>

#include "core/leb128.h"
#include "text/numbers.h"
#include "text/parser.h"

namespace weft::text::detail {
namespace {

// Folded instructions nest by recursion; beyond this depth the input is
// rejected instead of risking the C++ stack. Plain block/loop/if nesting is
// iterative and unbounded.
constexpr uint32_t kMaxFoldedNesting = 2048;

void put_le(std::vector<uint8_t>& out, uint64_t v, unsigned bytes) {
  for (unsigned i = 0; i < bytes; ++i) out.push_back(uint8_t(v >> (8 * i)));
}

}  // namespace

void ModuleParser::emit_opcode(const OpcodeInfo& info) {
  if (info.prefix == 0) {
    out_->push_back(uint8_t(info.code));
  } else {
    out_->push_back(info.prefix);
    write_leb_u32(*out_, info.code);
  }
}

void ModuleParser::emit_u32(uint32_t v) { write_leb_u32(*out_, v); }

void ModuleParser::emit_valtype(ValType t) { encode_valtype(*out_, t); }

bool ModuleParser::parse_expr(std::vector<uint8_t>& out, bool function_body) {
  out_ = &out;
  blocks_.clear();
  function_alias_ = {};
  depth_ = 0;
  if (!parse_instrs(function_body)) return false;
  out.push_back(0x0B);
  return true;
}

// instr* up to the ')' of the enclosing form. Plain block/loop/if/handle open
// entries in blocks_ that a matching `end` closes; all of them must be closed
// here. Event clauses (fiber extension) do not open blocks: `event $e` and
// `(event $e instr*)` just emit the clause opcode, and their instructions
// follow it, inside the enclosing handle (or function) as in the binary format.
bool ModuleParser::parse_instrs(bool clauses_ok) {
  const size_t base = blocks_.size();
  bool after_clause = false;  // a folded (event …) was read: only more of them may follow
  while (true) {
    const Token& t = peek();
    if (t.kind == TokKind::RParen || t.kind == TokKind::Eof) {
      if (blocks_.size() > base) return unexpected("end");
      return true;
    }
    // Event clauses belong to the innermost handle (or the function body);
    // directly inside a clause one would be a sibling of the clause being read.
    const bool clause_here = clauses_ok || blocks_.size() > base;
    if (t.kind == TokKind::LParen) {
      if (at_event_form()) {
        if (!clause_here) return fail(peek(1), "unexpected event clause");
        after_clause = true;
      } else if (after_clause) {
        return fail(t, "unexpected token " + std::string(text(peek(1))) + " after an event clause, expected (event or )");
      }
      if (!parse_folded(clause_here)) return false;
      continue;
    }
    std::optional<Opcode> op = t.kind == TokKind::Atom ? opcode_from_text(text(t)) : std::nullopt;
    if (!op) return not_an_instruction(t);
    if (after_clause && *op != Opcode::End)
      return fail(t, "unexpected token " + std::string(text(t)) + " after an event clause, expected (event or )");
    ++pos_;
    switch (*op) {
      case Opcode::Block:
      case Opcode::Loop:
      case Opcode::If:
      case Opcode::Handle:
      case Opcode::TryTable:
        if (!parse_block_header(*op)) return false;
        break;
      case Opcode::Else: {
        if (blocks_.size() == base || blocks_.back().opcode != Opcode::If || blocks_.back().seen_else)
          return fail(t, "unexpected else");
        blocks_.back().seen_else = true;
        if (!parse_end_label(blocks_.back().label, "else")) return false;
        out_->push_back(0x05);
        blocks_.back().after_else = out_->size();
        break;
      }
      case Opcode::End: {
        if (blocks_.size() == base) return fail(t, "unexpected end");
        if (!parse_end_label(blocks_.back().label, "end")) return false;
        drop_empty_else(blocks_.back());
        blocks_.pop_back();
        out_->push_back(0x0B);
        after_clause = false;
        break;
      }
      case Opcode::Event:
        if (!clause_here) return fail(t, "unexpected event clause");
        if (!parse_event_header()) return false;
        break;
      default:
        if (!parse_plain(*op)) return false;
        break;
    }
  }
}

bool ModuleParser::at_event_form() const {
  return at(TokKind::LParen) && peek(1).kind == TokKind::Atom && text(peek(1)) == opcode_info(Opcode::Event).text;
}

// After `event`: `$label? tagidx (param t*)*`. A label (told apart from the
// tag by the index that follows it) is an alias of the enclosing handle's
// label (at function level: of the function's) in the clause's instructions:
// a clause introduces no label of its own. Params, if written, must be the
// tag's (checked at the end of the module: check_event_params).
bool ModuleParser::parse_event_header() {
  std::string_view alias;
  if (at(TokKind::Id) && at_index(1)) alias = text(tl_.tokens[pos_++]);
  (blocks_.empty() ? function_alias_ : blocks_.back().alias) = alias;
  const uint32_t token = uint32_t(pos_);
  uint32_t tag;
  if (!parse_index(Space::Tag, tag)) return false;
  if (at_form(Kw::Param)) {
    EventParams e{tag, {}, token};
    while (at_form(Kw::Param)) {
      pos_ += 2;
      while (!at(TokKind::RParen)) {
        ValType t;
        if (!parse_valtype(t)) return false;
        e.params.push_back(t);
      }
      ++pos_;
    }
    event_params_.push_back(std::move(e));
  }
  emit_opcode(opcode_info(Opcode::Event));
  emit_u32(tag);
  return true;
}

// `end $l` / `else $l`: the repeated label must name the block being closed.
bool ModuleParser::parse_end_label(std::string_view label, const char* what) {
  if (!at(TokKind::Id)) return true;
  const Token& t = peek();
  if (text(t) != label)
    return fail(t, std::string("mismatching label ") + std::string(text(t)) + " after " + what);
  ++pos_;
  return true;
}

// An empty else arm is not encoded (as wat2wasm and the reference
// interpreter do): `if … else end` and `if … end` mean the same.
void ModuleParser::drop_empty_else(const Block& block) {
  if (block.seen_else && out_->size() == block.after_else) out_->pop_back();
}

bool ModuleParser::parse_block_type(std::optional<std::string_view>& label, TypeUse& use) {
  label = consume_id();
  return parse_typeuse(use, false);
}

// Block types: no params and at most one result are written inline (0x40 or
// the value type, as wat2wasm does even for an explicit `(type $t)` of that
// shape, and for a reference type of several bytes such as (ref $t)); anything
// else is a type index, implicitly created if needed.
bool ModuleParser::emit_block_type(const TypeUse& use) {
  const FuncType* sig = use.index ? type_at(*use.index) : &use.type;
  if (sig && !sig->is_fiber && sig->params.empty() && sig->results.size() <= 1) {
    uint32_t unused;
    if (use.index && !resolve_typeuse(use, unused)) return false;  // checks an inline signature
    if (sig->results.empty()) out_->push_back(0x40);
    else emit_valtype(sig->results[0]);
    return true;
  }
  uint32_t index;
  if (!resolve_typeuse(use, index)) return false;
  write_leb_s64(*out_, int64_t(index));
  return true;
}

bool ModuleParser::parse_block_header(Opcode op) {
  std::optional<std::string_view> label;
  TypeUse use;
  if (!parse_block_type(label, use)) return false;
  emit_opcode(opcode_info(op));
  if (!emit_block_type(use)) return false;
  if (op == Opcode::TryTable && !parse_catch_clauses()) return false;
  blocks_.push_back(Block{op, label.value_or(std::string_view{}), false});
  return true;
}

// try_table's `(catch tag label)`, `(catch_ref tag label)`, `(catch_all
// label)` and `(catch_all_ref label)`, as vec(catch). Their labels are
// resolved outside the try_table (its own label is not theirs).
bool ModuleParser::parse_catch_clauses() {
  std::vector<uint8_t> clauses;
  uint32_t count = 0;
  std::vector<uint8_t>* const body = out_;
  out_ = &clauses;
  bool ok = true;
  while (ok && (at_form(Kw::Catch) || at_form(Kw::CatchRef) || at_form(Kw::CatchAll) || at_form(Kw::CatchAllRef))) {
    const Kw kind = peek(1).kw;
    pos_ += 2;
    out_->push_back(kind == Kw::Catch ? 0x00 : kind == Kw::CatchRef ? 0x01 : kind == Kw::CatchAll ? 0x02 : 0x03);
    if (kind == Kw::Catch || kind == Kw::CatchRef) {
      uint32_t tag;
      ok = parse_index(Space::Tag, tag);
      if (ok) emit_u32(tag);
    }
    uint32_t depth;
    ok = ok && parse_label(depth) && expect_rparen();
    if (ok) emit_u32(depth);
    ++count;
  }
  out_ = body;
  if (!ok) return false;
  emit_u32(count);
  out_->insert(out_->end(), clauses.begin(), clauses.end());
  return true;
}

// A folded instruction `( … )`. Operands are encoded before the operator.
bool ModuleParser::parse_folded(bool clause_ok) {
  const Token& open = peek();
  if (depth_ >= kMaxFoldedNesting) return fail(open, "instructions nested too deeply");
  ++depth_;
  ++pos_;
  const Token& t = peek();
  std::optional<Opcode> op = t.kind == TokKind::Atom ? opcode_from_text(text(t)) : std::nullopt;
  if (!op) return not_an_instruction(t);
  ++pos_;
  switch (*op) {
    case Opcode::Block:
    case Opcode::Loop:
    case Opcode::TryTable:
    case Opcode::Handle: {
      // (handle label? blocktype instr* (event …)*): the clauses are read by
      // parse_instrs as folded instructions of the body.
      if (!parse_block_header(*op)) return false;
      if (!parse_instrs()) return false;
      blocks_.pop_back();
      out_->push_back(0x0B);
      break;
    }
    case Opcode::Event: {
      // (event label? tagidx (param t*)* instr*): the clause opcode, then its
      // instructions, in the enclosing handle or function.
      if (!clause_ok) return fail(t, "unexpected event clause, expected an instruction");
      if (!parse_event_header() || !parse_instrs(false)) return false;
      break;
    }
    case Opcode::If: {
      // (if label? blocktype foldedinstr* (then instr*) (else instr*)?): the
      // conditions run before the `if`, outside its label's scope, so the
      // block type is resolved after them (implicit types in order of use).
      std::optional<std::string_view> label;
      TypeUse use;
      if (!parse_block_type(label, use)) return false;
      while (at(TokKind::LParen) && !at_form(Kw::Then))
        if (!parse_folded(false)) return false;
      emit_opcode(opcode_info(Opcode::If));
      if (!emit_block_type(use)) return false;
      blocks_.push_back(Block{Opcode::If, label.value_or(std::string_view{}), false});
      if (!expect_form(Kw::Then, "(then") || !parse_instrs() || !expect_rparen()) return false;
      if (at_form(Kw::Else)) {
        pos_ += 2;
        out_->push_back(0x05);
        blocks_.back().seen_else = true;
        blocks_.back().after_else = out_->size();
        if (!parse_instrs() || !expect_rparen()) return false;
      }
      drop_empty_else(blocks_.back());
      blocks_.pop_back();
      out_->push_back(0x0B);
      break;
    }
    case Opcode::Else:
    case Opcode::End:
      return fail(t, "unexpected token " + std::string(text(t)));
    default: {
      // Encode operator and immediates, set them aside, encode the operand
      // expressions, then append the operator.
      size_t mark = out_->size();
      if (!parse_plain(*op)) return false;
      size_t size = out_->size() - mark;
      uint8_t small[32];
      std::vector<uint8_t> large;
      uint8_t* saved = small;
      if (size > sizeof small) {
        large.resize(size);
        saved = large.data();
      }
      std::memcpy(saved, out_->data() + mark, size);
      out_->resize(mark);
      while (at(TokKind::LParen))
        if (!parse_folded(false)) return false;
      out_->insert(out_->end(), saved, saved + size);
      break;
    }
  }
  --depth_;
  return expect_rparen();
}

bool ModuleParser::parse_plain(Opcode op) {
  // `select (result t)*` is the typed select, a different opcode.
  if (op == Opcode::Select && at_form(Kw::Result)) op = Opcode::SelectT;
  const OpcodeInfo& info = opcode_info(op);
  emit_opcode(info);
  return parse_immediates(op);
}

bool ModuleParser::parse_label(uint32_t& depth) {
  const Token& t = peek();
  if (t.kind == TokKind::Id) {
    std::string_view name = text(t);
    for (size_t i = blocks_.size(); i-- > 0;) {
      if (blocks_[i].label == name || blocks_[i].alias == name) {
        depth = uint32_t(blocks_.size() - 1 - i);
        ++pos_;
        return true;
      }
    }
    if (function_alias_ == name) {  // the function's own label
      depth = uint32_t(blocks_.size());
      ++pos_;
      return true;
    }
    return fail(t, "unknown label " + std::string(name));
  }
  if (at_index()) return parse_u32(depth);
  return unexpected("a label");
}

bool ModuleParser::parse_local(uint32_t& index) {
  const Token& t = peek();
  if (t.kind == TokKind::Id) {
    auto it = locals_.find(text(t));
    if (it == locals_.end()) return fail(t, "unknown local " + std::string(text(t)));
    index = it->second;
    ++pos_;
    return true;
  }
  if (at_index()) return parse_u32(index);
  return unexpected("a local index");
}

// memarg ::= ('offset=' u32)? ('align=' u32)?, align a power of two stored as log2.
bool ModuleParser::parse_memarg(const OpcodeInfo& info) {
  // An optional memory index first (multi-memory). Before a lane index, a
  // lone number is the lane: it is the memory only when another follows.
  uint32_t memory = 0;
  const bool lane_follows = info.immediate == ImmKind::MemargLane;
  if (peek().kind == TokKind::Id || (at_index() && (!lane_follows || at_index(1) ||
                                                    (peek(1).kind == TokKind::Atom &&
                                                     (text(peek(1)).starts_with("offset=") ||
                                                      text(peek(1)).starts_with("align=")))))) {
    if (!parse_index(Space::Memory, memory)) return false;
  }
  uint64_t offset = 0;
  uint32_t align_log2 = uint32_t(std::countr_zero(unsigned(info.mem_bytes)));
  auto value_of = [&](std::string_view prefix, uint64_t& v) -> int {  // 1 parsed, 0 absent, -1 error
    if (!at(TokKind::Atom) || !text(peek()).starts_with(prefix)) return 0;
    const Token& t = peek();
    // (u64 with memory64: one beyond an i32 memory's range is the validator's error)
    NumResult<uint64_t> r = parse_unsigned(text(t).substr(prefix.size()), options_.memory64 ? 64 : 32);
    if (r.status == NumStatus::NotANumber) return fail(t, "unknown operator " + std::string(text(t))), -1;
    if (r.status == NumStatus::OutOfRange)
      return fail(t, (options_.memory64 ? "constant out of range: " : "i32 constant out of range: ") + std::string(text(t))), -1;
    v = r.value;
    ++pos_;
    return 1;
  };
  int got = value_of("offset=", offset);
  if (got < 0) return false;
  uint64_t align = 0;
  const Token& align_token = peek();
  got = value_of("align=", align);
  if (got < 0) return false;
  if (got > 0) {
    if (align == 0 || !std::has_single_bit(align))
      return fail(align_token, "alignment must be a power of two");
    align_log2 = uint32_t(std::countr_zero(align));
  }
  if (memory != 0) {
    emit_u32(align_log2 | 0x40);  // flag bit 6: a memory index follows
    emit_u32(memory);
  } else {
    emit_u32(align_log2);
  }
  write_leb_u64(*out_, offset);
  return true;
}

// The literal-looking atoms that follow (not instruction names), so a lane
// list of the wrong length is reported as such before any value is read.
size_t ModuleParser::count_lane_literals() const {
  size_t n = 0;
  while (true) {
    const Token& t = peek(n);
    if (t.kind != TokKind::Atom || opcode_from_text(text(t))) return n;
    if (t.kw != Kw::None && t.kw != Kw::NanCanonical && t.kw != Kw::NanArithmetic) return n;
    ++n;
  }
}

// A lane index is a u8. Out of range is "malformed lane index"; so is any
// other literal in a shuffle, while elsewhere it is an unexpected token (the
// reference interpreter's wording).
bool ModuleParser::parse_lane(bool in_shuffle) {
  const Token& t = peek();
  if (t.kind != TokKind::Atom) return unexpected("a lane index");
  NumResult<uint64_t> r = parse_unsigned(text(t), 8);
  if (r.status == NumStatus::NotANumber && !in_shuffle) return unexpected("a lane index");
  if (!r.ok()) return fail(t, "malformed lane index " + std::string(text(t)));
  out_->push_back(uint8_t(r.value));
  ++pos_;
  return true;
}

bool ModuleParser::parse_v128_const() {
  const Token& shape = peek();
  unsigned lanes, lane_bits;
  bool is_float = false;
  switch (shape.kind == TokKind::Atom ? shape.kw : Kw::None) {
    case Kw::I8x16: lanes = 16, lane_bits = 8; break;
    case Kw::I16x8: lanes = 8, lane_bits = 16; break;
    case Kw::I32x4: lanes = 4, lane_bits = 32; break;
    case Kw::I64x2: lanes = 2, lane_bits = 64; break;
    case Kw::F32x4: lanes = 4, lane_bits = 32, is_float = true; break;
    case Kw::F64x2: lanes = 2, lane_bits = 64, is_float = true; break;
    default: return unexpected("a vector shape (i8x16, i16x8, i32x4, i64x2, f32x4, f64x2)");
  }
  ++pos_;
  if (count_lane_literals() != lanes) return fail(peek(), "wrong number of lane literals");
  for (unsigned i = 0; i < lanes; ++i) {
    const Token& t = peek();
    NumResult<uint64_t> r;
    if (!is_float) {
      r = parse_integer(text(t), lane_bits);
    } else if (lane_bits == 32) {
      NumResult<uint32_t> f = parse_f32(text(t));
      r = {f.status, f.value};
    } else {
      r = parse_f64(text(t));
    }
    if (r.status == NumStatus::NotANumber) return unexpected("a number");
    if (r.status == NumStatus::OutOfRange) return fail(t, "constant out of range");
    put_le(*out_, r.value, lane_bits / 8);
    ++pos_;
  }
  return true;
}

bool ModuleParser::parse_immediates(Opcode op) {
  const OpcodeInfo& info = opcode_info(op);
  switch (info.immediate) {
    case ImmKind::None:
      return true;
    case ImmKind::BlockType:  // block/loop/if/try_table never get here
    case ImmKind::TryTable:
      return fail(peek(), "internal: block type outside a block");
    case ImmKind::LabelIdx: {
      uint32_t depth;
      if (!parse_label(depth)) return false;
      emit_u32(depth);
      return true;
    }
    case ImmKind::BrTable: {
      std::vector<uint32_t> targets;
      while (at_index()) {
        uint32_t depth;
        if (!parse_label(depth)) return false;
        targets.push_back(depth);
      }
      if (targets.empty()) return unexpected("a label");
      emit_u32(uint32_t(targets.size() - 1));  // the last one is the default
      for (uint32_t d : targets) emit_u32(d);
      return true;
    }
    case ImmKind::FuncIdx: {
      uint32_t f;
      if (!parse_index(Space::Func, f)) return false;
      emit_u32(f);
      return true;
    }
    case ImmKind::CallIndirect: {
      uint32_t table = 0, type;
      if (at_index() && !parse_index(Space::Table, table)) return false;
      TypeUse use;
      if (!parse_typeuse(use, false) || !resolve_typeuse(use, type)) return false;
      emit_u32(type);
      emit_u32(table);
      return true;
    }
    case ImmKind::LocalIdx: {
      uint32_t local;
      if (!parse_local(local)) return false;
      emit_u32(local);
      return true;
    }
    case ImmKind::GlobalIdx: {
      uint32_t g;
      if (!parse_index(Space::Global, g)) return false;
      emit_u32(g);
      return true;
    }
    case ImmKind::TableIdx: {
      uint32_t table = 0;
      if (at_index() && !parse_index(Space::Table, table)) return false;
      emit_u32(table);
      return true;
    }
    case ImmKind::Memarg:
      return parse_memarg(info);
    case ImmKind::MemIdx: {
      uint32_t memory = 0;
      if (at_index() && !parse_index(Space::Memory, memory)) return false;
      emit_u32(memory);
      return true;
    }
    case ImmKind::I32:
    case ImmKind::I64: {
      const Token& t = peek();
      unsigned bits = info.immediate == ImmKind::I32 ? 32 : 64;
      if (t.kind != TokKind::Atom) return unexpected("an integer");
      NumResult<uint64_t> r = parse_integer(text(t), bits);
      if (r.status == NumStatus::NotANumber) return unexpected("an integer");
      if (r.status == NumStatus::OutOfRange) return fail(t, "constant out of range");
      ++pos_;
      if (bits == 32) write_leb_s32(*out_, int32_t(uint32_t(r.value)));
      else write_leb_s64(*out_, int64_t(r.value));
      return true;
    }
    case ImmKind::F32: {
      const Token& t = peek();
      if (t.kind != TokKind::Atom) return unexpected("a float");
      NumResult<uint32_t> r = parse_f32(text(t));
      if (r.status == NumStatus::NotANumber) return unexpected("a float");
      if (r.status == NumStatus::OutOfRange) return fail(t, "constant out of range");
      ++pos_;
      put_le(*out_, r.value, 4);
      return true;
    }
    case ImmKind::F64: {
      const Token& t = peek();
      if (t.kind != TokKind::Atom) return unexpected("a float");
      NumResult<uint64_t> r = parse_f64(text(t));
      if (r.status == NumStatus::NotANumber) return unexpected("a float");
      if (r.status == NumStatus::OutOfRange) return fail(t, "constant out of range");
      ++pos_;
      put_le(*out_, r.value, 8);
      return true;
    }
    case ImmKind::SelectT: {
      std::vector<ValType> types;
      while (at_form(Kw::Result)) {
        pos_ += 2;
        while (!at(TokKind::RParen)) {
          ValType t;
          if (!parse_valtype(t)) return false;
          types.push_back(t);
        }
        ++pos_;
      }
      emit_u32(uint32_t(types.size()));
      for (ValType t : types) emit_valtype(t);
      return true;
    }
    case ImmKind::HeapType: {
      ValType t;
      if (!parse_heaptype(t)) return false;
      encode_heaptype(*out_, t);
      return true;
    }
    case ImmKind::MemoryInit:
    case ImmKind::DataIdx: {
      // memory.init takes `memidx? dataidx`: with two indices the first is the memory.
      uint32_t memory = 0, d;
      if (info.immediate == ImmKind::MemoryInit && at_index() && at_index(1) &&
          !parse_index(Space::Memory, memory))
        return false;
      if (!parse_index(Space::Data, d)) return false;
      emit_u32(d);
      if (info.immediate == ImmKind::MemoryInit) emit_u32(memory);
      uses_data_count_ = true;  // these need the DataCount section in binary
      return true;
    }
    case ImmKind::MemoryCopy: {
      uint32_t dst = 0, src = 0;
      if (at_index() && (!parse_index(Space::Memory, dst) || !parse_index(Space::Memory, src))) return false;
      emit_u32(dst);
      emit_u32(src);
      return true;
    }
    case ImmKind::TableInit: {
      uint32_t table = 0, elem;
      if (at_index() && at_index(1) && !parse_index(Space::Table, table)) return false;
      if (!parse_index(Space::Elem, elem)) return false;
      emit_u32(elem);
      emit_u32(table);
      return true;
    }
    case ImmKind::ElemIdx: {
      uint32_t e;
      if (!parse_index(Space::Elem, e)) return false;
      emit_u32(e);
      return true;
    }
    case ImmKind::TableCopy: {
      uint32_t dst = 0, src = 0;
      if (at_index() && (!parse_index(Space::Table, dst) || !parse_index(Space::Table, src))) return false;
      emit_u32(dst);
      emit_u32(src);
      return true;
    }
    case ImmKind::V128:
      return parse_v128_const();
    case ImmKind::Lane:
      return parse_lane(false);
    case ImmKind::MemargLane:
      return parse_memarg(info) && parse_lane(false);
    case ImmKind::Shuffle: {
      if (count_lane_literals() != 16) return fail(peek(), "invalid lane length");
      for (int i = 0; i < 16; ++i)
        if (!parse_lane(true)) return false;
      return true;
    }
    case ImmKind::TagIdx: {
      uint32_t tag;
      if (!parse_index(Space::Tag, tag)) return false;
      emit_u32(tag);
      return true;
    }
    case ImmKind::TypeIdx: {
      uint32_t type;
      if (!parse_index(Space::Type, type)) return false;
      emit_u32(type);
      return true;
    }
    case ImmKind::TypeTag: {
      uint32_t type, tag;
      if (!parse_index(Space::Type, type) || !parse_index(Space::Tag, tag)) return false;
      emit_u32(type);
      emit_u32(tag);
      return true;
    }
  }
  return fail(peek(), "internal: unhandled immediate kind");
}

}  // namespace weft::text::detail
