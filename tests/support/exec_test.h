// One test body for every tier (V8's WASM_EXEC_TEST): a suite declared with
// WEFT_EXEC_SUITE(Suite) is a gtest value-parameterised suite instantiated for
// each tier this build and machine run — the interpreter always, the JIT where
// a store asked for it gets it — and WEFT_EXEC_TEST(Suite, Name) is one test
// body run on each. Test names end in the tier: Exec/Suite.Name/Interpreter,
// Exec/Suite.Name/Jit.
#pragma once

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "weft/weft.h"

namespace weft {
// How gtest prints a test's parameter ("GetParam() = Jit").
void PrintTo(Tier tier, std::ostream* os);
}  // namespace weft

namespace weft::test {

// Interpreter, then Jit when a store configured for the JIT really runs it
// (the JIT is built only on x86-64 with asmjit, and needs the host CPU's support).
const std::vector<Tier>& available_tiers();
bool jit_available();

const char* tier_name(Tier tier);  // "Interpreter", "Jit"
// The tier's name as `weft --tier=` spells it: "interp", "jit".
const char* tier_cli_name(Tier tier);

// A `weft` command line for `tier`: `run …` and `wast …` get --tier=… after
// the subcommand unless they name a tier already; other commands are returned
// as they are.
std::string with_tier(const std::string& args, Tier tier);

// Config{} with `tier` set.
Config tier_config(Tier tier);

// The fixture of every exec suite: GetParam() is the tier under test.
class ExecTest : public ::testing::TestWithParam<Tier> {
 protected:
  Tier tier() const { return GetParam(); }
  // The default configuration on the tier under test.
  Config config() const { return tier_config(tier()); }
  // Every function compiled (or rejected) at instantiation, for tests that
  // count what the JIT compiled; by default it compiles at first calls.
  Config eager_config() const {
    Config c = config();
    c.eager_compilation = true;
    return c;
  }
};

struct TierParamName {
  std::string operator()(const ::testing::TestParamInfo<Tier>& info) const { return tier_name(info.param); }
};

}  // namespace weft::test

// Declares an exec suite (once per suite, before its tests).
#define WEFT_EXEC_SUITE(Suite)                                     \
  class Suite : public ::weft::test::ExecTest {};                  \
  INSTANTIATE_TEST_SUITE_P(Exec, Suite,                            \
                           ::testing::ValuesIn(::weft::test::available_tiers()), \
                           ::weft::test::TierParamName())

// One test body, run on every tier: inside, tier() and config() name the tier.
#define WEFT_EXEC_TEST(Suite, Name) TEST_P(Suite, Name)
