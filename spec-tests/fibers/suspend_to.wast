;; fiber.suspend_to (docs/fibers.md §6.5): to a resume ancestor it pops every
;; fiber from the running one down to (excluding) the target — they become
;; suspended where they stand and keep their parent links — and delivers the
;; event at the target's pending instruction. To any other fiber it behaves like
;; fiber.resume: the target's parent becomes the running fiber, and a normal
;; return of the target continues after the fiber.suspend_to.

(module
  (type $g (fiber (result i32)))
  (tag $go (param i32))
  (tag $up (param i32))
  (tag $down (param i32))
  (table $t 8 (ref null $g))

  (global $log (mut i32) (i32.const 0))
  (func $log (param $d i32)
    (global.set $log (i32.add (i32.mul (global.get $log) (i32.const 10)) (local.get $d))))
  (func (export "log") (result i32) (global.get $log))

  ;; The chain root → A → B → C.
  ;; A: resumes B; on $up(v) from anywhere above it logs 4 and suspends to the
  ;;    root with $up(v * 10); when then resumed with $down(w) it returns w + 100.
  (func $nodeA (param $self (ref $g)) (result i32)
    (local $v i32)
    (unreachable)
    (event $go (param i32)
      (local.set $v)
      (call $log (i32.const 1))
      (handle (result i32)
        (fiber.resume $g $go (table.get $t (i32.const 1)) (local.get $v))
        (i32.add (i32.const 1000))
        (event $up (param i32)
          (local.set $v)
          (call $log (i32.const 4))
          (handle (result i32)
            (fiber.suspend $up (local.get $self) (i32.mul (local.get $v) (i32.const 10)))
            (event $down (param i32) (i32.add (i32.const 100))))))))
  ;; B: resumes C; $up would be a bug (C suspends past B), logged as 9;
  ;;    resumed with $down(w) at its pending resume it returns w + 200.
  (func $nodeB (param $self (ref $g)) (result i32)
    (local $x i32)
    (unreachable)
    (event $go (param i32)
      (local.set $x)
      (call $log (i32.const 2))
      (handle (result i32)
        (fiber.resume $g $go (table.get $t (i32.const 2)) (local.get $x))
        (i32.add (i32.const 2000))
        (event $up (param i32) (call $log (i32.const 9)) (drop) (i32.const -9))
        (event $down (param i32) (i32.add (i32.const 200))))))
  ;; C: suspends straight to A with $up(x + 1); resumed with $down(w) it
  ;;    returns w + 300.
  (func $nodeC (param $self (ref $g)) (result i32)
    (local $x i32)
    (unreachable)
    (event $go (param i32)
      (local.set $x)
      (call $log (i32.const 3))
      (handle (result i32)
        (fiber.suspend_to $g $up (table.get $t (i32.const 0)) (i32.add (local.get $x) (i32.const 1)))
        (i32.add (i32.const 3000))
        (event $down (param i32) (i32.add (i32.const 300))))))

  (func (export "init")
    (global.set $log (i32.const 0))
    (table.set $t (i32.const 0) (fiber.new $nodeA))
    (table.set $t (i32.const 1) (fiber.new $nodeB))
    (table.set $t (i32.const 2) (fiber.new $nodeC)))
  (func (export "go") (param $x i32) (result i32)
    (handle (result i32)
      (fiber.resume $g $go (table.get $t (i32.const 0)) (local.get $x))
      (i32.add (i32.const 5000))
      (event $up (param i32))))
  (func (export "down") (param $i i32) (param $v i32) (result i32)
    (handle (result i32)
      (fiber.resume $g $down (table.get $t (local.get $i)) (local.get $v))
      (i32.add (i32.const 5000))
      (event $up (param i32))))
  ;; The root may use suspend_to on a suspended fiber: it acts like resume.
  (func (export "down-to") (param $i i32) (param $v i32) (result i32)
    (handle (result i32)
      (fiber.suspend_to $g $down (table.get $t (local.get $i)) (local.get $v))
      (i32.add (i32.const 5000))
      (event $up (param i32))))

  ;; suspend_to a fiber that is not an ancestor: the target runs as a child of
  ;; the suspending fiber. $helper returns 42 when given 0, otherwise it
  ;; suspends (to its parent) with $up(x * 2) and, resumed with $down(w),
  ;; returns w + 1.
  (func $helper (param $self (ref $g)) (result i32)
    (local $x i32)
    (unreachable)
    (event $go (param i32)
      (local.tee $x)
      (if (result i32) (i32.eqz)
        (then (i32.const 42))
        (else
          (handle (result i32)
            (fiber.suspend $up (local.get $self) (i32.mul (local.get $x) (i32.const 2)))
            (event $down (param i32) (i32.add (i32.const 1))))))))
  (func $caller (param $self (ref $g)) (result i32)
    (local $x i32)
    (unreachable)
    (event $go (param i32)
      (local.set $x)
      (handle (result i32)
        (fiber.suspend_to $g $go (table.get $t (i32.const 3)) (local.get $x))
        (i32.add (i32.const 10000))
        (event $up (param i32) (i32.add (i32.const 20000))))))
  (func (export "via") (param $x i32) (result i32)
    (table.set $t (i32.const 3) (fiber.new $helper))
    (table.set $t (i32.const 4) (fiber.new $caller))
    (handle (result i32)
      (fiber.resume $g $go (table.get $t (i32.const 4)) (local.get $x))
      (event $up (param i32) (i32.const -1) (i32.add))))
  ;; suspend_to a suspended fiber that is not an ancestor (the helper parked
  ;; by "park"): it becomes a child of the caller.
  (func (export "park") (param $x i32) (result i32)
    (table.set $t (i32.const 3) (fiber.new $helper))
    (handle (result i32)
      (fiber.resume $g $go (table.get $t (i32.const 3)) (local.get $x))
      (event $up (param i32))))
  (func $caller2 (param $self (ref $g)) (result i32)
    (local $x i32)
    (unreachable)
    (event $go (param i32)
      (local.set $x)
      (handle (result i32)
        (fiber.suspend_to $g $down (table.get $t (i32.const 3)) (local.get $x))
        (i32.add (i32.const 10000))
        (event $up (param i32) (i32.add (i32.const 20000))))))
  (func (export "via-parked") (param $v i32) (result i32)
    (table.set $t (i32.const 4) (fiber.new $caller2))
    (fiber.resume $g $go (table.get $t (i32.const 4)) (local.get $v)))

  ;; suspend_to the immediate parent is a plain suspend.
  (func $parent (param $self (ref $g)) (result i32)
    (local $x i32)
    (unreachable)
    (event $go (param i32)
      (local.set $x)
      (handle (result i32)
        (fiber.resume $g $go (table.get $t (i32.const 6)) (local.get $x))
        (i32.add (i32.const 1000))
        (event $up (param i32) (i32.add (i32.const 1))))))
  (func $kid (param $self (ref $g)) (result i32)
    (local $x i32)
    (unreachable)
    (event $go (param i32)
      (local.set $x)
      (handle (result i32)
        (fiber.suspend_to $g $up (table.get $t (i32.const 5)) (i32.mul (local.get $x) (i32.const 3)))
        (event $down (param i32)))))
  (func (export "to-parent") (param $x i32) (result i32)
    (table.set $t (i32.const 5) (fiber.new $parent))
    (table.set $t (i32.const 6) (fiber.new $kid))
    (fiber.resume $g $go (table.get $t (i32.const 5)) (local.get $x)))
)

