// WAT/WAST lexer: tokens, comments, annotations, string escapes, UTF-8 checks.
#include "text/lexer.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <unordered_map>

namespace weft::text {
namespace {

// idchar of the text format: printable ASCII except space, quotes, comma,
// semicolon, brackets and parentheses.
constexpr bool is_idchar(unsigned char c) {
  if (c <= 0x20 || c >= 0x7F) return false;
  switch (c) {
    case '"': case ',': case ';': case '(': case ')': case '[': case ']': case '{': case '}':
      return false;
    default:
      return true;
  }
}

constexpr int hex_value(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Kw keyword_of(std::string_view text) {
  static const std::unordered_map<std::string_view, Kw> table = [] {
    std::unordered_map<std::string_view, Kw> m;
#define WEFT_KEYWORD(name, text) m.emplace(text, Kw::name);
#include "text/keywords.def"
    return m;
  }();
  auto it = table.find(text);
  return it == table.end() ? Kw::None : it->second;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
}

class Lexer {
 public:
  explicit Lexer(std::string_view src) : src_(src) { list_.source = src; }

  Result<TokenList> run() {
    if (src_.size() >= std::numeric_limits<uint32_t>::max())
      return make_error(ErrorKind::Limit, "source text larger than 4 GiB");
    compute_line_starts();
    std::vector<uint32_t> open;  // indices of unmatched LParen tokens
    uint32_t annotation_depth = 0;  // >0 while skipping an (@annotation …)
    size_t n = src_.size();
    while (pos_ < n) {
      unsigned char c = uint8_t(src_[pos_]);
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++pos_;
      } else if (c == ';') {
        if (pos_ + 1 < n && src_[pos_ + 1] == ';') {
          // A line comment ends at any newline: LF, CR or CR LF.
          pos_ += 2;
          while (pos_ < n && src_[pos_] != '\n' && src_[pos_] != '\r') ++pos_;
        } else if (annotation_depth > 0) {
          ++pos_;  // a reserved token's character: any token may appear in an annotation
        } else {
          return error(pos_, "unexpected character ';'");
        }
      } else if (annotation_depth > 0 && (c == ',' || c == '[' || c == ']' || c == '{' || c == '}')) {
        ++pos_;  // the other characters of reserved tokens (text format: `reserved`)
      } else if (c == '(' && pos_ + 1 < n && src_[pos_ + 1] == ';') {
        if (!skip_block_comment()) return *err_;
      } else if (c == '(') {
        if (annotation_depth > 0) {
          ++annotation_depth;
          ++pos_;
        } else if (pos_ + 1 < n && src_[pos_ + 1] == '@' && pos_ + 2 < n && is_idchar(uint8_t(src_[pos_ + 2]))) {
          // Annotations (the custom-annotation proposal) carry no meaning for
          // the core language: skip the whole balanced form.
          annotation_start_ = pos_;
          annotation_depth = 1;
          pos_ += 2;
        } else {
          open.push_back(uint32_t(list_.tokens.size()));
          push(TokKind::LParen, pos_, 1);
          ++pos_;
        }
      } else if (c == ')') {
        if (annotation_depth > 0) {
          --annotation_depth;
          ++pos_;
          continue;
        }
        if (open.empty()) return error(pos_, "unexpected token ')'");
        list_.tokens[open.back()].close = uint32_t(list_.tokens.size());
        open.pop_back();
        push(TokKind::RParen, pos_, 1);
        ++pos_;
      } else if (c == '"' || is_idchar(c)) {
        if (!lex_word(annotation_depth > 0)) return *err_;
      } else if (c < 0x20 || c == 0x7F) {
        return error(pos_, "illegal character");  // control characters other than the whitespace above
      } else if (c >= 0x80) {
        return error(pos_, "malformed UTF-8 encoding");  // non-ASCII only inside strings and comments
      } else {
        return error(pos_, "unexpected character");
      }
    }
    if (annotation_depth > 0) return error(annotation_start_, "unclosed annotation");
    if (!open.empty()) return error(uint32_t(n), "unexpected end of input: unclosed '('");
    push(TokKind::Eof, uint32_t(n), 0);
    return std::move(list_);
  }

 private:
  Error error(size_t offset, std::string msg) { return list_.error_at(uint32_t(offset), std::move(msg)); }

  void push(TokKind kind, size_t offset, size_t size) {
    list_.tokens.push_back(Token{kind, Kw::None, uint32_t(offset), uint32_t(size), 0});
  }

  void compute_line_starts() {
    list_.line_starts.push_back(0);
    const char* base = src_.data();
    size_t n = src_.size(), p = 0;
    while (p < n) {
      const void* nl = std::memchr(base + p, '\n', n - p);
      if (!nl) break;
      p = size_t(static_cast<const char*>(nl) - base) + 1;
      list_.line_starts.push_back(uint32_t(p));
    }
  }

  bool skip_block_comment() {
    size_t start = pos_, n = src_.size();
    uint32_t depth = 0;
    while (pos_ < n) {
      if (src_[pos_] == '(' && pos_ + 1 < n && src_[pos_ + 1] == ';') {
        ++depth;
        pos_ += 2;
      } else if (src_[pos_] == ';' && pos_ + 1 < n && src_[pos_ + 1] == ')') {
        pos_ += 2;
        if (--depth == 0) return true;
      } else {
        ++pos_;
      }
    }
    err_ = error(start, "unclosed block comment");
    return false;
  }

  // A maximal run of idchars and strings is one token (the text format's
  // "reserved" token rule): `$l"a"` or `"a""b"` must not split into two.
  bool lex_word(bool skipping) {
    size_t start = pos_, n = src_.size();
    bool has_string = false, has_idchars = false;
    unsigned strings = 0;
    while (pos_ < n) {
      unsigned char c = uint8_t(src_[pos_]);
      if (c == '"') {
        if (!scan_string()) return false;
        has_string = true;
        ++strings;
      } else if (is_idchar(c)) {
        has_idchars = true;
        ++pos_;
      } else {
        break;
      }
    }
    if (skipping) return true;
    size_t size = pos_ - start;
    TokKind kind;
    if (has_string) {
      kind = (!has_idchars && strings == 1) ? TokKind::String : TokKind::Reserved;
    } else if (src_[start] == '$') {
      kind = size > 1 ? TokKind::Id : TokKind::Reserved;
    } else {
      kind = TokKind::Atom;
    }
    push(kind, start, size);
    if (kind == TokKind::Atom && src_[start] >= 'a' && src_[start] <= 'z')
      list_.tokens.back().kw = keyword_of(src_.substr(start, size));
    return true;
  }

  // Validates one string literal starting at pos_ (a '"') and moves past it.
  bool scan_string() {
    size_t start = pos_, n = src_.size();
    ++pos_;
    while (true) {
      if (pos_ >= n) {
        err_ = error(start, "unclosed string");
        return false;
      }
      unsigned char c = uint8_t(src_[pos_]);
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c < 0x20 || c == 0x7F) {
        err_ = error(pos_, "illegal character in string");
        return false;
      }
      if (c != '\\') {
        ++pos_;
        continue;
      }
      size_t esc = pos_;
      if (pos_ + 1 >= n) {
        err_ = error(start, "unclosed string");
        return false;
      }
      unsigned char e = uint8_t(src_[pos_ + 1]);
      switch (e) {
        case 't': case 'n': case 'r': case '"': case '\'': case '\\':
          pos_ += 2;
          continue;
        case 'u': {
          // \u{hexnum}: a Unicode scalar value (no surrogates, at most 0x10FFFF).
          size_t p = pos_ + 2;
          if (p >= n || src_[p] != '{') break;
          ++p;
          uint64_t cp = 0;
          bool any = false, prev_digit = false;
          while (p < n && src_[p] != '}') {
            int h = hex_value(uint8_t(src_[p]));
            if (h >= 0) {
              cp = std::min<uint64_t>(cp * 16 + unsigned(h), 0x110000);
              any = prev_digit = true;
            } else if (src_[p] == '_' && prev_digit && p + 1 < n && hex_value(uint8_t(src_[p + 1])) >= 0) {
              prev_digit = false;
            } else {
              any = false;
              break;
            }
            ++p;
          }
          if (!any || p >= n || src_[p] != '}' || cp >= 0x110000 || (cp >= 0xD800 && cp < 0xE000)) break;
          pos_ = p + 1;
          continue;
        }
        default:
          if (hex_value(e) >= 0 && pos_ + 2 < n && hex_value(uint8_t(src_[pos_ + 2])) >= 0) {
            pos_ += 3;
            continue;
          }
          break;
      }
      err_ = error(esc, "illegal escape");
      return false;
    }
  }

