// The fiber-program mode of jit_differential: modules from the fiber program
// generator (fuzz/fiber_program.h: handle/event and all nine fiber.*
// instructions), each run on the interpreter and on the JIT tier, with the
// transcripts compared as for Binaryen's modules (differential.cc).
//
//   jit_differential --fiber-programs N [--seed S] [--first I] [--keep DIR] [--self-check] [--random-fuel]
//   jit_differential --fiber-files FILE.wat… [--self-check] [--random-fuel]
//
// Program I of seed S is generated from its own byte stream (64..2048 bytes
// from a PRNG seeded with S and I), so one program reproduces without the
// ones before it: `--fiber-programs 1 --seed S --first I`. --keep writes each
// disagreeing (or rejected) program's WAT to DIR/fiber-s<S>-i<I>.wat, which
// `--fiber-files` runs again the same way. Both tiers get the fiber fuzzer's
// configuration (fuel 20,000 per call, at most 48 live fibers, 128 KiB per
// fiber); every root is called twice, in order, so the second round resumes
// what the first left suspended. One call is one run. After each call the
// transcript records the outcome and the clause counter, at the end every
// exported global and memory. The summary counts the runs that delivered
// events (the clause counter grew): the proof that the programs switch.
//
// --random-fuel gives each call its own budget and compares the fuel left, as
// in differential.cc (the tiers must charge identically).
// --self-check runs the JIT tier with at most 8 live fibers instead of 48: a
// real behavioural difference (about half the programs create more, and then
// trap or take other paths) that must show up as disagreements, so the mode
// exits 0 only if it reports some. (One fiber fewer changes about one program
// in 2,000, fuel is rarely the limit: the blunter change keeps the check
// reliable on 30 programs.)
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "fuzz/fiber_program.h"
#include "tests/jit/differential.h"
#include "weft/weft.h"

