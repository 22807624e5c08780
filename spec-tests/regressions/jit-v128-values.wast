;; v128 values through the JIT's value carriers, where a v128 takes two frame
;; slots (jit/compiler.h, StackValue): locals and parameters after a v128 sit
;; one slot further (their pins and register arguments too), the two halves
;; travel separately through spills, branches and calls, and `drop` and an
;; untyped `select` must know a v128 from two scalars. Each function mixes
;; v128s with integer and float values so that one half or one slot off shows
;; as a wrong lane or a wrong scalar.

(module
  (global $g (mut v128) (v128.const i32x4 1 2 3 4))
  (type $mix_t (func (param i32 v128 f64 v128 i64) (result v128 i64)))
  (table 2 funcref)
  (elem (i32.const 0) $mix $mix_tail_target)
  (tag $carry (param i32 v128 f32))

  ;; Register parameters around v128 ones: i32 and i64 in registers, f64 in a
  ;; float register, the v128s in slots between them.
  (func $mix (type $mix_t)
    (i32x4.add (local.get 1) (i32x4.splat (local.get 0)))
    (i64.add (local.get 4) (i64.trunc_f64_s (local.get 2)))
    (local.set 4)
    (i32x4.sub (local.get 3))
    (local.get 4))
  (func $mix_tail_target (type $mix_t)
    (return_call $mix (local.get 0) (local.get 3) (local.get 2) (local.get 1) (local.get 4)))
  (func (export "direct") (param i32) (result i32 i64)
    (local $r i64)
    (call $mix (local.get 0) (v128.const i32x4 10 20 30 40) (f64.const 2.5) (v128.const i32x4 1 1 1 1) (i64.const 100))
    (local.set $r)
    (i32x4.extract_lane 3)
    (local.get $r))
  (func (export "indirect") (param i32 i32) (result i32 i32 i64)
    (local $r i64) (local $v v128)
    (call_indirect (type $mix_t) (local.get 0) (v128.const i32x4 10 20 30 40) (f64.const 7.9)
                   (v128.const i32x4 5 6 7 8) (i64.const -3) (local.get 1))
    (local.set $r)
    (local.set $v)
    (i32x4.extract_lane 0 (local.get $v))
    (i32x4.extract_lane 3 (local.get $v))
    (local.get $r))

  ;; Scalar locals after v128 locals, hot in a loop (pinned), with v128
  ;; locals written in the same loop: the pins' slots must not overlap them.
  (func (export "loop") (param $n i32) (result i32 f64 i32)
    (local $a v128) (local $i i32) (local $b v128) (local $x f64) (local $c v128)
    (local.set $a (v128.const i32x4 1 2 3 4))
    (loop $more
      (local.set $b (i32x4.add (local.get $a) (local.get $b)))
      (local.set $x (f64.add (local.get $x) (f64.const 0.5)))
      (local.set $c (local.get $b))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $more (i32.lt_u (local.get $i) (local.get $n))))
    (i32x4.extract_lane 2 (local.get $c))
    (local.get $x)
    (local.get $i))

  ;; Lazy reads of a v128 local below its own write keep the old value.
  (func (export "old_value") (result i32)
    (local $v v128)
    (local.set $v (v128.const i32x4 7 8 9 10))
    (local.get $v)
    (local.set $v (v128.const i32x4 0 0 0 0))
    (i32x4.extract_lane 1)
    (i32.add (i32x4.extract_lane 1 (local.get $v))))
  ;; A swap through a tee, and a set of a local from itself.
  (func (export "swap") (result i32)
    (local $p v128) (local $q v128) (local $t v128)
    (local.set $p (v128.const i32x4 1 0 0 0))
    (local.set $q (v128.const i32x4 2 0 0 0))
    (local.set $p (local.get $p))
    (local.set $p (local.get $q) (local.set $q (local.tee $t (local.get $p))))
    (i32.add (i32.mul (i32x4.extract_lane 0 (local.get $p)) (i32.const 10)) (i32x4.extract_lane 0 (local.get $q))))

  ;; drop: of a v128 constant, a lazily read local, a computed v128 and a
  ;; scalar under them; untyped and typed select of v128s from every location.
  (func (export "drops") (param $s i32) (result i32)
    (local $v v128)
    (local.get $s)
    (v128.const i64x2 -1 -1) (drop)
    (local.get $v) (drop)
    (i32x4.splat (local.get $s)) (drop)
    (i32.const 99) (drop))
  (func (export "select") (param $c i32) (result i32)
    (local $v v128)
    (local.set $v (v128.const i32x4 1 2 3 4))
    (i32x4.extract_lane 3
      (select (local.get $v) (v128.const i32x4 5 6 7 8) (local.get $c)))
    (i32x4.extract_lane 0
      (select (result v128) (i32x4.splat (local.get $c)) (global.get $g) (local.get $c)))
    (i32.add))

  ;; Globals, block params and results, br_if and br_table with v128s.
  (func (export "blocks") (param $k i32) (result i32)
    (global.set $g (i32x4.add (global.get $g) (v128.const i32x4 10 10 10 10)))
    (block $out (result v128)
      (v128.const i32x4 1 2 3 4)
      (block $b (param v128) (result v128)
        (global.get $g)
        (i32x4.add)
        (br_if $out (i32.eqz (local.get $k)))
        (local.get $k)
        (br_table $out $b))
      (i32x4.splat (i32.const 1000))
      (i32x4.add))
    (i32x4.extract_lane 1)
    (global.get $g) (i32x4.extract_lane 3)
    (i32.add))

  ;; replace_lane of a 64-bit lane with a value in its slot (a block's
  ;; result): the half is that entry, which cannot move to another position.
  (func (export "replace_from_slot") (result i64 i64 i32)
    (local $v v128)
    (local.set $v (i64x2.replace_lane 0 (v128.const i64x2 1 2) (block (result i64) (i64.const 7))))
    (i64x2.extract_lane 0 (local.get $v))
    (i64x2.extract_lane 1 (i64x2.replace_lane 1 (local.get $v) (block (result i64) (i64.const 9))))
    (i32x4.extract_lane 2 (i32x4.replace_lane 2 (local.get $v) (block (result i32) (i32.const 5)))))

  ;; An exception carrying a v128 between scalars.
  (func $thrower (param i32)
    (throw $carry (local.get 0) (i32x4.splat (i32.mul (local.get 0) (i32.const 3))) (f32.const 1.5)))
  (func (export "catch") (param i32) (result i32 i32 f32)
    (block $h (result i32 v128 f32)
      (try_table (catch $carry $h) (call $thrower (local.get 0)))
      (return (i32.const 0) (i32.const 0) (f32.const 0)))
    (local.set 0 (i32.trunc_f32_s))
    (i32x4.extract_lane 2)
    (i32.add (local.get 0))
    (local.get 0) (f32.convert_i32_s))
)

