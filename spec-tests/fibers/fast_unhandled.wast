;; `unhandled event` (docs/fibers.md §6.10, §9, §14 item 2) on the fast and
;; the slow path, after successful round trips.
;;
;; The fast path dispatches an event on arrival: the delivered tag is looked up
;; in the handler scope of the receiver's suspension point (one compare for a
;; single clause, the perfect-hash probe for more, nothing for an empty scope).
;; A miss traps in the receiver: it becomes running first, so the receiver and
;; the waiting fibers below it are aborted (§6.12) and the trap goes to the
;; host call; a sender that suspended stays suspended.
;;
;; - at the child: the parent resumes with a tag that the child's (hot)
;;   suspension point has no clause for, with scopes of 0, 1, 2 and 5 clauses,
;;   from the root and from a fiber;
;; - at the parent: the child suspends with a tag that the parent's (hot)
;;   resume point does not handle, at scopes of 0, 1, 2 and 4 clauses, in the
;;   root and in a fiber;
;; - tag identity, not tag index: a module whose local tag has the same type
;;   and the same index as a handled tag of the receiver's module.
;; Each resume site below is used on the fast path with tags that hit before
;; the miss; survivors are checked afterwards.

(module $m
  (type $g (fiber (result i32)))
  (tag $go (export "go") (param i32))   ;; index 0
  (tag $a (param i32))                  ;; 1
  (tag $b (export "b") (param i32))     ;; 2
  (tag $c (param i32))                  ;; 3
  (tag $d (param i32))                  ;; 4
  (tag $other (param i32))              ;; 5
  (tag $tick (export "tick") (param i32))  ;; 6
  (table $t (export "t") 32 (ref null $g))

  ;; A suspension point with an empty handler scope.
  (func $bare (param $self (ref $g)) (param $v i32)
    (fiber.suspend $tick (local.get $self) (local.get $v)))

  ;; $multi: n counts; `mode` picks the suspension point of the next round
  ;; trip: 0 → p0 (no clauses), 1 → p1 ($go), 2 → p2 ($go $a), 3 → p5 ($go $a
  ;; $b $c $d); mode >= 100 returns n + 1000. $go(x) adds 1 and sets mode x;
  ;; $a(v) adds 100 * v; $b, $c, $d add 1000, 2000, 3000 * v.
  (func $multi (param $self (ref $g)) (result i32)
    (local $n i32) (local $mode i32) (local $v i32)
    (unreachable)
    (event $go (param i32)
      (local.set $mode)
      (loop $l
        (if (i32.ge_u (local.get $mode) (i32.const 100))
          (then (return (i32.add (local.get $n) (i32.const 1000)))))
        (block $p5
          (block $p2
            (block $p1
              (block $p0
                (br_table $p0 $p1 $p2 $p5 (local.get $mode)))
              (call $bare (local.get $self) (local.get $n))
              (unreachable))
            (handle
              (fiber.suspend $tick (local.get $self) (local.get $n))
              (event $go (param i32)
                (local.set $mode)
                (local.set $n (i32.add (local.get $n) (i32.const 1)))))
            (br $l))
          (handle
            (fiber.suspend $tick (local.get $self) (local.get $n))
            (event $go (param i32)
              (local.set $mode)
              (local.set $n (i32.add (local.get $n) (i32.const 1))))
            (event $a (param i32)
              (local.set $v)
              (local.set $n (i32.add (local.get $n) (i32.mul (local.get $v) (i32.const 100))))))
          (br $l))
        (handle
          (fiber.suspend $tick (local.get $self) (local.get $n))
          (event $go (param i32)
            (local.set $mode)
            (local.set $n (i32.add (local.get $n) (i32.const 1))))
          (event $a (param i32)
            (local.set $v)
            (local.set $n (i32.add (local.get $n) (i32.mul (local.get $v) (i32.const 100)))))
          (event $b (param i32)
            (local.set $v)
            (local.set $n (i32.add (local.get $n) (i32.mul (local.get $v) (i32.const 1000)))))
          (event $c (param i32)
            (local.set $v)
            (local.set $n (i32.add (local.get $n) (i32.mul (local.get $v) (i32.const 2000)))))
          (event $d (param i32)
            (local.set $v)
            (local.set $n (i32.add (local.get $n) (i32.mul (local.get $v) (i32.const 3000))))))
        (br $l))
      (unreachable)))

  ;; $catcher handles $go and $other: n += v, suspends with $tick(n);
  ;; v >= 100 returns n + 1000.
  (func $catcher (param $self (ref $g)) (result i32)
    (local $n i32) (local $v i32)
    (unreachable)
    (event $go (param i32)
      (local.set $v)
      (loop $l
        (if (i32.ge_u (local.get $v) (i32.const 100))
          (then (return (i32.add (local.get $n) (i32.const 1000)))))
        (local.set $n (i32.add (local.get $n) (local.get $v)))
        (handle
          (fiber.suspend $tick (local.get $self) (local.get $n))
          (event $go (param i32) (local.set $v) (br $l))
          (event $other (param i32) (local.set $v) (br $l))))
      (unreachable)))

  ;; $rude: $go(x) (or $a(x), $d(x)): x >= 100 returns n + 1000; otherwise
  ;; n += x and it suspends with $other(n) if x = 9, $b(n) if x = 8, $tick(n)
  ;; otherwise — three suspension points with the same scope ($go $a $d).
  (func $rude (param $self (ref $g)) (result i32)
    (local $n i32) (local $x i32)
    (unreachable)
    (event $go (param i32)
      (local.set $x)
      (loop $l
        (if (i32.ge_u (local.get $x) (i32.const 100))
          (then (return (i32.add (local.get $n) (i32.const 1000)))))
        (local.set $n (i32.add (local.get $n) (local.get $x)))
        (handle
          (if (i32.eq (local.get $x) (i32.const 9))
            (then (fiber.suspend $other (local.get $self) (local.get $n))))
          (if (i32.eq (local.get $x) (i32.const 8))
            (then (fiber.suspend $b (local.get $self) (local.get $n))))
          (fiber.suspend $tick (local.get $self) (local.get $n))
          (event $go (param i32) (local.set $x) (br $l))
          (event $a (param i32) (local.set $x) (br $l))
          (event $d (param i32) (local.set $x) (br $l))))
      (unreachable)))

  ;; The resume sites, one per tag, with scopes of 1, 2, 4, 1 and 0 clauses.
  ;; Each returns what arrived: $tick(v) → v, $b(v) → 200000 + v, $c(v) →
  ;; 300000 + v, $go(v) → 400000 + v, a return r → 100000 + r.
  (func $send-go (param $f (ref null $g)) (param $v i32) (result i32)
    (handle (result i32)
      (fiber.resume $g $go (local.get $f) (local.get $v))
      (i32.add (i32.const 100000))
      (event $tick (param i32))))
  (func $send-a (param $f (ref null $g)) (param $v i32) (result i32)
    (handle (result i32)
      (fiber.resume $g $a (local.get $f) (local.get $v))
      (i32.add (i32.const 100000))
      (event $tick (param i32))
      (event $b (param i32) (i32.add (i32.const 200000)))))
  (func $send-d (param $f (ref null $g)) (param $v i32) (result i32)
    (handle (result i32)
      (fiber.resume $g $d (local.get $f) (local.get $v))
      (i32.add (i32.const 100000))
      (event $tick (param i32))
      (event $b (param i32) (i32.add (i32.const 200000)))
      (event $c (param i32) (i32.add (i32.const 300000)))
      (event $go (param i32) (i32.add (i32.const 400000)))))
  (func $send-other (param $f (ref null $g)) (param $v i32) (result i32)
    (handle (result i32)
      (fiber.resume $g $other (local.get $f) (local.get $v))
      (i32.add (i32.const 100000))
      (event $tick (param i32))))
  (func $send-bare (param $f (ref null $g)) (param $v i32) (result i32)
    (fiber.resume $g $go (local.get $f) (local.get $v)))
  ;; sel: 0 $send-go, 1 $send-a, 2 $send-d, 3 $send-other, 4 $send-bare
  (func $send (param $sel i32) (param $f (ref null $g)) (param $v i32) (result i32)
    (block $bare (block $other (block $d (block $a (block $go
      (br_table $go $a $d $other $bare (local.get $sel)))
      (return (call $send-go (local.get $f) (local.get $v))))
      (return (call $send-a (local.get $f) (local.get $v))))
      (return (call $send-d (local.get $f) (local.get $v))))
      (return (call $send-other (local.get $f) (local.get $v))))
    (call $send-bare (local.get $f) (local.get $v)))

  ;; k sends through site `sel` to table[i] with value 1, then one to table[j]
  ;; with value v.
  (func $pump (param $sel i32) (param $i i32) (param $k i32) (param $j i32) (param $v i32) (result i32)
    (block $done
      (loop $l
        (br_if $done (i32.eqz (local.get $k)))
        (drop (call $send (local.get $sel) (table.get $t (local.get $i)) (i32.const 1)))
        (local.set $k (i32.sub (local.get $k) (i32.const 1)))
        (br $l)))
    (call $send (local.get $sel) (table.get $t (local.get $j)) (local.get $v)))

  ;; A driver fiber: $go(y), y != 0, suspends with $tick(y); $go(0) runs
  ;; $pump(sel, i, k, j, v) as the parent of what it resumes.
  (func $driver (param $self (ref $g)) (param $sel i32) (param $i i32) (param $k i32) (param $j i32)
    (param $v i32) (result i32)
    (local $y i32)
    (unreachable)
    (event $go (param i32)
      (local.set $y)
      (loop $l
        (if (local.get $y)
          (then
            (handle
              (fiber.suspend $tick (local.get $self) (local.get $y))
              (event $go (param i32) (local.set $y)))
            (br $l))))
      (call $pump (local.get $sel) (local.get $i) (local.get $k) (local.get $j) (local.get $v))))

  (func (export "multi") (param $slot i32) (table.set $t (local.get $slot) (fiber.new $multi)))
  (func (export "catcher") (param $slot i32) (table.set $t (local.get $slot) (fiber.new $catcher)))
  (func (export "rude") (param $slot i32) (table.set $t (local.get $slot) (fiber.new $rude)))
  (func (export "driver") (param $slot i32) (param $sel i32) (param $i i32) (param $k i32) (param $j i32)
    (param $v i32)
    (table.set $t (local.get $slot)
      (fiber.new $driver (local.get $sel) (local.get $i) (local.get $k) (local.get $j) (local.get $v))))
  (func (export "pump") (param $sel i32) (param $i i32) (param $k i32) (param $j i32) (param $v i32) (result i32)
    (call $pump (local.get $sel) (local.get $i) (local.get $k) (local.get $j) (local.get $v)))
)
(register "m" $m)

