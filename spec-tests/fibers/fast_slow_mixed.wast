;; Mixed sequences of the fast and the slow path (docs/fibers.md §6.3–§6.8).
;; The fast path (fiber.resume of a started, suspended fiber; fiber.suspend to
;; the parent; dispatch on arrival) and the slow path (fresh fibers, spawn,
;; suspend_to, switch, retireto, release) share one saved-context layout: a
;; fiber suspended by either path can be resumed by either path, and the
;; bookkeeping (parents, descendants, chain) stays right across them.
;;
;; Modules:
;; 1. transitions: suspend → suspend_to, switch → resume, suspend → switch,
;;    suspend_to-pop → resume (of a fiber stopped at a fiber.resume), suspend →
;;    retireto, release after fast round trips, spawn → resume, re-parenting by
;;    the fast path and the descendants rule, a three-level pipeline;
;; 2. event payloads of 0, 1, 2, 3 and 8 values through every path;
;; 3. fiber results (several values) after fast round trips, also through a
;;    switch;
;; 4. state that must survive a switch: locals and operands below a handle in
;;    both contexts, and linear memory (and a table) grown while the other
;;    side was suspended.

(module
  (type $g (fiber (result i32)))
  (tag $go (param i32))
  (tag $tick (param i32))
  (tag $up (param i32))
  (table $t 32 (ref null $g))
  (memory 1)  ;; relay[k] at 4k: what action 4000+k sends to table[k]

  (global $log (mut i64) (i64.const 0))
  (func $log (param $d i32)
    (global.set $log (i64.add (i64.mul (global.get $log) (i64.const 10)) (i64.extend_i32_u (local.get $d)))))
  (func (export "log") (result i64)
    (global.get $log)
    (global.set $log (i64.const 0)))

  ;; A worker's life: n accumulates; every event it receives is $go(x) (each
  ;; arrival logs its id):
  ;;   x = 0         return n + 1000
  ;;   x < 100       n += x
  ;;   1000 + k      n += 1; fiber.switch to table[k] with $go(n)
  ;;   2000 + k      n += 1; fiber.suspend_to table[k] with $up(n); if table[k]
  ;;                 returns r (it was not an ancestor): n += r
  ;;   3000 + k      n += 1; fiber.retireto table[k] with $go(n)
  ;;   4000 + k      n += 1; fiber.resume table[k] with $go(relay[k]); its
  ;;                 $tick(v) or $up(v) or its result v: n += v
  ;; and then, except after a switch or retireto, it suspends (fiber.suspend,
  ;; the fast path) with $tick(n). A $go arriving at any of its suspension
  ;; points starts the next step.
  (func $body (param $self (ref $g)) (param $id i32) (param $x i32) (result i32)
    (local $n i32) (local $k i32)
    (loop $l
      (call $log (local.get $id))
      (if (i32.eqz (local.get $x)) (then (return (i32.add (local.get $n) (i32.const 1000)))))
      (block $tick
        (if (i32.lt_u (local.get $x) (i32.const 100))
          (then
            (local.set $n (i32.add (local.get $n) (local.get $x)))
            (br $tick)))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (local.set $k (i32.rem_u (local.get $x) (i32.const 1000)))
        (block $a4
          (block $a3
            (block $a2
              (block $a1
                (br_table $a1 $a2 $a3 $a4 $tick
                  (i32.sub (i32.div_u (local.get $x) (i32.const 1000)) (i32.const 1))))
              (handle
                (fiber.switch $g $go (local.get $self) (table.get $t (local.get $k)) (local.get $n))
                (event $go (param i32) (local.set $x) (br $l)))
              (unreachable))
            (handle
              (local.set $n (i32.add (local.get $n)
                (fiber.suspend_to $g $up (table.get $t (local.get $k)) (local.get $n))))
              (event $go (param i32) (local.set $x) (br $l))
              (event $tick (param i32) (local.set $n (i32.add (local.get $n)))))
            (br $tick))
          (fiber.retireto $g $go (local.get $self) (table.get $t (local.get $k)) (local.get $n)))
        (handle
          (local.set $n (i32.add (local.get $n)
            (fiber.resume $g $go (table.get $t (local.get $k))
              (i32.load (i32.shl (local.get $k) (i32.const 2))))))
          (event $tick (param i32) (local.set $n (i32.add (local.get $n))))
          (event $up (param i32) (local.set $n (i32.add (local.get $n))))
          (event $go (param i32) (local.set $x) (br $l))))
      (handle
        (fiber.suspend $tick (local.get $self) (local.get $n))
        (event $go (param i32) (local.set $x)))
      (br $l))
    (unreachable))
  (func $w (param $self (ref $g)) (param $id i32) (result i32)
    (local $x i32)
    (unreachable)
    (event $go (param i32)
      (local.set $x)
      (call $body (local.get $self) (local.get $id) (local.get $x))))
  ;; The same, started by fiber.spawn.
  (func $sw (param $self (ref $g)) (param $id i32) (param $x i32) (result i32)
    (table.set $t (local.get $id) (local.get $self))
    (call $body (local.get $self) (local.get $id) (local.get $x)))

  (func (export "w") (param $id i32) (table.set $t (local.get $id) (fiber.new $w (local.get $id))))
  (func (export "relay") (param $k i32) (param $v i32)
    (i32.store (i32.shl (local.get $k) (i32.const 2)) (local.get $v)))
  (func (export "release") (param $k i32) (fiber.release (table.get $t (local.get $k))))
  ;; The root's three ways in. Each returns $tick(v) → v, $up(v) → 200000 + v,
  ;; a result r → 100000 + r.
  (func (export "resume") (param $k i32) (param $x i32) (result i32)
    (handle (result i32)
      (fiber.resume $g $go (table.get $t (local.get $k)) (local.get $x))
      (i32.add (i32.const 100000))
      (event $tick (param i32))
      (event $up (param i32) (i32.add (i32.const 200000)))))
  (func (export "suspend_to") (param $k i32) (param $x i32) (result i32)
    (handle (result i32)
      (fiber.suspend_to $g $go (table.get $t (local.get $k)) (local.get $x))
      (i32.add (i32.const 100000))
      (event $tick (param i32))
      (event $up (param i32) (i32.add (i32.const 200000)))))
  (func (export "spawn") (param $id i32) (param $x i32) (result i32)
    (handle (result i32)
      (fiber.spawn $sw (local.get $id) (local.get $x))
      (i32.add (i32.const 100000))
      (event $tick (param i32))
      (event $up (param i32) (i32.add (i32.const 200000)))))
)

;; Suspended by fiber.suspend, resumed by the root's fiber.suspend_to (the
;; slow path's "like resume"), and back; the return arrives at suspend_to.
(invoke "w" (i32.const 1))
(assert_return (invoke "resume" (i32.const 1) (i32.const 5)) (i32.const 5))
(assert_return (invoke "resume" (i32.const 1) (i32.const 1)) (i32.const 6))
(assert_return (invoke "suspend_to" (i32.const 1) (i32.const 2)) (i32.const 8))
(assert_return (invoke "resume" (i32.const 1) (i32.const 1)) (i32.const 9))
(assert_return (invoke "suspend_to" (i32.const 1) (i32.const 3)) (i32.const 12))
(assert_return (invoke "suspend_to" (i32.const 1) (i32.const 0)) (i32.const 101012))
(assert_trap (invoke "resume" (i32.const 1) (i32.const 1)) "fiber is moribund")
(assert_return (invoke "log") (i64.const 111111))

