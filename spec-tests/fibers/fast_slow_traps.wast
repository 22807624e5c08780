;; The traps of the slow-path instructions (fiber.suspend_to, fiber.switch,
;; fiber.retireto, fiber.retire, fiber.release; docs/fibers.md §6.5–§6.9,
;; §6.13, §9) in a fiber that the fast path has resumed several times, with
;; targets that the fast path suspended — including stale handles whose slot
;; now holds a live fiber suspended by the fast path. traps.wast has the same
;; checks on fibers that never took the fast path.
;;
;; Check order (§6.13): the running-fiber operand S first (`not the running
;; fiber`), then the target T: null → `null fiber reference`, moribund or
;; stale → `fiber is moribund` (fiber.release: no effect), T the running
;; fiber → `fiber is active`; fiber.release of a running or waiting fiber →
;; `fiber is active`. After each trap: the actor is moribund, the fibers it
;; named are not affected.

(module
  (type $g (fiber (result i32)))
  (tag $go (param i32))
  (tag $tick (param i32))
  (table $t 32 (ref null $g))  ;; table[30] and table[31] stay null

  (func $resume (param $f (ref null $g)) (param $x i32) (result i32)
    (handle (result i32)
      (fiber.resume $g $go (local.get $f) (local.get $x))
      (i32.add (i32.const 100000))
      (event $tick (param i32))))
  (func $slot (param $self (ref $g)) (param $i i32) (result (ref null $g))
    (if (result (ref null $g)) (i32.eq (local.get $i) (i32.const 99))
      (then (local.get $self))
      (else (table.get $t (local.get $i)))))

  ;; The actor: n accumulates; each $go(x) it receives means
  ;;   x = 0           return n + 1000
  ;;   x < 10000       n += x
  ;;   x = 10000 c + 100 s + t, with S = table[s] and T = table[t] (99: the
  ;;                   actor itself):
  ;;     c = 1 fiber.suspend_to T (n += its tick)
  ;;     c = 2 fiber.switch S T          c = 3 fiber.retireto S T
  ;;     c = 4 fiber.retire S            c = 5 fiber.release T
  ;;     c = 6 fiber.resume T with $go($fwd) (n += its tick)
  ;; and then it suspends with $tick(n) (the fast path), where the next $go
  ;; arrives.
  (global $fwd (mut i32) (i32.const 1))
  (func $actor (param $self (ref $g)) (result i32)
    (local $n i32) (local $x i32) (local $s (ref null $g)) (local $tt (ref null $g))
    (unreachable)
    (event $go (param i32)
      (local.set $x)
      (loop $l
        (if (i32.eqz (local.get $x)) (then (return (i32.add (local.get $n) (i32.const 1000)))))
        (block $done
          (if (i32.lt_u (local.get $x) (i32.const 10000))
            (then
              (local.set $n (i32.add (local.get $n) (local.get $x)))
              (br $done)))
          (local.set $s (call $slot (local.get $self)
            (i32.rem_u (i32.div_u (local.get $x) (i32.const 100)) (i32.const 100))))
          (local.set $tt (call $slot (local.get $self) (i32.rem_u (local.get $x) (i32.const 100))))
          (block $c6 (block $c5 (block $c4 (block $c3 (block $c2 (block $c1 (block $c0
            (br_table $c0 $c1 $c2 $c3 $c4 $c5 $c6 (i32.div_u (local.get $x) (i32.const 10000))))
            (unreachable))
            (local.set $n (i32.add (local.get $n)
              (handle (result i32)
                (fiber.suspend_to $g $go (local.get $tt) (local.get $n))
                (event $tick (param i32)))))
            (br $done))
            (fiber.switch $g $go (local.get $s) (local.get $tt) (local.get $n)))
            (fiber.retireto $g $go (local.get $s) (local.get $tt) (local.get $n)))
            (fiber.retire $tick (local.get $s) (local.get $n)))
            (fiber.release (local.get $tt))
            (br $done))
          (local.set $n (i32.add (local.get $n) (call $resume (local.get $tt) (global.get $fwd)))))
        (handle
          (fiber.suspend $tick (local.get $self) (local.get $n))
          (event $go (param i32) (local.set $x) (br $l))))
      (unreachable)))

  (func (export "actor") (param $i i32) (table.set $t (local.get $i) (fiber.new $actor)))
  (func (export "fwd") (param $x i32) (global.set $fwd (local.get $x)))
  (func (export "resume") (param $i i32) (param $x i32) (result i32)
    (call $resume (table.get $t (local.get $i)) (local.get $x)))
  ;; k fast resumes of table[i] with $go(1), then one with $go(x).
  (func (export "pump") (param $i i32) (param $k i32) (param $x i32) (result i32)
    (loop $l
      (drop (call $resume (table.get $t (local.get $i)) (i32.const 1)))
      (local.set $k (i32.sub (local.get $k) (i32.const 1)))
      (br_if $l (local.get $k)))
    (call $resume (table.get $t (local.get $i)) (local.get $x)))
)

