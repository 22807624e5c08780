;; weft-wast-options: --max-fibers=16
;;
;; Resource limits (docs/fibers.md §10). This file must run with a limit of 16
;; live fibers (`weft wast --max-fibers=16`; the ctest entry and
;; spec-tests/run-spec.sh read the options line above). Live fibers are the
;; fibers that are not moribund; fiber.new and fiber.spawn trap with
;; "too many fibers" when the limit is reached, without creating a fiber.
;; Each fiber has its own stack: sixteen fibers suspended deep in recursion
;; at the same time, and long create/finish cycles that reuse handles.

(module
  (type $g (fiber (result i32)))
  (tag $go (param i32))
  (tag $yield (param i32))
  (table $t 32 (ref null $g))
  (global $first (mut (ref null $g)) (ref.null $g))

  (func $idle (param $self (ref $g)) (result i32)
    (unreachable)
    (event $go (param i32)))
  (func $spawned (param $self (ref $g)) (result i32) (i32.const 1))

  ;; Fills table[from .. to-1] with fresh fibers; returns how many it made.
  (func (export "fill") (param $from i32) (param $to i32) (result i32)
    (local $i i32)
    (local.set $i (local.get $from))
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $i) (local.get $to)))
        (table.set $t (local.get $i) (fiber.new $idle))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
    (i32.sub (local.get $i) (local.get $from)))
  (func (export "finish") (param $i i32) (result i32)
    (fiber.resume $g $go (table.get $t (local.get $i)) (local.get $i)))
  (func (export "release-range") (param $from i32) (param $to i32)
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $from) (local.get $to)))
        (fiber.release (table.get $t (local.get $from)))
        (local.set $from (i32.add (local.get $from) (i32.const 1)))
        (br $l))))
  (func (export "spawn") (result i32) (fiber.spawn $spawned))

  ;; 1000 fibers, one at a time: moribund fibers do not count.
  (func (export "churn") (result i32)
    (local $i i32) (local $sum i32)
    (global.set $first (fiber.new $idle))
    (local.set $sum (fiber.resume $g $go (global.get $first) (i32.const 0)))
    (loop $l
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (local.set $sum (i32.add (local.get $sum) (fiber.resume $g $go (fiber.new $idle) (local.get $i))))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 999))))
    (local.get $sum))
  (func (export "first") (result i32)
    (fiber.resume $g $go (global.get $first) (i32.const 0)))

  ;; A chain of spawns, each fiber spawning the next: depth n needs n fibers.
  (func $chain (param $self (ref $g)) (param $n i32) (result i32)
    (if (result i32) (i32.eqz (local.get $n))
      (then (i32.const 0))
      (else (i32.add (i32.const 1) (fiber.spawn $chain (i32.sub (local.get $n) (i32.const 1)))))))
  (func (export "chain") (param $n i32) (result i32)
    (fiber.spawn $chain (local.get $n)))

  ;; Recursion inside fibers: each fiber suspends at depth n of $rec, so
  ;; sixteen fiber stacks hold live frames at once.
  (func $rec (param $self (ref $g)) (param $n i32) (result i32)
    (if (result i32) (i32.eqz (local.get $n))
      (then
        (handle (result i32)
          (fiber.suspend $yield (local.get $self) (i32.const 0))
          (event $go (param i32))))
      (else
        (i32.add (local.get $n)
          (call $rec (local.get $self) (i32.sub (local.get $n) (i32.const 1)))))))
  (func $deep (param $self (ref $g)) (param $n i32) (result i32)
    (unreachable)
    (event $go (param i32)
      (drop)
      (call $rec (local.get $self) (local.get $n))))
  (func (export "start-deep") (param $count i32) (param $depth i32)
    (local $i i32)
    (loop $l
      (table.set $t (local.get $i) (fiber.new $deep (i32.add (local.get $depth) (local.get $i))))
      (handle
        (fiber.resume $g $go (table.get $t (local.get $i)) (i32.const 0))
        (drop)
        (event $yield (param i32) (drop)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (local.get $count)))))
  (func (export "finish-deep") (param $count i32) (result i32)
    (local $i i32) (local $sum i32)
    (local.set $i (local.get $count))
    (loop $l
      (local.set $i (i32.sub (local.get $i) (i32.const 1)))
      (local.set $sum
        (i32.add (local.get $sum) (fiber.resume $g $go (table.get $t (local.get $i)) (local.get $i))))
      (br_if $l (local.get $i)))
    (local.get $sum))
)

;; The limit: 16 live fibers.
(assert_return (invoke "fill" (i32.const 0) (i32.const 16)) (i32.const 16))
(assert_trap (invoke "fill" (i32.const 16) (i32.const 17)) "too many fibers")
(assert_trap (invoke "spawn") "too many fibers")
;; the trap did not touch the fresh fibers
(assert_return (invoke "finish" (i32.const 3)) (i32.const 3))
(assert_return (invoke "fill" (i32.const 16) (i32.const 17)) (i32.const 1))
(assert_trap (invoke "fill" (i32.const 17) (i32.const 18)) "too many fibers")
(invoke "release-range" (i32.const 0) (i32.const 5))
(assert_return (invoke "fill" (i32.const 17) (i32.const 21)) (i32.const 4))
(assert_trap (invoke "fill" (i32.const 21) (i32.const 22)) "too many fibers")
(assert_return (invoke "finish" (i32.const 20)) (i32.const 20))
(assert_return (invoke "spawn") (i32.const 1))
(assert_return (invoke "finish" (i32.const 19)) (i32.const 19))
(invoke "release-range" (i32.const 0) (i32.const 21))
(assert_trap (invoke "finish" (i32.const 16)) "fiber is moribund")

;; Handles are reused, stale ones stay moribund.
(assert_return (invoke "churn") (i32.const 499500))
(assert_trap (invoke "first") "fiber is moribund")
(assert_return (invoke "fill" (i32.const 0) (i32.const 16)) (i32.const 16))
(invoke "release-range" (i32.const 0) (i32.const 16))

;; A chain of 16 nested fibers fits; 17 does not, and the trap aborts the
;; whole chain, so all 16 are free again.
(assert_return (invoke "chain" (i32.const 15)) (i32.const 15))
(assert_trap (invoke "chain" (i32.const 16)) "too many fibers")
(assert_trap (invoke "chain" (i32.const 16)) "too many fibers")
(assert_return (invoke "fill" (i32.const 0) (i32.const 16)) (i32.const 16))
(invoke "release-range" (i32.const 0) (i32.const 16))

;; Sixteen fibers suspended at recursion depths 100 .. 115.
(invoke "start-deep" (i32.const 16) (i32.const 100))
(assert_trap (invoke "spawn") "too many fibers")
(assert_return (invoke "finish-deep" (i32.const 16)) (i32.const 93600))
(assert_return (invoke "spawn") (i32.const 1))
(invoke "start-deep" (i32.const 8) (i32.const 300))
(assert_return (invoke "finish-deep" (i32.const 8)) (i32.const 369712))
