// Fiber-heavy module generator (see fiber_program.h). The module has a fixed
// frame — two fiber types, five tags, two tables of fiber references, a table
// of helper references, a clause counter — and generated functions:
//   $fv<k>  fibers of type $v = (fiber)              (param (ref $v) i32)
//   $fr<k>  fibers of type $r = (fiber (result i32)) (param (ref $r) i32) (result i32)
//   $h<k>   helpers of type $hf, called from fibers or roots, directly or
//           through typed function references (call_ref, return_call_ref,
//           br_on_null, br_on_non_null, ref.as_non_null)
//                                                    (param fiberref i32) (result i32)
//   r<k>    exported roots, run by the host           () -> (i32)
// Bodies are random statements (stack-neutral instruction sequences) built
// around all nine fiber.* instructions: inside `handle` blocks with several
// event clauses, bare (dispatched to outer handles or function-level clauses),
// nested, in bounded loops that clauses continue or leave, and next to traps,
// releases and deep recursion — and exceptions: throws of the event tags,
// try_tables with every kind of clause around any of that, throw_ref of
// caught exceptions, so exceptions leave fibers at every kind of suspension
// point (docs/fibers.md §6.14). Typing is guaranteed by construction: each
// statement leaves the operand stack as it found it, each handle produces
// exactly its result type on every segment, and references are drawn only
// from sources of the right fiber type. Runtime failures (null or moribund
// targets, unhandled events, limits) are intended: they exercise abort paths.
#include "fuzz/fiber_program.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <string>
#include <vector>

namespace weft::fuzz {
namespace {

constexpr int kTableSize = 8;       // slots in $tv and $tr
constexpr int kHotSlots = 4;        // slots most references use
constexpr int kTagCount = 5;        // $t0 .. $t4, see kFrame
constexpr int kMaxDepth = 4;        // statement nesting (handles, loops, clauses)
constexpr int kMaxLoops = 4;        // loop counters $c0 .. $c3
constexpr int kFunctionBudget = 16;  // statements per function (roots: twice that)

constexpr const char* kFrame = R"((module
  (type $v (fiber))
  (type $r (fiber (result i32)))
  (type $hf (func (param fiberref i32) (result i32)))
  (table $th 4 (ref null $hf))
  (tag $t0)
  (tag $t1 (param i32))
  (tag $t2 (param i32 i64))
  (tag $t3 (param (ref null $v)))
  (tag $t4 (param (ref null $r)))
  (table $tv 8 (ref null $v))
  (table $tr 8 (ref null $r))
  (global $n (export "clauses_entered") (mut i32) (i32.const 0))
  (global $g (mut i32) (i32.const 0))
  ;; Plain recursion: exhausts small fiber stacks.
  (func $deep (param $n i32) (result i32)
    (if (result i32) (i32.eqz (local.get $n))
      (then (i32.const 0))
      (else (i32.add (i32.const 1) (call $deep (i32.sub (local.get $n) (i32.const 1)))))))
  ;; Recursion that suspends at the bottom: suspended fibers holding deep stacks.
  (func $dive (param $self fiberref) (param $n i32) (result i32)
    (if (result i32) (i32.eqz (local.get $n))
      (then
        (handle (result i32)
          (fiber.suspend $t1 (local.get $self) (global.get $g))
          (event $t0 (i32.const 0))
          (event $t1)))
      (else (i32.add (i32.const 1) (call $dive (local.get $self) (i32.sub (local.get $n) (i32.const 1))))))))
)";

constexpr const char* kLocals =
    " (local $i i32) (local $l i64) (local $x (ref null $v)) (local $y (ref null $r)) (local $fh (ref null $hf))"
    " (local $c0 i32) (local $c1 i32) (local $c2 i32) (local $c3 i32) (local $ex exnref)";

// Who runs the function being generated, which decides the self operand.
enum class Self { None, Any, V, R };  // root; helper (fiberref); fiber of $v; of $r
enum class FiberType { V, R };
// Stack effect of a switching instruction: nothing, one i32, or never falls through.
enum class Effect { Unit, I32, Bottom };

