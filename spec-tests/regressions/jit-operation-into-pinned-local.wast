;; The JIT computes `local.get x; …; op; local.set/tee x` with x pinned to a
;; register (jit/compile_numeric.cc, int_binary_into_pin) in place on x's
;; register, and `x op const` otherwise as a three-operand add — the
;; operand in every location (constant, imm32 or not, another pinned local,
;; the local itself, a call's result in a register, a block's result in its
;; slot), commuted when the operation allows it (not sub: `100 - x` takes the
;; ordinary path), and an older lazy read of x on the operand stack keeping
;; its old value; and `local op register` / `const op register` computed in
;; the right operand's register when op commutes (int_binary). Expected values worked out by a model of the loops
;; (Python, arbitrary precision then wrapped); both tiers must agree.
(module
  (func $f (param i32) (result i32) (i32.add (i32.mul (local.get 0) (i32.const 7)) (i32.const 1)))

  (func (export "ops32") (param $n i32) (result i32) (local $i i32) (local $a i32) (local $b i32) (local $c i32)
    (loop $l
      (local.set $a (i32.add (local.get $a) (local.get $i)))
      (local.set $a (i32.mul (local.get $a) (i32.const 3)))
      (local.set $a (i32.add (i32.add (local.get $i) (i32.const 1)) (local.get $a)))
      (local.set $b (i32.sub (i32.const 100) (local.get $a)))
      (local.set $c (i32.xor (local.get $c) (local.get $b)))
      (local.set $c (i32.or (local.get $c) (i32.shl (local.get $i) (i32.const 3))))
      (local.set $c (i32.and (local.get $c) (i32.const 0xFFFF0FFF)))
      (local.set $b (i32.sub (local.get $a) (local.tee $a (i32.add (local.get $a) (i32.const 5)))))
      (local.set $c (i32.add (call $f (local.get $i)) (local.get $c)))
      (local.set $c (i32.sub (local.get $c) (i32.and (call $f (local.get $c)) (i32.const 0xFF))))
      (local.set $a (i32.add (local.get $a) (local.get $a)))
      (local.set $a (i32.add (block (result i32) (call $f (i32.const 2))) (local.get $a)))
      (br_if $l (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
    (i32.add (i32.add (local.get $a) (local.get $b)) (local.get $c)))

  (func (export "ops64") (param $n i32) (result i64) (local $i i32) (local $a i64) (local $b i64)
    (local.set $a (i64.const 1))
    (loop $l
      (local.set $a (i64.mul (local.get $a) (i64.const 0x100000001)))
      (local.set $a (i64.add (local.get $a) (i64.const -0x80000000)))
      (local.set $a (i64.sub (local.get $a) (i64.extend_i32_u (local.get $i))))
      (local.set $b (i64.xor (local.get $b) (local.get $a)))
      (local.set $b (i64.add (local.get $b) (local.tee $a (i64.add (local.get $a) (i64.const 1)))))
      (local.set $b (i64.sub (local.get $b) (i64.const 0x7FFFFFFF)))
      (br_if $l (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
    (i64.xor (local.get $a) (local.get $b)))

  ;; `local op register` and `const op register` for an operation that
  ;; commutes: the result goes to the right operand's register, the left
  ;; read from the local's register (pinned) or slot (not: $n, $k)
  (func (export "commuted") (param $n i32) (param $k i64) (result i64)
    (local $i i32) (local $s i64) (local $t i32) (local $u i32) (local $v i32)
    (loop $l
      (local.set $t (i32.add (local.get $n) (i32.mul (local.get $i) (i32.const 3))))
      (local.set $u (i32.and (i32.const 0xFF) (i32.xor (local.get $i) (local.get $t))))
      (local.set $s (i64.add (local.get $s)
                             (i64.extend_i32_u (i32.or (local.get $v) (i32.shl (local.get $u) (i32.const 4))))))
      (local.set $s (i64.add (local.get $s) (i64.mul (local.get $k) (i64.extend_i32_u (local.get $t)))))
      (local.set $v (i32.xor (i32.const 7) (i32.add (local.get $u) (i32.const 1))))
      (br_if $l (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
    (i64.xor (local.get $s) (i64.extend_i32_u (local.get $v))))
)

(assert_return (invoke "commuted" (i32.const 1) (i64.const 5)) (i64.const 16))
(assert_return (invoke "commuted" (i32.const 10) (i64.const -3)) (i64.const 3289))
(assert_return (invoke "commuted" (i32.const 1000) (i64.const 0x123456789)) (i64.const 12209465786880444))
(assert_return (invoke "ops32" (i32.const 1)) (i32.const 4294967229))
(assert_return (invoke "ops32" (i32.const 2)) (i32.const 4294905753))
(assert_return (invoke "ops32" (i32.const 1000)) (i32.const 1190242821))
(assert_return (invoke "ops64" (i32.const 1)) (i64.const 6))
(assert_return (invoke "ops64" (i32.const 3)) (i64.const 9223372075509481483))
(assert_return (invoke "ops64" (i32.const 1000)) (i64.const 11620260407052642585))
