// Multi-memory and memory64 for the differential (`jit_differential
// --two-memories`): Binaryen 108 cannot generate either (its -ttf modules
// have one 32-bit memory even with --enable-memory64), so a generated module
// with one memory is rewritten to have a second of the same size, memory 1
// starting with memory 0's active data, and every memory instruction moved
// to memory 1 or left on memory 0 by a seeded coin (memory.copy's two sides
// each), so that code mixes both memories instruction by instruction. For
// every other module (by the seed) memory 1 is a 64-bit memory: the moved
// instructions get their address operands extended to i64 (through scratch
// locals where the address is not on top) and memory.size/grow's results
// wrapped back, so the module computes what it did and both tiers run
// memory64's paths. Both tiers run the same rewritten module; memory 1 is
// exported so its final contents are compared too.
#include "tests/jit/two_memories.h"

#include <array>
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

void write_plain(Opcode op, std::vector<uint8_t>& out) { write_opcode(opcode_info(op), out); }

// One function's rewrite: its scratch locals are numbered from `first_scratch`
// as they are first needed, one per (operand position, type).
class Spreader {
 public:
  Spreader(std::mt19937_64& rng, bool memory1_is64, uint32_t first_scratch)
      : rng_(rng), memory1_is64_(memory1_is64), first_scratch_(first_scratch) {}

  Result<std::vector<uint8_t>> run(std::span<const uint8_t> body, uint32_t& moved) {
    std::vector<uint8_t> out;
    out.reserve(body.size() + body.size() / 4);
    InstructionReader reader(body);
    Instruction in;
    while (!reader.at_end()) {
      const size_t start = reader.pos();
      if (!reader.next(in)) return make_error(ErrorKind::Malformed, std::string("two-memories: ") + reader.error());
      const OpcodeInfo& info = opcode_info(in.op);
      const ImmKind kind = info.immediate;
      if (!names_memory(kind)) {
        out.insert(out.end(), body.begin() + start, body.begin() + reader.pos());
        continue;
      }
      const uint32_t memory = uint32_t(rng_() & 1), memory2 = uint32_t(rng_() & 1);
      moved += memory + (kind == ImmKind::MemoryCopy ? memory2 : 0);
      widen_operands(info, memory, memory2, out);
      write_instruction(info, in, memory, memory2, out);
      // memory.size/grow of a 64-bit memory give an i64: back to the i32 the code expects.
      if ((in.op == Opcode::MemorySize || in.op == Opcode::MemoryGrow) && is64(memory))
        write_plain(Opcode::I32WrapI64, out);
    }
    return out;
  }

  // The scratch locals the rewrite used, in index order from first_scratch.
  const std::vector<ValType>& scratch_types() const { return scratch_types_; }

 private:
  bool is64(uint32_t memory) const { return memory == 1 && memory1_is64_; }

  // Which operands (bottom .. top) become i64 on the chosen memories.
  std::array<bool, 3> widened(const OpcodeInfo& info, uint32_t memory, uint32_t memory2) const {
    std::array<bool, 3> w{};
    const bool dst64 = is64(memory);
    switch (info.opcode) {
      case Opcode::MemorySize: break;
      case Opcode::MemoryGrow: w[0] = dst64; break;
      case Opcode::MemoryFill: w[0] = w[2] = dst64; break;
      case Opcode::MemoryInit: w[0] = w[1] = w[2] = dst64; break;
      case Opcode::MemoryCopy:
        w[0] = dst64;
        w[1] = is64(memory2);
        w[2] = dst64 && is64(memory2);
        break;
      default: w[0] = dst64; break;  // loads and stores: the address
    }
    return w;
  }

  // Extends the widened operands in place: the ones above the lowest of them
  // go to scratch locals and come back.
  void widen_operands(const OpcodeInfo& info, uint32_t memory, uint32_t memory2, std::vector<uint8_t>& out) {
    const std::array<bool, 3> w = widened(info, memory, memory2);
    const int n = info.operand_count();
    int lowest = -1;
    for (int p = 0; p < n; ++p)
      if (w[size_t(p)]) {
        lowest = p;
        break;
      }
    if (lowest < 0) return;
    uint32_t saved[3] = {};
    for (int p = n - 1; p > lowest; --p) {
      saved[p] = scratch(p, info.operands[p]);
      write_plain(Opcode::LocalSet, out);
      write_leb_u32(out, saved[p]);
    }
    write_plain(Opcode::I64ExtendI32U, out);
    for (int p = lowest + 1; p < n; ++p) {
      write_plain(Opcode::LocalGet, out);
      write_leb_u32(out, saved[p]);
      if (w[size_t(p)]) write_plain(Opcode::I64ExtendI32U, out);
    }
  }

