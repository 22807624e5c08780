;; fiber.new and fiber.spawn (docs/fibers.md §6.1, §6.2): fiber.new makes a
;; fresh fiber without running anything; its first resume enters a
;; function-level event clause. fiber.spawn starts the function at once, like a
;; call whose callee may suspend. The fiber's own reference is the function's
;; first argument.

(module
  (type $g (fiber (result i32)))
  (type $v (fiber))
  (type $gn (fiber (result i32 i64)))
  (tag $next)
  (tag $yield (param i32))
  (tag $id (param (ref $g)))
  (tag $yieldf (param (ref $g) i32))

  (global $log (mut i32) (i32.const 0))
  (global $f (mut (ref null $g)) (ref.null $g))
  (func $log (param $d i32)
    (global.set $log (i32.add (i32.mul (global.get $log) (i32.const 10)) (local.get $d))))
  (func (export "log") (result i32) (global.get $log))
  (func (export "reset") (global.set $log (i32.const 0)))

  ;; Body segment (run by spawn or call): logs 1, returns a + b.
  ;; Function-level clause (run by the first resume of a fiber.new fiber):
  ;; logs 2, returns a - b.
  (func $adder (param $self (ref $g)) (param $a i32) (param $b i32) (result i32)
    (call $log (i32.const 1))
    (i32.add (local.get $a) (local.get $b))
    (event $next
      (call $log (i32.const 2))
      (i32.sub (local.get $a) (local.get $b))))

  (func (export "new-is-lazy") (result i32)
    (drop (fiber.new $adder (i32.const 1) (i32.const 2)))
    (global.get $log))
  (func (export "new-ref") (result (ref $g))
    (fiber.new $adder (i32.const 1) (i32.const 2)))
  (func (export "new-is-null") (result i32)
    (ref.is_null (fiber.new $adder (i32.const 1) (i32.const 2))))
  (func (export "new-resume") (param i32 i32) (result i32)
    (fiber.resume $g $next (fiber.new $adder (local.get 0) (local.get 1))))
  (func (export "spawn") (param i32 i32) (result i32)
    (fiber.spawn $adder (local.get 0) (local.get 1)))
  (func (export "call") (param i32 i32) (result i32)
    (call $adder (fiber.new $adder (i32.const 0) (i32.const 0)) (local.get 0) (local.get 1)))

  ;; Identify protocol: the spawned fiber hands out its own reference, then
  ;; returns the value of the first $yield it receives.
  (func $ident (param $self (ref $g)) (result i32)
    (handle (result i32)
      (fiber.suspend $id (local.get $self) (local.get $self))
      (event $yield)))
  (func (export "spawn-identify") (param $v i32) (result i32)
    (local $me (ref null $g))
    (handle
      (fiber.spawn $ident)
      (drop)
      (event $id (param (ref $g)) (local.set $me)))
    (handle (result i32)
      (fiber.resume $g $yield (local.get $me) (local.get $v))
      (event $id (drop) (i32.const -1))))

  ;; Spawn, suspend, and finish in a later call: the results go to whoever
  ;; resumed the fiber last.
  (func (export "spawn-park") (result i32)
    (handle (result i32)
      (fiber.spawn $ident)
      (event $id (param (ref $g)) (global.set $f) (i32.const 0))))
  (func (export "finish") (param $v i32) (result i32)
    (handle (result i32)
      (fiber.resume $g $yield (global.get $f) (local.get $v))
      (i32.add (i32.const 100))
      (event $id (drop) (i32.const -1))))

  ;; Nested spawns: $leaf is spawned by $mid, which is spawned by the root.
  (func $leaf (param $self (ref $g)) (param $x i32) (result i32)
    (call $log (i32.const 3))
    (handle (result i32)
      (fiber.suspend $yieldf (local.get $self) (local.get $self) (local.get $x))
      (event $next
        (call $log (i32.const 5))
        (i32.mul (local.get $x) (i32.const 2)))))
  (func $mid (param $self (ref $g)) (param $x i32) (result i32)
    (local $child (ref null $g))
    (handle (result i32)
      (fiber.spawn $leaf (local.get $x))
      (event $yieldf (param (ref $g) i32)
        (drop)
        (local.set $child)
        (call $log (i32.const 4))
        (fiber.resume $g $next (local.get $child))))
    (i32.add (i32.const 1)))
  (func (export "spawn-nested") (param i32) (result i32)
    (fiber.spawn $mid (local.get 0)))

  ;; Several results; a fiber type without results; a nullable self parameter.
  (func $two (param $self (ref $gn)) (param $x i32) (result i32 i64)
    (local.get $x)
    (i64.mul (i64.extend_i32_u (local.get $x)) (i64.const 0x100000000))
    (event $next (i32.const 7) (i64.const 8)))
  (func (export "spawn-two") (param i32) (result i32 i64)
    (fiber.spawn $two (local.get 0)))
  (func (export "new-two") (param i32) (result i32 i64)
    (fiber.resume $gn $next (fiber.new $two (local.get 0))))
  (func $void (param $self (ref $v))
    (call $log (i32.const 9))
    (event $next (call $log (i32.const 8))))
  (func (export "spawn-void")
    (fiber.spawn $void))
  (func (export "new-void")
    (fiber.resume $v $next (fiber.new $void)))
  (func $nullable (param $self (ref null $g)) (result i32)
    (unreachable)
    (event $next (i32.const 5)))
  (func (export "new-nullable") (result i32)
    (fiber.resume $g $next (fiber.new $nullable)))

  ;; Arguments of several types reach the fiber in order.
  (func $digits (param $a i32) (param $b i64) (param $c i32) (param $d i64) (result i32)
    (i32.wrap_i64
      (i64.add
        (i64.add (i64.extend_i32_u (local.get $a)) (i64.mul (local.get $b) (i64.const 10)))
        (i64.add (i64.mul (i64.extend_i32_u (local.get $c)) (i64.const 100))
                 (i64.mul (local.get $d) (i64.const 1000))))))
  (func $mixed (param $self (ref $g)) (param $a i32) (param $b i64) (param $c i32) (param $d i64) (result i32)
    (call $digits (local.get $a) (local.get $b) (local.get $c) (local.get $d))
    (event $next
      (i32.add (i32.const 10000)
        (call $digits (local.get $a) (local.get $b) (local.get $c) (local.get $d)))))
  (func (export "new-mixed") (result i32)
    (fiber.resume $g $next
      (fiber.new $mixed (i32.const 1) (i64.const 2) (i32.const 3) (i64.const 4))))
  (func (export "spawn-mixed") (result i32)
    (fiber.spawn $mixed (i32.const 4) (i64.const 3) (i32.const 2) (i64.const 1)))

  ;; Many fresh fibers at once: none runs before its first resume.
  (table $t 100 (ref null $g))
  (func $square (param $self (ref $g)) (param $i i32) (result i32)
    (call $log (i32.const 1))
    (unreachable)
    (event $next (i32.mul (local.get $i) (local.get $i))))
  (func (export "make-100") (result i32)
    (local $i i32)
    (loop $l
      (table.set $t (local.get $i) (fiber.new $square (local.get $i)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 100))))
    (global.get $log))
  (func (export "sum-100") (result i32)
    (local $i i32) (local $sum i32)
    (local.set $i (i32.const 99))
    (loop $l
      (local.set $sum
        (i32.add (local.get $sum) (fiber.resume $g $next (table.get $t (local.get $i)))))
      (local.set $i (i32.sub (local.get $i) (i32.const 1)))
      (br_if $l (i32.ge_s (local.get $i) (i32.const 0))))
    (local.get $sum))
)