namespace weft::differential {
namespace {

constexpr int kRounds = 2;
constexpr size_t kMinProgramBytes = 64, kMaxProgramBytes = 2048;

constexpr uint64_t kSelfCheckMaxFibers = 8;

// As fuzz/fiber_fuzzer.cc: small limits make every program short and make
// the "too many fibers", stack and fuel limits fire, so both tiers are
// compared on abort paths too.
Config fiber_config(Tier tier, bool perturbed) {
  Config c = fuzz::fiber_program_config();
  c.tier = tier;
  if (perturbed) c.max_fibers = kSelfCheckMaxFibers;
  return c;
}

struct FiberRun {
  Transcript transcript;
  uint32_t runs_with_events = 0;
  std::map<std::string, uint32_t> outcomes;  // "returned" or the trap message: calls ending so
  std::optional<std::string> load_error;  // the module did not load: a generator/validator disagreement
};

// --instances N: each program is instantiated N times in one store, and each
// instance runs the rounds (on the JIT, the later instances run copies of the
// code compiled for the first: jit/code_template.h).
uint32_t instances_per_store = 1;

// Runs `entry_points` (all exported functions without parameters when empty,
// for --fiber-files) kRounds times on one tier.
FiberRun run_program(const std::string& wat, std::vector<std::string> entry_points, Tier tier, bool perturbed,
                     bool random_fuel) {
  FiberRun out;
  // --random-fuel: each call's budget (1 to 2^15, log-uniform) from a stream
  // seeded by the program, so both tiers get the same budgets.
  std::mt19937_64 fuel_rng(std::hash<std::string>{}(wat));
  std::vector<std::string>& lines = out.transcript.lines;
  const Config config = fiber_config(tier, perturbed);
  Engine engine(config);
  auto module = WasmModule::from_text(engine, wat);
  if (!module.ok()) {
    out.load_error = module.error().to_string();
    lines.push_back("load error: " + *out.load_error);
    return out;
  }
  Store store(engine);
  for (uint32_t copy = 0; copy < instances_per_store; ++copy) {
    if (copy > 0) lines.push_back("instance " + std::to_string(copy + 1));
    auto instance = store.instantiate(*module, Linker{});
    if (!instance.ok()) {
      out.load_error = "instantiation: " + instance.error().to_string();
      lines.push_back(*out.load_error);
      return out;
    }
    if (entry_points.empty())
      for (const auto& [name, ext] : instance->exports())
        if (ext.kind == ExternKind::Func && store.function_type(ext).params.empty()) entry_points.push_back(name);
    const std::optional<Extern> counter = instance->get_export(fuzz::FiberProgram::kClauseCounter);
    auto clauses = [&]() -> uint32_t { return counter ? store.global_get(*counter).as_i32() : 0; };

    for (int round = 0; round < kRounds; ++round) {
      for (const std::string& name : entry_points) {
        std::optional<Extern> entry = instance->get_export(name);
        if (!entry || entry->kind != ExternKind::Func) {
          lines.push_back("no exported function " + name);
          continue;
        }
        const uint64_t budget = random_fuel ? 1 + fuel_rng() % (uint64_t(1) << (fuel_rng() % 16)) : config.fuel;
        if (auto refuel = store.set_fuel(budget); !refuel.ok()) {
          lines.push_back("set_fuel: " + refuel.error().to_string());
          continue;
        }
        const uint32_t before = clauses();
        auto r = store.call(*entry, {});
        std::string line = "round " + std::to_string(round) + " call " + name + outcome_text(r);
        if (!r.ok()) {
          // Trap vs. exhaustion of a limit is part of the behaviour too.
          line += std::string(" (") + error_kind_name(r.error().kind) + ")";
          ++out.outcomes[r.error().message];
        } else {
          ++out.outcomes["returned"];
        }
        const uint32_t after = clauses();
        line += "; clauses_entered " + std::to_string(after);
        if (random_fuel)
          line += " (fuel " + std::to_string(budget) + ", left " + std::to_string(*store.fuel_remaining()) + ")";
        lines.push_back(line);
        ++out.transcript.runs;
        if (after != before) ++out.runs_with_events;
      }
    }
    record_exported_state(store, *instance, lines);
  }
  const TierStats stats = store.tier_stats();
  out.transcript.compiled = stats.jit_compiled;
  out.transcript.reused = stats.jit_reused;
  out.transcript.fallbacks = stats.jit_fallbacks;
  return out;
}

// Program `index` of `seed`: its own PRNG stream, so it reproduces alone.
// (mt19937_64 and seed_seq are fully specified by the standard; the
// distributions are not, hence the plain modulo.)
std::vector<uint8_t> program_bytes(uint64_t seed, uint64_t index) {
  std::seed_seq seq{uint32_t(seed), uint32_t(seed >> 32), uint32_t(index), uint32_t(index >> 32)};
  std::mt19937_64 rng(seq);
  std::vector<uint8_t> bytes(kMinProgramBytes + rng() % (kMaxProgramBytes - kMinProgramBytes + 1));
  for (uint8_t& b : bytes) b = uint8_t(rng());
  return bytes;
}

struct Totals {
  uint64_t programs = 0, agree = 0, disagree = 0, rejected = 0;
  uint64_t runs_with_events = 0, programs_with_events = 0;
  std::map<std::string, uint64_t> outcomes;  // on the interpreter
  uint64_t compiled = 0, reused = 0, fallbacks = 0;
};

// Runs one program on both tiers and adds it to `totals`; `label` names it in
// reports, `keep_path` (if any) receives the WAT when something is wrong.
void compare(const std::string& label, const std::string& wat, const std::vector<std::string>& entry_points,
             bool self_check, bool random_fuel, const std::string& keep_path, Totals& totals) {
  ++totals.programs;
  FiberRun interp = run_program(wat, entry_points, Tier::Interpreter, false, random_fuel);
  FiberRun jit = run_program(wat, entry_points, Tier::Jit, self_check, random_fuel);
  totals.compiled += jit.transcript.compiled;
  totals.reused += jit.transcript.reused;
  totals.fallbacks += jit.transcript.fallbacks;
  totals.runs_with_events += interp.runs_with_events;
  for (const auto& [what, count] : interp.outcomes) totals.outcomes[what] += count;
  if (interp.runs_with_events > 0) ++totals.programs_with_events;
  bool keep = false;
  if (interp.load_error) {
    ++totals.rejected;
    keep = true;
    std::printf("REJECTED %s: %s\n", label.c_str(), interp.load_error->c_str());
  } else if (interp.transcript.lines == jit.transcript.lines) {
    totals.agree += jit.transcript.runs;
  } else {
    ++totals.disagree;
    keep = true;
    report_disagreement(label, interp.transcript, jit.transcript);
  }
  if (!keep || keep_path.empty()) return;
  std::ofstream file(keep_path, std::ios::binary);
  file << wat;
  if (!file.flush()) {
    std::fprintf(stderr, "jit_differential: cannot write %s\n", keep_path.c_str());
    return;
  }
  std::printf("  kept: %s\n", keep_path.c_str());
}

bool parse_number(const std::string& text, uint64_t& out) {
  char* end = nullptr;
  out = std::strtoull(text.c_str(), &end, 0);
  return !text.empty() && *end == '\0';
}

int usage(const char* problem) {
  std::fprintf(stderr,
               "jit_differential: %s\n"
               "usage: jit_differential --fiber-programs N [--seed S] [--first I] [--keep DIR] [--self-check] [--random-fuel]\n"
               "                        [--instances N]\n"
               "       jit_differential --fiber-files FILE.wat… [--self-check] [--random-fuel] [--instances N]\n",
               problem);
  return 2;
}

}  // namespace

int fiber_main(const std::vector<std::string>& args) {
  std::optional<uint64_t> programs;
  uint64_t seed = 1, first = 0;
  std::string keep_dir;
  bool self_check = false, files_mode = false, random_fuel = false;
  std::vector<std::string> files;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool has_value = i + 1 < args.size();
    if (a == "--fiber-programs" || a == "--seed" || a == "--first") {
      uint64_t n = 0;
      if (!has_value || !parse_number(args[i + 1], n))
        return usage((a + " needs a number" + (has_value ? ", got '" + args[i + 1] + "'" : "")).c_str());
      (a == "--seed" ? seed : a == "--first" ? first : programs.emplace()) = n;
      ++i;
    } else if (a == "--keep" && has_value) {
      keep_dir = args[++i];
    } else if (a == "--self-check") {
      self_check = true;
    } else if (a == "--random-fuel") {
      random_fuel = true;
    } else if (a == "--instances") {
      uint64_t n = 0;
      if (!has_value || !parse_number(args[i + 1], n) || n == 0 || n > 100)
        return usage("--instances needs a number from 1 to 100");
      instances_per_store = uint32_t(n);
      ++i;
    } else if (a == "--fiber-files") {
      files_mode = true;
    } else if (files_mode && a.rfind("--", 0) != 0) {
      files.push_back(a);
    } else {
      return usage(("unexpected argument '" + a + "'").c_str());
    }
  }
  if (files_mode == programs.has_value()) return usage("give either --fiber-programs N or --fiber-files FILE…");
  if (files_mode && files.empty()) return usage("--fiber-files needs at least one file");

