;; `call stack exhausted` (docs/fibers.md §6.12, §7.3, §9, §10) around the
;; fast path, with the default limits.
;;
;; Each context checks its calls against its own stack (and call depth): after
;; a fast resume the fiber's limits apply, after a fast suspend the parent's
;; again. Unbounded recursion in a fiber that the fast path resumed — in the
;; clause it entered on arrival, or below a frame where it had suspended —
;; traps (never crashes) and aborts that fiber and the waiting fibers below it;
;; suspended fibers, including ones suspended deep in recursion, keep their
;; frames. The root recurses deep after fibers suspended to it, and switches
;; to fibers from deep in its own recursion.
;;
;; Depths used inside fibers stay at most 400 frames, which the default fiber
;; stack holds today; deep_recursion.wast covers 10,000.

(module
  (type $g (fiber (result i32)))
  (tag $go (param i32))
  (tag $tick (param i32))
  (table $t 8 (ref null $g))
  (global $depth (mut i32) (i32.const 200))

  (func $inf (param $n i32) (result i32)
    (i32.add (i32.const 1) (call $inf (i32.add (local.get $n) (i32.const 1)))))
  (func $sum (param $n i32) (result i32)
    (local $a i64) (local $b f64)
    (local.set $a (i64.extend_i32_u (local.get $n)))
    (local.set $b (f64.convert_i32_u (local.get $n)))
    (if (result i32) (i32.eqz (local.get $n))
      (then (i32.const 0))
      (else
        (i32.add
          (i32.wrap_i64 (i64.sub (local.get $a) (i64.trunc_f64_u (local.get $b))))
          (i32.add (local.get $n) (call $sum (i32.sub (local.get $n) (i32.const 1))))))))

  ;; THE suspend site: suspends S with $tick(v), returns the $go value.
  (func $yield (param $s (ref null $g)) (param $v i32) (result i32)
    (handle (result i32)
      (fiber.suspend $tick (local.get $s) (local.get $v))
      (event $go (param i32))))
  ;; THE resume site: $tick(v) → v, a result r → 100000 + r.
  (func $resume (param $f (ref null $g)) (param $x i32) (result i32)
    (handle (result i32)
      (fiber.resume $g $go (local.get $f) (local.get $x))
      (i32.add (i32.const 100000))
      (event $tick (param i32))))

  ;; Recurses d levels and suspends at the bottom with $tick(7777). Resumed
  ;; with $go(y): y = 300 recurses without end from there; y = 301 recurses
  ;; $depth levels further and suspends again; otherwise it returns y plus the
  ;; sum of the levels.
  (func $rec (param $self (ref $g)) (param $d i32) (result i32)
    (local $y i32)
    (if (result i32) (local.get $d)
      (then (i32.add (local.get $d) (call $rec (local.get $self) (i32.sub (local.get $d) (i32.const 1)))))
      (else
        (local.set $y (call $yield (local.get $self) (i32.const 7777)))
        (if (i32.eq (local.get $y) (i32.const 300)) (then (return (call $inf (i32.const 0)))))
        (if (i32.eq (local.get $y) (i32.const 301))
          (then (return (call $rec (local.get $self) (global.get $depth)))))
        (local.get $y))))

  ;; $go(x): x = 0 returns n + 1000; x < 100: n += x; x = 300: recursion
  ;; without end (in the clause the event entered); x = 301: n += $rec($depth);
  ;; x = 302: n += $sum($depth); x = 400 + k: n += table[k]'s tick, resumed
  ;; with $go($fwd). Then it suspends with $tick(n).
  (global $fwd (mut i32) (i32.const 1))
  (func $gen (param $self (ref $g)) (result i32)
    (local $n i32) (local $x i32)
    (unreachable)
    (event $go (param i32)
      (local.set $x)
      (loop $l
        (if (i32.eqz (local.get $x)) (then (return (i32.add (local.get $n) (i32.const 1000)))))
        (if (i32.lt_u (local.get $x) (i32.const 100))
          (then (local.set $n (i32.add (local.get $n) (local.get $x)))))
        (if (i32.eq (local.get $x) (i32.const 300))
          (then (local.set $n (call $inf (i32.const 0)))))
        (if (i32.eq (local.get $x) (i32.const 301))
          (then (local.set $n (i32.add (local.get $n) (call $rec (local.get $self) (global.get $depth))))))
        (if (i32.eq (local.get $x) (i32.const 302))
          (then (local.set $n (i32.add (local.get $n) (call $sum (global.get $depth))))))
        (if (i32.ge_u (local.get $x) (i32.const 400))
          (then
            (local.set $n (i32.add (local.get $n)
              (call $resume (table.get $t (i32.sub (local.get $x) (i32.const 400))) (global.get $fwd))))))
        (local.set $x (call $yield (local.get $self) (local.get $n)))
        (br $l))
      (unreachable)))

  (func (export "gen") (param $i i32) (table.set $t (local.get $i) (fiber.new $gen)))
  (func (export "depth") (param $d i32) (global.set $depth (local.get $d)))
  (func (export "fwd") (param $x i32) (global.set $fwd (local.get $x)))
  (func (export "resume") (param $i i32) (param $x i32) (result i32)
    (call $resume (table.get $t (local.get $i)) (local.get $x)))
  ;; k fast resumes of table[i] with $go(1), then table[i] with $go(x).
  (func (export "pump") (param $i i32) (param $k i32) (param $x i32) (result i32)
    (loop $l
      (drop (call $resume (table.get $t (local.get $i)) (i32.const 1)))
      (local.set $k (i32.sub (local.get $k) (i32.const 1)))
      (br_if $l (local.get $k)))
    (call $resume (table.get $t (local.get $i)) (local.get $x)))
  (func (export "root-sum") (param $n i32) (result i32) (call $sum (local.get $n)))
  (func (export "root-inf") (result i32) (call $inf (i32.const 0)))
  ;; The root recurses n levels, resumes table[i] with $go(x) from the bottom
  ;; and returns the sum of the levels plus what came back.
  (func $deep-resume (param $n i32) (param $i i32) (param $x i32) (result i32)
    (if (result i32) (local.get $n)
      (then
        (i32.add (local.get $n)
          (call $deep-resume (i32.sub (local.get $n) (i32.const 1)) (local.get $i) (local.get $x))))
      (else (call $resume (table.get $t (local.get $i)) (local.get $x)))))
  (func (export "deep-resume") (param $n i32) (param $i i32) (param $x i32) (result i32)
    (call $deep-resume (local.get $n) (local.get $i) (local.get $x)))
)

