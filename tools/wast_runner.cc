// The WAST script runner: one Store per script, modules by id, `register` via
// Linker::define_instance, assertions checked against the public API only.
#include "tools/wast_runner.h"

#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <utility>

namespace weft::tools {

using text::WastAction;
using text::WastCommand;
using text::WastExpected;
using text::WastModule;
using text::WastValue;

// ─── Value rendering ─────────────────────────────────────────────────────────

namespace {

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

template <class Float, class Bits>
std::string describe_float(Bits bits, int mantissa_bits) {
  const Bits sign_mask = Bits(1) << (sizeof(Bits) * 8 - 1);
  const Bits mantissa_mask = (Bits(1) << mantissa_bits) - 1;
  const Bits exponent_mask = ~(sign_mask | mantissa_mask);
  std::string sign = (bits & sign_mask) ? "-" : "";
  if ((bits & exponent_mask) == exponent_mask) {
    if ((bits & mantissa_mask) == 0) return sign + "inf";
    return sign + "nan:" + hex(uint64_t(bits & mantissa_mask));
  }
  Float f;
  static_assert(sizeof f == sizeof bits);
  std::memcpy(&f, &bits, sizeof f);
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, f);
  if (ec != std::errc()) return hex(uint64_t(bits));
  return std::string(buf, end);
}

std::string describe_f32(uint32_t bits) {
  return "f32:" + describe_float<float>(bits, 23) + " (" + hex(bits) + ")";
}
std::string describe_f64(uint64_t bits) {
  return "f64:" + describe_float<double>(bits, 52) + " (" + hex(bits) + ")";
}

// Lane width in bits of a v128 lane shape.
uint32_t lane_bits(ValType::Kind lane_type, size_t lane_count) {
  switch (lane_type) {
    case ValType::I32:
    case ValType::F32: return 32;
    case ValType::I64:
    case ValType::F64: return 64;
    default: return lane_count ? uint32_t(128 / lane_count) : 32;
  }
}

uint64_t v128_lane(const uint64_t bits[2], uint32_t width, size_t index) {
  uint64_t bit = uint64_t(index) * width;
  uint64_t word = bits[bit / 64] >> (bit % 64);
  return width == 64 ? word : word & ((uint64_t(1) << width) - 1);
}

std::string describe_v128(const uint64_t bits[2]) {
  std::string s = "v128:i32x4";
  for (size_t i = 0; i < 4; ++i) s += " " + hex(v128_lane(bits, 32, i));
  return s;
}

const char* ref_type_name(ValType type) {
  switch (type.kind) {
    case ValType::FuncRef: return "funcref";
    case ValType::ExternRef: return "externref";
    case ValType::FiberRef: return "fiberref";
    case ValType::ExnRef: return "exnref";
    default: return "ref";
  }
}

bool is_canonical_nan(uint64_t bits, bool is_f32) {
  if (is_f32) return (bits & 0x7fffffffu) == 0x7fc00000u;
  return (bits & 0x7fffffffffffffffull) == 0x7ff8000000000000ull;
}

bool is_arithmetic_nan(uint64_t bits, bool is_f32) {
  if (is_f32) return (bits & 0x7fc00000u) == 0x7fc00000u;
  return (bits & 0x7ff8000000000000ull) == 0x7ff8000000000000ull;
}

bool lane_matches(WastExpected::Kind kind, uint64_t actual, uint64_t expected, uint32_t width) {
  switch (kind) {
    case WastExpected::Kind::CanonicalNan: return width == 32 || width == 64 ? is_canonical_nan(actual, width == 32) : false;
    case WastExpected::Kind::ArithmeticNan: return width == 32 || width == 64 ? is_arithmetic_nan(actual, width == 32) : false;
    default: return actual == expected;
  }
}

const char* nan_pattern_name(WastExpected::Kind kind) {
  return kind == WastExpected::Kind::CanonicalNan ? "nan:canonical" : "nan:arithmetic";
}

}  // namespace

