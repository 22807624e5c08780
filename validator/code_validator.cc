// Function-body validation: the dispatch loop over the opcode table, the
// operand/control stacks, and the hand-typed (X) instruction families —
// control, calls, parametric, variables, tables, references. Numeric, memory,
// bulk-memory and SIMD instructions are typed generically from their row; the
// fiber extension's instructions are in code_validator_fibers.cc. Operands
// match expected types by subtyping (fiber references, docs/fibers.md §2).
//
// Speed (docs/performance.md, P7): the loop types the common instructions on
// a fast path — a per-opcode row derived from core/opcodes.def at compile
// time, one-byte type codes compared a word at a time, no call — and hands
// everything else (and every instruction whose fast path does not apply,
// errors included) to the general functions below, which implement the
// spec's algorithm on ValTypes. A fast path only ever succeeds where the
// general path would succeed with the same effect, so messages and offsets
// are the general path's.
#include "validator/code_validator.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <string_view>

namespace weft::validator {
namespace {

ValType sig_type(SigType t) {
  switch (t) {
    case SigType::I64: return ValType::i64();
    case SigType::F32: return ValType::f32();
    case SigType::F64: return ValType::f64();
    case SigType::V128: return ValType::v128();
    default: return ValType::i32();
  }
}

// Lanes addressed by a lane immediate. Lane instructions are named after their
// shape ("i16x8.extract_lane_s": 8 lanes); memory lane instructions after
// their access size (v128.load32_lane: 16 / 4 lanes).
uint32_t lane_count(const OpcodeInfo& info) {
  if (info.immediate == ImmKind::MemargLane) return 16 / info.mem_bytes;
  std::string_view name = info.text;
  uint32_t lanes = 0;
  for (size_t i = name.find('x') + 1; i < name.size() && name[i] >= '0' && name[i] <= '9'; ++i)
    lanes = lanes * 10 + uint32_t(name[i] - '0');
  return lanes;
}

std::string describe(ValType t) { return is_unknown(t) ? "unknown" : to_string(t); }

// ---------------------------------------------------------------------------
// The dispatch table: what the loop does first with each opcode.

constexpr uint8_t kSimdFeature = 1, kFiberFeature = 2;  // the row's opcode needs the feature

enum class Rule : uint8_t {
  Plain,    // plain signature, immediates that need no check: typed from the row
  Memarg,   // the same after the memory and alignment checks
  Generic,  // plain signature, immediates with checks (lanes, segments, tables): generic()
  // X rows with a fast path:
  LocalGet, LocalSet, LocalTee, GlobalGet, GlobalSet, Drop, Block, Loop, If, Else, End, Br, BrIf, Return,
  Unreachable, Call,
  Special,  // the other X rows: special()
};

struct alignas(16) Row {  // (16 bytes: a row's address is a shift away)
  Rule rule = Rule::Special;
  uint8_t feature = 0;
  uint8_t pops = 0;       // Plain, Memarg: operands popped, then
  uint8_t pushes = 0;     // 0 or 1 result
  TypeCode result = TypeCode::I32;
  uint8_t max_align = 0;  // Memarg: log2 of the natural access size
  int8_t slot_delta = 0;  // executor slots pushed minus popped
  uint32_t pattern = 0;   // the popped codes as a 4-byte load ending at the top reads them
  uint32_t mask = 0;      // the bytes of that load that are popped codes
};

// The byte of a 4-byte load ending at the stack top that holds the operand
// `from_top` places below it.
constexpr uint32_t lane_shift(uint32_t from_top) {
  return std::endian::native == std::endian::little ? 8 * (3 - from_top) : 8 * from_top;
}
constexpr uint32_t pop_mask(uint32_t pops) {
  uint32_t mask = 0;
  for (uint32_t k = 0; k < pops; ++k) mask |= 0xFFu << lane_shift(k);
  return mask;
}

constexpr TypeCode sig_code(SigType t) {
  switch (t) {
    case SigType::I64: return TypeCode::I64;
    case SigType::F32: return TypeCode::F32;
    case SigType::F64: return TypeCode::F64;
    case SigType::V128: return TypeCode::V128;
    default: return TypeCode::I32;
  }
}

constexpr Row make_row(Opcode op, uint8_t prefix, ImmKind imm, uint8_t mem_bytes, SigType result,
                       std::array<SigType, 3> operands) {
  Row row;
  row.feature = prefix == 0xFD ? kSimdFeature : prefix == 0xFA ? kFiberFeature : 0;
  if (result == SigType::Special) {
    switch (op) {
      case Opcode::LocalGet: row.rule = Rule::LocalGet; break;
      case Opcode::LocalSet: row.rule = Rule::LocalSet; break;
      case Opcode::LocalTee: row.rule = Rule::LocalTee; break;
      case Opcode::GlobalGet: row.rule = Rule::GlobalGet; break;
      case Opcode::GlobalSet: row.rule = Rule::GlobalSet; break;
      case Opcode::Drop: row.rule = Rule::Drop; break;
      case Opcode::Block: row.rule = Rule::Block; break;
      case Opcode::Loop: row.rule = Rule::Loop; break;
      case Opcode::If: row.rule = Rule::If; break;
      case Opcode::Else: row.rule = Rule::Else; break;
      case Opcode::End: row.rule = Rule::End; break;
      case Opcode::Br: row.rule = Rule::Br; break;
      case Opcode::BrIf: row.rule = Rule::BrIf; break;
      case Opcode::Return: row.rule = Rule::Return; break;
      case Opcode::Unreachable: row.rule = Rule::Unreachable; break;
      case Opcode::Call: row.rule = Rule::Call; break;
      default: row.rule = Rule::Special; break;
    }
    return row;
  }
  switch (imm) {
    case ImmKind::None: case ImmKind::I32: case ImmKind::I64: case ImmKind::F32: case ImmKind::F64:
    case ImmKind::V128:
      row.rule = Rule::Plain;
      break;
    case ImmKind::Memarg:
      // A power of two, so the alignment rule is a compare with its log2.
      row.rule = std::has_single_bit(mem_bytes) ? Rule::Memarg : Rule::Generic;
      row.max_align = uint8_t(std::countr_zero(mem_bytes));
      break;
    default: row.rule = Rule::Generic; break;
  }
  int slots = 0;
  while (row.pops < 3 && operands[row.pops] != SigType::None) ++row.pops;  // bottom .. top
  for (uint32_t k = 0; k < row.pops; ++k) {
    const TypeCode code = sig_code(operands[row.pops - 1 - k]);
    row.pattern |= uint32_t(code) << lane_shift(k);
    slots -= int(code_slots(code));
  }
  row.mask = pop_mask(row.pops);
  if (result != SigType::None) {
    row.pushes = 1;
    row.result = sig_code(result);
    slots += int(code_slots(row.result));
  }
  row.slot_delta = int8_t(slots);
  return row;
}

namespace opcode_def {  // the type column tokens of core/opcodes.def
constexpr SigType I32 = SigType::I32, I64 = SigType::I64, F32 = SigType::F32, F64 = SigType::F64,
                  V128 = SigType::V128, X = SigType::Special, _ = SigType::None;
}  // namespace opcode_def

constexpr Row kRows[kOpcodeCount] = {
#define WEFT_OPCODE(name, prefix, code, text, imm, mem, r, a, b, c)                                       \
  make_row(Opcode::name, prefix, ImmKind::imm, mem, opcode_def::r, {opcode_def::a, opcode_def::b, opcode_def::c}),
#include "core/opcodes.def"
};

// The opcodes of optional features (SIMD, fibers) come last in the table, so
// the loop tests the options only for opcodes from here on.
constexpr Opcode kFirstFeatureOpcode = [] {
  size_t first = kOpcodeCount;
  while (first > 0 && kRows[first - 1].feature != 0) --first;
  return Opcode(first);
}();
static_assert(std::none_of(std::begin(kRows), std::begin(kRows) + size_t(kFirstFeatureOpcode),
                           [](const Row& row) { return row.feature != 0; }),
              "an opcode of an optional feature amid the Wasm 2.0 ones: the loop would not check its option");

// The single-byte Wasm 2.0 opcodes with a fast path, by the pair of their
// rule and immediate kind: the loop reads such an instruction with
// InstructionReader::next_single for that kind and goes on to the rule's
// fast path — one dispatch, on the opcode byte, where the reader's dispatch
// on the immediate kind and the loop's on the rule were two indirect jumps
// that Binaryen's random code mispredicts alike. Other: the reader's next().
#define WEFT_FUSED_KINDS(X)                                                                                   \
  X(PlainNone, Plain, None) X(PlainI32, Plain, I32) X(PlainI64, Plain, I64) X(PlainF32, Plain, F32)              \
  X(PlainF64, Plain, F64) X(Memarg, Memarg, Memarg) X(LocalGet, LocalGet, LocalIdx) X(LocalSet, LocalSet, LocalIdx) \
  X(LocalTee, LocalTee, LocalIdx) X(GlobalGet, GlobalGet, GlobalIdx) X(GlobalSet, GlobalSet, GlobalIdx)          \
  X(Drop, Drop, None) X(Block, Block, BlockType) X(Loop, Loop, BlockType) X(If, If, BlockType) X(Else, Else, None) \
  X(End, End, None) X(Br, Br, LabelIdx) X(BrIf, BrIf, LabelIdx) X(Return, Return, None)                        \
  X(Unreachable, Unreachable, None) X(Call, Call, FuncIdx)

enum class Fused : uint8_t {
  Other,
#define WEFT_FUSED_ENUM(name, rule, kind) name,
  WEFT_FUSED_KINDS(WEFT_FUSED_ENUM)
#undef WEFT_FUSED_ENUM
};

constexpr auto kFusedByByte = [] {
  std::array<Fused, 256> out{};
  for (size_t byte = 0; byte < 256; ++byte) {
    out[byte] = Fused::Other;
    const int16_t op = kOpcodeByteMap.single[byte];
    if (op < 0 || kRows[size_t(op)].feature != 0) continue;  // run() checks features on the other path only
    const Rule rule = kRows[size_t(op)].rule;
    const ImmKind kind = kSingleByteImmediateKind[byte];
#define WEFT_FUSED_MATCH(name, r, k) \
  if (rule == Rule::r && kind == ImmKind::k) out[byte] = Fused::name;
    WEFT_FUSED_KINDS(WEFT_FUSED_MATCH)
#undef WEFT_FUSED_MATCH
  }
  return out;
}();

}  // namespace

// ---------------------------------------------------------------------------
// Driver

CodeValidator::CodeValidator(const ModuleContext& ctx) : ctx_(ctx), module_(ctx.module) {
  grow();  // the fast paths read the stack's padding from the start
  num_memories_ = ctx.num_memories;
  // (A 64-bit memory 0 takes the general path: its addresses are i64.)
  memarg_fast_bias_ = ctx.num_memories > 0 && !ctx.memory_address64[0] ? 0 : uint64_t(1) << 40;
  has_table64_ = std::any_of(ctx.tables.begin(), ctx.tables.end(), [](const TableType& t) { return t.limits.address64; });
  has_memory64_ = std::find(ctx.memory_address64.begin(), ctx.memory_address64.end(), true) !=
                  ctx.memory_address64.end();
  disabled_features_ = uint8_t((ctx.options.enable_simd ? 0 : kSimdFeature) |
                               (ctx.options.enable_fibers ? 0 : kFiberFeature));
  // Every type's codes, stored once: calls and type-indexed block types use them.
  size_t total = 0;
  for (const FuncType& type : module_.types) total += type.params.size() + type.results.size();
  sig_codes_.reserve(total);  // make_types keeps pointers into it
  type_sigs_.reserve(module_.types.size());
  for (const FuncType& type : module_.types) type_sigs_.push_back({make_types(type.params), make_types(type.results)});
  global_codes_.reserve(ctx.globals.size());
  mutable_global_codes_.reserve(ctx.globals.size());
  for (const GlobalType& global : ctx.globals) {
    global_codes_.push_back(type_code(global.type));
    mutable_global_codes_.push_back(global.is_mutable ? type_code(global.type) : TypeCode::Unknown);
  }
}

CodeValidator::Types CodeValidator::make_types(std::span<const ValType> types) {
  if (types.empty()) return {};
  const size_t begin = sig_codes_.size();
  bool standard = true;
  uint32_t slots = 0;
  for (ValType t : types) {
    const TypeCode c = type_code(t);
    sig_codes_.push_back(c);
    standard = standard && is_standard(c);
    slots += code_slots(c);
  }
  return {types, standard ? sig_codes_.data() + begin : nullptr, slots};
}

Result<void> CodeValidator::validate(uint32_t defined_index, FunctionInfo& info) {
  const Function& func = module_.functions[defined_index];
  const BlockSig& type = type_sigs_[func.type_index];  // checked by the module validator
  // Bodies are validated in order: start loading what the next one needs
  // first (its type is anywhere in the table, its body in another allocation),
  // which the hardware cannot guess. Modules of many small functions wait on
  // these loads more than they validate.
  if (defined_index + 1 < module_.functions.size()) {
    const Function& next = module_.functions[defined_index + 1];
    __builtin_prefetch(&type_sigs_[next.type_index]);
    __builtin_prefetch(next.body.data());
    __builtin_prefetch(next.locals.data());
  }
  func_index_ = ctx_.num_functions() - uint32_t(module_.functions.size()) + defined_index;
  // SIMD and fiber opcodes decode regardless of the options, so that run() can
  // say which feature is disabled rather than "illegal opcode".
  reader_.reset(func.body,
                ReaderFeatures{.simd = true, .fibers = true, .multi_memory = ctx_.options.enable_multi_memory,
                               .memory64 = ctx_.options.enable_memory64, .exceptions = true});
  instr_offset_ = 0;
  height_ = 0;
  base_ = 0;
  ctrls_.clear();
  locals_.clear();
  slots_ = max_slots_ = 0;
  uses_memory_ = false;
  block_results_.clear();
  nodes_.clear();
  open_clauses_.clear();
  node_clauses_.clear();
  flat_scopes_.clear();
  points_.clear();
  entry_clauses_.clear();
  scope_work_ = 0;
  if (tag_marks_.size() != ctx_.num_tags()) {
    tag_marks_.assign(ctx_.num_tags(), 0);
    mark_ = 0;
  }

  bool ok = true;
  uint64_t num_locals = 0;
  auto add_locals = [&](ValType t, uint64_t count) {
    if (count == 0) return;
    num_locals += count;
    if (num_locals > UINT32_MAX) {
      ok = invalid("too many locals");
      return;
    }
    if (!locals_.empty() && locals_.back().type == t) locals_.back().end = uint32_t(num_locals);
    else locals_.push_back({uint32_t(num_locals), t});
  };
  if (type.params.codes) {  // the same types, from the codes stored with the table entry
    for (size_t i = 0; i < type.params.types.size(); ++i) add_locals(kStandardTypes[size_t(type.params.codes[i])], 1);
  } else {
    for (ValType t : type.params.types) add_locals(t, 1);
  }
  num_params_ = uint32_t(num_locals);
  set_locals_.clear();
  init_log_.clear();
  init_logged_ = 0;
  for (const LocalGroup& group : func.locals) {
    if (!ok || !(ok = check_valtype(group.type))) break;
    // A local of a type without a default value (a non-nullable reference)
    // must be set before it is read (set_locals_); version 1 of the fiber
    // extension has no such locals.
    if (!is_defaultable(group.type) && !ctx_.options.enable_function_references) {
      ok = invalid("non-defaultable type " + to_string(group.type) + " for a local");
      break;
    }
    add_locals(group.type, group.count);
  }
  num_locals_ = uint32_t(num_locals);
  locals_info_.clear();
  for (const LocalRun& run : locals_) {
    if (locals_info_.size() >= kExpandedLocals) break;
    locals_info_.resize(std::min<size_t>(run.end, kExpandedLocals), {type_code(run.type), 0});
  }
  loop_depth_ = 0;
  loop_weight_ = 1;

  if (ok) {
    push_ctrl(Opcode::End, {{}, type.results});
    ok = run() && finish_scopes(info);
  }
  if (!ok) return std::move(error_);
  info.max_stack_height = max_slots_;
  info.uses_memory = uses_memory_;
  info.num_locals = num_locals_;
  rank_hot_locals(info);
  return {};
}

void CodeValidator::rank_hot_locals(FunctionInfo& info) {
  // The kMaxHotLocals heaviest locals, heaviest first and ties in index
  // order, among those weighing more than 1 (a local accessed once is not
  // worth a register): one pass that keeps the best so far sorted, inserting
  // into at most kMaxHotLocals entries. (Taking the heaviest of all the
  // weights kMaxHotLocals times over cost more than the rest of validating
  // a body with many locals.)
  constexpr size_t kMax = FunctionInfo::kMaxHotLocals;
  uint32_t kept[kMax];  // the weights of info.hot_locals[0, count)
  size_t count = 0;
  for (size_t i = 0; i < locals_info_.size(); ++i) {
    const uint32_t w = locals_info_[i].weight;
    // An equal weight ranks below the ones kept: their indices are lower.
    if (w <= 1 || (count == kMax && w <= kept[kMax - 1])) continue;
    size_t pos = count < kMax ? count++ : kMax - 1;  // a full list drops its lightest
    for (; pos > 0 && kept[pos - 1] < w; --pos) {
      kept[pos] = kept[pos - 1];
      info.hot_locals[pos] = info.hot_locals[pos - 1];
    }
    kept[pos] = w;
    static_assert(kExpandedLocals <= 0x10000, "FunctionInfo::hot_locals holds 16-bit indices");
    info.hot_locals[pos] = uint16_t(i);
  }
  info.num_hot_locals = uint8_t(count);
}

// ---------------------------------------------------------------------------
// Fast paths (see the header): the common cases of the X rows, on type codes.

bool CodeValidator::set_operands(const ControlFrame& frame, const Types& t) {
  const uint32_t n = uint32_t(t.types.size());
  if (!t.codes || n > capacity_ - base_ || base_ + n > kMaxOperandStackHeight) return false;
  copy_codes(t.codes, n, vals_ + base_);
  height_ = base_ + n;
  slots_ = frame.slot_height + t.slots;
  if (slots_ > max_slots_) max_slots_ = slots_;
  return true;
}

// block, loop and if with an empty or numeric block type (the others need the
// checks of block_sig and may have params).
inline bool CodeValidator::fast_block(Opcode op) {
  const BlockType& block = insn_.block;
  BlockSig sig;  // [] -> []
  if (block.kind == BlockType::Value) {
    if (block.value.kind > ValType::F64) return false;
    sig = single_sig(TypeCode(block.value.kind));
  } else if (block.kind != BlockType::Empty) {
    return false;
  }
  if (ctrls_.size() >= kMaxControlDepth) return false;
  if (op == Opcode::If) {
    if (height_ == base_ || vals_[height_ - 1] != TypeCode::I32) return false;
    --height_;
    slots_ -= code_slots(TypeCode::I32);
  }
  ctrls_.push_back({op, sig, height_, slots_, false, false, ctrls_.back().scope, kNoScope,
                    uint32_t(open_clauses_.size()), init_logged_});
  base_ = height_;
  if (op == Opcode::Loop) enter_loop();
  return true;
}

// The frame's results replace its operands in the enclosing frame. (An if
// without else must pass its params through, so only [] -> [] is this simple;
// handles and the function end their clauses.)
inline bool CodeValidator::fast_end() {
  const ControlFrame& frame = ctrls_.back();
  if (frame.has_clauses() || init_logged_ != frame.init_log_begin) return false;
  if (frame.opcode == Opcode::If && !(frame.sig.params.types.empty() && frame.sig.results.types.empty()))
    return false;
  if (!frame_holds(frame, frame.sig.results) || !set_operands(frame, frame.sig.results)) return false;
  if (frame.opcode == Opcode::Loop) leave_loop();
  ctrls_.pop_back();
  base_ = ctrls_.back().height;  // not the function frame (it has clauses), so one is left
  return true;
}

// The if frame becomes the else frame, with the params back as its operands.
inline bool CodeValidator::fast_else() {
  ControlFrame& frame = ctrls_.back();
  if (frame.opcode != Opcode::If || init_logged_ != frame.init_log_begin || !frame_holds(frame, frame.sig.results) ||
      !set_operands(frame, frame.sig.params))
    return false;
  frame.opcode = Opcode::Else;
  frame.unreachable = false;
  return true;
}

inline bool CodeValidator::fast_branch(const Types& label) {
  if (!top_is(label)) return false;
  set_unreachable();
  return true;
}

// The label's values stay on the stack: only the condition goes.
inline bool CodeValidator::fast_br_if() {
  const uint32_t depth = insn_.index;
  if (depth >= ctrls_.size() || height_ == base_ || vals_[height_ - 1] != TypeCode::I32) return false;
  --height_;
  if (!top_is(frame_at(depth).label_types())) {
    ++height_;
    return false;
  }
  slots_ -= code_slots(TypeCode::I32);
  return true;
}

inline bool CodeValidator::fast_call() {
  const uint32_t func = insn_.index;
  if (func >= ctx_.function_types.size()) return false;
  const BlockSig& sig = type_sigs_[ctx_.function_types[func]];
  if (!top_is(sig.params) || !sig.results.codes) return false;
  const uint32_t height = height_ - uint32_t(sig.params.types.size());
  const uint32_t n = uint32_t(sig.results.types.size());
  if (n > capacity_ - height || height + n > kMaxOperandStackHeight) return false;
  copy_codes(sig.results.codes, n, vals_ + height);
  height_ = height + n;
  slots_ = slots_ - sig.params.slots + sig.results.slots;
  if (slots_ > max_slots_) max_slots_ = slots_;
  return true;
}

bool CodeValidator::run() {
  InstructionReader& reader = reader_;
  // The position stays in a local (a register) for the whole body; the
  // reader's own is brought up to date for the general path, which may ask.
  const uint8_t* cursor = reader.cursor();
  // Errors are located at instr_offset_, which only the paths that can fail
  // set (to insn_.offset, the instruction's first byte); the loop ends when
  // the function's frame is popped, which only the general path does.
  for (;;) {
    if (reader.at_end(cursor)) {
      instr_offset_ = reader.offset_of(cursor);
      return malformed("unexpected end of function body (missing end)");
    }
    // The rule is a constant in every fused case: the compiler jumps from
    // each straight to the rule's case below.
    Rule rule;
    bool read;
    switch (kFusedByByte[*cursor]) {
#define WEFT_FUSED_CASE(name, r, k)                              \
  case Fused::name:                                              \
    read = reader.next_single<ImmKind::k>(cursor, insn_);        \
    rule = Rule::r;                                              \
    break;
      WEFT_FUSED_KINDS(WEFT_FUSED_CASE)
#undef WEFT_FUSED_CASE
      case Fused::Other:
      default:
        read = reader.next(cursor, insn_);
        rule = Rule::Special;
        if (!read) break;
        // Only here: no fused opcode belongs to a feature (kFusedByByte).
        if (insn_.op >= kFirstFeatureOpcode && (kRows[size_t(insn_.op)].feature & disabled_features_)) [[unlikely]] {
          instr_offset_ = insn_.offset;
          return feature_disabled(opcode_info(insn_.op));
        }
        rule = kRows[size_t(insn_.op)].rule;
        break;
    }
    if (!read) {
      instr_offset_ = insn_.offset;  // set by every failure of next() but at the end, excluded above
      return truncated();
    }
    const Opcode op = insn_.op;
    const Row& row = kRows[size_t(op)];

    // Fast paths: each either completes the instruction (continue; none can
    // reach a limit) or leaves every state untouched for the general path.
    switch (rule) {
      case Rule::Memarg:
        // (an offset beyond 32 bits is one only a 64-bit memory may have)
        if (memarg_fast_key() + memarg_fast_bias_ > row.max_align || (insn_.mem_offset >> 32) != 0) break;
        uses_memory_ = true;
        [[fallthrough]];
      case Rule::Plain: {
        const uint32_t height = height_;
        if (height - base_ < row.pops) break;
        uint32_t top;  // the top four codes; below the bottom operand it reads the padding
        std::memcpy(&top, vals_ + height - 4, 4);
        if ((top & row.mask) != row.pattern) break;
        uint32_t new_height = height - row.pops;
        if (row.pushes) {
          if (new_height >= push_limit_) break;
          vals_[new_height++] = row.result;
        }
        height_ = new_height;
        slots_ += uint32_t(int32_t(row.slot_delta));
        if (slots_ > max_slots_) max_slots_ = slots_;
        continue;
      }
      case Rule::LocalGet: {
        const uint32_t index = insn_.index;
        if (index >= locals_info_.size() || height_ >= push_limit_) break;
        const TypeCode code = locals_info_[index].code;
        if (!is_standard(code)) break;
        vals_[height_++] = code;
        slots_ += code_slots(code);
        if (slots_ > max_slots_) max_slots_ = slots_;
        count_access(index);
        continue;
      }
      case Rule::GlobalGet: {
        const uint32_t index = insn_.index;
        if (index >= global_codes_.size() || height_ >= push_limit_) break;
        const TypeCode code = global_codes_[index];
        if (!is_standard(code)) break;
        vals_[height_++] = code;
        slots_ += code_slots(code);
        if (slots_ > max_slots_) max_slots_ = slots_;
        continue;
      }
      case Rule::LocalSet:
      case Rule::LocalTee: {
        const uint32_t index = insn_.index;
        if (index >= locals_info_.size() || height_ == base_) break;
        const TypeCode code = locals_info_[index].code;
        if (!is_standard(code) || vals_[height_ - 1] != code) break;
        if (row.rule == Rule::LocalSet) {  // local.tee pops and pushes the same type
          --height_;
          slots_ -= code_slots(code);
        }
        count_access(index);
        continue;
      }
      case Rule::GlobalSet: {
        const uint32_t index = insn_.index;
        if (index >= mutable_global_codes_.size() || height_ == base_) break;
        const TypeCode code = mutable_global_codes_[index];
        if (!is_standard(code) || vals_[height_ - 1] != code) break;
        --height_;
        slots_ -= code_slots(code);
        continue;
      }
      case Rule::Drop:
        if (height_ == base_) break;
        slots_ -= code_slots(vals_[--height_]);
        continue;
      case Rule::Block:
      case Rule::Loop:
      case Rule::If:
        if (fast_block(op)) continue;
        break;
      case Rule::Else:
        if (fast_else()) continue;
        break;
      case Rule::End:
        if (fast_end()) continue;
        break;
      case Rule::Br:
        if (insn_.index < ctrls_.size() && fast_branch(frame_at(insn_.index).label_types())) continue;
        break;
      case Rule::BrIf:
        if (fast_br_if()) continue;
        break;
      case Rule::Return:
        if (fast_branch(ctrls_.front().sig.results)) continue;
        break;
      case Rule::Unreachable:
        set_unreachable();
        continue;
      case Rule::Call:
        if (fast_call()) continue;
        break;
      case Rule::Generic:
      case Rule::Special:
        break;
    }

    instr_offset_ = insn_.offset;
    reader.set_cursor(cursor);
    const OpcodeInfo& info = opcode_info(op);
    if (!(info.is_special() ? special(op) : generic(info))) return false;
    // One instruction adds at most one block or one type's results, so
    // checking here bounds memory for any input.
    if (height_ > kMaxOperandStackHeight) return fail(ErrorKind::Limit, "operand stack too deep");
    if (ctrls_.size() > kMaxControlDepth) return fail(ErrorKind::Limit, "blocks nested too deeply");
    if (ctrls_.empty()) break;
  }
  if (!reader.at_end(cursor)) {
    instr_offset_ = reader.offset_of(cursor);
    return malformed("operators remaining after end of function");
  }
  return true;
}

// ---------------------------------------------------------------------------
// Errors

bool CodeValidator::fail(ErrorKind kind, std::string message) {
  error_ = make_error(kind, std::move(message), Location::in_function(func_index_, instr_offset_));
  return false;
}

bool CodeValidator::invalid(std::string message) { return fail(ErrorKind::Invalid, std::move(message)); }
bool CodeValidator::invalid(const char* message) { return fail(ErrorKind::Invalid, message); }
bool CodeValidator::malformed(const char* message) { return fail(ErrorKind::Malformed, message); }
bool CodeValidator::truncated() { return malformed(reader_.error()); }
bool CodeValidator::unknown(const char* index_space, uint64_t index) {
  return invalid(std::string("unknown ") + index_space + " " + std::to_string(index));
}

bool CodeValidator::mismatch(ValType expected, ValType actual) {
  return invalid("type mismatch: expected " + describe(expected) + ", got " + describe(actual));
}

bool CodeValidator::feature_disabled(const OpcodeInfo& info) {
  const char* feature = info.prefix == 0xFD ? "SIMD support is not enabled: " : "fiber support is not enabled: ";
  return invalid(feature + std::string(info.text));
}

bool CodeValidator::check_valtype_slow(ValType t) {
  std::string problem = ctx_.valtype_problem(t);
  return problem.empty() || invalid(std::move(problem));
}

// ---------------------------------------------------------------------------
// Operand and control stacks

void CodeValidator::grow() {
  const size_t capacity = std::max<size_t>(64, size_t(capacity_) * 2);
  stack_.resize(kStackPad + capacity);
  vals_ = stack_.data() + kStackPad;
  capacity_ = uint32_t(capacity);
  push_limit_ = std::min(capacity_, kMaxOperandStackHeight);
}

void CodeValidator::push_exotic(ValType t) {
  if (height_ == capacity_) grow();
  if (exotic_.size() < capacity_) exotic_.resize(capacity_);
  exotic_[height_] = t;
  vals_[height_++] = TypeCode::Exotic;
  slots_ += operand_slots(t);
  if (slots_ > max_slots_) max_slots_ = slots_;
}

bool CodeValidator::pop(ValType& out) {
  const ControlFrame& frame = ctrls_.back();
  if (height_ == frame.height) {
    if (frame.unreachable) {
      out = kUnknown;
      return true;
    }
    return invalid("type mismatch: expected an operand, but the block's stack is empty");
  }
  out = type_at(--height_);
  slots_ -= operand_slots(out);
  return true;
}

bool CodeValidator::pop_expect_slow(ValType expected) {
  const ControlFrame& frame = ctrls_.back();
  if (height_ == frame.height) {
    if (frame.unreachable) return true;
    return invalid("type mismatch: expected " + describe(expected) + ", but the block's stack is empty");
  }
  const ValType v = type_at(height_ - 1);
  if (!is_subtype(v, expected)) return mismatch(expected, v);
  slots_ -= operand_slots(v);
  --height_;
  return true;
}

bool CodeValidator::pop_all(std::span<const ValType> types) {
  for (size_t i = types.size(); i-- > 0;)
    if (!pop_expect(types[i])) return false;
  return true;
}

// Checks the top of the stack against `types` without changing it. Same
// outcome as the spec's push_vals(pop_vals(types)): the operands it would
// re-push from an exhausted polymorphic stack are Unknown, which match anything.
bool CodeValidator::peek_all(std::span<const ValType> types) {
  const ControlFrame& frame = ctrls_.back();
  const size_t available = height_ - frame.height;
  for (size_t k = 0; k < types.size(); ++k) {
    ValType expected = types[types.size() - 1 - k];
    if (k >= available) {
      if (frame.unreachable) return true;
      return invalid("type mismatch: expected " + describe(expected) + ", but the block's stack is empty");
    }
    const ValType v = type_at(height_ - 1 - uint32_t(k));
    if (!is_subtype(v, expected)) return mismatch(expected, v);
  }
  return true;
}

bool CodeValidator::push_ctrl(Opcode opcode, BlockSig sig) {
  // Blocks inherit the scope around them; a handle (and the function frame)
  // opens a scope node whose clauses become known at its end.
  uint32_t scope = ctrls_.empty() ? kNoScope : ctrls_.back().scope;
  uint32_t node = kNoScope;
  if (opcode == Opcode::Handle || ctrls_.empty()) {
    node = uint32_t(nodes_.size());
    nodes_.push_back({scope});
    scope = node;
  }
  ctrls_.push_back(
      {opcode, sig, height_, slots_, false, false, scope, node, uint32_t(open_clauses_.size()), init_logged_});
  base_ = height_;
  if (opcode == Opcode::Loop) enter_loop();
  push_all(sig.params);
  return true;
}

bool CodeValidator::pop_ctrl(ControlFrame& out) {
  const ControlFrame& frame = ctrls_.back();
  if (!pop_all(frame.sig.results)) return false;
  if (height_ != frame.height)
    return invalid("type mismatch: " + std::to_string(height_ - frame.height) +
                   " operand(s) left over at the end of the block");
  out = frame;
  if (frame.opcode == Opcode::Loop) leave_loop();
  if (init_logged_ != frame.init_log_begin) unset_locals_from(frame.init_log_begin);
  ctrls_.pop_back();
  base_ = ctrls_.empty() ? 0 : ctrls_.back().height;
  return true;
}

void CodeValidator::set_unreachable() {
  ControlFrame& frame = ctrls_.back();
  height_ = frame.height;
  slots_ = frame.slot_height;
  frame.unreachable = true;
}

// ---------------------------------------------------------------------------
// Immediates

bool CodeValidator::block_sig(const BlockType& block, BlockSig& out) {
  switch (block.kind) {
    case BlockType::Empty: out = {}; return true;
    case BlockType::Value: {
      const ValType t = block.value;
      if (!check_valtype(t)) return false;
      const TypeCode c = type_code(t);
      if (is_standard(c)) {
        out = single_sig(c);
      } else {  // a fiber reference type: kept for the frame's lifetime
        block_results_.push_back(t);
        out = {{}, {{&block_results_.back(), 1}, nullptr, 0}};
      }
      return true;
    }
    case BlockType::TypeIndex: break;
  }
  const uint32_t index = block.type_index;
  if (index >= module_.types.size()) return unknown("type", index);
  const FuncType& type = module_.types[index];
  if (type.is_fiber)
    return invalid("type mismatch: block type is not a function type: type " + std::to_string(index) +
                   " is a fiber type");
  out = type_sigs_[index];
  return true;
}

bool CodeValidator::check_label(uint32_t depth) { return depth < ctrls_.size() || unknown("label", depth); }

bool CodeValidator::check_memory(uint32_t index) {
  uses_memory_ = true;
  return index < num_memories_ || unknown("memory", index);
}

bool CodeValidator::check_memarg(uint32_t natural_bytes) {
  if (!check_memory(insn_.memory)) return false;
  if (insn_.mem_offset > UINT32_MAX && !ctx_.memory_address64[insn_.memory]) return invalid("offset out of range");
  if (insn_.align >= 32 || (uint64_t(1) << insn_.align) > natural_bytes)
    return invalid("alignment must not be larger than natural");
  return true;
}

bool CodeValidator::check_table(uint32_t index) { return index < ctx_.tables.size() || unknown("table", index); }

bool CodeValidator::check_elem(uint32_t index) {
  return index < ctx_.num_elems() || unknown("elem segment", index);
}

bool CodeValidator::check_data(uint32_t index) {
  if (ctx_.options.binary_bodies_unchecked && !module_.data_count) [[unlikely]]
    return malformed("data count section required");
  return index < ctx_.num_datas() || unknown("data segment", index);
}

bool CodeValidator::local_type_slow(uint32_t index, ValType& out) {
  if (index >= num_locals_) return unknown("local", index);
  auto run = std::upper_bound(locals_.begin(), locals_.end(), index,
                              [](uint32_t i, const LocalRun& r) { return i < r.end; });
  out = run->type;
  return true;
}

// ---------------------------------------------------------------------------
// Plain-signature instructions: numeric, memory, bulk memory, table.size, SIMD

bool CodeValidator::generic(const OpcodeInfo& info) {
  if (info.immediate != ImmKind::None && !table_immediates(info)) return false;
  if (has_memory64_ && names_memory(info.immediate)) [[unlikely]] return memory_instruction(info);
  if (has_table64_ && (info.opcode == Opcode::TableSize || info.opcode == Opcode::TableInit ||
                       info.opcode == Opcode::TableCopy)) [[unlikely]]
    return table_instruction(info);
  for (int i = info.operand_count() - 1; i >= 0; --i)
    if (!pop_expect(sig_type(info.operands[i]))) return false;
  if (info.result != SigType::None) push(sig_type(info.result));
  return true;
}

// A memory instruction in a module with a 64-bit memory: addresses (and
// memory.size/grow's sizes, fill's and init's lengths) have the memory's address type;
// memory.copy's length is i64 only between two 64-bit memories.
bool CodeValidator::memory_instruction(const OpcodeInfo& info) {
  const auto address = [&](uint32_t memory) { return ctx_.memory_address64[memory] ? SigType::I64 : SigType::I32; };
  SigType operands[3] = {info.operands[0], info.operands[1], info.operands[2]};
  SigType result = info.result;
  const SigType a = address(insn_.memory);
  switch (info.opcode) {
    case Opcode::MemorySize: result = a; break;
    case Opcode::MemoryGrow: operands[0] = result = a; break;
    case Opcode::MemoryFill: operands[0] = operands[2] = a; break;
    // All three, as the suite's proposals/memory64 has it (the final Wasm 3.0
    // text types only the destination by the memory: [at i32 i32]).
    case Opcode::MemoryInit: operands[0] = operands[1] = operands[2] = a; break;
    case Opcode::MemoryCopy: {
      const SigType source = address(insn_.memory2);
      operands[0] = a;
      operands[1] = source;
      operands[2] = a == SigType::I64 && source == SigType::I64 ? SigType::I64 : SigType::I32;
      break;
    }
    default: operands[0] = a; break;  // loads and stores: the address first
  }
  for (int i = info.operand_count() - 1; i >= 0; --i)
    if (!pop_expect(sig_type(operands[i]))) return false;
  if (result != SigType::None) push(sig_type(result));
  return true;
}

// table.size, table.init and table.copy in a module with a 64-bit table:
// table.size gives the table's index type; table.init's destination has it
// (its source and length are i32, as the suite's proposals/memory64 has
// it); table.copy's length is i64 only between two 64-bit tables.
bool CodeValidator::table_instruction(const OpcodeInfo& info) {
  ValType operands[3] = {ValType::i32(), ValType::i32(), ValType::i32()};
  switch (info.opcode) {
    case Opcode::TableSize: push(table_index_type(insn_.index)); return true;
    case Opcode::TableInit: operands[0] = table_index_type(insn_.index2); break;
    default: {  // TableCopy
      const ValType dst = table_index_type(insn_.index), src = table_index_type(insn_.index2);
      operands[0] = dst;
      operands[1] = src;
      operands[2] = dst == ValType::i64() && src == ValType::i64() ? ValType::i64() : ValType::i32();
      break;
    }
  }
  for (int i = 2; i >= 0; --i)
    if (!pop_expect(operands[i])) return false;
  return true;
}

bool CodeValidator::table_immediates(const OpcodeInfo& info) {
  const Instruction& in = insn_;
  switch (info.immediate) {
    case ImmKind::None: case ImmKind::I32: case ImmKind::I64: case ImmKind::F32: case ImmKind::F64:
    case ImmKind::V128:
      return true;
    case ImmKind::Memarg: return check_memarg(info.mem_bytes);
    case ImmKind::MemargLane:
    case ImmKind::Lane:
      if (info.immediate == ImmKind::MemargLane && !check_memarg(info.mem_bytes)) return false;
      return in.lane < lane_count(info) || invalid("invalid lane index");
    case ImmKind::Shuffle:
      for (int i = 0; i < 16; ++i) {
        if (in.bytes16[i] >= 32) return invalid("invalid lane index");
      }
      return true;
    case ImmKind::MemIdx: return check_memory(in.memory);
    case ImmKind::MemoryCopy: return check_memory(in.memory) && check_memory(in.memory2);
    case ImmKind::MemoryInit: return check_memory(in.memory) && check_data(in.index);
    case ImmKind::DataIdx: return check_data(in.index);
    case ImmKind::ElemIdx: return check_elem(in.index);
    case ImmKind::TableIdx: return check_table(in.index);
    case ImmKind::TableInit: {
      const uint32_t elem = in.index, table = in.index2;
      if (!check_table(table) || !check_elem(elem)) return false;
      if (!ctx_.is_subtype(ctx_.elem_type(module_.elems[elem]), ctx_.tables[table].element))
        return invalid("type mismatch: elem segment " + std::to_string(elem) + " of " +
                       describe(module_.elems[elem].type) + " into a table of " +
                       describe(ctx_.tables[table].element));
      return true;
    }
    case ImmKind::TableCopy: {
      const uint32_t dst = in.index, src = in.index2;
      if (!check_table(dst) || !check_table(src)) return false;
      if (!ctx_.is_subtype(ctx_.tables[src].element, ctx_.tables[dst].element))
        return invalid("type mismatch: table.copy from a table of " + describe(ctx_.tables[src].element) +
                       " to a table of " + describe(ctx_.tables[dst].element));
      return true;
    }
    default:
      // The other immediate kinds belong to X rows only (core/opcodes.def).
      return invalid("internal error: no generic rule for " + std::string(info.text));
  }
}

// ---------------------------------------------------------------------------
// Hand-typed instructions

bool CodeValidator::function_references_disabled(Opcode op) {
  return invalid("function references are not enabled: " + std::string(opcode_info(op).text));
}

bool CodeValidator::special(Opcode op) {
  switch (op) {
    case Opcode::Unreachable: case Opcode::Block: case Opcode::Loop: case Opcode::If: case Opcode::Else:
    case Opcode::End: case Opcode::Br: case Opcode::BrIf: case Opcode::Return:
      return control(op);
    case Opcode::BrTable: return br_table();
    case Opcode::Call: case Opcode::CallIndirect: case Opcode::ReturnCall: case Opcode::ReturnCallIndirect:
    case Opcode::CallRef: case Opcode::ReturnCallRef:
      return call(op);
    case Opcode::Drop: case Opcode::Select: case Opcode::SelectT: return parametric(op);
    case Opcode::LocalGet: case Opcode::LocalSet: case Opcode::LocalTee: case Opcode::GlobalGet:
    case Opcode::GlobalSet:
      return variable(op);
    case Opcode::TableGet: case Opcode::TableSet: case Opcode::TableGrow: case Opcode::TableFill:
      return table_op(op);
    case Opcode::RefNull: case Opcode::RefIsNull: case Opcode::RefFunc: case Opcode::RefAsNonNull:
      return reference(op);
    case Opcode::BrOnNull: case Opcode::BrOnNonNull: return br_on_null(op);
    case Opcode::Throw: case Opcode::ThrowRef: case Opcode::TryTable: return exception_instruction(op);
    case Opcode::Handle: case Opcode::Event: case Opcode::FiberNew: case Opcode::FiberSpawn:
    case Opcode::FiberResume: case Opcode::FiberSuspend: case Opcode::FiberSuspendTo: case Opcode::FiberSwitch:
    case Opcode::FiberRetire: case Opcode::FiberRetireto: case Opcode::FiberRelease:
      return fiber(op);
    default: return invalid("internal error: no typing rule for " + std::string(opcode_info(op).text));
  }
}

// -- Control ----------------------------------------------------------------

bool CodeValidator::control(Opcode op) {
  switch (op) {
    case Opcode::Unreachable:
      set_unreachable();
      return true;
    case Opcode::Block:
    case Opcode::Loop: {
      BlockSig sig;
      return block_sig(insn_.block, sig) && pop_all(sig.params) && push_ctrl(op, sig);
    }
    case Opcode::If: {
      BlockSig sig;
      return block_sig(insn_.block, sig) && pop_code(TypeCode::I32) && pop_all(sig.params) && push_ctrl(op, sig);
    }
    case Opcode::Else: {
      if (ctrls_.back().opcode != Opcode::If) return malformed("else without matching if");
      ControlFrame frame;
      return pop_ctrl(frame) && push_ctrl(Opcode::Else, frame.sig);
    }
    case Opcode::End: {
      ControlFrame frame;
      if (!pop_ctrl(frame)) return false;
      if (frame.has_clauses() && !end_clauses(frame)) return false;
      // A missing else branch passes the parameters through unchanged.
      if (frame.opcode == Opcode::If && !std::ranges::equal(frame.sig.params.types, frame.sig.results.types))
        return invalid("type mismatch: if without else must have equal parameter and result types");
      if (!ctrls_.empty()) push_all(frame.sig.results);
      return true;
    }
    case Opcode::Br: {
      const uint32_t depth = insn_.index;
      if (!check_label(depth) || !pop_all(frame_at(depth).label_types())) return false;
      set_unreachable();
      return true;
    }
    case Opcode::BrIf: {
      const uint32_t depth = insn_.index;
      if (!check_label(depth) || !pop_expect(ValType::i32())) return false;
      const Types types = frame_at(depth).label_types();
      if (!pop_all(types)) return false;
      push_all(types);
      return true;
    }
    case Opcode::Return:
      if (!pop_all(ctrls_.front().sig.results)) return false;
      set_unreachable();
      return true;
    default:
      return invalid("internal error");
  }
}

bool CodeValidator::br_table() {
  // The default label comes last but fixes the arity every target must have,
  // so check it first, then type-check each target against the stack.
  const std::span<const uint32_t> targets = insn_.br_targets.first(insn_.br_targets.size() - 1);
  const uint32_t default_depth = insn_.br_targets.back();
  if (!check_label(default_depth) || !pop_expect(ValType::i32())) return false;
  const Types default_types = frame_at(default_depth).label_types();
  for (uint32_t depth : targets) {
    if (!check_label(depth)) return false;
    const Types& types = frame_at(depth).label_types();
    if (types.types.size() != default_types.types.size())
      return invalid("type mismatch: br_table target " + std::to_string(depth) + " has arity " +
                     std::to_string(types.types.size()) + ", the default has " +
                     std::to_string(default_types.types.size()));
    if (!peek_all(types)) return false;
  }
  if (!pop_all(default_types)) return false;
  set_unreachable();
  return true;
}

// -- Calls ------------------------------------------------------------------

bool CodeValidator::call(Opcode op) {
  if ((op == Opcode::ReturnCall || op == Opcode::ReturnCallIndirect || op == Opcode::ReturnCallRef) &&
      !ctx_.options.enable_tail_call)
    return invalid("tail calls are not enabled: " + std::string(opcode_info(op).text));
  uint32_t type_index;
  if (op == Opcode::Call || op == Opcode::ReturnCall) {
    const uint32_t func = insn_.index;
    if (func >= ctx_.num_functions()) return unknown("function", func);
    type_index = ctx_.function_types[func];
  } else if (op == Opcode::CallRef || op == Opcode::ReturnCallRef) {
    // The callee: a (ref null $t) on top of the arguments.
    if (!ctx_.options.enable_function_references) return function_references_disabled(op);
    type_index = insn_.index;
    if (type_index >= module_.types.size()) return unknown("type", type_index);
    if (module_.types[type_index].is_fiber)
      return invalid("type mismatch: not a function type: " + std::string(opcode_info(op).text) + " type " +
                     std::to_string(type_index) + " is a fiber type");
    if (!pop_expect(ValType{ValType::TypedRef, true, type_index})) return false;
  } else {
    const uint32_t table = insn_.index2;
    type_index = insn_.index;
    if (!check_table(table)) return false;
    if (!ctx_.is_subtype(ctx_.tables[table].element, ValType::funcref()))
      return invalid("type mismatch: call_indirect through table " + std::to_string(table) + " of " +
                     describe(ctx_.tables[table].element));
    if (type_index >= module_.types.size()) return unknown("type", type_index);
    if (module_.types[type_index].is_fiber)
      return invalid("type mismatch: not a function type: call_indirect type " + std::to_string(type_index) +
                     " is a fiber type");
    if (!(ctx_.tables[table].limits.address64 ? pop_expect(ValType::i64()) : pop_code(TypeCode::I32))) return false;
  }
  const FuncType* type = &module_.types[type_index];
  const BlockSig& sig = type_sigs_[type_index];
  if (!pop_all(sig.params)) return false;
  if (op == Opcode::ReturnCall || op == Opcode::ReturnCallIndirect || op == Opcode::ReturnCallRef) {
    // A tail call returns the callee's results as this function's own.
    const std::span<const ValType> own = ctrls_.front().sig.results.types;
    bool match = own.size() == type->results.size();
    for (size_t i = 0; match && i < own.size(); ++i) match = ctx_.is_subtype(type->results[i], own[i]);
    if (!match)
      return invalid("type mismatch: " + std::string(opcode_info(op).text) + " to a function returning " +
                     to_string(*type) + ", which is not what this function returns");
    set_unreachable();
    return true;
  }
  push_all(sig.results);
  return true;
}

// br_on_null l:     [t* (ref null ht)] -> [t* (ref ht)], l takes [t*]
// br_on_non_null l: [t* (ref null ht)] -> [t*], l takes [t* (ref ht)]
bool CodeValidator::br_on_null(Opcode op) {
  if (!ctx_.options.enable_function_references) return function_references_disabled(op);
  const uint32_t depth = insn_.index;
  if (!check_label(depth)) return false;
  const Types label = frame_at(depth).label_types();
  ValType v;
  if (op == Opcode::BrOnNull) {
    if (!pop(v)) return false;
    if (!is_unknown(v) && !v.is_ref()) return invalid("type mismatch: br_on_null needs a reference, got " + describe(v));
    if (!pop_all(label)) return false;
    push_all(label);
    if (!is_unknown(v)) v.nullable = false;
    push(v);
    return true;
  }
  const std::span<const ValType> types = label.types;
  if (types.empty() || !types.back().is_ref())
    return invalid("type mismatch: br_on_non_null to a label whose last value is not a reference");
  ValType operand = types.back();
  operand.nullable = true;  // the operand may be null; what the branch passes on may not
  if (!pop(v)) return false;
  if (!is_unknown(v)) {
    ValType taken = v;
    taken.nullable = false;
    if (!v.is_ref() || !ctx_.is_subtype(taken, types.back())) return mismatch(operand, v);
  }
  const std::span<const ValType> rest = types.first(types.size() - 1);
  if (!pop_all(rest)) return false;
  for (ValType t : rest) push(t);
  return true;
}

// -- Parametric -------------------------------------------------------------

bool CodeValidator::parametric(Opcode op) {
  ValType top, below;
  switch (op) {
    case Opcode::Drop: return pop(top);
    case Opcode::Select: {
      if (!pop_expect(ValType::i32()) || !pop(top) || !pop(below)) return false;
      // Untyped select exists only for numeric and vector operands (executors
      // must know the width without a type annotation).
      auto numeric = [](ValType v) { return is_unknown(v) || v.is_num(); };
      auto vector = [](ValType v) { return is_unknown(v) || v.is_vec(); };
      if (!((numeric(top) && numeric(below)) || (vector(top) && vector(below))))
        return invalid("type mismatch: select without a type needs numeric or vector operands");
      if (!is_unknown(top) && !is_unknown(below) && top != below)
        return invalid("type mismatch: select operands " + describe(below) + " and " + describe(top));
      push(is_unknown(top) ? below : top);
      return true;
    }
    case Opcode::SelectT: {
      if (insn_.select_types.size() != 1) return invalid("invalid result arity");
      const ValType t = insn_.select_types[0];
      if (!check_valtype(t) || !pop_expect(ValType::i32()) || !pop_expect(t) || !pop_expect(t)) return false;
      push(t);
      return true;
    }
    default:
      return invalid("internal error");
  }
}

// -- Variables --------------------------------------------------------------

bool CodeValidator::variable(Opcode op) {
  const uint32_t index = insn_.index;
  if (op == Opcode::GlobalGet || op == Opcode::GlobalSet) {
    if (index >= ctx_.globals.size()) return unknown("global", index);
    const GlobalType& global = ctx_.globals[index];
    if (op == Opcode::GlobalGet) {
      push(global.type);
      return true;
    }
    if (!global.is_mutable) return invalid("global is immutable");
    return pop_expect(global.type);
  }
  ValType t;
  if (!local_type(index, t)) return false;
  if (index < locals_info_.size()) count_access(index);
  const bool unset = index >= num_params_ && !is_defaultable(t) && !set_locals_.contains(index);
  if (op == Opcode::LocalGet) {
    if (unset) return invalid("uninitialized local " + std::to_string(index));
    push(t);
    return true;
  }
  if (!pop_expect(t)) return false;
  if (unset) {
    set_locals_.insert(index);
    init_log_.push_back(index);
    ++init_logged_;
  }
  if (op == Opcode::LocalTee) push(t);
  return true;
}

// -- Tables -----------------------------------------------------------------

bool CodeValidator::table_op(Opcode op) {
  const uint32_t table = insn_.index;
  if (!check_table(table)) return false;
  const ValType elem = ctx_.tables[table].element;
  const ValType index = table_index_type(table);  // (i64 for a 64-bit table: memory64)
  switch (op) {
    case Opcode::TableGet:
      if (!pop_expect(index)) return false;
      push(elem);
      return true;
    case Opcode::TableSet: return pop_expect(elem) && pop_expect(index);
    case Opcode::TableGrow:
      if (!pop_expect(index) || !pop_expect(elem)) return false;
      push(index);
      return true;
    case Opcode::TableFill:
      return pop_expect(index) && pop_expect(elem) && pop_expect(index);
    default:
      return invalid("internal error");
  }
}

// -- References -------------------------------------------------------------

bool CodeValidator::reference(Opcode op) {
  switch (op) {
    case Opcode::RefNull: {
      const ValType t = insn_.heap_type;
      if (!ctx_.options.enable_function_references && t.kind == ValType::TypedRef &&
          t.type_index < module_.types.size() && !module_.types[t.type_index].is_fiber)
        return invalid("type mismatch: ref.null of a non-fiber type: type " + std::to_string(t.type_index) +
                       " is a function type");
      if (!check_valtype(t)) return false;
      push(t);
      return true;
    }
    case Opcode::RefAsNonNull: {  // [(ref null ht)] -> [(ref ht)]
      if (!ctx_.options.enable_function_references) return function_references_disabled(op);
      ValType v;
      if (!pop(v)) return false;
      if (is_unknown(v)) {
        push(kUnknown);
        return true;
      }
      if (!v.is_ref()) return invalid("type mismatch: ref.as_non_null needs a reference, got " + describe(v));
      v.nullable = false;
      push(v);
      return true;
    }
    case Opcode::RefIsNull: {
      ValType v;
      if (!pop(v)) return false;
      if (!is_unknown(v) && !v.is_ref())
        return invalid("type mismatch: ref.is_null needs a reference, got " + describe(v));
      push(ValType::i32());
      return true;
    }
    case Opcode::RefFunc: {
      const uint32_t func = insn_.index;
      if (func >= ctx_.num_functions()) return unknown("function", func);
      // C.refs: a body may only take references to functions the module
      // declares elsewhere, so engines know them before running any code.
      if (!ctx_.declared_function_refs[func]) return invalid("undeclared function reference");
      push(ValType{ValType::TypedRef, false, ctx_.function_types[func]});  // (ref $t), a subtype of funcref
      return true;
    }
    default:
      return invalid("internal error");
  }
}

}  // namespace weft::validator