;; Unbounded recursion in the clause a fast-path event entered.
(invoke "gen" (i32.const 0))
(assert_return (invoke "pump" (i32.const 0) (i32.const 5) (i32.const 1)) (i32.const 6))
(assert_exhaustion (invoke "pump" (i32.const 0) (i32.const 3) (i32.const 300)) "call stack exhausted")
(assert_trap (invoke "resume" (i32.const 0) (i32.const 1)) "fiber is moribund")
;; The same one level down: table[1] resumes table[2] (fast), which recurses
;; without end; both are aborted.
(invoke "gen" (i32.const 1))
(invoke "gen" (i32.const 2))
(assert_return (invoke "pump" (i32.const 2) (i32.const 2) (i32.const 1)) (i32.const 3))
(assert_return (invoke "pump" (i32.const 1) (i32.const 2) (i32.const 402)) (i32.const 6))
(invoke "fwd" (i32.const 300))
(assert_exhaustion (invoke "pump" (i32.const 1) (i32.const 2) (i32.const 402)) "call stack exhausted")
(invoke "fwd" (i32.const 1))
(assert_trap (invoke "resume" (i32.const 1) (i32.const 1)) "fiber is moribund")
(assert_trap (invoke "resume" (i32.const 2) (i32.const 1)) "fiber is moribund")

;; Suspended 200 levels down (fast), resumed there (fast) and unwound;
;; suspended at 200, then at 400, then recursing without end from there.
(invoke "gen" (i32.const 3))
(assert_return (invoke "pump" (i32.const 3) (i32.const 2) (i32.const 301)) (i32.const 7777))
(assert_return (invoke "resume" (i32.const 3) (i32.const 5)) (i32.const 20107))
(assert_return (invoke "resume" (i32.const 3) (i32.const 301)) (i32.const 7777))
(assert_return (invoke "resume" (i32.const 3) (i32.const 301)) (i32.const 7777))
(assert_exhaustion (invoke "resume" (i32.const 3) (i32.const 300)) "call stack exhausted")
(assert_trap (invoke "resume" (i32.const 3) (i32.const 1)) "fiber is moribund")

;; table[4] waits 250 levels down while table[5] exhausts its stack, the root
;; exhausts its own, and the root recurses 15000 levels; then it unwinds.
(invoke "depth" (i32.const 250))
(invoke "gen" (i32.const 4))
(invoke "gen" (i32.const 5))
(assert_return (invoke "pump" (i32.const 4) (i32.const 3) (i32.const 301)) (i32.const 7777))
(assert_return (invoke "pump" (i32.const 5) (i32.const 3) (i32.const 2)) (i32.const 5))
(assert_exhaustion (invoke "resume" (i32.const 5) (i32.const 300)) "call stack exhausted")
(assert_exhaustion (invoke "root-inf") "call stack exhausted")
(assert_return (invoke "root-sum" (i32.const 15000)) (i32.const 112507500))
(assert_return (invoke "resume" (i32.const 4) (i32.const 10)) (i32.const 31388))
(assert_return (invoke "resume" (i32.const 4) (i32.const 302)) (i32.const 62763))

;; The root switches to a fiber from 15000 levels down, and the fiber
;; recurses 250 levels on its own stack before it suspends back.
(assert_return (invoke "deep-resume" (i32.const 15000) (i32.const 4) (i32.const 302))
  (i32.const 112601638))
(assert_return (invoke "deep-resume" (i32.const 15000) (i32.const 4) (i32.const 301)) (i32.const 112515277))
(assert_return (invoke "resume" (i32.const 4) (i32.const 1)) (i32.const 125514))
(assert_exhaustion (invoke "deep-resume" (i32.const 15000) (i32.const 4) (i32.const 300)) "call stack exhausted")
(assert_trap (invoke "resume" (i32.const 4) (i32.const 1)) "fiber is moribund")
;; everything still works
(invoke "gen" (i32.const 6))
(assert_return (invoke "pump" (i32.const 6) (i32.const 4) (i32.const 302)) (i32.const 31379))
(assert_return (invoke "root-sum" (i32.const 15000)) (i32.const 112507500))
