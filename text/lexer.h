// WAT/WAST lexer: source text → a flat token vector with matched parentheses.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace weft::text {

enum class TokKind : uint8_t {
  LParen,
  RParen,
  Atom,      // keyword, number or other run of idchars (not starting with '$')
  Id,        // $name
  String,    // "…" (escapes validated, still encoded)
  Reserved,  // strings glued to other tokens, a lone '$': never valid, kept for the error
  Eof,
};

enum class Kw : uint8_t {
  None,
#define WEFT_KEYWORD(name, text) name,
#include "text/keywords.def"
};

struct Token {
  TokKind kind = TokKind::Eof;
  Kw kw = Kw::None;     // Atom: its keyword, if it is one
  uint32_t offset = 0;  // byte offset in the source
  uint32_t size = 0;    // byte length in the source
  uint32_t close = 0;   // LParen: token index of the matching RParen
};

// The lexed source: tokens (the last one is Eof) plus what is needed to turn
// byte offsets back into line:column for error messages.
struct TokenList {
  std::string_view source;
  std::vector<Token> tokens;
  std::vector<uint32_t> line_starts;  // byte offset of the start of each line

  std::string_view text(const Token& t) const { return source.substr(t.offset, t.size); }
  Location location(uint32_t offset) const;  // 1-based line and column (column counts bytes)
  uint32_t line(uint32_t offset) const { return location(offset).line; }
  Error error_at(uint32_t offset, std::string message) const {
    return make_error(ErrorKind::Malformed, std::move(message), location(offset));
  }
};

// Splits `source` into tokens, skipping whitespace, line and (nested) block
// comments and `(@annotation …)` forms. Fails on unbalanced parentheses,
// unterminated comments or strings, bad escapes and characters outside the
// text format's alphabet.
Result<TokenList> tokenize(std::string_view source);

// Decodes the escapes of a String token's text (including its quotes) into
// raw bytes. The lexer has already validated the escapes.
std::string decode_string(std::string_view quoted);

bool is_valid_utf8(std::string_view bytes);

}  // namespace weft::text
