// Exception handling (Wasm 3.0): throw, throw_ref and try_table's catch
// clauses. A try_table is a block whose label is its results; its clauses
// branch to labels outside it, so they are checked before its frame opens.
#include "validator/code_validator.h"

namespace weft::validator {

bool CodeValidator::exceptions_disabled(Opcode op) {
  return invalid("exception handling is not enabled: " + std::string(opcode_info(op).text));
}

// What a clause hands its label: the tag's values (catch, catch_ref), then
// the caught exception as a (ref exn) (the _ref kinds); each a subtype of the
// label's type at that position.
bool CodeValidator::check_catch(const CatchClause& clause) {
  if (clause.has_tag() && !check_tag(clause.tag)) return false;
  if (!check_label(clause.label)) return false;
  std::vector<ValType>& given = catch_values_;
  given.clear();
  if (clause.has_tag()) {
    const auto& params = ctx_.tag_type(clause.tag).params;
    given.assign(params.begin(), params.end());
  }
  if (clause.with_ref()) given.push_back(ValType{ValType::ExnRef, false, 0});
  const std::span<const ValType> label = frame_at(clause.label).label_types().types;
  if (label.size() != given.size())
    return invalid("type mismatch: catch clause gives " + std::to_string(given.size()) + " value(s) to a label of " +
                   std::to_string(label.size()));
  for (size_t i = 0; i < given.size(); ++i)
    if (!is_subtype(given[i], label[i])) return mismatch(label[i], given[i]);
  return true;
}

bool CodeValidator::exception_instruction(Opcode op) {
  if (!ctx_.options.enable_exceptions) return exceptions_disabled(op);
  switch (op) {
    case Opcode::Throw: {
      const uint32_t tag = insn_.index;
      if (!check_tag(tag) || !pop_all(ctx_.tag_type(tag).params)) return false;
      set_unreachable();
      return true;
    }
    case Opcode::ThrowRef:
      if (!pop_expect(ValType::exnref())) return false;
      set_unreachable();
      return true;
    case Opcode::TryTable: {
      BlockSig sig;
      if (!block_sig(insn_.block, sig)) return false;
      for (const CatchClause& clause : insn_.catches)
        if (!check_catch(clause)) return false;
      return pop_all(sig.params) && push_ctrl(op, sig);
    }
    default:
      return invalid("internal error");
  }
}

}  // namespace weft::validator