  Totals totals;
  if (files_mode) {
    for (const std::string& path : files) {
      std::ifstream in(path, std::ios::binary);
      if (!in) {
        std::fprintf(stderr, "jit_differential: cannot read %s\n", path.c_str());
        return 2;
      }
      const std::string wat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      compare(path, wat, {}, self_check, random_fuel, "", totals);
    }
  } else {
    for (uint64_t index = first; index < first + *programs; ++index) {
      const std::vector<uint8_t> bytes = program_bytes(seed, index);
      const fuzz::FiberProgram program = fuzz::generate_fiber_program(bytes.data(), bytes.size());
      char label[96];
      std::snprintf(label, sizeof label, "fiber program seed %" PRIu64 " index %" PRIu64 " (%zu bytes)", seed, index,
                    bytes.size());
      const std::string keep_path = keep_dir.empty() ? std::string()
                                                     : keep_dir + "/fiber-s" + std::to_string(seed) + "-i" +
                                                           std::to_string(index) + ".wat";
      compare(label, program.wat, program.entry_points, self_check, random_fuel, keep_path, totals);
    }
  }

  // Which paths the runs took (returns, and each kind of trap), so a run
  // shows whether the programs still reach the abort paths.
  std::string outcomes;
  for (const auto& [what, count] : totals.outcomes)
    outcomes += (outcomes.empty() ? "" : ", ") + std::to_string(count) + " " + what;
  std::printf("fiber outcomes: %s\n", outcomes.empty() ? "no runs" : outcomes.c_str());
  const std::string seed_text = files_mode ? std::string() : ", seed " + std::to_string(seed);
  std::printf("fiber differential: %" PRIu64 " runs agree, %" PRIu64 " programs disagree, %" PRIu64
              " rejected (%" PRIu64 " programs%s; %" PRIu64 " runs delivered events, in %" PRIu64
              " programs; JIT compiled %" PRIu64 " functions, reused %" PRIu64 " copies, %" PRIu64 " fell back)\n",
              totals.agree, totals.disagree, totals.rejected, totals.programs,
              seed_text.c_str(), totals.runs_with_events,
              totals.programs_with_events, totals.compiled, totals.reused, totals.fallbacks);
  if (self_check) {
    // The injected difference must be seen; a rejected module is still a finding.
    const bool seen = totals.disagree > 0;
    std::printf("self-check: %s\n", seen ? "the injected difference was detected"
                                         : "the injected difference went unnoticed: the comparison is blind");
    return seen && totals.rejected == 0 ? 0 : 1;
  }
  return totals.disagree == 0 && totals.rejected == 0 ? 0 : 1;
}

}  // namespace weft::differential
