// Multi-memory for the differential (`jit_differential --two-memories`):
// Binaryen 108 cannot generate multi-memory modules, so a generated module
// with one memory is rewritten to have two of the same type, memory 1 starting
// with memory 0's active data, and every memory instruction moved to memory 1
// or left on memory 0 by a seeded coin (memory.copy's two sides each), so
// that code mixes both memories instruction by instruction. Both tiers run
// the same rewritten module; memory 1 is exported so its final contents are
// compared too.
#include "tests/jit/two_memories.h"

#include <random>

#include "binary/decoder.h"
#include "binary/writer.h"
#include "core/instruction_reader.h"
#include "core/leb128.h"
#include "core/module.h"

namespace weft::differential {

namespace {

void write_opcode(const OpcodeInfo& info, std::vector<uint8_t>& out) {
  if (info.prefix != 0) {
    out.push_back(info.prefix);
    write_leb_u32(out, info.code);
  } else {
    out.push_back(uint8_t(info.code));
  }
}

// The body with each memory instruction re-encoded on the memory the coin picks.
Result<std::vector<uint8_t>> respread(std::span<const uint8_t> body, std::mt19937_64& rng, uint32_t& moved) {
  std::vector<uint8_t> out;
  out.reserve(body.size() + body.size() / 8);
  InstructionReader reader(body);
  Instruction in;
  while (!reader.at_end()) {
    const size_t start = reader.pos();
    if (!reader.next(in)) return make_error(ErrorKind::Malformed, std::string("two-memories: ") + reader.error());
    const OpcodeInfo& info = opcode_info(in.op);
    const ImmKind kind = info.immediate;
    const bool memory_instruction = kind == ImmKind::Memarg || kind == ImmKind::MemargLane ||
                                    kind == ImmKind::MemIdx || kind == ImmKind::MemoryInit ||
                                    kind == ImmKind::MemoryCopy;
    if (!memory_instruction) {
      out.insert(out.end(), body.begin() + start, body.begin() + reader.pos());
      continue;
    }
    const uint32_t memory = uint32_t(rng() & 1), memory2 = uint32_t(rng() & 1);
    moved += memory + (kind == ImmKind::MemoryCopy ? memory2 : 0);
    write_opcode(info, out);
    switch (kind) {
      case ImmKind::Memarg:
      case ImmKind::MemargLane:
        if (memory != 0) {
          write_leb_u32(out, in.align | 0x40);
          write_leb_u32(out, memory);
        } else {
          write_leb_u32(out, in.align);
        }
        write_leb_u64(out, in.mem_offset);
        if (kind == ImmKind::MemargLane) out.push_back(in.lane);
        break;
      case ImmKind::MemIdx: write_leb_u32(out, memory); break;
      case ImmKind::MemoryInit:
        write_leb_u32(out, in.index);
        write_leb_u32(out, memory);
        break;
      default:  // MemoryCopy
        write_leb_u32(out, memory);
        write_leb_u32(out, memory2);
        break;
    }
  }
  return out;
}

}  // namespace

Result<std::vector<uint8_t>> spread_over_two_memories(std::span<const uint8_t> wasm, uint64_t seed, uint32_t& moved) {
  moved = 0;
  WEFT_TRY_ASSIGN(Module m, binary::decode_module(wasm));
  // Only a module that defines exactly one memory: an imported one would need a second import.
  if (m.memories.size() != 1 || m.num_imported_memories() != 0) return std::vector<uint8_t>(wasm.begin(), wasm.end());
  m.memories.push_back(m.memories[0]);
  // Memory 1 starts as memory 0 does: its active segments again, appended so
  // that the data indices memory.init and data.drop use stay what they were.
  const size_t num_datas = m.datas.size();
  for (size_t i = 0; i < num_datas; ++i) {
    if (m.datas[i].mode != SegmentMode::Active) continue;
    DataSegment copy = m.datas[i];
    copy.memory = 1;
    m.datas.push_back(std::move(copy));
  }
  if (m.data_count) m.data_count = uint32_t(m.datas.size());
  m.exports.push_back({"two-memories: memory 1", ExternKind::Memory, 1});
  std::mt19937_64 rng(seed);
  for (Function& f : m.functions) {
    WEFT_TRY_ASSIGN(std::vector<uint8_t> body, respread(f.body, rng, moved));
    f.body = std::move(body);
  }
  return binary::write_module(m);
}

}  // namespace weft::differential
