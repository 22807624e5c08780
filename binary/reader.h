// Bounded byte cursor for the decoder: LEB128 with inline one-byte fast paths,
// names, nested sub-ranges (sections, bodies), and first-error recording.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/leb128.h"

namespace weft::binary::detail {

// The first error of a decode. Readers share one so nested readers (section →
// body) can stop everything with a plain `return false` chain: the hot paths
// return bool, and decode_module converts the failure into an Error value once.
struct Failure {
  bool set = false;
  uint64_t offset = 0;
  std::string message;
};

// Messages shared by several files. Wording follows the spec interpreter.
inline constexpr const char* kUnexpectedEnd = "unexpected end";
inline constexpr const char* kUnexpectedEndOfSection = "unexpected end of section or function";
inline constexpr const char* kLengthOutOfBounds = "length out of bounds";

bool is_valid_utf8(const uint8_t* data, size_t size);

class Reader {
 public:
  // `base` is the start of the whole module: offsets in errors are relative to it.
  Reader(const uint8_t* base, const uint8_t* begin, const uint8_t* end, Failure* failure,
         const char* eof_message)
      : base_(base), pos_(begin), end_(end), failure_(failure), eof_message_(eof_message) {}

  const uint8_t* pos() const { return pos_; }
  const uint8_t* end() const { return end_; }
  uint64_t offset() const { return uint64_t(pos_ - base_); }
  uint64_t offset_of(const uint8_t* p) const { return uint64_t(p - base_); }
  size_t remaining() const { return size_t(end_ - pos_); }
  bool at_end() const { return pos_ == end_; }
  Failure& failure() { return *failure_; }

  // Records the error (only the first one counts) and returns false, so callers
  // can write `return r.fail(...)`.
  bool fail_at(uint64_t offset, std::string_view message) {
    if (!failure_->set) {
      failure_->set = true;
      failure_->offset = offset;
      failure_->message.assign(message);
    }
    return false;
  }
  bool fail(std::string_view message) { return fail_at(offset(), message); }
  bool fail_eof() { return fail(eof_message_); }

  bool peek(uint8_t& out) {
    if (pos_ == end_) return fail_eof();
    out = *pos_;
    return true;
  }
  bool u8(uint8_t& out) {
    if (pos_ == end_) return fail_eof();
    out = *pos_++;
    return true;
  }
  bool skip(size_t n) {
    if (n > remaining()) {
      pos_ = end_;
      return fail_eof();
    }
    pos_ += n;
    return true;
  }

  bool u32(uint32_t& out) {
    if (pos_ != end_ && *pos_ < 0x80) {
      out = *pos_++;
      return true;
    }
    return leb(read_leb_u32, out);
  }
  bool s32(int32_t& out) {
    if (pos_ != end_ && *pos_ < 0x80) {
      out = int32_t(uint32_t(*pos_) << 25) >> 25;  // sign-extend the 7-bit payload
      ++pos_;
      return true;
    }
    return leb(read_leb_s32, out);
  }
  bool s64(int64_t& out) { return leb(read_leb_s64, out); }
  bool s33(int64_t& out) { return leb(read_leb_s33, out); }

  // A u32 count or byte length that must not exceed what is left, each item
  // taking at least `min_item_bytes`. Checking before any reserve() keeps a
  // hostile count of 2^32 from allocating anything.
  bool count(uint32_t& out, size_t min_item_bytes = 1) {
    const uint64_t at = offset();
    if (!u32(out)) return false;
    if (uint64_t(out) * min_item_bytes > remaining()) return fail_at(at, kLengthOutOfBounds);
    return true;
  }

  // A UTF-8 name: u32 length + bytes.
  bool name(std::string& out) {
    uint32_t len = 0;
    if (!count(len)) return false;
    if (!is_valid_utf8(pos_, len)) return fail("malformed UTF-8 encoding");
    out.assign(reinterpret_cast<const char*>(pos_), len);
    pos_ += len;
    return true;
  }

  // Splits off the next `n` bytes as a nested reader and advances past them.
  Reader take(size_t n, const char* eof_message) {
    Reader sub(base_, pos_, pos_ + n, failure_, eof_message);
    pos_ += n;
    return sub;
  }

 private:
  template <class T>
  bool leb(LebError (*read)(const uint8_t*, size_t, size_t&, T&), T& out) {
    size_t p = 0;
    LebError e = read(pos_, remaining(), p, out);
    if (e == LebError::None) {
      pos_ += p;
      return true;
    }
    if (e == LebError::UnexpectedEnd) {
      // The spec reports a truncated LEB at the end of the data, not at its start.
      pos_ = end_;
      return fail_eof();
    }
    return fail(leb_error_message(e));
  }

  const uint8_t* base_;
  const uint8_t* pos_;
  const uint8_t* end_;
  Failure* failure_;
  const char* eof_message_;
};

}  // namespace weft::binary::detail