;; mix(x, a, f, b, r) = (a + splat(x) - b, r + trunc(f))
(assert_return (invoke "direct" (i32.const 5)) (i32.const 44) (i64.const 102))
(assert_return (invoke "indirect" (i32.const 1) (i32.const 0)) (i32.const 6) (i32.const 33) (i64.const 4))
;; through return_call: the two v128 arguments swap places
(assert_return (invoke "indirect" (i32.const 1) (i32.const 1)) (i32.const -4) (i32.const -31) (i64.const 4))
(assert_return (invoke "loop" (i32.const 5)) (i32.const 15) (f64.const 2.5) (i32.const 5))
(assert_return (invoke "old_value") (i32.const 8))
(assert_return (invoke "swap") (i32.const 21))
(assert_return (invoke "drops" (i32.const 17)) (i32.const 17))
(assert_return (invoke "select" (i32.const 1)) (i32.const 5))
(assert_return (invoke "select" (i32.const 0)) (i32.const 9))
;; $g becomes 11 12 13 14, then 21 22 23 24; (1 2 3 4) + $g, + 1000 through $b
(assert_return (invoke "blocks" (i32.const 0)) (i32.const 28))
(assert_return (invoke "blocks" (i32.const 1)) (i32.const 1048))
(assert_return (invoke "catch" (i32.const 4)) (i32.const 4) (i32.const 13) (f32.const 1))
(assert_return (invoke "replace_from_slot") (i64.const 7) (i64.const 9) (i32.const 5))
