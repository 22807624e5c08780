// The single-pass baseline compiler: validated Wasm bytes of one function →
// machine code, in one walk over the body (docs/architecture.md, "The baseline
// JIT"). The compiler models the operand stack abstractly (constant, register
// or spilled to its frame slot), caches values in registers, spills at calls
// and labels, and emits through the macro-assembler. Instruction families are
// compiled in compile_*.cc; this header is the state they share. Machine
// registers appear only as the roles of the backend's Registers
// (jit/backend.h); instructions only as macro-assembler operations.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/result.h"
#include "runtime/objects.h"
#include "runtime/trap.h"
#include "core/instruction_reader.h"
#include "validator/validator.h"
#include "jit/context.h"
#include "jit/backend.h"
#include "jit/code_template.h"

namespace weft::jit {

// Where an abstract operand-stack entry lives.
enum class Loc : uint8_t {
  Const,  // not materialised: `imm`
  Reg,    // in register `reg` (owned by this entry alone)
  Slot,   // spilled to its canonical frame slot (num_locals + stack position)
  Float,  // a float in float register `reg` (Registers::kFloatAllocatable; owned by this entry alone)
  Local,  // the current value of local `imm`, not loaded yet (local.get is
          // lazy: the consumer loads it into the register class it needs)
  Vec,    // both entries of a v128: the vector register `reg` (Registers::
          // kFloatAllocatable), owned by the low entry
};

// A v128 is two consecutive entries, its low and high 64 bits, each of
// which any location can hold (a local's two slots, two constants, two
// registers…): the generic machinery (spills, branches, calls) moves them
// as it moves any two values, and the SIMD instructions take them from and
// leave them in their canonical slots (compile_simd.cc).
struct StackValue {
  Loc loc = Loc::Slot;
  Reg reg = 0;
  bool vec_hi = false;  // the high half of a v128 (drop pops both)
  uint64_t imm = 0;
  // Overwrites this entry with `v`, its first eight bytes (the fields above
  // imm) as one store: entries are copied whole (8-byte loads) soon after
  // they are written, and a load that spans several narrower stores cannot
  // take their data before they reach the cache (a stall of ~10 cycles,
  // which field-by-field writes cost at most pops).
  void assign(const StackValue& v) {
    const uint64_t head = uint64_t(v.loc) | uint64_t(v.reg) << 8 | uint64_t(v.vec_hi) << 16;
    std::memcpy(static_cast<void*>(this), &head, 8);
    imm = v.imm;
  }
};
static_assert(offsetof(StackValue, imm) == 8 && std::is_trivially_copyable_v<StackValue>);

// The operand stack's entries. A vector's interface, but the height is a
// 32-bit count of its own: height(), back() and adding an entry run several
// times per instruction, and std::vector derives its size from two pointers
// (a subtraction and a shift each time). The capacity is reserved up front
// (the validator's bound); an entry beyond it still grows it, out of line.
class OperandStack {
 public:
  uint32_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  StackValue& operator[](size_t i) { return data_[i]; }
  const StackValue& operator[](size_t i) const { return data_[i]; }
  StackValue& back() { return data_[size_ - 1]; }
  const StackValue& back() const { return data_[size_ - 1]; }
  void push_back(const StackValue& v) {
    if (size_ == capacity_) [[unlikely]] grow(size_ + 1);
    data_[size_++].assign(v);
  }
  void pop_back() { --size_; }
  void clear() { size_ = 0; }
  void reserve(uint32_t count) {
    if (count > capacity_) grow(count);
  }
  void swap(OperandStack& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(capacity_, other.capacity_);
  }