struct Loop {
  std::string label, exit;
  int counter;
  int bound;
};

std::string num(int64_t v) { return std::to_string(v); }

class Generator {
 public:
  Generator(const uint8_t* data, size_t size) : in_(data, size) {}

  FiberProgram run() {
    FiberProgram p;
    num_v_ = in_.ConsumeIntegralInRange(1, 3);
    num_r_ = in_.ConsumeIntegralInRange(1, 3);
    num_helpers_ = in_.ConsumeIntegralInRange(0, 2);
    int roots = in_.ConsumeIntegralInRange(1, 3);
    p.wat = kFrame;
    p.wat.pop_back();  // the closing parenthesis
    p.wat.pop_back();
    // Roots first: when the input runs out, later functions get empty bodies
    // (fibers that return at once are still fibers), empty roots run nothing.
    for (int k = 0; k < roots; ++k) {
      std::string name = "r" + num(k);
      p.wat += root_function(name);
      p.entry_points.push_back(name);
    }
    for (int k = 0; k < num_v_; ++k) p.wat += fiber_function(FiberType::V, k);
    for (int k = 0; k < num_r_; ++k) p.wat += fiber_function(FiberType::R, k);
    for (int k = 0; k < num_helpers_; ++k) p.wat += helper_function(k);
    if (num_helpers_ > 0) {  // ref.func in bodies needs the functions declared
      p.wat += "\n  (elem declare func";
      for (int k = 0; k < num_helpers_; ++k) p.wat += " $h" + num(k);
      p.wat += ")";
    }
    p.wat += ")\n";
    return p;
  }

 private:
  // ---- functions ---------------------------------------------------------------

  void begin_function(Self self, int helper_index) {
    budget_ = self == Self::None ? 2 * kFunctionBudget : kFunctionBudget;
    self_ = self;
    helper_index_ = helper_index;
    loops_.clear();
    labels_ = 0;
  }

  std::string fiber_function(FiberType g, int k) {
    begin_function(g == FiberType::V ? Self::V : Self::R, -1);
    bool results = g == FiberType::R;
    std::string s = "\n  (func $f" + letter(g) + num(k) + " (param $self (ref $" + letter(g) + ")) (param $a i32)";
    if (results) s += " (result i32)";
    s += kLocals;
    s += statements(0, 8);
    if (results) s += " " + i32_value();
    // Function-level clauses: where a fresh fiber's first event lands.
    s += clauses(1, results);
    return s + ")";
  }

  std::string helper_function(int k) {
    begin_function(Self::Any, k);
    std::string s = "\n  (func $h" + num(k) + " (type $hf) (param $self fiberref) (param $a i32) (result i32)";
    s += kLocals;
    s += statements(0, 6);
    // The result: a value, or sometimes a tail call of a later helper through
    // a reference (the frame is replaced, inside a fiber too).
    if (k + 1 < num_helpers_ && in_.ConsumeIntegralInRange(0, 3) == 0) {
      const int j = in_.ConsumeIntegralInRange(k + 1, num_helpers_ - 1);
      s += " (return_call_ref $hf " + running_any() + " " + i32_value() + " (ref.func $h" + num(j) + "))";
    } else {
      s += " " + i32_value();
    }
    s += clauses(1, true);
    return s + ")";
  }

  std::string root_function(const std::string& name) {
    begin_function(Self::None, -1);
    std::string s = "\n  (func (export \"" + name + "\") (result i32) (local $a i32)";
    s += kLocals;
    // Roots start by filling the low slots (most references point there), so
    // that resumes find fibers: empty slots always, occupied ones mostly (the
    // replaced fiber is released, whatever its state), sometimes keeping what
    // an earlier call left suspended.
    for (FiberType g : {FiberType::V, FiberType::R}) {
      for (int k = 0; k < kHotSlots; ++k) {
        const std::string table = "$t" + letter(g), old = "(table.get " + table + " (i32.const " + num(k) + "))";
        const std::string fill = "(table.set " + table + " (i32.const " + num(k) + ") (fiber.new " +
                                 fiber_function_name(g) + " " + i32_value() + "))";
        if (in_.ConsumeIntegralInRange(0, 3) == 3) {
          s += " (if (ref.is_null " + old + ") (then " + fill + "))";
        } else {
          s += " (if (i32.eqz (ref.is_null " + old + ")) (then (fiber.release " + old + ")))";
          s += " " + fill;
        }
      }
    }
    s += statements(0, 10) + " (global.get $n)";
    s += clauses(1, true);
    return s + ")";
  }

