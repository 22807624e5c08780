#include "core/leb128.h"

#include <gtest/gtest.h>

namespace weft {
namespace {

TEST(Leb128, RoundTripsUnsignedAndSigned) {
  for (uint64_t v : {0ull, 1ull, 127ull, 128ull, 624485ull, 0xFFFFFFFFull, 0xFFFFFFFFFFFFFFFFull}) {
    std::vector<uint8_t> buf;
    write_leb_u64(buf, v);
    size_t pos = 0;
    uint64_t out = 0;
    ASSERT_EQ(read_leb_u64(buf.data(), buf.size(), pos, out), LebError::None);
    EXPECT_EQ(out, v);
    EXPECT_EQ(pos, buf.size());
  }
  for (int64_t v : std::initializer_list<int64_t>{0, -1, 63, 64, -64, -65, -123456, INT64_MIN, INT64_MAX}) {
    std::vector<uint8_t> buf;
    write_leb_s64(buf, v);
    size_t pos = 0;
    int64_t out = 0;
    ASSERT_EQ(read_leb_s64(buf.data(), buf.size(), pos, out), LebError::None);
    EXPECT_EQ(out, v);
  }
}

TEST(Leb128, RejectsOverlongAndOversized) {
  size_t pos = 0;
  uint32_t u = 0;
  const uint8_t too_long[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
  EXPECT_EQ(read_leb_u32(too_long, sizeof too_long, pos, u), LebError::TooLong);
  pos = 0;
  const uint8_t too_large[] = {0xFF, 0xFF, 0xFF, 0xFF, 0x1F};
  EXPECT_EQ(read_leb_u32(too_large, sizeof too_large, pos, u), LebError::TooLarge);
  pos = 0;
  const uint8_t max_u32[] = {0xFF, 0xFF, 0xFF, 0xFF, 0x0F};
  EXPECT_EQ(read_leb_u32(max_u32, sizeof max_u32, pos, u), LebError::None);
  EXPECT_EQ(u, 0xFFFFFFFFu);
  // s32: the last byte's unused bits must repeat the sign bit.
  int32_t s = 0;
  pos = 0;
  const uint8_t neg_ok[] = {0x80, 0x80, 0x80, 0x80, 0x78};
  EXPECT_EQ(read_leb_s32(neg_ok, sizeof neg_ok, pos, s), LebError::None);
  EXPECT_EQ(s, INT32_MIN);
  pos = 0;
  const uint8_t neg_bad[] = {0x80, 0x80, 0x80, 0x80, 0x70};
  EXPECT_EQ(read_leb_s32(neg_bad, sizeof neg_bad, pos, s), LebError::TooLarge);
  pos = 0;
  const uint8_t truncated[] = {0x80};
  EXPECT_EQ(read_leb_s32(truncated, sizeof truncated, pos, s), LebError::UnexpectedEnd);
}

}  // namespace
}  // namespace weft