(invoke "reset")
(assert_return (invoke "new-is-lazy") (i32.const 0))
(assert_return (invoke "new-ref") (ref.fiber))
(assert_return (invoke "new-is-null") (i32.const 0))
(assert_return (invoke "log") (i32.const 0))
(assert_return (invoke "new-resume" (i32.const 10) (i32.const 3)) (i32.const 7))
(assert_return (invoke "log") (i32.const 2))
(invoke "reset")
(assert_return (invoke "spawn" (i32.const 10) (i32.const 3)) (i32.const 13))
(assert_return (invoke "log") (i32.const 1))
(invoke "reset")
(assert_return (invoke "call" (i32.const 10) (i32.const 3)) (i32.const 13))
(assert_return (invoke "log") (i32.const 1))

(assert_return (invoke "spawn-identify" (i32.const 42)) (i32.const 42))
(assert_return (invoke "spawn-park") (i32.const 0))
(assert_return (invoke "finish" (i32.const 5)) (i32.const 105))
(assert_trap (invoke "finish" (i32.const 5)) "fiber is moribund")

(invoke "reset")
(assert_return (invoke "spawn-nested" (i32.const 20)) (i32.const 41))
(assert_return (invoke "log") (i32.const 345))

(assert_return (invoke "spawn-two" (i32.const 3)) (i32.const 3) (i64.const 0x300000000))
(assert_return (invoke "new-two" (i32.const 3)) (i32.const 7) (i64.const 8))
(invoke "reset")
(assert_return (invoke "spawn-void"))
(assert_return (invoke "new-void"))
(assert_return (invoke "log") (i32.const 98))
(assert_return (invoke "new-nullable") (i32.const 5))
(assert_return (invoke "new-mixed") (i32.const 14321))
(assert_return (invoke "spawn-mixed") (i32.const 1234))

(invoke "reset")
(assert_return (invoke "make-100") (i32.const 0))
(assert_return (invoke "sum-100") (i32.const 328350))
(assert_return (invoke "log") (i32.const 0))
(assert_trap (invoke "sum-100") "fiber is moribund")
