// A minimal JSON reader for the corpus test (wast2json output): objects,
// arrays, strings with escapes, numbers, literals. Not a general-purpose parser.
#pragma once

#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace weft::binary::test::json {

struct Value {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Value> array;
  std::map<std::string, Value> object;

  const Value* get(const std::string& key) const {
    auto it = object.find(key);
    return it == object.end() ? nullptr : &it->second;
  }
  std::string get_string(const std::string& key) const {
    const Value* v = get(key);
    return v && v->kind == String ? v->string : std::string();
  }
};

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  std::optional<Value> parse() {
    Value v;
    if (!value(v)) return std::nullopt;
    ws();
    if (i_ != s_.size()) return std::nullopt;
    return v;
  }

 private:
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) ++i_;
  }
  bool lit(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) return false;
    i_ += word.size();
    return true;
  }
  bool value(Value& v) {
    ws();
    if (i_ >= s_.size()) return false;
    const char c = s_[i_];
    if (c == '{') return object(v);
    if (c == '[') return array(v);
    if (c == '"') {
      v.kind = Value::String;
      return string(v.string);
    }
    if (lit("true")) { v.kind = Value::Bool; v.boolean = true; return true; }
    if (lit("false")) { v.kind = Value::Bool; return true; }
    if (lit("null")) return true;
    const char* begin = s_.data() + i_;
    char* end = nullptr;
    v.number = std::strtod(begin, &end);
    if (end == begin) return false;
    v.kind = Value::Number;
    i_ += size_t(end - begin);
    return true;
  }
  bool object(Value& v) {
    v.kind = Value::Object;
    ++i_;
    ws();
    if (i_ < s_.size() && s_[i_] == '}') { ++i_; return true; }
    for (;;) {
      ws();
      std::string key;
      if (i_ >= s_.size() || s_[i_] != '"' || !string(key)) return false;
      ws();
      if (i_ >= s_.size() || s_[i_++] != ':') return false;
      if (!value(v.object[key])) return false;
      ws();
      if (i_ >= s_.size()) return false;
      if (s_[i_] == ',') { ++i_; continue; }
      if (s_[i_] == '}') { ++i_; return true; }
      return false;
    }
  }
  bool array(Value& v) {
    v.kind = Value::Array;
    ++i_;
    ws();
    if (i_ < s_.size() && s_[i_] == ']') { ++i_; return true; }
    for (;;) {
      v.array.emplace_back();
      if (!value(v.array.back())) return false;
      ws();
      if (i_ >= s_.size()) return false;
      if (s_[i_] == ',') { ++i_; continue; }
      if (s_[i_] == ']') { ++i_; return true; }
      return false;
    }
  }
  bool string(std::string& out) {
    ++i_;  // opening quote
    while (i_ < s_.size()) {
      char c = s_[i_++];
      if (c == '"') return true;
      if (c != '\\') { out.push_back(c); continue; }
      if (i_ >= s_.size()) return false;
      char e = s_[i_++];
      switch (e) {
        case 'n': out.push_back('\n'); break;
        case 't': out.push_back('\t'); break;
        case 'r': out.push_back('\r'); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'u': {
          if (i_ + 4 > s_.size()) return false;
          unsigned cp = unsigned(std::strtoul(std::string(s_.substr(i_, 4)).c_str(), nullptr, 16));
          i_ += 4;
          // Enough for test names: encode the code unit as UTF-8 (surrogates unpaired).
          if (cp < 0x80) out.push_back(char(cp));
          else if (cp < 0x800) { out.push_back(char(0xC0 | (cp >> 6))); out.push_back(char(0x80 | (cp & 0x3F))); }
          else {
            out.push_back(char(0xE0 | (cp >> 12)));
            out.push_back(char(0x80 | ((cp >> 6) & 0x3F)));
            out.push_back(char(0x80 | (cp & 0x3F)));
          }
          break;
        }
        default: out.push_back(e); break;  // \" \\ \/
      }
    }
    return false;
  }

  std::string_view s_;
  size_t i_ = 0;
};

inline std::optional<Value> parse(std::string_view text) { return Parser(text).parse(); }

}  // namespace weft::binary::test::json
