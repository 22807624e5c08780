;; Host frames and the fast path (docs/fibers.md §2.4, §6.12, §6.13, §9).
;;
;; `weft_test.reenter` (see host_barrier.wast) calls the export
;; "reenter-target" through a host frame: a new chain segment. Here the fibers
;; of the outer segment got where they are by the fast path: the root resumed
;; A (table[0]) several times, A resumed B (table[1]) several times, and B
;; called the host. In the inner segment the root and a fiber C (table[2],
;; resumed by the inner root on the fast path) then try, at the same hot
;; resume and suspend sites:
;;   resume of A or B                        → fiber is active
;;   release of A                            → fiber is active
;;   suspend naming A or B                   → not the running fiber
;;   suspend_to, switch, retireto to A       → cannot switch across a host frame
;; Each trap aborts the inner segment, the host call fails and the outer
;; segment is aborted too: A and B are moribund afterwards. A fiber that
;; suspended in the inner segment survives, and the fast path resumes it from
;; a later segment, whose root or fiber becomes its parent.
;;
;; Not covered: suspend_to, switch and retireto to B itself (the fiber that
;; called the host, which is neither waiting nor the running fiber of the
;; inner segment): docs/fibers.md does not say which trap that is.

(module
  (type $g (fiber (result i32)))
  (import "weft_test" "reenter" (func $reenter))
  (tag $go (param i32))
  (tag $tick (param i32))
  (tag $e (param i32))
  (table $t 8 (ref null $g))
  (global $mode (mut i32) (i32.const 0))
  (global $sub (mut i32) (i32.const 0))

  ;; THE resume site: $tick(v) → v, a result r → 100000 + r.
  (func $resume (param $f (ref null $g)) (param $x i32) (result i32)
    (handle (result i32)
      (fiber.resume $g $go (local.get $f) (local.get $x))
      (i32.add (i32.const 100000))
      (event $tick (param i32))))
  ;; THE suspend site: suspends S with $tick(v), returns the $go value.
  (func $yield (param $s (ref null $g)) (param $v i32) (result i32)
    (handle (result i32)
      (fiber.suspend $tick (local.get $s) (local.get $v))
      (event $go (param i32))))
  ;; k resumes of f with $go(1), then one with $go(x).
  (func $pump (param $f (ref null $g)) (param $k i32) (param $x i32) (result i32)
    (block $done
      (loop $l
        (br_if $done (i32.eqz (local.get $k)))
        (drop (call $resume (local.get $f) (i32.const 1)))
        (local.set $k (i32.sub (local.get $k) (i32.const 1)))
        (br $l)))
    (call $resume (local.get $f) (local.get $x)))

  ;; A worker: n accumulates, and each $go(x) it receives at $yield means
  ;;   x = 0       return n + 1000
  ;;   x < 100     n += x
  ;;   x = 100     if child >= 0: resume table[child] three times with $go(1),
  ;;               then with $go(100), n += what comes back;
  ;;               otherwise: call the host (weft_test.reenter), n += 1
  ;;   x = 101     suspend with $e(n) (the resume site has no clause for it)
  ;;   x = 200 + k forbidden action k on A (table[0]): 0 switch, 1 retireto,
  ;;               2 resume, 3 suspend naming A, 4 suspend_to
  ;; then it suspends with $tick(n) at $yield.
  (func $worker (param $self (ref $g)) (param $child i32) (result i32)
    (local $n i32) (local $x i32)
    (unreachable)
    (event $go (param i32)
      (local.set $x)
      (loop $l
        (if (i32.eqz (local.get $x)) (then (return (i32.add (local.get $n) (i32.const 1000)))))
        (if (i32.lt_u (local.get $x) (i32.const 100))
          (then (local.set $n (i32.add (local.get $n) (local.get $x)))))
        (if (i32.eq (local.get $x) (i32.const 100))
          (then
            (if (i32.ge_s (local.get $child) (i32.const 0))
              (then
                (local.set $n (i32.add (local.get $n)
                  (call $pump (table.get $t (local.get $child)) (i32.const 3) (i32.const 100)))))
              (else
                (call $reenter)
                (local.set $n (i32.add (local.get $n) (i32.const 1)))))))
        (if (i32.eq (local.get $x) (i32.const 101))
          (then
            (handle
              (fiber.suspend $e (local.get $self) (local.get $n))
              (event $go (param i32) (local.set $x) (br $l)))))
        (if (i32.ge_u (local.get $x) (i32.const 200))
          (then
            (block $k4 (block $k3 (block $k2 (block $k1 (block $k0
              (br_table $k0 $k1 $k2 $k3 $k4 (i32.sub (local.get $x) (i32.const 200))))
              (fiber.switch $g $go (local.get $self) (table.get $t (i32.const 0)) (local.get $n)))
              (fiber.retireto $g $go (local.get $self) (table.get $t (i32.const 0)) (local.get $n)))
              (drop (call $resume (table.get $t (i32.const 0)) (local.get $n))))
              (drop (call $yield (table.get $t (i32.const 0)) (local.get $n))))
            (drop (fiber.suspend_to $g $tick (table.get $t (i32.const 0)) (local.get $n)))))
        (local.set $x (call $yield (local.get $self) (local.get $n)))
        (br $l))
      (unreachable)))

  ;; A (table[0]) resumes B (table[1]); B calls the host. C is table[2].
  (func (export "setup")
    (table.set $t (i32.const 0) (fiber.new $worker (i32.const 1)))
    (table.set $t (i32.const 1) (fiber.new $worker (i32.const -1))))
  (func (export "make-c") (table.set $t (i32.const 2) (fiber.new $worker (i32.const -1))))
  (func (export "setup-a") (table.set $t (i32.const 0) (fiber.new $worker (i32.const 1))))
  (func (export "move") (param $from i32) (param $to i32)
    (table.set $t (local.get $to) (table.get $t (local.get $from))))
  ;; The root resumes A three times, then A resumes B, B calls the host.
  (func (export "outer") (param $mode i32) (param $sub i32) (result i32)
    (global.set $mode (local.get $mode))
    (global.set $sub (local.get $sub))
    (call $pump (table.get $t (i32.const 0)) (i32.const 3) (i32.const 100)))
  (func (export "resume") (param $i i32) (param $x i32) (result i32)
    (call $resume (table.get $t (local.get $i)) (local.get $x)))

  ;; The inner segment, by mode: 0 resume A; 1 resume B; 2 suspend_to A;
  ;; 3 suspend naming B; 4 suspend naming A; 5 release A; 6-8 C (below);
  ;; 9 nothing.
  (func (export "reenter-target")
    (block $m9 (block $m8 (block $m7 (block $m6 (block $m5
      (block $m4 (block $m3 (block $m2 (block $m1 (block $m0
        (br_table $m0 $m1 $m2 $m3 $m4 $m5 $m6 $m7 $m8 $m9 (global.get $mode)))
        (drop (call $resume (table.get $t (i32.const 0)) (i32.const 1)))
        (return))
        (drop (call $resume (table.get $t (i32.const 1)) (i32.const 1)))
        (return))
        (drop (fiber.suspend_to $g $go (table.get $t (i32.const 0)) (i32.const 1)))
        (return))
        (drop (call $yield (table.get $t (i32.const 1)) (i32.const 1)))
        (return))
        (drop (call $yield (table.get $t (i32.const 0)) (i32.const 1)))
        (return))
      (fiber.release (table.get $t (i32.const 0)))
      (return))
      ;; 6: C, resumed on the fast path by the inner root, tries action $sub
      (drop (call $pump (table.get $t (i32.const 2)) (i32.const 3)
        (i32.add (i32.const 200) (global.get $sub))))
      (return))
      ;; 7: C makes round trips with the inner root and stays suspended
      (drop (call $pump (table.get $t (i32.const 2)) (i32.const 3) (i32.const 1)))
      (return))
      ;; 8: C suspends with $e, which the inner root does not handle
      (drop (call $pump (table.get $t (i32.const 2)) (i32.const 2) (i32.const 101)))
      (return)))
)

