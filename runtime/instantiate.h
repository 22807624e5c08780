// Instantiation: import type matching, allocation of instance objects, constant
// expression evaluation, segment initialisation and the start function.
#pragma once

#include <memory>
#include <span>

#include "runtime/store.h"

namespace weft::runtime {

struct ExternValue {
  ExternKind kind = ExternKind::Func;
  void* object = nullptr;  // FuncInstance* / TableInstance* / MemoryInstance* / GlobalInstance*
};

// `imports` are the resolved externs in the order of module->imports.
// Errors: Unlinkable (import type mismatch), Trap (segment initialisation or
// start function trapped; the instance's earlier effects persist, as in Wasm 2.0),
// Limit (resources).
Result<Instance*> instantiate(Store& store, std::shared_ptr<const Module> module,
                              std::shared_ptr<const validator::ValidationInfo> info,
                              std::span<const ExternValue> imports);

// Evaluates a validated constant expression in `instance`'s context into slots.
void eval_const_expr(const Instance& instance, const ConstExpr& expr, uint64_t out[2]);

// Defines the spec test suite's `spectest` host module; returns its exports.
std::vector<std::pair<std::string, ExternValue>> create_spectest(Store& store);

}  // namespace weft::runtime
