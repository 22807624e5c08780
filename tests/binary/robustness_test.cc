// Deterministic mutation testing of the decoder: mutated modules must be
// rejected or decode, never crash, and whatever decodes must round-trip.
#include <gtest/gtest.h>

#include <cstdlib>

#include "tests/binary/test_util.h"

namespace weft::binary::test {
namespace {

// Seeds covering every section kind and many instruction forms.
std::vector<Bytes> seeds() {
  const Bytes offset = {0x41, 0x00, 0x0B};
  Bytes v128 = {0xFD, 0x0C};
  v128.resize(18, 0x01);
  const Bytes code = cat({{0x02, 0x40, 0x41, 0x01, 0x04, 0x7F, 0x41, 0x02, 0x05, 0x41, 0x03, 0x0B, 0x1A, 0x0B},
                          {0x03, 0x40, 0x41, 0x00, 0x0D, 0x00, 0x0B},
                          {0x41, 0x00, 0x28, 0x02, 0x10, 0x1A, 0x41, 0x00, 0x0E, 0x01, 0x00, 0x00},
                          {0x42, 0xFF, 0x7F, 0x1A, 0x43, 0, 0, 0x80, 0x3F, 0x1A, 0x44, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F, 0x1A},
                          {0x3F, 0x00, 0x40, 0x00, 0x1A, 0xD0, 0x70, 0x1A, 0xD2, 0x00, 0x1A},
                          {0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0xFC, 0x08, 0x00, 0x00},
                          {0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0xFC, 0x0A, 0x00, 0x00, 0xFC, 0x09, 0x00},
                          {0x41, 0x00, 0x11, 0x00, 0x00, 0x1A},
                          v128, {0xFD, 0x15, 0x03, 0x1A},
                          {0x41, 0x00, 0x41, 0x00, 0x41, 0x00, 0x1C, 0x01, 0x7F, 0x1A, 0x0B}});
  const Bytes full = module_bytes({
      section(0, cat({str("first"), {1, 2, 3}})),
      section(1, {0x02, 0x60, 0x00, 0x00, 0x60, 0x02, 0x7F, 0x7E, 0x01, 0x7F}),
      section(2, cat({{0x02}, str("env"), str("f"), {0x00, 0x01}, str("env"), str("g"), {0x03, 0x7F, 0x00}})),
      section(3, {0x02, 0x00, 0x01}),
      section(4, {0x01, 0x70, 0x01, 0x01, 0x02}),
      section(5, {0x01, 0x01, 0x01, 0x02}),
      section(13, {0x01, 0x00, 0x00}),
      section(6, {0x01, 0x7F, 0x01, 0x41, 0x07, 0x0B}),
      section(7, cat({{0x02}, str("main"), {0x00, 0x01}, str("mem"), {0x02, 0x00}})),
      section(8, {0x01}),
      section(9, cat({{0x03, 0x00}, offset, {0x01, 0x01, 0x05, 0x70, 0x01, 0xD0, 0x70, 0x0B, 0x03, 0x00, 0x01, 0x02}})),
      section(12, {0x02}),
      section(10, cat({{0x02}, body(code, {0x01, 0x02, 0x7F}), body({0x20, 0x00, 0x0B})})),
      section(11, cat({{0x02, 0x00}, offset, {0x02, 'h', 'i', 0x01, 0x01, 0x00}})),
      section(0, cat({str("name"), section(0, str("m")), section(1, cat({{0x01, 0x01}, str("main")}))})),
  });
  return {full, func_module({0x0B}), module_bytes({section(0, str("x"))})};
}

TEST(DecodeRobustness, MutatedModules) {
  const std::vector<Bytes> inputs = seeds();
  for (const Bytes& seed : inputs) ASSERT_TRUE(RoundTrips(Decoded(seed)));

  uint64_t state = 0x9E3779B97F4A7C15ull;
  auto next = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  int decoded = 0, rejected = 0;
  const char* env = std::getenv("WEFT_MUTATIONS");  // more iterations for a local soak run
  const int iterations = env ? std::atoi(env) : 20000;
  for (int iter = 0; iter < iterations; ++iter) {
    Bytes b = inputs[next() % inputs.size()];
    const int mutations = 1 + int(next() % 4);
    for (int m = 0; m < mutations && !b.empty(); ++m) {
      const size_t at = 8 + next() % (b.size() > 8 ? b.size() - 8 : 1);
      switch (next() % 5) {
        case 0: if (at < b.size()) b[at] = uint8_t(next()); break;                        // replace
        case 1: if (at < b.size()) b[at] ^= uint8_t(1u << (next() % 8)); break;           // flip a bit
        case 2: b.insert(b.begin() + long(std::min(at, b.size())), uint8_t(next())); break;  // insert
        case 3: if (at < b.size()) b.erase(b.begin() + long(at)); break;                 // delete
        case 4: b.resize(std::min(b.size(), at)); break;                                 // truncate
      }
    }
    Result<Module> r = decode_module(b);
    if (!r.ok()) {
      ++rejected;
      ASSERT_EQ(r.error().kind, ErrorKind::Malformed);
      ASSERT_LE(r.error().location.offset, b.size());
      continue;
    }
    ++decoded;
    ASSERT_TRUE(RoundTrips(*r)) << "iteration " << iter;
  }
  std::printf("mutations: %d decoded and round-tripped, %d rejected\n", decoded, rejected);
  EXPECT_GT(decoded, 0);
  EXPECT_GT(rejected, 0);
}

}  // namespace
}  // namespace weft::binary::test
