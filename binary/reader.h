// Bounded byte cursor for the decoder: LEB128 with inline one-byte fast paths,
// names, nested sub-ranges (sections, bodies), and first-error recording.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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
  void seek(const uint8_t* p) { pos_ = p; }  // p within [pos(), end()]: for raw-pointer loops
  const char* eof_message() const { return eof_message_; }
  const uint8_t* end() const { return end_; }
  uint64_t offset() const { return uint64_t(pos_ - base_); }
  uint64_t offset_of(const uint8_t* p) const { return uint64_t(p - base_); }
  size_t remaining() const { return size_t(end_ - pos_); }
  bool at_end() const { return pos_ == end_; }

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
  bool u64(uint64_t& out) { return leb(read_leb_u64, out); }
  // A vector count. Every item takes at least one byte, so a count above the
  // bytes left must fail; checking it up front keeps a hostile count of 2^32
  // from looping or reserving anything.
  bool count(uint32_t& out) {
    const uint64_t at = offset();
    if (!u32(out)) return false;
    if (out > remaining()) return fail_at(at, eof_message_);
    return true;
  }

  // A byte length (name, data, section, body) that must fit in what is left.
  bool length(uint32_t& out) {
    const uint64_t at = offset();
    if (!u32(out)) return false;
    if (out > remaining()) return fail_at(at, kLengthOutOfBounds);
    return true;
  }

  // A UTF-8 name: u32 length + bytes.
  bool name(std::string& out) {
    uint32_t len = 0;
    if (!length(len)) return false;
    if (!is_valid_utf8(pos_, len)) return fail("malformed UTF-8 encoding");
    out.assign(reinterpret_cast<const char*>(pos_), len);
    pos_ += len;
    return true;
  }

  // Splits off the next `n` bytes (n <= remaining(), from length()) as a
  // nested reader and advances past them.
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

// Reads a vector count, then `read_item(out.emplace_back())` per element. The
// reservation is capped by how many items of at least `min_item_bytes` the
// remaining bytes could hold, so memory stays proportional to the input.
template <class T, class ReadItem>
bool read_vec(Reader& r, std::vector<T>& out, size_t min_item_bytes, ReadItem&& read_item) {
  uint32_t n = 0;
  if (!r.count(n)) return false;
  out.reserve(out.size() + std::min<size_t>(n, r.remaining() / min_item_bytes));
  for (uint32_t i = 0; i < n; ++i) {
    if (!read_item(out.emplace_back())) return false;
  }
  return true;
}

}  // namespace weft::binary::detail
