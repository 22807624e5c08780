// LEB128 reading and writing with the Wasm binary format's exact rules:
// at most ceil(N/7) bytes, and unused bits of the last byte must be a sign/zero
// extension ("integer representation too long" / "integer too large").
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace weft {

enum class LebError : uint8_t { None, UnexpectedEnd, TooLong, TooLarge };
const char* leb_error_message(LebError e);  // the spec suite's wording

// Each reader decodes from data[pos..size), advancing pos on success.
LebError read_leb_u32(const uint8_t* data, size_t size, size_t& pos, uint32_t& out);
LebError read_leb_s32(const uint8_t* data, size_t size, size_t& pos, int32_t& out);
LebError read_leb_u64(const uint8_t* data, size_t size, size_t& pos, uint64_t& out);
LebError read_leb_s64(const uint8_t* data, size_t size, size_t& pos, int64_t& out);
LebError read_leb_s33(const uint8_t* data, size_t size, size_t& pos, int64_t& out);  // block types

void write_leb_u32(std::vector<uint8_t>& out, uint32_t v);
void write_leb_u64(std::vector<uint8_t>& out, uint64_t v);
void write_leb_s32(std::vector<uint8_t>& out, int32_t v);
void write_leb_s64(std::vector<uint8_t>& out, int64_t v);

}  // namespace weft
