;; fiber.release and the descendant rule (docs/fibers.md §6.9, §6.11): release
;; makes a fresh or suspended fiber and all its suspended descendants moribund
;; without running any Wasm code; it is a no-op on a moribund fiber and traps on
;; a running or waiting one. Descendants are defined by the current parent
;; links: a fiber resumed by someone else is no longer a descendant.

(module
  (type $g (fiber (result i32)))
  (tag $go (param i32))
  (tag $up (param i32))
  (tag $back (param i32))
  (table $t 16 (ref null $g))

  (global $log (mut i32) (i32.const 0))
  (func $log (param $d i32)
    (global.set $log (i32.add (i32.mul (global.get $log) (i32.const 10)) (local.get $d))))
  (func (export "log") (result i32) (global.get $log))

  ;; Suspends with $up(id) until resumed with a non-zero $back(w); then logs 7
  ;; and returns w + id.
  (func $sleeper (param $self (ref $g)) (param $id i32) (result i32)
    (local $w i32)
    (unreachable)
    (event $go (param i32)
      (drop)
      (loop $l
        (handle
          (fiber.suspend $up (local.get $self) (local.get $id))
          (event $back (param i32) (local.set $w)))
        (br_if $l (i32.eqz (local.get $w))))
      (call $log (i32.const 7))
      (i32.add (local.get $w) (local.get $id))))
  ;; Resumes table[first .. first+count-1] once each (they suspend back to
  ;; it), then suspends to its own parent; resumed with $back(w) it returns w.
  (func $holder (param $self (ref $g)) (param $first i32) (param $count i32) (result i32)
    (local $i i32)
    (unreachable)
    (event $go (param i32)
      (drop)
      (local.set $i (local.get $first))
      (block $done
        (loop $l
          (br_if $done (i32.ge_u (local.get $i) (i32.add (local.get $first) (local.get $count))))
          (handle
            (fiber.resume $g $go (table.get $t (local.get $i)) (i32.const 0))
            (drop)
            (event $up (param i32) (drop)))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $l)))
      (handle (result i32)
        (fiber.suspend $up (local.get $self) (i32.const 0))
        (event $back (param i32)))))
  ;; Suspends straight to table[target] (an ancestor) with $up(99).
  (func $popper (param $self (ref $g)) (param $target i32) (result i32)
    (unreachable)
    (event $go (param i32)
      (drop)
      (handle (result i32)
        (fiber.suspend_to $g $up (table.get $t (local.get $target)) (i32.const 99))
        (event $back (param i32)))))

  ;; The tree P(0) → { C1(1), C2(2) → G1(3) }, all suspended.
  (func (export "build")
    (global.set $log (i32.const 0))
    (table.set $t (i32.const 0) (fiber.new $holder (i32.const 1) (i32.const 2)))
    (table.set $t (i32.const 1) (fiber.new $sleeper (i32.const 1)))
    (table.set $t (i32.const 2) (fiber.new $holder (i32.const 3) (i32.const 1)))
    (table.set $t (i32.const 3) (fiber.new $sleeper (i32.const 3)))
    (handle
      (fiber.resume $g $go (table.get $t (i32.const 0)) (i32.const 0))
      (drop)
      (event $up (param i32) (drop))))
  ;; The chain A(4) → B(5) → C(6) where C pops to A and A suspends to the
  ;; root: A, B and C are suspended, B is A's child and C is B's child.
  (func (export "build-popped")
    (table.set $t (i32.const 4) (fiber.new $holder (i32.const 5) (i32.const 1)))
    (table.set $t (i32.const 5) (fiber.new $holder (i32.const 6) (i32.const 1)))
    (table.set $t (i32.const 6) (fiber.new $popper (i32.const 4)))
    (handle
      (fiber.resume $g $go (table.get $t (i32.const 4)) (i32.const 0))
      (drop)
      (event $up (param i32) (drop))))

  (func $release-any (param $f fiberref) (fiber.release (local.get $f)))
  (func (export "release") (param $i i32)
    (call $release-any (table.get $t (local.get $i))))
  (func (export "release-arg") (param $f fiberref)
    (fiber.release (local.get $f)))
  (func (export "kick") (param $i i32) (param $v i32) (result i32)
    (handle (result i32)
      (fiber.resume $g $back (table.get $t (local.get $i)) (local.get $v))
      (event $up (param i32) (i32.add (i32.const 70000)))))

  ;; A fiber that releases itself, and one that releases its waiting parent.
  (func $self-release (param $self (ref $g)) (result i32)
    (unreachable)
    (event $go (param i32) (drop) (fiber.release (local.get $self)) (i32.const 1)))
  (func $parent-release (param $self (ref $g)) (param $target i32) (result i32)
    (unreachable)
    (event $go (param i32) (drop) (fiber.release (table.get $t (local.get $target))) (i32.const 1)))
  (func (export "self-release") (result i32)
    (table.set $t (i32.const 7) (fiber.new $self-release))
    (fiber.resume $g $go (table.get $t (i32.const 7)) (i32.const 0)))
  (func (export "parent-release") (result i32)
    (table.set $t (i32.const 8) (fiber.new $holder (i32.const 9) (i32.const 1)))
    (table.set $t (i32.const 9) (fiber.new $parent-release (i32.const 8)))
    (handle (result i32)
      (fiber.resume $g $go (table.get $t (i32.const 8)) (i32.const 0))
      (event $up (param i32))))

  ;; A released fresh fiber stays moribund while new fibers come and go (its
  ;; handle may be reused with a new generation).
  (func $square (param $self (ref $g)) (param $i i32) (result i32)
    (unreachable)
    (event $back (param i32) (i32.add (i32.mul (local.get $i) (local.get $i)))))
  (func (export "stale") (result i32)
    (local $i i32) (local $sum i32) (local $f (ref null $g))
    (table.set $t (i32.const 15) (fiber.new $square (i32.const 3)))
    (fiber.release (table.get $t (i32.const 15)))
    (loop $l
      (local.set $f (fiber.new $square (local.get $i)))
      (local.set $sum (i32.add (local.get $sum) (fiber.resume $g $back (local.get $f) (i32.const 0))))
      (fiber.release (local.get $f))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 10))))
    (fiber.release (table.get $t (i32.const 15)))
    (i32.add (local.get $sum) (ref.is_null (table.get $t (i32.const 15)))))
)