 private:
  void grow(uint32_t at_least);  // compiler.cc
  std::unique_ptr<StackValue[]> data_;
  uint32_t size_ = 0;
  uint32_t capacity_ = 0;
};

// One entry of the control stack (block, loop, if, the function body).
struct ControlFrame {
  enum class Kind : uint8_t { Function, Block, Loop, If, Else, Handle, TryTable };
  Kind kind = Kind::Block;
  uint32_t height = 0;   // operand stack entries below the frame's params
  uint32_t params = 0;
  uint32_t results = 0;
  Label label;           // branch target: the end (block/if/function) or the header (loop)
  Label else_label;      // if: start of the false arm
  uint32_t target_slot = 0;  // frame slot where a branch's values go
  // params and results count frame slots. When they hold a v128, its types
  // (to mark the v128 halves when the values are pushed back from their
  // slots); nullptr otherwise, which keeps the frame small and the pushes plain.
  const FuncType* vec_types = nullptr;
  bool unreachable = false;  // the rest of the current arm is dead code
  uint32_t branch_arity() const { return kind == Kind::Loop ? params : results; }
};

// The parameters a direct call passes in registers (Registers::kParams,
// kFloatParams: the first integer and the first float parameters, in order):
// f(slot, is_float, reg) for each, `slot` being the parameter's frame slot
// (a v128 takes two slots and never a register); the others go in their slots.
template <class F>
void for_each_register_param(const FuncType& type, F&& f) {
  size_t ints = 0, floats = 0;
  uint32_t slot = 0;
  for (uint32_t i = 0; i < type.params.size(); ++i) {
    const ValType t = type.params[i];
    if (t == ValType::f32() || t == ValType::f64()) {
      if (floats < std::size(Registers::kFloatParams)) f(slot, true, Registers::kFloatParams[floats++]);
    } else if (!t.is_vec() && ints < std::size(Registers::kParams)) {
      f(slot, false, Registers::kParams[ints++]);
    }
    slot += t.is_vec() ? 2 : 1;
    if (ints == std::size(Registers::kParams) && floats == std::size(Registers::kFloatParams)) return;
  }
}

// Frame slots of values of these types: a v128 takes two (lo, hi), every other value one.
inline uint32_t slots_of(std::span<const ValType> types) {
  uint32_t slots = 0;
  for (ValType t : types) slots += t.is_vec() ? 2 : 1;
  return slots;
}
// A function with this type returns its result in Registers::kResult or
// kFloatResult (as well as in slot 0): exactly one result, not a v128.
inline bool returns_in_register(const FuncType& type) {
  return type.results.size() == 1 && !type.results[0].is_vec();
}

// The register entry of a function the JIT left to the interpreter
// (jit/executor.cc): takes a direct call and passes it on through the
// function's jit_entry.
// Its FuncInstance* is recorded in `relocations` (jit/code_template.h).
void emit_interpreter_stub(MacroAssembler& masm, const runtime::FuncInstance* f,
                           RelocationList* relocations = nullptr);

// The call depth in JIT code: Registers::kDepth holds the frames still
// allowed, ExecStack::max_depth − depth, so that a function entry's check is
// the flags of its decrement (MacroAssembler::count_down). Code that leaves
// JIT code for the runtime (the host entry and adapter, fiber helpers) turns
// it back into ExecStack::depth, which the interpreter and the fiber runtime
// read; `stack` holds the ExecStack* and `temp` is clobbered.
inline void store_depth(MacroAssembler& masm, Reg stack, Reg temp) {
  masm.load32(temp, stack, int32_t(offsetof(runtime::ExecStack, max_depth)));
  masm.int_op(IntOp::Sub, false, temp, Registers::kDepth);
  masm.store32(stack, int32_t(offsetof(runtime::ExecStack, depth)), temp);
}
// kDepth from ExecStack::depth, on entry into JIT code.
inline void load_depth(MacroAssembler& masm, Reg stack) {
  masm.load32(Registers::kDepth, stack, int32_t(offsetof(runtime::ExecStack, max_depth)));
  masm.int_op_mem(IntOp::Sub, false, Registers::kDepth, stack, int32_t(offsetof(runtime::ExecStack, depth)));
}

// Why a function was not compiled (runs in the interpreter).
struct Unsupported {
  std::string reason;
};

class FunctionCompiler {
 public:
  // `metered`: the store meters fuel (Config::fuel != 0), so the code charges
  // it as the interpreter's does (function entry, loop iterations, bulk ops).
  FunctionCompiler(const runtime::Instance& instance, uint32_t defined_index, runtime::MemoryInstance* memory,
                   MacroAssembler& masm, bool metered = false);
  // Hands the working vectors back to the thread's scratch (compiler.cc).
  ~FunctionCompiler();
  FunctionCompiler(const FunctionCompiler&) = delete;
  FunctionCompiler& operator=(const FunctionCompiler&) = delete;
  // Emits the function. On an instruction or type the compiler does not
  // handle yet, returns an Error (ErrorKind::Limit) naming it and the byte
  // offset; the caller then keeps the interpreter entry.
  Result<void> compile();

  // Fiber instructions need somewhere to keep their FiberSites (the code
  // embeds their addresses); without it a function using them is not compiled.
  // `ctx` is the one context this code runs with and `state` its fiber
  // runtime's switch state: the inline switch embeds both addresses, so that
  // no load of them stands on the switch's chain of dependent loads.
  void set_fiber_sites(std::vector<std::unique_ptr<FiberSite>>* out, JitContext* ctx) {
    sites_out_ = out;
    fiber_ctx_ = ctx;
  }
  // The same for try_tables' CatchSites (exception handling).
  void set_catch_sites(std::vector<std::unique_ptr<CatchSite>>* out) { catch_sites_out_ = out; }
  // Where the code's instance-specific constants go (jit/code_template.h),
  // for copies of it for other instances; their site indices are positions
  // in the two lists above.
  void set_relocations(RelocationList* out) { relocations_ = out; }
  // The entry of a fresh fiber at a function-level clause (FuncInstance::
  // native_clause_entry), if the function has such clauses.
  const Label* clause_entry() const { return has_clause_entry_ ? &clause_entry_ : nullptr; }
  // The memory has a guard region the fault handler watches (jit/guard_regions.h):
  // accesses go unchecked, and an out-of-bounds one faults into memory_trap().
  void set_guarded_memory(bool guarded) { guarded_memory_ = guarded; }
  // The "out of bounds memory access" trap stub of an unchecked access, if any.
  const Label* memory_trap() const { return has_memory_trap_ ? &memory_trap_ : nullptr; }
  // Direct calls: `entries[d]` is the register entry of the instance's
  // defined function d, bound by the executor (its register_entry() once it
  // compiled, else a stub into the interpreter). Calls to the instance's own
  // functions then pass their first arguments in registers and `call` the
  // entry. Lazy compilation (jit/executor_lazy.cc) gives instead each
  // function's direct-call slot, at `slots + d * slot_size`: code that
  // jumps to the register entry once the function is compiled (the
  // MacroAssembler's set_code_address must be set). Without either, only a
  // function's calls of itself are direct and every other call goes through
  // FuncInstance::jit_entry.
  // Defined function i's entry is Label{first.id + i} (MacroAssembler::new_labels).
  void set_direct_call_entries(Label first) { first_entry_ = first; }
  // `entries[d]`: the register entry of defined function d once compiled
  // (nullptr before), which calls then enter directly; every call of a
  // slot or an entry is listed in `slot_calls` as {d, offset of the call in
  // this function's code}: the executor points those of a slot at the entry
  // later, and a copy of the code for another instance points them all.
  void set_direct_call_slots(const uint8_t* slots, uint32_t slot_size, const std::vector<const uint8_t*>* entries,
                             std::vector<std::pair<uint32_t, uint32_t>>* slot_calls) {
    direct_slots_ = slots;
    direct_slot_size_ = slot_size;
    compiled_entries_ = entries;
    slot_calls_ = slot_calls;
  }
  // The function has two entries: FuncInstance::jit_entry at its start takes
  // the arguments in their frame slots (the host entry, tail and indirect
  // calls, other instances) and loads the register arguments, then falls into
  // this one, which direct calls enter with them in registers.
  uint32_t register_entry() const { return register_entry_; }

