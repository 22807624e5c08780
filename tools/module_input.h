// How the `weft` commands read a module file: binary or text format, decided
// by the contents and the name, and a clear error for a file that is neither
// (a Git LFS pointer checked out as x.wasm, a component, a stray file).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "weft/weft.h"

namespace weft::tools {

enum class ModuleEncoding { Binary, Text };

// A file starting with the binary magic "\0asm", or named *.wasm, must be a
// binary module of version 1; any other file must look like the text format
// (after whitespace and comments, a '('). Anything else is a Malformed error
// "not a WebAssembly module (expected binary magic or text): found …" that
// shows what the file starts with.
Result<ModuleEncoding> detect_module_encoding(std::string_view file_name, std::string_view contents);

// Decodes or parses `contents` as detect_module_encoding decides, and validates.
Result<WasmModule> load_module(const Engine& engine, std::string_view file_name, std::string_view contents);

// The first `max_bytes` of `bytes` as a double-quoted, printable string:
// ASCII as it is, \n \t \" \\ escaped, other bytes as \xNN, "…" when cut.
std::string printable_prefix(std::string_view bytes, size_t max_bytes = 48);

}  // namespace weft::tools