;; table[3] is table[4]'s suspended child; table[2] switches to it (slow), so
;; it takes table[2]'s place as the root's child and its fast suspend goes to
;; the root. table[4] returns without releasing it. table[2], stopped at its
;; switch, is resumed by plain fiber.resume.
(invoke "w" (i32.const 2))
(invoke "w" (i32.const 3))
(invoke "w" (i32.const 4))
(invoke "relay" (i32.const 3) (i32.const 3))
(assert_return (invoke "resume" (i32.const 2) (i32.const 1)) (i32.const 1))
(assert_return (invoke "resume" (i32.const 3) (i32.const 2)) (i32.const 2))
(assert_return (invoke "resume" (i32.const 4) (i32.const 4003)) (i32.const 6))
(assert_return (invoke "resume" (i32.const 2) (i32.const 1003)) (i32.const 7))
(assert_return (invoke "resume" (i32.const 4) (i32.const 0)) (i32.const 101006))
(assert_return (invoke "resume" (i32.const 3) (i32.const 1)) (i32.const 8))
(assert_return (invoke "resume" (i32.const 2) (i32.const 1)) (i32.const 3))
(assert_return (invoke "resume" (i32.const 2) (i32.const 1)) (i32.const 4))
(assert_return (invoke "resume" (i32.const 3) (i32.const 0)) (i32.const 101008))
(assert_return (invoke "resume" (i32.const 2) (i32.const 0)) (i32.const 101004))
(assert_return (invoke "log") (i64.const 234323432232))

;; root → table[5] → table[6] → table[7]; table[7] suspends to table[5] (an
;; ancestor: the pop leaves table[6] suspended at its fiber.resume and
;; table[7] at its suspend_to). The root resumes both directly on the fast
;; path (they become its children); table[5] returns without releasing them.
(invoke "w" (i32.const 5))
(invoke "w" (i32.const 6))
(invoke "w" (i32.const 7))
(invoke "relay" (i32.const 6) (i32.const 4007))
(invoke "relay" (i32.const 7) (i32.const 2005))
(assert_return (invoke "resume" (i32.const 5) (i32.const 4006)) (i32.const 2))
(assert_return (invoke "resume" (i32.const 6) (i32.const 3)) (i32.const 4))
(assert_return (invoke "resume" (i32.const 7) (i32.const 5)) (i32.const 6))
(assert_return (invoke "resume" (i32.const 6) (i32.const 1)) (i32.const 5))
(assert_return (invoke "resume" (i32.const 5) (i32.const 0)) (i32.const 101002))
(assert_return (invoke "resume" (i32.const 6) (i32.const 0)) (i32.const 101005))
(assert_return (invoke "resume" (i32.const 7) (i32.const 0)) (i32.const 101006))
(assert_return (invoke "log") (i64.const 567676567))

;; fiber.retireto a fiber suspended by the fast path: it takes the retiring
;; fiber's place and its fast suspend reaches the root.
(invoke "w" (i32.const 8))
(invoke "w" (i32.const 9))
(assert_return (invoke "resume" (i32.const 8) (i32.const 5)) (i32.const 5))
(assert_return (invoke "resume" (i32.const 8) (i32.const 1)) (i32.const 6))
(assert_return (invoke "resume" (i32.const 9) (i32.const 3008)) (i32.const 7))
(assert_trap (invoke "resume" (i32.const 9) (i32.const 1)) "fiber is moribund")
(assert_return (invoke "resume" (i32.const 8) (i32.const 1)) (i32.const 8))
(assert_return (invoke "resume" (i32.const 8) (i32.const 0)) (i32.const 101008))
;; ... and its own suspended child (made by the fast path), which is detached
;; before the retiring fiber's descendants are released.
(invoke "w" (i32.const 10))
(invoke "w" (i32.const 11))
(invoke "relay" (i32.const 11) (i32.const 2))
(assert_return (invoke "resume" (i32.const 10) (i32.const 4011)) (i32.const 3))
(assert_return (invoke "resume" (i32.const 10) (i32.const 4011)) (i32.const 8))
(assert_return (invoke "resume" (i32.const 10) (i32.const 3011)) (i32.const 13))
(assert_return (invoke "resume" (i32.const 11) (i32.const 0)) (i32.const 101013))
(assert_trap (invoke "resume" (i32.const 10) (i32.const 1)) "fiber is moribund")

;; fiber.release after fast round trips releases the fast-made child too.
(invoke "w" (i32.const 12))
(invoke "w" (i32.const 13))
(invoke "relay" (i32.const 13) (i32.const 7))
(assert_return (invoke "resume" (i32.const 12) (i32.const 4013)) (i32.const 8))
(assert_return (invoke "resume" (i32.const 12) (i32.const 1)) (i32.const 9))
(invoke "release" (i32.const 12))
(assert_trap (invoke "resume" (i32.const 13) (i32.const 1)) "fiber is moribund")
(assert_trap (invoke "resume" (i32.const 12) (i32.const 1)) "fiber is moribund")

;; A spawned fiber's first suspension reaches the spawn; then it is resumed on
;; the fast path and returns at the resume.
(assert_return (invoke "spawn" (i32.const 14) (i32.const 5)) (i32.const 5))
(assert_return (invoke "resume" (i32.const 14) (i32.const 1)) (i32.const 6))
(assert_return (invoke "resume" (i32.const 14) (i32.const 1)) (i32.const 7))
(assert_return (invoke "suspend_to" (i32.const 14) (i32.const 1)) (i32.const 8))
(assert_return (invoke "resume" (i32.const 14) (i32.const 0)) (i32.const 101008))
(assert_return (invoke "spawn" (i32.const 14) (i32.const 0)) (i32.const 101000))

;; Re-parenting by the fast path decides what a returning parent releases:
;; table[15], made table[16]'s child and then resumed by the root, survives
;; table[16]'s return; table[17], left as table[18]'s child, does not.
(invoke "w" (i32.const 15))
(invoke "w" (i32.const 16))
(invoke "relay" (i32.const 15) (i32.const 2))
(assert_return (invoke "resume" (i32.const 15) (i32.const 1)) (i32.const 1))
(assert_return (invoke "resume" (i32.const 16) (i32.const 4015)) (i32.const 4))
(assert_return (invoke "resume" (i32.const 15) (i32.const 1)) (i32.const 4))
(assert_return (invoke "resume" (i32.const 16) (i32.const 0)) (i32.const 101004))
(assert_return (invoke "resume" (i32.const 15) (i32.const 0)) (i32.const 101004))
(invoke "w" (i32.const 17))
(invoke "w" (i32.const 18))
(invoke "relay" (i32.const 17) (i32.const 2))
(assert_return (invoke "resume" (i32.const 17) (i32.const 1)) (i32.const 1))
(assert_return (invoke "resume" (i32.const 18) (i32.const 4017)) (i32.const 4))
(assert_return (invoke "resume" (i32.const 18) (i32.const 4017)) (i32.const 10))
(assert_return (invoke "resume" (i32.const 18) (i32.const 0)) (i32.const 101010))
(assert_trap (invoke "resume" (i32.const 17) (i32.const 1)) "fiber is moribund")

;; A pipeline root → table[19] → table[20] → table[21], every level resumed
;; by its parent (fast after the first time) and suspending to it (fast).
(invoke "w" (i32.const 19))
(invoke "w" (i32.const 20))
(invoke "w" (i32.const 21))
(invoke "relay" (i32.const 20) (i32.const 4021))
(invoke "relay" (i32.const 21) (i32.const 1))
(assert_return (invoke "resume" (i32.const 19) (i32.const 4020)) (i32.const 3))
(assert_return (invoke "resume" (i32.const 19) (i32.const 4020)) (i32.const 9))
(assert_return (invoke "resume" (i32.const 19) (i32.const 4020)) (i32.const 19))
(assert_return (invoke "resume" (i32.const 19) (i32.const 4020)) (i32.const 34))
(assert_return (invoke "resume" (i32.const 19) (i32.const 0)) (i32.const 101034))
(assert_trap (invoke "resume" (i32.const 20) (i32.const 1)) "fiber is moribund")
(assert_trap (invoke "resume" (i32.const 21) (i32.const 1)) "fiber is moribund")

