// jit_differential: runs Wasm modules on the interpreter and on the JIT tier
// in one process and compares everything observable, bit for bit: each
// export's results or trap message, every call of an imported function with
// its arguments, and afterwards exported globals and memories (hashed);
// NaNs compare by being NaN (their bits are nondeterministic in Wasm).
//
//   jit_differential [--calls N] [--random-fuel] [--two-memories] [--instances N] [--eager] FILE.wasm…
//   jit_differential --fiber-programs N [--seed S] …  (fiber_differential.cc)
//
// Every exported function is called with zero arguments, then N-1 more times
// with arguments from a generator seeded by the file name (the same on both
// tiers). Imports are stub host functions that record their arguments and
// return zeros. Both tiers meter fuel so a module that loops forever ends in
// the same "all fuel consumed" trap. With --random-fuel each call instead gets
// its own budget (1 to 2^17, log-uniform, the same on both tiers) and the
// fuel left after it is part of what must agree: the tiers must charge
// identically, not just trap alike (runtime/fuel.h is the one price list).
// With --two-memories each module first gets a second memory (every other
// one a 64-bit memory) and its memory instructions spread over both
// (tests/jit/two_memories.cc). With --instances N each module is
// instantiated N times in one store, each instance making the same calls: on
// the JIT the later instances run copies of the code compiled for the first
// (jit/code_template.h); --eager compiles at instantiation. Prints "differential: R runs agree, D
// disagree (F files)" and exits 1 on any disagreement. Used by
// tests/jit/differential.sh over `wasm-opt -ttf` modules (public API only).
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "core/module.h"
#include "tests/jit/differential.h"
#include "tests/jit/two_memories.h"
#include "weft/weft.h"

namespace weft::differential {

// (Binaryen's generator also runs with --denan, so NaNs are rare anyway.)
std::string raw_text(const Value& v) {
  if ((v.type().kind == ValType::F32 && std::isnan(v.as_f32())) ||
      (v.type().kind == ValType::F64 && std::isnan(v.as_f64())))
    return "nan";
  char buf[64];
  if (v.type().is_vec()) {
    std::snprintf(buf, sizeof buf, "v128:%016" PRIx64 "%016" PRIx64, v.raw()[1], v.raw()[0]);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%016" PRIx64, v.as_i64());
  return buf;
}

std::string outcome_text(const Result<std::vector<Value>>& r) {
  if (!r.ok()) return " => trap " + r.error().message;
  std::string text = " =>";
  for (const Value& v : *r) text += " " + (v.type().is_ref() ? std::string(v.is_null() ? "null" : "ref") : raw_text(v));
  return text;
}

void record_exported_state(Store& store, const Instance& instance, std::vector<std::string>& lines) {
  for (const auto& [name, ext] : instance.exports()) {
    if (ext.kind == ExternKind::Global && !store.global_type(ext).type.is_ref()) {
      lines.push_back("global " + name + " = " + raw_text(store.global_get(ext)));
    } else if (ext.kind == ExternKind::Memory) {
      uint64_t size = store.memory_size_bytes(ext), hash = 1469598103934665603ull;
      const uint8_t* data = store.memory_data(ext);
      for (uint64_t i = 0; i < size; ++i) hash = (hash ^ data[i]) * 1099511628211ull;
      char buf[96];
      std::snprintf(buf, sizeof buf, "memory %s: %" PRIu64 " bytes, hash %016" PRIx64, name.c_str(), size, hash);
      lines.push_back(buf);
    }
  }
}

namespace {
bool quiet_f32_nan(uint32_t bits) { return (bits & 0x7FC00000u) == 0x7FC00000u; }
bool quiet_f64_nan(uint64_t bits) { return (bits & 0x7FF8000000000000ull) == 0x7FF8000000000000ull; }

// Two "v128:…" words that differ only in NaN lanes (transcripts_agree).
bool v128_nan_lanes_only(const std::string& a, const std::string& b, uint64_t& nan_lanes) {
  constexpr size_t kLength = 5 + 32;
  if (a.size() != kLength || b.size() != kLength || a.compare(0, 5, "v128:") != 0 || b.compare(0, 5, "v128:") != 0)
    return false;
  uint64_t lanes = 0;
  for (size_t half = 0; half < 2; ++half) {
    const uint64_t x = std::stoull(a.substr(5 + 16 * half, 16), nullptr, 16);
    const uint64_t y = std::stoull(b.substr(5 + 16 * half, 16), nullptr, 16);
    if (x == y) continue;
    if (quiet_f64_nan(x) && quiet_f64_nan(y)) {
      ++lanes;
      continue;
    }
    for (int shift : {0, 32}) {
      const uint32_t p = uint32_t(x >> shift), q = uint32_t(y >> shift);
      if (p == q) continue;
      if (!quiet_f32_nan(p) || !quiet_f32_nan(q)) return false;
      ++lanes;
    }
  }
  nan_lanes += lanes;
  return true;
}

// Words separated by single spaces.
std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= line.size()) {
    const size_t end = std::min(line.find(' ', at), line.size());
    out.push_back(line.substr(at, end - at));
    at = end + 1;
  }
  return out;
}
}  // namespace