 private:
  // ---- shared state helpers (compiler.cc) ----------------------------------
  Error unsupported(const std::string& what) const;
  int32_t slot_disp(uint32_t slot) const { return int32_t(slot * 8); }
  int32_t stack_disp(uint32_t position) const { return slot_disp(num_locals_ + position); }
  uint32_t height() const { return stack_.size(); }

  // The first free register of Registers::kAllocatable — or prefer_, when
  // that is set and free (result_register_hint).
  // The common case inline: no preference, a register free.
  Reg alloc_reg(uint32_t exclude_mask = 0) {
    const uint32_t free = kAllocatableMask & ~reg_used_ & ~exclude_mask;
    if (prefer_ == kNoReg && free) [[likely]] {
      const Reg r = Reg(__builtin_ctz(free));
      claim_reg(r);
      gpr_mirror_[r] = -1;
      return r;
    }
    return alloc_reg_general(exclude_mask);
  }
  Reg alloc_reg_general(uint32_t exclude_mask);
  // The allocatable registers as masks: alloc_reg and alloc_fp hand out the
  // lowest free one, which is the first free one of the lists because the
  // lists are in ascending order (checked in compiler.cc).
  static constexpr uint32_t kAllocatableMask = reg_list::mask(Registers::kAllocatable);
  static constexpr uint32_t kFloatAllocatableMask = reg_list::mask(Registers::kFloatAllocatable);
  // Where the next instruction wants the value the current one computes:
  // Registers::kResult when it ends the function (or returns) with that one
  // integer result, the parameter register when it is a direct call taking
  // the value as its last, integer, register argument; else kNoReg. A
  // preference only (alloc_reg), so that no move follows.
  // Inline: it runs for most integer operations, and the next instruction is
  // seldom one of the three (each a single-byte opcode).
  Reg result_register_hint() {
    const int next = reader_.peek_byte();
    if (next != single_byte_of(Opcode::Return) && next != single_byte_of(Opcode::End) &&
        next != single_byte_of(Opcode::Call))
      return kNoReg;
    return result_register_hint(Opcode(kOpcodeByteMap.single[next]));
  }
  Reg result_register_hint(Opcode next);
  // alloc_reg and pop_to_reg for an operation's result: in the register
  // result_register_hint names, when it is free.
  Reg alloc_result_reg() {
    prefer_ = result_register_hint();
    const Reg r = alloc_reg();
    prefer_ = kNoReg;
    return r;
  }
  Reg pop_to_result_reg() {
    prefer_ = result_register_hint();
    const Reg r = pop_to_reg();
    prefer_ = kNoReg;
    return r;
  }
  static constexpr Reg kNoReg = 0xFF;
  Reg prefer_ = kNoReg;  // set only inside the two above
  FReg alloc_fp();
  void free_fp(FReg x) { fp_used_ &= ~(1u << x); }
  // Pops the top entry into a float register the caller owns.
  FReg pop_to_fp();
  void push_fp(FReg x) {
    fp_used_ |= 1u << x;
    push_value(StackValue{Loc::Float, x, false, 0});
  }
  // Before local `index` is written: entries still reading it lazily are
  // loaded now, so they keep the old value.
  void materialize_local(uint32_t index);

