// Static opcode information and lookups, all expanded from opcodes.def.
#include "core/opcodes.h"

#include <array>
#include <string>
#include <unordered_map>

namespace weft {

namespace {

constexpr SigType I32 = SigType::I32, I64 = SigType::I64, F32 = SigType::F32, F64 = SigType::F64,
                  V128 = SigType::V128, X = SigType::Special, _ = SigType::None;

}  // namespace

constexpr OpcodeInfo detail::kOpcodeInfos[kOpcodeCount] = {
#define WEFT_OPCODE(name, prefix, code, text, imm, mem, r, a, b, c) \
  {Opcode::name, prefix, code, text, ImmKind::imm, mem, r, {a, b, c}},
#include "core/opcodes.def"
};

namespace {

constexpr const OpcodeInfo (&kInfos)[kOpcodeCount] = detail::kOpcodeInfos;

constexpr std::array<int16_t, 256> single_byte_table() {
  std::array<int16_t, 256> t{};
  t.fill(-1);
  for (const OpcodeInfo& info : kInfos)
    if (info.prefix == 0) t[info.code] = int16_t(info.opcode);
  return t;
}

struct Tables {
  std::array<int16_t, 256> single{};
  std::array<int16_t, 256> fc{};
  std::array<int16_t, 256> fd{};
  std::array<int16_t, 256> fa{};
  std::unordered_map<std::string_view, Opcode> by_text;
  Tables() {
    single.fill(-1); fc.fill(-1); fd.fill(-1); fa.fill(-1);
    for (const OpcodeInfo& info : kInfos) {
      int16_t idx = int16_t(info.opcode);
      if (info.prefix == 0) single[info.code] = idx;
      else if (info.prefix == 0xFC) fc[info.code] = idx;
      else if (info.prefix == 0xFD) fd[info.code] = idx;
      else if (info.prefix == 0xFA) fa[info.code] = idx;
      by_text.emplace(info.text, info.opcode);  // first wins: Select before SelectT
    }
  }
};

const Tables& tables() {
  static const Tables t;
  return t;
}

}  // namespace

constexpr std::array<int16_t, 256> detail::kOpcodeBySingleByte = single_byte_table();

std::optional<Opcode> opcode_from_prefixed(uint8_t prefix, uint32_t code) {
  if (code > 255) return std::nullopt;
  int16_t idx = -1;
  if (prefix == 0xFC) idx = tables().fc[code];
  else if (prefix == 0xFD) idx = tables().fd[code];
  else if (prefix == 0xFA) idx = tables().fa[code];
  if (idx < 0) return std::nullopt;
  return Opcode(idx);
}

std::optional<Opcode> opcode_from_text(std::string_view text) {
  const auto& m = tables().by_text;
  auto it = m.find(text);
  if (it == m.end()) return std::nullopt;
  return it->second;
}

}  // namespace weft
