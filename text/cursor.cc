// Token cursor shared by the module and script parsers: expectations, error
// reporting in the reference interpreter's wording, strings, names, numbers.
#include "core/opcodes.h"
#include "text/numbers.h"
#include "text/parser.h"

namespace weft::text::detail {

bool Cursor::fail(const Token& t, std::string message) {
  if (!err_) err_ = tl_.error_at(t.offset, std::move(message));
  return false;
}

namespace {

// An atom that is no keyword, instruction or well-formed number: the
// reference interpreter's lexer calls all of those "unknown operator".
bool is_unknown_atom(const Token& t, std::string_view text) {
  if (t.kind == TokKind::Reserved) return true;
  if (t.kind != TokKind::Atom || t.kw != Kw::None || opcode_from_text(text)) return false;
  return parse_integer(text, 64).status == NumStatus::NotANumber &&
         parse_f64(text).status == NumStatus::NotANumber;
}

}  // namespace

bool Cursor::unexpected(const char* expected) {
  const Token& t = peek();
  std::string got;
  if (t.kind == TokKind::Eof) {
    got = "end of input";
  } else {
    std::string_view s = text(t);
    got = std::string(s.substr(0, 40)) + (s.size() > 40 ? "…" : "");
  }
  if (is_unknown_atom(t, text(t))) return fail(t, "unknown operator " + got);
  return fail(t, "unexpected token " + got + ", expected " + expected);
}

bool Cursor::not_an_instruction(const Token& t) {
  // Keywords such as `param` or `local` out of place are unexpected tokens;
  // any other word is an unknown operator.
  if (t.kind == TokKind::Atom && t.kw != Kw::None) return fail(t, "unexpected token " + std::string(text(t)));
  if (t.kind == TokKind::Atom || t.kind == TokKind::Reserved)
    return fail(t, "unknown operator " + std::string(text(t)));
  return fail(t, "unexpected token " + std::string(text(t)) + ", expected an instruction");
}

bool Cursor::expect_lparen() {
  if (!at(TokKind::LParen)) return unexpected("(");
  ++pos_;
  return true;
}

bool Cursor::expect_rparen() {
  if (!at(TokKind::RParen)) return unexpected(")");
  ++pos_;
  return true;
}

bool Cursor::expect_form(Kw kw, const char* name) {
  if (!at_form(kw)) return unexpected(name);
  pos_ += 2;
  return true;
}

bool Cursor::parse_string(std::string& out) {
  if (!at(TokKind::String)) return unexpected("a string");
  out = decode_string(text(tl_.tokens[pos_++]));
  return true;
}

bool Cursor::parse_name(std::string& out) {
  const Token& t = peek();
  if (!parse_string(out)) return false;
  if (!is_valid_utf8(out)) return fail(t, "malformed UTF-8 encoding");
  return true;
}

bool Cursor::parse_u32(uint32_t& out) {
  uint64_t v = 0;
  if (!parse_u64(v)) return false;
  if (v > UINT32_MAX) return fail(tl_.tokens[pos_ - 1], "constant out of range");
  out = uint32_t(v);
  return true;
}

bool Cursor::parse_u64(uint64_t& out) {
  const Token& t = peek();
  if (t.kind != TokKind::Atom) return unexpected("a number");
  NumResult<uint64_t> r = parse_unsigned(text(t), 64);
  if (r.status == NumStatus::NotANumber) return unexpected("a number");
  if (r.status == NumStatus::OutOfRange) return fail(t, "constant out of range");
  out = r.value;
  ++pos_;
  return true;
}

}  // namespace weft::text::detail
