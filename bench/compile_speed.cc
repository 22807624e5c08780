// P7 (docs/performance.md): compile speed, in MB of code section per second,
// of a whole large module.
//
// Usage: compile_speed FILE.wasm [REPS]
//
// Decoding and validation happen outside the timed region; each rep then
// times one Store::instantiate per tier of a module decoded for that rep,
// alternating the tiers (the machine is shared and noisy, so drift hits both
// alike). A fresh module each time: the JIT compiles a module once and later
// instances of it copy that code (jit/code_template.h), which is timed
// separately as jit_copy_ms — a second instantiation of the last rep's module. Instantiation with
// Config::eager_compilation is where the code is prepared: the interpreter
// tier translates every function to its internal code; the JIT tier compiles
// every function to machine code and translates for the interpreter the
// functions it cannot compile (jit/executor.cc prepare_instance). So the JIT time is the
// compiler's (plus instantiation's own work, the same on both tiers).
//
// WEFT_BENCH_JIT_ONLY=1 skips the interpreter tier's instantiations: each
// JIT instantiation then meets fresh memory, as at a program's start (the
// interpreter's translations free heap pages the next JIT instantiation
// would reuse), and the interp_* lines are left out.
//
// Imported functions are satisfied with host functions that trap: the module
// must have no start function (nothing may run). Only the public API is used.
//
// Output (one `key value` per line, read by bench/run.py):
//   code_bytes N, functions N, reps N,
//   interp_ms / jit_ms        median CPU milliseconds per instantiation,
//   jit_min_ms                the fastest JIT instantiation,
//   interp_mbps / jit_mbps    code-section MB (1e6 bytes) per second,
//   jit_tier 0|1 (whether this build has the JIT), jit_compiled N, jit_fallbacks N,
//   jit_copy_ms               CPU milliseconds of an instantiation that copies
//                             the compiled code (jit_reused N functions).
#include <algorithm>
#include <ctime>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "bench/p7_probe.h"
#include "weft/weft.h"

namespace {

// "[i32 f64] -> [i64]" (weft::to_string(FuncType), which ImportDesc::type
// holds) back to a FuncType, to create a host function of the right type.
std::optional<weft::FuncType> parse_func_type(const std::string& text) {
  size_t arrow = text.find("->");
  if (arrow == std::string::npos) return std::nullopt;
  auto parse_list = [](std::string list, std::vector<weft::ValType>& out) {
    std::replace(list.begin(), list.end(), '[', ' ');
    std::replace(list.begin(), list.end(), ']', ' ');
    std::istringstream in(list);
    std::string word;
    while (in >> word) {
      if (word == "i32") out.push_back(weft::ValType::i32());
      else if (word == "i64") out.push_back(weft::ValType::i64());
      else if (word == "f32") out.push_back(weft::ValType::f32());
      else if (word == "f64") out.push_back(weft::ValType::f64());
      else if (word == "v128") out.push_back(weft::ValType::v128());
      else if (word == "funcref") out.push_back(weft::ValType::funcref());
      else if (word == "externref") out.push_back(weft::ValType::externref());
      else return false;  // typed references (fiber extension) are not needed here
    }
    return true;
  };
  weft::FuncType type;
  if (!parse_list(text.substr(0, arrow), type.params) || !parse_list(text.substr(arrow + 2), type.results))
    return std::nullopt;
  return type;
}

struct Timing {
  double seconds = 0;
  weft::TierStats stats;
};

// One instantiation in a fresh store (so code memory and translations are not
// reused across reps); only instantiate() itself is timed.
std::optional<Timing> time_instantiation(const weft::Engine& engine, const weft::WasmModule& module) {
  weft::Store store(engine);
  weft::Linker linker;
  for (const auto& import : module.imports()) {
    std::optional<weft::FuncType> type;
    if (import.kind == weft::ExternKind::Func) type = parse_func_type(import.type);
    if (!type) {
      std::fprintf(stderr, "compile_speed: cannot satisfy import %s.%s (%s)\n", import.module.c_str(),
                   import.name.c_str(), import.type.c_str());
      return std::nullopt;
    }
    std::string name = import.module + "." + import.name;
    linker.define(import.module, import.name,
                  store.create_host_function(
                      *type,
                      [name](std::span<const weft::Value>, std::span<weft::Value>) -> weft::Result<void> {
                        return weft::make_error(weft::ErrorKind::Trap, "compile_speed: import " + name + " called");
                      },
                      name));
  }
  // CPU time of the process (weft_bench::cpu_seconds says why).
  double start = weft_bench::cpu_seconds();
  auto instance = store.instantiate(module, linker);
  double stop = weft_bench::cpu_seconds();
  if (!instance.ok()) {
    std::fprintf(stderr, "compile_speed: instantiation failed: %s\n", instance.error().message.c_str());
    return std::nullopt;
  }
  return Timing{stop - start, store.tier_stats()};
}

}  // namespace