  std::string_view src_;
  size_t pos_ = 0;
  size_t annotation_start_ = 0;
  TokenList list_;
  std::optional<Error> err_;
};

}  // namespace

Location TokenList::location(uint32_t offset) const {
  auto it = std::upper_bound(line_starts.begin(), line_starts.end(), offset);
  size_t line = size_t(it - line_starts.begin());  // 1-based: the count of starts <= offset
  uint32_t start = line > 0 ? line_starts[line - 1] : 0;
  return Location::at_line(uint32_t(line == 0 ? 1 : line), offset - start + 1);
}

Result<TokenList> tokenize(std::string_view source) { return Lexer(source).run(); }

std::string decode_string(std::string_view quoted) {
  std::string out;
  if (quoted.size() < 2) return out;
  std::string_view s = quoted.substr(1, quoted.size() - 2);
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c != '\\') {
      out += c;
      continue;
    }
    char e = s[++i];
    switch (e) {
      case 't': out += '\t'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case '"': out += '"'; break;
      case '\'': out += '\''; break;
      case '\\': out += '\\'; break;
      case 'u': {
        uint32_t cp = 0;
        for (i += 2; s[i] != '}'; ++i)
          if (s[i] != '_') cp = cp * 16 + uint32_t(hex_value(uint8_t(s[i])));
        append_utf8(out, cp);
        break;
      }
      default:
        out += char(hex_value(uint8_t(e)) * 16 + hex_value(uint8_t(s[i + 1])));
        ++i;
        break;
    }
  }
  return out;
}

bool is_valid_utf8(std::string_view bytes) {
  size_t i = 0, n = bytes.size();
  while (i < n) {
    uint8_t c = uint8_t(bytes[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + len > n) return false;
    for (size_t k = 1; k < len; ++k) {
      uint8_t cc = uint8_t(bytes[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    // Overlong forms, surrogates and values above U+10FFFF are not UTF-8.
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp < 0xE000))
      return false;
    i += len;
  }
  return true;
}

}  // namespace weft::text