std::string describe(const Value& value) {
  ValType type = value.type();
  switch (type.kind) {
    case ValType::I32: return "i32:" + std::to_string(int32_t(value.as_i32()));
    case ValType::I64: return "i64:" + std::to_string(int64_t(value.as_i64()));
    case ValType::F32: return describe_f32(value.f32_bits());
    case ValType::F64: return describe_f64(value.f64_bits());
    case ValType::V128: return describe_v128(value.raw());
    case ValType::ExternRef:
      if (value.is_null()) return "externref:null";
      return "externref:" + std::to_string(value.extern_value());
    default:
      return std::string(ref_type_name(type)) + (value.is_null() ? ":null" : ":<non-null>");
  }
}

std::string describe(const WastExpected& expected) {
  const WastValue& v = expected.value;
  switch (expected.kind) {
    case WastExpected::Kind::Exact: return describe(to_value(v));
    case WastExpected::Kind::CanonicalNan:
    case WastExpected::Kind::ArithmeticNan:
      return std::string(v.type.kind == ValType::F32 ? "f32:" : "f64:") + nan_pattern_name(expected.kind);
    case WastExpected::Kind::AnyNull: return "<any null reference>";
    case WastExpected::Kind::Either: {
      std::string s = "either(";
      for (size_t i = 0; i < expected.alternatives.size(); ++i)
        s += (i ? " | " : "") + describe(expected.alternatives[i]);
      return s + ")";
    }
    case WastExpected::Kind::AnyFunc: return "funcref:<any non-null>";
    case WastExpected::Kind::AnyExtern: return "externref:<any non-null>";
    case WastExpected::Kind::AnyFiber: return "fiberref:<any non-null>";
    case WastExpected::Kind::V128Lanes: {
      uint32_t width = lane_bits(expected.lane_type, expected.lanes.size());
      std::string s = "v128:";
      bool is_float = expected.lane_type == ValType::F32 || expected.lane_type == ValType::F64;
      s += (is_float ? "f" : "i") + std::to_string(width) + "x" + std::to_string(expected.lanes.size());
      for (size_t i = 0; i < expected.lanes.size(); ++i) {
        if (expected.lanes[i] == WastExpected::Kind::Exact)
          s += " " + hex(v128_lane(v.bits, width, i));
        else
          s += std::string(" ") + nan_pattern_name(expected.lanes[i]);
      }
      return s;
    }
  }
  return "?";
}

const char* command_name(WastCommand::Kind kind) {
  switch (kind) {
    case WastCommand::Kind::Module: return "module";
    case WastCommand::Kind::Register: return "register";
    case WastCommand::Kind::Action: return "action";
    case WastCommand::Kind::AssertReturn: return "assert_return";
    case WastCommand::Kind::AssertTrap: return "assert_trap";
    case WastCommand::Kind::AssertExhaustion: return "assert_exhaustion";
    case WastCommand::Kind::AssertException: return "assert_exception";
    case WastCommand::Kind::AssertMalformed: return "assert_malformed";
    case WastCommand::Kind::AssertInvalid: return "assert_invalid";
    case WastCommand::Kind::AssertUnlinkable: return "assert_unlinkable";
    case WastCommand::Kind::AssertUninstantiable: return "assert_uninstantiable";
    case WastCommand::Kind::ParseError: return "parse";
  }
  return "command";
}

// ─── Assertion logic ─────────────────────────────────────────────────────────

Value to_value(const WastValue& v) {
  switch (v.type.kind) {
    case ValType::I32: return Value::i32(uint32_t(v.bits[0]));
    case ValType::I64: return Value::i64(v.bits[0]);
    case ValType::F32: return Value::f32_bits(uint32_t(v.bits[0]));
    case ValType::F64: return Value::f64_bits(v.bits[0]);
    case ValType::V128: return Value::v128(v.bits[0], v.bits[1]);
    case ValType::ExternRef: return v.is_null ? Value::null_ref(v.type) : Value::extern_ref(v.bits[0]);
    default: return Value::null_ref(v.type);  // funcref constants can only be ref.null
  }
}

