// WAST script parser: modules (text, binary, quote), actions, registrations
// and every assertion form of the spec test suite.
#include "text/wast.h"

#include "core/opcodes.h"
#include "text/numbers.h"
#include "text/parser.h"

namespace weft::text {
namespace {

using detail::Cursor;
using detail::ModuleParser;

class WastParser : public Cursor {
 public:
  explicit WastParser(const TokenList& tokens) : Cursor(tokens, 0) {}

  const Token& peek_at(size_t index) const { return index < tl_.tokens.size() ? tl_.tokens[index] : tl_.tokens.back(); }

  bool parse(WastScript& out) {
    // A script that starts with a module field is one module body.
    if (at(TokKind::LParen) && is_module_field(peek(1))) {
      WastCommand cmd;
      cmd.line = 1;
      WastModule m;
      ModuleParser mp(tl_, 0);
      if (!mp.parse(m.module)) return propagate(mp);
      pos_ = mp.pos();
      cmd.module = std::move(m);
      out.commands.push_back(std::move(cmd));
      if (!at(TokKind::Eof)) return unexpected("end of input");
      return true;
    }
    while (!at(TokKind::Eof)) {
      WastCommand cmd;
      const size_t start = pos_;
      if (!parse_command(cmd)) {
        // Not a command weft can parse (an unknown construct, say): report it
        // and go on with the next top-level form — the lexer matched its
        // parentheses, so its end is known.
        if (tl_.tokens[start].kind != TokKind::LParen) return false;
        const Error& error = *err_;
        WastCommand failed;
        failed.kind = WastCommand::Kind::ParseError;
        const bool located = error.location.kind == Location::Kind::LineColumn;
        failed.line = located ? error.location.line : tl_.line(tl_.tokens[start].offset);
        failed.column = located ? error.location.column : 0;
        failed.text = error.message;
        failed.defines_module = peek_at(start + 1).kind == TokKind::Atom && peek_at(start + 1).kw == Kw::Module;
        out.commands.push_back(std::move(failed));
        err_.reset();
        pos_ = tl_.tokens[start].close + 1;
        continue;
      }
      out.commands.push_back(std::move(cmd));
    }
    return true;
  }

 private:
  static bool is_module_field(const Token& t) {
    if (t.kind != TokKind::Atom) return false;
    switch (t.kw) {
      case Kw::Type: case Kw::Import: case Kw::Func: case Kw::Table: case Kw::Memory: case Kw::Global:
      case Kw::Export: case Kw::Start: case Kw::Elem: case Kw::Data: case Kw::Tag:
        return true;
      default:
        return false;
    }
  }

  bool propagate(const Cursor& inner) {
    if (!err_) err_ = inner.error();
    return false;
  }

  bool parse_command(WastCommand& cmd) {
    if (!at(TokKind::LParen)) return unexpected("a script command");
    const Token& open = peek();
    cmd.line = tl_.line(open.offset);
    using K = WastCommand::Kind;
    const Token& kw = peek(1);
    switch (kw.kind == TokKind::Atom ? kw.kw : Kw::None) {
      case Kw::Module: {
        cmd.kind = K::Module;
        WastModule m;
        if (!parse_module(m)) return false;
        cmd.module = std::move(m);
        return true;
      }
      case Kw::Register: {
        cmd.kind = K::Register;
        pos_ += 2;
        if (!parse_name(cmd.text)) return false;
        if (std::optional<std::string_view> id = consume_id()) cmd.module_id = std::string(id->substr(1));
        return expect_rparen();
      }
      case Kw::Invoke:
      case Kw::Get: {
        cmd.kind = K::Action;
        WastAction a;
        if (!parse_action(a)) return false;
        cmd.action = std::move(a);
        return true;
      }
      case Kw::AssertReturn: {
        cmd.kind = K::AssertReturn;
        pos_ += 2;
        WastAction a;
        if (!parse_action(a)) return false;
        cmd.action = std::move(a);
        while (at(TokKind::LParen)) {
          WastExpected e;
          if (!parse_expected(e)) return false;
          cmd.expected.push_back(std::move(e));
        }
        return expect_rparen();
      }
      case Kw::AssertTrap:
      case Kw::AssertExhaustion: {
        cmd.kind = kw.kw == Kw::AssertTrap ? K::AssertTrap : K::AssertExhaustion;
        pos_ += 2;
        if (kw.kw == Kw::AssertTrap && at_form(Kw::Module)) {
          WastModule m;
          if (!parse_module(m)) return false;
          cmd.module = std::move(m);
        } else {
          WastAction a;
          if (!parse_action(a)) return false;
          cmd.action = std::move(a);
        }
        return parse_string(cmd.text) && expect_rparen();
      }
      case Kw::AssertException: {
        cmd.kind = K::AssertException;
        pos_ += 2;
        WastAction a;
        if (!parse_action(a)) return false;
        cmd.action = std::move(a);
        return expect_rparen();
      }
      case Kw::AssertMalformed:
      case Kw::AssertInvalid:
      case Kw::AssertUnlinkable:
      case Kw::AssertUninstantiable: {
        cmd.kind = kw.kw == Kw::AssertMalformed    ? K::AssertMalformed
                   : kw.kw == Kw::AssertInvalid    ? K::AssertInvalid
                   : kw.kw == Kw::AssertUnlinkable ? K::AssertUnlinkable
                                                   : K::AssertUninstantiable;
        pos_ += 2;
        WastModule m;
        if (!parse_module(m)) return false;
        cmd.module = std::move(m);
        return parse_string(cmd.text) && expect_rparen();
      }
      default:
        ++pos_;
        return unexpected("a script command");
    }
  }