;; Event payloads of 0, 1, 2, 3 and 8 values of every numeric and reference
;; type (NaNs with payloads, signalling NaNs, -0, extreme integers, non-null
;; and null externref and fiber references), bounced off fibers by each way of
;; switching: the fast path both ways, suspend_to an ancestor, switch, and
;; suspend_to or resume of a suspended fiber by the root. Every value must
;; arrive bit for bit. A fiber reference that made the trip is still the same
;; fiber: resuming it continues the probe fiber.
(module
  (type $g (fiber (result i32)))
  (tag $start)
  (tag $stop)
  (tag $p0)
  (tag $p1 (param i32))
  (tag $p2 (param i64 f32))
  (tag $p3 (param f64 externref (ref null $g)))
  (tag $p8 (param i32 i64 f32 f64 externref (ref null $g) f32 f64))
  (table $t 8 (ref null $g))
  (global $back (mut (ref null $g)) (ref.null $g))  ;; where mode 1 sends replies
  (global $peer (mut (ref null $g)) (ref.null $g))  ;; where mode 2 switches to
  (global $target (mut (ref null $g)) (ref.null $g))  ;; what mode 3 resumes

  ;; A bouncer: started with $start, it suspends with $p0 ("ready"); then each
  ;; payload event it receives is sent on, with the same tag and values, by
  ;;   mode 0: fiber.suspend to its parent (the fast path);
  ;;   mode 1: fiber.suspend_to $back, its waiting parent (slow path);
  ;;   mode 2: fiber.switch to $peer (slow), which sends it on to the parent;
  ;;   mode 3: fiber.resume of $target (the fast path once $target started);
  ;;           the reply arrives at that resume and goes to the parent by
  ;;           fiber.suspend.
  ;; $stop returns 77.
  (func $bouncer (param $self (ref $g)) (param $mode i32) (result i32)
    (local $which i32) (local $plain i32) (local $m i32)
    (local $a i32) (local $b i64) (local $c f32) (local $d f64) (local $e externref)
    (local $r (ref null $g)) (local $c2 f32) (local $d2 f64)
    (unreachable)
    (event $start
      (local.set $which (i32.const 5))
      (loop $l
        ;; a reply received in mode 3 goes to the parent by fiber.suspend
        (local.set $m (select (i32.const 0) (local.get $mode) (local.get $plain)))
        (local.set $plain (i32.const 0))
        (handle
          (block $ready (block $s4 (block $s3 (block $s2 (block $s1 (block $s0
            (br_table $s0 $s1 $s2 $s3 $s4 $ready (local.get $which)))
            ;; $p0
            (if (i32.eq (local.get $m) (i32.const 1))
              (then
                (drop (fiber.suspend_to $g $p0 (global.get $back)))
                (unreachable)))
            (if (i32.eq (local.get $m) (i32.const 2))
              (then
                (fiber.switch $g $p0 (local.get $self) (global.get $peer))))
            (if (i32.eq (local.get $m) (i32.const 3))
              (then
                (handle
                  (drop (fiber.resume $g $p0 (global.get $target)))
                  (unreachable)
                  (event $p0 (local.set $which (i32.const 0)) (local.set $plain (i32.const 1)))
                  (event $p1 (param i32)
                    (local.set $a) (local.set $which (i32.const 1)) (local.set $plain (i32.const 1)))
                  (event $p2 (param i64 f32)
                    (local.set $c) (local.set $b) (local.set $which (i32.const 2))
                    (local.set $plain (i32.const 1)))
                  (event $p3 (param f64 externref (ref null $g))
                    (local.set $r) (local.set $e) (local.set $d) (local.set $which (i32.const 3))
                    (local.set $plain (i32.const 1)))
                  (event $p8 (param i32 i64 f32 f64 externref (ref null $g) f32 f64)
                    (local.set $d2) (local.set $c2) (local.set $r) (local.set $e) (local.set $d)
                    (local.set $c) (local.set $b) (local.set $a) (local.set $which (i32.const 4))
                    (local.set $plain (i32.const 1))))
                (br $l)))
            (fiber.suspend $p0 (local.get $self)))
            ;; $p1
            (if (i32.eq (local.get $m) (i32.const 1))
              (then
                (drop (fiber.suspend_to $g $p1 (global.get $back) (local.get $a)))
                (unreachable)))
            (if (i32.eq (local.get $m) (i32.const 2))
              (then
                (fiber.switch $g $p1 (local.get $self) (global.get $peer) (local.get $a))))
            (if (i32.eq (local.get $m) (i32.const 3))
              (then
                (handle
                  (drop (fiber.resume $g $p1 (global.get $target) (local.get $a)))
                  (unreachable)
                  (event $p0 (local.set $which (i32.const 0)) (local.set $plain (i32.const 1)))
                  (event $p1 (param i32)
                    (local.set $a) (local.set $which (i32.const 1)) (local.set $plain (i32.const 1)))
                  (event $p2 (param i64 f32)
                    (local.set $c) (local.set $b) (local.set $which (i32.const 2))
                    (local.set $plain (i32.const 1)))
                  (event $p3 (param f64 externref (ref null $g))
                    (local.set $r) (local.set $e) (local.set $d) (local.set $which (i32.const 3))
                    (local.set $plain (i32.const 1)))
                  (event $p8 (param i32 i64 f32 f64 externref (ref null $g) f32 f64)
                    (local.set $d2) (local.set $c2) (local.set $r) (local.set $e) (local.set $d)
                    (local.set $c) (local.set $b) (local.set $a) (local.set $which (i32.const 4))
                    (local.set $plain (i32.const 1))))
                (br $l)))
            (fiber.suspend $p1 (local.get $self) (local.get $a)))
            ;; $p2
            (if (i32.eq (local.get $m) (i32.const 1))
              (then
                (drop (fiber.suspend_to $g $p2 (global.get $back) (local.get $b) (local.get $c)))
                (unreachable)))
            (if (i32.eq (local.get $m) (i32.const 2))
              (then
                (fiber.switch $g $p2 (local.get $self) (global.get $peer)
                  (local.get $b) (local.get $c))))
            (if (i32.eq (local.get $m) (i32.const 3))
              (then
                (handle
                  (drop (fiber.resume $g $p2 (global.get $target) (local.get $b) (local.get $c)))
                  (unreachable)
                  (event $p0 (local.set $which (i32.const 0)) (local.set $plain (i32.const 1)))
                  (event $p1 (param i32)
                    (local.set $a) (local.set $which (i32.const 1)) (local.set $plain (i32.const 1)))
                  (event $p2 (param i64 f32)
                    (local.set $c) (local.set $b) (local.set $which (i32.const 2))
                    (local.set $plain (i32.const 1)))
                  (event $p3 (param f64 externref (ref null $g))
                    (local.set $r) (local.set $e) (local.set $d) (local.set $which (i32.const 3))
                    (local.set $plain (i32.const 1)))
                  (event $p8 (param i32 i64 f32 f64 externref (ref null $g) f32 f64)
                    (local.set $d2) (local.set $c2) (local.set $r) (local.set $e) (local.set $d)
                    (local.set $c) (local.set $b) (local.set $a) (local.set $which (i32.const 4))
                    (local.set $plain (i32.const 1))))
                (br $l)))
            (fiber.suspend $p2 (local.get $self) (local.get $b) (local.get $c)))
            ;; $p3
            (if (i32.eq (local.get $m) (i32.const 1))
              (then
                (drop (fiber.suspend_to $g $p3 (global.get $back)
                  (local.get $d) (local.get $e) (local.get $r)))
                (unreachable)))
            (if (i32.eq (local.get $m) (i32.const 2))
              (then
                (fiber.switch $g $p3 (local.get $self) (global.get $peer)
                  (local.get $d) (local.get $e) (local.get $r))))
            (if (i32.eq (local.get $m) (i32.const 3))
              (then
                (handle
                  (drop (fiber.resume $g $p3 (global.get $target)
                    (local.get $d) (local.get $e) (local.get $r)))
                  (unreachable)
                  (event $p0 (local.set $which (i32.const 0)) (local.set $plain (i32.const 1)))
                  (event $p1 (param i32)
                    (local.set $a) (local.set $which (i32.const 1)) (local.set $plain (i32.const 1)))
                  (event $p2 (param i64 f32)
                    (local.set $c) (local.set $b) (local.set $which (i32.const 2))
                    (local.set $plain (i32.const 1)))
                  (event $p3 (param f64 externref (ref null $g))
                    (local.set $r) (local.set $e) (local.set $d) (local.set $which (i32.const 3))
                    (local.set $plain (i32.const 1)))
                  (event $p8 (param i32 i64 f32 f64 externref (ref null $g) f32 f64)
                    (local.set $d2) (local.set $c2) (local.set $r) (local.set $e) (local.set $d)
                    (local.set $c) (local.set $b) (local.set $a) (local.set $which (i32.const 4))
                    (local.set $plain (i32.const 1))))
                (br $l)))
            (fiber.suspend $p3 (local.get $self) (local.get $d) (local.get $e) (local.get $r)))
            ;; $p8
            (if (i32.eq (local.get $m) (i32.const 1))
              (then
                (drop (fiber.suspend_to $g $p8 (global.get $back)
                  (local.get $a) (local.get $b) (local.get $c) (local.get $d) (local.get $e)
                  (local.get $r) (local.get $c2) (local.get $d2)))
                (unreachable)))
            (if (i32.eq (local.get $m) (i32.const 2))
              (then
                (fiber.switch $g $p8 (local.get $self) (global.get $peer)
                  (local.get $a) (local.get $b) (local.get $c) (local.get $d) (local.get $e)
                  (local.get $r) (local.get $c2) (local.get $d2))))
            (if (i32.eq (local.get $m) (i32.const 3))
              (then
                (handle
                  (drop (fiber.resume $g $p8 (global.get $target)
                    (local.get $a) (local.get $b) (local.get $c) (local.get $d) (local.get $e)
                    (local.get $r) (local.get $c2) (local.get $d2)))
                  (unreachable)
                  (event $p0 (local.set $which (i32.const 0)) (local.set $plain (i32.const 1)))
                  (event $p1 (param i32)
                    (local.set $a) (local.set $which (i32.const 1)) (local.set $plain (i32.const 1)))
                  (event $p2 (param i64 f32)
                    (local.set $c) (local.set $b) (local.set $which (i32.const 2))
                    (local.set $plain (i32.const 1)))
                  (event $p3 (param f64 externref (ref null $g))
                    (local.set $r) (local.set $e) (local.set $d) (local.set $which (i32.const 3))
                    (local.set $plain (i32.const 1)))
                  (event $p8 (param i32 i64 f32 f64 externref (ref null $g) f32 f64)
                    (local.set $d2) (local.set $c2) (local.set $r) (local.set $e) (local.set $d)
                    (local.set $c) (local.set $b) (local.set $a) (local.set $which (i32.const 4))
                    (local.set $plain (i32.const 1))))
                (br $l)))
            (fiber.suspend $p8 (local.get $self)
              (local.get $a) (local.get $b) (local.get $c) (local.get $d) (local.get $e)
              (local.get $r) (local.get $c2) (local.get $d2)))
          ;; ready
          (fiber.suspend $p0 (local.get $self))
          (event $p0 (local.set $which (i32.const 0)) (br $l))
          (event $p1 (param i32) (local.set $a) (local.set $which (i32.const 1)) (br $l))
          (event $p2 (param i64 f32)
            (local.set $c) (local.set $b) (local.set $which (i32.const 2)) (br $l))
          (event $p3 (param f64 externref (ref null $g))
            (local.set $r) (local.set $e) (local.set $d) (local.set $which (i32.const 3)) (br $l))
          (event $p8 (param i32 i64 f32 f64 externref (ref null $g) f32 f64)
            (local.set $d2) (local.set $c2) (local.set $r) (local.set $e) (local.set $d)
            (local.set $c) (local.set $b) (local.set $a) (local.set $which (i32.const 4)) (br $l))
          (event $stop (return (i32.const 77)))))
      (unreachable)))

  ;; The probe: a counter whose reference travels in the payloads.
  (func $probe (param $self (ref $g)) (result i32)
    (local $n i32)
    (unreachable)
    (event $start
      (loop $l
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (handle
          (fiber.suspend $p1 (local.get $self) (local.get $n))
          (event $start (br $l))))
      (unreachable)))
  (func $probe-tick (param $f (ref null $g)) (result i32)
    (if (result i32) (ref.is_null (local.get $f))
      (then (i32.const -1))
      (else
        (handle (result i32)
          (fiber.resume $g $start (local.get $f))
          (event $p1 (param i32))))))

  ;; table[0]: the probe; table[1..]: bouncers.
  (func (export "init") (param $m1 i32) (param $m2 i32) (param $m3 i32)
    (table.set $t (i32.const 0) (fiber.new $probe))
    (table.set $t (i32.const 1) (fiber.new $bouncer (local.get $m1)))
    (table.set $t (i32.const 2) (fiber.new $bouncer (local.get $m2)))
    (table.set $t (i32.const 3) (fiber.new $bouncer (local.get $m3))))
  (func (export "set") (param $back i32) (param $peer i32) (param $target i32)
    (global.set $back (table.get $t (local.get $back)))
    (global.set $peer (table.get $t (local.get $peer)))
    (global.set $target (table.get $t (local.get $target))))
  ;; Starts table[i]: its $p0 ("ready") arrives here.
  (func (export "start") (param $i i32) (result i32)
    (handle (result i32)
      (fiber.resume $g $start (table.get $t (local.get $i)))
      (drop) (i32.const -1)
      (event $p0 (i32.const 1))))
  (func (export "stop") (param $i i32) (result i32)
    (fiber.resume $g $stop (table.get $t (local.get $i))))
  (func (export "probe") (result i32) (call $probe-tick (table.get $t (i32.const 0))))

  (func (export "p0") (param i32)
    (result i32)
    (handle
      (drop (fiber.resume $g $p0 (table.get $t (local.get 0))))
      (unreachable)
      (event $p0))
    (i32.const 1))
  (func (export "p1") (param i32 i32)
    (result i32)
    (local $a i32)
    (handle
      (drop (fiber.resume $g $p1 (table.get $t (local.get 0)) (local.get 1)))
      (unreachable)
      (event $p1 (param i32) (local.set $a)))
    (local.get $a))
  (func (export "p2") (param i32 i64 f32)
    (result i64 f32)
    (local $b i64) (local $c f32)
    (handle
      (drop (fiber.resume $g $p2 (table.get $t (local.get 0)) (local.get 1) (local.get 2)))
      (unreachable)
      (event $p2 (param i64 f32) (local.set $c) (local.set $b)))
    (local.get $b) (local.get $c))
  (func (export "p3") (param i32 f64 externref i32)
    (result f64 externref i32)
    (local $d f64) (local $e externref) (local $r (ref null $g))
    (handle
      (drop (fiber.resume $g $p3 (table.get $t (local.get 0))
        (local.get 1) (local.get 2)
        (select (result (ref null $g)) (table.get $t (i32.const 0)) (ref.null $g) (local.get 3))))
      (unreachable)
      (event $p3 (param f64 externref (ref null $g)) (local.set $r) (local.set $e) (local.set $d)))
    (local.get $d) (local.get $e) (call $probe-tick (local.get $r)))
  (func (export "p8") (param i32 i32 i64 f32 f64 externref i32 f32 f64)
    (result i32 i64 f32 f64 externref i32 f32 f64)
    (local $a i32) (local $b i64) (local $c f32) (local $c2 f32) (local $d f64) (local $d2 f64)
    (local $e externref) (local $r (ref null $g))
    (handle
      (drop (fiber.resume $g $p8 (table.get $t (local.get 0))
        (local.get 1) (local.get 2) (local.get 3) (local.get 4) (local.get 5)
        (select (result (ref null $g)) (table.get $t (i32.const 0)) (ref.null $g) (local.get 6))
        (local.get 7) (local.get 8)))
      (unreachable)
      (event $p8 (param i32 i64 f32 f64 externref (ref null $g) f32 f64)
        (local.set $d2) (local.set $c2) (local.set $r) (local.set $e) (local.set $d)
        (local.set $c) (local.set $b) (local.set $a)))
    (local.get $a) (local.get $b) (local.get $c) (local.get $d) (local.get $e)
    (call $probe-tick (local.get $r)) (local.get $c2) (local.get $d2))
  (func (export "p0-st") (param i32)
    (result i32)
    (handle
      (drop (fiber.suspend_to $g $p0 (table.get $t (local.get 0))))
      (unreachable)
      (event $p0))
    (i32.const 1))
  (func (export "p1-st") (param i32 i32)
    (result i32)
    (local $a i32)
    (handle
      (drop (fiber.suspend_to $g $p1 (table.get $t (local.get 0)) (local.get 1)))
      (unreachable)
      (event $p1 (param i32) (local.set $a)))
    (local.get $a))
  (func (export "p2-st") (param i32 i64 f32)
    (result i64 f32)
    (local $b i64) (local $c f32)
    (handle
      (drop (fiber.suspend_to $g $p2 (table.get $t (local.get 0)) (local.get 1) (local.get 2)))
      (unreachable)
      (event $p2 (param i64 f32) (local.set $c) (local.set $b)))
    (local.get $b) (local.get $c))
  (func (export "p3-st") (param i32 f64 externref i32)
    (result f64 externref i32)
    (local $d f64) (local $e externref) (local $r (ref null $g))
    (handle
      (drop (fiber.suspend_to $g $p3 (table.get $t (local.get 0))
        (local.get 1) (local.get 2)
        (select (result (ref null $g)) (table.get $t (i32.const 0)) (ref.null $g) (local.get 3))))
      (unreachable)
      (event $p3 (param f64 externref (ref null $g)) (local.set $r) (local.set $e) (local.set $d)))
    (local.get $d) (local.get $e) (call $probe-tick (local.get $r)))
  (func (export "p8-st") (param i32 i32 i64 f32 f64 externref i32 f32 f64)
    (result i32 i64 f32 f64 externref i32 f32 f64)
    (local $a i32) (local $b i64) (local $c f32) (local $c2 f32) (local $d f64) (local $d2 f64)
    (local $e externref) (local $r (ref null $g))
    (handle
      (drop (fiber.suspend_to $g $p8 (table.get $t (local.get 0))
        (local.get 1) (local.get 2) (local.get 3) (local.get 4) (local.get 5)
        (select (result (ref null $g)) (table.get $t (i32.const 0)) (ref.null $g) (local.get 6))
        (local.get 7) (local.get 8)))
      (unreachable)
      (event $p8 (param i32 i64 f32 f64 externref (ref null $g) f32 f64)
        (local.set $d2) (local.set $c2) (local.set $r) (local.set $e) (local.set $d)
        (local.set $c) (local.set $b) (local.set $a)))
    (local.get $a) (local.get $b) (local.get $c) (local.get $d) (local.get $e)
    (call $probe-tick (local.get $r)) (local.get $c2) (local.get $d2))
)
;; mode 0: the fast path both ways, then the root resumes with suspend_to
(invoke "init" (i32.const 0) (i32.const 2) (i32.const 0))
(assert_return (invoke "start" (i32.const 1)) (i32.const 1))
(assert_return (invoke "p0" (i32.const 1)) (i32.const 1))
(assert_return (invoke "p1" (i32.const 1) (i32.const -1)) (i32.const -1))
(assert_return (invoke "p1" (i32.const 1) (i32.const 0x80000000)) (i32.const 0x80000000))
(assert_return (invoke "p2" (i32.const 1) (i64.const 0x8000000000000001) (f32.const nan:0x200001))
  (i64.const 0x8000000000000001) (f32.const nan:0x200001))