;; Same types, other identities: $mine is index 2 here, as $b is in $m.
;; Same types, other identities: $mine is index 2 here, as $b is in $m.
(module $m2
  (type $g (fiber (result i32)))
  (import "m" "go" (tag $go (param i32)))      ;; index 0
  (import "m" "tick" (tag $tick (param i32)))  ;; 1
  (import "m" "t" (table $t 32 (ref null $g)))
  (tag $mine (param i32))                      ;; 2
  (func $send (param $slot i32) (param $v i32) (result i32)
    (handle (result i32)
      (fiber.resume $g $go (table.get $t (local.get $slot)) (local.get $v))
      (i32.add (i32.const 100000))
      (event $tick (param i32))
      (event $mine (param i32) (i32.add (i32.const 500000)))))
  ;; k times $go(3) to table[slot], then $go(v).
  (func (export "send-go") (param $slot i32) (param $k i32) (param $v i32) (result i32)
    (block $done
      (loop $l
        (br_if $done (i32.eqz (local.get $k)))
        (drop (call $send (local.get $slot) (i32.const 3)))
        (local.set $k (i32.sub (local.get $k) (i32.const 1)))
        (br $l)))
    (call $send (local.get $slot) (local.get $v)))
  (func (export "send-mine") (param $slot i32) (param $v i32) (result i32)
    (handle (result i32)
      (fiber.resume $g $mine (table.get $t (local.get $slot)) (local.get $v))
      (i32.add (i32.const 100000))
      (event $tick (param i32))))
)

