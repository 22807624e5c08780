// libFuzzer target: arbitrary text through the WAT and WAST parsers; modules
// that parse go through the validator and the writer.
#include <cstdint>
#include <string_view>

#include "binary/writer.h"
#include "text/text.h"
#include "text/wast.h"
#include "validator/validator.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto module = weft::text::parse_module(text);
  if (module.ok()) {
    (void)weft::validator::validate_module(*module);
    (void)weft::binary::write_module(*module);
  }
  (void)weft::text::parse_wast(text);
  return 0;
}
