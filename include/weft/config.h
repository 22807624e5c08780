// Engine configuration shared by the CLI, the embedding API and the runtime.
#pragma once

#include <cstdint>

namespace weft {

enum class Tier : uint8_t { Interpreter };

// One configuration shared by the CLI and embedders.
struct Config {
  Tier tier = Tier::Interpreter;
  bool enable_simd = true;
  bool enable_fibers = true;
  // Wasm call depth before "call stack exhausted" (counted per thread, all frames).
  uint32_t max_call_depth = 20000;
  // Interpreter value stack (locals + operands of all active frames), in bytes.
  uint64_t value_stack_bytes = 16ull << 20;
  // Largest memory a module may grow to, in 64 KiB pages (spec maximum 65536).
  uint64_t max_memory_pages = 65536;
};

}  // namespace weft