;; Bystanders, started and suspended by the fast path: table[1], table[2].
;; table[3] is moribund; table[4] is stale: its slot went to table[5], a
;; suspended child of the root.
(invoke "actor" (i32.const 1))
(invoke "actor" (i32.const 2))
(assert_return (invoke "pump" (i32.const 1) (i32.const 3) (i32.const 1)) (i32.const 4))
(assert_return (invoke "pump" (i32.const 2) (i32.const 3) (i32.const 1)) (i32.const 4))
(invoke "actor" (i32.const 3))
(assert_return (invoke "pump" (i32.const 3) (i32.const 2) (i32.const 0)) (i32.const 101002))
(invoke "actor" (i32.const 4))
(assert_return (invoke "pump" (i32.const 4) (i32.const 2) (i32.const 0)) (i32.const 101002))
(invoke "actor" (i32.const 5))
(assert_return (invoke "pump" (i32.const 5) (i32.const 3) (i32.const 1)) (i32.const 4))

;; ---- fiber.suspend_to --------------------------------------------------------
(invoke "actor" (i32.const 0))
(assert_trap (invoke "pump" (i32.const 0) (i32.const 3) (i32.const 10030)) "null fiber reference")
(assert_trap (invoke "resume" (i32.const 0) (i32.const 1)) "fiber is moribund")
(invoke "actor" (i32.const 0))
(assert_trap (invoke "pump" (i32.const 0) (i32.const 3) (i32.const 10003)) "fiber is moribund")
(invoke "actor" (i32.const 0))
(assert_trap (invoke "pump" (i32.const 0) (i32.const 3) (i32.const 10004)) "fiber is moribund")
(invoke "actor" (i32.const 0))
(assert_trap (invoke "pump" (i32.const 0) (i32.const 3) (i32.const 10099)) "fiber is active")
(assert_trap (invoke "resume" (i32.const 0) (i32.const 1)) "fiber is moribund")
;; working: to table[1] (suspended: like resume, it ticks 4 + 3 back to the
;; actor)
(invoke "actor" (i32.const 0))
(assert_return (invoke "pump" (i32.const 0) (i32.const 3) (i32.const 10001)) (i32.const 10))

;; ---- fiber.switch ------------------------------------------------------------
(invoke "actor" (i32.const 0))
(assert_trap (invoke "pump" (i32.const 0) (i32.const 3) (i32.const 20130)) "not the running fiber")
(invoke "actor" (i32.const 0))
(assert_trap (invoke "pump" (i32.const 0) (i32.const 3) (i32.const 23102)) "not the running fiber")
(invoke "actor" (i32.const 0))
(assert_trap (invoke "pump" (i32.const 0) (i32.const 3) (i32.const 20530)) "not the running fiber")
(invoke "actor" (i32.const 0))
(assert_trap (invoke "pump" (i32.const 0) (i32.const 3) (i32.const 20499)) "not the running fiber")
(invoke "actor" (i32.const 0))
(assert_trap (invoke "pump" (i32.const 0) (i32.const 3) (i32.const 29930)) "null fiber reference")
(invoke "actor" (i32.const 0))
(assert_trap (invoke "pump" (i32.const 0) (i32.const 3) (i32.const 29903)) "fiber is moribund")
(invoke "actor" (i32.const 0))
(assert_trap (invoke "pump" (i32.const 0) (i32.const 3) (i32.const 29904)) "fiber is moribund")
(invoke "actor" (i32.const 0))
(assert_trap (invoke "pump" (i32.const 0) (i32.const 3) (i32.const 29999)) "fiber is active")
(assert_trap (invoke "resume" (i32.const 0) (i32.const 1)) "fiber is moribund")

