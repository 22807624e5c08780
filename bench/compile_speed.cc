// P7 (docs/performance.md): compile speed, in MB of code section per second,
// of a whole large module.
//
// Usage: compile_speed FILE.wasm [REPS]
//
// Decoding and validation happen once, outside the timed region; each rep then
// times one Store::instantiate per tier, alternating the tiers (the machine is
// shared and noisy, so drift hits both alike). Instantiation is where the code
// is prepared: the interpreter tier translates every function to its internal
// code; the JIT tier compiles every function to x86-64 and translates for the
// interpreter only the functions it cannot compile (others on first
// interpreted entry; jit/executor.cc prepare_instance). So the JIT time is the
// compiler's (plus instantiation's own work, the same on both tiers).
//
// Imported functions are satisfied with host functions that trap: the module
// must have no start function (nothing may run). Only the public API is used.
//
// Output (one `key value` per line, read by bench/run.py):
//   code_bytes N, functions N, reps N,
//   interp_ms / jit_ms        median CPU milliseconds per instantiation,
//   interp_mbps / jit_mbps    code-section MB (1e6 bytes) per second,
//   jit_tier 0|1 (whether this build has the JIT), jit_compiled N, jit_fallbacks N.
#include <algorithm>
#include <ctime>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "weft/weft.h"

namespace {

// LEB128 reader over the module bytes; only what section headers need.
bool read_u32(const std::vector<uint8_t>& bytes, size_t& pos, uint32_t& out) {
  uint64_t value = 0;
  for (int shift = 0; shift < 35; shift += 7) {
    if (pos >= bytes.size()) return false;
    uint8_t b = bytes[pos++];
    value |= uint64_t(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      out = uint32_t(value);
      return value <= UINT32_MAX;
    }
  }
  return false;
}

// Size of the code section's payload (id 10) and its function count, from the
// section headers: the public API exposes no section sizes, and P7 is defined
// on exactly these bytes.
std::optional<std::pair<uint32_t, uint32_t>> code_section(const std::vector<uint8_t>& bytes) {
  size_t pos = 8;  // magic + version
  while (pos < bytes.size()) {
    uint8_t id = bytes[pos++];
    uint32_t size = 0;
    if (!read_u32(bytes, pos, size) || size > bytes.size() - pos) return std::nullopt;
    if (id == 10) {
      size_t p = pos;
      uint32_t count = 0;
      if (!read_u32(bytes, p, count)) return std::nullopt;
      return std::make_pair(size, count);
    }
    pos += size;
  }
  return std::nullopt;
}

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

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
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
  // CPU time of the process, as bench/run.py measures by default: the machines
  // are shared, and wall time there measures the other tenants too.
  double start = cpu_seconds();
  auto instance = store.instantiate(module, linker);
  double stop = cpu_seconds();
  if (!instance.ok()) {
    std::fprintf(stderr, "compile_speed: instantiation failed: %s\n", instance.error().message.c_str());
    return std::nullopt;
  }
  return Timing{stop - start, store.tier_stats()};
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: compile_speed FILE.wasm [REPS]\n");
    return 2;
  }
  int reps = argc == 3 ? std::atoi(argv[2]) : 5;
  if (reps < 1) reps = 1;
  std::ifstream file(argv[1], std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (!file.good() && !file.eof()) {
    std::fprintf(stderr, "compile_speed: cannot read %s\n", argv[1]);
    return 2;
  }
  auto code = code_section(bytes);
  if (!code) {
    std::fprintf(stderr, "compile_speed: %s: no code section (or malformed section headers)\n", argv[1]);
    return 2;
  }

  weft::Config interp_config, jit_config;
  interp_config.tier = weft::Tier::Interpreter;
  jit_config.tier = weft::Tier::Jit;
  weft::Engine interp_engine(interp_config), jit_engine(jit_config);
  // Both tiers decode and validate identically; one module per engine keeps
  // each store bound to the engine it was loaded with.
  auto interp_module = weft::WasmModule::from_binary(interp_engine, bytes);
  auto jit_module = weft::WasmModule::from_binary(jit_engine, bytes);
  if (!interp_module.ok() || !jit_module.ok()) {
    std::fprintf(stderr, "compile_speed: %s: %s\n", argv[1],
                 (interp_module.ok() ? jit_module : interp_module).error().message.c_str());
    return 1;
  }

  std::vector<double> interp_s, jit_s;
  weft::TierStats jit_stats;
  for (int i = 0; i < reps; ++i) {
    auto interp = time_instantiation(interp_engine, *interp_module);
    auto jit = time_instantiation(jit_engine, *jit_module);
    if (!interp || !jit) return 1;
    interp_s.push_back(interp->seconds);
    jit_s.push_back(jit->seconds);
    jit_stats = jit->stats;
  }

  const double mb = code->first / 1e6;
  const double t_interp = median(interp_s), t_jit = median(jit_s);
  std::printf("code_bytes %u\nfunctions %u\nreps %d\n", code->first, code->second, reps);
  std::printf("interp_ms %.3f\njit_ms %.3f\n", t_interp * 1e3, t_jit * 1e3);
  std::printf("interp_mbps %.2f\njit_mbps %.2f\n", mb / t_interp, mb / t_jit);
  // jit_tier 0: this build has no JIT (the "JIT" times are the interpreter's).
  std::printf("jit_tier %d\njit_compiled %u\njit_fallbacks %u\n", jit_stats.tier == weft::Tier::Jit ? 1 : 0,
              jit_stats.jit_compiled, jit_stats.jit_fallbacks);
  return 0;
}