;; Releasing a subtree: C2 and its child G1 go, P and C1 stay.
(invoke "build")
(invoke "release" (i32.const 2))
(assert_trap (invoke "kick" (i32.const 2) (i32.const 1)) "fiber is moribund")
(assert_trap (invoke "kick" (i32.const 3) (i32.const 1)) "fiber is moribund")
(assert_return (invoke "log") (i32.const 0))
(assert_return (invoke "kick" (i32.const 1) (i32.const 5)) (i32.const 6))
(assert_return (invoke "kick" (i32.const 0) (i32.const 5)) (i32.const 5))
(assert_return (invoke "log") (i32.const 7))
;; Releasing moribund fibers is a no-op.
(assert_return (invoke "release" (i32.const 0)))
(assert_return (invoke "release" (i32.const 2)))
(assert_return (invoke "release" (i32.const 2)))

;; Releasing the root of the tree releases everything below it.
(invoke "build")
(assert_return (invoke "release" (i32.const 0)))
(assert_trap (invoke "kick" (i32.const 0) (i32.const 1)) "fiber is moribund")
(assert_trap (invoke "kick" (i32.const 1) (i32.const 1)) "fiber is moribund")
(assert_trap (invoke "kick" (i32.const 2) (i32.const 1)) "fiber is moribund")
(assert_trap (invoke "kick" (i32.const 3) (i32.const 1)) "fiber is moribund")
(assert_return (invoke "log") (i32.const 0))

;; A normal return releases the returning fiber's suspended descendants.
(invoke "build")
(assert_return (invoke "kick" (i32.const 2) (i32.const 9)) (i32.const 9))
(assert_trap (invoke "kick" (i32.const 3) (i32.const 1)) "fiber is moribund")
(assert_return (invoke "kick" (i32.const 0) (i32.const 4)) (i32.const 4))
(assert_trap (invoke "kick" (i32.const 1) (i32.const 1)) "fiber is moribund")

;; G1 resumed by the root becomes the root's child: releasing C2 spares it.
(invoke "build")
(assert_return (invoke "kick" (i32.const 3) (i32.const 0)) (i32.const 70003))
(invoke "release" (i32.const 2))
(assert_return (invoke "kick" (i32.const 3) (i32.const 10)) (i32.const 13))
;; Resumed to completion, G1 is moribund; releasing P spares nothing else.
(invoke "release" (i32.const 0))
(assert_trap (invoke "kick" (i32.const 1) (i32.const 1)) "fiber is moribund")

;; Popped fibers keep their parent links: releasing B takes C too.
(invoke "build-popped")
(invoke "release" (i32.const 5))
(assert_trap (invoke "kick" (i32.const 5) (i32.const 1)) "fiber is moribund")
(assert_trap (invoke "kick" (i32.const 6) (i32.const 1)) "fiber is moribund")
(assert_return (invoke "kick" (i32.const 4) (i32.const 3)) (i32.const 3))
(invoke "build-popped")
(invoke "release" (i32.const 4))
(assert_trap (invoke "kick" (i32.const 5) (i32.const 1)) "fiber is moribund")
(assert_trap (invoke "kick" (i32.const 6) (i32.const 1)) "fiber is moribund")
;; C resumed by the root leaves B's children; A's return still releases B.
(invoke "build-popped")
(assert_return (invoke "kick" (i32.const 6) (i32.const 2)) (i32.const 2))
(assert_return (invoke "kick" (i32.const 4) (i32.const 2)) (i32.const 2))
(assert_trap (invoke "kick" (i32.const 5) (i32.const 2)) "fiber is moribund")

;; Fresh fibers can be released.
(assert_return (invoke "stale") (i32.const 285))
(assert_trap (invoke "kick" (i32.const 15) (i32.const 0)) "fiber is moribund")

;; Traps.
(assert_trap (invoke "release-arg" (ref.null fiber)) "null fiber reference")
(assert_trap (invoke "self-release") "fiber is active")
(assert_trap (invoke "kick" (i32.const 7) (i32.const 0)) "fiber is moribund")
(assert_trap (invoke "parent-release") "fiber is active")
(assert_trap (invoke "kick" (i32.const 8) (i32.const 0)) "fiber is moribund")
(assert_trap (invoke "kick" (i32.const 9) (i32.const 0)) "fiber is moribund")
