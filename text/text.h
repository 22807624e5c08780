// WAT text format → Module IR. Instructions are encoded to their binary form
// while parsing (see core/module.h), so later stages see one format.
#pragma once

#include <string_view>

#include "core/module.h"
#include "core/result.h"

namespace weft::text {

// Parses one `(module …)` form, or a module body without the surrounding
// `(module …)` (a sequence of module fields), as wat2wasm accepts.
// Errors are ErrorKind::Malformed with a line:column location.
Result<Module> parse_module(std::string_view source);

}  // namespace weft::text
