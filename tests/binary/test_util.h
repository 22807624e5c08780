// Helpers for binary/ tests: hand-built byte vectors and Module comparison.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include "binary/decoder.h"
#include "binary/writer.h"
#include "core/leb128.h"
#include "core/module.h"

namespace weft::binary::test {

using Bytes = std::vector<uint8_t>;

// Appends with resize + memcpy: GCC 12 at -O3 reports a false
// -Wstringop-overread for vector::insert of one vector into another.
inline void append(Bytes& out, const Bytes& part) {
  const size_t n = out.size();
  out.resize(n + part.size());
  if (!part.empty()) std::memcpy(out.data() + n, part.data(), part.size());
}

inline Bytes cat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const Bytes& p : parts) append(out, p);
  return out;
}

inline Bytes leb(uint32_t v) {
  Bytes out;
  write_leb_u32(out, v);
  return out;
}

inline Bytes str(const std::string& s) { return cat({leb(uint32_t(s.size())), Bytes(s.begin(), s.end())}); }

inline Bytes header() { return {0x00, 0x61, 0x73, 0x6D, 0x01, 0x00, 0x00, 0x00}; }

// id, LEB size, content.
inline Bytes section(uint8_t id, const Bytes& content) { return cat({{id}, leb(uint32_t(content.size())), content}); }

inline Bytes module_bytes(std::initializer_list<Bytes> sections) {
  Bytes out = header();
  for (const Bytes& s : sections) append(out, s);
  return out;
}

// Type section with one type `[] -> []`.
inline Bytes void_type_section() { return section(1, {0x01, 0x60, 0x00, 0x00}); }

// A code-section entry: size, no locals, `instrs` (which must include the final end).
inline Bytes body(const Bytes& instrs, const Bytes& locals = {0x00}) {
  Bytes content = cat({locals, instrs});
  return cat({leb(uint32_t(content.size())), content});
}

// A module with one `[] -> []` function whose body is `instrs`; `extra` are
// sections placed between the function and code sections (memory, data count…).
inline Bytes func_module(const Bytes& instrs, std::initializer_list<Bytes> extra = {}) {
  Bytes out = cat({header(), void_type_section(), section(3, {0x01, 0x00})});
  for (const Bytes& s : extra) append(out, s);
  Bytes code = cat({{0x01}, body(instrs)});
  return cat({out, section(10, code)});
}

inline Bytes memory_section() { return section(5, {0x01, 0x00, 0x01}); }

// Decodes and checks the result is a Malformed error whose message contains `needle`.
inline ::testing::AssertionResult Malformed(const Bytes& bytes, const std::string& needle,
                                            const DecodeOptions& options = {}) {
  Result<Module> r = decode_module(bytes, options);
  if (r.ok()) return ::testing::AssertionFailure() << "decoded, expected \"" << needle << "\"";
  const Error& e = r.error();
  if (e.kind != ErrorKind::Malformed) return ::testing::AssertionFailure() << "wrong kind: " << e.to_string();
  if (e.location.kind != Location::Kind::ByteOffset || e.location.offset > bytes.size()) {
    return ::testing::AssertionFailure() << "bad location: " << e.to_string();
  }
  if (e.message.find(needle) == std::string::npos) {
    return ::testing::AssertionFailure() << "message \"" << e.message << "\", expected \"" << needle << "\"";
  }
  return ::testing::AssertionSuccess();
}

inline Module Decoded(const Bytes& bytes, const DecodeOptions& options = {}) {
  Result<Module> r = decode_module(bytes, options);
  EXPECT_TRUE(r.ok()) << r.error().to_string();
  return r.ok() ? std::move(r).value() : Module{};
}

// Field-by-field Module equality (Module itself has no operator==), naming the
// first differing part.
inline ::testing::AssertionResult ModulesEqual(const Module& a, const Module& b) {
#define WEFT_CMP(field) \
  if (!(a.field == b.field)) return ::testing::AssertionFailure() << #field " differ";
  WEFT_CMP(types)
  WEFT_CMP(imports)
  WEFT_CMP(functions)
  WEFT_CMP(tables)
  WEFT_CMP(memories)
  WEFT_CMP(globals)
  WEFT_CMP(tags)
  WEFT_CMP(exports)
  WEFT_CMP(start)
  WEFT_CMP(elems)
  WEFT_CMP(datas)
  WEFT_CMP(data_count)
  WEFT_CMP(customs)
  WEFT_CMP(names.module_name)
  WEFT_CMP(names.function_names)
#undef WEFT_CMP
  return ::testing::AssertionSuccess();
}

// decode(write(m)) == m, and writing is idempotent on its own output.
inline ::testing::AssertionResult RoundTrips(const Module& m) {
  Bytes written = write_module(m);
  Result<Module> again = decode_module(written);
  if (!again.ok()) return ::testing::AssertionFailure() << "re-decode failed: " << again.error().to_string();
  ::testing::AssertionResult eq = ModulesEqual(m, *again);
  if (!eq) return eq;
  if (write_module(*again) != written) return ::testing::AssertionFailure() << "second write differs";
  return ::testing::AssertionSuccess();
}

}  // namespace weft::binary::test