(assert_return (invoke "p2" (i32.const 1) (i64.const -1) (f32.const -0x0p+0))
  (i64.const -1) (f32.const -0x0p+0))
(assert_return (invoke "p3" (i32.const 1) (f64.const nan:0x1) (ref.extern 42) (i32.const 1))
  (f64.const nan:0x1) (ref.extern 42) (i32.const 1))
(assert_return (invoke "p3" (i32.const 1) (f64.const -0x0p+0) (ref.null extern) (i32.const 0))
  (f64.const -0x0p+0) (ref.null extern) (i32.const -1))
(assert_return (invoke "p8" (i32.const 1)
    (i32.const 0x7fffffff) (i64.const -2) (f32.const -nan:0x1) (f64.const 0x1p-1074) (ref.extern 7)
    (i32.const 1) (f32.const inf) (f64.const -nan:0xfffffffffffff))
  (i32.const 0x7fffffff) (i64.const -2) (f32.const -nan:0x1) (f64.const 0x1p-1074) (ref.extern 7)
  (i32.const 2) (f32.const inf) (f64.const -nan:0xfffffffffffff))
(assert_return (invoke "p8" (i32.const 1)
    (i32.const 0) (i64.const 0x7fffffffffffffff) (f32.const 0x1p-149) (f64.const -inf) (ref.null extern)
    (i32.const 0) (f32.const -nan:0x400000) (f64.const 0x1.fffffffffffffp+1023))
  (i32.const 0) (i64.const 0x7fffffffffffffff) (f32.const 0x1p-149) (f64.const -inf) (ref.null extern)
  (i32.const -1) (f32.const -nan:0x400000) (f64.const 0x1.fffffffffffffp+1023))
