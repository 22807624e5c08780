// fiber_context semantics: the P0876R14 examples, emptiness rules, termination and resume_with injection.
#include "fibers/fiber_context.h"

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace weft {
namespace {

// P0876 "synthesizing the suspended fiber" + the generator pattern: a fiber that
// yields Fibonacci numbers by resuming the (synthesized) main fiber.
TEST(FiberContext, GeneratorViaResume) {
  int a = 0;
  bool stop = false;
  fiber_context generator{[&](fiber_context&& main) {
    a = 0;
    int b = 1;
    while (!stop) {
      main = std::move(main).resume();
      const int next = a + b;
      a = b;
      b = next;
    }
    return std::move(main);
  }};
  std::vector<int> values;
  for (int i = 0; i < 10; ++i) {
    generator = std::move(generator).resume();
    ASSERT_FALSE(generator.empty());
    values.push_back(a);
  }
  EXPECT_EQ(values, (std::vector<int>{0, 1, 1, 2, 3, 5, 8, 13, 21, 34}));
  stop = true;
  generator = std::move(generator).resume();
  EXPECT_TRUE(generator.empty());  // it finished by returning main
}

// P0876 "synthesizing the suspended fiber": resume() empties the instance it is
// called on and returns the synthesized context of whoever resumes us.
TEST(FiberContext, SynthesizedContextsPingPong) {
  std::string trace;
  fiber_context f{[&](fiber_context&& m) {
    trace += "a";
    m = std::move(m).resume();
    trace += "b";
    m = std::move(m).resume();
    trace += "c";
    return std::move(m);
  }};
  f = std::move(f).resume();
  trace += "1";
  f = std::move(f).resume();
  trace += "2";
  fiber_context moved = std::move(f);
  EXPECT_TRUE(f.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
  moved = std::move(moved).resume();
  EXPECT_TRUE(moved.empty());
  EXPECT_EQ(trace, "a1b2c");
}

// P0876 "returning synthesized fiber_context instance from resume()": the circle
// f1 -> f2 -> f3 -> f1 keeps every fiber's identity by assigning each returned
// context to the right variable. Then each fiber in turn finishes by returning the
// next one, so all three end and control comes back to main.
TEST(FiberContext, CircleOfThreeKeepsIdentity) {
  fiber_context m, f1, f2, f3;
  std::string out;
  int rounds = 0;
  bool stop = false;
  f3 = fiber_context{[&](fiber_context&& f) -> fiber_context {
    f2 = std::move(f);
    for (;;) {
      out += "f3 ";
      if (++rounds == 4) stop = true;
      f2 = std::move(f1).resume();
      if (stop) break;
    }
    EXPECT_TRUE(f2.empty());  // f2 finished by returning us
    return std::move(m);
  }};
  f2 = fiber_context{[&](fiber_context&& f) -> fiber_context {
    f1 = std::move(f);
    for (;;) {
      out += "f2 ";
      f1 = std::move(f3).resume();
      if (stop) break;
    }
    EXPECT_TRUE(f1.empty());  // f1 finished by returning us
    return std::move(f3);
  }};
  f1 = fiber_context{[&](fiber_context&& f) -> fiber_context {
    m = std::move(f);
    for (;;) {
      out += "f1 ";
      f3 = std::move(f2).resume();
      if (stop) break;
    }
    return std::move(f2);
  }};
  fiber_context back = std::move(f1).resume();
  EXPECT_TRUE(back.empty());  // f3 finished by returning m
  EXPECT_EQ(out, "f1 f2 f3 f1 f2 f3 f1 f2 f3 f1 f2 f3 ");
  EXPECT_TRUE(m.empty() && f1.empty() && f2.empty() && f3.empty());
}

// P0876 "fiber returns (terminates)": f2 ends by returning f1, which is entered
// for the first time with an empty context (its predecessor is gone), and ends
// by returning the main fiber that f2 saved.
TEST(FiberContext, TerminationByReturningAnotherContext) {
  std::string out;
  fiber_context m;
  fiber_context f1{[&](fiber_context&& f) {
    out += "f1: entered first time\n";
    EXPECT_FALSE(f);
    return std::move(m);
  }};
  fiber_context f2{[&](fiber_context&& f) {
    out += "f2: entered first time\n";
    m = std::move(f);
    return std::move(f1);
  }};
  fiber_context result = std::move(f2).resume();
  out += "main: done\n";
  EXPECT_TRUE(result.empty());
  EXPECT_TRUE(f1.empty() && f2.empty() && m.empty());
  EXPECT_EQ(out, "f2: entered first time\nf1: entered first time\nmain: done\n");
}

TEST(FiberContext, ReturningTheCallerEndsTheFiber) {
  fiber_context f{[](fiber_context&& m) { return std::move(m); }};
  EXPECT_FALSE(f.empty());
  f = std::move(f).resume();
  EXPECT_TRUE(f.empty());
}

// P0876 "inject function into suspended fiber", with its exact expected output.
TEST(FiberContext, ResumeWithInjectsIntoSuspendedFiber) {
  int data = 0;
  std::string out;
  fiber_context f{[&](fiber_context&& m) {
    out += "f1: entered first time: " + std::to_string(data) + "\n";
    data += 1;
    m = std::move(m).resume();
    out += "f1: entered second time: " + std::to_string(data) + "\n";
    data += 1;
    m = std::move(m).resume();
    out += "f1: entered third time: " + std::to_string(data) + "\n";
    return std::move(m);
  }};
  f = std::move(f).resume();
  out += "f1: returned first time: " + std::to_string(data) + "\n";
  data += 1;
  f = std::move(f).resume();
  out += "f1: returned second time: " + std::to_string(data) + "\n";
  data += 1;
  f = std::move(f).resume_with([&](fiber_context&& m) {
    out += "f2: entered: " + std::to_string(data) + "\n";
    data = -1;
    return std::move(m);
  });
  out += "f1: returned third time\n";
  EXPECT_TRUE(f.empty());
  EXPECT_EQ(out,
            "f1: entered first time: 0\n"
            "f1: returned first time: 1\n"
            "f1: entered second time: 2\n"
            "f1: returned second time: 3\n"
            "f2: entered: 4\n"
            "f1: entered third time: -1\n"
            "f1: returned third time\n");
}

// P0876: resume_with() on a fiber that never ran calls the injected function
// first; what it returns is the entry function's argument.
TEST(FiberContext, ResumeWithOnNeverStartedFiber) {
  std::string trace;
  fiber_context saved_caller;
  fiber_context f{[&](fiber_context&& prev) {
    trace += "top;";
    EXPECT_FALSE(prev.empty());  // the caller, handed over by the injected function
    return std::move(prev);
  }};
  fiber_context back = std::move(f).resume_with([&](fiber_context&& caller) {
    trace += "injected;";
    EXPECT_FALSE(caller.empty());
    return std::move(caller);
  });
  EXPECT_TRUE(back.empty());
  EXPECT_EQ(trace, "injected;top;");
  // An injected function may also keep the caller and hand the entry nothing.
  trace.clear();
  fiber_context g{[&](fiber_context&& prev) {
    trace += prev.empty() ? "top got empty;" : "top got caller;";
    return std::move(saved_caller);
  }};
  back = std::move(g).resume_with([&](fiber_context&& caller) {
    saved_caller = std::move(caller);
    return fiber_context{};
  });
  EXPECT_TRUE(back.empty());
  EXPECT_EQ(trace, "top got empty;");
}

// The P0876 "filament" pattern: the injected function files the suspended caller
// away, so control flow need not be known statically.
TEST(FiberContext, ResumeWithFilamentPattern) {
  struct Filament {
    fiber_context f;
    void resume_next(Filament& next) {
      fiber_context ignored = std::move(next.f).resume_with([this](fiber_context&& caller) {
        f = std::move(caller);
        return fiber_context{};
      });
      EXPECT_TRUE(ignored.empty());
    }
  };
  Filament main_fil, a, b;
  std::string out;
  bool done = false;
  a.f = fiber_context{[&](fiber_context&& prev) {
    EXPECT_TRUE(prev.empty());  // the injected function kept the caller
    for (int i = 0; i < 3; ++i) {
      out += "a";
      a.resume_next(b);
    }
    done = true;
    a.resume_next(b);  // b sees `done` and finishes, handing control to main
    out += "A";        // main resumed us once more so we can finish too
    return std::move(main_fil.f);
  }};
  b.f = fiber_context{[&](fiber_context&& prev) {
    EXPECT_TRUE(prev.empty());
    while (!done) {
      out += "b";
      b.resume_next(a);
    }
    out += "B";
    return std::move(main_fil.f);
  }};
  main_fil.resume_next(a);
  EXPECT_EQ(out, "abababB");
  EXPECT_FALSE(a.f.empty());
  EXPECT_TRUE(b.f.empty());
  main_fil.resume_next(a);
  EXPECT_EQ(out, "abababBA");
  EXPECT_TRUE(a.f.empty() && b.f.empty() && main_fil.f.empty());
}

TEST(FiberContext, ResumeWithExceptionPropagatesIntoTheTarget) {
  fiber_context saved;
  std::string trace;
  fiber_context f{[&](fiber_context&& m) {
    try {
      m = std::move(m).resume();
      trace += "not reached;";
    } catch (const std::runtime_error& e) {
      trace += std::string("caught ") + e.what() + ";";
    }
    return std::move(saved);
  }};
  f = std::move(f).resume();
  fiber_context back = std::move(f).resume_with([&](fiber_context&& caller) -> fiber_context {
    saved = std::move(caller);
    throw std::runtime_error("injected");
  });
  EXPECT_TRUE(back.empty());
  EXPECT_EQ(trace, "caught injected;");
}

TEST(FiberContext, EmptyAndMovedFromRules) {
  fiber_context empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_FALSE(empty);
  EXPECT_FALSE(empty.can_resume());

  fiber_context f{[](fiber_context&& m) { return std::move(m); }};
  EXPECT_FALSE(f.empty());
  EXPECT_TRUE(static_cast<bool>(f));
  EXPECT_TRUE(f.can_resume());

  fiber_context g = std::move(f);
  EXPECT_TRUE(f.empty());  // NOLINT(bugprone-use-after-move)
  EXPECT_FALSE(g.empty());

  fiber_context h;
  h = std::move(g);
  EXPECT_TRUE(g.empty());  // NOLINT(bugprone-use-after-move)

  swap(h, empty);
  EXPECT_TRUE(h.empty());
  EXPECT_FALSE(empty.empty());
  empty.swap(h);
  EXPECT_FALSE(h.empty());

  fiber_context done = std::move(h).resume();
  EXPECT_TRUE(h.empty());  // resume() empties the instance it is called on
  EXPECT_TRUE(done.empty());

  static_assert(!std::is_copy_constructible_v<fiber_context>);
  static_assert(!std::is_copy_assignable_v<fiber_context>);
  static_assert(std::is_nothrow_move_constructible_v<fiber_context>);
  static_assert(sizeof(fiber_context) == sizeof(void*));
}

// "main as a fiber": the synthesized main context is an ordinary value that can be
// stored in a container and resumed from any fiber.
TEST(FiberContext, MainIsAFiberLikeAnyOther) {
  std::vector<fiber_context> parked;
  std::vector<int> order;
  fiber_context worker{[&](fiber_context&& main) {
    parked.push_back(std::move(main));
    order.push_back(1);
    fiber_context main_again = std::move(parked.back()).resume();
    parked.pop_back();
    order.push_back(3);
    return main_again;
  }};
  fiber_context back = std::move(worker).resume();
  ASSERT_FALSE(back.empty());
  order.push_back(2);
  back = std::move(back).resume();
  EXPECT_TRUE(back.empty());
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
}

TEST(FiberContext, NestedFibersAndDeepRecursion) {
  std::function<int(int)> depth = [&](int n) -> int {
    if (n == 0) return 0;
    volatile char pad[128] = {};
    return depth(n - 1) + 1 + pad[0];
  };
  int inner_result = 0;
  fiber_context outer{[&](fiber_context&& main) {
    fiber_context inner{[&](fiber_context&& outer_ctx) {
      inner_result = depth(200);
      return std::move(outer_ctx);
    }};
    inner = std::move(inner).resume();
    EXPECT_TRUE(inner.empty());
    return std::move(main);
  }};
  outer = std::move(outer).resume();
  EXPECT_TRUE(outer.empty());
  EXPECT_EQ(inner_result, 200);
}

TEST(FiberContext, ExplicitStackAndDeleter) {
  alignas(64) static std::array<std::byte, 64 * 1024> buffer;
  int deleter_calls = 0;
  std::span<std::byte> deleted;
  const std::byte* entry_local = nullptr;
  const std::byte* deleter_local = nullptr;
  fiber_context f{[&](fiber_context&& m) {
                    std::byte local{};
                    entry_local = &local;
                    return std::move(m);
                  },
                  std::span<std::byte>(buffer),
                  [&](std::span<std::byte> stack) {
                    std::byte local{};
                    deleter_local = &local;
                    ++deleter_calls;
                    deleted = stack;
                  }};
  EXPECT_EQ(deleter_calls, 0);
  f = std::move(f).resume();
  EXPECT_TRUE(f.empty());
  EXPECT_EQ(deleter_calls, 1);
  EXPECT_EQ(deleted.data(), buffer.data());
  EXPECT_EQ(deleted.size(), buffer.size());
  // The entry ran on the given stack; the deleter ran elsewhere (on main's stack).
  EXPECT_GE(entry_local, buffer.data());
  EXPECT_LT(entry_local, buffer.data() + buffer.size());
  EXPECT_TRUE(deleter_local < buffer.data() || deleter_local >= buffer.data() + buffer.size());
}

TEST(FiberContext, EntryAndDeleterAreDestroyedExactlyOnce) {
  auto token = std::make_shared<int>(0);
  std::weak_ptr<int> watch = token;
  alignas(16) static std::array<std::byte, 16 * 1024> buffer;
  bool entry_alive_in_deleter = true;
  {
    fiber_context f{[token = std::move(token)](fiber_context&& m) { return std::move(m); },
                    std::span<std::byte>(buffer),
                    [&, watch](std::span<std::byte>) { entry_alive_in_deleter = !watch.expired(); }};
    EXPECT_FALSE(watch.expired());  // the entry's copy holds the token
    f = std::move(f).resume();
  }
  EXPECT_FALSE(entry_alive_in_deleter);  // entry destroyed on its fiber before the stack goes
  EXPECT_TRUE(watch.expired());
}

TEST(FiberContext, MoveOnlyEntryFunction) {
  auto value = std::make_unique<int>(42);
  int seen = 0;
  fiber_context f{[value = std::move(value), &seen](fiber_context&& m) {
    seen = *value;
    return std::move(m);
  }};
  f = std::move(f).resume();
  EXPECT_EQ(seen, 42);
}

TEST(FiberContext, StackTooSmallThrowsLengthError) {
  alignas(16) static std::array<std::byte, 64> tiny;
  EXPECT_THROW(fiber_context([](fiber_context&& m) { return std::move(m); }, std::span<std::byte>(tiny),
                             [](std::span<std::byte>) {}),
               std::length_error);
}

// --- rules whose violation calls std::terminate -------------------------------

class FiberContextDeathTest : public ::testing::Test {
 protected:
  // Fork without re-exec: works under qemu-user, which cannot re-exec a foreign binary.
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "fast"); }
};

TEST_F(FiberContextDeathTest, DestroyingANonEmptyContextTerminates) {
  EXPECT_DEATH(
      {
        fiber_context f{[](fiber_context&& m) { return std::move(m); }};
      },
      "");
}

TEST_F(FiberContextDeathTest, AssigningOverANonEmptyContextTerminates) {
  EXPECT_DEATH(
      {
        fiber_context f{[](fiber_context&& m) { return std::move(m); }};
        fiber_context g{[](fiber_context&& m) { return std::move(m); }};
        f = std::move(g);
      },
      "");
}

TEST_F(FiberContextDeathTest, ReturningAnEmptyContextTerminates) {
  EXPECT_DEATH(
      {
        fiber_context f{[](fiber_context&&) { return fiber_context{}; }};
        f = std::move(f).resume();
      },
      "");
}

TEST_F(FiberContextDeathTest, ExceptionEscapingTheEntryTerminates) {
  EXPECT_DEATH(
      {
        fiber_context f{[](fiber_context&&) -> fiber_context { throw std::runtime_error("escaped"); }};
        f = std::move(f).resume();
      },
      "");
}

TEST_F(FiberContextDeathTest, ExceptionFromInjectionIntoFreshFiberTerminates) {
  // Nothing on a fresh fiber can catch it: it would escape the (not yet entered) entry.
  EXPECT_DEATH(
      {
        fiber_context keep;
        fiber_context f{[](fiber_context&& m) { return std::move(m); }};
        f = std::move(f).resume_with([&](fiber_context&& caller) -> fiber_context {
          keep = std::move(caller);
          throw std::runtime_error("injected");
        });
      },
      "");
}

}  // namespace
}  // namespace weft