  // (module $id? field*) | (module $id? binary string*) | (module $id? quote string*)
  bool parse_module(WastModule& out) {
    if (!expect_form(Kw::Module, "(module")) return false;
    if (std::optional<std::string_view> id = consume_id()) out.id = std::string(id->substr(1));
    if (consume_kw(Kw::Binary)) {
      out.form = WastModule::Form::Binary;
      while (at(TokKind::String)) {
        std::string s = decode_string(text(peek()));
        out.bytes.insert(out.bytes.end(), s.begin(), s.end());
        ++pos_;
      }
    } else if (consume_kw(Kw::Quote)) {
      // The strings are concatenated as they are, like the reference interpreter.
      out.form = WastModule::Form::Quote;
      while (at(TokKind::String)) {
        out.quote += decode_string(text(peek()));
        ++pos_;
      }
    } else {
      out.form = WastModule::Form::Text;
      ModuleParser mp(tl_, pos_);
      if (!mp.parse(out.module)) return propagate(mp);
      pos_ = mp.pos();
      out.module.names.module_name = out.id;
    }
    return expect_rparen();
  }

  // (invoke $id? "name" const*) | (get $id? "name")
  bool parse_action(WastAction& out) {
    if (at_form(Kw::Invoke)) {
      out.kind = WastAction::Kind::Invoke;
    } else if (at_form(Kw::Get)) {
      out.kind = WastAction::Kind::Get;
    } else {
      return unexpected("(invoke or (get");
    }
    pos_ += 2;
    if (std::optional<std::string_view> id = consume_id()) out.module_id = std::string(id->substr(1));
    if (!parse_name(out.name)) return false;
    if (out.kind == WastAction::Kind::Invoke) {
      while (at(TokKind::LParen)) {
        WastExpected e;
        if (!parse_value(e, false)) return false;
        out.args.push_back(e.value);
      }
    }
    return expect_rparen();
  }

  bool parse_expected(WastExpected& out) { return parse_value(out, true); }

  // One `(t.const …)` / `(ref.… …)` form. Patterns (nan:canonical,
  // nan:arithmetic, (ref.func), (ref.extern), (ref.fiber)) only when `pattern_ok`.
  bool parse_value(WastExpected& out, bool pattern_ok) {
    using EK = WastExpected::Kind;
    if (!expect_lparen()) return false;
    const Token& head = peek();
    if (head.kind != TokKind::Atom) return unexpected("a constant");
    WastValue& v = out.value;
    if (head.kw == Kw::Either && pattern_ok) {
      ++pos_;
      out.kind = EK::Either;
      while (at(TokKind::LParen)) {
        // An alternative is a result, not another `either` (which would also
        // let a script nest them deep enough to exhaust the parser's stack).
        if (peek(1).kind == TokKind::Atom && peek(1).kw == Kw::Either)
          return fail(peek(1), "unexpected token either, expected a result");
        WastExpected alternative;
        if (!parse_value(alternative, true)) return false;
        out.alternatives.push_back(std::move(alternative));
      }
      if (out.alternatives.empty()) return unexpected("a result");
      return expect_rparen();
    }
    if (head.kw == Kw::RefFiber) {
      // Fiber extension: a fiber reference has no script syntax, only the pattern.
      ++pos_;
      if (!pattern_ok) return fail(head, "unexpected token ref.fiber, expected a constant");
      v.type = ValType{ValType::FiberRef, false, 0};
      out.kind = EK::AnyFiber;
      return expect_rparen();
    }
    if (head.kw == Kw::RefExtern) {
      ++pos_;
      v.type = ValType::externref();
      if (at(TokKind::RParen)) {
        if (!pattern_ok) return unexpected("a host reference number");
        out.kind = EK::AnyExtern;
      } else if (!parse_u64(v.bits[0])) {
        return false;
      }
      return expect_rparen();
    }
    std::optional<Opcode> op = opcode_from_text(text(head));
    if (!op) return fail(head, "unknown operator " + std::string(text(head)));
    ++pos_;
    switch (*op) {
      case Opcode::I32Const:
      case Opcode::I64Const: {
        unsigned bits = *op == Opcode::I32Const ? 32 : 64;
        v.type = bits == 32 ? ValType::i32() : ValType::i64();
        if (!parse_number(v.bits[0], bits, false, nullptr)) return false;
        break;
      }
      case Opcode::F32Const:
      case Opcode::F64Const: {
        v.type = *op == Opcode::F32Const ? ValType::f32() : ValType::f64();
        if (!parse_number(v.bits[0], *op == Opcode::F32Const ? 32 : 64, true, pattern_ok ? &out.kind : nullptr))
          return false;
        break;
      }
      case Opcode::V128Const:
        v.type = ValType::v128();
        if (!parse_v128(out, pattern_ok)) return false;
        break;
      case Opcode::RefNull: {
        if (pattern_ok && at(TokKind::RParen)) {  // `(ref.null)`: any null reference
          v.type = ValType::funcref();
          v.is_null = true;
          out.kind = EK::AnyNull;
          break;
        }
        if (at_kw(Kw::Func)) v.type = ValType::funcref();
        else if (at_kw(Kw::Extern)) v.type = ValType::externref();
        else if (at_kw(Kw::Fiber)) v.type = ValType{ValType::FiberRef, true, 0};
        else if (at_kw(Kw::Exn)) v.type = ValType::exnref();
        else return unexpected("func, extern, fiber or exn");
        ++pos_;
        v.is_null = true;
        break;
      }
      case Opcode::RefFunc: {
        v.type = ValType::funcref();
        if (!pattern_ok || !at(TokKind::RParen)) return unexpected(")");
        out.kind = EK::AnyFunc;
        break;
      }
      default:
        return fail(head, "unexpected token " + std::string(text(head)) + ", expected a constant");
    }
    return expect_rparen();
  }