bool result_matches(const WastExpected& expected, const Value& actual) {
  const WastValue& want = expected.value;
  ValType type = actual.type();
  switch (expected.kind) {
    case WastExpected::Kind::Exact:
      // (ref.null func) and (ref.null fiber) match a null reference of any
      // function or fiber type (the script cannot name the module's types).
      if ((want.type.kind == ValType::FiberRef || want.type.kind == ValType::FuncRef) && type.kind == ValType::TypedRef)
        return actual.is_null() && want.is_null;
      if (type.kind != want.type.kind) return false;
      switch (type.kind) {
        case ValType::I32:
        case ValType::F32: return uint32_t(actual.raw()[0]) == uint32_t(want.bits[0]);
        case ValType::I64:
        case ValType::F64: return actual.raw()[0] == want.bits[0];
        case ValType::V128: return actual.raw()[0] == want.bits[0] && actual.raw()[1] == want.bits[1];
        case ValType::ExternRef:
          if (want.is_null || actual.is_null()) return want.is_null == actual.is_null();
          return actual.extern_value() == want.bits[0];
        default:
          // Other references can only be written as ref.null in a script.
          return actual.is_null() == want.is_null;
      }
    case WastExpected::Kind::CanonicalNan:
    case WastExpected::Kind::ArithmeticNan: {
      if (type.kind != want.type.kind) return false;
      if (type.kind != ValType::F32 && type.kind != ValType::F64) return false;
      bool is_f32 = type.kind == ValType::F32;
      uint64_t bits = is_f32 ? actual.f32_bits() : actual.f64_bits();
      return expected.kind == WastExpected::Kind::CanonicalNan ? is_canonical_nan(bits, is_f32)
                                                               : is_arithmetic_nan(bits, is_f32);
    }
    case WastExpected::Kind::AnyNull: return type.is_ref() && actual.is_null();
    case WastExpected::Kind::Either:
      for (const WastExpected& alternative : expected.alternatives)
        if (result_matches(alternative, actual)) return true;
      return false;
    case WastExpected::Kind::AnyFunc:
      return (type.kind == ValType::FuncRef || type.kind == ValType::TypedRef) && !actual.is_null();
    case WastExpected::Kind::AnyExtern: return type.kind == ValType::ExternRef && !actual.is_null();
    case WastExpected::Kind::AnyFiber:
      return (type.kind == ValType::FiberRef || type.kind == ValType::TypedRef) && !actual.is_null();
    case WastExpected::Kind::V128Lanes: {
      if (type.kind != ValType::V128 || expected.lanes.empty()) return false;
      uint32_t width = lane_bits(expected.lane_type, expected.lanes.size());
      if (uint64_t(width) * expected.lanes.size() != 128) return false;
      for (size_t i = 0; i < expected.lanes.size(); ++i) {
        if (!lane_matches(expected.lanes[i], v128_lane(actual.raw(), width, i), v128_lane(want.bits, width, i), width))
          return false;
      }
      return true;
    }
  }
  return false;
}

bool message_matches(std::string_view actual, std::string_view expected) {
  if (expected.empty()) return true;
  return actual.substr(0, expected.size()) == expected || actual.find(expected) != std::string_view::npos;
}

// ─── The runner ──────────────────────────────────────────────────────────────

