// The fiber-program mode of jit_differential in a build without the fiber
// program generator (fuzz/CMakeLists.txt did not find LLVM's
// fuzzer/FuzzedDataProvider.h, from the clang package): says so and fails.
#include <cstdio>

#include "tests/jit/differential.h"

namespace weft::differential {

int fiber_main(const std::vector<std::string>&) {
  std::fprintf(stderr,
               "jit_differential: built without the fiber program generator (fuzz/fiber_program.cc needs "
               "fuzzer/FuzzedDataProvider.h from clang); install clang and reconfigure\n");
  return 2;
}

}  // namespace weft::differential
