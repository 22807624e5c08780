// Internal to text/: the token cursor shared by the module and script parsers,
// and the module parser (fields in module_parser.cc, instructions in
// instructions.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/module.h"
#include "core/opcodes.h"
#include "core/result.h"
#include "text/lexer.h"
#include "text/text.h"

namespace weft::text::detail {

// A position in a TokenList plus the first error met. Parse functions return
// false after recording the error; callers stop and propagate the false.
class Cursor {
 public:
  Cursor(const TokenList& tokens, size_t pos) : tl_(tokens), pos_(pos) {}

  size_t pos() const { return pos_; }
  const Error& error() const { return *err_; }

 protected:
  const Token& peek(size_t ahead = 0) const {
    size_t i = pos_ + ahead;
    return i < tl_.tokens.size() ? tl_.tokens[i] : tl_.tokens.back();
  }
  std::string_view text(const Token& t) const { return tl_.text(t); }
  bool at(TokKind kind) const { return peek().kind == kind; }
  bool at_kw(Kw kw) const { return peek().kind == TokKind::Atom && peek().kw == kw; }
  // `(kw` — the start of a form introduced by a keyword.
  bool at_form(Kw kw, size_t ahead = 0) const {
    return peek(ahead).kind == TokKind::LParen && peek(ahead + 1).kind == TokKind::Atom && peek(ahead + 1).kw == kw;
  }
  // A numeric index or an $id (e.g. the optional table of `table.get`).
  bool at_index(size_t ahead = 0) const {
    const Token& t = peek(ahead);
    if (t.kind == TokKind::Id) return true;
    if (t.kind != TokKind::Atom) return false;
    char c = text(t)[0];
    return c >= '0' && c <= '9';
  }

  bool fail(const Token& t, std::string message);
  bool fail_here(std::string message) { return fail(peek(), std::move(message)); }
  bool unexpected(const char* expected);  // "unexpected token X, expected …"
  bool not_an_instruction(const Token& t);  // where an instruction name was required

  bool expect_lparen();
  bool expect_rparen();
  bool expect_form(Kw kw, const char* name);  // consumes `(kw`
  bool consume_kw(Kw kw) {
    if (!at_kw(kw)) return false;
    ++pos_;
    return true;
  }
  std::optional<std::string_view> consume_id() {
    if (!at(TokKind::Id)) return std::nullopt;
    return text(tl_.tokens[pos_++]);
  }

  bool parse_string(std::string& out);  // one string literal, escapes decoded
  bool parse_name(std::string& out);    // a string that must be valid UTF-8
  bool parse_u32(uint32_t& out);
  bool parse_u64(uint64_t& out);

  const TokenList& tl_;
  size_t pos_;
  std::optional<Error> err_;
};

// The index spaces that symbolic identifiers can name at module level.
enum class Space : uint8_t { Type, Func, Table, Memory, Global, Tag, Elem, Data, Count_ };

// Parses the fields of one text module into a Module. Two passes: the first
// binds every module-level identifier and reads the type section (so uses may
// precede definitions); the second reads each field and encodes function
// bodies and constant expressions to binary instruction bytes.
class ModuleParser : public Cursor {
 public:
  // `pos` is the first field token; parsing stops at the ')' that closes the
  // enclosing form (or at end of input).
  ModuleParser(const TokenList& tokens, size_t pos, const TextOptions& options = {})
      : Cursor(tokens, pos), options_(options) {}

  bool parse(Module& out);

 private:
  // A type use as written: `(type x)?` then `(param …)* (result …)*`.
  struct TypeUse {
    std::optional<uint32_t> index;
    bool has_inline = false;  // any (param …) or (result …) written
    FuncType type;
    std::vector<std::pair<std::string_view, uint32_t>> param_names;  // id, parameter index
    uint32_t token = 0;  // where the type use started (for errors)
  };

  // An open block for label resolution and end/else matching.
  struct Block {
    Opcode opcode;
    std::string_view label;  // empty when unnamed
    bool seen_else = false;
    size_t after_else = 0;  // out_ size right after the `else` opcode
    // Fiber extension: the label written on the current event clause of a
    // handle, another name of the handle's label (empty when none).
    std::string_view alias = {};
  };

  // ---- pass 1 (module_parser.cc)
  bool scan_fields();
  bool bind(Space space, std::optional<std::string_view> id, const Token& at, const char* what);

  // ---- pass 2: fields (module_parser.cc)
  bool parse_field();
  bool parse_type_def(FuncType& type, std::optional<std::string_view>& id);
  bool parse_import();
  bool parse_func();
  bool parse_table();
  bool parse_memory();
  bool parse_global();
  bool parse_export();
  bool parse_start();
  bool parse_elem();
  bool parse_data();
  bool parse_inline_exports(ExternKind kind, uint32_t index);
  bool parse_inline_import(Import& import);  // after `(import` was seen
  bool check_import_order(const Token& at);
  bool parse_data_strings(std::vector<uint8_t>& out);
  bool parse_offset(ConstExpr& out);
  bool parse_elem_list(ElemSegment& seg, bool allow_bare_indices);