;; ===== At the child: the resumed fiber's point has no clause for the tag =====
;; pump(sel, i, k, j, v) — sel: 0 $go, 1 $a, 2 $d, 3 $other, 4 $go without
;; clauses at the root.

;; p1 (one clause: $go) receives $other; table[1] heats the $other site first.
(invoke $m "multi" (i32.const 0))
(invoke $m "catcher" (i32.const 1))
(assert_return (invoke $m "pump" (i32.const 0) (i32.const 0) (i32.const 5) (i32.const 0) (i32.const 1)) (i32.const 5))
(assert_return (invoke $m "pump" (i32.const 0) (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 1)) (i32.const 1))
(assert_return (invoke $m "pump" (i32.const 3) (i32.const 1) (i32.const 3) (i32.const 1) (i32.const 1)) (i32.const 5))
(assert_trap (invoke $m "pump" (i32.const 3) (i32.const 1) (i32.const 3) (i32.const 0) (i32.const 5)) "unhandled event")
;; the receiver was aborted; the fiber resumed before it is unaffected
(assert_trap (invoke $m "pump" (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 1)) "fiber is moribund")
(assert_return (invoke $m "pump" (i32.const 3) (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 1)) (i32.const 9))

;; p1 receives $a, which the same site has just delivered to a p2 point.
(invoke $m "multi" (i32.const 2))
(invoke $m "multi" (i32.const 3))
(assert_return (invoke $m "pump" (i32.const 0) (i32.const 2) (i32.const 2) (i32.const 2) (i32.const 2)) (i32.const 2))
(assert_return (invoke $m "pump" (i32.const 1) (i32.const 2) (i32.const 3) (i32.const 2) (i32.const 1)) (i32.const 402))
(assert_return (invoke $m "pump" (i32.const 0) (i32.const 3) (i32.const 2) (i32.const 3) (i32.const 1)) (i32.const 2))
(assert_trap (invoke $m "pump" (i32.const 1) (i32.const 2) (i32.const 3) (i32.const 3) (i32.const 1)) "unhandled event")
(assert_trap (invoke $m "pump" (i32.const 0) (i32.const 3) (i32.const 0) (i32.const 3) (i32.const 1)) "fiber is moribund")

