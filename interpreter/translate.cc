// Translation of validated Wasm code into the interpreter's compact code: one
// pass with a compile-time model of the operand stack. `local.get` and
// constants are not copied — later instructions read the local's or the
// constant's slot directly — and results are written straight into their
// operand-stack slot (or, for `x; local.set`, into the local itself).
#include "interpreter/translate.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <span>
#include <unordered_map>

#include "core/instruction_reader.h"
#include "core/opcodes.h"
#include "runtime/fiber_runtime.h"
#include "runtime/fuel.h"
#include "runtime/store.h"
#include "runtime/trap.h"

namespace weft::interpreter {
namespace {

using runtime::Instance;

// The body was validated: a read failure means a broken IR, reported as such.
Error broken_body(const InstructionReader& r) {
  return make_error(ErrorKind::Malformed, std::string("interpreter: ") + r.error());
}

enum class EntryKind : uint8_t { Temp, Local, Const };

// One value on the compile-time operand stack: where it lives now (`slot`) and
// the temp slot it owns by stack position (`home`).
struct Entry {
  uint32_t slot;
  uint32_t home;
  uint8_t width;
  EntryKind kind;
};

struct Fixup {
  uint32_t rel_word;  // code index of the relative-offset word
  uint32_t op_word;   // code index of the branch's op word
};

struct Ctrl {
  Opcode kind;                      // Block, Loop, If (Else after `else`), or End for the function
  uint32_t height;                  // operand entries below the block's params
  uint32_t base_slot;               // home slot of the first param/result
  std::vector<uint8_t> params;      // widths
  std::vector<uint8_t> results;     // widths
  uint32_t loop_start = 0;          // Loop: code index of the loop head
  std::vector<Fixup> fixups;        // forward branches to the end
  std::vector<uint32_t> catch_fixups;  // catch clauses (CatchTables::targets) that land at the end
  uint32_t region_begin = 0;        // TryTable: code index of the body's start
  uint32_t first_target = 0;        // TryTable: its clauses in CatchTables::targets
  uint32_t target_count = 0;
  std::optional<Fixup> else_fixup;  // If: the jump to the else branch
  bool unreachable = false;
};

// The control stack. A popped frame stays in place, its lists keeping their
// capacity for the next block at that depth (blocks allocated their width
// and fixup lists anew before).
class CtrlStack {
 public:
  size_t size() const { return size_; }
  Ctrl& back() { return frames_[size_ - 1]; }
  const Ctrl& back() const { return frames_[size_ - 1]; }
  Ctrl& operator[](size_t i) { return frames_[i]; }
  // The frame push() makes current, its fields reset and its lists empty;
  // filled in first, while back() is still the enclosing frame.
  Ctrl& next() {
    if (size_ == frames_.size()) frames_.emplace_back();
    Ctrl& c = frames_[size_];
    c.kind = Opcode::Block;
    c.height = c.base_slot = c.loop_start = c.region_begin = c.first_target = c.target_count = 0;
    c.params.clear();
    c.results.clear();
    c.fixups.clear();
    c.catch_fixups.clear();
    c.else_fixup.reset();
    c.unreachable = false;
    return c;
  }
  void push() { ++size_; }
  // The popped frame stays readable until the next next().
  void pop_back() { --size_; }
  void clear() { size_ = 0; }

 private:
  std::vector<Ctrl> frames_;
  size_t size_ = 0;
};

// What a translation builds and drops, kept by each thread from one function
// to the next with its capacity: grown from empty for every function, these
// were most of translation's allocations. The code is copied out at its exact
// size at the end.
struct TranslationScratch {
  std::vector<uint32_t> code;
  std::vector<Entry> stack;
  CtrlStack ctrls;
  std::vector<uint32_t> local_slot;
  std::vector<uint8_t> local_width;
  bool in_use = false;  // (translation runs no Wasm code, so never nests; a nested one would get its own)
};

uint8_t width_of(ValType t) { return uint8_t(t.slots()); }

// A function's distinct scalar constants → their frame slots: open
// addressing with linear probing in one array (std::unordered_map allocated
// a node per constant, a tenth of translation time on Binaryen's code).
class ConstSlotMap {
 public:
  // Adds `bits` → `slot` unless `bits` is present; whether it was added.
  bool emplace(uint64_t bits, uint32_t slot) {
    if ((count_ + 1) * 2 > cells_.size()) grow();
    Cell& c = cells_[index_of(bits)];
    if (c.used) return false;
    c = Cell{bits, slot, true};
    ++count_;
    return true;
  }
  // The slot of `bits`, which collect_constants added.
  uint32_t at(uint64_t bits) const { return cells_[index_of(bits)].slot; }

 private:
  struct Cell {
    uint64_t bits = 0;
    uint32_t slot = 0;
    bool used = false;
  };
  // Where `bits` is, or the free cell where it would go (at most half are used).
  size_t index_of(uint64_t bits) const {
    const size_t mask = cells_.size() - 1;
    size_t i = size_t((bits * 0x9E3779B97F4A7C15ull) >> 32) & mask;
    while (cells_[i].used && cells_[i].bits != bits) i = (i + 1) & mask;
    return i;
  }
  void grow() {
    std::vector<Cell> old = std::move(cells_);
    cells_.assign(old.empty() ? 16 : old.size() * 2, Cell{});
    for (const Cell& c : old)
      if (c.used) cells_[index_of(c.bits)] = c;
  }
  std::vector<Cell> cells_;
  size_t count_ = 0;
};


class Translator {
 public:
  Translator(const Instance& instance, uint32_t defined_index, uint32_t max_stack_slots, CompiledFunction& out,
             TranslationScratch& scratch)
      : inst_(instance),
        module_(*instance.module),
        func_(module_.functions[defined_index]),
        fiber_info_(instance.info->functions[defined_index]),
        out_(out),
        code_(scratch.code),
        max_stack_slots_(max_stack_slots),
        metered_(instance.store != nullptr && instance.store->fuel_enabled()),
        interruptible_(instance.store != nullptr && instance.store->interruptible()),
        local_slot_(scratch.local_slot),
        local_width_(scratch.local_width),
        stack_(scratch.stack),
        ctrls_(scratch.ctrls) {
    code_.clear();
    local_slot_.clear();
    local_width_.clear();
    stack_.clear();
    ctrls_.clear();
  }

  Result<void> run();

 private:
  // ---- emission ----------------------------------------------------------
  uint32_t here() const { return uint32_t(code_.size()); }
  void emit_op(IOp op) {
    last_producer_ = -1;
    last_op_ = op;
    last_op_pos_ = here();
    code_.push_back(uint32_t(handler_offsets()[uint32_t(op)]));
  }
  void emit(uint32_t word) { code_.push_back(word); }
  void emit_ptr(const void* ptr) {
    uint64_t v = reinterpret_cast<uint64_t>(ptr);
    code_.push_back(uint32_t(v));
    code_.push_back(uint32_t(v >> 32));
  }
  void emit_branch_to(Ctrl& target) {
    emit_op(IOp::IBr);
    uint32_t op_pos = last_op_pos_;
    if (target.kind == Opcode::Loop) {
      emit(uint32_t(int32_t(target.loop_start) - int32_t(op_pos)));
    } else {
      target.fixups.push_back({here(), op_pos});
      emit(0);
    }
  }
  void patch(const Fixup& f, uint32_t target) { code_[f.rel_word] = uint32_t(int32_t(target) - int32_t(f.op_word)); }
  void bind_label() { last_producer_ = -1; last_op_pos_ = UINT32_MAX; }
  // Fuel metering (only when the store meters fuel; see internal_ops.def).
  void emit_fuel(uint32_t amount) {
    if (!metered_) return;
    emit_op(IOp::IFuel);
    emit(amount);
  }
  // Where fuel is charged (function entry, loop heads), an interruptible
  // store's code also checks for an interrupt.
  void emit_interrupt_check() {
    if (interruptible_) emit_op(IOp::IInterruptCheck);
  }
  // Before a bulk instruction whose length operand is `len`: charge 1 per
  // 2^shift units of length (64 KiB of bytes, or 8192 table elements).
  void emit_fuel_bulk(const Entry& len, uint32_t shift, bool i64_length = false) {
    if (!metered_) return;
    emit_op(i64_length ? IOp::IFuelBulk64 : IOp::IFuelBulk);
    emit(len.slot);
    emit(shift);
  }

