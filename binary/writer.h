// Module IR → Wasm binary format.
#pragma once

#include <cstdint>
#include <vector>

#include "core/module.h"

namespace weft::binary {

// Encodes a module. Writes a DataCount section iff module.data_count is set,
// the name section from module.names when it has entries (unless a "name"
// custom section is already in module.customs), and the other custom sections
// where they were.
std::vector<uint8_t> write_module(const Module& module);

}  // namespace weft::binary