(assert_return (invoke "p0-st" (i32.const 1)) (i32.const 1))
(assert_return (invoke "p1-st" (i32.const 1) (i32.const -1)) (i32.const -1))
(assert_return (invoke "p1-st" (i32.const 1) (i32.const 0x80000000)) (i32.const 0x80000000))
(assert_return (invoke "p2-st" (i32.const 1) (i64.const 0x8000000000000001) (f32.const nan:0x200001))
  (i64.const 0x8000000000000001) (f32.const nan:0x200001))
(assert_return (invoke "p2-st" (i32.const 1) (i64.const -1) (f32.const -0x0p+0))
  (i64.const -1) (f32.const -0x0p+0))
(assert_return (invoke "p3-st" (i32.const 1) (f64.const nan:0x1) (ref.extern 42) (i32.const 1))
  (f64.const nan:0x1) (ref.extern 42) (i32.const 3))
(assert_return (invoke "p3-st" (i32.const 1) (f64.const -0x0p+0) (ref.null extern) (i32.const 0))
  (f64.const -0x0p+0) (ref.null extern) (i32.const -1))
(assert_return (invoke "p8-st" (i32.const 1)
    (i32.const 0x7fffffff) (i64.const -2) (f32.const -nan:0x1) (f64.const 0x1p-1074) (ref.extern 7)
    (i32.const 1) (f32.const inf) (f64.const -nan:0xfffffffffffff))
  (i32.const 0x7fffffff) (i64.const -2) (f32.const -nan:0x1) (f64.const 0x1p-1074) (ref.extern 7)
  (i32.const 4) (f32.const inf) (f64.const -nan:0xfffffffffffff))
(assert_return (invoke "p8-st" (i32.const 1)
    (i32.const 0) (i64.const 0x7fffffffffffffff) (f32.const 0x1p-149) (f64.const -inf) (ref.null extern)
    (i32.const 0) (f32.const -nan:0x400000) (f64.const 0x1.fffffffffffffp+1023))
  (i32.const 0) (i64.const 0x7fffffffffffffff) (f32.const 0x1p-149) (f64.const -inf) (ref.null extern)
  (i32.const -1) (f32.const -nan:0x400000) (f64.const 0x1.fffffffffffffp+1023))