;; ---- fiber.retireto ----------------------------------------------------------
(invoke "actor" (i32.const 0))
(assert_trap (invoke "pump" (i32.const 0) (i32.const 3) (i32.const 30102)) "not the running fiber")
(invoke "actor" (i32.const 0))
(assert_trap (invoke "pump" (i32.const 0) (i32.const 3) (i32.const 33130)) "not the running fiber")
(invoke "actor" (i32.const 0))
(assert_trap (invoke "pump" (i32.const 0) (i32.const 3) (i32.const 30499)) "not the running fiber")
(invoke "actor" (i32.const 0))
(assert_trap (invoke "pump" (i32.const 0) (i32.const 3) (i32.const 39930)) "null fiber reference")
(invoke "actor" (i32.const 0))
(assert_trap (invoke "pump" (i32.const 0) (i32.const 3) (i32.const 39903)) "fiber is moribund")
(invoke "actor" (i32.const 0))
(assert_trap (invoke "pump" (i32.const 0) (i32.const 3) (i32.const 39904)) "fiber is moribund")
(invoke "actor" (i32.const 0))
(assert_trap (invoke "pump" (i32.const 0) (i32.const 3) (i32.const 39999)) "fiber is active")
(assert_trap (invoke "resume" (i32.const 0) (i32.const 1)) "fiber is moribund")

;; ---- fiber.retire --------------------------------------------------------------
(invoke "actor" (i32.const 0))
(assert_trap (invoke "pump" (i32.const 0) (i32.const 3) (i32.const 40100)) "not the running fiber")
(invoke "actor" (i32.const 0))
(assert_trap (invoke "pump" (i32.const 0) (i32.const 3) (i32.const 43000)) "not the running fiber")
(invoke "actor" (i32.const 0))
(assert_trap (invoke "pump" (i32.const 0) (i32.const 3) (i32.const 40400)) "not the running fiber")
(invoke "actor" (i32.const 0))
(assert_trap (invoke "pump" (i32.const 0) (i32.const 3) (i32.const 40300)) "not the running fiber")
(assert_trap (invoke "resume" (i32.const 0) (i32.const 1)) "fiber is moribund")

;; ---- fiber.release -------------------------------------------------------------
(invoke "actor" (i32.const 0))
(assert_trap (invoke "pump" (i32.const 0) (i32.const 3) (i32.const 50030)) "null fiber reference")
(invoke "actor" (i32.const 0))
(assert_trap (invoke "pump" (i32.const 0) (i32.const 3) (i32.const 50099)) "fiber is active")
(assert_trap (invoke "resume" (i32.const 0) (i32.const 1)) "fiber is moribund")
;; a moribund or stale target: no effect — in particular not on table[5],
;; which holds the stale handle's slot now
(invoke "actor" (i32.const 0))
(assert_return (invoke "pump" (i32.const 0) (i32.const 3) (i32.const 50003)) (i32.const 3))
(assert_return (invoke "resume" (i32.const 0) (i32.const 50004)) (i32.const 3))
(assert_return (invoke "resume" (i32.const 0) (i32.const 50004)) (i32.const 3))
;; the waiting parent: table[6] resumes table[0] (its child from now on),
;; which releases table[6]
(invoke "actor" (i32.const 6))
(invoke "fwd" (i32.const 50006))
(assert_trap (invoke "pump" (i32.const 6) (i32.const 3) (i32.const 60000)) "fiber is active")
(assert_trap (invoke "resume" (i32.const 6) (i32.const 1)) "fiber is moribund")
(assert_trap (invoke "resume" (i32.const 0) (i32.const 1)) "fiber is moribund")

;; None of the fibers named above was touched.
(assert_return (invoke "resume" (i32.const 1) (i32.const 0)) (i32.const 101007))
(assert_return (invoke "resume" (i32.const 2) (i32.const 0)) (i32.const 101004))
(assert_return (invoke "resume" (i32.const 5) (i32.const 0)) (i32.const 101004))
(assert_trap (invoke "resume" (i32.const 3) (i32.const 1)) "fiber is moribund")
(assert_trap (invoke "resume" (i32.const 4) (i32.const 1)) "fiber is moribund")
