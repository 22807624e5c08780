// Translation of one validated Wasm function into the interpreter's compact code.
#pragma once

#include "core/result.h"
#include "interpreter/code.h"

namespace weft::interpreter {

// The op word of each IOp (handler offset from the dispatch loop's base label).
const int32_t* handler_offsets();

// Translates `out.func`'s body. The function must have passed validation;
// `max_stack_slots` comes from the validator's side table. Fails (a Limit
// error) only for a function declaring more than kMaxLocalSlots local slots,
// or an instruction without a translation (none of the opcode table's rows).
Result<void> translate_function(const runtime::Instance& instance, uint32_t defined_index,
                                uint32_t max_stack_slots, CompiledFunction& out);

// Frames with more declared local slots than this are refused at translation.
constexpr uint64_t kMaxLocalSlots = 1u << 20;

// A record for `func` whose translation is deferred to its first entry
// (CompiledFunction::pending), and the translation of such a record (a no-op
// for a translated one). Every reader of a record outside the dispatch loop's
// entry path (which runs ITranslate) calls ensure_translated first.
void make_pending(CompiledFunction& out, runtime::FuncInstance* func, runtime::MemoryInstance* memory);
Result<void> ensure_translated(const CompiledFunction& cf);

}  // namespace weft::interpreter