;; C pops B and itself; A receives $up(6) at its pending resume of B.
(invoke "init")
(assert_return (invoke "go" (i32.const 5)) (i32.const 60))
(assert_return (invoke "log") (i32.const 1234))
;; B is suspended at its resume of C: $down is handled there; B's normal
;; return releases its suspended child C.
(assert_return (invoke "down" (i32.const 1) (i32.const 7)) (i32.const 5207))
(assert_trap (invoke "down" (i32.const 2) (i32.const 1)) "fiber is moribund")
(assert_return (invoke "down" (i32.const 0) (i32.const 8)) (i32.const 5108))
(assert_trap (invoke "down" (i32.const 0) (i32.const 8)) "fiber is moribund")

;; Same pop; now C is resumed first (it leaves B's children), then B, then A.
(invoke "init")
(assert_return (invoke "go" (i32.const 5)) (i32.const 60))
(assert_return (invoke "down" (i32.const 2) (i32.const 7)) (i32.const 5307))
(assert_return (invoke "down" (i32.const 1) (i32.const 1)) (i32.const 5201))
(assert_return (invoke "down" (i32.const 0) (i32.const 1)) (i32.const 5101))
(assert_return (invoke "log") (i32.const 1234))

;; A returns first: its suspended descendants B and C are released.
(invoke "init")
(assert_return (invoke "go" (i32.const 0)) (i32.const 10))
(assert_return (invoke "down" (i32.const 0) (i32.const 3)) (i32.const 5103))
(assert_trap (invoke "down" (i32.const 1) (i32.const 0)) "fiber is moribund")
(assert_trap (invoke "down" (i32.const 2) (i32.const 0)) "fiber is moribund")

;; The root uses suspend_to on popped fibers.
(invoke "init")
(assert_return (invoke "go" (i32.const 1)) (i32.const 20))
(assert_return (invoke "down-to" (i32.const 2) (i32.const 4)) (i32.const 5304))
(assert_return (invoke "down-to" (i32.const 1) (i32.const 4)) (i32.const 5204))
(assert_return (invoke "down-to" (i32.const 0) (i32.const 4)) (i32.const 5104))
(assert_trap (invoke "down-to" (i32.const 0) (i32.const 4)) "fiber is moribund")

;; Non-ancestor targets.
(assert_return (invoke "via" (i32.const 0)) (i32.const 10042))
(assert_return (invoke "via" (i32.const 5)) (i32.const 20010))
;; The helper was the caller's suspended child when the caller returned.
(assert_trap (invoke "down" (i32.const 3) (i32.const 0)) "fiber is moribund")
(assert_return (invoke "park" (i32.const 4)) (i32.const 8))
(assert_return (invoke "via-parked" (i32.const 6)) (i32.const 10007))
(assert_trap (invoke "down" (i32.const 3) (i32.const 0)) "fiber is moribund")

(assert_return (invoke "to-parent" (i32.const 4)) (i32.const 13))
(assert_trap (invoke "down" (i32.const 6) (i32.const 0)) "fiber is moribund")
(assert_trap (invoke "down" (i32.const 5) (i32.const 0)) "fiber is moribund")