  // ---- statements --------------------------------------------------------------

  std::string statements(int depth, int most) {
    std::string s;
    for (int n = 0; n < most && budget_ > 0 && in_.ConsumeIntegralInRange(0, 4) != 0; ++n) {
      --budget_;
      s += " " + statement(depth);
    }
    return s;
  }

  std::string statement(int depth) {
    const bool nest = depth < kMaxDepth;
    const int choice = in_.ConsumeIntegralInRange(0, 109);
    if (choice >= 100) return exception_statement(depth);
    if (choice < 40) return switching_statement(depth);
    if (choice < 50) return new_fiber();
    if (choice < 56 && nest && int(loops_.size()) < kMaxLoops) return loop(depth);
    if (choice < 61 && nest) return "(handle" + statements(depth + 1, 3) + clauses(depth + 1, false) + ")";
    if (choice < 66) return publish_self();
    if (choice < 71) return release();
    if (choice < 75) return call_helper();
    if (choice < 78) return recursion();
    if (choice < 83) return in_.ConsumeBool() ? "(global.set $g " + i32_value() + ")" : "(local.set $i " + i32_value() + ")";
    if (choice < 89) return move_reference();
    if (choice < 91) return trap();
    if (choice < 96 && !loops_.empty()) return continue_or_leave_loop();
    return "(global.set $g (i32.add (global.get $g) (i32.const 1)))";
  }

  std::string new_fiber() {
    FiberType g = fiber_type();
    return "(table.set $t" + letter(g) + " " + slot() + " (fiber.new " + fiber_function_name(g) + " " + i32_value() +
           "))";
  }

  // A switching instruction, in a handle (its clauses get the events that come
  // back here), bare (outer handles and function-level clauses get them), and
  // sometimes behind a condition.
  std::string switching_statement(int depth) {
    Effect effect;
    std::string op = switching_instruction(effect);
    std::string s;
    if (depth < kMaxDepth && in_.ConsumeIntegralInRange(0, 9) < 7) {
      const bool result = in_.ConsumeBool();
      std::string body = statements(depth + 1, 2) + " ";
      if (effect == Effect::I32 && !result) body += "(drop " + op + ")";
      else body += op;
      if (effect == Effect::Unit && result) body += " " + i32_value();
      if (effect != Effect::Bottom) body += statements(depth + 1, 1);
      s = std::string("(handle") + (result ? " (result i32)" : "") + body + clauses(depth + 1, result) + ")";
      if (result) s = (in_.ConsumeBool() ? "(local.set $i " : "(global.set $g ") + s + ")";
    } else {
      s = effect == Effect::I32 ? "(drop " + op + ")" : op;
    }
    if (effect == Effect::Bottom ? in_.ConsumeIntegralInRange(0, 3) != 0 : in_.ConsumeIntegralInRange(0, 5) == 0)
      s = "(if " + condition() + " (then " + s + "))";
    return s;
  }

