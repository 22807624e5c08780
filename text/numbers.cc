// Numeric literal parsing: integer range checks and exactly rounded floats.
#include "text/numbers.h"

#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <locale.h>
#include <string>

namespace weft::text {
namespace {

constexpr int digit_value(char c, bool hex) {
  if (c >= '0' && c <= '9') return c - '0';
  if (hex && c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (hex && c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Scans `num ::= digit ('_'? digit)*` (hexnum when `hex`) from s[i]. Returns
// the end position, or npos when there is no digit at s[i] or an underscore is
// not between two digits. The digits themselves are passed to `on_digit`.
template <class F>
size_t scan_digits(std::string_view s, size_t i, bool hex, F&& on_digit) {
  if (i >= s.size() || digit_value(s[i], hex) < 0) return std::string_view::npos;
  while (i < s.size()) {
    int d = digit_value(s[i], hex);
    if (d >= 0) {
      on_digit(d, s[i]);
      ++i;
    } else if (s[i] == '_') {
      if (i + 1 >= s.size() || digit_value(s[i + 1], hex) < 0) return std::string_view::npos;
      ++i;
    } else {
      break;
    }
  }
  return i;
}

// Magnitude of an unsigned literal (decimal or 0x-hex); OutOfRange above 2^64-1.
NumResult<uint64_t> parse_magnitude(std::string_view s) {
  NumResult<uint64_t> r;
  bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x');
  unsigned base = hex ? 16 : 10;
  uint64_t v = 0;
  bool overflow = false;
  size_t end = scan_digits(s, hex ? 2 : 0, hex, [&](int d, char) {
    if (v > (UINT64_MAX - uint64_t(d)) / base) overflow = true;
    v = v * base + uint64_t(d);
  });
  if (end != s.size()) return r;
  r.status = overflow ? NumStatus::OutOfRange : NumStatus::Ok;
  r.value = v;
  return r;
}

// IEEE binary formats by significand and exponent field widths.
struct FloatFormat {
  int mant_bits;  // stored fraction bits: 23 / 52
  int exp_bits;   // 8 / 11
};
constexpr FloatFormat kF32{23, 8};
constexpr FloatFormat kF64{52, 11};

// Rounds (m + sticky·ε) · 2^e2 to the format, to nearest, ties to even.
// `sticky` says non-zero bits exist below m's least significant bit.
NumResult<uint64_t> round_to_format(uint64_t m, int64_t e2, bool sticky, bool negative, FloatFormat f) {
  NumResult<uint64_t> r;
  uint64_t sign = negative ? uint64_t(1) << (f.mant_bits + f.exp_bits) : 0;
  r.status = NumStatus::Ok;
  if (m == 0) {
    r.value = sign;
    return r;
  }
  const int p = f.mant_bits + 1;              // precision incl. the implicit bit
  const int64_t bias = (int64_t(1) << (f.exp_bits - 1)) - 1;
  const int64_t emin = 1 - bias;
  int64_t msb_exp = int64_t(63 - std::countl_zero(m)) + e2;
  int64_t lsb_exp = std::max(msb_exp - (p - 1), emin - (p - 1));
  int64_t shift = lsb_exp - e2;  // low bits of m that fall below the result's lsb
  uint64_t kept;
  if (shift <= 0) {
    kept = m << -shift;
  } else {
    bool round;
    if (shift > 64) {
      kept = 0;
      round = false;
      sticky = true;
    } else if (shift == 64) {
      kept = 0;
      round = (m >> 63) != 0;
      sticky |= (m << 1) != 0;
    } else {
      kept = m >> shift;
      round = ((m >> (shift - 1)) & 1) != 0;
      sticky |= (m & ((uint64_t(1) << (shift - 1)) - 1)) != 0;
    }
    if (round && (sticky || (kept & 1))) ++kept;
    if (kept == (uint64_t(1) << p)) {
      kept >>= 1;
      ++lsb_exp;
    }
  }
  if (kept < (uint64_t(1) << (p - 1))) {  // subnormal (or zero after rounding)
    r.value = sign | kept;
    return r;
  }
  int64_t biased = lsb_exp + (p - 1) + bias;
  if (biased >= (int64_t(1) << f.exp_bits) - 1) {
    r.status = NumStatus::OutOfRange;
    return r;
  }
  r.value = sign | (uint64_t(biased) << f.mant_bits) | (kept & ((uint64_t(1) << f.mant_bits) - 1));
  return r;
}

// hexfloat body after "0x": hexnum ('.' hexfrac?)? ([pP] sign? num)?
NumResult<uint64_t> parse_hex_float(std::string_view s, bool negative, FloatFormat f) {
  NumResult<uint64_t> fail;
  uint64_t m = 0;
  int64_t e2 = 0;
  bool sticky = false;
  int sig_digits = 0;  // hex digits held in m (at most 15 = 60 bits)
  auto take = [&](int d, bool fraction) {
    if (m == 0 && d == 0) {
      if (fraction) e2 -= 4;
      return;
    }
    if (sig_digits < 15) {
      m = m * 16 + uint64_t(d);
      ++sig_digits;
      if (fraction) e2 -= 4;
    } else {
      if (!fraction) e2 += 4;
      sticky |= d != 0;
    }
  };
  size_t i = scan_digits(s, 0, true, [&](int d, char) { take(d, false); });
  if (i == std::string_view::npos) return fail;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (i < s.size() && digit_value(s[i], true) >= 0) {
      i = scan_digits(s, i, true, [&](int d, char) { take(d, true); });
      if (i == std::string_view::npos) return fail;
    }
  }
  if (i < s.size() && (s[i] == 'p' || s[i] == 'P')) {
    ++i;
    bool exp_negative = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) exp_negative = s[i++] == '-';
    int64_t exp = 0;
    i = scan_digits(s, i, false, [&](int d, char) { exp = std::min<int64_t>(exp * 10 + d, int64_t(1) << 40); });
    if (i == std::string_view::npos) return fail;
    e2 += exp_negative ? -exp : exp;
  }
  if (i != s.size()) return fail;
  return round_to_format(m, e2, sticky, negative, f);
}

locale_t c_locale() {
  static locale_t loc = newlocale(LC_ALL_MASK, "C", locale_t(0));
  return loc;
}

// Decimal float: num ('.' frac?)? ([eE] sign? num)?, converted by the C
// library's correctly rounded strtod/strtof (in the C locale) after the
// underscores are removed.
NumResult<uint64_t> parse_decimal_float(std::string_view s, bool negative, FloatFormat f) {
  NumResult<uint64_t> fail;
  std::string clean;
  clean.reserve(s.size() + 1);
  if (negative) clean += '-';
  auto keep = [&](int, char c) { clean += c; };
  size_t i = scan_digits(s, 0, false, keep);
  if (i == std::string_view::npos) return fail;
  if (i < s.size() && s[i] == '.') {
    clean += '.';
    ++i;
    if (i < s.size() && digit_value(s[i], false) >= 0) {
      i = scan_digits(s, i, false, keep);
      if (i == std::string_view::npos) return fail;
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    clean += 'e';
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) clean += s[i++];
    i = scan_digits(s, i, false, keep);
    if (i == std::string_view::npos) return fail;
  }
  if (i != s.size()) return fail;
  NumResult<uint64_t> r;
  if (f.mant_bits == kF32.mant_bits) {
    float v = strtof_l(clean.c_str(), nullptr, c_locale());
    if (std::isinf(v)) return {NumStatus::OutOfRange, 0};
    r.value = std::bit_cast<uint32_t>(v);
  } else {
    double v = strtod_l(clean.c_str(), nullptr, c_locale());
    if (std::isinf(v)) return {NumStatus::OutOfRange, 0};
    r.value = std::bit_cast<uint64_t>(v);
  }
  r.status = NumStatus::Ok;
  return r;
}

NumResult<uint64_t> parse_float(std::string_view s, FloatFormat f) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  const uint64_t sign = negative ? uint64_t(1) << (f.mant_bits + f.exp_bits) : 0;
  const uint64_t exp_all_ones = ((uint64_t(1) << f.exp_bits) - 1) << f.mant_bits;
  const uint64_t mant_mask = (uint64_t(1) << f.mant_bits) - 1;
  if (s == "inf") return {NumStatus::Ok, sign | exp_all_ones};
  if (s == "nan") return {NumStatus::Ok, sign | exp_all_ones | (uint64_t(1) << (f.mant_bits - 1))};
  if (s.starts_with("nan:0x")) {
    NumResult<uint64_t> payload = parse_magnitude(s.substr(4));
    if (payload.status == NumStatus::NotANumber) return payload;
    if (!payload.ok() || payload.value == 0 || payload.value > mant_mask) return {NumStatus::OutOfRange, 0};
    return {NumStatus::Ok, sign | exp_all_ones | payload.value};
  }
  if (s.size() > 2 && s[0] == '0' && s[1] == 'x') return parse_hex_float(s.substr(2), negative, f);
  return parse_decimal_float(s, negative, f);
}

}  // namespace

NumResult<uint64_t> parse_unsigned(std::string_view text, unsigned bits) {
  NumResult<uint64_t> r = parse_magnitude(text);
  if (r.ok() && bits < 64 && r.value >> bits) r.status = NumStatus::OutOfRange;
  return r;
}

NumResult<uint64_t> parse_integer(std::string_view text, unsigned bits) {
  char sign = 0;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    sign = text[0];
    text.remove_prefix(1);
  }
  NumResult<uint64_t> r = parse_magnitude(text);
  if (!r.ok()) return r;
  const uint64_t half = uint64_t(1) << (bits - 1);  // 2^(N-1)
  const uint64_t mask = bits == 64 ? UINT64_MAX : (uint64_t(1) << bits) - 1;
  bool in_range = sign == '-' ? r.value <= half : sign == '+' ? r.value < half : r.value <= mask;
  if (!in_range) return {NumStatus::OutOfRange, 0};
  if (sign == '-') r.value = (~r.value + 1) & mask;
  return r;
}

NumResult<uint32_t> parse_f32(std::string_view text) {
  NumResult<uint64_t> r = parse_float(text, kF32);
  return {r.status, uint32_t(r.value)};
}

NumResult<uint64_t> parse_f64(std::string_view text) { return parse_float(text, kF64); }

}  // namespace weft::text
