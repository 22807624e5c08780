// What one fiber round trip costs at each call depth, measured in one
// process: bench/fibers/generator_depth.wat's `run N D` (the generator
// yielding from D calls below the fiber's entry) against `calls N D` (the
// same call chain per value, no switch), on one tier. The two are measured
// alternately, REPEAT times each, and the report uses the minimum per
// round trip of each: on a shared VM, neighbours only ever add time, so the
// minimum over many short runs is the estimate least disturbed by them
// (docs/performance.md, "Fiber switching", says when to use which).
//
//   fiber_depth [--tier jit|interp] [--repeat R] [--round-trips N] DEPTH…
//
// Prints per depth: min and median ns per round trip of `run` and `calls`,
// and min(run) − min(calls): the switch's own cost at that depth. Exits 1 if
// a checksum is wrong (a broken switch cannot look fast).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "weft/weft.h"

namespace {

double thread_cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e9 + double(ts.tv_nsec);
}

struct Sample {
  double min = 0, median = 0;
};

Sample summarize(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v.front(), v[v.size() / 2]};
}

int usage(const char* why) {
  std::fprintf(stderr, "fiber_depth: %s\nusage: fiber_depth [--tier jit|interp] [--repeat R] [--round-trips N] DEPTH…\n",
               why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  weft::Tier tier = weft::Tier::Jit;
  int repeat = 41;
  uint32_t round_trips = 20000;
  std::vector<uint32_t> depths;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--tier" && has_value) {
      const std::string t = argv[++i];
      if (t == "jit") tier = weft::Tier::Jit;
      else if (t == "interp") tier = weft::Tier::Interpreter;
      else return usage(("unknown tier '" + t + "'").c_str());
    } else if (a == "--repeat" && has_value) {
      repeat = std::atoi(argv[++i]);
    } else if (a == "--round-trips" && has_value) {
      round_trips = uint32_t(std::strtoul(argv[++i], nullptr, 10));
    } else if (!a.empty() && a[0] != '-') {
      depths.push_back(uint32_t(std::strtoul(a.c_str(), nullptr, 10)));
    } else {
      return usage(("unexpected argument '" + a + "'").c_str());
    }
  }
  if (depths.empty() || repeat < 1 || round_trips == 0) return usage("give at least one depth");

  weft::Config config;
  config.tier = tier;
  weft::Engine engine(config);
  auto module = weft::WasmModule::from_file(engine, WEFT_BENCH_DIR "/fibers/generator_depth.wat");
  if (!module.ok()) {
    std::fprintf(stderr, "fiber_depth: %s\n", module.error().to_string().c_str());
    return 2;
  }
  weft::Store store(engine);
  auto instance = store.instantiate(*module, weft::Linker{});
  if (!instance.ok()) {
    std::fprintf(stderr, "fiber_depth: %s\n", instance.error().to_string().c_str());
    return 2;
  }
  const weft::Extern run = *instance->get_export("run");
  const weft::Extern calls = *instance->get_export("calls");
  const uint64_t sum = uint64_t(round_trips) * (round_trips - 1) / 2;

  // One timed call; checks the sum each export returns (`calls` adds to a
  // global, so its result grows by `sum` per call).
  bool ok = true;
  uint64_t calls_total = 0;
  auto time_one = [&](const weft::Extern& f, uint32_t depth) {
    const std::vector<weft::Value> args = {weft::Value::i32(int32_t(round_trips)), weft::Value::i32(int32_t(depth))};
    const double t0 = thread_cpu_ns();
    auto r = store.call(f, args);
    const double t = thread_cpu_ns() - t0;
    const bool is_calls = f.object == calls.object;
    if (is_calls) calls_total += sum;
    if (!r.ok() || uint64_t((*r)[0].as_i64()) != (is_calls ? calls_total : sum)) ok = false;
    return t / round_trips;
  };

  std::printf("tier %s, %u round trips per call, %d calls of each per depth (thread CPU time)\n",
              tier == weft::Tier::Jit ? "jit" : "interp", round_trips, repeat);
  std::printf("%6s %12s %12s %12s %12s %14s\n", "depth", "run min", "run median", "calls min", "calls median",
              "switch (mins)");
  for (uint32_t depth : depths) {
    std::vector<double> run_ns, calls_ns;
    time_one(run, depth);  // warm up: code, stacks, pools
    time_one(calls, depth);
    for (int k = 0; k < repeat; ++k) {
      run_ns.push_back(time_one(run, depth));
      calls_ns.push_back(time_one(calls, depth));
    }
    const Sample r = summarize(run_ns), c = summarize(calls_ns);
    std::printf("%6u %12.2f %12.2f %12.2f %12.2f %14.2f\n", depth, r.min, r.median, c.min, c.median, r.min - c.min);
  }
  if (!ok) {
    std::fprintf(stderr, "fiber_depth: a checksum was wrong\n");
    return 1;
  }
  return 0;
}