  // Mirrors: a register known to hold a local's current value, because the
  // local was just written from it (local.set/tee), so that reading the local
  // again copies or reuses the register instead of loading the slot (a
  // store-to-load round trip on a loop's critical path). Valid within straight-
  // line code only: forgotten when the register is handed out or popped for
  // writing, when the local is written again, at every spill_all (labels,
  // calls) and before every instruction of the control, call, table and fiber
  // families; the fixed registers of divide and shift forget theirs.
  void forget_mirrors() {
    if (mirrors_recorded_) reset_mirrors();
  }
  void reset_mirrors();  // every register's mirror -1, but the pins'
  // The general registers in `mask` mirror nothing (divide's and shift's
  // fixed registers, which the instruction overwrites).
  void forget_gpr_mirrors(uint32_t mask) {
    for (; mask; mask &= mask - 1) gpr_mirror_[__builtin_ctz(mask)] = -1;
  }
  // Pinned locals: the function's hottest integer and float locals
  // (validator::FunctionInfo::hot_locals) live in registers of their own for
  // the whole function (Registers::kPinnableLocals, kFloatPinnableLocals), so
  // loop-carried locals stay in registers across labels. Their slots stay
  // current too (every write stores both), so spills, branches, calls, fiber
  // switches and traps read the frame as before; the registers are reloaded
  // from the slots after every call and at every entry (reload_after_call).
  // A pin is a mirror that is never forgotten: forget_mirrors keeps it, and
  // its register is never handed out.
  void choose_pinned_locals(const validator::FunctionInfo& info);
  // The register pinning `local` (a float register when `fp`), or -1.
  int pinned_register(uint32_t local, bool& fp) const {
    for (uint32_t i = 0; i < num_pins_; ++i)
      if (pins_[i].local == local) {
        fp = pins_[i].fp;
        return pins_[i].reg;
      }
    return -1;
  }
  void reload_pinned_locals();
  // Where the function's first pin reloads are (their bytes, which later
  // reloads copy: MacroAssembler::repeat); size 0 until then.
  uint32_t pin_reload_at_ = 0, pin_reload_size_ = 0;
  // The same for reload_memory's instructions, and where in them the
  // memory's address is (its relocation's offset from their start).
  uint32_t memory_reload_at_ = 0, memory_reload_size_ = 0, memory_reload_field_ = 0;
  // After a call (and at entries): the memory registers and pinned locals,
  // which the callee may have changed or clobbered.
  void reload_after_call() {
    reload_memory();
    reload_pinned_locals();
  }
  // local.set/tee of a pinned local (compile_variables.cc).
  void set_pinned_local(uint32_t local, Reg pin, bool fp, bool tee);
  void set_v128_local(uint32_t local, bool tee);  // compile_variables.cc
  void select_v128();
  void forget_local_mirrors(uint32_t local);
  int mirror_of_local(const int32_t (&mirrors)[32], uint32_t local) const;
  void free_reg(Reg r) { reg_used_ &= ~(1u << r); }
  void claim_reg(Reg r) { reg_used_ |= 1u << r; }
  bool reg_free(Reg r) const { return !(reg_used_ & (1u << r)); }
  // Moves whatever stack entry holds `r` to its slot, so `r` can be used.
  void evict(Reg r);
  void evict_all(uint32_t mask);  // every register in `mask`
  void spill(uint32_t position);
  // Every entry to its slot, and the mirrors forgotten: before labels,
  // branches and calls. Inline, because at most of them (a block's end right
  // after another's, a call after a spill) nothing is left to spill.
  void spill_all() {
    const uint32_t height = stack_.size();
    if (spilled_below_ < height) spill_from(spilled_below_);
    spilled_below_ = height;
    forget_mirrors();
  }
  void spill_from(uint32_t position);  // spill_all's loop, out of line
  // Pops the top entry into a register the caller owns (free it when done).
  // An entry already in a register the caller may have, the commonest case,
  // inline; everything else (a load, a copy, a constant) out of line.
  Reg pop_to_reg(uint32_t exclude_mask = 0) {
    const StackValue& top = stack_.back();
    if (top.loc == Loc::Reg && !(exclude_mask & (1u << top.reg))) {
      const Reg r = top.reg;
      stack_.pop_back();
      gpr_mirror_[r] = -1;  // the caller may write it
      return r;
    }
    return pop_to_reg_general(exclude_mask);
  }
  Reg pop_to_reg_general(uint32_t exclude_mask);  // any entry (compiler.cc)
  // Pops the condition of an `if` or `br_if`: a pinned integer local is
  // tested in its own register (`owned` false: read only, not freed), with
  // no copy; anything else as pop_to_reg.
  Reg pop_condition(bool& owned);
  void pop_discard();
  void push_reg(Reg r) {
    claim_reg(r);
    push_value(StackValue{Loc::Reg, r, false, 0});
  }
  void push_const(uint64_t value) { push_value(StackValue{Loc::Const, 0, false, value}); }
  // Every entry goes on the stack here: one below spilled_below_ lowers it.
  void push_value(StackValue v) {
    if (stack_.size() < spilled_below_) spilled_below_ = stack_.size();
    stack_.push_back(v);
  }
  // Results a call or label left in canonical slots (none, at most block ends: inline).
  void push_slots(uint32_t count) {
    if (count) push_slot_entries(count);
  }
  void push_slot_entries(uint32_t count);
  // The same, typed: v128 halves marked. `slots` is their slot count, so that
  // the common case (no v128) needs no look at the types.
  void push_slots(std::span<const ValType> types, uint32_t slots) {
    if (slots == types.size()) [[likely]]
      push_slots(slots);
    else
      push_typed_slots(types);
  }
  void push_typed_slots(std::span<const ValType> types);
  // A frame's params or results, in their slots.
  void push_frame_values(const ControlFrame& f, bool params) {
    if (!f.vec_types) [[likely]]
      push_slots(params ? f.params : f.results);
    else
      push_typed_slots(params ? f.vec_types->params : f.vec_types->results);
  }
  // Pops (and frees) the entries above `new_height` — none, mostly: inline.
  void truncate(uint32_t new_height) {
    if (height() > new_height) pop_down_to(new_height);
  }
  void pop_down_to(uint32_t new_height);
  void reload_memory();
  // Memory `index` of the instance (memory 0: the one in the pinned registers).
  runtime::MemoryInstance* memory_at(uint32_t index) const {
    return index == 0 ? memory_ : instance_.memories[index];
  }
  Reg pop_address();  // compile_memory.cc
  struct CheckedAddress {
    Reg addr;
    Reg base;
    int32_t disp;
  };
  CheckedAddress pop_checked_address(const Instruction& imm, uint32_t bytes);
  Reg pop_address64();
  void trap_if_above_u32(Reg r, runtime::TrapKind kind);  // compile_memory.cc
  void check_index64(uint32_t depth, runtime::TrapKind kind);  // compile_tables.cc
  Label trap_label(runtime::TrapKind kind);

