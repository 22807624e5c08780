;; weft-wast-options: --max-call-depth=400
;;
;; The call-depth limit and the fast path (docs/fibers.md §6.12, §9, §10).
;; This file runs with `weft wast --max-call-depth=400` (the options line).
;;
;; Call depth is kept per context: a fast resume must switch to the fiber's
;; count and a fast suspend back to the parent's, so that frames of a
;; suspended fiber never count against the root and the root's never against
;; the fiber. The checks below hold whether the limit applies to each stack
;; or to the whole resume chain (root → waiting fibers → running fiber); they
;; only rely on: a context that is not on the chain does not count, and one
;; context alone more than 400 frames deep is exhausted.

(module
  (type $g (fiber (result i32)))
  (tag $go (param i32))
  (tag $tick (param i32))
  (table $t 4 (ref null $g))

  (func $sum (param $n i32) (result i32)
    (if (result i32) (i32.eqz (local.get $n))
      (then (i32.const 0))
      (else (i32.add (local.get $n) (call $sum (i32.sub (local.get $n) (i32.const 1)))))))
  (func $yield (param $s (ref null $g)) (param $v i32) (result i32)
    (handle (result i32)
      (fiber.suspend $tick (local.get $s) (local.get $v))
      (event $go (param i32))))
  (func $resume (param $f (ref null $g)) (param $x i32) (result i32)
    (handle (result i32)
      (fiber.resume $g $go (local.get $f) (local.get $x))
      (i32.add (i32.const 100000))
      (event $tick (param i32))))
  ;; Recurses d levels, suspends at the bottom with $tick(7777); the $go(y)
  ;; that resumes it: y = 0 returns the sum of the levels, otherwise it
  ;; recurses y levels further from there ($sum) and adds that.
  (func $rec (param $self (ref $g)) (param $d i32) (result i32)
    (local $y i32)
    (if (result i32) (local.get $d)
      (then (i32.add (local.get $d) (call $rec (local.get $self) (i32.sub (local.get $d) (i32.const 1)))))
      (else
        (local.set $y (call $yield (local.get $self) (i32.const 7777)))
        (call $sum (local.get $y)))))

  ;; $go(x): x < 1000 recurses x levels ($sum) and suspends with the sum;
  ;; x = 1000 + d suspends d levels down ($rec).
  (func $gen (param $self (ref $g)) (result i32)
    (local $x i32)
    (unreachable)
    (event $go (param i32)
      (local.set $x)
      (loop $l
        (local.set $x
          (call $yield (local.get $self)
            (if (result i32) (i32.lt_u (local.get $x) (i32.const 1000))
              (then (call $sum (local.get $x)))
              (else (call $rec (local.get $self) (i32.sub (local.get $x) (i32.const 1000)))))))
        (br $l))
      (unreachable)))

  (func (export "gen") (param $i i32) (table.set $t (local.get $i) (fiber.new $gen)))
  (func (export "resume") (param $i i32) (param $x i32) (result i32)
    (call $resume (table.get $t (local.get $i)) (local.get $x)))
  (func (export "root-sum") (param $n i32) (result i32) (call $sum (local.get $n)))
)

;; The root alone.
(assert_return (invoke "root-sum" (i32.const 350)) (i32.const 61425))
(assert_exhaustion (invoke "root-sum" (i32.const 450)) "call stack exhausted")

;; A fiber, resumed on the fast path, alone at 350 levels; not at 450.
(invoke "gen" (i32.const 0))
(assert_return (invoke "resume" (i32.const 0) (i32.const 10)) (i32.const 55))
(assert_return (invoke "resume" (i32.const 0) (i32.const 350)) (i32.const 61425))
(assert_return (invoke "resume" (i32.const 0) (i32.const 350)) (i32.const 61425))
(assert_exhaustion (invoke "resume" (i32.const 0) (i32.const 450)) "call stack exhausted")
(assert_trap (invoke "resume" (i32.const 0) (i32.const 1)) "fiber is moribund")

;; table[1] suspends 350 levels down (fast); the root then recurses 350
;; levels, table[2] too, and table[1] unwinds when resumed.
(invoke "gen" (i32.const 1))
(invoke "gen" (i32.const 2))
(assert_return (invoke "resume" (i32.const 1) (i32.const 1)) (i32.const 1))
(assert_return (invoke "resume" (i32.const 1) (i32.const 1350)) (i32.const 7777))
(assert_return (invoke "root-sum" (i32.const 350)) (i32.const 61425))
(assert_return (invoke "resume" (i32.const 2) (i32.const 350)) (i32.const 61425))
(assert_return (invoke "resume" (i32.const 2) (i32.const 350)) (i32.const 61425))
(assert_return (invoke "root-sum" (i32.const 350)) (i32.const 61425))
(assert_return (invoke "resume" (i32.const 1) (i32.const 0)) (i32.const 61425))
;; once more, and from the bottom it recurses 30 levels more (380 in all)
(assert_return (invoke "resume" (i32.const 1) (i32.const 1350)) (i32.const 7777))
(assert_return (invoke "root-sum" (i32.const 350)) (i32.const 61425))
(assert_return (invoke "resume" (i32.const 1) (i32.const 30)) (i32.const 61890))
;; and 60 more (410 in all) is too deep for it, but not for the others
(assert_return (invoke "resume" (i32.const 1) (i32.const 1350)) (i32.const 7777))
(assert_exhaustion (invoke "resume" (i32.const 1) (i32.const 60)) "call stack exhausted")
(assert_trap (invoke "resume" (i32.const 1) (i32.const 1)) "fiber is moribund")
(assert_return (invoke "resume" (i32.const 2) (i32.const 350)) (i32.const 61425))
(assert_return (invoke "root-sum" (i32.const 350)) (i32.const 61425))