  // ---- operand stack model -------------------------------------------------
  uint32_t next_home() const { return stack_.empty() ? temp_base_ : stack_.back().home + stack_.back().width; }
  void push_temp(uint8_t width) {
    uint32_t h = next_home();
    stack_.push_back({h, h, width, EntryKind::Temp});
  }
  Entry pop() {
    Entry e = stack_.back();
    stack_.pop_back();
    return e;
  }
  void copy(uint32_t dst, uint32_t src, uint8_t width) {
    if (dst == src) return;
    emit_op(width == 2 ? IOp::ICopy128 : IOp::ICopy);
    emit(dst);
    emit(src);
  }
  void materialize(Entry& e) {
    if (e.kind == EntryKind::Temp) return;
    copy(e.home, e.slot, e.width);
    e.slot = e.home;
    e.kind = EntryKind::Temp;
  }
  void materialize_locals() {
    for (Entry& e : stack_)
      if (e.kind == EntryKind::Local) materialize(e);
  }
  void materialize_top(size_t n) {
    for (size_t i = stack_.size() - n; i < stack_.size(); ++i) materialize(stack_[i]);
  }
  // A producer: `op dst operands…`, result pushed as a temp at its home.
  void emit_producer(IOp op, std::initializer_list<uint32_t> operands, uint8_t width) {
    uint32_t dst = next_home();
    emit_op(op);
    uint32_t dst_pos = here();
    emit(dst);
    for (uint32_t w : operands) emit(w);
    push_temp(width);
    last_producer_ = int64_t(dst_pos);
  }

  // Moves the top `widths.size()` values into consecutive slots from `base`
  // (a label's params/results). Bottom-up order is safe: see code.h.
  void move_top_to(uint32_t base, const std::vector<uint8_t>& widths) {
    size_t n = widths.size();
    uint32_t dst = base;
    for (size_t i = stack_.size() - n; i < stack_.size(); ++i) {
      copy(dst, stack_[i].slot, stack_[i].width);
      dst += stack_[i].width;
    }
  }

  uint32_t const_slot(uint64_t bits) const { return const_slots_.at(bits); }
  void push_const(uint64_t bits) {
    uint32_t h = next_home();
    stack_.push_back({const_slot(bits), h, 1, EntryKind::Const});
  }
  // A v128.const immediate as its two slot values (lo, hi): little-endian lanes.
  using V128Bits = std::pair<uint64_t, uint64_t>;
  static V128Bits v128_bits(const Instruction& in) {
    V128Bits v;
    std::memcpy(&v.first, in.bytes16, 8);
    std::memcpy(&v.second, in.bytes16 + 8, 8);
    return v;
  }
  void push_const128(const Instruction& in) {
    uint32_t h = next_home();
    stack_.push_back({v128_const_slots_.find(v128_bits(in))->second, h, 2, EntryKind::Const});
  }
  void emit_simd(const Instruction& in);
  bool touches_memory64(ImmKind kind, const Instruction& in) const;
  void emit_memory_in(const Instruction& in);
  void check_table64_operands(const Instruction& in);
  void check_index64(size_t depth, runtime::TrapKind kind);  // the stack operand `depth` from the top

  struct CondBranch {
    IOp op;
    uint32_t operands[2];
    int count;
  };
  CondBranch branch_on(const Entry& cond, bool jump_when_true);
  bool take_address_add(const Entry& addr, uint32_t& x, uint32_t& y);
  static IOp address_add_form(Opcode access) {
    return IOp(uint32_t(IOp::II32LoadAdd) + (uint32_t(access) - uint32_t(Opcode::I32Load)));
  }
  void emit_cond_branch(const CondBranch& br, Fixup& fixup);

  // Exception handling.
  CatchTables& catch_tables() {
    if (!out_.catches) out_.catches = std::make_unique<CatchTables>();
    return *out_.catches;
  }
  void enter_try_table(const Instruction& in);
  void emit_throw(const runtime::TagInstance* tag);
  std::vector<uint32_t> return_fixups_;  // catch clauses that return from the function
  // A tail call of a host function is a call in this frame, but it left the
  // try_tables around it: its code from `begin` on is a CatchHole.
  void leave_catch_ranges(uint32_t begin) {
    for (size_t i = 0; i < ctrls_.size(); ++i)
      if (ctrls_[i].kind == Opcode::TryTable) {
        catch_tables().holes.push_back({begin, here()});
        return;
      }
  }

  // Fiber extension.
  DispatchSite* new_site(uint32_t body_offset);
  void do_event(uint32_t tag_index, uint32_t clause_offset);
  uint32_t take_payload(size_t entries);
  void emit_fiber_op(const Instruction& in);
  // A fiber instruction that delivers an event: op, its dispatch site (none
  // for retire/retireto, which never come back), the fiber operands, then the
  // tag identity and the payload's first slot and width.
  void emit_event(IOp op, const DispatchSite* site, std::initializer_list<uint32_t> fibers,
                  const runtime::TagInstance* tag, uint32_t payload) {
    emit_op(op);
    if (site) emit_ptr(site);
    for (uint32_t slot : fibers) emit(slot);
    emit(uint32_t(tag->id));
    emit(payload);
    emit(tag->param_slots);
  }
  // The slot contents of a constant instruction (t.const, ref.null, ref.func), else nullopt.
  std::optional<uint64_t> constant_bits(const Instruction& in) const {
    switch (in.op) {
      case Opcode::I32Const: case Opcode::I64Const: case Opcode::F32Const: case Opcode::F64Const: return in.bits;
      case Opcode::RefNull: return 0;
      case Opcode::RefFunc: return reinterpret_cast<uint64_t>(inst_.functions[in.index]);
      default: return std::nullopt;
    }
  }
  void push_results(const std::vector<ValType>& results);
  void build_dispatch_tables();

  Result<void> collect_constants();
  void block_types(const BlockType& bt, std::vector<uint8_t>& params, std::vector<uint8_t>& results) const;
  void enter_block(Opcode kind, const BlockType& block_type);
  void do_else();
  bool do_end();  // returns true when the function's end was reached
  void do_branch(uint32_t depth);
  void do_br_if(uint32_t depth, bool jump_when_true = true);  // pops the condition
  void do_br_table(std::span<const uint32_t> targets);
  void emit_return();
  void emit_call(runtime::FuncInstance* callee);
  bool reachable() const { return !ctrls_.back().unreachable; }
  void set_unreachable() {
    ctrls_.back().unreachable = true;
    stack_.resize(ctrls_.back().height);
  }

  const Instance& inst_;
  const Module& module_;
  const Function& func_;
  // Fiber extension: the validator's handler scopes (the one source of them),
  // each dispatch site with its scope, and each translated clause by the body
  // offset the validator names it by.
  const validator::FunctionInfo& fiber_info_;
  size_t next_point_ = 0;
  std::vector<std::pair<DispatchSite*, const std::vector<validator::EventClause>*>> site_scopes_;
  std::unordered_map<uint32_t, DispatchSite::Clause> clause_at_;
  CompiledFunction& out_;
  std::vector<uint32_t>& code_;
  uint32_t max_stack_slots_;
  const bool metered_;
  const bool interruptible_;