bool transcripts_agree(const Transcript& interp, const Transcript& jit, uint64_t& nan_lanes) {
  if (interp.lines == jit.lines) return true;
  if (interp.lines.size() != jit.lines.size()) return false;
  uint64_t lanes = 0;
  for (size_t i = 0; i < interp.lines.size(); ++i) {
    if (interp.lines[i] == jit.lines[i]) continue;
    const std::vector<std::string> a = words(interp.lines[i]), b = words(jit.lines[i]);
    if (a.size() != b.size()) return false;
    for (size_t w = 0; w < a.size(); ++w)
      if (a[w] != b[w] && !v128_nan_lanes_only(a[w], b[w], lanes)) return false;
  }
  nan_lanes += lanes;
  return true;
}

void report_disagreement(const std::string& what, const Transcript& interp, const Transcript& jit) {
  std::printf("DISAGREE %s\n", what.c_str());
  size_t n = std::max(interp.lines.size(), jit.lines.size());
  for (size_t i = 0, shown = 0; i < n && shown < 5; ++i) {
    const std::string a = i < interp.lines.size() ? interp.lines[i] : "(none)";
    const std::string b = i < jit.lines.size() ? jit.lines[i] : "(none)";
    if (a == b) continue;
    std::printf("  interp: %s\n  jit:    %s\n", a.c_str(), b.c_str());
    // Import calls are recorded before the call line of the export making them.
    for (size_t j = i + 1; shown == 0 && j < interp.lines.size(); ++j)
      if (interp.lines[j].rfind("call ", 0) == 0) {
        std::printf("  (during %s)\n", interp.lines[j].c_str());
        break;
      }
    ++shown;
  }
}

}  // namespace weft::differential

