// P7 (docs/performance.md), validation part: MB of code section per CPU
// second of validator::validate_module alone, with decoding timed apart.
//
// Usage: validate_speed FILE.wasm [REPS]
//
// Each rep decodes the module (binary::decode_module, timed) and validates the
// decoded Module (timed), so noise from the shared machine hits both alike.
// compile_speed (the rest of P7) goes through the public API, where decoding
// and validation are one call; this probe links the two stages directly to
// time them apart. Validation is single-threaded.
//
// Output (one `key value` per line):
//   code_bytes N, functions N, reps N,
//   decode_ms / validate_ms        median CPU milliseconds per module,
//   decode_mbps / validate_mbps    code-section MB (1e6 bytes) per second,
//   both_mbps                      the two together (median of their per-rep sums),
//   decode_deferred_mbps           decoding with the bodies' instruction checks
//                                  deferred to validation (DecodeOptions::
//                                  defer_body_checks, WasmModule::from_binary's way),
//   loaded_mbps                    that and validation together: what a binary
//                                  module costs before instantiation,
//   max_stack_sum N                the sum of every function's max_stack_height:
//                                  a check that validation produced its side tables.
#include <cstdint>
#include <cstdio>
#include <vector>

#include "bench/p7_probe.h"
#include "binary/decoder.h"
#include "validator/validator.h"

int main(int argc, char** argv) {
  weft_bench::ProbeInput input;
  if (int status = weft_bench::read_probe_input("validate_speed", argc, argv, 11, input)) return status;

  std::vector<double> decode_s, validate_s, both_s, deferred_s, loaded_s;
  uint64_t max_stack_sum = 0;
  for (int i = 0; i < input.reps; ++i) {
    const double t0 = weft_bench::cpu_seconds();
    auto module = weft::binary::decode_module(input.bytes);
    const double t1 = weft_bench::cpu_seconds();
    if (!module.ok()) {
      std::fprintf(stderr, "validate_speed: %s: %s\n", argv[1], module.error().to_string().c_str());
      return 1;
    }
    const double t2 = weft_bench::cpu_seconds();
    weft::validator::ValidateOptions single_threaded;
    single_threaded.threads = 1;  // the bar is single-threaded (validation spreads over cores by default)
    auto info = weft::validator::validate_module(*module, single_threaded);
    const double t3 = weft_bench::cpu_seconds();
    if (!info.ok()) {
      std::fprintf(stderr, "validate_speed: %s: %s\n", argv[1], info.error().to_string().c_str());
      return 1;
    }
    // As WasmModule::from_binary reads it: the bodies' instruction checks
    // left to validation (binary::DecodeOptions::defer_body_checks).
    weft::binary::DecodeOptions deferred;
    deferred.defer_body_checks = true;
    const double t4 = weft_bench::cpu_seconds();
    auto sliced = weft::binary::decode_module(input.bytes, deferred);
    const double t5 = weft_bench::cpu_seconds();
    if (!sliced.ok()) return 1;
    decode_s.push_back(t1 - t0);
    validate_s.push_back(t3 - t2);
    both_s.push_back((t1 - t0) + (t3 - t2));
    deferred_s.push_back(t5 - t4);
    loaded_s.push_back((t5 - t4) + (t3 - t2));
    max_stack_sum = 0;
    for (const auto& f : info->functions) max_stack_sum += f.max_stack_height;
  }

  const double mb = input.code_bytes / 1e6;
  const double d = weft_bench::median(decode_s), v = weft_bench::median(validate_s);
  const double both = weft_bench::median(both_s);
  std::printf("code_bytes %u\nfunctions %u\nreps %d\n", input.code_bytes, input.functions, input.reps);
  std::printf("decode_ms %.3f\nvalidate_ms %.3f\n", d * 1e3, v * 1e3);
  std::printf("decode_mbps %.2f\nvalidate_mbps %.2f\nboth_mbps %.2f\n", mb / d, mb / v, mb / both);
  const double deferred = weft_bench::median(deferred_s), loaded = weft_bench::median(loaded_s);
  std::printf("decode_deferred_mbps %.2f\nloaded_mbps %.2f\n", mb / deferred, mb / loaded);
  std::printf("max_stack_sum %llu\n", (unsigned long long)max_stack_sum);
  return 0;
}