  std::vector<uint32_t>& local_slot_;
  std::vector<uint8_t>& local_width_;
  uint32_t temp_base_ = 0;
  ConstSlotMap const_slots_;
  std::map<V128Bits, uint32_t> v128_const_slots_;  // first of the two slots
  std::vector<Entry>& stack_;
  CtrlStack& ctrls_;
  int64_t last_producer_ = -1;  // code index of the dst word of the last emitted producer
  uint32_t last_op_pos_ = UINT32_MAX;
  IOp last_op_ = IOp::ICopy;
  uint32_t skip_depth_ = 0;     // nesting of blocks inside unreachable code
};

// A conditional branch on `cond`. When `cond` was computed by the instruction
// just emitted (an i32 comparison or eqz) and nothing was emitted since, that
// instruction is removed and the branch tests its operands directly.
Translator::CondBranch Translator::branch_on(const Entry& cond, bool jump_when_true) {
  CondBranch plain{jump_when_true ? IOp::IBrIf : IOp::IBrUnless, {cond.slot, 0}, 1};
  if (cond.kind != EntryKind::Temp || last_producer_ != int64_t(last_op_pos_) + 1 || code_[last_op_pos_ + 1] != cond.slot)
    return plain;
  struct Fusable { IOp compare, when_true, when_false; };
  static constexpr Fusable kFusable[] = {
      {IOp::I32Eq, IOp::IBrI32Eq, IOp::IBrI32Ne},     {IOp::I32Ne, IOp::IBrI32Ne, IOp::IBrI32Eq},
      {IOp::I32LtS, IOp::IBrI32LtS, IOp::IBrI32GeS},  {IOp::I32LtU, IOp::IBrI32LtU, IOp::IBrI32GeU},
      {IOp::I32GtS, IOp::IBrI32GtS, IOp::IBrI32LeS},  {IOp::I32GtU, IOp::IBrI32GtU, IOp::IBrI32LeU},
      {IOp::I32LeS, IOp::IBrI32LeS, IOp::IBrI32GtS},  {IOp::I32LeU, IOp::IBrI32LeU, IOp::IBrI32GtU},
      {IOp::I32GeS, IOp::IBrI32GeS, IOp::IBrI32LtS},  {IOp::I32GeU, IOp::IBrI32GeU, IOp::IBrI32LtU},
  };
  const uint32_t pos = last_op_pos_;
  if (last_op_ == IOp::I32Eqz && here() == pos + 3) {
    CondBranch br{jump_when_true ? IOp::IBrUnless : IOp::IBrIf, {code_[pos + 2], 0}, 1};
    code_.resize(pos);
    last_producer_ = -1;
    return br;
  }
  for (const Fusable& f : kFusable) {
    if (last_op_ == f.compare && here() == pos + 4) {
      CondBranch br{jump_when_true ? f.when_true : f.when_false, {code_[pos + 2], code_[pos + 3]}, 2};
      code_.resize(pos);
      last_producer_ = -1;
      return br;
    }
  }
  return plain;
}

// The fused rows follow opcodes.def order (see address_add_ops.inc).
static_assert(uint32_t(Opcode::I64Store32) - uint32_t(Opcode::I32Load) ==
              uint32_t(IOp::II64Store32Add) - uint32_t(IOp::II32LoadAdd));
static_assert(uint32_t(IOp::II64Load32UAdd) - uint32_t(IOp::II32LoadAdd) ==
              uint32_t(Opcode::I64Load32U) - uint32_t(Opcode::I32Load));

// A memory access whose address temp was computed by the `i32.add` just
// emitted (nothing since, no label between): the add is removed and its two
// operand slots returned, for the access's fused form to add itself. The temp
// it wrote had no other reader — the access pops it.
bool Translator::take_address_add(const Entry& addr, uint32_t& x, uint32_t& y) {
  const uint32_t pos = last_op_pos_;
  if (addr.kind != EntryKind::Temp || pos == UINT32_MAX || last_op_ != IOp::I32Add || here() != pos + 4 ||
      last_producer_ != int64_t(pos) + 1 || code_[pos + 1] != addr.slot)
    return false;
  x = code_[pos + 2];
  y = code_[pos + 3];
  code_.resize(pos);
  last_producer_ = -1;
  last_op_pos_ = UINT32_MAX;
  return true;
}

// Emits `br` with a zero offset and records where to patch it.
void Translator::emit_cond_branch(const CondBranch& br, Fixup& fixup) {
  emit_op(br.op);
  fixup.op_word = last_op_pos_;
  for (int i = 0; i < br.count; ++i) emit(br.operands[i]);
  fixup.rel_word = here();
  emit(0);
}

// ---- fiber extension -------------------------------------------------------------

// A suspension point's dispatch site. Its clauses are the validator's
// handler scope for the instruction at `body_offset` (validator::
// SuspensionPoint, docs/fibers.md §5.3: inner handles first, the innermost
// clause for a tag wins) — the one source both tiers use; they are resolved
// to code positions once every clause has been translated.
DispatchSite* Translator::new_site(uint32_t body_offset) {
  out_.sites.push_back(std::make_unique<DispatchSite>());
  DispatchSite* site = out_.sites.back().get();
  site->code_pos = here();
  const std::vector<validator::SuspensionPoint>& points = fiber_info_.suspension_points();
  // Sites are created in body order, as the validator lists the points
  // (dead code has no sites, so points may be skipped).
  while (next_point_ < points.size() && points[next_point_].body_offset < body_offset) ++next_point_;
  static const std::vector<validator::EventClause> kNoClauses;  // (only for a point the validator missed)
  const bool listed = next_point_ < points.size() && points[next_point_].body_offset == body_offset;
  site_scopes_.push_back({site, listed ? &points[next_point_].scope : &kNoClauses});
  return site;
}

void Translator::do_event(uint32_t tag_index, uint32_t clause_offset) {
  Ctrl& c = ctrls_.back();
  const bool function_level = ctrls_.size() == 1;
  // Reaching a clause ends the previous segment as `end` would.
  if (reachable()) {
    if (function_level) {
      emit_return();
    } else {
      move_top_to(c.base_slot, c.results);
      emit_branch_to(c);
    }
  }
  bind_label();
  c.unreachable = false;
  stack_.resize(c.height);
  const runtime::TagInstance* tag = inst_.tags[tag_index];
  clause_at_.emplace(clause_offset, DispatchSite::Clause{here(), next_home(), tag_index});
  for (ValType t : tag->type->params) push_temp(width_of(t));
}

// try_table: a block whose body's code range catches (CatchRegion); each
// clause lands at its label with the label's values in the label's slots,
// as a branch would leave them. The labels are outside the try_table, so
// the clauses are resolved before its frame opens.
void Translator::enter_try_table(const Instruction& in) {
  const uint32_t first = uint32_t(catch_tables().targets.size());
  for (const CatchClause& clause : in.catches) {
    CatchTarget t;
    const uint32_t target_index = uint32_t(ctrls_.size() - 1 - clause.label);
    Ctrl& target = ctrls_[target_index];
    const uint32_t index = uint32_t(catch_tables().targets.size());
    if (clause.has_tag()) {
      const runtime::TagInstance* tag = inst_.tags[clause.tag];
      t.tag_id = tag->id;
      t.payload_slots = tag->param_slots;
    }
    t.with_ref = clause.with_ref();
    if (target_index == 0) {
      t.dest_slot = 0;  // the function's results, then return
      return_fixups_.push_back(index);
    } else {
      t.dest_slot = target.base_slot;
      if (target.kind == Opcode::Loop)
        t.target_pc = target.loop_start;
      else
        target.catch_fixups.push_back(index);
    }
    catch_tables().targets.push_back(t);
  }
  enter_block(Opcode::TryTable, in.block);
  Ctrl& c = ctrls_.back();
  c.first_target = first;
  c.target_count = uint32_t(catch_tables().targets.size()) - first;
  bind_label();  // nothing before the body may fuse with it
  c.region_begin = here();
}

void Translator::emit_throw(const runtime::TagInstance* tag) {
  const uint32_t payload = take_payload(tag->type->params.size());
  emit_op(IOp::IThrow);
  emit_ptr(tag);
  emit(payload);
  set_unreachable();
}

// Makes the top `entries` operands contiguous in their homes and pops them;
// returns the first slot.
uint32_t Translator::take_payload(size_t entries) {
  materialize_top(entries);
  uint32_t base = entries ? stack_[stack_.size() - entries].home : next_home();
  stack_.resize(stack_.size() - entries);
  return base;
}

void Translator::push_results(const std::vector<ValType>& results) {
  for (ValType t : results) push_temp(width_of(t));
}

void Translator::emit_fiber_op(const Instruction& in) {
  const Opcode op = in.op;
  auto tag_of = [&](uint32_t index) { return inst_.tags[index]; };
  switch (op) {
    case Opcode::FiberNew:
    case Opcode::FiberSpawn: {
      runtime::FuncInstance* fn = inst_.functions[in.index];
      const FuncType& ft = *fn->type;
      const size_t nargs = ft.params.size() - 1;  // the first parameter is the fiber itself
      uint32_t arg_slots = 0;
      for (size_t i = 1; i < ft.params.size(); ++i) arg_slots += width_of(ft.params[i]);
      uint32_t args = take_payload(nargs);
      if (op == Opcode::FiberNew) {
        uint32_t dst = next_home();
        emit_op(IOp::IFiberNew);
        emit(dst);
        emit_ptr(fn);
        emit(args);
        emit(arg_slots);
        push_temp(1);
        return;
      }
      DispatchSite* site = new_site(in.offset);
      uint32_t result_slots = 0;
      for (ValType t : ft.results) result_slots += width_of(t);
      emit_op(IOp::IFiberSpawn);
      emit_ptr(site);
      emit_ptr(fn);
      emit(args);
      emit(arg_slots);
      emit(next_home());
      emit(result_slots);
      push_results(ft.results);
      return;
    }
    case Opcode::FiberResume:
    case Opcode::FiberSuspendTo: {
      const FuncType& g = module_.types[in.index];
      const runtime::TagInstance* tag = tag_of(in.index2);
      uint32_t payload = take_payload(tag->type->params.size());
      Entry target = pop();
      uint32_t result_slots = 0;
      for (ValType t : g.results) result_slots += width_of(t);
      emit_event(op == Opcode::FiberResume ? IOp::IFiberResume : IOp::IFiberSuspendTo, new_site(in.offset),
                 {target.slot}, tag, payload);
      emit(next_home());
      emit(result_slots);
      push_results(g.results);
      return;
    }
    case Opcode::FiberSuspend:
    case Opcode::FiberRetire: {
      const runtime::TagInstance* tag = tag_of(in.index);
      uint32_t payload = take_payload(tag->type->params.size());
      Entry self = pop();
      if (op == Opcode::FiberSuspend) emit_event(IOp::IFiberSuspend, new_site(in.offset), {self.slot}, tag, payload);
      else emit_event(IOp::IFiberRetire, nullptr, {self.slot}, tag, payload);  // never comes back: no site
      set_unreachable();
      return;
    }
    case Opcode::FiberSwitch:
    case Opcode::FiberRetireto: {
      const runtime::TagInstance* tag = tag_of(in.index2);  // in.index, $g: only typing depends on it
      uint32_t payload = take_payload(tag->type->params.size());
      Entry target = pop();
      Entry self = pop();
      if (op == Opcode::FiberSwitch)
        emit_event(IOp::IFiberSwitch, new_site(in.offset), {self.slot, target.slot}, tag, payload);
      else
        emit_event(IOp::IFiberRetireto, nullptr, {self.slot, target.slot}, tag, payload);
      set_unreachable();
      return;
    }
    case Opcode::FiberRelease: {
      Entry f = pop();
      emit_op(IOp::IFiberRelease);
      emit(f.slot);
      return;
    }
    default: return;
  }
}

// Freezes every site's clauses into its perfect-hash table (tag identity →
// clause), once the whole function is translated.
void Translator::build_dispatch_tables() {
  for (const auto& [site, scope] : site_scopes_) {
    std::vector<uint64_t> keys;
    std::vector<uint32_t> values;
    for (const validator::EventClause& in_scope : *scope) {
      const uint64_t id = inst_.tags[in_scope.tag]->id;
      // Two tag indices may name one tag (imported twice): the first wins.
      if (std::find(keys.begin(), keys.end(), id) != keys.end()) continue;
      auto clause = clause_at_.find(in_scope.body_offset);
      if (clause == clause_at_.end()) continue;  // a clause in dead code: no live point has it in scope
      keys.push_back(id);
      values.push_back(uint32_t(site->clauses.size()));
      site->clauses.push_back(clause->second);
    }
    site->table = fibers::DispatchTable::build(keys, values);
    if (!site->clauses.empty()) {
      site->first_key = keys[0];
      site->first_clause = site->clauses[0];
    }
  }
}

// ---- 64-bit memories ---------------------------------------------------------

bool Translator::touches_memory64(ImmKind kind, const Instruction& in) const {
  switch (kind) {
    case ImmKind::Memarg: case ImmKind::MemargLane: case ImmKind::MemIdx: case ImmKind::MemoryInit:
      return inst_.memories[in.memory]->type.limits.address64;
    case ImmKind::MemoryCopy:
      return inst_.memories[in.memory]->type.limits.address64 || inst_.memories[in.memory2]->type.limits.address64;
    default: return false;
  }
}

// The i64 operands of an instruction on a 64-bit table that the i32
// handlers then read as indices and lengths: ICheckIndex64 first.
void Translator::check_table64_operands(const Instruction& in) {
  const auto wide = [&](uint32_t table) { return inst_.tables[table]->type.limits.address64; };
  constexpr runtime::TrapKind kOut = runtime::TrapKind::TableOutOfBounds;
  switch (in.op) {
    case Opcode::TableGet: if (wide(in.index)) check_index64(0, kOut); break;
    case Opcode::TableSet: if (wide(in.index)) check_index64(1, kOut); break;
    case Opcode::TableFill:
      if (wide(in.index)) {
        check_index64(2, kOut);
        check_index64(0, kOut);
      }
      break;
    case Opcode::TableInit: if (wide(in.index2)) check_index64(2, kOut); break;
    case Opcode::TableCopy:
      if (wide(in.index)) check_index64(2, kOut);
      if (wide(in.index2)) check_index64(1, kOut);
      if (wide(in.index) && wide(in.index2)) check_index64(0, kOut);
      break;
    case Opcode::CallIndirect: case Opcode::ReturnCallIndirect:
      if (wide(in.index2)) check_index64(0, runtime::TrapKind::UndefinedElement);
      break;
    default: break;
  }
}

void Translator::check_index64(size_t depth, runtime::TrapKind kind) {
  emit_op(IOp::ICheckIndex64);
  emit(stack_[stack_.size() - 1 - depth].slot);
  emit(uint32_t(kind));
}

// memory.size, memory.grow and the bulk instructions of a memory other
// than an i32 memory 0 (or copies with one): the *In ops, with their
// memories in the code.
void Translator::emit_memory_in(const Instruction& in) {
  const runtime::MemoryInstance* memory = inst_.memories[in.memory];
  const uint64_t bits = reinterpret_cast<uint64_t>(memory);
  switch (in.op) {
    case Opcode::MemorySize: emit_producer(IOp::IMemorySizeIn, {uint32_t(bits), uint32_t(bits >> 32)}, 1); return;
    case Opcode::MemoryGrow: {
      Entry d = pop();
      emit_producer(IOp::IMemoryGrowIn, {d.slot, uint32_t(bits), uint32_t(bits >> 32)}, 1);
      return;
    }
    default: break;
  }
  Entry n = pop(), s = pop(), d = pop();
  const bool i64_length = memory->type.limits.address64 &&
                          (in.op != Opcode::MemoryCopy || inst_.memories[in.memory2]->type.limits.address64);
  emit_fuel_bulk(n, runtime::fuel::kMemoryBytesShift, i64_length);
  switch (in.op) {
    case Opcode::MemoryFill: emit_op(IOp::IMemoryFillIn); break;
    case Opcode::MemoryInit: emit_op(IOp::IMemoryInitIn); break;
    default: emit_op(IOp::IMemoryCopyIn); break;
  }
  emit(d.slot); emit(s.slot); emit(n.slot);
  emit_ptr(memory);
  if (in.op == Opcode::MemoryInit) emit_ptr(&inst_.datas[in.index]);
  if (in.op == Opcode::MemoryCopy) emit_ptr(inst_.memories[in.memory2]);
}

// ---- SIMD -------------------------------------------------------------------

// Every SIMD instruction but v128.const executes as the op of the same name,
// with the operand words interpreter/simd_ops.def lists for its shape; the
// shape follows from the opcode table's immediate kind and signature.
void Translator::emit_simd(const Instruction& in) {
  const OpcodeInfo& info = opcode_info(in.op);
  const IOp iop = IOp(uint32_t(in.op));
  const uint8_t result_width = info.result == SigType::V128 ? 2 : 1;
  const uint32_t offset = uint32_t(in.mem_offset);  // the alignment is irrelevant for execution
  switch (info.immediate) {
    case ImmKind::V128: push_const128(in); return;
    case ImmKind::Memarg:
      if (info.result == SigType::None) {  // v128.store: addr, value, offset
        Entry v = pop(), a = pop();
        emit_op(iop);
        emit(a.slot); emit(v.slot); emit(offset);
      } else {
        Entry a = pop();
        emit_producer(iop, {a.slot, offset}, 2);
      }
      return;
    case ImmKind::MemargLane: {
      Entry v = pop(), a = pop();
      if (info.result == SigType::None) {  // store*_lane: addr, vector, offset, lane
        emit_op(iop);
        emit(a.slot); emit(v.slot); emit(offset); emit(in.lane);
      } else {
        emit_producer(iop, {a.slot, v.slot, offset, in.lane}, 2);
      }
      return;
    }
    case ImmKind::Lane:
      if (info.operand_count() == 1) {  // extract_lane: vector, lane
        Entry v = pop();
        emit_producer(iop, {v.slot, in.lane}, result_width);
      } else {  // replace_lane: vector, scalar, lane
        Entry x = pop(), v = pop();
        emit_producer(iop, {v.slot, x.slot, in.lane}, 2);
      }
      return;
    case ImmKind::Shuffle: {
      Entry b = pop(), a = pop();
      uint32_t words[4];
      std::memcpy(words, in.bytes16, 16);
      emit_producer(iop, {a.slot, b.slot, words[0], words[1], words[2], words[3]}, 2);
      return;
    }
    default: break;
  }
  // No immediate: one to three operands, the result a v128 or an i32.
  switch (info.operand_count()) {
    case 1: {
      Entry a = pop();
      emit_producer(iop, {a.slot}, result_width);
      return;
    }
    case 2: {
      Entry b = pop(), a = pop();
      emit_producer(iop, {a.slot, b.slot}, result_width);
      return;
    }
    default: {
      Entry c = pop(), b = pop(), a = pop();
      emit_producer(iop, {a.slot, b.slot, c.slot}, result_width);
      return;
    }
  }
}

Result<void> Translator::collect_constants() {
  // A pre-pass assigns every distinct constant one frame slot, so constant
  // slots sit below the operand temps (which callee frames may overlap).
  InstructionReader r(func_.body);
  Instruction in;
  // The constants follow the locals' zeros in frame_init, in slot order.
  uint32_t next = out_.const_base;
  auto add = [&](uint64_t bits) {
    if (const_slots_.emplace(bits, next)) {
      out_.frame_init.push_back(bits);
      ++next;
    }
  };
  while (!r.at_end()) {
    if (!r.next(in)) return broken_body(r);
    if (std::optional<uint64_t> bits = constant_bits(in)) {
      add(*bits);
    } else if (in.op == Opcode::V128Const) {
      // Two consecutive slots, lo first; deduplicated apart from the scalars.
      const V128Bits v = v128_bits(in);
      if (v128_const_slots_.emplace(v, next).second) {
        out_.frame_init.push_back(v.first);
        out_.frame_init.push_back(v.second);
        next += 2;
      }
    }
  }
  return {};
}

void Translator::block_types(const BlockType& bt, std::vector<uint8_t>& params, std::vector<uint8_t>& results) const {
  params.clear();
  results.clear();
  switch (bt.kind) {
    case BlockType::Empty: return;
    case BlockType::Value: results.push_back(width_of(bt.value)); return;
    case BlockType::TypeIndex: break;
  }
  const FuncType& ft = module_.types[bt.type_index];
  for (ValType t : ft.params) params.push_back(width_of(t));
  for (ValType t : ft.results) results.push_back(width_of(t));
}

void Translator::enter_block(Opcode kind, const BlockType& block_type) {
  Ctrl& c = ctrls_.next();
  c.kind = kind;
  block_types(block_type, c.params, c.results);
  // Values that stay below the block must not alias locals the block may write
  // (nor, for loops, be re-read after a back edge); params must sit in their homes.
  materialize_locals();
  materialize_top(c.params.size());
  c.height = uint32_t(stack_.size() - c.params.size());
  c.base_slot = c.params.empty() ? next_home() : stack_[c.height].home;
  if (kind == Opcode::If) {
    // (the condition was popped by the caller)
  }
  if (kind == Opcode::Loop) {
    bind_label();
    c.loop_start = here();
    emit_fuel(runtime::fuel::kLoopIteration);  // every branch to the loop head (each iteration) pays
    emit_interrupt_check();
  }
  ctrls_.push();
}

void Translator::do_else() {
  Ctrl& c = ctrls_.back();
  if (reachable()) {
    move_top_to(c.base_slot, c.results);
    emit_branch_to(c);
  }
  bind_label();
  if (c.else_fixup) patch(*c.else_fixup, here());
  c.else_fixup.reset();
  c.kind = Opcode::Else;
  c.unreachable = false;
  stack_.resize(c.height);
  for (uint8_t w : c.params) push_temp(w);
}

bool Translator::do_end() {
  Ctrl& c = ctrls_.back();
  bool fallthrough = reachable();
  if (ctrls_.size() == 1) {
    if (fallthrough) emit_return();
    // Branches to the function's label were compiled as returns.
    ctrls_.pop_back();
    return true;
  }
  if (c.kind == Opcode::TryTable) {
    // Code after the body (the moves below) cannot throw: the range ends here.
    catch_tables().regions.push_back({c.region_begin, here(), c.first_target, c.target_count});
  }
  if (fallthrough) move_top_to(c.base_slot, c.results);
  bool reachable_after = fallthrough;
  if (c.kind != Opcode::Loop) {
    if (!c.fixups.empty() || c.else_fixup || !c.catch_fixups.empty()) {
      bind_label();
      reachable_after = true;
    }
    for (uint32_t t : c.catch_fixups) catch_tables().targets[t].target_pc = here();
    for (const Fixup& f : c.fixups) patch(f, here());
    if (c.else_fixup) patch(*c.else_fixup, here());  // `if` without `else`: params == results
  }
  const Ctrl& done = ctrls_.back();
  ctrls_.pop_back();  // (still readable until the next block)
  stack_.resize(done.height);
  for (uint8_t w : done.results) push_temp(w);
  if (!reachable_after) set_unreachable();
  return false;
}

void Translator::emit_return() {
  const FuncType& ft = module_.types[func_.type_index];
  size_t n = ft.results.size();
  uint32_t result_slots = out_.result_slots;
  // Results go to slots 0..; a local or constant read from one of those slots
  // must be saved first or an earlier result copy would overwrite it.
  for (size_t i = stack_.size() - n; i < stack_.size(); ++i) {
    Entry& e = stack_[i];
    if (e.kind != EntryKind::Temp && e.slot < result_slots) materialize(e);
  }
  uint32_t dst = 0;
  for (size_t i = stack_.size() - n; i < stack_.size(); ++i) {
    copy(dst, stack_[i].slot, stack_[i].width);
    dst += stack_[i].width;
  }
  emit_op(IOp::IReturn);
}

void Translator::do_branch(uint32_t depth) {
  Ctrl& target = ctrls_[ctrls_.size() - 1 - depth];
  if (depth == ctrls_.size() - 1) {
    emit_return();
    return;
  }
  const auto& widths = target.kind == Opcode::Loop ? target.params : target.results;
  move_top_to(target.base_slot, widths);
  emit_branch_to(target);
}

void Translator::do_br_if(uint32_t depth, bool jump_when_true) {
  Entry cond = pop();
  Ctrl& target = ctrls_[ctrls_.size() - 1 - depth];
  bool is_function = depth == ctrls_.size() - 1;
  const auto& widths = target.kind == Opcode::Loop ? target.params : target.results;
  bool needs_moves = is_function;
  if (!is_function) {
    uint32_t dst = target.base_slot;
    for (size_t i = stack_.size() - widths.size(); i < stack_.size(); ++i) {
      if (stack_[i].slot != dst) needs_moves = true;
      dst += stack_[i].width;
    }
  }
  if (!needs_moves) {
    Fixup f{};
    emit_cond_branch(branch_on(cond, jump_when_true), f);
    if (target.kind == Opcode::Loop) patch(f, target.loop_start);
    else target.fixups.push_back(f);
    return;
  }
  // Taken path needs value moves: skip over them when not taken.
  Fixup skip{};
  emit_cond_branch(branch_on(cond, !jump_when_true), skip);
  if (is_function) {
    // The return path may save locals into temps; the fall-through path must
    // keep the model it had, so restore it afterwards.
    std::vector<Entry> saved = stack_;
    emit_return();
    stack_ = std::move(saved);
  } else {
    move_top_to(target.base_slot, widths);
    emit_branch_to(target);
  }
  bind_label();
  patch(skip, here());
}

void Translator::do_br_table(std::span<const uint32_t> depths) {
  const uint32_t n = uint32_t(depths.size()) - 1;  // the targets, then the default
  Entry index = pop();
  emit_op(IOp::IBrTable);
  uint32_t op_pos = last_op_pos_;
  emit(index.slot);
  emit(n);
  uint32_t table_pos = here();
  for (uint32_t i = 0; i <= n; ++i) emit(0);
  // Each target gets a stub (moves + branch) unless its values are already in place.
  std::unordered_map<uint32_t, uint32_t> stub_for_depth;
  for (uint32_t i = 0; i <= n; ++i) {
    uint32_t depth = depths[i];
    auto it = stub_for_depth.find(depth);
    if (it == stub_for_depth.end()) {
      bind_label();
      uint32_t stub = here();
      std::vector<Entry> saved = stack_;  // each stub starts from the br_table's model
      do_branch(depth);
      stack_ = std::move(saved);
      it = stub_for_depth.emplace(depth, stub).first;
    }
    code_[table_pos + i] = uint32_t(int32_t(it->second) - int32_t(op_pos));
  }
}

void Translator::emit_call(runtime::FuncInstance* callee) {
  size_t nargs = callee->type->params.size();
  materialize_top(nargs);
  uint32_t arg_base = nargs ? stack_[stack_.size() - nargs].home : next_home();
  if (callee->is_host()) {
    emit_op(IOp::ICallHost);
    emit(arg_base);
    emit_ptr(callee);
  } else {
    emit_op(IOp::ICall);
    emit(arg_base);
    emit_ptr(record_of(callee));
  }
  stack_.resize(stack_.size() - nargs);
  for (ValType t : callee->type->results) push_temp(width_of(t));
}

Result<void> Translator::run() {
  const FuncType& ft = module_.types[func_.type_index];
  uint32_t slot = 0;
  for (ValType t : ft.params) {
    local_slot_.push_back(slot);
    local_width_.push_back(width_of(t));
    slot += width_of(t);
  }
  out_.param_slots = slot;
  // The binary format allows ~2^32 locals; a frame that large could never run,
  // so refuse it here instead of allocating the slot map.
  uint64_t declared = 0;
  for (const LocalGroup& g : func_.locals) declared += uint64_t(g.count) * width_of(g.type);
  if (declared > kMaxLocalSlots)
    return make_error(ErrorKind::Limit, "function declares " + std::to_string(declared) +
                                            " local slots; the interpreter supports at most " +
                                            std::to_string(kMaxLocalSlots));
  for (const LocalGroup& g : func_.locals) {
    for (uint32_t i = 0; i < g.count; ++i) {
      local_slot_.push_back(slot);
      local_width_.push_back(width_of(g.type));
      slot += width_of(g.type);
    }
  }
  out_.local_slots = slot - out_.param_slots;
  out_.const_base = slot;
  for (ValType t : ft.results) out_.result_slots += width_of(t);
  out_.frame_init.assign(out_.local_slots, 0);
  WEFT_TRY(collect_constants());  // (appends the constants to frame_init)
  temp_base_ = out_.const_base + uint32_t(out_.frame_init.size() - out_.local_slots);
  out_.frame_slots = temp_base_ + max_stack_slots_ + 2;

  Ctrl& fn = ctrls_.next();
  fn.kind = Opcode::End;
  for (ValType t : ft.results) fn.results.push_back(width_of(t));
  ctrls_.push();
  // A fresh fiber running this function starts at its function-level clauses.
  out_.sites.push_back(std::make_unique<DispatchSite>());
  out_.entry_site = out_.sites.back().get();
  site_scopes_.push_back({out_.sites.back().get(), &fiber_info_.entry_clauses()});
  // The entry price is the module's (runtime/fuel.h), the same on every tier.
  const uint32_t entry_fuel = runtime::fuel::entry_cost(func_);
  emit_fuel(entry_fuel);
  emit_interrupt_check();
  if (metered_) out_.entry_fuel = entry_fuel;

  InstructionReader r(func_.body);
  Instruction in;
  while (!r.at_end()) {
    if (!r.next(in)) return broken_body(r);
    const Opcode op = in.op;
    const OpcodeInfo& info = opcode_info(op);
    if (!reachable()) {
      // Unreachable code is validated but never executed: emit nothing, only
      // track nesting so the matching else/end is found.
      if (op == Opcode::Block || op == Opcode::Loop || op == Opcode::If || op == Opcode::Handle ||
          op == Opcode::TryTable) {
        ++skip_depth_;
        continue;
      }
      if (op == Opcode::End && skip_depth_ > 0) {
        --skip_depth_;
        continue;
      }
      if (!((op == Opcode::Else || op == Opcode::Event) && skip_depth_ == 0) && op != Opcode::End) continue;
    }
    // Multi-memory and memory64. The load and store handlers read the base
    // and size cached for memory 0: one on memory k runs between IUseMemory k
    // and IUseMemory0, so memory 0's code is what it was; on a 64-bit memory
    // it checks the i64 address first (ICheckIndex64) and then runs as on an
    // i32 memory. Every other memory instruction on any memory but an i32
    // memory 0 is an *In op, which names its memories (emit_memory_in).
    const bool access = info.immediate == ImmKind::Memarg || info.immediate == ImmKind::MemargLane;
    const bool wide = touches_memory64(info.immediate, in);
    if (!access && (wide || names_other_memory(info.immediate, in))) {
      emit_memory_in(in);
      continue;
    }
    if (access && wide) {
      check_index64(info.operand_count() - 1, runtime::TrapKind::MemoryOutOfBounds);
      if (in.mem_offset > UINT32_MAX) {  // beyond any memory this engine makes
        emit_op(IOp::ITrap);
        emit(uint32_t(runtime::TrapKind::MemoryOutOfBounds));
      }
    }
    const bool other_memory = access && in.memory != 0;
    check_table64_operands(in);
    if (other_memory) {
      emit_op(IOp::IUseMemory);
      emit_ptr(inst_.memories[in.memory]);
    }
    switch (op) {
      case Opcode::Unreachable:
        emit_op(IOp::ITrap);
        emit(uint32_t(runtime::TrapKind::Unreachable));
        set_unreachable();
        break;
      case Opcode::Nop: break;
      case Opcode::Block:
      case Opcode::Loop:
        enter_block(op, in.block);
        break;
      case Opcode::If: {
        Entry cond = pop();
        CondBranch to_else = branch_on(cond, false);
        enter_block(Opcode::If, in.block);
        Fixup f{};
        emit_cond_branch(to_else, f);
        ctrls_.back().else_fixup = f;
        break;
      }
      case Opcode::Else: do_else(); break;
      case Opcode::End:
        if (do_end()) {
          build_dispatch_tables();
          if (!return_fixups_.empty()) {
            // Catch clauses that branch to the function's label land here,
            // their values already in the result slots.
            bind_label();
            for (uint32_t t : return_fixups_) catch_tables().targets[t].target_pc = here();
            emit_op(IOp::IReturn);
          }
          return {};
        }
        break;
      case Opcode::TryTable: enter_try_table(in); break;
      case Opcode::Throw: emit_throw(inst_.tags[in.index]); break;
      case Opcode::ThrowRef: {
        const Entry ref = pop();
        emit_op(IOp::IThrowRef);
        emit(ref.slot);
        set_unreachable();
        break;
      }
      case Opcode::Br:
        do_branch(in.index);
        set_unreachable();
        break;
      case Opcode::BrIf: do_br_if(in.index); break;
      case Opcode::BrTable:
        do_br_table(in.br_targets);
        set_unreachable();
        break;
      case Opcode::Return:
        emit_return();
        set_unreachable();
        break;
      case Opcode::Call: emit_call(inst_.functions[in.index]); break;
      case Opcode::ReturnCall: {
        runtime::FuncInstance* callee = inst_.functions[in.index];
        if (callee->is_host()) {  // a host function cannot replace a Wasm frame: call, then return
          const uint32_t begin = here();
          emit_call(callee);
          leave_catch_ranges(begin);
        } else {
          const size_t nargs = callee->type->params.size();
          materialize_top(nargs);
          const uint32_t arg_base = nargs ? stack_[stack_.size() - nargs].home : next_home();
          emit_op(IOp::IReturnCall);
          emit(arg_base);
          emit_ptr(record_of(callee));
          stack_.resize(stack_.size() - nargs);
          for (ValType t : callee->type->results) push_temp(width_of(t));  // (unreachable: for the model only)
        }
        emit_return();
        set_unreachable();
        break;
      }
      case Opcode::CallIndirect:
      case Opcode::ReturnCallIndirect:
      case Opcode::CallRef:
      case Opcode::ReturnCallRef: {
        // The callee: a table index (call_indirect) or a function reference
        // (call_ref) on top of the arguments.
        const bool by_reference = op == Opcode::CallRef || op == Opcode::ReturnCallRef;
        const bool tail = op == Opcode::ReturnCallIndirect || op == Opcode::ReturnCallRef;
        const uint32_t type_index = in.index;
        const FuncType& callee_type = module_.types[type_index];
        Entry callee = pop();
        size_t nargs = callee_type.params.size();
        // The index or reference may live in a temp that the callee's frame
        // overlaps: the handler reads it before anything is written.
        materialize_top(nargs);
        uint32_t arg_base = nargs ? stack_[stack_.size() - nargs].home : next_home();
        const uint32_t begin = here();
        if (by_reference) emit_op(tail ? IOp::IReturnCallRef : IOp::ICallRef);
        else emit_op(tail ? IOp::IReturnCallIndirect : IOp::ICallIndirect);
        emit(arg_base);
        emit(callee.slot);
        if (!by_reference) {
          emit(inst_.type_ids[type_index]);
          emit_ptr(inst_.tables[in.index2]);
        }
        if (tail) leave_catch_ranges(begin);  // its callee may be a host function, called in this frame
        stack_.resize(stack_.size() - nargs);
        for (ValType t : callee_type.results) push_temp(width_of(t));
        if (tail) {
          emit_return();  // reached only after a host target
          set_unreachable();
        }
        break;
      }
      case Opcode::RefAsNonNull:
        emit_op(IOp::ITrapIfNull);
        emit(stack_.back().slot);
        break;
      case Opcode::BrOnNull: {
        // [t* ref]: branch with t* if ref is null, else go on with ref. The
        // test's result goes above ref, so computing it cannot overwrite ref.
        emit_producer(IOp::IRefIsNull, {stack_.back().slot}, 1);
        const Entry is_null = pop();
        const Entry ref = pop();
        stack_.push_back(is_null);
        do_br_if(in.index);
        stack_.push_back(ref);
        break;
      }
      case Opcode::BrOnNonNull: {
        // [t* ref]: branch with t* ref if ref is not null, else drop ref.
        emit_producer(IOp::IRefIsNull, {stack_.back().slot}, 1);
        do_br_if(in.index, /*jump_when_true=*/false);
        pop();
        break;
      }
      case Opcode::Drop: pop(); break;
      case Opcode::Select:
      case Opcode::SelectT: {
        Entry cond = pop();
        Entry b = pop();
        Entry a = pop();
        emit_producer(a.width == 2 ? IOp::ISelect128 : IOp::ISelect, {a.slot, b.slot, cond.slot}, a.width);
        break;
      }
      case Opcode::LocalGet: {
        uint32_t x = in.index;
        stack_.push_back({local_slot_[x], next_home(), local_width_[x], EntryKind::Local});
        break;
      }
      case Opcode::LocalSet:
      case Opcode::LocalTee: {
        uint32_t x = in.index;
        uint32_t ls = local_slot_[x];
        Entry& top = stack_.back();
        bool top_is_x = top.kind == EntryKind::Local && top.slot == ls;
        // Older stack entries that still read the local must keep the old value.
        for (size_t i = 0; i + 1 < stack_.size(); ++i)
          if (stack_[i].kind == EntryKind::Local && stack_[i].slot == ls) materialize(stack_[i]);
        if (op == Opcode::LocalSet && top.kind == EntryKind::Temp && last_producer_ >= 0 &&
            code_[size_t(last_producer_)] == top.home && last_op_pos_ != UINT32_MAX) {
          // The value was just computed: let its producer write the local directly.
          code_[size_t(last_producer_)] = ls;
          last_producer_ = -1;
          pop();
          break;
        }
        if (op == Opcode::LocalTee && top.kind == EntryKind::Temp && last_producer_ >= 0 &&
            code_[size_t(last_producer_)] == top.home && last_op_pos_ != UINT32_MAX) {
          // Likewise for a tee (`i += 4` feeding a loop test): the producer
          // writes the local and the stack keeps reading the local, exactly as
          // after `local.set x; local.get x` — no copy.
          code_[size_t(last_producer_)] = ls;
          last_producer_ = -1;
          top.slot = ls;
          top.kind = EntryKind::Local;
          break;
        }
        if (!top_is_x) copy(ls, top.slot, top.width);
        if (op == Opcode::LocalSet) pop();
        break;
      }
      case Opcode::GlobalGet: {
        runtime::GlobalInstance* g = inst_.globals[in.index];
        uint8_t w = width_of(g->type.type);
        uint32_t dst = next_home();
        emit_op(w == 2 ? IOp::IGlobalGet128 : IOp::IGlobalGet);
        uint32_t dst_pos = here();
        emit(dst);
        emit_ptr(g);
        push_temp(w);
        last_producer_ = dst_pos;
        break;
      }
      case Opcode::GlobalSet: {
        runtime::GlobalInstance* g = inst_.globals[in.index];
        Entry v = pop();
        emit_op(v.width == 2 ? IOp::IGlobalSet128 : IOp::IGlobalSet);
        emit(v.slot);
        emit_ptr(g);
        break;
      }
      case Opcode::TableGet: {
        runtime::TableInstance* t = inst_.tables[in.index];
        Entry i = pop();
        uint32_t dst = next_home();
        emit_op(IOp::ITableGet);
        emit(dst);
        emit(i.slot);
        emit_ptr(t);
        push_temp(1);
        break;
      }
      case Opcode::TableSet: {
        runtime::TableInstance* t = inst_.tables[in.index];
        Entry v = pop();
        Entry i = pop();
        emit_op(IOp::ITableSet);
        emit(i.slot);
        emit(v.slot);
        emit_ptr(t);
        break;
      }
      case Opcode::MemorySize:
        emit_producer(IOp::IMemorySize, {}, 1);
        break;
      case Opcode::MemoryGrow: {
        Entry d = pop();
        emit_producer(IOp::IMemoryGrow, {d.slot}, 1);
        break;
      }
      case Opcode::I32Const: case Opcode::I64Const: case Opcode::F32Const: case Opcode::F64Const:
      case Opcode::RefNull: case Opcode::RefFunc:
        push_const(*constant_bits(in));
        break;
      case Opcode::RefIsNull: {
        Entry a = pop();
        emit_producer(IOp::IRefIsNull, {a.slot}, 1);
        break;
      }
      case Opcode::MemoryInit: {
        uint32_t seg = in.index;
        Entry n = pop(), s = pop(), d = pop();
        emit_fuel_bulk(n, runtime::fuel::kMemoryBytesShift);
        emit_op(IOp::IMemoryInit);
        emit(d.slot); emit(s.slot); emit(n.slot);
        emit_ptr(&inst_.datas[seg]);
        break;
      }
      case Opcode::DataDrop:
        emit_op(IOp::IDataDrop);
        emit_ptr(&inst_.datas[in.index]);
        break;
      case Opcode::MemoryCopy: {
        Entry n = pop(), s = pop(), d = pop();
        emit_fuel_bulk(n, runtime::fuel::kMemoryBytesShift);
        emit_op(IOp::IMemoryCopy);
        emit(d.slot); emit(s.slot); emit(n.slot);
        break;
      }
      case Opcode::MemoryFill: {
        Entry n = pop(), v = pop(), d = pop();
        emit_fuel_bulk(n, runtime::fuel::kMemoryBytesShift);
        emit_op(IOp::IMemoryFill);
        emit(d.slot); emit(v.slot); emit(n.slot);
        break;
      }
      case Opcode::TableInit: {
        const uint32_t seg = in.index, table = in.index2;
        Entry n = pop(), s = pop(), d = pop();
        emit_fuel_bulk(n, runtime::fuel::kTableElementsShift);
        emit_op(IOp::ITableInit);
        emit(d.slot); emit(s.slot); emit(n.slot);
        emit_ptr(inst_.tables[table]);
        emit_ptr(&inst_.elems[seg]);
        break;
      }
      case Opcode::ElemDrop:
        emit_op(IOp::IElemDrop);
        emit_ptr(&inst_.elems[in.index]);
        break;
      case Opcode::TableCopy: {
        const uint32_t dst_table = in.index, src_table = in.index2;
        Entry n = pop(), s = pop(), d = pop();
        emit_fuel_bulk(n, runtime::fuel::kTableElementsShift);
        emit_op(IOp::ITableCopy);
        emit(d.slot); emit(s.slot); emit(n.slot);
        emit_ptr(inst_.tables[dst_table]);
        emit_ptr(inst_.tables[src_table]);
        break;
      }
      case Opcode::TableGrow: {
        runtime::TableInstance* t = inst_.tables[in.index];
        Entry delta = pop(), init = pop();
        emit_fuel_bulk(delta, runtime::fuel::kTableElementsShift);
        emit_producer(IOp::ITableGrow, {init.slot, delta.slot, 0, 0}, 1);
        // Patch the pointer words (emit_producer takes plain operand words).
        uint64_t v = reinterpret_cast<uint64_t>(t);
        code_[here() - 2] = uint32_t(v);
        code_[here() - 1] = uint32_t(v >> 32);
        break;
      }
      case Opcode::TableSize: {
        runtime::TableInstance* t = inst_.tables[in.index];
        uint64_t v = reinterpret_cast<uint64_t>(t);
        emit_producer(IOp::ITableSize, {uint32_t(v), uint32_t(v >> 32)}, 1);
        break;
      }
      case Opcode::TableFill: {
        runtime::TableInstance* t = inst_.tables[in.index];
        Entry n = pop(), v = pop(), i = pop();
        emit_fuel_bulk(n, runtime::fuel::kTableElementsShift);
        emit_op(IOp::ITableFill);
        emit(i.slot); emit(v.slot); emit(n.slot);
        emit_ptr(t);
        break;
      }
      case Opcode::Handle: enter_block(Opcode::Handle, in.block); break;
      case Opcode::Event: do_event(in.index, uint32_t(r.pos())); break;
      case Opcode::FiberNew: case Opcode::FiberSpawn: case Opcode::FiberResume: case Opcode::FiberSuspend:
      case Opcode::FiberSuspendTo: case Opcode::FiberSwitch: case Opcode::FiberRetire: case Opcode::FiberRetireto:
      case Opcode::FiberRelease:
        emit_fiber_op(in);
        break;
      default: {
        if (info.prefix == 0xFD) {
          emit_simd(in);
          break;
        }
        // Plain-signature instructions: numeric ops, loads and stores execute
        // as the internal op of the same name.
        if (info.is_special())
          return make_error(ErrorKind::Limit, "instruction not supported by the interpreter: " + std::string(info.text));
        IOp iop = IOp(uint32_t(op));
        if (info.immediate == ImmKind::Memarg) {
          const uint32_t offset = uint32_t(in.mem_offset);  // the alignment is irrelevant for execution
          uint32_t x, y;
          if (info.result == SigType::None) {
            Entry v = pop(), a = pop();
            if (take_address_add(a, x, y)) {
              emit_op(address_add_form(op));
              emit(x); emit(y); emit(v.slot); emit(offset);
            } else {
              emit_op(iop);
              emit(a.slot); emit(v.slot); emit(offset);
            }
          } else {
            Entry a = pop();
            if (take_address_add(a, x, y))
              emit_producer(address_add_form(op), {x, y, offset}, 1);
            else
              emit_producer(iop, {a.slot, offset}, 1);
          }
          break;
        }
        if (info.operand_count() == 1) {
          Entry a = pop();
          emit_producer(iop, {a.slot}, 1);
        } else {
          Entry b = pop(), a = pop();
          emit_producer(iop, {a.slot, b.slot}, 1);
        }
        break;
      }
    }
    if (other_memory) emit_op(IOp::IUseMemory0);
  }
  return {};
}

}  // namespace

Result<void> translate_function(const Instance& instance, uint32_t defined_index, uint32_t max_stack_slots,
                                CompiledFunction& out) {
  thread_local TranslationScratch kept;
  std::unique_ptr<TranslationScratch> own;  // only if translations ever nested
  TranslationScratch& scratch = kept.in_use ? *(own = std::make_unique<TranslationScratch>()) : kept;
  scratch.in_use = true;
  Result<void> r = Translator(instance, defined_index, max_stack_slots, out, scratch).run();
  out.code.assign(scratch.code.begin(), scratch.code.end());
  out.entry = out.code.data();
  scratch.in_use = false;
  return r;
}

CompiledFunction& CompiledFunction::operator=(CompiledFunction&&) = default;
CompiledFunction::~CompiledFunction() = default;  // here, where DispatchSite is complete

void make_pending(CompiledFunction& out, runtime::FuncInstance* func, runtime::MemoryInstance* memory) {
  out.func = func;
  out.memory = memory;
  out.param_slots = func->param_slots;
  out.result_slots = func->result_slots;
  // What entry checks before ITranslate runs; ITranslate re-checks the real frame.
  out.frame_slots = std::max(func->param_slots, func->result_slots);
  // A function's first call translates it: the same one op for every function.
  static const uint32_t translate_op = uint32_t(handler_offsets()[uint32_t(IOp::ITranslate)]);
  out.code.clear();
  out.entry = &translate_op;
  out.pending = true;
}

Result<void> ensure_translated(const CompiledFunction& cf) {
  if (!cf.pending) return {};
  // The record's address is embedded in callers' code and stays; only its
  // contents are (re)built. A failed translation leaves it pending.
  auto& out = const_cast<CompiledFunction&>(cf);
  runtime::FuncInstance* func = out.func;
  runtime::MemoryInstance* memory = out.memory;
  const Instance& instance = *func->instance;
  const uint32_t defined = func->index - instance.module->num_imported_functions();
  CompiledFunction fresh;
  fresh.func = func;
  fresh.memory = memory;
  Result<void> r = translate_function(instance, defined, instance.info->functions[defined].max_stack_height, fresh);
  if (!r.ok()) {
    Error e = std::move(r).error();
    e.location = Location::in_function(func->index, 0);
    return e;
  }
  out = std::move(fresh);  // pending = false
  return {};
}

}  // namespace weft::interpreter