  std::string switching_instruction(Effect& effect) {
    int kind = in_.ConsumeIntegralInRange(0, 8);
    const bool bottom_kind = kind == 3 || kind == 5 || kind == 6 || kind == 7;
    // The root cannot suspend, switch or retire: mostly resume instead, keep
    // the "not the running fiber" traps rare.
    if (self_ == Self::None && bottom_kind && in_.ConsumeIntegralInRange(0, 9) != 0) kind = 1;
    FiberType g = fiber_type();
    // switch and retireto need the running fiber's own type to succeed.
    if ((kind == 5 || kind == 7) && self_ != Self::None && self_ != Self::Any && in_.ConsumeIntegralInRange(0, 9) != 0)
      g = self_ == Self::V ? FiberType::V : FiberType::R;
    const std::string type = " $" + letter(g);
    const Effect result = g == FiberType::R ? Effect::I32 : Effect::Unit;
    const int tag = in_.ConsumeIntegralInRange(0, kTagCount - 1);
    const std::string t = " $t" + num(tag);
    switch (kind) {
      case 0:
        effect = result;
        return "(fiber.spawn " + fiber_function_name(g) + " " + i32_value() + ")";
      case 1:
      case 2:
        effect = result;
        return "(fiber.resume" + type + t + " " + target(g) + payload(tag) + ")";
      case 3:
        effect = Effect::Bottom;
        return "(fiber.suspend" + t + " " + running_any() + payload(tag) + ")";
      case 4:
        effect = result;
        return "(fiber.suspend_to" + type + t + " " + target(g) + payload(tag) + ")";
      case 5:
        effect = Effect::Bottom;
        return "(fiber.switch" + type + t + " " + running(g) + " " + target(g) + payload(tag) + ")";
      case 6:
        effect = Effect::Bottom;
        return "(fiber.retire" + t + " " + running_any() + payload(tag) + ")";
      case 7:
        effect = Effect::Bottom;
        return "(fiber.retireto" + type + t + " " + running(g) + " " + target(g) + payload(tag) + ")";
      default:
        // A fresh fiber's first event: dispatched to its function-level clauses.
        effect = result;
        return "(fiber.resume" + type + t + " (fiber.new " + fiber_function_name(g) + " " + i32_value() + ")" +
               payload(tag) + ")";
    }
  }

  std::string loop(int depth) {
    const int id = labels_++;
    Loop l{"$L" + num(id), "$B" + num(id), int(loops_.size()), in_.ConsumeIntegralInRange(1, 8)};
    loops_.push_back(l);
    std::string body = statements(depth + 1, 4);
    loops_.pop_back();
    return "(local.set $c" + num(l.counter) + " (i32.const 0)) (block " + l.exit + " (loop " + l.label + body + " " +
           next_iteration(l) + "))";
  }

  static std::string next_iteration(const Loop& l) {
    const std::string c = "$c" + num(l.counter);
    return "(br_if " + l.label + " (i32.lt_u (local.tee " + c + " (i32.add (local.get " + c +
           ") (i32.const 1))) (i32.const " + num(l.bound) + ")))";
  }

  // From anywhere inside a loop, including the clauses of handles in it.
  std::string continue_or_leave_loop() {
    const Loop& l = loops_[in_.ConsumeIntegralInRange<size_t>(0, loops_.size() - 1)];
    if (in_.ConsumeIntegralInRange(0, 3) == 0) return "(br " + l.exit + ")";
    return next_iteration(l);
  }

  std::string publish_self() {
    if (self_ == Self::V) return "(table.set $tv " + slot() + " (local.get $self))";
    if (self_ == Self::R) return "(table.set $tr " + slot() + " (local.get $self))";
    if (in_.ConsumeIntegralInRange(0, 3) != 0) return new_fiber();
    FiberType g = fiber_type();
    return "(table.set $t" + letter(g) + " " + slot() + " (ref.null $" + letter(g) + "))";
  }

  std::string release() {
    FiberType g = fiber_type();
    if (in_.ConsumeBool()) return "(fiber.release " + target(g) + ")";
    std::string k = "(i32.const " + num(in_.ConsumeIntegralInRange(0, kTableSize - 1)) + ")";
    std::string target = "(table.get $t" + letter(g) + " " + k + ")";
    return "(if (i32.eqz (ref.is_null " + target + ")) (then (fiber.release " + target + ")))";
  }