  // ---- types (module_parser.cc)
  bool parse_valtype(ValType& out);
  bool parse_reftype(ValType& out);
  bool parse_heaptype(ValType& out);
  bool parse_ref_form(ValType& out);  // `(ref null? heaptype)`
  // The number of tokens of the reference type `ahead` tokens on (0: none there).
  size_t reftype_tokens(size_t ahead) const;
  // `reftype (elem …)`: the inline element segment of a table.
  bool at_inline_elem(size_t ahead = 0) const {
    const size_t n = reftype_tokens(ahead);
    return n > 0 && peek(ahead + n).kind == TokKind::LParen && peek(ahead + n + 1).kind == TokKind::Atom &&
           peek(ahead + n + 1).kw == Kw::Elem;
  }
  // 1 if an address type (`i32`/`i64`, memory64) is next, else 0: tokens to skip.
  size_t at_address_type() const {
    return peek().kind == TokKind::Atom && (peek().kw == Kw::I64 || peek().kw == Kw::I32) ? 1 : 0;
  }
  bool parse_limits(Limits& out, unsigned bits);
  bool parse_address_type();
  bool parse_memory_limits(Limits& out);  // address type, then limits (memories and tables)
  bool parse_table_type(TableType& out);
  bool parse_global_type(GlobalType& out);
  bool parse_param_result_lists(FuncType& type, std::vector<std::pair<std::string_view, uint32_t>>* names,
                                bool* has_any);
  bool parse_typeuse(TypeUse& use, bool allow_param_names);
  // The type index of a use, creating an implicit type when none matches.
  bool resolve_typeuse(const TypeUse& use, uint32_t& index);
  uint32_t find_or_add_type(const FuncType& type);
  const FuncType* type_at(uint32_t index) const {
    return index < module_->types.size() ? &module_->types[index] : nullptr;
  }
  bool parse_index(Space space, uint32_t& out);

  // ---- instructions (instructions.cc)
  // Encodes instr* up to the closing ')' of the enclosing form into `out`,
  // then the final `end`. Locals and labels come from the current function.
  // `function_body`: function-level event clauses may stand at its top.
  bool parse_expr(std::vector<uint8_t>& out, bool function_body = false);
  // `clauses_ok`: event clauses may stand at this level (a function body or a
  // handle; not a constant expression, nor directly inside an event clause's
  // own instructions, where they would be its siblings).
  bool parse_instrs(bool clauses_ok = true);
  // `clause_ok`: a folded `(event …)` clause may stand here (in an instruction
  // sequence), not as an operand or a lone constant expression.
  bool parse_folded(bool clause_ok);
  bool parse_block_header(Opcode op);
  bool parse_catch_clauses();
  bool parse_event_header();  // after `event`: label alias, tag, (param …)*
  bool at_event_form() const;
  bool check_event_params();
  bool parse_plain(Opcode op);
  bool parse_immediates(Opcode op);
  bool parse_block_type(std::optional<std::string_view>& label, TypeUse& use);
  bool emit_block_type(const TypeUse& use);
  bool parse_end_label(std::string_view label, const char* what);
  void drop_empty_else(const Block& block);
  bool parse_label(uint32_t& depth);
  bool parse_local(uint32_t& index);
  bool parse_memarg(const OpcodeInfo& info);
  bool parse_lane(bool in_shuffle);
  size_t count_lane_literals() const;
  bool parse_v128_const();
  void emit_opcode(const OpcodeInfo& info);
  void emit_u32(uint32_t v);
  void emit_valtype(ValType t);

  Module* module_ = nullptr;
  struct Names {
    std::unordered_map<std::string_view, uint32_t> ids;
    uint32_t count = 0;
  };
  Names spaces_[size_t(Space::Count_)];
  TextOptions options_;
  std::unordered_map<std::string, uint32_t> type_lookup_;  // signature key → first type index
  size_t fields_begin_ = 0;

  // Pass-2 state: the kinds defined so far (imports must precede them).
  const char* last_definition_ = nullptr;
  bool seen_start_ = false;
  uint32_t next_[size_t(Space::Count_)] = {};  // pass 2: next index per space

  // Function-body state.
  std::vector<uint8_t>* out_ = nullptr;
  std::unordered_map<std::string_view, uint32_t> locals_;
  std::vector<Block> blocks_;
  std::string_view function_alias_;  // label of the current function-level event clause
  uint32_t depth_ = 0;  // folded-instruction nesting, bounded to protect the C++ stack
  bool uses_data_count_ = false;

  // Event clauses that repeat their tag's params, checked at the end.
  struct EventParams {
    uint32_t tag;
    std::vector<ValType> params;
    uint32_t token;  // the tag's token
  };
  std::vector<EventParams> event_params_;
};

// Binary value type encoding (0x7F i32 … 0x6F externref; fiber extension:
// 0x5B fiberref, 0x63/0x64 heaptype).
void encode_valtype(std::vector<uint8_t>& out, ValType t);
// Binary heap type of a reference type: 0x70, 0x6F, 0x5B or an s33 type index.
void encode_heaptype(std::vector<uint8_t>& out, ValType t);

}  // namespace weft::text::detail
