// Command-line values: parse `weft run --invoke` arguments by parameter type
// and print results the way wasmtime does (one per line).
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"
#include "core/types.h"
#include "weft/weft.h"

namespace weft::tools {

// Parses one argument for a parameter of `type`:
//   i32/i64  decimal or 0x hex, optionally signed (-1 and 0xffffffff are the same i32)
//   f32/f64  decimal or hex float, inf, -inf, nan, -nan, nan:0xPAYLOAD
//   refs     null
// Errors are ErrorKind::Usage and name the expected type.
Result<Value> parse_cli_value(ValType type, std::string_view text);

// Prints a result like `wasmtime run --invoke`: integers signed decimal,
// floats shortest round-trip decimal ("1.5", "-0", "inf", "NaN"), v128 as an
// unsigned 128-bit decimal, references as "<funcref>" / "<null externref>".
std::string format_cli_value(const Value& value);

}  // namespace weft::tools
