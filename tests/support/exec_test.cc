// Which tiers the exec suites run on (tests/support/exec_test.h).
#include "tests/support/exec_test.h"

namespace weft {
void PrintTo(Tier tier, std::ostream* os) { *os << test::tier_name(tier); }
}  // namespace weft

namespace weft::test {

bool jit_available() {
  // Asked through the public API: a store falls back to the interpreter when
  // the build has no JIT or the CPU cannot run its code (api/store.cc).
  static const bool available = [] {
    Engine engine(tier_config(Tier::Jit));
    Store store(engine);
    return store.tier_stats().tier == Tier::Jit;
  }();
  return available;
}

const std::vector<Tier>& available_tiers() {
  static const std::vector<Tier> tiers = [] {
    std::vector<Tier> t{Tier::Interpreter};
    if (jit_available()) t.push_back(Tier::Jit);
    return t;
  }();
  return tiers;
}

const char* tier_name(Tier tier) { return tier == Tier::Jit ? "Jit" : "Interpreter"; }
const char* tier_cli_name(Tier tier) { return tier == Tier::Jit ? "jit" : "interp"; }

Config tier_config(Tier tier) {
  Config config;
  config.tier = tier;
  return config;
}

std::string with_tier(const std::string& args, Tier tier) {
  if (args.find("--tier") != std::string::npos) return args;
  for (const std::string subcommand : {"run ", "wast "}) {
    if (args.rfind(subcommand, 0) == 0)
      return subcommand + "--tier=" + tier_cli_name(tier) + " " + args.substr(subcommand.size());
  }
  return args;
}

}  // namespace weft::test
