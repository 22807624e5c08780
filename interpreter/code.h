// The interpreter's compact internal code and per-function metadata.
//
// Format: a stream of 32-bit words. Each instruction is one op word — the
// handler's address as an offset from a base label of the dispatch loop
// (direct threading without a table load) — followed by its operand words:
// frame slot indices (locals, constants and operand-stack temporaries all live
// in one frame of 64-bit slots, so an `i32.add` is `op dst a b` with no pushes
// or pops), relative branch offsets (in words, from the op word), and 64-bit
// pointers split in two words. Branch targets, slot numbers and callee/global
// addresses are resolved once at translation; nothing is decoded at run time.
//
// Frame layout (slots): [params][declared locals][constants][operand temps].
// A call passes arguments in place: the callee's frame starts at the caller's
// first argument temp, and results come back in the same slots.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/objects.h"
#include "runtime/slot.h"

namespace weft::interpreter {

enum class IOp : uint16_t {
#define WEFT_OPCODE(name, prefix, code, text, imm, mem, r, a, b, c) name,
#include "core/opcodes.def"
#define WEFT_IOP(name, words) name,
#include "interpreter/internal_ops.def"
  Count_
};
constexpr uint32_t kIOpCount = uint32_t(IOp::Count_);

// Frame slots and dispatch sites belong to the fiber runtime too (runtime/).
using runtime::Slot;
}  // namespace weft::interpreter
namespace weft::runtime {
struct DispatchSite;  // runtime/fiber_runtime.h
}  // namespace weft::runtime
namespace weft::interpreter {
using runtime::DispatchSite;

// Exception handling: a try_table's body as a range of code indices, and its
// clauses. The unwinder (execute.cc) looks up the innermost range holding
// the throwing instruction (or the call an exception came out of).
struct CatchRegion {
  uint32_t begin = 0, end = 0;  // [begin, end) in `code`
  uint32_t first_clause = 0, clause_count = 0;
};
struct CatchTarget {
  uint64_t tag_id = 0;        // the tag's identity; 0: catch_all / catch_all_ref
  uint32_t dest_slot = 0;     // where the label's values go: the payload, then the exnref
  uint32_t payload_slots = 0; // copied for catch / catch_ref
  uint32_t target_pc = 0;     // the label's code: a block's end, a loop's head, or an IReturn
  bool with_ref = false;      // catch_ref / catch_all_ref: the exnref after the payload
};

// Code inside a try_table's range that its clauses do not cover: a tail call
// of a host function (made as a call in the caller's frame, which the tail
// call has left).
struct CatchHole {
  uint32_t begin = 0, end = 0;
};

// A function's try_table bodies, for the unwinder; only functions that have
// any carry one (the record of every other function stays smaller).
struct CatchTables {
  std::vector<CatchRegion> regions;  // innermost first where nested
  std::vector<CatchTarget> targets;
  std::vector<CatchHole> holes;
};

struct CompiledFunction {
  std::vector<uint32_t> code;
  // Where a call starts: code.data() once translated; while pending, one
  // ITranslate op shared by every pending record (make_pending), so that
  // deferring a function's translation allocates nothing.
  const uint32_t* entry = nullptr;
  // What a call writes above the params: `local_slots` zeros, then the
  // constants — one contiguous image, so entry is a single inline copy loop
  // (no memset + memcpy calls through the PLT on every call).
  std::vector<uint64_t> frame_init;
  runtime::FuncInstance* func = nullptr;
  runtime::MemoryInstance* memory = nullptr;  // the instance's memory 0 (or an empty one)
  uint32_t param_slots = 0;
  uint32_t local_slots = 0;          // declared locals (zeroed on entry)
  uint32_t const_base = 0;           // first constant slot
  uint32_t frame_slots = 0;          // params + locals + constants + max operand temps
  uint32_t result_slots = 0;
  // Fiber extension: the dispatch tables of this function's suspension points
  // (owned here; the code embeds their addresses) and the function-level
  // clauses a fresh fiber starts at.
  std::vector<std::unique_ptr<DispatchSite>> sites;
  const DispatchSite* entry_site = nullptr;
  // Exception handling: null without try_table.
  std::unique_ptr<CatchTables> catches;
  // What the IFuel at the start of the code charges (0 when unmetered). A fresh
  // fiber entered at a function-level clause skips that op, so it pays this on entry.
  uint32_t entry_fuel = 0;
  // Not translated yet (Interpreter::prepare_instance_lazily, make_record): `code` is a
  // single ITranslate op that translates the function at its first entry;
  // param_slots, result_slots, func and memory are already valid.
  bool pending = false;
  CompiledFunction() = default;
  CompiledFunction& operator=(CompiledFunction&&);  // a pending record receives its translation
  ~CompiledFunction();
};

// The record of a Wasm function (`func->compiled`). A lazily prepared
// instance (Interpreter::prepare_instance_lazily, the default on both tiers)
// makes each record, pending, at its first need — the first interpreted call
// of the function, or the translation of a caller that embeds its address —
// in storage reserved for all of them but not written: a large module's
// records are megabytes of fresh pages that a JIT-tier program mostly never
// reads. nullptr only for a function whose instance failed to prepare.
const CompiledFunction* make_record(runtime::FuncInstance* func);
inline const CompiledFunction* record_of(runtime::FuncInstance* func) {
  if (__builtin_expect(func->compiled != nullptr, 1)) return static_cast<const CompiledFunction*>(func->compiled);
  return make_record(func);
}

}  // namespace weft::interpreter
