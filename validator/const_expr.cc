// Constant expressions (global initialisers, segment offsets, element items):
// Wasm 2.0 allows t.const, ref.null, ref.func and global.get of an imported
// immutable global; extended-const (Wasm 3.0) adds i32/i64 add, sub and mul.
// The expression must produce exactly one value
// (of a subtype of the expected type: `ref.null $g` / `ref.null fiber` are
// constants of the fiber extension).
#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "core/instruction_reader.h"
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
  std::span<const uint32_t> function_types;    // function index -> type index
  std::span<const uint32_t> canonical_types;   // for subtyping of typed references
};

// The operand types of a constant expression, which is a few instructions:
// the first sixteen here, deeper ones on the heap (no allocation per global
// or element item: a module may have tens of thousands).
class ConstTypeStack {
 public:
  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }
  ValType back() const { return size_ <= kInline ? inline_[size_ - 1] : deep_.back(); }
  void pop_back() {
    if (size_ > kInline) deep_.pop_back();
    --size_;
  }
  void push_back(ValType t) {
    if (size_ < kInline)
      inline_[size_] = t;
    else
      deep_.push_back(t);
    ++size_;
  }

 private:
  static constexpr size_t kInline = 16;
  ValType inline_[kInline];
  std::vector<ValType> deep_;
  size_t size_ = 0;
};

Result<void> check_const(const ConstContext& ctx, const ConstExpr& expr, ValType expected, const std::string& where) {
  const std::span<const GlobalType> visible_globals = ctx.visible_globals;
  InstructionReader reader(expr.code, ReaderFeatures{.simd = true, .fibers = ctx.options.enable_fibers});
  Instruction insn;
  // The operand types: constant instructions push one value; the extended
  // arithmetic pops two of its type and pushes one.
  ConstTypeStack stack;
  ValType last = expected;  // type of the value the instruction pushes
  auto truncated = [&] { return const_error(ErrorKind::Malformed, reader.error(), where); };
  for (;;) {
    if (!reader.next(insn)) return truncated();
    switch (insn.op) {
      case Opcode::I32Const: last = ValType::i32(); break;
      case Opcode::I64Const: last = ValType::i64(); break;
      case Opcode::F32Const: last = ValType::f32(); break;
      case Opcode::F64Const: last = ValType::f64(); break;
      case Opcode::V128Const:
        if (!ctx.options.enable_simd) return const_error(ErrorKind::Invalid, "SIMD support is not enabled", where);
        last = ValType::v128();
        break;
      case Opcode::RefNull: {
        const ValType t = insn.heap_type;
        if (!ctx.options.enable_function_references && t.kind == ValType::TypedRef &&
            t.type_index < ctx.module.types.size() && !ctx.module.types[t.type_index].is_fiber)
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
        const uint32_t index = insn.index;
        if (index >= ctx.function_types.size())
          return const_error(ErrorKind::Invalid, "unknown function " + std::to_string(index), where);
        last = ValType{ValType::TypedRef, false, ctx.function_types[index]};  // (ref $t)
        break;
      }
      case Opcode::GlobalGet: {
        const uint32_t index = insn.index;
        if (index >= visible_globals.size())
          return const_error(ErrorKind::Invalid, "unknown global " + std::to_string(index), where);
        if (visible_globals[index].is_mutable)
          return const_error(ErrorKind::Invalid, "constant expression required: global " +
                                                     std::to_string(index) + " is mutable", where);
        last = visible_globals[index].type;
        break;
      }
      case Opcode::I32Add: case Opcode::I32Sub: case Opcode::I32Mul:
      case Opcode::I64Add: case Opcode::I64Sub: case Opcode::I64Mul: {
        if (!ctx.options.enable_extended_const)  // (Wasm 2.0's wording)
          return const_error(ErrorKind::Invalid,
                             "constant expression required: " + std::string(opcode_info(insn.op).text) +
                                 " is not a constant instruction (extended constant expressions are not enabled)",
                             where);
        const bool wide = insn.op == Opcode::I64Add || insn.op == Opcode::I64Sub || insn.op == Opcode::I64Mul;
        last = wide ? ValType::i64() : ValType::i32();
        for (int operand = 0; operand < 2; ++operand) {
          if (stack.empty() || stack.back() != last)
            return const_error(ErrorKind::Invalid,
                               "type mismatch: " + std::string(opcode_info(insn.op).text) + " needs two " +
                                   to_string(last) + " operands",
                               where);
          stack.pop_back();
        }
        break;
      }
      case Opcode::End:
        if (!reader.at_end())
          return const_error(ErrorKind::Malformed, "bytes remaining after end of constant expression", where);
        if (stack.size() != 1 || !is_subtype(stack.back(), expected, ctx.canonical_types, ctx.module.types)) {
          std::string got = stack.empty() ? "[]" : stack.size() == 1 ? to_string(stack.back())
                                                                       : std::to_string(stack.size()) + " values";
          return const_error(ErrorKind::Invalid, "type mismatch: expected " + to_string(expected) + ", got " + got,
                             where);
        }
        return {};
      default:
        return const_error(ErrorKind::Invalid,
                           "constant expression required: " + std::string(opcode_info(insn.op).text) +
                               " is not a constant instruction",
                           where);
    }
    stack.push_back(last);
  }
}

}  // namespace

Result<void> check_const_expr(const ModuleContext& ctx, const ConstExpr& expr, ValType expected,
                              const std::string& where) {
  std::span<const GlobalType> visible(ctx.globals.data(), ctx.num_imported_globals);
  return check_const({ctx.module, ctx.options, visible, ctx.function_types, ctx.canonical_types}, expr, expected,
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
  std::vector<uint32_t> function_types;
  for (const Import& imp : module.imports)
    if (imp.kind == ExternKind::Func) function_types.push_back(imp.type_index);
  for (const Function& f : module.functions) function_types.push_back(f.type_index);
  return check_const({module, options, visible, function_types, canonical}, expr, expected, "constant expression");
}

void mark_ref_funcs(const ConstExpr& expr, std::vector<bool>& declared) {
  InstructionReader reader(expr.code);
  Instruction insn;
  while (reader.next(insn) && insn.op != Opcode::End) {
    if (insn.op == Opcode::RefFunc && insn.index < declared.size()) declared[insn.index] = true;
  }
}

}  // namespace weft::validator
