;; Direct calls within an instance pass their first integer and float
;; arguments in registers (jit/compile_calls.cc, call_direct) and enter the
;; callee's register entry; the callee stores them to their slots and moves
;; them to its pinned locals. $mix takes eleven mixed parameters (more than
;; there are parameter registers of either class) and weighs each by a power
;; of ten, so an argument in the wrong place shows as a wrong digit. It is
;; called with constants, with the caller's own parameters permuted, with
;; values computed into registers (which the moves must not overwrite before
;; use), with a value below the arguments that must survive the call, through
;; recursion, by return_call, by call_indirect and from the host. Both
;; tiers must give the values worked out here. (A direct call into a function
;; the JIT leaves to the interpreter enters the executor's stub instead:
;; Jit.DirectCallsIntoAnInterpretedFunction in tests/jit/tier_agreement_test.cc.)
(module
  (type $mix_t (func (param i32) (param i64) (param f32) (param f64) (param i32) (param i64) (param f64) (param f32) (param i32) (param i64) (param f64) (result i64)))
  (table 1 funcref)
  (elem (i32.const 0) $mix)
  (func $mix (export "mix") (param i32) (param i64) (param f32) (param f64) (param i32) (param i64) (param f64) (param f32) (param i32) (param i64) (param f64) (result i64)
    (i64.add (i64.add (i64.add (i64.add (i64.add (i64.add (i64.add (i64.add (i64.add (i64.add (i64.mul (i64.extend_i32_u (local.get 0)) (i64.const 1)) (i64.mul (local.get 1) (i64.const 10))) (i64.mul (i64.trunc_f64_s (f64.promote_f32 (local.get 2))) (i64.const 100))) (i64.mul (i64.trunc_f64_s (local.get 3)) (i64.const 1000))) (i64.mul (i64.extend_i32_u (local.get 4)) (i64.const 10000))) (i64.mul (local.get 5) (i64.const 100000))) (i64.mul (i64.trunc_f64_s (local.get 6)) (i64.const 1000000))) (i64.mul (i64.trunc_f64_s (f64.promote_f32 (local.get 7))) (i64.const 10000000))) (i64.mul (i64.extend_i32_u (local.get 8)) (i64.const 100000000))) (i64.mul (local.get 9) (i64.const 1000000000))) (i64.mul (i64.trunc_f64_s (local.get 10)) (i64.const 10000000000))))
  (func (export "consts_mix") (result i64) (call $mix (i32.const 1) (i64.const 2) (f32.const 3) (f64.const 4) (i32.const 5) (i64.const 6) (f64.const 7) (f32.const 8) (i32.const 9) (i64.const 1) (f64.const 2)))
  (func (export "permuted_mix") (param i32) (param i64) (param f32) (param f64) (param i32) (param i64) (param f64) (param f32) (param i32) (param i64) (param f64) (result i64) (call $mix (local.get 4) (local.get 5) (local.get 7) (local.get 6) (local.get 8) (local.get 9) (local.get 3) (local.get 2) (local.get 0) (local.get 1) (local.get 10)))
  (func (export "computed_mix") (param i32) (param i64) (param f32) (param f64) (param i32) (param i64) (param f64) (param f32) (param i32) (param i64) (param f64) (result i64)
    (i64.add (i64.mul (local.get 1) (i64.const 100000000000)) (call $mix (i32.add (local.get 4) (i32.const 0)) (i64.add (local.get 5) (i64.const 0)) (f32.mul (local.get 7) (f32.const 1)) (f64.mul (local.get 6) (f64.const 1)) (i32.add (local.get 8) (i32.const 0)) (i64.add (local.get 9) (i64.const 0)) (f64.mul (local.get 3) (f64.const 1)) (f32.mul (local.get 2) (f32.const 1)) (i32.add (local.get 0) (i32.const 0)) (i64.add (local.get 1) (i64.const 0)) (f64.mul (local.get 10) (f64.const 1)))))
  (func (export "tail_mix") (param i32) (param i64) (param f32) (param f64) (param i32) (param i64) (param f64) (param f32) (param i32) (param i64) (param f64) (result i64) (return_call $mix (local.get 0) (local.get 1) (local.get 2) (local.get 3) (local.get 4) (local.get 5) (local.get 6) (local.get 7) (local.get 8) (local.get 9) (local.get 10)))
  (func (export "indirect_mix") (param i32) (param i64) (param f32) (param f64) (param i32) (param i64) (param f64) (param f32) (param i32) (param i64) (param f64) (result i64) (call_indirect (type $mix_t) (local.get 0) (local.get 1) (local.get 2) (local.get 3) (local.get 4) (local.get 5) (local.get 6) (local.get 7) (local.get 8) (local.get 9) (local.get 10) (i32.const 0)))
  (func $down (export "down") (param $n i32) (param $acc i64) (param $x f64) (param $y f32) (result f64)
    (if (result f64) (i32.eqz (local.get $n))
      (then (f64.add (f64.convert_i64_s (local.get $acc)) (f64.add (local.get $x) (f64.promote_f32 (local.get $y)))))
      (else (call $down (i32.sub (local.get $n) (i32.const 1))
                        (i64.add (local.get $acc) (i64.extend_i32_u (local.get $n)))
                        (f64.add (local.get $x) (f64.const 0.5))
                        (local.get $y)))))
  ;; One-value results come back in a register too (Registers::kResult,
  ;; kFloatResult): from `end`, from `return`, and from a branch to the
  ;; function's label (which leaves the value in its slot first).
  (func $f32id (param f32 i32) (result f32) (f32.add (local.get 0) (f32.convert_i32_s (local.get 1))))
  (func (export "f32_result") (result f32) (f32.mul (call $f32id (f32.const 1.5) (i32.const 2)) (f32.const 2)))
  (func $pick (param i32 i32) (result i32)
    (if (local.get 0) (then (return (local.get 1))))
    (i32.const 7))
  (func (export "i32_results") (result i32)
    (i32.add (call $pick (i32.const 1) (i32.const 100)) (call $pick (i32.const 0) (i32.const 100))))
  (func $by_branch (param i32) (result i64)
    (block (result i64) (br 1 (i64.extend_i32_u (local.get 0)))))
  (func (export "br_result") (result i64) (i64.add (call $by_branch (i32.const 40)) (i64.const 2)))
)
(assert_return (invoke "mix" (i32.const 3) (i64.const 1) (f32.const 4) (f64.const 1) (i32.const 5) (i64.const 9) (f64.const 2) (f32.const 6) (i32.const 5) (i64.const 3) (f64.const 5)) (i64.const 53562951413))
(assert_return (invoke "consts_mix") (i64.const 21987654321))
(assert_return (invoke "permuted_mix" (i32.const 3) (i64.const 1) (f32.const 4) (f64.const 1) (i32.const 5) (i64.const 9) (f64.const 2) (f32.const 6) (i32.const 5) (i64.const 3) (f64.const 5)) (i64.const 51341352695))
(assert_return (invoke "computed_mix" (i32.const 3) (i64.const 1) (f32.const 4) (f64.const 1) (i32.const 5) (i64.const 9) (f64.const 2) (f32.const 6) (i32.const 5) (i64.const 3) (f64.const 5)) (i64.const 151341352695))
(assert_return (invoke "tail_mix" (i32.const 3) (i64.const 1) (f32.const 4) (f64.const 1) (i32.const 5) (i64.const 9) (f64.const 2) (f32.const 6) (i32.const 5) (i64.const 3) (f64.const 5)) (i64.const 53562951413))
(assert_return (invoke "indirect_mix" (i32.const 3) (i64.const 1) (f32.const 4) (f64.const 1) (i32.const 5) (i64.const 9) (f64.const 2) (f32.const 6) (i32.const 5) (i64.const 3) (f64.const 5)) (i64.const 53562951413))
(assert_return (invoke "down" (i32.const 1000) (i64.const 7) (f64.const 0.25) (f32.const 1.5)) (f64.const 501008.75))
(assert_return (invoke "f32_result") (f32.const 7))
(assert_return (invoke "i32_results") (i32.const 107))
(assert_return (invoke "br_result") (i64.const 42))
