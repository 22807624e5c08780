// libFuzzer target: arbitrary bytes through the decoder, and every module it
// accepts through the validator and a writer round trip; and the same bytes
// the way WasmModule::from_binary reads them (the bodies' instruction checks
// deferred to validation, binary::check_bodies on failure), which must reach
// the same verdict with the same error. Any crash, leak, sanitizer report,
// round-trip mismatch or verdict mismatch is a bug.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>

#include "binary/decoder.h"
#include "binary/writer.h"
#include "validator/validator.h"

namespace {

// Decoding with the bodies' checks deferred, as WasmModule::from_binary does.
std::string deferred_verdict(std::span<const uint8_t> bytes) {
  weft::binary::DecodeOptions options;
  options.defer_body_checks = true;
  auto module = weft::binary::decode_module(bytes, options);
  if (!module.ok()) return module.error().to_string();
  weft::validator::ValidateOptions validate;
  validate.binary_bodies_unchecked = true;
  auto info = weft::validator::validate_module(*module, validate);
  if (info.ok()) return "valid";
  weft::Result<void> walked = weft::binary::check_bodies(bytes, *module, options);
  return walked.ok() ? info.error().to_string() : walked.error().to_string();
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto module = weft::binary::decode_module(std::span(data, size));
  std::string expected;
  if (!module.ok()) {
    expected = module.error().to_string();
  } else {
    auto info = weft::validator::validate_module(*module);
    expected = info.ok() ? "valid" : info.error().to_string();
  }
  if (const std::string got = deferred_verdict(std::span(data, size)); got != expected) {
    std::fprintf(stderr, "deferred body checks: \"%s\", decoding then validating: \"%s\"\n", got.c_str(),
                 expected.c_str());
    std::abort();
  }
  if (!module.ok()) return 0;
  std::vector<uint8_t> bytes = weft::binary::write_module(*module);
  auto again = weft::binary::decode_module(bytes);
  if (!again.ok()) std::abort();  // our own output must always decode
  return 0;
}