namespace {

using weft::Value;
using weft::ValType;
using weft::differential::raw_text;
using weft::differential::Transcript;

Value value_of(ValType t, uint64_t bits) {
  switch (t.kind) {
    case ValType::I32: return Value::i32(uint32_t(bits));
    case ValType::I64: return Value::i64(bits);
    case ValType::F32: return Value::f32_bits(uint32_t(bits));
    case ValType::F64: return Value::f64_bits(bits);
    case ValType::V128: return Value::v128(bits, ~bits);
    default: return Value::null_ref(t);
  }
}

// Interesting bit patterns more often than uniform ones: 0, ±1, extremes.
uint64_t pick(std::mt19937_64& rng) {
  static const uint64_t kSpecial[] = {0, 1, ~0ull, 0x7FFFFFFF, 0x80000000, 0x7FFFFFFFFFFFFFFF, 0x8000000000000000,
                                      0xFFFF, 0x10000, 0x3FF0000000000000, 0x7FF8000000000000, 0x3F800000};
  uint64_t r = rng();
  if (r % 3 == 0) return kSpecial[(r >> 8) % std::size(kSpecial)];
  return rng() >> (r % 64);
}

Transcript run(const std::string& path, std::span<const uint8_t> bytes, weft::Tier tier, uint32_t calls,
               bool random_fuel, uint32_t instances, bool eager) {
  Transcript out;
  weft::Config config;
  config.tier = tier;
  config.eager_compilation = eager;
  config.fuel = 50'000'000;
  config.max_call_depth = 2000;
  weft::Engine engine(config);
  auto module = weft::WasmModule::from_binary(engine, bytes);
  if (!module.ok()) {
    out.lines.push_back("load error: " + module.error().to_string());
    return out;
  }
  weft::Store store(engine);
  weft::Linker linker;
  std::vector<std::string>* lines = &out.lines;
  const weft::Module& ir = module->ir();
  for (const weft::Import& imp : ir.imports) {
    if (imp.kind != weft::ExternKind::Func) {
      out.lines.push_back("unsupported import " + imp.module + "." + imp.name);
      return out;
    }
    std::string name = imp.module + "." + imp.name;
    weft::Extern f = store.create_host_function(
        ir.types[imp.type_index],
        [lines, name](std::span<const Value> args, std::span<Value> results) -> weft::Result<void> {
          std::string line = "import " + name;
          for (const Value& a : args) line += " " + raw_text(a);
          lines->push_back(line);
          for (Value& r : results) r = value_of(r.type(), 0);
          return {};
        },
        name);
    linker.define(imp.module, imp.name, f);
  }
  for (uint32_t copy = 0; copy < instances; ++copy) {
    if (copy > 0) out.lines.push_back("instance " + std::to_string(copy + 1));
    auto instance = store.instantiate(*module, linker);
    if (!instance.ok()) {
      out.lines.push_back("instantiate: " + instance.error().message);
      return out;
    }
    std::mt19937_64 rng(std::hash<std::string>{}(path));
    std::optional<weft::Extern> hang_init = instance->get_export("hangLimitInitializer");
    for (const auto& [name, ext] : instance->exports()) {
      if (ext.kind != weft::ExternKind::Func) continue;
      weft::FuncType type = store.function_type(ext);
      for (uint32_t c = 0; c < calls; ++c) {
        (void)store.set_fuel(config.fuel);  // the generator's hang-limit reset is not what is measured
        if (hang_init && hang_init->kind == weft::ExternKind::Func) (void)store.call(*hang_init, {});
        std::vector<Value> args;
        for (ValType t : type.params) args.push_back(value_of(t, c == 0 ? 0 : pick(rng)));
        std::string line = "call " + name;
        for (const Value& a : args) line += " " + raw_text(a);
        const uint64_t budget = random_fuel ? 1 + rng() % (uint64_t(1) << (rng() % 18)) : config.fuel;
        (void)store.set_fuel(budget);
        line += weft::differential::outcome_text(store.call(ext, args));
        if (random_fuel) line += " (fuel " + std::to_string(budget) + ", left " + std::to_string(*store.fuel_remaining()) + ")";
        out.lines.push_back(line);
        ++out.runs;
      }
    }
    weft::differential::record_exported_state(store, *instance, out.lines);
  }
  weft::TierStats stats = store.tier_stats();
  out.compiled = stats.jit_compiled;
  out.reused = stats.jit_reused;
  out.fallbacks = stats.jit_fallbacks;
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  for (const std::string& a : args)
    if (a == "--fiber-programs" || a == "--fiber-files") return weft::differential::fiber_main(args);
  uint32_t calls = 4, instances = 1;
  bool random_fuel = false, two_memories = false, eager = false;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--calls") == 0 && i + 1 < argc)
      calls = uint32_t(std::strtoul(argv[++i], nullptr, 10));
    else if (std::strcmp(argv[i], "--random-fuel") == 0)
      random_fuel = true;
    else if (std::strcmp(argv[i], "--two-memories") == 0)
      two_memories = true;
    else if (std::strcmp(argv[i], "--instances") == 0 && i + 1 < argc)
      instances = uint32_t(std::strtoul(argv[++i], nullptr, 10));
    else if (std::strcmp(argv[i], "--eager") == 0)
      eager = true;
    else
      files.push_back(argv[i]);
  }
  if (files.empty() || calls == 0 || instances == 0 || instances > 100) {
    std::fprintf(stderr,
                 "usage: jit_differential [--calls N] [--random-fuel] [--two-memories] [--instances N] [--eager]\n"
                 "                        FILE.wasm…\n"
                 "       jit_differential --fiber-programs N [--seed S] [--first I] [--keep DIR] [--self-check]\n"
                 "       jit_differential --fiber-files FILE.wat… [--self-check]\n");
    return 2;
  }
  uint64_t nan_lanes = 0;
  uint64_t agree = 0, disagree = 0, compiled = 0, reused = 0, fallbacks = 0, not_run = 0, out_of_fuel = 0, moved = 0, wide = 0;
  for (const std::string& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof()) {
      std::fprintf(stderr, "jit_differential: cannot read %s\n", file.c_str());
      return 2;
    }
    if (two_memories) {
      uint32_t moved_here = 0;
      bool memory1_is64 = false;
      weft::Result<std::vector<uint8_t>> spread = weft::differential::spread_over_two_memories(
          bytes, std::hash<std::string>{}(file), moved_here, memory1_is64);
      if (spread.ok()) bytes = std::move(*spread);  // (else the module as it is: its load error is compared)
      moved += moved_here;
      wide += spread.ok() && memory1_is64;
    }
    Transcript interp = run(file, bytes, weft::Tier::Interpreter, calls, random_fuel, instances, eager);
    Transcript jit = run(file, bytes, weft::Tier::Jit, calls, random_fuel, instances, eager);
    compiled += jit.compiled;
    reused += jit.reused;
    fallbacks += jit.fallbacks;
    if (transcripts_agree(interp, jit, nan_lanes)) {
      agree += jit.runs;
      for (const std::string& line : jit.lines) out_of_fuel += line.find("=> trap all fuel consumed") != std::string::npos;
      if (jit.runs == 0) ++not_run;  // did not load/instantiate on either tier (e.g. a feature weft lacks)
      continue;
    }
    ++disagree;
    weft::differential::report_disagreement(file, interp, jit);
  }
  std::printf("differential%s%s: %" PRIu64 " runs agree, %" PRIu64 " files disagree (%zu files, %" PRIu64
              " without runs; %" PRIu64 " agreeing runs ran out of fuel; JIT compiled %" PRIu64
              " functions, reused %" PRIu64 " copies, %" PRIu64 " fell back)\n",
              random_fuel ? " (random fuel)" : "", two_memories ? " (two memories)" : "", agree, disagree,
              files.size(), not_run, out_of_fuel, compiled, reused, fallbacks);
  if (nan_lanes)
    std::printf("v128 NaN lanes whose payloads differ between the tiers (accepted: both NaN): %" PRIu64 "\n",
                nan_lanes);
  if (two_memories)
    std::printf("two memories: %" PRIu64 " memory operands moved to memory 1; in %" PRIu64
                " modules memory 1 is a 64-bit memory\n", moved, wide);
  return disagree == 0 ? 0 : 1;
}
