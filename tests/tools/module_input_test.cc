// Binary or text: how the `weft` commands classify a module file, and the
// message for a file that is neither.
#include "tools/module_input.h"

#include <gtest/gtest.h>

#include <string>

namespace weft::tools {
namespace {

using namespace std::string_literals;

std::string rejection(std::string_view name, std::string_view contents) {
  Result<ModuleEncoding> encoding = detect_module_encoding(name, contents);
  EXPECT_FALSE(encoding.ok()) << name;
  return encoding.ok() ? "" : encoding.error().to_string();
}

TEST(ModuleInput, BinaryByMagicTextByParenthesis) {
  EXPECT_EQ(*detect_module_encoding("m.wasm", "\0asm\1\0\0\0"s), ModuleEncoding::Binary);
  EXPECT_EQ(*detect_module_encoding("no-extension", "\0asm\1\0\0\0"s), ModuleEncoding::Binary);
  EXPECT_EQ(*detect_module_encoding("m.wat", "(module)"), ModuleEncoding::Text);
  EXPECT_EQ(*detect_module_encoding("m.txt", "  ;; a comment\n(; block (; nested ;) ;)\n(module)"),
            ModuleEncoding::Text);
  // A truncated header is the decoder's to report, with its offset.
  EXPECT_EQ(*detect_module_encoding("m.wasm", "\0asm\1"s), ModuleEncoding::Binary);
}

TEST(ModuleInput, GitLfsPointerIsNotAModule) {
  const std::string pointer =
      "version https://git-lfs.github.com/spec/v1\noid sha256:4d7a2146\nsize 12345\n";
  const std::string message = rejection("x.wasm", pointer);
  EXPECT_NE(message.find("not a WebAssembly module (expected binary magic or text): found \"version "
                         "https://git-lfs.github.com/spec/v1\\n"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("Git LFS pointer"), std::string::npos) << message;
  // Named .wat it is not text either.
  EXPECT_NE(rejection("x.wat", pointer).find("Git LFS pointer"), std::string::npos);
}

TEST(ModuleInput, WrongBinaryVersion) {
  std::string message = rejection("m.wasm", "\0asm\2\0\0\0"s);
  EXPECT_NE(message.find("at offset 0x4: not a WebAssembly module (expected binary magic or text): found the "
                         "binary magic \\0asm with version 02 00 00 00 (weft reads binary version 1"),
            std::string::npos)
      << message;
  message = rejection("c.wasm", "\0asm\x0d\0\1\0"s);
  EXPECT_NE(message.find("version 0d 00 01 00 (a WebAssembly component"), std::string::npos) << message;
}

TEST(ModuleInput, NeitherBinaryNorText) {
  EXPECT_NE(rejection("m.wasm", "").find("found an empty file"), std::string::npos);
  EXPECT_NE(rejection("m.wasm", "(module)").find("looks like the text format: name the file .wat"),
            std::string::npos);
  EXPECT_NE(rejection("m.wat", "\x7f" "ELF\2\1\1").find("found \"\\x7fELF\\x02\\x01\\x01\""), std::string::npos);
  EXPECT_NE(rejection("m.wat", "(; never closed").find("not a WebAssembly module"), std::string::npos);
}

TEST(ModuleInput, PrintablePrefix) {
  EXPECT_EQ(printable_prefix("a\"b\\c\n\t\x01"), "\"a\\\"b\\\\c\\n\\t\\x01\"");
  EXPECT_EQ(printable_prefix("abcdef", 3), "\"abc\"…");
}

}  // namespace
}  // namespace weft::tools
