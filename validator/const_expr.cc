// Constant expressions (global initialisers, segment offsets, element items):
// Wasm 2.0 allows only t.const, ref.null, ref.func and global.get of an
// imported immutable global, and the expression must produce exactly one value
// (of a subtype of the expected type: `ref.null $g` / `ref.null fiber` are
// constants of the fiber extension).
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

// What a constant expression may see of its module.
struct ConstContext {
  const Module& module;
  const ValidateOptions& options;
  // The globals `global.get` may name (Wasm 2.0: the imported ones, because
  // globals are initialised in order at instantiation).
  std::span<const GlobalType> visible_globals;
  uint32_t num_functions;
  std::span<const uint32_t> canonical_types;  // for subtyping of fiber references
};

Result<void> check_const(const ConstContext& ctx, const ConstExpr& expr, ValType expected, const std::string& where) {
  const std::span<const GlobalType> visible_globals = ctx.visible_globals;
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
        if (!ctx.options.enable_simd) return const_error(ErrorKind::Invalid, "SIMD support is not enabled", where);
        if (!reader.skip(16)) return truncated();
        last = ValType::v128();
        break;
      case Opcode::RefNull: {
        ValType t;
        switch (read_heap_type(reader, /*nullable=*/true, ctx.options.enable_fibers, t)) {
          case TypeDecode::Ok: break;
          case TypeDecode::Truncated: return truncated();
          case TypeDecode::Malformed: return const_error(ErrorKind::Malformed, "malformed reference type", where);
        }
        if (t.kind == ValType::TypedRef && t.type_index < ctx.module.types.size() &&
            !ctx.module.types[t.type_index].is_fiber)
          return const_error(ErrorKind::Invalid,
                             "type mismatch: ref.null of a non-fiber type: type " + std::to_string(t.type_index) +
                                 " is a function type",
                             where);
        if (std::string problem = valtype_problem(t, ctx.module, ctx.options); !problem.empty())
          return const_error(ErrorKind::Invalid, std::move(problem), where);
        last = t;
        break;
      }
      case Opcode::RefFunc: {
        uint32_t index;
        if (!reader.u32(index)) return truncated();
        if (index >= ctx.num_functions)
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
        if (produced != 1 || !is_subtype(last, expected, ctx.canonical_types)) {
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
  return check_const({ctx.module, ctx.options, visible, ctx.num_functions(), ctx.canonical_types}, expr, expected,
                     where);
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
  const ValidateOptions options{};  // every feature
  const std::vector<uint32_t> canonical = canonical_type_ids(module);
  return check_const({module, options, visible, module.total_functions(), canonical}, expr, expected,
                     "constant expression");
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
      case Opcode::RefNull: { int64_t v; ok = reader.s33(v); break; }  // a heap type
      default: return;  // `end`, or not a constant expression
    }
    if (!ok) return;
  }
}

}  // namespace weft::validator
