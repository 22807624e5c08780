// The compiler's shared machinery: the abstract operand stack and register
// cache, immediate decoding, and the walk over the body that hands each
// instruction to its family (compile_*.cc).
#include "jit/compiler.h"

#include <algorithm>
#include <atomic>
#include <iterator>
#include <optional>

#include "core/opcodes.h"

namespace weft::jit {

namespace {
// The family that compiled each opcode (compile_instruction); Unknown until
// the first time. Relaxed atomics: stores on other threads may compile too.
enum class Family : uint8_t { Unknown, Numeric, Control, Variable, Memory, Call, Table, Fiber, Exception, Simd };
std::atomic<uint8_t> g_family[kOpcodeCount];
// Mirrors survive only straight-line families (see compiler.h).
constexpr bool straight_line(Family f) {
  return f == Family::Numeric || f == Family::Variable || f == Family::Memory || f == Family::Simd;
}
}  // namespace

namespace {
// The working vectors of the last FunctionCompiler on this thread, kept with
// their capacity for the next: a module's functions are compiled one after
// another, and fresh vectors for each cost a few allocations per function
// (~3 % of compile time on a module of small functions). A compiler made
// while another is alive (none is today) finds them empty and allocates.
struct CompilerScratch {
  OperandStack stack;
  std::vector<ControlFrame> control;
  std::vector<std::pair<runtime::TrapKind, MacroAssembler::Label>> trap_labels;
  std::vector<int16_t> arg_targets;
  std::vector<Label> table_entries;
  std::vector<uint8_t> table_stubs;
  std::unique_ptr<Instruction> instruction;
};
thread_local CompilerScratch compiler_scratch;

// The masks of compiler.h take the lowest free register as the first free one of the lists.
static_assert(reg_list::ascending(Registers::kAllocatable) && reg_list::ascending(Registers::kFloatAllocatable),
              "alloc_reg/alloc_fp take the lowest free register: the first free one of the list only if it ascends");
}  // namespace

void OperandStack::grow(uint32_t at_least) {
  const uint32_t capacity = std::max({at_least, capacity_ * 2, uint32_t(16)});
  auto data = std::make_unique_for_overwrite<StackValue[]>(capacity);
  std::copy(data_.get(), data_.get() + size_, data.get());
  data_ = std::move(data);
  capacity_ = capacity;
}

FunctionCompiler::~FunctionCompiler() {
  CompilerScratch& scratch = compiler_scratch;
  scratch.stack.swap(stack_);
  scratch.control.swap(control_);
  scratch.trap_labels.swap(trap_labels_);
  scratch.arg_targets.swap(arg_targets_);
  scratch.table_entries.swap(table_entries_);
  scratch.table_stubs.swap(table_stubs_);
  scratch.instruction.swap(instruction_);
}

FunctionCompiler::FunctionCompiler(const runtime::Instance& instance, uint32_t defined_index,
                                   runtime::MemoryInstance* memory, MacroAssembler& masm, bool metered)
    : instance_(instance),
      module_(*instance.module),
      function_(module_.functions[defined_index]),
      type_(module_.types[function_.type_index]),
      // The instance's functions: the imported ones, then the defined ones
      // (counting the module's imports per function cost a walk over them).
      self_(instance.functions[instance.functions.size() - module_.functions.size() + defined_index]),
      self_index_(self_->index),
      first_defined_(self_->index - defined_index),
      memory_(memory),
      masm_(masm),
      reader_(function_.body) {
  const validator::FunctionInfo& info = instance.info->functions[defined_index];
  // One allocation each instead of a series of growths (malloc was a few
  // percent of compile time): the operand stack's bound is known.
  CompilerScratch& scratch = compiler_scratch;
  stack_.swap(scratch.stack);
  control_.swap(scratch.control);
  trap_labels_.swap(scratch.trap_labels);
  arg_targets_.swap(scratch.arg_targets);
  table_entries_.swap(scratch.table_entries);
  table_stubs_.swap(scratch.table_stubs);
  instruction_.swap(scratch.instruction);
  if (!instruction_) instruction_ = std::make_unique<Instruction>();
  instruction_->offset = 0;  // (instr_offset() until the first instruction is read)
  stack_.clear();
  control_.clear();
  trap_labels_.clear();
  stack_.reserve(info.max_stack_height);
  control_.reserve(16);
  trap_labels_.reserve(8);
  num_locals_ = info.num_locals;
  // Locals by frame slot: a v128 local takes two. Without one, local i is
  // slot i and the table stays empty.
  local_slots_.clear();
  bool has_vec_local = self_->param_slots != type_.params.size();
  for (const LocalGroup& g : function_.locals) has_vec_local |= g.type.is_vec() && g.count;
  if (has_vec_local) {
    uint32_t slot = 0;
    for (ValType t : type_.params) {
      local_slots_.push_back(slot);
      slot += t.is_vec() ? 2 : 1;
    }
    for (const LocalGroup& g : function_.locals)
      for (uint32_t i = 0; i < g.count; ++i) {
        local_slots_.push_back(slot);
        slot += g.type.is_vec() ? 2 : 1;
      }
    local_slots_.push_back(slot);  // the end: local i is a v128 iff its next starts two further
    num_locals_ = slot;
  }
  frame_slots_ = num_locals_ + info.max_stack_height;
  metered_ = metered;
  if (instance.store && instance.store->interruptible()) interrupt_flag_ = instance.store->interrupt_flag();
  uses_memory_ = info.uses_memory;
  choose_pinned_locals(info);
  forget_mirrors();
}

void FunctionCompiler::choose_pinned_locals(const validator::FunctionInfo& info) {
  const uint32_t params = uint32_t(type_.params.size());
  auto local_type = [&](uint32_t index) {
    if (index < params) return type_.params[index];
    uint32_t first = params;
    for (const LocalGroup& g : function_.locals) {
      if (index < first + g.count) return g.type;
      first += g.count;
    }
    return ValType::i32();  // unreachable: the validator ranked an existing local
  };
  size_t gprs = 0, fprs = 0;
  for (uint8_t i = 0; i < info.num_hot_locals; ++i) {
    const uint32_t local = info.hot_locals[i];
    const ValType t = local_type(local);
    if ((t == ValType::i32() || t == ValType::i64()) && gprs < std::size(Registers::kPinnableLocals)) {
      const Reg r = Registers::kPinnableLocals[gprs++];
      pins_[num_pins_++] = {local_slot(local), r, false};
      claim_reg(r);
    } else if ((t == ValType::f32() || t == ValType::f64()) && fprs < std::size(Registers::kFloatPinnableLocals)) {
      const FReg x = Registers::kFloatPinnableLocals[fprs++];
      pins_[num_pins_++] = {local_slot(local), x, true};
      fp_used_ |= 1u << x;
    }
  }
}

void FunctionCompiler::reload_pinned_locals() {
  // The same loads after every call: encoded the first time, copied after
  // (encoding them one by one was 3.6 % of ttf-12m's compile instructions).
  if (pin_reload_size_ != 0) return masm_.repeat(pin_reload_at_, pin_reload_size_);
  const uint32_t at = uint32_t(masm_.offset());
  for (uint32_t i = 0; i < num_pins_; ++i) {
    const PinnedLocal& p = pins_[i];
    if (p.fp)
      masm_.fp_load(p.reg, Registers::kFrame, slot_disp(p.local));
    else
      masm_.load64(p.reg, Registers::kFrame, slot_disp(p.local));
  }
  const uint32_t size = uint32_t(masm_.offset()) - at;
  if (size <= MacroAssembler::kMaxRepeatBytes) {
    pin_reload_at_ = at;
    pin_reload_size_ = size;
  }
}

void FunctionCompiler::reset_mirrors() {
  mirrors_recorded_ = false;
  std::fill(std::begin(gpr_mirror_), std::end(gpr_mirror_), -1);
  std::fill(std::begin(fp_mirror_), std::end(fp_mirror_), -1);
  gpr_mirrored_ = fp_mirrored_ = 0;
  for (uint32_t i = 0; i < num_pins_; ++i) {
    (pins_[i].fp ? fp_mirror_ : gpr_mirror_)[pins_[i].reg] = int32_t(pins_[i].local);
    (pins_[i].fp ? fp_mirrored_ : gpr_mirrored_) |= 1u << pins_[i].reg;
  }
}

void FunctionCompiler::forget_local_mirrors(uint32_t local) {
  for (uint32_t m = gpr_mirrored_; m; m &= m - 1)
    if (int32_t& mirror = gpr_mirror_[__builtin_ctz(m)]; mirror == int32_t(local)) mirror = -1;
  for (uint32_t m = fp_mirrored_; m; m &= m - 1)
    if (int32_t& mirror = fp_mirror_[__builtin_ctz(m)]; mirror == int32_t(local)) mirror = -1;
}

int FunctionCompiler::mirror_of_local(const int32_t (&mirrors)[32], uint32_t local) const {
  for (uint32_t m = &mirrors == &gpr_mirror_ ? gpr_mirrored_ : fp_mirrored_; m; m &= m - 1)
    if (mirrors[__builtin_ctz(m)] == int32_t(local)) return __builtin_ctz(m);  // the lowest, as before
  return -1;
}

// The hint for a next instruction that is a return, an end or a call.
Reg FunctionCompiler::result_register_hint(Opcode next) {
  const bool one_int_result = type_.results.size() == 1 && !float_result() && !type_.results[0].is_vec();
  if (next == Opcode::Return || (next == Opcode::End && control_.size() == 1))
    return one_int_result ? Registers::kResult : kNoReg;
  if (next != Opcode::Call) return kNoReg;
  const uint8_t* cursor = reader_.cursor();  // (a look ahead: the reader's position stays)
  Instruction call;
  static_assert(kImmediateKind[size_t(Opcode::Call)] == ImmKind::FuncIdx);
  const bool read = reader_.next_single<ImmKind::FuncIdx>(cursor, call);
  if (!read || call.index < first_defined_ || call.index >= instance_.functions.size()) return kNoReg;
  const uint32_t defined = call.index - first_defined_;
  const FuncType& type = defined_type(defined);
  const size_t last = slots_of(type.params);
  if (!direct_target_of_defined(defined) || last == 0) return kNoReg;
  Reg hint = kNoReg;
  for_each_register_param(type, [&](uint32_t i, bool fp, Reg r) {
    if (i == last - 1 && !fp) hint = r;
  });
  return hint;
}

Error FunctionCompiler::unsupported(const std::string& what) const {
  return make_error(ErrorKind::Limit, "not compiled by the JIT: " + what,
                    Location::in_function(self_->index, instr_offset()));
}

Reg FunctionCompiler::alloc_reg_general(uint32_t exclude_mask) {
  if (prefer_ != kNoReg && reg_free(prefer_) && !(exclude_mask & (1u << prefer_))) {
    claim_reg(prefer_);
    gpr_mirror_[prefer_] = -1;
    return prefer_;
  }
  if (const uint32_t free = kAllocatableMask & ~reg_used_ & ~exclude_mask) {
    const Reg r = Reg(__builtin_ctz(free));
    claim_reg(r);
    gpr_mirror_[r] = -1;
    return r;
  }
  // Every register holds a stack entry: spill the deepest one (the least
  // likely to be used soon).
  for (uint32_t i = 0; i < stack_.size(); ++i)
    if (stack_[i].loc == Loc::Reg && !(exclude_mask & (1u << stack_[i].reg))) {
      Reg r = stack_[i].reg;
      spill(i);
      claim_reg(r);
      gpr_mirror_[r] = -1;
      return r;
    }
  // Unreachable: at most three registers are held outside the stack at once.
  return Registers::kScratch;
}

// Float registers hold float arithmetic results between operations (the
// value-stack location Loc::Float); the backend's float scratch registers are
// not handed out. Every call clobbers them, and every call spills the stack first.
FReg FunctionCompiler::alloc_fp() {
  if (const uint32_t free = kFloatAllocatableMask & ~fp_used_) {
    const FReg x = FReg(__builtin_ctz(free));
    fp_used_ |= 1u << x;
    fp_mirror_[x] = -1;
    return x;
  }
  for (uint32_t i = 0; i < stack_.size(); ++i)
    if (stack_[i].loc == Loc::Float || (stack_[i].loc == Loc::Vec && !stack_[i].vec_hi)) {
      FReg x = stack_[i].reg;
      spill(i);
      fp_used_ |= 1u << x;
      fp_mirror_[x] = -1;
      return x;
    }
  return Registers::kFloatAllocatable[0];  // unreachable: at most two are held outside the stack
}

FReg FunctionCompiler::pop_to_fp() {
  if (stack_.back().loc == Loc::Vec) spill(height() - 1);  // (a v128's half as a float: rare)
  StackValue v = stack_.back();
  uint32_t position = height() - 1;
  stack_.pop_back();
  if (v.loc == Loc::Float) {
    fp_mirror_[v.reg] = -1;  // the caller may write it
    return v.reg;
  }
  if (v.loc == Loc::Local) {
    if (const int m = mirror_of_local(fp_mirror_, uint32_t(v.imm)); m >= 0) {
      if (!(fp_used_ & (1u << m))) {  // free, and still holding the local: take it
        fp_used_ |= 1u << m;
        fp_mirror_[m] = -1;
        return FReg(m);
      }
      FReg x = alloc_fp();
      masm_.fp_move(x, FReg(m));
      return x;
    }
  }
  FReg x = alloc_fp();
  if (v.loc == Loc::Reg) {
    masm_.fp_from_gpr(x, v.reg);
    free_reg(v.reg);
  } else if (v.loc == Loc::Const) {
    masm_.move_imm(Registers::kScratch, v.imm);
    masm_.fp_from_gpr(x, Registers::kScratch);
  } else if (v.loc == Loc::Local) {
    if (const int m = mirror_of_local(gpr_mirror_, uint32_t(v.imm)); m >= 0)
      masm_.fp_from_gpr(x, Reg(m));
    else
      masm_.fp_load(x, Registers::kFrame, slot_disp(uint32_t(v.imm)));
  } else {
    masm_.fp_load(x, Registers::kFrame, stack_disp(position));
  }
  return x;
}

void FunctionCompiler::materialize_local(uint32_t index) {
  for (uint32_t i = 0; i < stack_.size(); ++i)
    if (stack_[i].loc == Loc::Local && stack_[i].imm == index) {
      Reg r = alloc_reg();
      if (const int m = mirror_of_local(gpr_mirror_, index); m >= 0)
        masm_.move(r, Reg(m));
      else if (const int x = mirror_of_local(fp_mirror_, index); x >= 0)
        masm_.gpr_from_fp(r, FReg(x));
      else
        masm_.load64(r, Registers::kFrame, slot_disp(index));
      stack_[i].assign(StackValue{Loc::Reg, r, stack_[i].vec_hi, 0});
    }
}

void FunctionCompiler::evict(Reg r) {
  for (uint32_t i = 0; i < stack_.size(); ++i)
    if (stack_[i].loc == Loc::Reg && stack_[i].reg == r) {
      spill(i);
      return;
    }
}

void FunctionCompiler::evict_all(uint32_t mask) {
  for (; mask; mask &= mask - 1) evict(Reg(__builtin_ctz(mask)));  // each register in `mask`, lowest first
}

void FunctionCompiler::spill(uint32_t position) {
  StackValue& v = stack_[position];
  constexpr Reg fp = Registers::kFrame, scratch = Registers::kScratch;
  if (v.loc == Loc::Reg) {
    masm_.store64(fp, stack_disp(position), v.reg);
    free_reg(v.reg);
  } else if (v.loc == Loc::Float) {
    masm_.fp_store(fp, stack_disp(position), v.reg);
    free_fp(v.reg);
  } else if (v.loc == Loc::Local) {
    if (const int m = mirror_of_local(gpr_mirror_, uint32_t(v.imm)); m >= 0) {
      masm_.store64(fp, stack_disp(position), Reg(m));
    } else if (const int x = mirror_of_local(fp_mirror_, uint32_t(v.imm)); x >= 0) {
      masm_.fp_store(fp, stack_disp(position), FReg(x));
    } else {
      masm_.load64(scratch, fp, slot_disp(uint32_t(v.imm)));
      masm_.store64(fp, stack_disp(position), scratch);
    }
  } else if (v.loc == Loc::Const) {
    if (int64_t(v.imm) == int64_t(int32_t(v.imm))) {
      masm_.store64_imm(fp, stack_disp(position), int32_t(v.imm));
    } else {
      masm_.move_imm(scratch, v.imm);
      masm_.store64(fp, stack_disp(position), scratch);
    }
  } else if (v.loc == Loc::Vec) {  // both entries, from the low one's register
    const uint32_t lo = v.vec_hi ? position - 1 : position;
    masm_.vec_store(fp, stack_disp(lo), stack_[lo].reg);
    free_fp(stack_[lo].reg);
    stack_[lo].loc = Loc::Slot;
    if (lo + 1 < stack_.size()) stack_[lo + 1].loc = Loc::Slot;
    return;
  }
  v.loc = Loc::Slot;
}

void FunctionCompiler::spill_from(uint32_t position) {
  for (const uint32_t height = stack_.size(); position < height; ++position) spill(position);
}

Reg FunctionCompiler::pop_to_reg_general(uint32_t exclude_mask) {
  if (stack_.back().loc == Loc::Vec) {  // one half of a v128 in a vector register
    const StackValue half = stack_.back();
    stack_.pop_back();
    const Reg r = alloc_reg(exclude_mask);
    if (half.vec_hi) {
      masm_.gpr_from_vec_hi(r, half.reg);  // the low entry keeps the register
    } else {
      masm_.gpr_from_fp(r, half.reg);  // (the high entry is gone already)
      free_fp(half.reg);
    }
    return r;
  }
  StackValue v = stack_.back();
  uint32_t position = height() - 1;
  stack_.pop_back();
  if (v.loc == Loc::Reg && !(exclude_mask & (1u << v.reg))) {
    gpr_mirror_[v.reg] = -1;  // the caller may write it
    return v.reg;
  }
  if (v.loc == Loc::Reg) free_reg(v.reg);
  if (v.loc == Loc::Local) {
    if (const int m = mirror_of_local(gpr_mirror_, uint32_t(v.imm)); m >= 0) {
      if (reg_free(Reg(m)) && !(exclude_mask & (1u << m))) {  // free, and still holding the local: take it
        claim_reg(Reg(m));
        gpr_mirror_[m] = -1;
        return Reg(m);
      }
      Reg r = alloc_reg(exclude_mask | (1u << m));
      masm_.move(r, Reg(m));
      return r;
    }
  }
  Reg r = alloc_reg(exclude_mask);
  if (v.loc == Loc::Float) {
    masm_.gpr_from_fp(r, v.reg);
    free_fp(v.reg);
  } else if (v.loc == Loc::Local) {
    if (const int m = mirror_of_local(fp_mirror_, uint32_t(v.imm)); m >= 0)
      masm_.gpr_from_fp(r, FReg(m));  // a float local's bits, from its register
    else
      masm_.load64(r, Registers::kFrame, slot_disp(uint32_t(v.imm)));
  } else if (v.loc == Loc::Reg)
    masm_.move(r, v.reg);
  else if (v.loc == Loc::Const)
    masm_.move_imm(r, v.imm);
  else
    masm_.load64(r, Registers::kFrame, stack_disp(position));
  return r;
}

Reg FunctionCompiler::pop_condition(bool& owned) {
  const StackValue& top = stack_.back();
  if (top.loc == Loc::Local) {
    bool fp = false;
    const int pin = pinned_register(uint32_t(top.imm), fp);
    if (pin >= 0 && !fp) {
      stack_.pop_back();
      owned = false;
      return Reg(pin);
    }
  }
  owned = true;
  return pop_to_reg();
}

void FunctionCompiler::push_typed_slots(std::span<const ValType> types) {
  for (ValType t : types) {
    push_value(StackValue{Loc::Slot, 0, false, 0});
    if (t.is_vec()) push_value(StackValue{Loc::Slot, 0, true, 0});
  }
}

void FunctionCompiler::pop_discard() {
  if (stack_.back().loc == Loc::Reg) free_reg(stack_.back().reg);
  if (stack_.back().loc == Loc::Float) free_fp(stack_.back().reg);
  if (stack_.back().loc == Loc::Vec && !stack_.back().vec_hi) free_fp(stack_.back().reg);
  stack_.pop_back();
}

void FunctionCompiler::push_slot_entries(uint32_t count) {
  for (uint32_t i = 0; i < count; ++i) push_value(StackValue{Loc::Slot, 0, false, 0});
}

void FunctionCompiler::pop_down_to(uint32_t new_height) {
  while (height() > new_height) pop_discard();
}

void FunctionCompiler::reload_memory() {
  // Only functions with memory instructions keep the memory in registers.
  if (!uses_memory_) return;
  // The same three instructions at the entry and after every call: encoded
  // the first time, copied after, with the memory's address recorded where
  // the copy holds it.
  const uint32_t at = uint32_t(masm_.offset());
  if (memory_reload_size_ != 0) {
    masm_.repeat(memory_reload_at_, memory_reload_size_);
    record_word(at + memory_reload_field_, InstanceRef::Memory, 0);
    return;
  }
  const auto* m = memory_;
  const uint32_t field = move_instance_word(Registers::kScratch, InstanceRef::Memory, 0);
  masm_.load64(Registers::kMemoryBase, Registers::kScratch,
               int32_t(reinterpret_cast<const char*>(&m->data) - reinterpret_cast<const char*>(m)));
  masm_.load64(Registers::kMemorySize, Registers::kScratch,
               int32_t(reinterpret_cast<const char*>(&m->size_bytes) - reinterpret_cast<const char*>(m)));
  const uint32_t size = uint32_t(masm_.offset()) - at;
  if (size <= MacroAssembler::kMaxRepeatBytes) {
    memory_reload_at_ = at;
    memory_reload_size_ = size;
    memory_reload_field_ = field - at;
  }
}

uint64_t FunctionCompiler::any_instance_value(InstanceRef ref, uint32_t index) const {
  InstanceWords words{&instance_, memory_, fiber_ctx_, {}, {}};
  if (sites_out_) words.fiber_sites = *sites_out_;
  if (catch_sites_out_) words.catch_sites = *catch_sites_out_;
  return instance_word(words, ref, index);
}

Label FunctionCompiler::trap_label(runtime::TrapKind kind) {
  for (auto& [k, label] : trap_labels_)
    if (k == kind) return label;
  trap_labels_.push_back({kind, masm_.new_label()});
  return trap_labels_.back().second;
}

Result<void> FunctionCompiler::read_failed_or_select(bool read, const Instruction&) {
  // The body was validated: a failure here means a broken IR, reported as such.
  if (!read)
    return make_error(ErrorKind::Malformed, std::string("JIT: ") + reader_.error(),
                      Location::in_function(self_->index, instr_offset()));
  return {};
}

void FunctionCompiler::other_block_signature(const BlockType& block, ControlFrame& f) const {
  if (block.kind == BlockType::Value) {  // a v128: two slots
    static const FuncType kOneV128{{}, {ValType::v128()}};
    f.vec_types = &kOneV128;
    f.results = 2;
    return;
  }
  const FuncType& ft = module_.types[block.type_index];  // (the module outlives the compiler)
  f.params = slots_of(ft.params);
  f.results = slots_of(ft.results);
  if (f.params != ft.params.size() || f.results != ft.results.size()) f.vec_types = &ft;
}

Result<void> FunctionCompiler::compile() {
  if (instance_.store) {
    const std::vector<std::string>& listed = instance_.store->config().jit_interpreted_functions;
    if (!listed.empty() && std::find(listed.begin(), listed.end(), module_.function_name(self_->index)) != listed.end())
      return unsupported("listed in Config::jit_interpreted_functions");
  }
  return_label_ = masm_.new_label();
  result_in_register_ = returns_in_register(type_) ? masm_.new_label() : return_label_;
  exit_label_ = masm_.new_label();
  common_trap_ = masm_.new_label();
  propagate_ = masm_.new_label();
  trap_return_ = masm_.new_label();
  thunk_trap_ = masm_.new_label();
  out_of_fuel_ = masm_.new_label();
  // FuncInstance::jit_entry: all arguments in their slots (kArg[1] is the
  // frame); the register ones are loaded for the register entry that follows.
  for_each_register_param(type_, [&](uint32_t i, bool fp, Reg r) {
    if (fp)
      masm_.fp_load(FReg(r), Registers::kArg[1], slot_disp(i));
    else
      masm_.load64(r, Registers::kArg[1], slot_disp(i));
  });
  register_entry_ = uint32_t(masm_.offset());
  self_entry_ = masm_.new_label();
  masm_.bind(self_entry_);
  prologue(true);

  ControlFrame body;
  body.kind = ControlFrame::Kind::Function;
  body.results = self_->result_slots;
  if (body.results != type_.results.size()) body.vec_types = &type_;
  body.label = return_label_;
  body.target_slot = 0;
  control_.push_back(body);

  Instruction& imm = *instruction_;  // one for all: the reader sets every field an instruction's immediates have
  while (!control_.empty()) {
    if (reader_.at_end()) return make_error(ErrorKind::Malformed, "JIT: body ends inside a block");
    if (control_.back().unreachable) [[unlikely]] {
      // Dead code: only the block structure matters until the arm ends. The
      // instruction that makes the code live again is read a second time,
      // as live code, below.
      const uint8_t* const at = reader_.cursor();
      WEFT_TRY(read_instruction(imm));
      if (!ends_dead_code(imm.op)) continue;
      reader_.set_cursor(at);
    }
    WEFT_TRY(read_and_compile(imm));
  }
  epilogue_and_stubs();
  if (!masm_.error().empty()) return make_error(ErrorKind::Limit, "JIT assembler: " + masm_.error());
  return {};
}

// The compiler of `family` (Family::Control … Exception; for the others
// nothing is handled). Direct calls, each returning in place (no Result move).
Result<void> FunctionCompiler::compile_in_family(uint8_t family, Opcode op, const Instruction& imm, bool& handled) {
  switch (Family(family)) {
    case Family::Control: return compile_control(op, imm, handled);
    case Family::Variable: return compile_variable(op, imm, handled);
    case Family::Memory: return compile_memory(op, imm, handled);
    case Family::Call: return compile_call(op, imm, handled);
    case Family::Table: return compile_table(op, imm, handled);
    case Family::Fiber: return compile_fiber(op, imm, handled);
    case Family::Exception: return compile_exception(op, imm, handled);
    case Family::Simd: return compile_simd(op, imm, handled);
    case Family::Unknown: case Family::Numeric: break;
  }
  handled = false;
  return {};
}

namespace {
// read_and_compile's ranges of cases, the compares and the loads and stores:
// every byte from `first`'s to `last`'s is an opcode of the range, and all
// have the immediates of `first` (compare_of and memory_access_of read each
// instruction as their first).
consteval bool opcode_range(Opcode first, Opcode last) {
  for (int byte = single_byte_of(first); byte <= single_byte_of(last); ++byte) {
    const int16_t op = kOpcodeByteMap.single[byte];
    if (op < int16_t(first) || op > int16_t(last) || kImmediateKind[op] != kImmediateKind[size_t(first)]) return false;
  }
  return true;
}
static_assert(opcode_range(Opcode::I32Eqz, Opcode::F64Ge) && opcode_range(Opcode::I32Load, Opcode::I64Store32));
}  // namespace

// The commonest instructions, read and compiled in one switch on the opcode
// byte: each case reads its immediates knowing their kind (one dispatch per
// instruction instead of the reader's on the kind and then ours on the
// opcode), and goes straight to its handler without its family's dispatch
// and frame (which cost more than most of these instructions' own work).
// Control instructions end straight-line code: the mirrors go, as for the
// control family in compile_instruction. Everything else is read in full and
// compiled by compile_instruction. The compares and the loads and stores
// come here too, as ranges of opcodes (compare_of, memory_access_of): without
// the reader's dispatch on the kind and compile_instruction's on the family.
//
// The switch is on the byte itself: one load fewer (kOpcodeByteMap's) between
// reading it and the jump, which the processor waits for whenever it
// mispredicted the jump; the lookaheads for fusing (peek_byte) likewise.
Result<void> FunctionCompiler::read_and_compile(Instruction& imm) {
  switch (reader_.peek_byte()) {
    case single_byte_of(Opcode::LocalGet):  // a lazy entry, loaded by its consumer
      WEFT_TRY(read_single<Opcode::LocalGet>(imm));
      if (local_slots_.empty()) [[likely]] {
        push_value(StackValue{Loc::Local, 0, false, imm.index});
      } else {
        const uint32_t slot = local_slots_[imm.index];
        push_value(StackValue{Loc::Local, 0, false, slot});
        if (local_slots_[imm.index + 1] - slot == 2) push_value(StackValue{Loc::Local, 0, true, slot + 1});
      }
      return {};
    case single_byte_of(Opcode::I32Const):
      WEFT_TRY(read_single<Opcode::I32Const>(imm));
      push_const(imm.bits);
      return {};
    case single_byte_of(Opcode::I64Const):
      WEFT_TRY(read_single<Opcode::I64Const>(imm));
      push_const(imm.bits);
      return {};
    case single_byte_of(Opcode::F32Const):
      WEFT_TRY(read_single<Opcode::F32Const>(imm));
      push_const(imm.bits);
      return {};
    case single_byte_of(Opcode::F64Const):
      WEFT_TRY(read_single<Opcode::F64Const>(imm));
      push_const(imm.bits);
      return {};
    case single_byte_of(Opcode::Nop):
      return read_single<Opcode::Nop>(imm);
    case single_byte_of(Opcode::LocalSet):
      WEFT_TRY(read_single<Opcode::LocalSet>(imm));
      set_local(imm.index, false);
      return {};
    case single_byte_of(Opcode::LocalTee):
      WEFT_TRY(read_single<Opcode::LocalTee>(imm));
      set_local(imm.index, true);
      return {};
    case single_byte_of(Opcode::GlobalGet):
      WEFT_TRY(read_single<Opcode::GlobalGet>(imm));
      global_get(imm.index);
      return {};
    case single_byte_of(Opcode::GlobalSet):
      WEFT_TRY(read_single<Opcode::GlobalSet>(imm));
      global_set(imm.index);
      return {};
    case single_byte_of(Opcode::Drop):
      WEFT_TRY(read_single<Opcode::Drop>(imm));
      drop_value();
      return {};
    case single_byte_of(Opcode::End):
      WEFT_TRY(read_single<Opcode::End>(imm));
      forget_mirrors();
      end_frame();
      return {};
    case single_byte_of(Opcode::Block):
      WEFT_TRY(read_single<Opcode::Block>(imm));
      forget_mirrors();
      return open_block(Opcode::Block, imm);
    case single_byte_of(Opcode::Loop):
      WEFT_TRY(read_single<Opcode::Loop>(imm));
      forget_mirrors();
      return open_block(Opcode::Loop, imm);
    case single_byte_of(Opcode::If):
      WEFT_TRY(read_single<Opcode::If>(imm));
      forget_mirrors();
      return open_block(Opcode::If, imm);
    case single_byte_of(Opcode::Br):
      WEFT_TRY(read_single<Opcode::Br>(imm));
      forget_mirrors();
      branch_out(imm.index);
      return {};
    case single_byte_of(Opcode::BrIf):
      WEFT_TRY(read_single<Opcode::BrIf>(imm));
      forget_mirrors();
      branch_out_if(imm.index);
      return {};
    case single_byte_of(Opcode::Return):
      WEFT_TRY(read_single<Opcode::Return>(imm));
      forget_mirrors();
      return_from_function();
      return {};
    case single_byte_of(Opcode::Else):
      WEFT_TRY(read_single<Opcode::Else>(imm));
      forget_mirrors();
      else_frame();
      return {};
    case single_byte_of(Opcode::Call):
      WEFT_TRY(read_single<Opcode::Call>(imm));
      forget_mirrors();
      call_index(imm.index);
      return {};
    case single_byte_of(Opcode::Unreachable):
      WEFT_TRY(read_single<Opcode::Unreachable>(imm));
      forget_mirrors();
      masm_.jump(trap_label(runtime::TrapKind::Unreachable));
      mark_unreachable();
      return {};
    case single_byte_of(Opcode::I32Add): return int_binary_of<Opcode::I32Add>(IntOp::Add, false, imm);
    case single_byte_of(Opcode::I32Sub): return int_binary_of<Opcode::I32Sub>(IntOp::Sub, false, imm);
    case single_byte_of(Opcode::I32Mul): return int_binary_of<Opcode::I32Mul>(IntOp::Mul, false, imm);
    case single_byte_of(Opcode::I32And): return int_binary_of<Opcode::I32And>(IntOp::And, false, imm);
    case single_byte_of(Opcode::I32Or): return int_binary_of<Opcode::I32Or>(IntOp::Or, false, imm);
    case single_byte_of(Opcode::I32Xor): return int_binary_of<Opcode::I32Xor>(IntOp::Xor, false, imm);
    case single_byte_of(Opcode::I64Add): return int_binary_of<Opcode::I64Add>(IntOp::Add, true, imm);
    case single_byte_of(Opcode::I64Sub): return int_binary_of<Opcode::I64Sub>(IntOp::Sub, true, imm);
    case single_byte_of(Opcode::I64Mul): return int_binary_of<Opcode::I64Mul>(IntOp::Mul, true, imm);
    case single_byte_of(Opcode::I64And): return int_binary_of<Opcode::I64And>(IntOp::And, true, imm);
    case single_byte_of(Opcode::I64Or): return int_binary_of<Opcode::I64Or>(IntOp::Or, true, imm);
    case single_byte_of(Opcode::I64Xor): return int_binary_of<Opcode::I64Xor>(IntOp::Xor, true, imm);
    case single_byte_of(Opcode::I32Shl): return shift_of<Opcode::I32Shl>(ShiftOp::Shl, false, imm);
    case single_byte_of(Opcode::I32ShrS): return shift_of<Opcode::I32ShrS>(ShiftOp::ShrS, false, imm);
    case single_byte_of(Opcode::I32ShrU): return shift_of<Opcode::I32ShrU>(ShiftOp::ShrU, false, imm);
    case single_byte_of(Opcode::I32Rotl): return shift_of<Opcode::I32Rotl>(ShiftOp::Rotl, false, imm);
    case single_byte_of(Opcode::I32Rotr): return shift_of<Opcode::I32Rotr>(ShiftOp::Rotr, false, imm);
    case single_byte_of(Opcode::I64Shl): return shift_of<Opcode::I64Shl>(ShiftOp::Shl, true, imm);
    case single_byte_of(Opcode::I64ShrS): return shift_of<Opcode::I64ShrS>(ShiftOp::ShrS, true, imm);
    case single_byte_of(Opcode::I64ShrU): return shift_of<Opcode::I64ShrU>(ShiftOp::ShrU, true, imm);
    case single_byte_of(Opcode::I64Rotl): return shift_of<Opcode::I64Rotl>(ShiftOp::Rotl, true, imm);
    case single_byte_of(Opcode::I64Rotr): return shift_of<Opcode::I64Rotr>(ShiftOp::Rotr, true, imm);
    case single_byte_of(Opcode::I32Eqz) ... single_byte_of(Opcode::F64Ge): return compare_of(imm);
    case single_byte_of(Opcode::I32Load) ... single_byte_of(Opcode::I64Store32): return memory_access_of(imm);
    default:
      break;
  }
  WEFT_TRY(read_instruction(imm));
  return compile_instruction(imm.op, imm);
}

// The code is dead until the arm ends: false while `op` keeps it so (nested
// blocks counted), true for the end, else or event that makes it live.
bool FunctionCompiler::ends_dead_code(Opcode op) {
  if (op == Opcode::Block || op == Opcode::Loop || op == Opcode::If || op == Opcode::Handle ||
      op == Opcode::TryTable) {
    ++dead_depth_;
    return false;
  }
  if (dead_depth_ > 0) {
    if (op == Opcode::End) --dead_depth_;
    return false;
  }
  // `event` starts a clause of the frame whose arm is dead: live again.
  return op == Opcode::End || op == Opcode::Else || op == Opcode::Event;
}

Result<void> FunctionCompiler::compile_instruction(Opcode op, const Instruction& imm) {
  bool handled = false;
  // (Compares never come here: read_and_compile takes them all, compare_of
  // fusing one that feeds a br_if or if.)
  // Which family compiles an opcode depends on the opcode alone (a family
  // declines an opcode only in its switch's default case): it is remembered
  // (process-wide) the first time, so later instructions go straight to their
  // family instead of through every family's switch.
  std::atomic<uint8_t>& known = g_family[size_t(op)];
  const uint8_t family = known.load(std::memory_order_relaxed);
  // An opcode not met yet: its family, found out of line, decides whether
  // the mirrors go (the code must not depend on what the process compiled before).
  if (family == uint8_t(Family::Unknown)) [[unlikely]]
    return compile_first_of_its_kind(op, imm);
  if (!straight_line(Family(family))) forget_mirrors();
  if (family == uint8_t(Family::Numeric)) {
    if (compile_numeric(op)) return {};
    return compile_first_of_its_kind(op, imm);
  }
  return compile_in_family(family, op, imm, handled);
}

// An opcode whose family is not known yet: every family is asked in turn.
// Out of line, so that compile_instruction's frame stays small.
Result<void> FunctionCompiler::compile_first_of_its_kind(Opcode op, const Instruction& imm) {
  std::atomic<uint8_t>& known = g_family[size_t(op)];
  bool handled = false;
  if (compile_numeric(op)) {
    known.store(uint8_t(Family::Numeric), std::memory_order_relaxed);
    return {};
  }
  // The straight-line families first, with the mirrors; the others after
  // forgetting them, as compile_instruction does once the family is known
  // (a family that declines an opcode has done nothing).
  static constexpr Family kOrder[] = {Family::Variable, Family::Memory,  Family::Simd,      Family::Control,
                                      Family::Call,     Family::Table,   Family::Fiber,     Family::Exception};
  for (const Family f : kOrder) {
    if (!straight_line(f)) forget_mirrors();
    WEFT_TRY(compile_in_family(uint8_t(f), op, imm, handled));
    if (handled) {
      known.store(uint8_t(f), std::memory_order_relaxed);
      return {};
    }
  }
  return unsupported(std::string(opcode_info(op).text));
}

}  // namespace weft::jit