  // A block's params and results in frame slots (it cannot fail: the
  // validator checked the type index). The commonest kinds inline.
  void block_signature(const BlockType& block, ControlFrame& f) const {
    f.vec_types = nullptr;
    f.params = 0;
    if (block.kind == BlockType::Empty) [[likely]] {
      f.results = 0;
    } else if (block.kind == BlockType::Value && !block.value.is_vec()) {
      f.results = 1;  // every value type but v128, typed fiber references included, is one slot wide
    } else {
      other_block_signature(block, f);
    }
  }
  void other_block_signature(const BlockType& block, ControlFrame& f) const;
  // A tail call to the FuncInstance* in Registers::kCallee with `params` arguments on top of
  // the (spilled) stack: they move to the frame base, this frame is torn down
  // as by a return, and the callee is jumped to — it returns to our caller.
  void tail_call_function(uint32_t params);
  void resolve_indirect_callee(const Instruction& imm);  // call_indirect's target into Registers::kCallee
  // Undoes the prologue: uncounts the frame (kDepth), restores the caller's frame.
  // (The function's own exit does the same with its return in one form:
  // MacroAssembler::count_up_leave_and_return.)
  void leave_frame();
  // The next instruction from reader_, or why it cannot be compiled.
  // The next instruction into `insn`; inline, because it runs once per
  // instruction: only a broken body and select's types go out of line.
  // Inline in compile()'s loop (out of line it cost ~30 M more instructions
  // on ttf-12m: GCC's size limits dropped it once when compile() grew).
  [[gnu::always_inline]] Result<void> read_instruction(Instruction& insn) {
    const uint8_t* cursor = reader_.cursor();
    const bool read = reader_.next(cursor, insn);  // (inline: the reader's own next(insn) is a call)
    reader_.set_cursor(cursor);
    if (read && insn.op != Opcode::SelectT) [[likely]] return {};
    return read_failed_or_select(read, insn);
  }
  Result<void> read_failed_or_select(bool read, const Instruction& insn);
  // A single-byte opcode `Op`, known to be next, with its immediates (of the
  // kind the opcode table gives it): read_instruction without its dispatch.
  template <Opcode Op>
  [[gnu::always_inline]] Result<void> read_single(Instruction& insn) {
    const uint8_t* cursor = reader_.cursor();
    const bool read = reader_.next_single<kImmediateKind[size_t(Op)]>(cursor, insn);
    reader_.set_cursor(cursor);
    if (read) [[likely]] return {};
    return read_failed_or_select(read, insn);
  }
  // The next instruction, read and compiled (compiler.cc); inline in
  // compile()'s loop, its one caller.
  [[gnu::always_inline]] inline Result<void> read_and_compile(Instruction& imm);
  bool ends_dead_code(Opcode op);

  // ---- families ---------------------------------------------------------
  // Inlined into compile()'s loop, its one caller: per instruction, a call
  // with its own frame cost as much as the dispatch it does.
  [[gnu::always_inline]] inline Result<void> compile_instruction(Opcode op, const Instruction& imm);
  Result<void> compile_first_of_its_kind(Opcode op, const Instruction& imm);
  [[gnu::always_inline]] inline Result<void> compile_in_family(uint8_t family, Opcode op, const Instruction& imm,
                                                               bool& handled);
  bool compile_numeric(Opcode op);                 // compile_numeric.cc; false: not numeric
  Result<void> compile_control(Opcode op, const Instruction& imm, bool& handled);  // compile_control.cc
  Result<void> compile_variable(Opcode op, const Instruction& imm, bool& handled);  // compile_variables.cc
  void set_local(uint32_t index, bool tee);  // compile_variables.cc
  void drop_value() {
    if (stack_.back().vec_hi) pop_discard();  // a v128: both halves
    pop_discard();
  }
  void global_get(uint32_t index);
  void global_set(uint32_t index);
  Result<void> compile_memory(Opcode op, const Instruction& imm, bool& handled);    // compile_memory.cc
  Result<void> compile_call(Opcode op, const Instruction& imm, bool& handled);      // compile_calls.cc
  Result<void> compile_table(Opcode op, const Instruction& imm, bool& handled);     // compile_tables.cc
  Result<void> compile_fiber(Opcode op, const Instruction& imm, bool& handled);     // compile_fibers.cc
  Result<void> compile_exception(Opcode op, const Instruction& imm, bool& handled); // compile_exceptions.cc
  Result<void> compile_simd(Opcode op, const Instruction& imm, bool& handled);      // compile_simd.cc
  // A SIMD memory access of `bytes` at the address in stack slot `position`
  // (the stack spilled): checked against the memory's size (traps), the host
  // address returned in a register the caller owns.
  Reg simd_host_address(const Instruction& imm, uint32_t bytes, uint32_t position);
  void push_v128_slots();  // a v128 result in its two canonical slots
  // Pops the v128 on top (two entries) into a vector register the caller owns.
  FReg pop_vec();
  void push_vec(FReg x) {
    fp_used_ |= 1u << x;
    push_value(StackValue{Loc::Vec, x, false, 0});
    push_value(StackValue{Loc::Vec, x, true, 0});
  }
  // The SIMD instructions compiled on a v128's two halves in general
  // registers (compile_simd.cc); false for the others, with nothing done.
  bool simd_on_halves(Opcode op, const Instruction& imm);
  // A bulk memory/table instruction as a helper call (jit/context.h: BulkHelper);
  // its object arguments are the instance's (an unused one is null).
  struct BulkOperand {
    InstanceRef ref = InstanceRef::Instance;
    uint32_t index = 0;
    bool used = true;
    BulkOperand() : used(false) {}
    BulkOperand(InstanceRef r, uint32_t i) : ref(r), index(i) {}
  };
  void call_bulk(const void* helper, BulkOperand a, BulkOperand b, uint32_t operands, uint32_t results);
  // An instance-specific constant (an object's address, a tag identity) into
  // `dst`, patchable and recorded (set_relocations): never an immediate of
  // another form, so that the code can serve every instance of the module.
  // (Inline, with the commonest kinds first: a large module has one for
  // every ten bytes of code — memory reloads after calls, globals, callees.)
  // Returns where the constant is (move_patchable's `at`).
  uint32_t move_instance_word(Reg dst, InstanceRef ref, uint32_t index) {
    const uint32_t at = masm_.move_patchable(dst, instance_value(ref, index));
    record_word(at, ref, index);
    return at;
  }
  // A global's value half `half` (InstanceRef::GlobalValue's index: the
  // global's index * 2, + 1 for a v128's high half) into `dst`, or from
  // `src` into it, through Registers::kScratch holding its address.
  void load_global_half(Reg dst, uint32_t half) {
    record_word(masm_.load64_patchable(dst, Registers::kScratch, instance_value(InstanceRef::GlobalValue, half)),
                InstanceRef::GlobalValue, half);
  }
  void store_global_half(uint32_t half, Reg src) {
    record_word(masm_.store64_patchable(Registers::kScratch, instance_value(InstanceRef::GlobalValue, half), src),
                InstanceRef::GlobalValue, half);
  }
  // The relocation of such a constant at `at` (also of one in copied code:
  // MacroAssembler::repeat).
  void record_word(uint32_t at, InstanceRef ref, uint32_t index) {
    if (relocations_) relocations_->add({.at = at, .index = index, .ref = ref, .narrow = false});
  }
  // The value of such a constant, and the relocation of a 32-bit form
  // (MacroAssembler::move_patchable32 and its kin) emitted for it at `at`.
  uint64_t instance_value(InstanceRef ref, uint32_t index) const {
    switch (ref) {
      case InstanceRef::Memory:
        if (index == 0) return reinterpret_cast<uint64_t>(memory_);
        break;
      case InstanceRef::Function: return reinterpret_cast<uint64_t>(instance_.functions[index]);
      case InstanceRef::GlobalValue: return reinterpret_cast<uint64_t>(&instance_.globals[index / 2]->value[index % 2]);
      case InstanceRef::Instance: return reinterpret_cast<uint64_t>(&instance_);  // (with HostCaller: every host call)
      case InstanceRef::HostCaller: return reinterpret_cast<uint64_t>(&instance_.store->host_caller);
      case InstanceRef::Table: return reinterpret_cast<uint64_t>(instance_.tables[index]);  // call_indirect's
      default: break;
    }
    return any_instance_value(ref, index);
  }
  uint64_t any_instance_value(InstanceRef ref, uint32_t index) const;
  void record_narrow(uint32_t at, InstanceRef ref, uint32_t index) {
    if (relocations_) relocations_->add({.at = at, .index = index, .ref = ref, .narrow = true});
  }

