// libFuzzer target for fiber-heavy programs: bytes → a generated module that
// uses handle/event and all nine fiber.* instructions (fiber_program.h) →
// validate → instantiate → call every root twice (the second round resumes
// what the first left suspended) → drop the store with fibers still suspended.
// Fuel, a small live-fiber limit and small fiber stacks keep every input short
// and make the limits fire. Findings: a generated module that does not load
// (generator and validator disagree — the reason is printed first), a hang, a
// crash, a sanitizer report (leaks of fiber stacks included), or a run error
// other than a trap or an exhaustion.
//
// Environment: WEFT_FIBER_FUZZ_PRINT=1 prints each generated module;
// WEFT_FIBER_FUZZ_STATS=1 prints, at exit, how many inputs delivered events
// and how the calls ended (e.g. `fiber_fuzzer -runs=1000 corpus/`).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "fuzz/fiber_program.h"
#include "weft/weft.h"

namespace {

using weft::ErrorKind;

constexpr int kRounds = 2;

bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' && *v != '0';
}

// Aggregated outcomes for WEFT_FIBER_FUZZ_STATS.
struct Stats {
  uint64_t inputs = 0, inputs_with_events = 0, events = 0;
  std::map<std::string, uint64_t> call_outcomes;  // "ok" or the error message
  ~Stats() {
    if (inputs == 0) return;
    std::fprintf(stderr, "fiber_fuzzer: %llu inputs, %llu delivered events (%llu events in all)\n",
                 (unsigned long long)inputs, (unsigned long long)inputs_with_events, (unsigned long long)events);
    for (const auto& [what, count] : call_outcomes)
      std::fprintf(stderr, "  %8llu calls: %s\n", (unsigned long long)count, what.c_str());
  }
};

[[noreturn]] void finding(const char* what, const weft::Error& error, const std::string& wat) {
  std::fprintf(stderr, "fiber_fuzzer: %s: %s\n--- module ---\n%s\n", what, error.to_string().c_str(), wat.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const weft::Engine engine(weft::fuzz::fiber_program_config());
  static const bool print = env_flag("WEFT_FIBER_FUZZ_PRINT");
  static Stats collected;  // reported by its destructor at exit
  static Stats* const stats = env_flag("WEFT_FIBER_FUZZ_STATS") ? &collected : nullptr;

  const weft::fuzz::FiberProgram program = weft::fuzz::generate_fiber_program(data, size);
  if (print) std::fprintf(stderr, "%s\n", program.wat.c_str());
  auto module = weft::WasmModule::from_text(engine, program.wat);
  if (!module.ok()) finding("generated module rejected", module.error(), program.wat);

  weft::Store store(engine);
  auto instance = store.instantiate(*module, weft::Linker{});
  // No imports, no start function, small tables: nothing can fail here.
  if (!instance.ok()) finding("instantiation failed", instance.error(), program.wat);

  for (int round = 0; round < kRounds; ++round) {
    for (const std::string& name : program.entry_points) {
      auto entry = instance->get_export(name);
      if (!entry) std::abort();
      if (!store.set_fuel(weft::fuzz::kFiberProgramFuel).ok()) std::abort();
      auto r = store.call(*entry, {});
      if (r.ok()) {
        if (r->size() != 1 || (*r)[0].type() != weft::ValType::i32()) std::abort();
        if (stats) ++stats->call_outcomes["ok"];
        continue;
      }
      // Running code may fail only by trapping, exhausting a limit or an
      // exception no try_table caught.
      if (r.error().kind != ErrorKind::Trap && r.error().kind != ErrorKind::Exhaustion &&
          r.error().kind != ErrorKind::Exception)
        finding("unexpected error kind", r.error(), program.wat);
      if (stats) ++stats->call_outcomes[r.error().message];
    }
  }
  if (stats) {
    auto counter = instance->get_export(weft::fuzz::FiberProgram::kClauseCounter);
    if (!counter) std::abort();
    const uint32_t events = store.global_get(*counter).as_i32();
    ++stats->inputs;
    stats->events += events;
    if (events > 0) ++stats->inputs_with_events;
  }
  return 0;
}
