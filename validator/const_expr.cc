// Constant expressions (global initialisers, segment offsets, element items):
// Wasm 2.0 allows only t.const, ref.null, ref.func and global.get of an
// imported immutable global, and the expression must produce exactly one value.
#include <algorithm>
#include <span>
#include <string>

#include "validator/code_reader.h"
#include "validator/module_context.h"
#include "validator/validator.h"

namespace weft::validator {
namespace {

Error const_error(ErrorKind kind, std::string message, const std::string& where) {
  return make_error(kind, std::move(message) + " in " + where);
}

// `visible_globals` are the globals `global.get` may name (Wasm 2.0: the
// imported ones, because globals are initialised in order at instantiation).
Result<void> check_const(const ConstExpr& expr, ValType expected, std::span<const GlobalType> visible_globals,
                         uint32_t num_functions, bool enable_simd, const std::string& where) {
  CodeReader reader(expr.code);
  uint32_t produced = 0;   // no constant instruction consumes operands, so a count suffices
  ValType last = expected;  // type of the topmost value
  auto truncated = [&] { return const_error(ErrorKind::Malformed, reader.error(), where); };
  for (;;) {
    std::optional<Opcode> op = reader.opcode();
    if (!op) {
      if (*reader.error()) return truncated();
      return const_error(ErrorKind::Malformed, "illegal opcode", where);
    }
    switch (*op) {
      case Opcode::I32Const: {
        int32_t v;
        if (!reader.s32(v)) return truncated();
        last = ValType::i32();
        break;
      }
      case Opcode::I64Const: {
        int64_t v;
        if (!reader.s64(v)) return truncated();
        last = ValType::i64();
        break;
      }
      case Opcode::F32Const:
        if (!reader.skip(4)) return truncated();
        last = ValType::f32();
        break;
      case Opcode::F64Const:
        if (!reader.skip(8)) return truncated();
        last = ValType::f64();
        break;
      case Opcode::V128Const:
        if (!enable_simd) return const_error(ErrorKind::Invalid, "SIMD support is not enabled", where);
        if (!reader.skip(16)) return truncated();
        last = ValType::v128();
        break;
      case Opcode::RefNull: {
        uint8_t heap;
        if (!reader.u8(heap)) return truncated();
        std::optional<ValType> t = reftype_from_heap_byte(heap);
        if (!t) return const_error(ErrorKind::Malformed, "malformed reference type", where);
        last = *t;
        break;
      }
      case Opcode::RefFunc: {
        uint32_t index;
        if (!reader.u32(index)) return truncated();
        if (index >= num_functions)
          return const_error(ErrorKind::Invalid, "unknown function " + std::to_string(index), where);
        last = ValType::funcref();
        break;
      }
      case Opcode::GlobalGet: {
        uint32_t index;
        if (!reader.u32(index)) return truncated();
        if (index >= visible_globals.size())
          return const_error(ErrorKind::Invalid, "unknown global " + std::to_string(index), where);
        if (visible_globals[index].is_mutable)
          return const_error(ErrorKind::Invalid, "constant expression required: global " +
                                                     std::to_string(index) + " is mutable", where);
        last = visible_globals[index].type;
        break;
      }
      case Opcode::End:
        if (!reader.at_end())
          return const_error(ErrorKind::Malformed, "bytes remaining after end of constant expression", where);
        if (produced != 1 || last != expected) {
          std::string got = produced == 0 ? "[]" : produced == 1 ? to_string(last) : std::to_string(produced) + " values";
          return const_error(ErrorKind::Invalid, "type mismatch: expected " + to_string(expected) + ", got " + got,
                             where);
        }
        return {};
      default:
        return const_error(ErrorKind::Invalid,
                           "constant expression required: " + std::string(opcode_info(*op).text) +
                               " is not a constant instruction",
                           where);
    }
    ++produced;
  }
}

}  // namespace

Result<void> check_const_expr(const ModuleContext& ctx, const ConstExpr& expr, ValType expected,
                              const std::string& where) {
  std::span<const GlobalType> visible(ctx.globals.data(), ctx.num_imported_globals);
  return check_const(expr, expected, visible, ctx.num_functions(), ctx.options.enable_simd, where);
}

Result<void> validate_const_expr(const Module& module, const ConstExpr& expr, ValType expected,
                                 uint32_t num_visible_globals) {
  // Only the visible prefix of the global index space is flattened.
  std::vector<GlobalType> visible;
  uint32_t n = std::min(num_visible_globals, module.total_globals());
  visible.reserve(n);
  for (const Import& imp : module.imports)
    if (imp.kind == ExternKind::Global && visible.size() < n) visible.push_back(imp.global);
  for (const Global& g : module.globals)
    if (visible.size() < n) visible.push_back(g.type);
  return check_const(expr, expected, visible, module.total_functions(), /*enable_simd=*/true, "constant expression");
}

void mark_ref_funcs(const ConstExpr& expr, std::vector<bool>& declared) {
  CodeReader reader(expr.code);
  for (;;) {
    std::optional<Opcode> op = reader.opcode();
    if (!op) return;
    bool ok = true;
    switch (*op) {
      case Opcode::RefFunc: {
        uint32_t index;
        ok = reader.u32(index);
        if (ok && index < declared.size()) declared[index] = true;
        break;
      }
      case Opcode::I32Const: { int32_t v; ok = reader.s32(v); break; }
      case Opcode::I64Const: { int64_t v; ok = reader.s64(v); break; }
      case Opcode::GlobalGet: { uint32_t v; ok = reader.u32(v); break; }
      case Opcode::F32Const: ok = reader.skip(4); break;
      case Opcode::F64Const: ok = reader.skip(8); break;
      case Opcode::V128Const: ok = reader.skip(16); break;
      case Opcode::RefNull: { uint8_t v; ok = reader.u8(v); break; }
      default: return;  // `end`, or not a constant expression
    }
    if (!ok) return;
  }
}

}  // namespace weft::validator