;; p2 (two clauses: $go $a) receives $other, and $d.
(assert_return (invoke $m "pump" (i32.const 1) (i32.const 2) (i32.const 0) (i32.const 2) (i32.const 1)) (i32.const 802))
(assert_trap (invoke $m "pump" (i32.const 3) (i32.const 1) (i32.const 3) (i32.const 2) (i32.const 1)) "unhandled event")
(assert_trap (invoke $m "pump" (i32.const 0) (i32.const 2) (i32.const 0) (i32.const 2) (i32.const 1)) "fiber is moribund")
(invoke $m "multi" (i32.const 4))
(invoke $m "multi" (i32.const 5))
(assert_return (invoke $m "pump" (i32.const 0) (i32.const 4) (i32.const 1) (i32.const 4) (i32.const 2)) (i32.const 1))
(assert_return (invoke $m "pump" (i32.const 0) (i32.const 5) (i32.const 1) (i32.const 5) (i32.const 3)) (i32.const 1))
(assert_trap (invoke $m "pump" (i32.const 2) (i32.const 5) (i32.const 3) (i32.const 4) (i32.const 1)) "unhandled event")
(assert_trap (invoke $m "pump" (i32.const 0) (i32.const 4) (i32.const 0) (i32.const 4) (i32.const 1)) "fiber is moribund")

