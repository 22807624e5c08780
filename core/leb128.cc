// LEB128 with the binary format's length and unused-bit rules.
#include "core/leb128.h"

namespace weft {

const char* leb_error_message(LebError e) {
  switch (e) {
    case LebError::None: return "";
    case LebError::UnexpectedEnd: return "unexpected end";
    case LebError::TooLong: return "integer representation too long";
    case LebError::TooLarge: return "integer too large";
  }
  return "";
}

namespace {

template <class U>
LebError read_unsigned(const uint8_t* data, size_t size, size_t& pos, U& out, unsigned bits) {
  const unsigned max_bytes = (bits + 6) / 7;
  U result = 0;
  size_t p = pos;
  for (unsigned i = 0;; ++i) {
    if (p >= size) return LebError::UnexpectedEnd;
    uint8_t byte = data[p++];
    if (i == max_bytes - 1) {
      // Last permitted byte: continuation bit is "too long", unused bits set is "too large".
      if (byte & 0x80) return LebError::TooLong;
      unsigned used = bits - 7 * i;
      if (used < 7 && (byte >> used) != 0) return LebError::TooLarge;
      result |= U(byte) << (7 * i);
      break;
    }
    result |= U(byte & 0x7F) << (7 * i);
    if (!(byte & 0x80)) break;
  }
  pos = p;
  out = result;
  return LebError::None;
}

template <class S>
LebError read_signed(const uint8_t* data, size_t size, size_t& pos, S& out, unsigned bits) {
  using U = std::make_unsigned_t<S>;
  const unsigned max_bytes = (bits + 6) / 7;
  U result = 0;
  size_t p = pos;
  unsigned shift = 0;
  uint8_t byte = 0;
  for (unsigned i = 0;; ++i) {
    if (p >= size) return LebError::UnexpectedEnd;
    byte = data[p++];
    if (i == max_bytes - 1) {
      if (byte & 0x80) return LebError::TooLong;
      // The unused high bits must all equal the sign bit of the value.
      unsigned used = bits - 7 * i;  // bits of payload in this byte, 1..7
      if (used < 7) {
        const uint8_t payload = byte & 0x7F;
        const uint8_t unused_mask = uint8_t((0x7F >> used) << used);
        const bool negative = (payload >> (used - 1)) & 1;
        if ((payload & unused_mask) != (negative ? unused_mask : 0)) return LebError::TooLarge;
      }
      result |= U(byte & 0x7F) << shift;
      shift += 7;
      break;
    }
    result |= U(byte & 0x7F) << shift;
    shift += 7;
    if (!(byte & 0x80)) break;
  }
  if (shift < sizeof(S) * 8 && (byte & 0x40)) result |= ~U(0) << shift;
  pos = p;
  out = S(result);
  return LebError::None;
}

}  // namespace

LebError read_leb_u32(const uint8_t* d, size_t n, size_t& pos, uint32_t& out) { return read_unsigned(d, n, pos, out, 32); }
LebError read_leb_u64(const uint8_t* d, size_t n, size_t& pos, uint64_t& out) { return read_unsigned(d, n, pos, out, 64); }
LebError read_leb_s32(const uint8_t* d, size_t n, size_t& pos, int32_t& out) { return read_signed(d, n, pos, out, 32); }
LebError read_leb_s64(const uint8_t* d, size_t n, size_t& pos, int64_t& out) { return read_signed(d, n, pos, out, 64); }
LebError read_leb_s33(const uint8_t* d, size_t n, size_t& pos, int64_t& out) { return read_signed(d, n, pos, out, 33); }

void write_leb_u64(std::vector<uint8_t>& out, uint64_t v) {
  do {
    uint8_t byte = v & 0x7F;
    v >>= 7;
    if (v) byte |= 0x80;
    out.push_back(byte);
  } while (v);
}
void write_leb_u32(std::vector<uint8_t>& out, uint32_t v) { write_leb_u64(out, v); }

void write_leb_s64(std::vector<uint8_t>& out, int64_t v) {
  bool more = true;
  while (more) {
    uint8_t byte = v & 0x7F;
    v >>= 7;  // arithmetic shift
    if ((v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40))) more = false;
    else byte |= 0x80;
    out.push_back(byte);
  }
}
void write_leb_s32(std::vector<uint8_t>& out, int32_t v) { write_leb_s64(out, v); }

}  // namespace weft