  // One numeric literal into raw bits; `kind` receives NaN patterns.
  bool parse_number(uint64_t& bits_out, unsigned bits, bool is_float, WastExpected::Kind* kind) {
    const Token& t = peek();
    if (t.kind != TokKind::Atom) return unexpected("a number");
    if (is_float && kind && (t.kw == Kw::NanCanonical || t.kw == Kw::NanArithmetic)) {
      *kind = t.kw == Kw::NanCanonical ? WastExpected::Kind::CanonicalNan : WastExpected::Kind::ArithmeticNan;
      bits_out = 0;
      ++pos_;
      return true;
    }
    NumResult<uint64_t> r;
    if (!is_float) {
      r = parse_integer(text(t), bits);
    } else if (bits == 32) {
      NumResult<uint32_t> f = parse_f32(text(t));
      r = {f.status, f.value};
    } else {
      r = parse_f64(text(t));
    }
    if (r.status == NumStatus::NotANumber) return unexpected("a number");
    if (r.status == NumStatus::OutOfRange) return fail(t, "constant out of range");
    bits_out = r.value;
    ++pos_;
    return true;
  }

  bool parse_v128(WastExpected& out, bool pattern_ok) {
    const Token& shape = peek();
    unsigned lanes, lane_bits;
    bool is_float = false;
    ValType::Kind lane_type = ValType::I32;
    switch (shape.kind == TokKind::Atom ? shape.kw : Kw::None) {
      case Kw::I8x16: lanes = 16, lane_bits = 8; break;
      case Kw::I16x8: lanes = 8, lane_bits = 16; break;
      case Kw::I32x4: lanes = 4, lane_bits = 32; break;
      case Kw::I64x2: lanes = 2, lane_bits = 64, lane_type = ValType::I64; break;
      case Kw::F32x4: lanes = 4, lane_bits = 32, is_float = true, lane_type = ValType::F32; break;
      case Kw::F64x2: lanes = 2, lane_bits = 64, is_float = true, lane_type = ValType::F64; break;
      default: return unexpected("a vector shape");
    }
    ++pos_;
    std::vector<WastExpected::Kind> kinds(lanes, WastExpected::Kind::Exact);
    bool any_pattern = false;
    for (unsigned i = 0; i < lanes; ++i) {
      if (!at(TokKind::Atom)) return fail(peek(), "wrong number of lane literals");
      uint64_t lane = 0;
      if (!parse_number(lane, lane_bits, is_float, pattern_ok ? &kinds[i] : nullptr)) return false;
      any_pattern |= kinds[i] != WastExpected::Kind::Exact;
      unsigned bit = i * lane_bits;
      uint64_t mask = lane_bits == 64 ? ~uint64_t(0) : (uint64_t(1) << lane_bits) - 1;
      out.value.bits[bit / 64] |= (lane & mask) << (bit % 64);
    }
    if (any_pattern) {
      out.kind = WastExpected::Kind::V128Lanes;
      out.lane_type = lane_type;
      out.lanes = std::move(kinds);
    }
    return true;
  }
};

}  // namespace

Result<WastScript> parse_wast(std::string_view source) {
  WEFT_TRY_ASSIGN(TokenList tokens, tokenize(source));
  WastScript script;
  WastParser parser(tokens);
  if (!parser.parse(script)) return parser.error();
  return script;
}

}  // namespace weft::text
