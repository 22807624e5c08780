// The "name" custom section: module and function names (other subsections are
// skipped when reading and not produced when writing).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/module.h"

namespace weft::binary {

// Parses a "name" section payload (the bytes after the section's own name).
// Returns false if it is malformed; `out` is then unspecified.
bool parse_name_section(std::span<const uint8_t> payload, NameMap& out);

// Encodes `names` as a "name" section payload (without the section header).
std::vector<uint8_t> encode_name_section(const NameMap& names);

inline bool has_names(const NameMap& names) {
  return names.module_name.has_value() || !names.function_names.empty();
}

}  // namespace weft::binary
