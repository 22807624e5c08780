// Parsing of `--invoke` arguments and wasmtime-style printing of results.
#include "tools/value_text.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

namespace weft::tools {

namespace {

Error bad_value(ValType type, std::string_view text, std::string_view why = {}) {
  std::string msg = "invalid " + to_string(type) + " argument '" + std::string(text) + "'";
  if (!why.empty()) msg += ": " + std::string(why);
  return make_error(ErrorKind::Usage, std::move(msg));
}

// Splits an optional sign off `text`.
bool take_sign(std::string_view& text) {
  bool negative = !text.empty() && text[0] == '-';
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) text.remove_prefix(1);
  return negative;
}

bool take_hex_prefix(std::string_view& text) {
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    return true;
  }
  return false;
}

// An unsigned magnitude in decimal or 0x hex; nothing else may follow.
std::optional<uint64_t> parse_magnitude(std::string_view digits) {
  int base = take_hex_prefix(digits) ? 16 : 10;
  if (digits.empty()) return std::nullopt;
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

Result<Value> parse_integer(ValType type, std::string_view text) {
  std::string_view rest = text;
  bool negative = take_sign(rest);
  std::optional<uint64_t> magnitude = parse_magnitude(rest);
  if (!magnitude) return bad_value(type, text, "expected a decimal or 0x-prefixed hex integer");
  bool is_i32 = type.kind == ValType::I32;
  uint64_t max_positive = is_i32 ? 0xffffffffull : ~0ull;
  uint64_t max_negative = is_i32 ? 0x80000000ull : 0x8000000000000000ull;
  if (negative ? *magnitude > max_negative : *magnitude > max_positive) return bad_value(type, text, "out of range");
  uint64_t bits = negative ? uint64_t(0) - *magnitude : *magnitude;
  return is_i32 ? Value::i32(uint32_t(bits)) : Value::i64(bits);
}

Result<Value> parse_float(ValType type, std::string_view text) {
  const bool is_f32 = type.kind == ValType::F32;
  const int mantissa_bits = is_f32 ? 23 : 52;
  const uint64_t sign_bit = is_f32 ? 0x80000000ull : 0x8000000000000000ull;
  const uint64_t exponent_all_ones = is_f32 ? 0x7f800000ull : 0x7ff0000000000000ull;
  const uint64_t mantissa_mask = (uint64_t(1) << mantissa_bits) - 1;
  auto from_bits = [&](uint64_t bits) { return is_f32 ? Value::f32_bits(uint32_t(bits)) : Value::f64_bits(bits); };

  std::string_view rest = text;
  bool negative = take_sign(rest);
  uint64_t sign = negative ? sign_bit : 0;
  if (rest == "inf" || rest == "infinity") return from_bits(sign | exponent_all_ones);
  if (rest == "nan") return from_bits(sign | exponent_all_ones | (uint64_t(1) << (mantissa_bits - 1)));
  if (rest.substr(0, 4) == "nan:") {
    std::string_view payload_text = rest.substr(4);
    if (!take_hex_prefix(payload_text)) return bad_value(type, text, "NaN payload must be 0x-prefixed hex");
    std::optional<uint64_t> payload = parse_magnitude("0x" + std::string(payload_text));
    if (!payload || *payload == 0 || *payload > mantissa_mask) return bad_value(type, text, "NaN payload out of range");
    return from_bits(sign | exponent_all_ones | *payload);
  }
  // Decimal or hex float; strtod/strtof also accept forms we handle above or
  // reject (leading blanks, "nan(…)"), so only digits, '.', and exponents pass.
  if (rest.empty() || !(std::isdigit(static_cast<unsigned char>(rest[0])) || rest[0] == '.'))
    return bad_value(type, text, "expected a number, inf or nan");
  std::string copy(text);
  char* end = nullptr;
  if (is_f32) {
    float f = std::strtof(copy.c_str(), &end);
    if (end != copy.c_str() + copy.size()) return bad_value(type, text, "expected a number, inf or nan");
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    return Value::f32_bits(bits);
  }
  double d = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size()) return bad_value(type, text, "expected a number, inf or nan");
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  return Value::f64_bits(bits);
}

template <class Float>
std::string format_float(Float f) {
  if (std::isnan(f)) return "NaN";
  if (std::isinf(f)) return f < 0 ? "-inf" : "inf";
  // Shortest round-trip digits without an exponent, as Rust's Display prints.
  char buf[1200];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, f, std::chars_format::fixed);
  if (ec != std::errc()) return "?";
  return std::string(buf, end);
}

std::string format_u128(unsigned __int128 v) {
  if (v == 0) return "0";
  std::string digits;
  while (v != 0) {
    digits.insert(digits.begin(), char('0' + int(v % 10)));
    v /= 10;
  }
  return digits;
}

// A v128 as one unsigned 128-bit number, decimal (as wasmtime's `--invoke`
// takes it, and as results print) or 0x hex (up to 32 digits); lane 0 is
// its low bits.
Result<Value> parse_v128(ValType type, std::string_view text) {
  std::string_view digits = text;
  const bool hex = take_hex_prefix(digits);
  if (digits.empty()) return bad_value(type, text, "expected an unsigned decimal or 0x-prefixed hex 128-bit integer");
  const unsigned base = hex ? 16 : 10;
  const unsigned __int128 max = ~(unsigned __int128)0;
  unsigned __int128 value = 0;
  for (char c : digits) {
    unsigned digit;
    if (c >= '0' && c <= '9') digit = unsigned(c - '0');
    else if (hex && c >= 'a' && c <= 'f') digit = unsigned(c - 'a' + 10);
    else if (hex && c >= 'A' && c <= 'F') digit = unsigned(c - 'A' + 10);
    else return bad_value(type, text, "expected an unsigned decimal or 0x-prefixed hex 128-bit integer");
    if (value > (max - digit) / base) return bad_value(type, text, "out of range (128 bits)");
    value = value * base + digit;
  }
  return Value::v128(uint64_t(value), uint64_t(value >> 64));
}

}  // namespace

Result<Value> parse_cli_value(ValType type, std::string_view text) {
  switch (type.kind) {
    case ValType::I32:
    case ValType::I64: return parse_integer(type, text);
    case ValType::F32:
    case ValType::F64: return parse_float(type, text);
    case ValType::V128: return parse_v128(type, text);
    default:
      if (text == "null") return Value::null_ref(type);
      return bad_value(type, text, "only 'null' can be passed for a reference");
  }
}

std::string format_cli_value(const Value& value) {
  switch (value.type().kind) {
    case ValType::I32: return std::to_string(int32_t(value.as_i32()));
    case ValType::I64: return std::to_string(int64_t(value.as_i64()));
    case ValType::F32: {
      uint32_t bits = value.f32_bits();
      float f;
      std::memcpy(&f, &bits, sizeof f);
      return format_float(f);
    }
    case ValType::F64: {
      uint64_t bits = value.f64_bits();
      double d;
      std::memcpy(&d, &bits, sizeof d);
      return format_float(d);
    }
    case ValType::V128: {
      unsigned __int128 v = (unsigned __int128)value.raw()[1] << 64 | value.raw()[0];
      return format_u128(v);
    }
    case ValType::FuncRef: return value.is_null() ? "<null funcref>" : "<funcref>";
    case ValType::ExternRef: return value.is_null() ? "<null externref>" : "<externref>";
    default: return value.is_null() ? "<null ref>" : "<ref>";
  }
}

}  // namespace weft::tools
