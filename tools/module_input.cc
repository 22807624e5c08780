// Binary or text: what a module file is, and why it is neither.
#include "tools/module_input.h"

#include <cstdio>
#include <cstring>
#include <span>

namespace weft::tools {

namespace {

constexpr std::string_view kBinaryMagic("\0asm", 4);
constexpr std::string_view kBinaryVersion1("\1\0\0\0", 4);
// A component (component model, what `wasmtime run` also accepts) shares the
// magic but has version 0x0d and layer 1.
constexpr std::string_view kComponentVersion("\x0d\0\1\0", 4);
constexpr std::string_view kGitLfsPointer = "version https://git-lfs.github.com/spec/";

constexpr std::string_view kNotAModule = "not a WebAssembly module (expected binary magic or text): ";

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string hex_bytes(std::string_view bytes) {
  std::string s;
  char buf[8];
  for (unsigned char c : bytes) {
    std::snprintf(buf, sizeof buf, "%s%02x", s.empty() ? "" : " ", c);
    s += buf;
  }
  return s;
}

// Where the text format's first token would start: past whitespace, `;;` line
// comments and (nested) `(; … ;)` block comments. npos if a comment never ends.
size_t skip_space_and_comments(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++i;
    } else if (text.substr(i, 2) == ";;") {
      size_t eol = text.find('\n', i);
      i = eol == std::string_view::npos ? text.size() : eol + 1;
    } else if (text.substr(i, 2) == "(;") {
      i += 2;
      for (int depth = 1; depth > 0;) {
        if (i >= text.size()) return std::string_view::npos;
        if (text.substr(i, 2) == "(;") {
          ++depth;
          i += 2;
        } else if (text.substr(i, 2) == ";)") {
          --depth;
          i += 2;
        } else {
          ++i;
        }
      }
    } else {
      break;
    }
  }
  return i;
}

Error not_a_module(std::string what_was_found, uint64_t offset = 0) {
  return make_error(ErrorKind::Malformed, std::string(kNotAModule) + what_was_found, Location::at_offset(offset));
}

// The message for a file that is neither format, with a hint when we can tell
// what it is instead.
Error neither_binary_nor_text(std::string_view file_name, std::string_view contents) {
  if (contents.empty()) return not_a_module("found an empty file");
  std::string found = "found " + printable_prefix(contents);
  if (contents.substr(0, kGitLfsPointer.size()) == kGitLfsPointer)
    return not_a_module(found + " (a Git LFS pointer, not the file it stands for: fetch it with `git lfs pull`)");
  const size_t start = skip_space_and_comments(contents);
  if (start < contents.size() && contents[start] == '(' && ends_with(file_name, ".wasm"))
    return not_a_module(found + " (this looks like the text format: name the file .wat)");
  return not_a_module(found);
}

}  // namespace

std::string printable_prefix(std::string_view bytes, size_t max_bytes) {
  std::string s = "\"";
  char buf[8];
  for (unsigned char c : bytes.substr(0, max_bytes)) {
    switch (c) {
      case '\n': s += "\\n"; break;
      case '\t': s += "\\t"; break;
      case '\r': s += "\\r"; break;
      case '"': s += "\\\""; break;
      case '\\': s += "\\\\"; break;
      default:
        if (c >= 0x20 && c < 0x7f) {
          s += char(c);
        } else {
          std::snprintf(buf, sizeof buf, "\\x%02x", c);
          s += buf;
        }
    }
  }
  s += "\"";
  if (bytes.size() > max_bytes) s += "…";
  return s;
}

Result<ModuleEncoding> detect_module_encoding(std::string_view file_name, std::string_view contents) {
  if (contents.substr(0, kBinaryMagic.size()) == kBinaryMagic) {
    // Shorter files are left to the decoder, which names the missing bytes.
    const std::string_view version = contents.substr(kBinaryMagic.size(), kBinaryVersion1.size());
    if (version.size() < kBinaryVersion1.size() || version == kBinaryVersion1) return ModuleEncoding::Binary;
    std::string found = "found the binary magic \\0asm with version " + hex_bytes(version);
    found += version == kComponentVersion ? " (a WebAssembly component; weft runs core modules)"
                                          : " (weft reads binary version 1: 01 00 00 00)";
    return not_a_module(found, kBinaryMagic.size());
  }
  if (ends_with(file_name, ".wasm")) return neither_binary_nor_text(file_name, contents);
  const size_t start = skip_space_and_comments(contents);
  if (start < contents.size() && contents[start] == '(') return ModuleEncoding::Text;
  return neither_binary_nor_text(file_name, contents);
}

Result<WasmModule> load_module(const Engine& engine, std::string_view file_name, std::string_view contents) {
  Result<ModuleEncoding> encoding = detect_module_encoding(file_name, contents);
  if (!encoding.ok()) return encoding.error();
  if (*encoding == ModuleEncoding::Text) return WasmModule::from_text(engine, contents);
  return WasmModule::from_binary(engine,
                                 std::span(reinterpret_cast<const uint8_t*>(contents.data()), contents.size()));
}

}  // namespace weft::tools