;; The inner root resumes A (waiting) or B (running, below the host frame).
(invoke "setup")
(assert_trap (invoke "outer" (i32.const 0) (i32.const 0)) "fiber is active")
(assert_trap (invoke "resume" (i32.const 0) (i32.const 1)) "fiber is moribund")
(assert_trap (invoke "resume" (i32.const 1) (i32.const 1)) "fiber is moribund")
(invoke "setup")
(assert_trap (invoke "outer" (i32.const 1) (i32.const 0)) "fiber is active")
(assert_trap (invoke "resume" (i32.const 0) (i32.const 1)) "fiber is moribund")
(assert_trap (invoke "resume" (i32.const 1) (i32.const 1)) "fiber is moribund")
;; suspend_to A from the inner root
(invoke "setup")
(assert_trap (invoke "outer" (i32.const 2) (i32.const 0)) "cannot switch across a host frame")
(assert_trap (invoke "resume" (i32.const 0) (i32.const 1)) "fiber is moribund")
;; the inner root at the hot suspend site, naming B or A
(invoke "setup")
(assert_trap (invoke "outer" (i32.const 3) (i32.const 0)) "not the running fiber")
(invoke "setup")
(assert_trap (invoke "outer" (i32.const 4) (i32.const 0)) "not the running fiber")
(assert_trap (invoke "resume" (i32.const 1) (i32.const 1)) "fiber is moribund")
(invoke "setup")
(assert_trap (invoke "outer" (i32.const 5) (i32.const 0)) "fiber is active")