  // compile_numeric.cc
  void int_binary(IntOp op, bool wide);
  // `local.get x; …; op; local.set/tee x` with x pinned to a register (or
  // `…; local.get x; op; local.set x` when op commutes): the operation in
  // place on x's register, then its slot; the local.set is consumed. False
  // (nothing done) for any other shape. The cheap tests that rule most
  // operations out (some local pinned, an operand a lazily read local, a
  // local.set/tee next) inline in the caller; the rest out of line.
  bool int_binary_into_pin(IntOp op, bool wide) {
    const uint32_t top = height() - 1;
    if (num_pins_ == 0 || (stack_[top - 1].loc != Loc::Local && stack_[top].loc != Loc::Local)) return false;
    const int next = reader_.peek_byte();
    if (next != single_byte_of(Opcode::LocalSet) && next != single_byte_of(Opcode::LocalTee)) return false;
    return int_binary_into_set_pin(op, wide);
  }
  bool int_binary_into_set_pin(IntOp op, bool wide);  // the local.set/tee next
  void compare(Cond cond, bool wide);
  void eqz(bool wide);
  void shift(ShiftOp op, bool wide);
  // read_and_compile's arithmetic cases: the instruction read, then compiled.
  template <Opcode Op>
  [[gnu::always_inline]] Result<void> int_binary_of(IntOp op, bool wide, Instruction& imm) {
    WEFT_TRY(read_single<Op>(imm));
    int_binary(op, wide);
    return {};
  }
  template <Opcode Op>
  [[gnu::always_inline]] Result<void> shift_of(ShiftOp op, bool wide, Instruction& imm) {
    WEFT_TRY(read_single<Op>(imm));
    shift(op, wide);
    return {};
  }
  // read_and_compile's compares (i32.eqz … f64.ge, no immediates): fused
  // with a br_if or if next (compile_fused_compare), else compiled as their
  // family would; and its loads and stores (i32.load … i64.store32, a memarg
  // each), straight to their family's compiler.
  [[gnu::always_inline]] Result<void> compare_of(Instruction& imm) {
    WEFT_TRY(read_single<Opcode::I32Eqz>(imm));  // (imm.op is the opcode read)
    if (const int next = reader_.peek_byte(); next == single_byte_of(Opcode::BrIf) || next == single_byte_of(Opcode::If)) {
      bool handled = false;
      WEFT_TRY(compile_fused_compare(imm.op, handled));
      if (handled) return {};
    }
    if (compile_numeric(imm.op)) [[likely]] return {};
    return compile_first_of_its_kind(imm.op, imm);
  }
  [[gnu::always_inline]] Result<void> memory_access_of(Instruction& imm) {
    WEFT_TRY(read_single<Opcode::I32Load>(imm));
    bool handled = false;
    WEFT_TRY(compile_memory(imm.op, imm, handled));
    if (handled) [[likely]] return {};
    return compile_first_of_its_kind(imm.op, imm);
  }
  void divide(bool is_signed, bool wide, bool remainder);
  bool divide_by_constant(bool is_signed, bool wide, bool remainder, bool& checked);
  void extend(int from_bits, bool wide);
  void call_thunk(const void* fn, uint32_t operands, bool can_trap);
  void float_binary(FloatOp op, bool f64);
  void float_compare(FloatCond cond, bool f64);
  void float_copysign(bool f64);
  bool float_unary(Opcode op);  // false: not a natively compiled unary float op

