#include "core/opcodes.h"

#include <gtest/gtest.h>

namespace weft {
namespace {

TEST(Opcodes, BinaryAndTextLookupsAgree) {
  for (uint32_t i = 0; i < kOpcodeCount; ++i) {
    const OpcodeInfo& info = opcode_info(Opcode(i));
    std::optional<Opcode> back = info.prefix == 0 ? opcode_from_byte(uint8_t(info.code))
                                                  : opcode_from_prefixed(info.prefix, info.code);
    ASSERT_TRUE(back.has_value()) << info.text;
    EXPECT_EQ(*back, Opcode(i)) << info.text;
    if (Opcode(i) != Opcode::SelectT) {
      EXPECT_EQ(opcode_from_text(info.text), Opcode(i)) << info.text;
    }
  }
}

TEST(Opcodes, KnownEntries) {
  EXPECT_EQ(opcode_from_byte(0x6A), Opcode::I32Add);
  EXPECT_EQ(opcode_info(Opcode::I32Add).text, "i32.add");
  EXPECT_EQ(opcode_info(Opcode::I64Load32U).mem_bytes, 4);
  EXPECT_EQ(opcode_from_prefixed(0xFC, 17), Opcode::TableFill);
  EXPECT_EQ(opcode_from_prefixed(0xFD, 0xFF), Opcode::F64x2ConvertLowI32x4U);
  EXPECT_FALSE(opcode_from_byte(0x06).has_value());
  EXPECT_FALSE(opcode_from_prefixed(0xFD, 0x9A).has_value());
  EXPECT_EQ(opcode_from_text("select"), Opcode::Select);
}

}  // namespace
}  // namespace weft