;; p5 (five clauses) receives $other.
(assert_return (invoke $m "pump" (i32.const 1) (i32.const 5) (i32.const 2) (i32.const 5) (i32.const 1)) (i32.const 9301))
(assert_trap (invoke $m "pump" (i32.const 3) (i32.const 1) (i32.const 2) (i32.const 5) (i32.const 1)) "unhandled event")
(assert_trap (invoke $m "pump" (i32.const 0) (i32.const 5) (i32.const 0) (i32.const 5) (i32.const 1)) "fiber is moribund")

;; p5 receives, from another module, $go (an import: the same tag, handled on
;; the fast path) and then $mine (the same type and the same index as $b, which
;; p5 handles — but another tag).
(invoke $m "multi" (i32.const 6))
(assert_return (invoke $m "pump" (i32.const 0) (i32.const 6) (i32.const 1) (i32.const 6) (i32.const 3)) (i32.const 1))
(assert_return (invoke $m2 "send-go" (i32.const 6) (i32.const 3) (i32.const 3)) (i32.const 5))
(assert_trap (invoke $m2 "send-mine" (i32.const 6) (i32.const 1)) "unhandled event")
(assert_trap (invoke $m2 "send-go" (i32.const 6) (i32.const 0) (i32.const 3)) "fiber is moribund")

;; p0 (no clauses at all), reached after fast round trips at p1.
(invoke $m "multi" (i32.const 7))
(assert_return (invoke $m "pump" (i32.const 0) (i32.const 7) (i32.const 2) (i32.const 7) (i32.const 0)) (i32.const 2))
(assert_trap (invoke $m "pump" (i32.const 0) (i32.const 1) (i32.const 2) (i32.const 7) (i32.const 1)) "unhandled event")
(assert_trap (invoke $m "pump" (i32.const 0) (i32.const 7) (i32.const 0) (i32.const 7) (i32.const 1)) "fiber is moribund")

;; A fiber resumes: the driver table[10] resumes table[9] three times with
;; $other (table[9] becomes its child), then sends $other to table[8] at p1.
;; table[8] and the waiting driver are aborted; the suspended table[9] is not.
(invoke $m "multi" (i32.const 8))
(invoke $m "catcher" (i32.const 9))
(assert_return (invoke $m "pump" (i32.const 0) (i32.const 8) (i32.const 2) (i32.const 8) (i32.const 1)) (i32.const 2))
(assert_return (invoke $m "pump" (i32.const 0) (i32.const 9) (i32.const 0) (i32.const 9) (i32.const 1)) (i32.const 1))
(invoke $m "driver" (i32.const 10) (i32.const 3) (i32.const 9) (i32.const 3) (i32.const 8) (i32.const 1))
(assert_trap (invoke $m "pump" (i32.const 0) (i32.const 10) (i32.const 2) (i32.const 10) (i32.const 0)) "unhandled event")
(assert_trap (invoke $m "pump" (i32.const 0) (i32.const 10) (i32.const 0) (i32.const 10) (i32.const 1)) "fiber is moribund")
(assert_trap (invoke $m "pump" (i32.const 0) (i32.const 8) (i32.const 0) (i32.const 8) (i32.const 1)) "fiber is moribund")
(assert_return (invoke $m "pump" (i32.const 3) (i32.const 9) (i32.const 0) (i32.const 9) (i32.const 1)) (i32.const 5))

;; ===== At the parent: the child suspends with a tag it does not handle =====

