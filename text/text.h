// WAT text format → Module IR. Instructions are encoded to their binary form
// while parsing (see core/module.h), so later stages see one format.
#pragma once

#include <string_view>

#include "core/module.h"
#include "core/result.h"

namespace weft::text {

struct TextOptions {
  // memory64 (Wasm 3.0): `i64` address types, and memory and table limits
  // read as 64-bit numbers (one beyond an i32 memory's range is then the
  // validator's error). Off: limits are i32 constants (Wasm 2.0).
  bool memory64 = true;
};

// Parses one `(module …)` form, or a module body without the surrounding
// `(module …)` (a sequence of module fields), as wat2wasm accepts.
// Errors are ErrorKind::Malformed with a line:column location.
Result<Module> parse_module(std::string_view source, const TextOptions& options = {});

}  // namespace weft::text
