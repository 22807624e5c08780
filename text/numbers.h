// Numeric literals of the text format: integers with range checks and floats
// rounded exactly (round to nearest, ties to even) to f32/f64 bit patterns.
#pragma once

#include <cstdint>
#include <string_view>

namespace weft::text {

enum class NumStatus : uint8_t {
  Ok,
  NotANumber,  // the token is not a literal of the requested form
  OutOfRange,  // well-formed, but does not fit ("constant out of range")
};

template <class T>
struct NumResult {
  NumStatus status = NumStatus::NotANumber;
  T value{};
  bool ok() const { return status == NumStatus::Ok; }
};

// uN: an unsigned literal without sign (indices, offsets, alignments, limits,
// lane indices). `bits` is 32 or 64.
NumResult<uint64_t> parse_unsigned(std::string_view text, unsigned bits);

// iN: a signed or unsigned literal (i32.const, i64.const, integer v128 lanes).
// The result is the N-bit two's complement pattern, zero-extended. Accepts
// [0, 2^N) without sign, [-2^(N-1), 0] with '-', [0, 2^(N-1)) with '+'.
NumResult<uint64_t> parse_integer(std::string_view text, unsigned bits);

// fN: decimal and hexadecimal floats, inf, nan and nan:0x<payload>, each with
// an optional sign. Overflow to infinity is OutOfRange; underflow rounds to a
// subnormal or zero as IEEE 754 prescribes.
NumResult<uint32_t> parse_f32(std::string_view text);
NumResult<uint64_t> parse_f64(std::string_view text);

}  // namespace weft::text
