// What a switch must preserve: callee-saved registers, FP control state, stack alignment, and ordinary C/C++ on fiber stacks.
#include <gtest/gtest.h>

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>

#include "fibers/fiber_context.h"
#include "tests/fibers/probe.h"

namespace weft {
namespace {

std::string describe_mask(std::uint64_t mask) {
  std::string names;
  for (std::uint32_t i = 0; i < weft_probe_callee_saved_count; ++i) {
    if (mask & (std::uint64_t{1} << i)) names += std::string(weft_probe_callee_saved_names[i]) + " ";
  }
  return names.empty() ? "none" : names;
}

constexpr int kRoundTrips = 3;

// Both sides hold a register pattern (via the probe) across several round trips;
// each side must get back exactly its own values.
TEST(SwitchState, CalleeSavedRegistersSurviveResume) {
  fiber_context peer;
  std::uint64_t fiber_mask = ~std::uint64_t{0};
  fiber_context f{[&](fiber_context&& m) {
    peer = std::move(m);
    fiber_mask = weft_probe_callee_saved(
        0x5a5a000000000000ull,
        [](void* p) {
          auto& main = *static_cast<fiber_context*>(p);
          for (int i = 0; i < kRoundTrips; ++i) main = std::move(main).resume();
        },
        &peer);
    return std::move(peer);
  }};
  const std::uint64_t main_mask = weft_probe_callee_saved(
      0x1234000000000000ull,
      [](void* p) {
        auto& fiber = *static_cast<fiber_context*>(p);
        for (int i = 0; i < kRoundTrips; ++i) fiber = std::move(fiber).resume();
      },
      &f);
  EXPECT_EQ(main_mask, 0u) << "clobbered on main: " << describe_mask(main_mask);
  f = std::move(f).resume();  // lets the fiber's probe finish
  EXPECT_TRUE(f.empty());
  EXPECT_EQ(fiber_mask, 0u) << "clobbered on the fiber: " << describe_mask(fiber_mask);
}

// Same through weft_ontop_fcontext (resume_with), including into a fresh fiber.
TEST(SwitchState, CalleeSavedRegistersSurviveResumeWith) {
  fiber_context peer;
  std::uint64_t fiber_mask = ~std::uint64_t{0};
  fiber_context f{[&](fiber_context&& m) {
    peer = std::move(m);
    fiber_mask = weft_probe_callee_saved(
        0x0f0f000000000000ull,
        [](void* p) {
          auto& main = *static_cast<fiber_context*>(p);
          for (int i = 0; i < kRoundTrips; ++i) {
            main = std::move(main).resume_with([](fiber_context&& c) { return std::move(c); });
          }
        },
        &peer);
    return std::move(peer);
  }};
  const std::uint64_t main_mask = weft_probe_callee_saved(
      0x7777000000000000ull,
      [](void* p) {
        auto& fiber = *static_cast<fiber_context*>(p);
        for (int i = 0; i < kRoundTrips; ++i) {
          fiber = std::move(fiber).resume_with([](fiber_context&& c) { return std::move(c); });
        }
      },
      &f);
  EXPECT_EQ(main_mask, 0u) << "clobbered on main: " << describe_mask(main_mask);
  f = std::move(f).resume();
  EXPECT_TRUE(f.empty());
  EXPECT_EQ(fiber_mask, 0u) << "clobbered on the fiber: " << describe_mask(fiber_mask);
}

// A finishing fiber returns into the context that resumes next (ontop exit path).
TEST(SwitchState, CalleeSavedRegistersSurviveFiberExit) {
  const std::uint64_t mask = weft_probe_callee_saved(
      0x2468000000000000ull,
      [](void*) {
        fiber_context f{[](fiber_context&& m) { return std::move(m); }};
        f = std::move(f).resume();
        EXPECT_TRUE(f.empty());
      },
      nullptr);
  EXPECT_EQ(mask, 0u) << "clobbered: " << describe_mask(mask);
}

double divide(double a, double b) {
  volatile double x = a, y = b;  // keep the division at run time, in the current rounding mode
  return x / y;
}

// Rounding mode (MXCSR and x87 control word on x86_64, FPCR on AArch64) is part of
// each fiber's state: a fiber changing it does not leak into the others.
TEST(SwitchState, FloatingPointControlIsPerFiber) {
  ASSERT_EQ(std::fegetround(), FE_TONEAREST);
  // 1/3 rounds down to nearest and 1/10 rounds up, so upward rounding shows on
  // 1/3 and downward or toward-zero rounding on 1/10.
  const double third = divide(1.0, 3.0);
  const double tenth = divide(1.0, 10.0);
  double fiber_up = 0, fiber_zero = 0;
  int fiber_seen_1 = -1, fiber_seen_2 = -1;
  fiber_context f{[&](fiber_context&& m) {
    std::fesetround(FE_UPWARD);
    m = std::move(m).resume();
    fiber_seen_1 = std::fegetround();  // x87 control word on x86_64, FPCR on AArch64
    fiber_up = divide(1.0, 3.0);       // SSE (MXCSR) on x86_64
    std::fesetround(FE_TOWARDZERO);
    m = std::move(m).resume();
    fiber_seen_2 = std::fegetround();
    fiber_zero = divide(1.0, 10.0);
    return std::move(m);
  }};
  f = std::move(f).resume();
  EXPECT_EQ(std::fegetround(), FE_TONEAREST) << "the fiber's FE_UPWARD leaked into main";
  EXPECT_EQ(divide(1.0, 3.0), third);
  std::fesetround(FE_DOWNWARD);
  const double main_down = divide(1.0, 10.0);
  EXPECT_LT(main_down, tenth);
  f = std::move(f).resume();
  EXPECT_EQ(std::fegetround(), FE_DOWNWARD) << "main's mode was not restored";
  EXPECT_EQ(divide(1.0, 10.0), main_down);
  f = std::move(f).resume();
  EXPECT_TRUE(f.empty());
  EXPECT_EQ(std::fegetround(), FE_DOWNWARD);
  std::fesetround(FE_TONEAREST);

  EXPECT_EQ(fiber_seen_1, FE_UPWARD) << "main's mode leaked into the fiber";
  EXPECT_EQ(fiber_seen_2, FE_TOWARDZERO);
  EXPECT_GT(fiber_up, third);
  EXPECT_LT(fiber_zero, tenth);
}

// A new fiber starts with the FP mode that was current when it was created.
TEST(SwitchState, NewFiberInheritsTheCreatorsFloatingPointMode) {
  std::fesetround(FE_DOWNWARD);
  int seen = -1;
  fiber_context f{[&](fiber_context&& m) {
    seen = std::fegetround();
    return std::move(m);
  }};
  std::fesetround(FE_TONEAREST);
  f = std::move(f).resume();
  EXPECT_EQ(seen, FE_DOWNWARD);
  EXPECT_EQ(std::fegetround(), FE_TONEAREST);
}

bool sp_aligned() { return weft_probe_stack_pointer() % 16 == 0; }

TEST(SwitchState, StackIsSixteenByteAlignedEverywhere) {
  EXPECT_TRUE(sp_aligned());
  bool at_entry = false, after_resume = false, in_injected = false, in_injected_fresh = false;
  fiber_context f{[&](fiber_context&& m) {
    at_entry = sp_aligned();
    m = std::move(m).resume();
    after_resume = sp_aligned();
    return std::move(m);
  }};
  f = std::move(f).resume();
  f = std::move(f).resume_with([&](fiber_context&& c) {
    in_injected = sp_aligned();
    return std::move(c);
  });
  EXPECT_TRUE(f.empty());
  fiber_context g{[](fiber_context&& m) { return std::move(m); }};
  g = std::move(g).resume_with([&](fiber_context&& c) {
    in_injected_fresh = sp_aligned();
    return std::move(c);
  });
  EXPECT_TRUE(g.empty());
  EXPECT_TRUE(at_entry);
  EXPECT_TRUE(after_resume);
  EXPECT_TRUE(in_injected);
  EXPECT_TRUE(in_injected_fresh);
}

// The C library on a fiber stack: varargs with doubles (SSE spills need alignment),
// long double (x87 on x86_64), libm, locale-aware iostreams.
std::string format_and_compute() {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%.6f|%e|%Lg|%s|%d|%g|%g|%g", 3.14159265358979, 1e-300, 2.5L, "text", 42,
                std::sin(0.5), std::exp(1.0), std::pow(2.0, 0.5));
  std::ostringstream os;
  os << buf << "|" << std::hypot(3.0, 4.0) << "|" << std::lgamma(5.5) << "|" << std::cbrt(27.0L);
  return os.str();
}

TEST(SwitchState, PrintfAndLibmWorkOnFiberStacks) {
  const std::string expected = format_and_compute();
  std::string on_fiber;
  fiber_context f{[&](fiber_context&& m) {
    on_fiber = format_and_compute();
    std::printf("[fiber] %s\n", on_fiber.c_str());
    std::fflush(stdout);
    return std::move(m);
  }};
  f = std::move(f).resume();
  EXPECT_EQ(on_fiber, expected);
}

}  // namespace
}  // namespace weft
