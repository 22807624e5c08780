// Printing of types (error messages, `weft inspect`, tests).
#include "core/types.h"

namespace weft {

std::string to_string(ValType t) {
  switch (t.kind) {
    case ValType::I32: return "i32";
    case ValType::I64: return "i64";
    case ValType::F32: return "f32";
    case ValType::F64: return "f64";
    case ValType::V128: return "v128";
    case ValType::FuncRef: return t.nullable ? "funcref" : "(ref func)";
    case ValType::ExternRef: return t.nullable ? "externref" : "(ref extern)";
    case ValType::FiberRef: return t.nullable ? "fiberref" : "(ref fiber)";
    case ValType::TypedRef:
      return std::string(t.nullable ? "(ref null " : "(ref ") + std::to_string(t.type_index) + ")";
    case ValType::ExnRef: return t.nullable ? "exnref" : "(ref exn)";
  }
  return "?";
}

std::string to_string(const FuncType& t) {
  if (t.is_fiber) {
    std::string s = "fiber [";
    for (size_t i = 0; i < t.results.size(); ++i) s += (i ? " " : "") + to_string(t.results[i]);
    return s + "]";
  }
  std::string s = "[";
  for (size_t i = 0; i < t.params.size(); ++i) s += (i ? " " : "") + to_string(t.params[i]);
  s += "] -> [";
  for (size_t i = 0; i < t.results.size(); ++i) s += (i ? " " : "") + to_string(t.results[i]);
  return s + "]";
}

const char* to_string(ExternKind k) {
  switch (k) {
    case ExternKind::Func: return "func";
    case ExternKind::Table: return "table";
    case ExternKind::Memory: return "memory";
    case ExternKind::Global: return "global";
    case ExternKind::Tag: return "tag";
  }
  return "?";
}

}  // namespace weft