;; C, resumed on the fast path in the inner segment, then: switch, retireto,
;; resume, suspend naming A, suspend_to A. C is aborted with the segment.
(invoke "setup")
(invoke "make-c")
(assert_trap (invoke "outer" (i32.const 6) (i32.const 0)) "cannot switch across a host frame")
(assert_trap (invoke "resume" (i32.const 2) (i32.const 1)) "fiber is moribund")
(invoke "setup")
(invoke "make-c")
(assert_trap (invoke "outer" (i32.const 6) (i32.const 1)) "cannot switch across a host frame")
(assert_trap (invoke "resume" (i32.const 2) (i32.const 1)) "fiber is moribund")
(invoke "setup")
(invoke "make-c")
(assert_trap (invoke "outer" (i32.const 6) (i32.const 2)) "fiber is active")
(assert_trap (invoke "resume" (i32.const 2) (i32.const 1)) "fiber is moribund")
(invoke "setup")
(invoke "make-c")
(assert_trap (invoke "outer" (i32.const 6) (i32.const 3)) "not the running fiber")
(assert_trap (invoke "resume" (i32.const 2) (i32.const 1)) "fiber is moribund")
(invoke "setup")
(invoke "make-c")
(assert_trap (invoke "outer" (i32.const 6) (i32.const 4)) "cannot switch across a host frame")
(assert_trap (invoke "resume" (i32.const 2) (i32.const 1)) "fiber is moribund")
(assert_trap (invoke "resume" (i32.const 0) (i32.const 1)) "fiber is moribund")
(assert_trap (invoke "resume" (i32.const 1) (i32.const 1)) "fiber is moribund")

;; A working host call: C makes four round trips with the inner root (the
;; first one starts it) and stays suspended; B and A carry on.
(invoke "setup")
(invoke "make-c")
(assert_return (invoke "outer" (i32.const 7) (i32.const 0)) (i32.const 7))
(assert_return (invoke "resume" (i32.const 2) (i32.const 10)) (i32.const 14))
(assert_return (invoke "outer" (i32.const 7) (i32.const 0)) (i32.const 18))
(assert_return (invoke "resume" (i32.const 2) (i32.const 10)) (i32.const 28))
(assert_return (invoke "resume" (i32.const 1) (i32.const 0)) (i32.const 101008))
(assert_return (invoke "resume" (i32.const 0) (i32.const 0)) (i32.const 101018))
(assert_return (invoke "resume" (i32.const 2) (i32.const 0)) (i32.const 101028))

;; The inner root cannot handle C's $e: the trap aborts the inner segment, then
;; (through the failed host call) the outer one; C, suspended, survives and
;; is resumed from later segments.
(invoke "setup")
(invoke "make-c")
(assert_trap (invoke "outer" (i32.const 8) (i32.const 0)) "unhandled event")
(assert_trap (invoke "resume" (i32.const 0) (i32.const 1)) "fiber is moribund")
(assert_trap (invoke "resume" (i32.const 1) (i32.const 1)) "fiber is moribund")
(assert_return (invoke "resume" (i32.const 2) (i32.const 5)) (i32.const 7))
(assert_return (invoke "resume" (i32.const 2) (i32.const 5)) (i32.const 12))
;; C becomes A's child in a later segment: A resumes table[1], now C, three
;; times with $go(1) and once with $go(100) (C's host call does nothing), and
;; C answers A on the fast path each time.
(invoke "setup-a")
(invoke "move" (i32.const 2) (i32.const 1))
(assert_return (invoke "outer" (i32.const 9) (i32.const 0)) (i32.const 19))
(assert_return (invoke "resume" (i32.const 0) (i32.const 1)) (i32.const 20))
;; A returns: C, its suspended child, is released with it
(assert_return (invoke "resume" (i32.const 0) (i32.const 0)) (i32.const 101020))
(assert_trap (invoke "resume" (i32.const 2) (i32.const 1)) "fiber is moribund")
