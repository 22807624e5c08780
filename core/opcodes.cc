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

// Text lookup table: "i32.add" -> I32Add.
const std::unordered_map<std::string_view, Opcode>& opcodes_by_text() {
  static const std::unordered_map<std::string_view, Opcode> map = [] {
    std::unordered_map<std::string_view, Opcode> m;
    for (const OpcodeInfo& info : kInfos) m.emplace(info.text, info.opcode);  // first wins: Select before SelectT
    return m;
  }();
  return map;
}

}  // namespace

std::optional<Opcode> opcode_from_text(std::string_view text) {
  const auto& m = opcodes_by_text();
  auto it = m.find(text);
  if (it == m.end()) return std::nullopt;
  return it->second;
}

}  // namespace weft