  // compile_control.cc
  // An integer compare (or eqz) directly followed by br_if or if becomes
  // one compare and a conditional jump (a float one: compile_fused_float_compare);
  // `handled` is false when `op` is not such a compare.
  Result<void> compile_fused_compare(Opcode op, bool& handled);
  // Opens an `if` frame, its params and results those of `signature`
  // (block_signature), whose jump to `else_label` (the false arm) is emitted.
  void open_if(const ControlFrame& signature, Label else_label);
  // A new innermost frame of `kind` with the params and results of `signature`.
  [[gnu::always_inline]] inline void push_frame(ControlFrame::Kind kind, const ControlFrame& signature, Label label,
                                                Label else_label = {});
  // block, loop and if (from read_and_compile's switch).
  Result<void> open_block(Opcode op, const Instruction& imm);
  // An f32/f64 compare directly followed by br_if or if: the compare and the
  // conditional jump in the float registers (compile_control.cc).
  Result<void> compile_fused_float_compare(Opcode op, bool& handled);
  // `jump(bool when_true, Label to)` emits the conditional jump (compile_control.cc).
  template <class Jump>
  Result<void> branch_on_condition(const Jump& jump);
  // The frame, its checks, zeroed locals and the registers the body expects.
  // `params_in_registers`: the register entry, where the first parameters
  // arrive in registers (for_each_register_param); else all in their slots.
  void prologue(bool params_in_registers);
  void epilogue_and_stubs();
  void branch_to(ControlFrame& target);           // moves + jump (stack spilled)
  void return_from_function();  // `return`: the result(s) where the caller takes them
  void branch_out_if(uint32_t depth);  // br_if (compile_control.cc)
  void call_index(uint32_t index);     // call (compile_calls.cc)
  // A branch to the frame `depth` levels out: the stack spilled, the rest of the arm dead.
  void branch_out(uint32_t depth) {
    spill_all();
    branch_to(control_[control_.size() - 1 - depth]);
    mark_unreachable();
  }
  // A one-result function's result to its slot and to Registers::kResult (or
  // kFloatResult), where a direct caller takes it; the stack emptied.
  void return_single_value();
  bool float_result() const { return type_.results[0] == ValType::f32() || type_.results[0] == ValType::f64(); }
  bool branch_needs_moves(const ControlFrame& target) const;
  void move_branch_values(const ControlFrame& target);
  void end_frame();
  void else_frame();
  void mark_unreachable() { control_.back().unreachable = true; }
  void charge_fuel(uint32_t amount);
  // Where fuel is charged: trap "interrupted" if the store's flag is set
  // (Config::interruptible; nothing emitted otherwise).
  void check_interrupt();
  // Before a bulk instruction: 1 + (length operand at stack `position`) >> shift.
  void charge_fuel_bulk(uint32_t position, uint8_t shift, bool i64_length = false);

  // compile_fibers.cc
  Label clause_label(uint32_t body_offset);
  void event_clause(uint32_t tag_index);
  FiberSite* new_fiber_site(Opcode op);
  // The handler scope of the suspension point being compiled, as `site`'s
  // dispatch table; its stub (bound after the body) jumps to the clause.
  Label dispatch_stub(FiberSite& site);
  void build_scope(const std::vector<validator::EventClause>& scope, FiberSite& site, std::vector<Label>& targets);
  void call_fiber_helper(const FiberSite* site);
  // The inline fast path of fiber.resume / fiber.suspend / fiber.switch (compile_fibers.cc):
  // jumps to `slow` before changing anything when a check fails; an event
  // delivered to this context is dispatched to `clauses` right there; any
  // other arrival joins the slow call's status handling at `after`.
  // `sources`: the frame slots holding the fiber operand, then the payload.
  void emit_inline_switch(const FiberSite& site, const std::vector<uint32_t>& sources,
                          const std::vector<Label>& clauses, Label slow, Label after);
  // The tag identity in Registers::FiberSwitch::kArrivedTag.
  void emit_dispatch(const FiberSite& site, const std::vector<Label>& targets);
  void fiber_stubs();

  // compile_exceptions.cc
  // Where a status test that found a trap or exception jumps: the innermost
  // open try_table's landing, else out of the function. `recorded`: a helper
  // recorded it for this frame (trap_return_), rather than a callee (propagate_).
  Label exception_exit(bool recorded);
  void exception_stubs();

  // compile_calls.cc
  // A call of the FuncInstance* in Registers::kCallee through its jit_entry
  // (the stack spilled): all arguments in their slots.
  void call_function(const FuncType& type);
  // A direct call's target: a label in this buffer, or else an address.
  // (16 bytes on x64, the two 32-bit fields first: returned and passed in
  // two registers. At 24 it went through memory, written field by field and
  // read back in wider loads the processor cannot forward — a stall at every call.)
  struct DirectTarget {
    Label label{};  // none: id UINT32_MAX
    uint32_t slot_of = UINT32_MAX;  // `address` is this defined function's slot or register entry
    const void* address = nullptr;
    explicit operator bool() const { return label.id != UINT32_MAX || address; }
  };
  void call_direct(DirectTarget target, const FuncType& type);
  void record_host_caller();
  void reference_callee();  // call_ref's callee into Registers::kCallee
  // Where a call of `callee` enters its register entry directly, or nothing:
  // the call goes through its FuncInstance::jit_entry.
  DirectTarget direct_target(const runtime::FuncInstance* callee) const;
  DirectTarget direct_target_of_defined(uint32_t defined) const;  // the same for this instance's defined function
  // The type of this instance's defined function `defined`, through the
  // validator's compact table rather than its FuncInstance or Function record:
  // in a large module a call's callee is anywhere among thousands of those
  // (80 and 64 bytes each), and reading one was a cache miss per call (3 % of
  // the eager compile of a 14,000-function module).
  const FuncType& defined_type(uint32_t defined) const {
    return module_.types[instance_.info->function_types[first_defined_ + defined]];
  }
  // Moves the operand-stack entry at `position` into parameter register `reg`
  // (a float register when `fp`); the entry is left as a spent slot.
  void move_to_param(uint32_t position, bool fp, Reg reg);
  void check_call_result();

  const runtime::Instance& instance_;
  const Module& module_;
  const Function& function_;
  const FuncType& type_;
  runtime::FuncInstance* self_;
  uint32_t self_index_;     // self_'s function index in this module
  uint32_t first_defined_;  // the module's imported functions: the first defined function's index
  runtime::MemoryInstance* memory_;
  MacroAssembler& masm_;
  InstructionReader reader_;