;; mode 2: the root resumes table[2] (fast, after the first time at its
;; switch), it switches to table[3] (slow), which suspends to the root (fast)
(invoke "set" (i32.const 0) (i32.const 3) (i32.const 0))
(assert_return (invoke "start" (i32.const 3)) (i32.const 1))
(assert_return (invoke "start" (i32.const 2)) (i32.const 1))
(assert_return (invoke "p0" (i32.const 2)) (i32.const 1))
(assert_return (invoke "p1" (i32.const 2) (i32.const -1)) (i32.const -1))
(assert_return (invoke "p1" (i32.const 2) (i32.const 0x80000000)) (i32.const 0x80000000))
(assert_return (invoke "p2" (i32.const 2) (i64.const 0x8000000000000001) (f32.const nan:0x200001))
  (i64.const 0x8000000000000001) (f32.const nan:0x200001))
(assert_return (invoke "p2" (i32.const 2) (i64.const -1) (f32.const -0x0p+0))
  (i64.const -1) (f32.const -0x0p+0))
(assert_return (invoke "p3" (i32.const 2) (f64.const nan:0x1) (ref.extern 42) (i32.const 1))
  (f64.const nan:0x1) (ref.extern 42) (i32.const 5))
(assert_return (invoke "p3" (i32.const 2) (f64.const -0x0p+0) (ref.null extern) (i32.const 0))
  (f64.const -0x0p+0) (ref.null extern) (i32.const -1))
(assert_return (invoke "p8" (i32.const 2)
    (i32.const 0x7fffffff) (i64.const -2) (f32.const -nan:0x1) (f64.const 0x1p-1074) (ref.extern 7)
    (i32.const 1) (f32.const inf) (f64.const -nan:0xfffffffffffff))
  (i32.const 0x7fffffff) (i64.const -2) (f32.const -nan:0x1) (f64.const 0x1p-1074) (ref.extern 7)
  (i32.const 6) (f32.const inf) (f64.const -nan:0xfffffffffffff))
(assert_return (invoke "p8" (i32.const 2)
    (i32.const 0) (i64.const 0x7fffffffffffffff) (f32.const 0x1p-149) (f64.const -inf) (ref.null extern)
    (i32.const 0) (f32.const -nan:0x400000) (f64.const 0x1.fffffffffffffp+1023))
  (i32.const 0) (i64.const 0x7fffffffffffffff) (f32.const 0x1p-149) (f64.const -inf) (ref.null extern)
  (i32.const -1) (f32.const -nan:0x400000) (f64.const 0x1.fffffffffffffp+1023))
(assert_return (invoke "p0-st" (i32.const 2)) (i32.const 1))
(assert_return (invoke "p1-st" (i32.const 2) (i32.const -1)) (i32.const -1))
(assert_return (invoke "p1-st" (i32.const 2) (i32.const 0x80000000)) (i32.const 0x80000000))
(assert_return (invoke "p2-st" (i32.const 2) (i64.const 0x8000000000000001) (f32.const nan:0x200001))
  (i64.const 0x8000000000000001) (f32.const nan:0x200001))
(assert_return (invoke "p2-st" (i32.const 2) (i64.const -1) (f32.const -0x0p+0))
  (i64.const -1) (f32.const -0x0p+0))
(assert_return (invoke "p3-st" (i32.const 2) (f64.const nan:0x1) (ref.extern 42) (i32.const 1))
  (f64.const nan:0x1) (ref.extern 42) (i32.const 7))
(assert_return (invoke "p3-st" (i32.const 2) (f64.const -0x0p+0) (ref.null extern) (i32.const 0))
  (f64.const -0x0p+0) (ref.null extern) (i32.const -1))
(assert_return (invoke "p8-st" (i32.const 2)
    (i32.const 0x7fffffff) (i64.const -2) (f32.const -nan:0x1) (f64.const 0x1p-1074) (ref.extern 7)
    (i32.const 1) (f32.const inf) (f64.const -nan:0xfffffffffffff))
  (i32.const 0x7fffffff) (i64.const -2) (f32.const -nan:0x1) (f64.const 0x1p-1074) (ref.extern 7)
  (i32.const 8) (f32.const inf) (f64.const -nan:0xfffffffffffff))
(assert_return (invoke "p8-st" (i32.const 2)
    (i32.const 0) (i64.const 0x7fffffffffffffff) (f32.const 0x1p-149) (f64.const -inf) (ref.null extern)
    (i32.const 0) (f32.const -nan:0x400000) (f64.const 0x1.fffffffffffffp+1023))
  (i32.const 0) (i64.const 0x7fffffffffffffff) (f32.const 0x1p-149) (f64.const -inf) (ref.null extern)
  (i32.const -1) (f32.const -nan:0x400000) (f64.const 0x1.fffffffffffffp+1023))
(assert_return (invoke "stop" (i32.const 2)) (i32.const 77))
(assert_return (invoke "stop" (i32.const 3)) (i32.const 77))
;; modes 3 and 1 (init makes a new probe): the root resumes the forwarder
;; table[1] (fast), which resumes table[2] (fast), which answers with
;; suspend_to its waiting parent (slow); the forwarder suspends the answer to
;; the root (fast)
(invoke "init" (i32.const 3) (i32.const 1) (i32.const 0))
(invoke "set" (i32.const 1) (i32.const 0) (i32.const 2))
(assert_return (invoke "start" (i32.const 2)) (i32.const 1))
(assert_return (invoke "start" (i32.const 1)) (i32.const 1))
(assert_return (invoke "p0" (i32.const 1)) (i32.const 1))
(assert_return (invoke "p1" (i32.const 1) (i32.const -1)) (i32.const -1))
(assert_return (invoke "p1" (i32.const 1) (i32.const 0x80000000)) (i32.const 0x80000000))
(assert_return (invoke "p2" (i32.const 1) (i64.const 0x8000000000000001) (f32.const nan:0x200001))
  (i64.const 0x8000000000000001) (f32.const nan:0x200001))
(assert_return (invoke "p2" (i32.const 1) (i64.const -1) (f32.const -0x0p+0))
  (i64.const -1) (f32.const -0x0p+0))
(assert_return (invoke "p3" (i32.const 1) (f64.const nan:0x1) (ref.extern 42) (i32.const 1))
  (f64.const nan:0x1) (ref.extern 42) (i32.const 1))
(assert_return (invoke "p3" (i32.const 1) (f64.const -0x0p+0) (ref.null extern) (i32.const 0))
  (f64.const -0x0p+0) (ref.null extern) (i32.const -1))
(assert_return (invoke "p8" (i32.const 1)
    (i32.const 0x7fffffff) (i64.const -2) (f32.const -nan:0x1) (f64.const 0x1p-1074) (ref.extern 7)
    (i32.const 1) (f32.const inf) (f64.const -nan:0xfffffffffffff))
  (i32.const 0x7fffffff) (i64.const -2) (f32.const -nan:0x1) (f64.const 0x1p-1074) (ref.extern 7)
  (i32.const 2) (f32.const inf) (f64.const -nan:0xfffffffffffff))
(assert_return (invoke "p8" (i32.const 1)
    (i32.const 0) (i64.const 0x7fffffffffffffff) (f32.const 0x1p-149) (f64.const -inf) (ref.null extern)
    (i32.const 0) (f32.const -nan:0x400000) (f64.const 0x1.fffffffffffffp+1023))
  (i32.const 0) (i64.const 0x7fffffffffffffff) (f32.const 0x1p-149) (f64.const -inf) (ref.null extern)
  (i32.const -1) (f32.const -nan:0x400000) (f64.const 0x1.fffffffffffffp+1023))
