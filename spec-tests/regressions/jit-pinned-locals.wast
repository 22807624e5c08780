;; The JIT keeps a function's hottest locals in registers of their own for the
;; whole function (jit/compiler.h, "Pinned locals"): every write stores to the
;; register and the slot, and the registers are reloaded after every call out
;; of the code. Each loop below keeps a counter (and an accumulator) hot while
;; its body calls out one way — a Wasm call, a numeric thunk, a bulk or table
;; helper, memory.grow, fiber.new and fiber.release — so a register the call
;; clobbered and nobody reloaded shows up as a wrong count or a loop that never
;; ends. Both tiers must agree (values worked out by hand, and the
;; interpreter's).
(module
  (type $v (fiber))
  (func $fiber_body (param $self (ref $v)) (param i32))
  (func $twice (param i32) (result i32) (i32.add (local.get 0) (local.get 0)))
  (func $clobber (param i32 i32 i32 i32 i32 i32) (result i32)
    ;; uses many registers, so that the caller's pins are overwritten
    (i32.add (i32.add (i32.mul (local.get 0) (local.get 1)) (i32.mul (local.get 2) (local.get 3)))
             (i32.mul (local.get 4) (local.get 5))))
  (memory 1 4)
  (table $t 4 funcref)

  ;; sum of 2*i for i < n, via a call: n(n-1)
  (func (export "calls") (param $n i32) (result i32) (local $i i32) (local $s i32)
    (block $out
      (loop $l
        (br_if $out (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $s (i32.add (local.get $s) (call $twice (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
    (local.get $s))

  ;; six arguments: every argument register written by the call sequence
  (func (export "wide_calls") (param $n i32) (result i32) (local $i i32) (local $s i32) (local $k i32)
    (local.set $k (i32.const 3))
    (loop $l
      (local.set $s (i32.add (local.get $s)
                             (call $clobber (local.get $i) (local.get $k) (local.get $i) (i32.const 1)
                                            (local.get $k) (i32.const 2))))
      (br_if $l (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
    (i32.add (local.get $s) (i32.mul (local.get $k) (i32.const 1000))))

  ;; f64 accumulator and counter across a thunk (f64.min is one) and a call
  (func (export "float_thunks") (param $n i32) (result f64) (local $i i32) (local $x f64) (local $y f64)
    (local.set $y (f64.const 0.5))
    (loop $l
      (local.set $x (f64.add (local.get $x) (f64.min (local.get $y) (f64.convert_i32_u (local.get $i)))))
      (local.set $y (f64.add (local.get $y) (f64.convert_i32_s (call $twice (i32.const 1)))))
      (br_if $l (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
    (f64.add (local.get $x) (local.get $y)))

  ;; bulk memory and table helpers, memory.grow and memory.size
  (func (export "helpers") (param $n i32) (result i32) (local $i i32) (local $s i32)
    (loop $l
      (memory.fill (i32.const 0) (local.get $i) (i32.const 8))
      (local.set $s (i32.add (local.get $s) (i32.load8_u (i32.const 7))))
      (table.set $t (i32.const 1) (table.get $t (i32.const 0)))
      (local.set $s (i32.add (local.get $s) (table.size $t)))
      (drop (memory.grow (i32.const 0)))
      (local.set $s (i32.add (local.get $s) (memory.size)))
      (br_if $l (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
    (local.get $s))

  ;; fiber.new and fiber.release are calls into the fiber runtime
  (func (export "fibers") (param $n i32) (result i32) (local $i i32) (local $s i32)
    (loop $l
      (fiber.release (fiber.new $fiber_body (local.get $i)))
      (local.set $s (i32.add (local.get $s) (i32.const 2)))
      (br_if $l (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
    (i32.add (local.get $s) (local.get $i)))

  ;; i64 and f64 pins read as each other's bits, a lazy read taken before the
  ;; local is written, and a local set from itself
  (func (export "bits") (param $n i32) (result i64) (local $i i32) (local $l i64) (local $f f64)
    (loop $l
      (local.set $f (f64.add (local.get $f) (f64.const 1.5)))
      (local.set $l (i64.add (local.get $l) (i64.reinterpret_f64 (local.get $f))))
      (local.set $l (local.get $l))
      (local.set $i (i32.add (local.get $i) (local.tee $i (i32.add (local.get $i) (i32.const 1)))))
      (br_if $l (i32.lt_u (local.get $i) (local.get $n))))
    (i64.add (local.get $l) (i64.extend_i32_u (local.get $i))))

  ;; more declared locals than the entry zeroes one by one (a zeroing loop),
  ;; the pinned ones among them starting as registers the entry zeroed (a
  ;; general one and a float one); called directly and from the host
  (func $many (export "many_locals") (param $n i32) (result i64)
    (local i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32 i32)
    (local $i i32) (local $acc i64) (local $x f64)
    (loop $l
      (local.set $acc (i64.add (local.get $acc) (i64.extend_i32_u (i32.add (local.get $i) (local.get 5)))))
      (local.set $x (f64.add (local.get $x) (f64.const 0.5)))
      (br_if $l (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
    (i64.add (local.get $acc) (i64.trunc_f64_u (local.get $x))))
  (func (export "many_locals_called") (param $n i32) (result i64) (call $many (local.get $n)))
)

(assert_return (invoke "calls" (i32.const 100)) (i32.const 9900))
;; s = sum over i<10 of (i*3 + i*1 + 3*2) = 4*45 + 60; + 3000
(assert_return (invoke "wide_calls" (i32.const 10)) (i32.const 3240))
;; x = sum over i<4 of min(0.5 + 2i, i) = 0 + 1 + 2 + 3 = 6; y = 0.5 + 8
(assert_return (invoke "float_thunks" (i32.const 4)) (f64.const 14.5))
;; each round: byte 7 = i, table size 4, memory size 1: sum(0..9) + 10*5
(assert_return (invoke "helpers" (i32.const 10)) (i32.const 95))
(assert_return (invoke "fibers" (i32.const 10)) (i32.const 30))
;; i: 0 → 1 → 3 → 7 → 15 (i + (i + 1)); f: 1.5, 3, 4.5, 6; l = the sum of
;; their bit patterns (0x3ff8…, 0x4008…, 0x4012…, 0x4018…, wrapping) + 15
(assert_return (invoke "bits" (i32.const 10)) (i64.const 0x2a00000000000f))
;; 0 + 1 + … + 9 = 45, plus 10 × 0.5 = 5; 0 + 1 + 2 + 3 = 6, plus 2
(assert_return (invoke "many_locals" (i32.const 10)) (i64.const 50))
(assert_return (invoke "many_locals_called" (i32.const 4)) (i64.const 8))