namespace {

std::string describe_values(const std::vector<Value>& values) {
  std::string s = "(";
  for (size_t i = 0; i < values.size(); ++i) s += (i ? ", " : "") + describe(values[i]);
  return s + ")";
}

std::string describe_expected(const std::vector<WastExpected>& expected) {
  std::string s = "(";
  for (size_t i = 0; i < expected.size(); ++i) s += (i ? ", " : "") + describe(expected[i]);
  return s + ")";
}

std::string describe_error(const Error& error) { return error.to_string(); }

// Why a check failed, or nothing when it passed.
using Outcome = std::optional<std::string>;

class Runner {
 public:
  explicit Runner(const WastOptions& options) : options_(options), engine_(options.config), store_(engine_) {
    store_.define_spectest(linker_);
    define_host_reentry();
  }
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  WastReport run(const text::WastScript& script) {
    for (const WastCommand& command : script.commands) {
      Outcome failure;
      try {
        failure = execute(command);
      } catch (const std::exception& e) {
        failure = std::string("internal error (C++ exception): ") + e.what();
      } catch (...) {
        failure = "internal error (unknown C++ exception)";
      }
      if (failure) {
        report_.failed++;
        report_.failures.push_back({command.line, command.column, command_name(command.kind), *failure});
        trace(command, "FAIL " + std::string(command_name(command.kind)) + ": " + *failure);
      } else {
        report_.passed++;
        trace(command, "ok " + std::string(command_name(command.kind)) + note_);
      }
      note_.clear();
    }
    report_.tier = store_.tier_stats();
    return std::move(report_);
  }

 private:
  // A module definition's outcome: an instance, or why it is missing.
  struct ModuleSlot {
    std::optional<Instance> instance;
    std::string error;
  };

  // weft's own test host module (scripts import it like spectest):
  // `(import "weft_test" "reenter" (func))` calls the export "reenter-target"
  // of the latest module from the host, i.e. through a host frame — the only
  // way a script can build a chain segment boundary (docs/fibers.md §1, the
  // trap "cannot switch across a host frame").
  void define_host_reentry() {
    linker_.define("weft_test", "reenter",
                   store_.create_host_function(FuncType{}, [this](std::span<const Value>, std::span<Value>) -> Result<void> {
                     if (!latest_ || !latest_->instance)
                       return make_error(ErrorKind::Trap, "weft_test.reenter: no module instantiated");
                     std::optional<Extern> target = latest_->instance->get_export("reenter-target");
                     if (!target || target->kind != ExternKind::Func)
                       return make_error(ErrorKind::Trap, "weft_test.reenter: no exported function \"reenter-target\"");
                     WEFT_TRY(store_.call(*target, {}));
                     return {};
                   }, "weft_test.reenter"));
  }

  void trace(const WastCommand& command, std::string line) {
    if (!options_.trace) return;
    std::string where = std::to_string(command.line);
    if (command.column != 0) where += ":" + std::to_string(command.column);
    report_.trace.push_back(where + ": " + std::move(line));
  }
  // Extra context for the trace line of a passing check (e.g. the rejection message).
  void note(const Error& error) { note_ = " (" + describe_error(error) + ")"; }

  // With Config::fuel, every instantiation and invocation gets the full budget
  // (fuel is per store, and one script is one store).
  void refuel() {
    if (options_.config.fuel != 0) (void)store_.set_fuel(options_.config.fuel);
  }

  Result<WasmModule> load(const WastModule& module) {
    switch (module.form) {
      case WastModule::Form::Text: return WasmModule::from_ir(engine_, module.module);
      case WastModule::Form::Binary: return WasmModule::from_binary(engine_, module.bytes);
      case WastModule::Form::Quote: return WasmModule::from_text(engine_, module.quote);
    }
    return make_error(ErrorKind::Usage, "unknown module form");
  }

  Result<Instance> load_and_instantiate(const WastModule& module) {
    WEFT_TRY_ASSIGN(WasmModule loaded, load(module));
    refuel();
    return store_.instantiate(loaded, linker_);
  }

  Result<Instance> find_instance(const std::optional<std::string>& id) {
    const ModuleSlot* slot = nullptr;
    if (id) {
      auto it = named_.find(*id);
      if (it == named_.end()) return make_error(ErrorKind::Usage, "unknown module $" + *id);
      slot = &it->second;
    } else {
      if (!latest_) return make_error(ErrorKind::Usage, "no module defined yet");
      slot = &*latest_;
    }
    if (!slot->instance)
      return make_error(ErrorKind::Usage, "module " + (id ? "$" + *id : std::string("(latest)")) +
                                              " is unavailable: " + slot->error);
    return *slot->instance;
  }