  // Helpers call only later helpers: no unbounded recursion through them.
  // The references a helper holds in $fh are to later helpers too; the table
  // $th, which any helper may have filled, is read only by roots and fibers.
  std::string call_helper() {
    const int first = helper_index_ + 1;
    if (first >= num_helpers_) return "(global.set $g (i32.add (global.get $g) (i32.const 1)))";
    const int j = in_.ConsumeIntegralInRange(first, num_helpers_ - 1);
    const std::string args = running_any() + " " + i32_value();
    const std::string fh = "(local.get $fh)";
    const int id = labels_++;
    const std::string n = "$N" + num(id), m = "$M" + num(id);
    switch (in_.ConsumeIntegralInRange(0, 8)) {
      case 0: return "(local.set $i (call_ref $hf " + args + " (ref.func $h" + num(j) + ")))";
      case 1: return "(local.set $fh " + helper_reference(j) + ")";
      case 2:  // null: branch out, the arguments below it discarded
        return "(block " + n + " (local.set $i (call_ref $hf " + args + " (br_on_null " + n + " " + fh + "))))";
      case 3:  // not null: branch out with it, into the call
        return "(local.set $i (block " + n + " (result i32) (call_ref $hf " + args + " (block " + m +
               " (result (ref $hf)) (br_on_non_null " + m + " " + fh + ") (br " + n + " " + i32_value() + ")))))";
      case 4: return "(local.set $i (call_ref $hf " + args + " (ref.as_non_null " + fh + ")))";  // null traps
      case 6: return "(local.set $i (call_ref $hf " + args + " " + fh + "))";  // null traps
      case 5:
        if (self_ == Self::Any) return "(local.set $fh " + helper_reference(j) + ")";
        return in_.ConsumeBool() ? "(table.set $th " + helper_slot() + " " + fh + ")"
                                 : "(local.set $fh (table.get $th " + helper_slot() + "))";
      default: return "(local.set $i (call $h" + num(j) + " " + args + "))";
    }
  }

  // A (ref null $hf) to helper j (a later one, for a helper), or null.
  std::string helper_reference(int j) {
    if (in_.ConsumeIntegralInRange(0, 4) == 0) return "(ref.null $hf)";
    return "(ref.func $h" + num(j) + ")";
  }
  std::string helper_slot() { return "(i32.const " + num(in_.ConsumeIntegralInRange(0, 3)) + ")"; }

  std::string recursion() {
    // Mostly shallow; sometimes deep enough to exhaust a small fiber stack.
    const int depth = in_.ConsumeBool() ? in_.ConsumeIntegralInRange(0, 40) : in_.ConsumeIntegralInRange(0, 3000);
    // $dive suspends its caller's fiber at the bottom: not from a root.
    if (self_ == Self::None || in_.ConsumeBool()) return "(drop (call $deep (i32.const " + num(depth) + ")))";
    return "(local.set $i (call $dive " + running_any() + " (i32.const " + num(depth) + ")))";
  }

  std::string move_reference() {
    switch (in_.ConsumeIntegralInRange(0, 3)) {
      case 0: return "(local.set $x " + reference(FiberType::V) + ")";
      case 1: return "(local.set $y " + reference(FiberType::R) + ")";
      case 2: return "(table.set $tv " + slot() + " (local.get $x))";
      default: return "(table.set $tr " + slot() + " (local.get $y))";
    }
  }