  uint32_t scratch(int position, SigType type) {
    const ValType t = type == SigType::I64 ? ValType::i64()
                      : type == SigType::F32 ? ValType::f32()
                      : type == SigType::F64 ? ValType::f64()
                      : type == SigType::V128 ? ValType::v128()
                                              : ValType::i32();
    for (size_t i = 0; i < scratch_types_.size(); ++i)
      if (scratch_types_[i] == t && scratch_positions_[i] == position) return first_scratch_ + uint32_t(i);
    scratch_types_.push_back(t);
    scratch_positions_.push_back(position);
    return first_scratch_ + uint32_t(scratch_types_.size() - 1);
  }

  static void write_instruction(const OpcodeInfo& info, const Instruction& in, uint32_t memory, uint32_t memory2,
                                std::vector<uint8_t>& out) {
    write_opcode(info, out);
    switch (info.immediate) {
      case ImmKind::Memarg:
      case ImmKind::MemargLane:
        if (memory != 0) {
          write_leb_u32(out, in.align | 0x40);
          write_leb_u32(out, memory);
        } else {
          write_leb_u32(out, in.align);
        }
        write_leb_u64(out, in.mem_offset);
        if (info.immediate == ImmKind::MemargLane) out.push_back(in.lane);
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

  std::mt19937_64& rng_;
  const bool memory1_is64_;
  const uint32_t first_scratch_;
  std::vector<ValType> scratch_types_;
  std::vector<int> scratch_positions_;
};

// `i32.const c` as `i64.const c` (zero-extended): a data offset into the
// 64-bit memory; nullopt for any other expression.
std::optional<ConstExpr> widened_offset(const ConstExpr& offset) {
  const std::vector<uint8_t>& code = offset.code;
  if (code.size() < 3 || code[0] != 0x41 || code.back() != 0x0B) return std::nullopt;
  size_t n = 0;
  int32_t value = 0;
  if (read_leb_s32(code.data() + 1, code.size() - 2, n, value) != LebError::None || n != code.size() - 2)
    return std::nullopt;
  ConstExpr wide;
  wide.code.push_back(0x42);
  write_leb_s64(wide.code, int64_t(uint64_t(uint32_t(value))));
  wide.code.push_back(0x0B);
  return wide;
}

}  // namespace

Result<std::vector<uint8_t>> spread_over_two_memories(std::span<const uint8_t> wasm, uint64_t seed, uint32_t& moved,
                                                      bool& memory1_is64) {
  moved = 0;
  memory1_is64 = false;
  WEFT_TRY_ASSIGN(Module m, binary::decode_module(wasm));
  // Only a module that defines exactly one memory: an imported one would need a second import.
  if (m.memories.size() != 1 || m.num_imported_memories() != 0) return std::vector<uint8_t>(wasm.begin(), wasm.end());
  memory1_is64 = (seed >> 17) & 1;
  m.memories.push_back(m.memories[0]);
  m.memories[1].type.limits.address64 = memory1_is64;
  // Memory 1 starts as memory 0 does: its active segments again, appended so
  // that the data indices memory.init and data.drop use stay what they were.
  const size_t num_datas = m.datas.size();
  for (size_t i = 0; i < num_datas; ++i) {
    if (m.datas[i].mode != SegmentMode::Active) continue;
    DataSegment copy = m.datas[i];
    copy.memory = 1;
    if (memory1_is64) {
      std::optional<ConstExpr> offset = widened_offset(copy.offset);
      if (!offset) {  // an offset this rewrite cannot widen: memory 1 stays 32-bit
        memory1_is64 = false;
        return spread_over_two_memories(wasm, seed & ~(uint64_t(1) << 17), moved, memory1_is64);
      }
      copy.offset = *offset;
    }
    m.datas.push_back(std::move(copy));
  }
  if (m.data_count) m.data_count = uint32_t(m.datas.size());
  m.exports.push_back({"two-memories: memory 1", ExternKind::Memory, 1});
  std::mt19937_64 rng(seed);
  const uint32_t num_imported = m.num_imported_functions();
  for (size_t i = 0; i < m.functions.size(); ++i) {
    Function& f = m.functions[i];
    uint32_t first_scratch = uint32_t(m.function_type(num_imported + uint32_t(i)).params.size());
    for (const LocalGroup& g : f.locals) first_scratch += g.count;
    Spreader spreader(rng, memory1_is64, first_scratch);
    WEFT_TRY_ASSIGN(std::vector<uint8_t> body, spreader.run(f.body, moved));
    f.body = std::move(body);
    for (ValType t : spreader.scratch_types()) f.locals.push_back({1, t});
  }
  return binary::write_module(m);
}

}  // namespace weft::differential