  uint32_t num_locals_ = 0;  // frame slots of the params and declared locals
  // Local index → its first frame slot, and one entry past the last local;
  // empty when every local is one slot wide (local i is slot i). The compiler
  // works in slots: a Loc::Local entry's imm and a pin's `local` are slots.
  std::vector<uint32_t> local_slots_;
  uint32_t local_slot(uint32_t local) const { return local_slots_.empty() ? local : local_slots_[local]; }
  bool local_is_vec(uint32_t local) const {
    return !local_slots_.empty() && local_slots_[local + 1] - local_slots_[local] == 2;
  }
  uint32_t frame_slots_ = 0;
  OperandStack stack_;
  // The entries below this height are all in their slots (spill_all did it,
  // and nothing was pushed there since): spill_all starts here, not at 0.
  uint32_t spilled_below_ = 0;
  std::vector<ControlFrame> control_;
  uint32_t reg_used_ = 0;
  uint32_t fp_used_ = 0;
  struct PinnedLocal {
    uint32_t local;
    Reg reg;
    bool fp;
  };
  static constexpr size_t kMaxPins = std::size(Registers::kPinnableLocals) + std::size(Registers::kFloatPinnableLocals);
  PinnedLocal pins_[kMaxPins];
  uint32_t num_pins_ = 0;
  int32_t gpr_mirror_[32];  // per register: the local it mirrors, or -1
  int32_t fp_mirror_[32];
  // The registers whose mirror may be a local (a bit may stay set after its
  // mirror became -1): lookups scan only these, a handful, instead of all
  // 32 entries — 80-330 instructions per lookup that misses, and C code
  // looks up most local reads and writes. Set with every mirror recorded
  // (record_gpr_mirror, record_fp_mirror), narrowed to the pins by reset_mirrors.
  uint32_t gpr_mirrored_ = 0, fp_mirrored_ = 0;
  void record_gpr_mirror(Reg r, uint32_t local) {
    gpr_mirror_[r] = int32_t(local);
    gpr_mirrored_ |= 1u << r;
    mirrors_recorded_ = true;
  }
  void record_fp_mirror(FReg x, uint32_t local) {
    fp_mirror_[x] = int32_t(local);
    fp_mirrored_ |= 1u << x;
    mirrors_recorded_ = true;
  }
  // Whether a mirror beyond the pins was recorded since reset_mirrors (only
  // local.set/tee record them; nothing else clears a pin's): forget_mirrors,
  // before most instructions, has nothing to do otherwise.
  bool mirrors_recorded_ = true;
  uint32_t dead_depth_ = 0;  // nesting of blocks opened inside dead code
  bool metered_ = false;
  const std::atomic<uint8_t>* interrupt_flag_ = nullptr;  // set when the store is interruptible
  bool uses_memory_ = true;  // the body accesses linear memory (validator::FunctionInfo)
  bool guarded_memory_ = false;
  Label first_entry_{};  // set_direct_call_entries; none: id UINT32_MAX
  const uint8_t* direct_slots_ = nullptr;
  uint32_t direct_slot_size_ = 0;
  const std::vector<const uint8_t*>* compiled_entries_ = nullptr;
  std::vector<std::pair<uint32_t, uint32_t>>* slot_calls_ = nullptr;
  uint32_t register_entry_ = 0;
  Label self_entry_;  // bound at register_entry_: the target of the function's calls of itself
  std::vector<int16_t> arg_targets_;  // call_direct's scratch: per argument, its register (or -1)
  // br_table's scratch: per entry, where it jumps, and whether that is a stub
  // that moves the branch's values first.
  std::vector<Label> table_entries_;
  std::vector<uint8_t> table_stubs_;
  // compile()'s one Instruction for all its instructions, kept from function
  // to function like the vectors above: a fresh one is zeroed (136 bytes)
  // for every function.
  std::unique_ptr<Instruction> instruction_;
  // The body offset of the instruction being compiled: the last one read
  // into compile()'s Instruction (0 before the first).
  size_t instr_offset() const { return instruction_->offset; }
  Label memory_trap_;
  bool has_memory_trap_ = false;

  // Out-of-line paths, bound after the body.
  Label return_label_;     // results in place: epilogue
  // A one-result function: its result in place and in Registers::kResult or
  // kFloatResult (return_single_value); return_label_ loads it there first.
  Label result_in_register_;
  Label exit_label_;       // restore registers, return the status in kReturn
  Label common_trap_;      // kArg[2] = trap kind: record, return 1
  Label propagate_;        // a callee trapped: add this frame, return 1
  Label trap_return_;      // a helper recorded the trap for this frame: return 1
  Label thunk_trap_;       // kReturn = trap kind + 1 from a numeric thunk or bulk helper
  Label out_of_fuel_;      // fuel := 0, trap "all fuel consumed"
  std::vector<std::pair<runtime::TrapKind, Label>> trap_labels_;

  RelocationList* relocations_ = nullptr;

  // Fiber extension.
  std::vector<std::unique_ptr<FiberSite>>* sites_out_ = nullptr;
  JitContext* fiber_ctx_ = nullptr;
  size_t next_suspension_ = 0;  // cursor into the validator's suspension points
  std::vector<std::pair<uint32_t, Label>> clause_labels_;  // clause body offset → its code
  struct DispatchStub {
    Label label;
    const FiberSite* site;
    std::vector<Label> targets;  // clause code per dispatch-table value
  };
  std::vector<DispatchStub> dispatch_stubs_;
  Label clause_entry_;
  bool has_clause_entry_ = false;

  // Exception handling: each try_table's landing, and the open ones.
  std::vector<std::unique_ptr<CatchSite>>* catch_sites_out_ = nullptr;
  struct TryLanding {
    CatchSite* site = nullptr;
    Label after_call;    // a callee's status said trap or exception
    Label after_helper;  // throw's helper (or a fiber instruction's) recorded it for this frame
    std::vector<Label> targets;  // per clause of `site`: its label
  };
  std::vector<TryLanding> landings_;
  std::vector<uint32_t> try_stack_;  // indices into landings_ of the try_tables around the code
};

}  // namespace weft::jit