  Result<std::vector<Value>> perform(const WastAction& action) {
    WEFT_TRY_ASSIGN(Instance instance, find_instance(action.module_id));
    std::optional<Extern> ext = instance.get_export(action.name);
    if (!ext) return make_error(ErrorKind::Usage, "unknown export \"" + action.name + "\"");
    if (action.kind == WastAction::Kind::Get) {
      if (ext->kind != ExternKind::Global)
        return make_error(ErrorKind::Usage, "export \"" + action.name + "\" is not a global");
      return std::vector<Value>{store_.global_get(*ext)};
    }
    if (ext->kind != ExternKind::Func)
      return make_error(ErrorKind::Usage, "export \"" + action.name + "\" is not a function");
    FuncType type = store_.function_type(*ext);
    if (type.params.size() != action.args.size())
      return make_error(ErrorKind::Usage, "\"" + action.name + "\" takes " + std::to_string(type.params.size()) +
                                              " arguments, script passes " + std::to_string(action.args.size()));
    std::vector<Value> args;
    args.reserve(action.args.size());
    for (size_t i = 0; i < action.args.size(); ++i) {
      auto is_fiber = [](ValType t) { return t.kind == ValType::FiberRef || t.kind == ValType::TypedRef; };
      if (type.params[i].kind != action.args[i].type.kind && !(is_fiber(type.params[i]) && is_fiber(action.args[i].type)))
        return make_error(ErrorKind::Usage, "argument " + std::to_string(i) + " of \"" + action.name + "\" must be " +
                                                to_string(type.params[i]));
      args.push_back(to_value(action.args[i]));
    }
    refuel();
    return store_.call(*ext, args);
  }

  Outcome execute(const WastCommand& c) {
    using K = WastCommand::Kind;
    switch (c.kind) {
      case K::Module: return define_module(c);
      case K::ParseError:
        // The script goes on; a module that did not parse is missing for the
        // actions after it, as one that failed to instantiate is.
        if (c.defines_module) latest_ = ModuleSlot{std::nullopt, "the module did not parse: " + c.text};
        return c.text;
      case K::Register: {
        auto instance = find_instance(c.module_id);
        if (!instance.ok()) return instance.error().message;
        linker_.define_instance(c.text, *instance);
        return {};
      }
      case K::Action: {
        if (!c.action) return "command has no action";
        auto results = perform(*c.action);
        if (!results.ok()) return describe_error(results.error());
        return {};
      }
      case K::AssertReturn: return assert_return(c);
      case K::AssertTrap:
        if (c.module) return assert_instantiation_fails(c, {ErrorKind::Trap, ErrorKind::Uninstantiable}, true);
        return assert_action_fails(c, ErrorKind::Trap);
      case K::AssertExhaustion: return assert_action_fails(c, ErrorKind::Exhaustion);
      case K::AssertException: return assert_action_fails(c, ErrorKind::Exception);
      case K::AssertMalformed: return assert_rejected(c, ErrorKind::Malformed);
      case K::AssertInvalid: return assert_rejected(c, ErrorKind::Invalid);
      case K::AssertUnlinkable: return assert_instantiation_fails(c, {ErrorKind::Unlinkable, ErrorKind::Unlinkable}, false);
      case K::AssertUninstantiable:
        return assert_instantiation_fails(c, {ErrorKind::Uninstantiable, ErrorKind::Trap}, true);
    }
    return "unknown command";
  }

  Outcome define_module(const WastCommand& c) {
    if (!c.module) return "command has no module";
    auto instance = load_and_instantiate(*c.module);
    ModuleSlot slot;
    if (instance.ok())
      slot.instance = *instance;
    else
      slot.error = describe_error(instance.error());
    latest_ = slot;
    if (c.module->id) named_[*c.module->id] = slot;
    if (!instance.ok()) return "module failed: " + slot.error;
    return {};
  }

