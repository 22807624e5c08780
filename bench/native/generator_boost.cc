// P2 reference: the generator of bench/fibers/generator.wat as native C++ on
// Boost.Context — one resume + one suspend (two context switches) per value.
//
//   generator_boost N   → prints the sum 0 + 1 + … + N-1
//
// bench/run.py times the whole process at N and at 0 and divides the
// difference by N, exactly as for the Wasm versions.
#include <boost/context/fiber.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace ctx = boost::context;

int main(int argc, char** argv) {
  const std::uint32_t n = argc > 1 ? static_cast<std::uint32_t>(std::strtoul(argv[1], nullptr, 10)) : 10'000'000u;
  std::uint32_t yielded = 0;
  bool done = false;
  ctx::fiber generator{[&](ctx::fiber&& consumer) {
    for (std::uint32_t i = 0; i < n; ++i) {
      yielded = i;
      consumer = std::move(consumer).resume();
    }
    done = true;
    return std::move(consumer);
  }};
  std::uint64_t sum = 0;
  for (;;) {
    generator = std::move(generator).resume();
    if (done) break;
    sum += yielded;
  }
  std::printf("%llu\n", static_cast<unsigned long long>(sum));
  return 0;
}