  // Exception handling (docs/fibers.md §6.14): throws of the event tags (one
  // tag space), try_tables with every kind of clause around statements (so
  // around switching instructions: exceptions leave fibers and are thrown at
  // their parents' pending instructions), throw_ref of caught exceptions.
  // Every form is stack-neutral, as statements are.
  std::string exception_statement(int depth) {
    const int kind = in_.ConsumeIntegralInRange(0, 5);
    if (kind == 0 || depth >= kMaxDepth) {
      std::string t;
      switch (in_.ConsumeIntegralInRange(0, 2)) {
        case 0: t = "(throw $t0)"; break;
        case 1: t = "(throw $t1 " + i32_value() + ")"; break;
        default: t = "(throw $t2 " + i32_value() + " (i64.const " + num(small()) + "))"; break;
      }
      return in_.ConsumeIntegralInRange(0, 3) == 0 ? t : "(if " + condition() + " (then " + t + "))";
    }
    const std::string id = num(labels_++), e = "$E" + id, d = "$D" + id;
    const std::string body = statements(depth + 1, 3);
    switch (kind) {
      case 1:
        return "(block " + e + " (try_table (catch_all " + e + ")" + body + "))";
      case 2:
        return "(local.set $i (block " + e + " (result i32) (try_table (catch $t1 " + e + ")" + body + ") " +
               i32_value() + "))";
      case 3:
        return "(block " + d + " (block " + e + " (result i32 i64) (try_table (catch $t2 " + e + ") (catch $t0 " + d +
               ")" + body + ") (br " + d + ")) (local.set $l) (local.set $i))";
      case 4:
        return "(block " + d + " (local.set $ex (block " + e + " (result exnref) (try_table (catch_all_ref " + e + ")" +
               body + ") (br " + d + "))) (if " + condition() + " (then (throw_ref (local.get $ex)))))";
      default:
        return "(block " + d + " (block " + e + " (result i32 exnref) (try_table (catch $t0 " + d + ") (catch_ref $t1 " +
               e + ")" + body + ") (br " + d + ")) (local.set $ex) (local.set $i) (if " + condition() +
               " (then (throw_ref (local.get $ex)))))";
    }
  }

  std::string trap() {
    if (in_.ConsumeBool()) return "(if (i32.eq (global.get $g) (i32.const " + num(small()) + ")) (then (unreachable)))";
    return "(global.set $g (i32.rem_u " + i32_value() + " (global.get $n)))";
  }

  // ---- clauses -----------------------------------------------------------------

  // Usually every tag has a clause; sometimes some are missing, so events go
  // to outer scopes or trap "unhandled event".
  std::string clauses(int depth, bool result) {
    std::string s;
    for (int tag = 0; tag < kTagCount; ++tag) {
      if (in_.ConsumeIntegralInRange(0, 5) == 5) continue;
      s += " (event $t" + num(tag) + consume(tag) + " (global.set $n (i32.add (global.get $n) (i32.const 1)))";
      if (depth <= kMaxDepth) s += statements(depth, 3);
      if (!loops_.empty() && in_.ConsumeIntegralInRange(0, 2) == 0) s += " " + continue_or_leave_loop();
      if (result) s += " " + i32_value();
      s += ")";
    }
    return s;
  }

  // A clause starts with exactly the tag's values on the stack.
  std::string consume(int tag) {
    switch (tag) {
      case 0: return "";
      case 1: return in_.ConsumeBool() ? " (local.set $i)" : " (global.set $g)";
      case 2: return in_.ConsumeBool() ? " (local.set $l) (local.set $i)" : " (drop) (drop)";
      case 3: return in_.ConsumeBool() ? " (local.set $x)" : " (drop)";
      default: return in_.ConsumeBool() ? " (local.set $y)" : " (drop)";
    }
  }

  std::string payload(int tag) {
    switch (tag) {
      case 0: return "";
      case 1: return " " + i32_value();
      case 2: return " " + i32_value() + (in_.ConsumeBool() ? " (local.get $l)" : " (i64.const " + num(small()) + ")");
      case 3: return " " + reference(FiberType::V);
      default: return " " + reference(FiberType::R);
    }
  }

  // ---- operands ----------------------------------------------------------------

  FiberType fiber_type() { return in_.ConsumeBool() ? FiberType::V : FiberType::R; }
  static std::string letter(FiberType g) { return g == FiberType::V ? "v" : "r"; }

  std::string fiber_function_name(FiberType g) {
    const int count = g == FiberType::V ? num_v_ : num_r_;
    return "$f" + letter(g) + num(in_.ConsumeIntegralInRange(0, count - 1));
  }