;; The root receives $other at scopes of 1 ($send-go), 2 ($send-a), 4
;; ($send-d) and 0 ($send-bare) clauses, each after fast round trips. The
;; sender stays suspended at its $other point and carries on each time.
(invoke $m "rude" (i32.const 11))
(assert_return (invoke $m "pump" (i32.const 0) (i32.const 11) (i32.const 3) (i32.const 11) (i32.const 1)) (i32.const 4))
(assert_trap (invoke $m "pump" (i32.const 0) (i32.const 11) (i32.const 2) (i32.const 11) (i32.const 9)) "unhandled event")
(assert_return (invoke $m "pump" (i32.const 0) (i32.const 11) (i32.const 0) (i32.const 11) (i32.const 1)) (i32.const 16))
;; $b is handled by $send-a's second clause
(assert_return (invoke $m "pump" (i32.const 1) (i32.const 11) (i32.const 2) (i32.const 11) (i32.const 8)) (i32.const 200026))
(assert_trap (invoke $m "pump" (i32.const 1) (i32.const 11) (i32.const 2) (i32.const 11) (i32.const 9)) "unhandled event")
(assert_trap (invoke $m "pump" (i32.const 2) (i32.const 11) (i32.const 2) (i32.const 11) (i32.const 9)) "unhandled event")
;; $send-bare: fast resumes that end in a return are fine, a suspension is not
(invoke $m "rude" (i32.const 12))
(invoke $m "rude" (i32.const 13))
(assert_return (invoke $m "pump" (i32.const 0) (i32.const 12) (i32.const 2) (i32.const 12) (i32.const 1)) (i32.const 3))
(assert_return (invoke $m "pump" (i32.const 0) (i32.const 13) (i32.const 2) (i32.const 13) (i32.const 2)) (i32.const 4))
(assert_return (invoke $m "pump" (i32.const 4) (i32.const 12) (i32.const 0) (i32.const 12) (i32.const 100)) (i32.const 1003))
(assert_return (invoke $m "pump" (i32.const 4) (i32.const 13) (i32.const 0) (i32.const 13) (i32.const 100)) (i32.const 1004))
(assert_trap (invoke $m "pump" (i32.const 4) (i32.const 11) (i32.const 0) (i32.const 11) (i32.const 1)) "unhandled event")
(assert_return (invoke $m "pump" (i32.const 0) (i32.const 11) (i32.const 0) (i32.const 11) (i32.const 100)) (i32.const 101049))

;; A fiber receives: the driver table[15] resumes table[14] (its suspended
;; child from now on) three times, then table[14] suspends with $other. The
;; driver is aborted; table[14] stays suspended and the root resumes it.
(invoke $m "rude" (i32.const 14))
(assert_return (invoke $m "pump" (i32.const 0) (i32.const 14) (i32.const 0) (i32.const 14) (i32.const 1)) (i32.const 1))
(invoke $m "driver" (i32.const 15) (i32.const 0) (i32.const 14) (i32.const 3) (i32.const 14) (i32.const 9))
(assert_trap (invoke $m "pump" (i32.const 0) (i32.const 15) (i32.const 2) (i32.const 15) (i32.const 0)) "unhandled event")
(assert_trap (invoke $m "pump" (i32.const 0) (i32.const 15) (i32.const 0) (i32.const 15) (i32.const 1)) "fiber is moribund")
(assert_return (invoke $m "pump" (i32.const 0) (i32.const 14) (i32.const 0) (i32.const 14) (i32.const 1)) (i32.const 14))
(assert_return (invoke $m "pump" (i32.const 0) (i32.const 14) (i32.const 2) (i32.const 14) (i32.const 100)) (i32.const 101016))

;; Another module's root receives $b, which has the index of its $mine.
(invoke $m "rude" (i32.const 16))
(assert_return (invoke $m "pump" (i32.const 0) (i32.const 16) (i32.const 0) (i32.const 16) (i32.const 1)) (i32.const 1))
(assert_trap (invoke $m2 "send-go" (i32.const 16) (i32.const 3) (i32.const 8)) "unhandled event")
(assert_return (invoke $m2 "send-go" (i32.const 16) (i32.const 0) (i32.const 100)) (i32.const 101018))