(assert_return (invoke "p0-st" (i32.const 1)) (i32.const 1))
(assert_return (invoke "p1-st" (i32.const 1) (i32.const -1)) (i32.const -1))
(assert_return (invoke "p1-st" (i32.const 1) (i32.const 0x80000000)) (i32.const 0x80000000))
(assert_return (invoke "p2-st" (i32.const 1) (i64.const 0x8000000000000001) (f32.const nan:0x200001))
  (i64.const 0x8000000000000001) (f32.const nan:0x200001))
(assert_return (invoke "p2-st" (i32.const 1) (i64.const -1) (f32.const -0x0p+0))
  (i64.const -1) (f32.const -0x0p+0))
(assert_return (invoke "p3-st" (i32.const 1) (f64.const nan:0x1) (ref.extern 42) (i32.const 1))
  (f64.const nan:0x1) (ref.extern 42) (i32.const 3))
(assert_return (invoke "p3-st" (i32.const 1) (f64.const -0x0p+0) (ref.null extern) (i32.const 0))
  (f64.const -0x0p+0) (ref.null extern) (i32.const -1))
(assert_return (invoke "p8-st" (i32.const 1)
    (i32.const 0x7fffffff) (i64.const -2) (f32.const -nan:0x1) (f64.const 0x1p-1074) (ref.extern 7)
    (i32.const 1) (f32.const inf) (f64.const -nan:0xfffffffffffff))
  (i32.const 0x7fffffff) (i64.const -2) (f32.const -nan:0x1) (f64.const 0x1p-1074) (ref.extern 7)
  (i32.const 4) (f32.const inf) (f64.const -nan:0xfffffffffffff))
(assert_return (invoke "p8-st" (i32.const 1)
    (i32.const 0) (i64.const 0x7fffffffffffffff) (f32.const 0x1p-149) (f64.const -inf) (ref.null extern)
    (i32.const 0) (f32.const -nan:0x400000) (f64.const 0x1.fffffffffffffp+1023))
  (i32.const 0) (i64.const 0x7fffffffffffffff) (f32.const 0x1p-149) (f64.const -inf) (ref.null extern)
  (i32.const -1) (f32.const -nan:0x400000) (f64.const 0x1.fffffffffffffp+1023))
;; table[2] is the forwarder's suspended child: released when it returns
(assert_return (invoke "stop" (i32.const 1)) (i32.const 77))
(assert_trap (invoke "stop" (i32.const 2)) "fiber is moribund")
(assert_return (invoke "probe") (i32.const 5))

;; Fiber results (five values of five types) after fast round trips, and
;; through a switch: table[j] returns at the root's resume of table[k], as if
;; table[k] had returned.
(module
  (type $h (fiber (result i32 i64 f32 f64 externref)))
  (tag $start)
  (tag $ack)
  (tag $set (param i32 i64 f32 f64 externref))
  (tag $finish)
  (tag $hand (param i32))
  (table $t 4 (ref null $h))

  ;; Keeps the values of the last $set (each answered by $ack, the fast path);
  ;; $finish returns them; $hand(j) switches to table[j] with $finish, from a
  ;; point without clauses in scope.
  (func $keeper (param $self (ref $h)) (result i32 i64 f32 f64 externref)
    (local $a i32) (local $b i64) (local $c f32) (local $d f64) (local $e externref)
    (unreachable)
    (event $start
      (loop $l
        (handle
          (fiber.suspend $ack (local.get $self))
          (event $set (param i32 i64 f32 f64 externref)
            (local.set $e) (local.set $d) (local.set $c) (local.set $b) (local.set $a)
            (br $l))
          (event $hand (param i32)
            (local.set $a)
            (fiber.switch $h $finish (local.get $self) (table.get $t (local.get $a))))
          (event $finish)))
      (local.get $a) (local.get $b) (local.get $c) (local.get $d) (local.get $e)))

  (func (export "new") (param $k i32)
    (table.set $t (local.get $k) (fiber.new $keeper))
    (handle
      (drop (drop (drop (drop (drop (fiber.resume $h $start (table.get $t (local.get $k))))))))
      (unreachable)
      (event $ack)))
  (func (export "set") (param $k i32) (param i32 i64 f32 f64 externref)
    (handle
      (drop (drop (drop (drop (drop
        (fiber.resume $h $set (table.get $t (local.get $k))
          (local.get 1) (local.get 2) (local.get 3) (local.get 4) (local.get 5)))))))
      (unreachable)
      (event $ack)))
  (func (export "finish") (param $k i32) (result i32 i64 f32 f64 externref)
    (handle (result i32 i64 f32 f64 externref)
      (fiber.resume $h $finish (table.get $t (local.get $k)))
      (event $ack (unreachable))))
  (func (export "hand") (param $k i32) (param $j i32) (result i32 i64 f32 f64 externref)
    (handle (result i32 i64 f32 f64 externref)
      (fiber.resume $h $hand (table.get $t (local.get $k)) (local.get $j))
      (event $ack (unreachable))))
)

(invoke "new" (i32.const 0))
(invoke "set" (i32.const 0) (i32.const 1) (i64.const 2) (f32.const 3) (f64.const 4) (ref.extern 5))
(invoke "set" (i32.const 0) (i32.const 6) (i64.const 7) (f32.const 8) (f64.const 9) (ref.extern 10))
(invoke "set" (i32.const 0) (i32.const -7) (i64.const 0x8000000000000000) (f32.const nan:0x200001)
  (f64.const -nan:0x1) (ref.extern 11))
(assert_return (invoke "finish" (i32.const 0))
  (i32.const -7) (i64.const 0x8000000000000000) (f32.const nan:0x200001) (f64.const -nan:0x1) (ref.extern 11))
(assert_trap (invoke "finish" (i32.const 0)) "fiber is moribund")
(invoke "new" (i32.const 1))
(invoke "new" (i32.const 2))
(invoke "set" (i32.const 1) (i32.const 1) (i64.const 1) (f32.const 1) (f64.const 1) (ref.extern 1))
(invoke "set" (i32.const 2) (i32.const 2) (i64.const 2) (f32.const 2) (f64.const 2) (ref.extern 2))
(invoke "set" (i32.const 2)
  (i32.const 3) (i64.const -3) (f32.const -0x0p+0) (f64.const -nan:0x8000000000000) (ref.null extern))
(assert_return (invoke "hand" (i32.const 1) (i32.const 2))
  (i32.const 3) (i64.const -3) (f32.const -0x0p+0) (f64.const -nan:0x8000000000000) (ref.null extern))
(assert_trap (invoke "finish" (i32.const 2)) "fiber is moribund")
;; table[1] is suspended at its switch, in a clause: no clause is in scope
(assert_trap (invoke "finish" (i32.const 1)) "unhandled event")
(assert_trap (invoke "finish" (i32.const 1)) "fiber is moribund")