  // A (ref null $g) operand.
  std::string reference(FiberType g) {
    const std::string l = letter(g);
    const int choice = in_.ConsumeIntegralInRange(0, 9);
    if (choice < 6) return "(table.get $t" + l + " " + slot() + ")";
    if (choice < 8) return g == FiberType::V ? "(local.get $x)" : "(local.get $y)";
    if (choice == 8 && self_ == (g == FiberType::V ? Self::V : Self::R)) return "(local.get $self)";
    return "(ref.null $" + l + ")";
  }

  // The target of a switch or release: mostly a table slot, which usually
  // holds a fiber; rarely null (a trap that ends the whole call).
  std::string target(FiberType g) {
    const int choice = in_.ConsumeIntegralInRange(0, 19);
    if (choice < 17) return "(table.get $t" + letter(g) + " " + slot() + ")";
    if (choice < 18) return g == FiberType::V ? "(local.get $x)" : "(local.get $y)";
    if (choice == 18 && self_ == (g == FiberType::V ? Self::V : Self::R)) return "(local.get $self)";
    return "(ref.null $" + letter(g) + ")";
  }

  // The running-fiber operand of switch/retireto: the function's own reference
  // when its type fits; otherwise some other fiber ("not the running fiber").
  std::string running(FiberType g) {
    if (self_ == (g == FiberType::V ? Self::V : Self::R) && in_.ConsumeIntegralInRange(0, 9) != 0)
      return "(local.get $self)";
    return reference(g);
  }

  // The running-fiber operand of suspend/retire and helper calls (a fiberref).
  std::string running_any() {
    if (self_ != Self::None && in_.ConsumeIntegralInRange(0, 9) != 0) return "(local.get $self)";
    return in_.ConsumeBool() ? "(ref.null fiber)" : reference(fiber_type());
  }

  std::string slot() {
    const int choice = in_.ConsumeIntegralInRange(0, 15);
    if (choice < 14) return "(i32.const " + num(in_.ConsumeIntegralInRange(0, kHotSlots - 1)) + ")";
    if (choice < 15) return "(i32.const " + num(in_.ConsumeIntegralInRange(0, kTableSize - 1)) + ")";
    return "(i32.and " + i32_value() + " (i32.const " + num(kTableSize - 1) + "))";
  }

  std::string condition() {
    return "(i32.eq (i32.and " + i32_value() + " (i32.const " + num(in_.ConsumeIntegralInRange(1, 7)) + ")) (i32.const 0))";
  }

  int small() { return in_.ConsumeIntegralInRange(-2, 40); }

  std::string i32_value(int depth = 0) {
    switch (in_.ConsumeIntegralInRange(0, 6)) {
      case 0: return "(local.get $a)";
      case 1: return "(local.get $i)";
      case 2: return "(global.get $g)";
      case 3: return "(global.get $n)";
      case 4:
        if (depth < 2) return "(i32.add " + i32_value(depth + 1) + " " + i32_value(depth + 1) + ")";
        [[fallthrough]];
      default: return "(i32.const " + num(small()) + ")";
    }
  }

  FuzzedDataProvider in_;
  int num_v_ = 1, num_r_ = 1, num_helpers_ = 0;
  int budget_ = 0;
  // The function being generated.
  Self self_ = Self::None;
  int helper_index_ = -1;
  std::vector<Loop> loops_;
  int labels_ = 0;
};

}  // namespace

FiberProgram generate_fiber_program(const uint8_t* data, size_t size) { return Generator(data, size).run(); }

weft::Config fiber_program_config() {
  weft::Config c;
  c.fuel = kFiberProgramFuel;
  c.max_memory_pages = 1;
  c.max_table_elements = 1'000;
  c.max_call_depth = 1'000;
  c.value_stack_bytes = 1 << 20;
  c.enable_fibers = true;
  c.max_fibers = 48;                // fiber bombs hit "too many fibers" quickly
  c.fiber_stack_size = 128 * 1024;  // the smallest: 64 KiB native + 64 KiB of Wasm frames
  return c;
}

}  // namespace weft::fuzz
