;; Ordinary recursion inside fibers with the DEFAULT settings (issue 13,
;; "Stack sizing"; docs/fibers.md §10): a fiber's stack must hold 10,000
;; frames of an ordinary recursive function — exactly 10,000 activations of
;; $sum or $rec below the fiber's own function, no more — in a fiber resumed by
;; the fast path, and a fiber must be able to suspend from depth 10,000 and be
;; resumed there, more than once.
;;
;; This file has no options line on purpose: it tests the defaults.

(module
  (type $g (fiber (result i32)))
  (tag $go (param i32))
  (tag $tick (param i32))
  (table $t 4 (ref null $g))

  ;; sum(n) = n + sum(n - 1), sum(1) = 1: n activations. Two locals live
  ;; across the call.
  (func $sum (param $n i32) (result i32)
    (local $a i64) (local $b f64) (local $r i32)
    (local.set $a (i64.extend_i32_u (local.get $n)))
    (local.set $b (f64.convert_i32_u (local.get $n)))
    (if (result i32) (i32.le_u (local.get $n) (i32.const 1))
      (then (local.get $n))
      (else
        (local.set $r (call $sum (i32.sub (local.get $n) (i32.const 1))))
        (if (f64.ne (local.get $b) (f64.convert_i32_u (local.get $n))) (then (unreachable)))
        (i32.add (i32.wrap_i64 (local.get $a)) (local.get $r)))))

  ;; rec(d) = d + rec(d - 1) for d > 1; the activation with d = 1 (the d-th)
  ;; suspends with $tick(7777) until it is resumed with $go(y), y != 0, and
  ;; returns y. rec(10000) with y = 1 is sum(10000).
  (func $rec (param $self (ref $g)) (param $d i32) (result i32)
    (local $a i64) (local $y i32)
    (local.set $a (i64.extend_i32_u (local.get $d)))
    (if (result i32) (i32.gt_u (local.get $d) (i32.const 1))
      (then
        (i32.add
          (i32.wrap_i64 (local.get $a))
          (call $rec (local.get $self) (i32.sub (local.get $d) (i32.const 1)))))
      (else
        (loop $wait
          (local.set $y
            (handle (result i32)
              (fiber.suspend $tick (local.get $self) (i32.const 7777))
              (event $go (param i32))))
          (br_if $wait (i32.eqz (local.get $y))))
        (local.get $y))))

  ;; $go(x): x = 1 suspends with $tick(1) (a round trip); x = 2 suspends with
  ;; $tick(sum(10000)); x = 3 suspends with $tick(rec(10000)); x = 4 returns 4.
  (func $worker (param $self (ref $g)) (result i32)
    (local $x i32) (local $v i32)
    (unreachable)
    (event $go (param i32)
      (local.set $x)
      (loop $l
        (if (i32.eq (local.get $x) (i32.const 4)) (then (return (i32.const 4))))
        (local.set $v (local.get $x))
        (if (i32.eq (local.get $x) (i32.const 2))
          (then (local.set $v (call $sum (i32.const 10000)))))
        (if (i32.eq (local.get $x) (i32.const 3))
          (then (local.set $v (call $rec (local.get $self) (i32.const 10000)))))
        (handle
          (fiber.suspend $tick (local.get $self) (local.get $v))
          (event $go (param i32) (local.set $x) (br $l))))
      (unreachable)))

  (func (export "new") (param $i i32) (table.set $t (local.get $i) (fiber.new $worker)))
  ;; $tick(v) → v, the result r → 100000 + r.
  (func (export "resume") (param $i i32) (param $x i32) (result i32)
    (handle (result i32)
      (fiber.resume $g $go (table.get $t (local.get $i)) (local.get $x))
      (i32.add (i32.const 100000))
      (event $tick (param i32))))
  (func (export "root-sum") (param $n i32) (result i32) (call $sum (local.get $n)))
)

;; The root does it (control).
(assert_return (invoke "root-sum" (i32.const 10000)) (i32.const 50005000))

;; A fiber started (slow path), resumed twice on the fast path, then: 10,000
;; frames of $sum, twice.
(invoke "new" (i32.const 0))
(assert_return (invoke "resume" (i32.const 0) (i32.const 1)) (i32.const 1))
(assert_return (invoke "resume" (i32.const 0) (i32.const 1)) (i32.const 1))
(assert_return (invoke "resume" (i32.const 0) (i32.const 2)) (i32.const 50005000))
(assert_return (invoke "resume" (i32.const 0) (i32.const 2)) (i32.const 50005000))
(assert_return (invoke "resume" (i32.const 0) (i32.const 4)) (i32.const 100004))

;; Another one suspends from depth 10,000, is resumed there three times (the
;; first two with $go(0): it suspends again at once), unwinds, and recurses
;; 10,000 deep once more.
(invoke "new" (i32.const 1))
(assert_return (invoke "resume" (i32.const 1) (i32.const 1)) (i32.const 1))
(assert_return (invoke "resume" (i32.const 1) (i32.const 3)) (i32.const 7777))
(assert_return (invoke "resume" (i32.const 1) (i32.const 0)) (i32.const 7777))
(assert_return (invoke "resume" (i32.const 1) (i32.const 0)) (i32.const 7777))
(assert_return (invoke "resume" (i32.const 1) (i32.const 1)) (i32.const 50005000))
(assert_return (invoke "resume" (i32.const 1) (i32.const 2)) (i32.const 50005000))
(assert_return (invoke "resume" (i32.const 1) (i32.const 4)) (i32.const 100004))

;; Two fibers suspended at depth 10,000 at the same time, each on its own
;; stack, while the root and one of them recurse 10,000 deep again.
(invoke "new" (i32.const 2))
(invoke "new" (i32.const 3))
(assert_return (invoke "resume" (i32.const 2) (i32.const 1)) (i32.const 1))
(assert_return (invoke "resume" (i32.const 3) (i32.const 1)) (i32.const 1))
(assert_return (invoke "resume" (i32.const 2) (i32.const 3)) (i32.const 7777))
(assert_return (invoke "resume" (i32.const 3) (i32.const 3)) (i32.const 7777))
(assert_return (invoke "root-sum" (i32.const 10000)) (i32.const 50005000))
(assert_return (invoke "resume" (i32.const 2) (i32.const 1)) (i32.const 50005000))
(assert_return (invoke "resume" (i32.const 2) (i32.const 2)) (i32.const 50005000))
(assert_return (invoke "resume" (i32.const 3) (i32.const 2)) (i32.const 50005001))
(assert_return (invoke "resume" (i32.const 2) (i32.const 4)) (i32.const 100004))
(assert_return (invoke "resume" (i32.const 3) (i32.const 4)) (i32.const 100004))
