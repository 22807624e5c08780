// libFuzzer target: arbitrary bytes through the decoder, and every module it
// accepts through the validator and a writer round trip. Any crash, leak,
// sanitizer report or round-trip mismatch is a bug.
#include <cstdint>
#include <cstdlib>
#include <span>

#include "binary/decoder.h"
#include "binary/writer.h"
#include "validator/validator.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto module = weft::binary::decode_module(std::span(data, size));
  if (!module.ok()) return 0;
  (void)weft::validator::validate_module(*module);
  std::vector<uint8_t> bytes = weft::binary::write_module(*module);
  auto again = weft::binary::decode_module(bytes);
  if (!again.ok()) std::abort();  // our own output must always decode
  return 0;
}
