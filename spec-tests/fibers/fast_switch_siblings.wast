;; fiber.switch between siblings (the inline JIT path: self running, the target
;; a started, suspended fiber with the same parent), many times in a row, with
;; a one-value payload each way; then the fiber that returns hands its result
;; to the root, which releases the other.
(module
  (type $t (fiber))
  (tag $go)
  (tag $ping (param i32))
  (global $a (mut (ref null $t)) (ref.null $t))
  (global $b (mut (ref null $t)) (ref.null $t))
  (global $n (mut i32) (i32.const 0))
  (global $count (mut i64) (i64.const 0))
  ;; Two sibling fibers (children of the root) switch to each other; a counts
  ;; the values b sends and returns after n switches.
  (func $fa (param $self (ref $t))
    (local $i i32)
    (global.set $a (local.get $self))
    (handle (fiber.suspend $go (local.get $self)) (event $go))
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $i) (global.get $n)))
      (handle
        (fiber.switch $t $ping (local.get $self) (global.get $b) (local.get $i))
        (event $ping (param i32) (i64.extend_i32_u) (global.get $count) (i64.add) (global.set $count)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l))))
  (func $fb (param $self (ref $t))
    (local $v i32)
    (global.set $b (local.get $self))
    (handle (fiber.suspend $go (local.get $self)) (event $go) (event $ping (param i32) (drop)))
    (loop $l
      (handle
        (fiber.switch $t $ping (local.get $self) (global.get $a) (i32.const 1))
        (event $ping (param i32) (drop)))
      (br $l)))
  (func (export "run") (param $n i32) (result i64)
    (global.set $n (local.get $n))
    (handle (fiber.spawn $fb) (event $go))
    (handle (fiber.spawn $fa) (event $go))
    (fiber.resume $t $go (global.get $a))
    (fiber.release (global.get $b))
    (global.get $count))
)
(assert_return (invoke "run" (i32.const 1000)) (i64.const 1000))
(assert_return (invoke "run" (i32.const 1)) (i64.const 1001))
(assert_return (invoke "run" (i32.const 0)) (i64.const 1001))