  Outcome assert_return(const WastCommand& c) {
    if (!c.action) return "command has no action";
    auto results = perform(*c.action);
    if (!results.ok()) return "expected " + describe_expected(c.expected) + ", got " + describe_error(results.error());
    const std::vector<Value>& got = *results;
    bool ok = got.size() == c.expected.size();
    for (size_t i = 0; ok && i < got.size(); ++i) ok = result_matches(c.expected[i], got[i]);
    if (!ok) return "expected " + describe_expected(c.expected) + ", got " + describe_values(got);
    return {};
  }

  Outcome assert_action_fails(const WastCommand& c, ErrorKind kind) {
    if (!c.action) return "command has no action";
    auto results = perform(*c.action);
    std::string want = std::string(error_kind_name(kind)) + " \"" + c.text + "\"";
    if (results.ok()) return "expected " + want + ", got " + describe_values(*results);
    const Error& error = results.error();
    if (error.kind != kind || !message_matches(error.message, c.text))
      return "expected " + want + ", got " + describe_error(error);
    return {};
  }

  // assert_trap (module form), assert_unlinkable, assert_uninstantiable: the
  // module must load, and instantiating it must fail with one of `kinds`.
  Outcome assert_instantiation_fails(const WastCommand& c, std::pair<ErrorKind, ErrorKind> kinds, bool check_message) {
    if (!c.module) return "command has no module";
    std::string want = std::string(error_kind_name(kinds.first)) + " \"" + c.text + "\"";
    auto loaded = load(*c.module);
    if (!loaded.ok()) return "expected " + want + ", but the module failed to load: " + describe_error(loaded.error());
    refuel();
    auto instance = store_.instantiate(*loaded, linker_);
    if (instance.ok()) return "expected " + want + ", but the module instantiated";
    const Error& error = instance.error();
    bool kind_ok = error.kind == kinds.first || error.kind == kinds.second;
    if (!kind_ok || (check_message && !message_matches(error.message, c.text)))
      return "expected " + want + ", got " + describe_error(error);
    note(error);
    return {};
  }

  // assert_malformed / assert_invalid: loading must fail with `kind`; the
  // message is reported in the trace but not compared.
  Outcome assert_rejected(const WastCommand& c, ErrorKind kind) {
    if (!c.module) return "command has no module";
    std::string want = std::string(error_kind_name(kind)) + " \"" + c.text + "\"";
    auto loaded = load(*c.module);
    if (loaded.ok()) return "expected " + want + ", but the module was accepted";
    const Error& error = loaded.error();
    if (error.kind != kind) return "expected " + want + ", got " + describe_error(error);
    note(error);
    return {};
  }

  const WastOptions& options_;
  Engine engine_;
  Store store_;
  Linker linker_;
  std::map<std::string, ModuleSlot> named_;
  std::optional<ModuleSlot> latest_;
  WastReport report_;
  std::string note_;
};

WastReport script_failure(WastFailure error) {
  WastReport report;
  report.failed = 1;
  report.script_error = std::move(error);
  return report;
}

}  // namespace

WastReport run_wast(const text::WastScript& script, const WastOptions& options) {
  Runner runner(options);
  return runner.run(script);
}

WastReport run_wast_source(std::string_view source, const WastOptions& options) {
  Result<text::WastScript> script = [&]() -> Result<text::WastScript> {
    try {
      return text::parse_wast(source);
    } catch (const std::exception& e) {
      return make_error(ErrorKind::Malformed, std::string("internal error (C++ exception): ") + e.what());
    }
  }();
  if (!script.ok()) {
    const Error& error = script.error();
    // The location goes into line/column, so the message is the error's own text.
    const bool located = error.location.kind == Location::Kind::LineColumn;
    return script_failure({located ? error.location.line : 0, located ? error.location.column : 0, "parse",
                           error.message});
  }
  return run_wast(*script, options);
}

WastReport run_wast_file(const std::string& path, const WastOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return script_failure({0, 0, "read", "cannot open " + path});
  std::ostringstream contents;
  contents << in.rdbuf();
  if (in.bad()) return script_failure({0, 0, "read", "cannot read " + path});
  return run_wast_source(contents.str(), options);
}

}  // namespace weft::tools