int main(int argc, char** argv) {
  weft_bench::ProbeInput input;
  if (int status = weft_bench::read_probe_input("compile_speed", argc, argv, 5, input)) return status;
  const std::vector<uint8_t>& bytes = input.bytes;
  const int reps = input.reps;

  weft::Config interp_config, jit_config;
  interp_config.tier = weft::Tier::Interpreter;
  jit_config.tier = weft::Tier::Jit;
  // The whole module's code, as eager compilation prepares it: by default
  // both tiers would compile (translate) each function at its first call.
  interp_config.eager_compilation = jit_config.eager_compilation = true;
  weft::Engine interp_engine(interp_config), jit_engine(jit_config);
  const char* jit_only_setting = std::getenv("WEFT_BENCH_JIT_ONLY");
  const bool jit_only = jit_only_setting && *jit_only_setting && *jit_only_setting != '0';
  std::vector<double> interp_s, jit_s;
  weft::TierStats jit_stats;
  std::unique_ptr<weft::WasmModule> jit_module;
  for (int i = 0; i < reps; ++i) {
    // Both tiers decode and validate identically; one module per engine keeps
    // each store bound to the engine it was loaded with.
    auto interp_module = weft::WasmModule::from_binary(interp_engine, bytes);
    auto fresh = weft::WasmModule::from_binary(jit_engine, bytes);
    if (!interp_module.ok() || !fresh.ok()) {
      std::fprintf(stderr, "compile_speed: %s: %s\n", argv[1],
                   (interp_module.ok() ? fresh : interp_module).error().message.c_str());
      return 1;
    }
    jit_module.reset();  // the last rep's module (and its compiled code) goes first
    jit_module = std::make_unique<weft::WasmModule>(std::move(*fresh));
    if (!jit_only) {
      auto interp = time_instantiation(interp_engine, *interp_module);
      if (!interp) return 1;
      interp_s.push_back(interp->seconds);
    }
    auto jit = time_instantiation(jit_engine, *jit_module);
    if (!jit) return 1;
    jit_s.push_back(jit->seconds);
    jit_stats = jit->stats;
  }
  auto copy = time_instantiation(jit_engine, *jit_module);
  if (!copy) return 1;

  const double mb = input.code_bytes / 1e6;
  const double t_jit = weft_bench::median(jit_s);
  std::printf("code_bytes %u\nfunctions %u\nreps %d\n", input.code_bytes, input.functions, reps);
  if (!jit_only) {
    const double t_interp = weft_bench::median(interp_s);
    std::printf("interp_ms %.3f\ninterp_mbps %.2f\n", t_interp * 1e3, mb / t_interp);
  }
  std::printf("jit_ms %.3f\njit_mbps %.2f\n", t_jit * 1e3, mb / t_jit);
  std::printf("jit_min_ms %.3f\n", *std::min_element(jit_s.begin(), jit_s.end()) * 1e3);
  // jit_tier 0: this build has no JIT (the "JIT" times are the interpreter's).
  std::printf("jit_tier %d\njit_compiled %u\njit_fallbacks %u\n", jit_stats.tier == weft::Tier::Jit ? 1 : 0,
              jit_stats.jit_compiled, jit_stats.jit_fallbacks);
  std::printf("jit_copy_ms %.3f\njit_reused %u\n", copy->seconds * 1e3, copy->stats.jit_reused);
  return 0;
}
