;; weft-wast-options: --max-fibers=8
;;
;; `too many fibers` (docs/fibers.md §6.1, §6.2, §10, §14 item 5) around the
;; fast path. This file runs with a limit of 8 live fibers (the options line
;; above). fiber.new and fiber.spawn always take the slow path; what the fast
;; path must get right is everything around them: eight started fibers make
;; round trips on the fast path at the limit (the fast path allocates
;; nothing); creation from inside a fast-resumed fiber traps and aborts it and
;; the waiting fibers below it, which frees their places; release of a fiber
;; suspended by the fast path frees its place; survivors keep their state.

(module
  (type $g (fiber (result i32)))
  (tag $go (param i32))
  (tag $tick (param i32))
  (table $t 16 (ref null $g))
  (global $slot (mut i32) (i32.const 15))  ;; where action 500 puts its new fiber
  (global $fwd (mut i32) (i32.const 1))    ;; what action 600 + k sends

  (func $quick (param $self (ref $g)) (result i32) (i32.const 1))

  ;; $go(x): x = 0 returns n + 1000; x < 100: n += x; x = 500: fiber.new
  ;; into table[$slot], n += 1; x = 501: n += fiber.spawn of a fiber that
  ;; returns 1; x = 600 + k: n += the tick of table[k] resumed with $go($fwd).
  ;; Then it suspends with $tick(n).
  (func $gen (param $self (ref $g)) (result i32)
    (local $n i32) (local $x i32)
    (unreachable)
    (event $go (param i32)
      (local.set $x)
      (loop $l
        (if (i32.eqz (local.get $x)) (then (return (i32.add (local.get $n) (i32.const 1000)))))
        (if (i32.lt_u (local.get $x) (i32.const 100))
          (then (local.set $n (i32.add (local.get $n) (local.get $x)))))
        (if (i32.eq (local.get $x) (i32.const 500))
          (then
            (table.set $t (global.get $slot) (fiber.new $gen))
            (local.set $n (i32.add (local.get $n) (i32.const 1)))))
        (if (i32.eq (local.get $x) (i32.const 501))
          (then (local.set $n (i32.add (local.get $n) (fiber.spawn $quick)))))
        (if (i32.ge_u (local.get $x) (i32.const 600))
          (then
            (local.set $n (i32.add (local.get $n)
              (call $resume (table.get $t (i32.sub (local.get $x) (i32.const 600))) (global.get $fwd))))))
        (handle
          (fiber.suspend $tick (local.get $self) (local.get $n))
          (event $go (param i32) (local.set $x) (br $l))))
      (unreachable)))

  (func $resume (param $f (ref null $g)) (param $x i32) (result i32)
    (handle (result i32)
      (fiber.resume $g $go (local.get $f) (local.get $x))
      (i32.add (i32.const 100000))
      (event $tick (param i32))))

  (func (export "gen") (param $i i32) (table.set $t (local.get $i) (fiber.new $gen)))
  (func (export "spawn") (result i32) (fiber.spawn $quick))
  (func (export "slot") (param $i i32) (global.set $slot (local.get $i)))
  (func (export "fwd") (param $x i32) (global.set $fwd (local.get $x)))
  (func (export "release") (param $i i32) (fiber.release (table.get $t (local.get $i))))
  (func (export "resume") (param $i i32) (param $x i32) (result i32)
    (call $resume (table.get $t (local.get $i)) (local.get $x)))
  ;; `rounds` times: resume table[from .. to-1] in turn with $go(1) (the
  ;; first round starts fresh fibers, the others are the fast path); returns
  ;; the sum of the ticks.
  (func (export "rounds") (param $from i32) (param $to i32) (param $rounds i32) (result i32)
    (local $i i32) (local $sum i32)
    (loop $r
      (local.set $i (local.get $from))
      (loop $l
        (local.set $sum (i32.add (local.get $sum) (call $resume (table.get $t (local.get $i)) (i32.const 1))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br_if $l (i32.lt_u (local.get $i) (local.get $to))))
      (local.set $rounds (i32.sub (local.get $rounds) (i32.const 1)))
      (br_if $r (local.get $rounds)))
    (local.get $sum))
)

;; Eight fibers, all started, at the limit; twenty rounds of round trips.
(invoke "gen" (i32.const 0))
(invoke "gen" (i32.const 1))
(invoke "gen" (i32.const 2))
(invoke "gen" (i32.const 3))
(invoke "gen" (i32.const 4))
(invoke "gen" (i32.const 5))
(invoke "gen" (i32.const 6))
(invoke "gen" (i32.const 7))
(assert_trap (invoke "gen" (i32.const 8)) "too many fibers")
;; sum over 20 rounds of 8 ticks: 8 * (1 + ... + 20)
(assert_return (invoke "rounds" (i32.const 0) (i32.const 8) (i32.const 20)) (i32.const 1680))
(assert_trap (invoke "gen" (i32.const 8)) "too many fibers")
(assert_trap (invoke "spawn") "too many fibers")
(assert_return (invoke "rounds" (i32.const 0) (i32.const 8) (i32.const 1)) (i32.const 168))

;; fiber.new inside table[3], resumed on the fast path: the trap aborts
;; table[3], which frees one place.
(assert_trap (invoke "resume" (i32.const 3) (i32.const 500)) "too many fibers")
(assert_trap (invoke "resume" (i32.const 3) (i32.const 1)) "fiber is moribund")
(invoke "gen" (i32.const 8))
(assert_trap (invoke "gen" (i32.const 9)) "too many fibers")
;; fiber.spawn inside table[4]: the same.
(assert_trap (invoke "resume" (i32.const 4) (i32.const 501)) "too many fibers")
(assert_trap (invoke "resume" (i32.const 4) (i32.const 1)) "fiber is moribund")
(invoke "gen" (i32.const 9))
(assert_trap (invoke "gen" (i32.const 10)) "too many fibers")
;; table[0] resumes table[1] (fast), which then fails to create a fiber: both
;; are aborted, two places are free.
;; (first a working round trip through both: 21 + 22)
(assert_return (invoke "resume" (i32.const 0) (i32.const 601)) (i32.const 43))
(invoke "fwd" (i32.const 500))
(assert_trap (invoke "resume" (i32.const 0) (i32.const 601)) "too many fibers")
(assert_trap (invoke "resume" (i32.const 0) (i32.const 1)) "fiber is moribund")
(assert_trap (invoke "resume" (i32.const 1) (i32.const 1)) "fiber is moribund")
(invoke "gen" (i32.const 10))
(invoke "gen" (i32.const 11))
(assert_trap (invoke "gen" (i32.const 12)) "too many fibers")
;; Below the limit a fast-resumed fiber creates one (table[15]) and resumes it.
(invoke "release" (i32.const 11))
(invoke "slot" (i32.const 15))
(invoke "fwd" (i32.const 1))
(assert_return (invoke "resume" (i32.const 2) (i32.const 500)) (i32.const 22))
(assert_trap (invoke "gen" (i32.const 12)) "too many fibers")
(assert_return (invoke "resume" (i32.const 2) (i32.const 615)) (i32.const 23))
(assert_return (invoke "resume" (i32.const 2) (i32.const 615)) (i32.const 25))
;; Releasing table[2], suspended by the fast path, releases its child table[15]:
;; two places.
(invoke "release" (i32.const 2))
(assert_trap (invoke "resume" (i32.const 15) (i32.const 1)) "fiber is moribund")
(invoke "gen" (i32.const 11))
(invoke "gen" (i32.const 12))
(assert_trap (invoke "gen" (i32.const 13)) "too many fibers")
;; The survivors of all this kept their state: table[5..7] ticked 21 times.
(assert_return (invoke "resume" (i32.const 5) (i32.const 0)) (i32.const 101021))
(assert_return (invoke "resume" (i32.const 6) (i32.const 1)) (i32.const 22))
(assert_return (invoke "resume" (i32.const 7) (i32.const 2)) (i32.const 23))
;; Eight live fibers again (table[6..13]), all making round trips: the sum
;; over ten rounds of (22 + r) + (23 + r) + 6 r.
(invoke "gen" (i32.const 13))
(assert_trap (invoke "spawn") "too many fibers")
(assert_return (invoke "rounds" (i32.const 6) (i32.const 14) (i32.const 10)) (i32.const 890))
(assert_trap (invoke "gen" (i32.const 14)) "too many fibers")
