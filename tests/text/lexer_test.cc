// Lexer: token kinds, comments, annotations, string escapes, locations.
#include "text/lexer.h"

#include <gtest/gtest.h>

namespace weft::text {
namespace {

std::vector<TokKind> kinds(std::string_view src) {
  Result<TokenList> r = tokenize(src);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string());
  std::vector<TokKind> out;
  if (r.ok())
    for (const Token& t : r->tokens) out.push_back(t.kind);
  return out;
}

using K = TokKind;

TEST(Lexer, BasicTokens) {
  EXPECT_EQ(kinds("(module $m (func))"),
            (std::vector<K>{K::LParen, K::Atom, K::Id, K::LParen, K::Atom, K::RParen, K::RParen, K::Eof}));
  EXPECT_EQ(kinds("\"str\" 0x1p3 -inf nan:0x1"), (std::vector<K>{K::String, K::Atom, K::Atom, K::Atom, K::Eof}));
}

TEST(Lexer, KeywordsAreClassified) {
  Result<TokenList> r = tokenize("module func i32.add nan:canonical");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->tokens[0].kw, Kw::Module);
  EXPECT_EQ(r->tokens[1].kw, Kw::Func);
  EXPECT_EQ(r->tokens[2].kw, Kw::None);  // instructions come from the opcode table
  EXPECT_EQ(r->tokens[3].kw, Kw::NanCanonical);
}

TEST(Lexer, MatchingParens) {
  Result<TokenList> r = tokenize("(a (b) (c (d)))");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->tokens[0].close, 11u);
  EXPECT_EQ(r->tokens[2].close, 4u);
  EXPECT_EQ(r->tokens[5].close, 10u);
}

TEST(Lexer, CommentsAndAnnotationsAreSkipped) {
  EXPECT_EQ(kinds(";; line\n(; block (; nested ;) still ;) x ;;tail"), (std::vector<K>{K::Atom, K::Eof}));
  EXPECT_EQ(kinds("(func (@name \"x)\" (nested (deep))) nop)"),
            (std::vector<K>{K::LParen, K::Atom, K::Atom, K::RParen, K::Eof}));
  EXPECT_EQ(kinds("(func;;c\n)"), (std::vector<K>{K::LParen, K::Atom, K::RParen, K::Eof}));
  EXPECT_EQ(kinds("nop(;c;)nop"), (std::vector<K>{K::Atom, K::Atom, K::Eof}));
  // Line comments end at LF, CR or CR LF.
  EXPECT_EQ(kinds(";; a\rnop;; b\r\nnop;; c\nnop"), (std::vector<K>{K::Atom, K::Atom, K::Atom, K::Eof}));
  // Any token may appear in an annotation, reserved ones (`,` `;` `[` `]` `{` `}`) included.
  EXPECT_EQ(kinds("(@a , ; ] [ }} }x{ ({) ,{{};}] ;) nop"), (std::vector<K>{K::Atom, K::Eof}));
}

TEST(Lexer, IllegalCharactersAreNamed) {
  for (const char* bad : {"(@a \x01)", "nop \x7f", "\x1b"}) {
    Result<TokenList> r = tokenize(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().message, "illegal character") << bad;
  }
  Result<TokenList> r = tokenize("(@a \x80)");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "malformed UTF-8 encoding");
}

TEST(Lexer, GluedStringsAreReserved) {
  EXPECT_EQ(kinds("$l\"a\""), (std::vector<K>{K::Reserved, K::Eof}));
  EXPECT_EQ(kinds("\"a\"\"b\""), (std::vector<K>{K::Reserved, K::Eof}));
  EXPECT_EQ(kinds("\"a\"x"), (std::vector<K>{K::Reserved, K::Eof}));
  EXPECT_EQ(kinds("$"), (std::vector<K>{K::Reserved, K::Eof}));
  EXPECT_EQ(kinds("\"a\"(x)"), (std::vector<K>{K::String, K::LParen, K::Atom, K::RParen, K::Eof}));
}

TEST(Lexer, StringEscapes) {
  Result<TokenList> r = tokenize(R"("\t\n\r\"\'\\\41\u{41}\u{1F600}\u{10_FFFF}")");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  std::string s = decode_string(r->text(r->tokens[0]));
  EXPECT_EQ(s, std::string("\t\n\r\"'\\AA\xF0\x9F\x98\x80\xF4\x8F\xBF\xBF"));
  EXPECT_EQ(decode_string("\"\\00\\ff\""), std::string("\0\xff", 2));
}

TEST(Lexer, Errors) {
  for (const char* bad : {"\"\\q\"", "\"\\u{D800}\"", "\"\\u{110000}\"", "\"\\u{}\"", "\"\\4\"", "\"open",
                          "\"tab\there\"", "(; open", "(a", "a)", ";x", "a , b", "\"\n\""}) {
    EXPECT_FALSE(tokenize(bad).ok()) << bad;
  }
}

TEST(Lexer, ErrorLocationIsLineColumn) {
  Result<TokenList> r = tokenize("(module\n  (func)\n   )  )");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::Malformed);
  EXPECT_EQ(r.error().location.kind, Location::Kind::LineColumn);
  EXPECT_EQ(r.error().location.line, 3u);
  EXPECT_EQ(r.error().location.column, 7u);
}

TEST(Lexer, Utf8Validation) {
  EXPECT_TRUE(is_valid_utf8("plain"));
  EXPECT_TRUE(is_valid_utf8("\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80"));
  EXPECT_FALSE(is_valid_utf8("\x80"));
  EXPECT_FALSE(is_valid_utf8("\xC0\x80"));          // overlong
  EXPECT_FALSE(is_valid_utf8("\xED\xA0\x80"));      // surrogate
  EXPECT_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));  // > U+10FFFF
  EXPECT_FALSE(is_valid_utf8("\xE2\x82"));          // truncated
}

}  // namespace
}  // namespace weft::text