;; State that must survive the switches: locals of every type and operands
;; below the handle in the resuming function and in the fiber, and linear
;; memory grown by the other side while this side was suspended (each side
;; then reads and writes the new pages).
(module
  (type $g (fiber (result i32)))
  (tag $go (param i32))
  (tag $tick (param i32))
  (memory 1 64)
  (global $f (mut (ref null $g)) (ref.null $g))

  ;; $go(p): reads the word the root wrote at page p + 4, writes twice it at
  ;; page p + 8, grows the memory by one page and writes 7777 + p at its
  ;; start; then suspends with $tick(memory size). p = 0 does the same at
  ;; page 1 and returns the memory size instead.
  (func $mem (param $self (ref $g)) (result i32)
    (local $p i32) (local $base i32)
    (unreachable)
    (event $go (param i32)
      (local.set $p)
      (loop $l
        (local.set $base (i32.shl (select (local.get $p) (i32.const 1) (local.get $p)) (i32.const 16)))
        (i32.store (i32.add (local.get $base) (i32.const 8))
          (i32.mul (i32.load (i32.add (local.get $base) (i32.const 4))) (i32.const 2)))
        (drop (memory.grow (i32.const 1)))
        (i32.store (i32.shl (i32.sub (memory.size) (i32.const 1)) (i32.const 16))
          (i32.add (i32.const 7777) (local.get $p)))
        (if (i32.eqz (local.get $p)) (then (return (memory.size))))
        (handle
          (fiber.suspend $tick (local.get $self) (memory.size))
          (event $go (param i32) (local.set $p) (br $l))))
      (unreachable)))
  ;; One step: the root grows a page p, writes 1000 + p at p + 4, resumes the
  ;; fiber with $go(p) and reads what the fiber wrote at p + 8 and in the page
  ;; it grew: 2 * (1000 + p) + 7777 + p.
  (func $step (param $last i32) (result i32)
    (local $p i32)
    (local.set $p (memory.grow (i32.const 1)))
    (i32.store (i32.add (i32.shl (local.get $p) (i32.const 16)) (i32.const 4))
      (i32.add (i32.const 1000) (local.get $p)))
    (if (local.get $last) (then (local.set $p (i32.const 0))))
    (drop
      (handle (result i32)
        (fiber.resume $g $go (global.get $f) (local.get $p))
        (event $tick (param i32))))
    (local.set $p (select (local.get $p) (i32.const 1) (local.get $p)))
    (i32.add
      (i32.load (i32.add (i32.shl (local.get $p) (i32.const 16)) (i32.const 8)))
      (i32.load (i32.shl (i32.sub (memory.size) (i32.const 1)) (i32.const 16)))))
  (func (export "mem-start") (global.set $f (fiber.new $mem)))
  (func (export "mem-steps") (param $n i32) (result i32)
    (local $sum i32)
    (loop $l
      (local.set $sum (i32.add (local.get $sum) (call $step (i32.const 0))))
      (local.set $n (i32.sub (local.get $n) (i32.const 1)))
      (br_if $l (local.get $n)))
    (local.get $sum))
  (func (export "mem-last") (result i32) (call $step (i32.const 1)))
  (func (export "size") (result i32) (memory.size))

  ;; The fiber keeps i32, i64, f32 and f64 locals and an operand below its
  ;; handle across its suspensions. Each step adds x to the four locals,
  ;; checks that they agree and suspends with their sum (4 * i); the next x
  ;; is the previous x (an operand below the handle) minus the value of the
  ;; $go that resumes it. The 99 above it is discarded by the delivery.
  (func $keep (param $self (ref $g)) (result i32)
    (local $i i32) (local $l i64) (local $f f32) (local $d f64) (local $x i32)
    (unreachable)
    (event $go (param i32)
      (local.set $x)
      (loop $l
        (local.set $i (i32.add (local.get $i) (local.get $x)))
        (local.set $l (i64.add (local.get $l) (i64.extend_i32_s (local.get $x))))
        (local.set $f (f32.add (local.get $f) (f32.convert_i32_s (local.get $x))))
        (local.set $d (f64.add (local.get $d) (f64.convert_i32_s (local.get $x))))
        (if (i64.ne (local.get $l) (i64.extend_i32_s (local.get $i))) (then (unreachable)))
        (if (f32.ne (local.get $f) (f32.convert_i32_s (local.get $i))) (then (unreachable)))
        (if (f64.ne (local.get $d) (f64.convert_i32_s (local.get $i))) (then (unreachable)))
        (local.set $x
          (i32.sub
            (local.get $x)
            (handle (result i32)
              (i32.const 99)
              (fiber.suspend $tick (local.get $self)
                (i32.add
                  (i32.add (local.get $i) (i32.wrap_i64 (local.get $l)))
                  (i32.add (i32.trunc_f32_s (local.get $f)) (i32.trunc_f64_s (local.get $d)))))
              (event $go (param i32) (i32.const 0) (i32.sub)))))
        (br $l))
      (unreachable)))
  ;; The root side: locals and operands below the handle that must survive.
  (func (export "keep-start") (global.set $f (fiber.new $keep)))
  (func (export "keep") (param $x i32) (result f64)
    (local $i i32) (local $l i64) (local $f f32) (local $d f64) (local $t i32)
    (local.set $i (i32.const 0x12345678))
    (local.set $l (i64.const 0x123456789abcdef0))
    (local.set $f (f32.const 1.5))
    (local.set $d (f64.const -2.25))
    (f64.add
      (f64.const 1000)
      (f64.convert_i32_s
        (i32.add
          (i32.const 7)
          (handle (result i32)
            (i32.const 5)
            (fiber.resume $g $go (global.get $f) (local.get $x))
            (i32.add)
            (event $tick (param i32)
              (local.set $t)
              (if (i32.ne (local.get $i) (i32.const 0x12345678)) (then (unreachable)))
              (if (i64.ne (local.get $l) (i64.const 0x123456789abcdef0)) (then (unreachable)))
              (if (f32.ne (local.get $f) (f32.const 1.5)) (then (unreachable)))
              (if (f64.ne (local.get $d) (f64.const -2.25)) (then (unreachable)))
              (local.get $t)))))))
)

(invoke "mem-start")
(assert_return (invoke "mem-steps" (i32.const 1)) (i32.const 9780))
(assert_return (invoke "mem-steps" (i32.const 1)) (i32.const 9786))
(assert_return (invoke "mem-steps" (i32.const 10)) (i32.const 98190))
(assert_return (invoke "size") (i32.const 25))
(assert_return (invoke "mem-last") (i32.const 9779))
(assert_return (invoke "size") (i32.const 27))

(invoke "keep-start")
(assert_return (invoke "keep" (i32.const 1)) (f64.const 1011))
;; x: 1, 1 - 2 = -1, -1 - 3 = -4, -4 + 6 = 2; i: 1, 0, -4, -2; 1007 + 4 * i
(assert_return (invoke "keep" (i32.const 2)) (f64.const 1007))
(assert_return (invoke "keep" (i32.const 3)) (f64.const 991))
(assert_return (invoke "keep" (i32.const -6)) (f64.const 999))

;; A table grown by the root while the fiber was suspended: the fiber, resumed
;; on the fast path, calls through the new elements and sees the new size.
(module
  (type $g (fiber (result i32)))
  (type $v (func (result i32)))
  (tag $go (param i32))
  (tag $tick (param i32))
  (table $tab 1 funcref)
  (global $f (mut (ref null $g)) (ref.null $g))
  (func $seven (result i32) (i32.const 7))
  (elem declare func $seven)
  ;; $go(i): suspends with $tick(table size + table[i]()).
  (func $caller (param $self (ref $g)) (result i32)
    (local $i i32)
    (unreachable)
    (event $go (param i32)
      (local.set $i)
      (loop $l
        (local.set $i
          (handle (result i32)
            (fiber.suspend $tick (local.get $self)
              (i32.add (table.size $tab) (call_indirect (type $v) (local.get $i))))
            (event $go (param i32))))
        (br $l))
      (unreachable)))
  (func (export "table-start")
    (table.set $tab (i32.const 0) (ref.func $seven))
    (global.set $f (fiber.new $caller)))
  ;; Grows the table by n, then has the fiber call its last element.
  (func (export "grow-and-resume") (param $n i32) (result i32)
    (drop (table.grow $tab (ref.func $seven) (local.get $n)))
    (handle (result i32)
      (fiber.resume $g $go (global.get $f) (i32.sub (table.size $tab) (i32.const 1)))
      (event $tick (param i32))))
)

(invoke "table-start")
(assert_return (invoke "grow-and-resume" (i32.const 0)) (i32.const 8))
(assert_return (invoke "grow-and-resume" (i32.const 3)) (i32.const 11))
(assert_return (invoke "grow-and-resume" (i32.const 100)) (i32.const 111))
(assert_return (invoke "grow-and-resume" (i32.const 0)) (i32.const 111))
