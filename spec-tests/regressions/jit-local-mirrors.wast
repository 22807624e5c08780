;; The JIT keeps a register mirroring a local it has just written
;; (jit/compiler.h, "Mirrors"): a later local.get reuses or copies the
;; register instead of loading the slot. Each function here ends a mirror one
;; way — the local written again, the register written in place, division and
;; shifts (x86-64 uses rax, rdx and rcx for them), a call, a loop back edge,
;; if/else arms and their join, select, a lazy local.get taken before the
;; write — and checks the value a stale mirror would get wrong. Both tiers
;; must agree (values worked out by hand, and the interpreter's).
(module
  ;; Compiled first: the compiler learns these opcodes' families here. (It
  ;; forgets every mirror before an opcode it meets for the first time in the
  ;; process, which would hide the cases below.)
  (func $warm_up (param i32 i32) (result i32)
    (i32.add (i32.add (i32.div_u (local.get 0) (local.get 1)) (i32.rem_s (local.get 0) (local.get 1)))
             (i32.add (i32.shl (local.get 0) (local.get 1)) (i32.mul (local.get 0) (local.get 1)))))
  (func $id (param i32) (result i32) (local.get 0))
  (global $g (mut i32) (i32.const 100))
  ;; tee then two reads: the register is reused, then copied
  (func (export "tee_square") (param i32) (result i32) (local i32)
    (local.set 1 (i32.add (local.get 0) (i32.const 1)))
    (i32.mul (local.get 1) (local.get 1)))
  ;; the local written again: the old register no longer mirrors it
  (func (export "rewrite") (param i32) (result i32) (local i32 i32)
    (local.set 1 (i32.mul (local.get 0) (i32.const 2)))
    (local.set 2 (i32.add (local.get 1) (local.get 1)))
    (local.set 1 (i32.add (local.get 2) (i32.const 1)))
    (i32.sub (i32.mul (local.get 1) (local.get 1)) (local.get 2)))
  ;; the mirroring register written in place by the next operation
  (func (export "in_place") (param i32) (result i32) (local i32)
    (i32.add (i32.mul (local.tee 1 (i32.add (local.get 0) (i32.const 3))) (i32.const 10)) (local.get 1)))
  ;; division and shifts use fixed registers on some machines
  (func (export "after_div") (param i32 i32) (result i32) (local i32 i32)
    (local.set 2 (i32.add (local.get 0) (i32.const 7)))
    (local.set 3 (i32.div_u (local.get 0) (local.get 1)))
    (i32.add (i32.mul (local.get 2) (i32.const 1000)) (local.get 3)))
  (func (export "after_rem") (param i32 i32) (result i32) (local i32 i32)
    (local.set 2 (i32.add (local.get 0) (i32.const 7)))
    (local.set 3 (i32.rem_s (local.get 0) (local.get 1)))
    (i32.add (i32.mul (local.get 2) (i32.const 1000)) (local.get 3)))
  (func (export "after_shift") (param i32 i32) (result i32) (local i32 i32 i32)
    (local.set 2 (i32.add (local.get 0) (i32.const 1)))
    (local.set 3 (i32.add (local.get 0) (i32.const 2)))
    (local.set 4 (i32.shl (local.get 0) (local.get 1)))
    (i32.add (i32.add (i32.mul (local.get 2) (i32.const 100)) (local.get 3)) (local.get 4)))
  ;; across a call and a global
  (func (export "after_call") (param i32) (result i32) (local i32)
    (local.set 1 (i32.add (local.get 0) (i32.const 5)))
    (drop (call $id (i32.const 77)))
    (global.set $g (local.get 1))
    (i32.add (local.get 1) (global.get $g)))
  ;; a loop: each iteration reads what the previous one wrote
  (func (export "loop_sum") (param i32) (result i32) (local i32 i32)
    (block (loop
      (local.set 1 (i32.add (local.get 1) (local.get 2)))
      (local.set 2 (i32.add (local.get 2) (i32.const 1)))
      (br_if 1 (i32.ge_u (local.get 2) (local.get 0)))
      (br 0)))
    (local.get 1))
  ;; if/else arms: a mirror from one arm must not reach the other or the join
  (func (export "arms") (param i32) (result i32) (local i32)
    (local.set 1 (i32.const 10))
    (if (local.get 0)
      (then (local.set 1 (i32.add (local.get 1) (i32.const 1))))
      (else (local.set 1 (i32.add (local.get 1) (i32.const 2)))))
    (i32.mul (local.get 1) (local.get 1)))
  ;; floats: tee, in-place arithmetic on the tee'd value, then read again
  (func (export "f64_chain") (param f64) (result f64) (local f64 f64)
    (local.set 1 (f64.mul (local.get 0) (local.get 0)))
    (local.set 2 (f64.add (local.get 1) (local.get 1)))
    (f64.sub (f64.mul (local.tee 1 (f64.add (local.get 2) (f64.const 0.5))) (local.get 1)) (local.get 2)))
  (func (export "f32_select") (param f32 i32) (result f32) (local f32)
    (local.set 2 (f32.mul (local.get 0) (f32.const 3)))
    (select (local.get 2) (f32.add (local.get 2) (f32.const 1)) (local.get 1)))
  ;; a local read lazily before it is written keeps the old value
  (func (export "lazy_old") (param i32) (result i32) (local i32)
    (local.set 1 (i32.const 4))
    (local.get 1)
    (local.set 1 (i32.add (local.get 0) (i32.const 100)))
    (i32.sub (local.get 1)))
)
(assert_return (invoke "tee_square" (i32.const 6)) (i32.const 49))
(assert_return (invoke "rewrite" (i32.const 5)) (i32.const 421))
(assert_return (invoke "in_place" (i32.const 4)) (i32.const 77))
(assert_return (invoke "after_div" (i32.const 100) (i32.const 7)) (i32.const 107014))
(assert_return (invoke "after_rem" (i32.const -100) (i32.const 7)) (i32.const -93002))
(assert_return (invoke "after_shift" (i32.const 3) (i32.const 4)) (i32.const 453))
(assert_return (invoke "after_call" (i32.const 9)) (i32.const 28))
(assert_return (invoke "loop_sum" (i32.const 10)) (i32.const 45))
(assert_return (invoke "arms" (i32.const 0)) (i32.const 144))
(assert_return (invoke "arms" (i32.const 1)) (i32.const 121))
(assert_return (invoke "f64_chain" (f64.const 1.5)) (f64.const 20.5))
(assert_return (invoke "f32_select" (f32.const 2) (i32.const 0)) (f32.const 7))
(assert_return (invoke "f32_select" (f32.const 2) (i32.const 1)) (f32.const 6))
(assert_return (invoke "lazy_old" (i32.const 1)) (i32.const -97))
