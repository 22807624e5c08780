;; fiber.switch (docs/fibers.md §6.6): the running fiber S suspends and the
;; target T takes its place on the resume chain (T's parent becomes S's
;; parent P, which is not told). A normal return of T delivers T's results at
;; P's pending instruction. If T is a resume ancestor, switch behaves like
;; fiber.suspend_to. S keeps P as its parent.

(module
  (type $g (fiber (result i32)))
  (tag $go (param i32))
  (tag $ball (param i32))
  (tag $up (param i32))
  (tag $back (param i32))
  (table $t 16 (ref null $g))

  (global $log (mut i32) (i32.const 0))
  (func $log (param $d i32)
    (global.set $log (i32.add (i32.mul (global.get $log) (i32.const 10)) (local.get $d))))
  (func (export "log") (result i32) (global.get $log))

  ;; Two players hit a ball back and forth with switch; the one that sees
  ;; n >= 5 returns id * 100 + n.
  (func $player (param $self (ref $g)) (param $id i32) (result i32)
    (local $n i32)
    (unreachable)
    (event $ball (param i32)
      (local.set $n)
      (loop $l
        (call $log (local.get $id))
        (if (i32.ge_u (local.get $n) (i32.const 5))
          (then (return (i32.add (i32.mul (local.get $id) (i32.const 100)) (local.get $n)))))
        (handle
          (fiber.switch $g $ball
            (local.get $self)
            (table.get $t (i32.sub (i32.const 3) (local.get $id)))
            (i32.add (local.get $n) (i32.const 1)))
          (event $ball (param i32) (local.set $n) (br $l))))
      (unreachable)))
  (func (export "rally") (param $n i32) (result i32)
    (global.set $log (i32.const 0))
    (table.set $t (i32.const 1) (fiber.new $player (i32.const 1)))
    (table.set $t (i32.const 2) (fiber.new $player (i32.const 2)))
    (fiber.resume $g $ball (table.get $t (i32.const 1)) (local.get $n)))
  (func (export "serve") (param $i i32) (param $n i32) (result i32)
    (fiber.resume $g $ball (table.get $t (local.get $i)) (local.get $n)))

  ;; Three fibers in a ring: each appends its id and switches to the next;
  ;; the one that sees more than 100000 returns the number.
  (func $ring (param $self (ref $g)) (param $id i32) (result i32)
    (local $n i32)
    (unreachable)
    (event $ball (param i32)
      (local.set $n)
      (loop $l
        (local.set $n (i32.add (i32.mul (local.get $n) (i32.const 10)) (local.get $id)))
        (if (i32.gt_u (local.get $n) (i32.const 100000))
          (then (return (local.get $n))))
        (handle
          (fiber.switch $g $ball
            (local.get $self)
            (table.get $t (i32.add (i32.const 10) (i32.rem_u (local.get $id) (i32.const 3))))
            (local.get $n))
          (event $ball (param i32) (local.set $n) (br $l))))
      (unreachable)))
  (func (export "ring")
    (table.set $t (i32.const 10) (fiber.new $ring (i32.const 1)))
    (table.set $t (i32.const 11) (fiber.new $ring (i32.const 2)))
    (table.set $t (i32.const 12) (fiber.new $ring (i32.const 3))))

  ;; A manager M resumes W1; W1 switches to W2, so W2 runs as M's child:
  ;; its normal return or its suspension reaches M's pending resume.
  (func $manager (param $self (ref $g)) (result i32)
    (local $x i32)
    (unreachable)
    (event $go (param i32)
      (local.set $x)
      (handle (result i32)
        (fiber.resume $g $go (table.get $t (i32.const 3)) (local.get $x))
        (i32.add (i32.const 1000))
        (event $up (param i32) (i32.add (i32.const 2000))))))
  (func $w1 (param $self (ref $g)) (result i32)
    (local $x i32)
    (unreachable)
    (event $go (param i32)
      (local.set $x)
      (handle (result i32)
        (fiber.switch $g $go (local.get $self) (table.get $t (i32.const 4))
          (i32.mul (local.get $x) (i32.const 2)))
        (event $back (param i32) (i32.add (i32.const 300))))))
  (func $w2 (param $self (ref $g)) (result i32)
    (local $y i32)
    (unreachable)
    (event $go (param i32)
      (local.set $y)
      (if (result i32) (i32.lt_u (local.get $y) (i32.const 10))
        (then (i32.add (local.get $y) (i32.const 50)))
        (else
          (handle (result i32)
            (fiber.suspend $up (local.get $self) (local.get $y))
            (event $back (param i32)))))))
  (func (export "mgr") (param $x i32) (result i32)
    (table.set $t (i32.const 0) (fiber.new $manager))
    (table.set $t (i32.const 3) (fiber.new $w1))
    (table.set $t (i32.const 4) (fiber.new $w2))
    (fiber.resume $g $go (table.get $t (i32.const 0)) (local.get $x)))
  (func (export "kick") (param $i i32) (param $v i32) (result i32)
    (fiber.resume $g $back (table.get $t (local.get $i)) (local.get $v)))

  ;; Without a manager: W1 is resumed by the root, switches to W2, and W2
  ;; suspends — the event goes to the root, which never resumed W2.
  (func (export "direct") (param $x i32) (result i32)
    (table.set $t (i32.const 3) (fiber.new $w1))
    (table.set $t (i32.const 4) (fiber.new $w2))
    (handle (result i32)
      (fiber.resume $g $go (table.get $t (i32.const 3)) (local.get $x))
      (i32.add (i32.const 1000))
      (event $up (param i32) (i32.add (i32.const 2000)))))

  ;; switch to an ancestor: like suspend_to.
  (func $a2 (param $self (ref $g)) (result i32)
    (local $x i32)
    (unreachable)
    (event $go (param i32)
      (local.set $x)
      (handle (result i32)
        (fiber.resume $g $go (table.get $t (i32.const 6)) (local.get $x))
        (i32.add (i32.const 1000))
        (event $up (param i32) (i32.add (i32.const 10))))))
  (func $b2 (param $self (ref $g)) (result i32)
    (local $x i32)
    (unreachable)
    (event $go (param i32)
      (local.set $x)
      (handle (result i32)
        (fiber.switch $g $up (local.get $self) (table.get $t (i32.const 5))
          (i32.mul (local.get $x) (i32.const 5)))
        (event $back (param i32)))))
  (func (export "anc") (param $x i32) (result i32)
    (table.set $t (i32.const 5) (fiber.new $a2))
    (table.set $t (i32.const 6) (fiber.new $b2))
    (fiber.resume $g $go (table.get $t (i32.const 5)) (local.get $x)))
)

;; 1 serves 0; the players alternate; player 2 sees 5 and returns 205 to the
;; root, which resumed player 1 only.
(assert_return (invoke "rally" (i32.const 0)) (i32.const 205))
(assert_return (invoke "log") (i32.const 121212))
;; Player 1 is still suspended at its switch; player 2 is moribund.
(assert_return (invoke "serve" (i32.const 1) (i32.const 7)) (i32.const 107))
(assert_trap (invoke "serve" (i32.const 2) (i32.const 7)) "fiber is moribund")
(assert_trap (invoke "serve" (i32.const 1) (i32.const 7)) "fiber is moribund")
(assert_return (invoke "rally" (i32.const 4)) (i32.const 205))
(assert_return (invoke "log") (i32.const 12))
(assert_return (invoke "rally" (i32.const 5)) (i32.const 105))
(assert_return (invoke "log") (i32.const 1))
;; player 2 was never resumed: it is still fresh
(assert_return (invoke "serve" (i32.const 2) (i32.const 9)) (i32.const 209))
(assert_return (invoke "rally" (i32.const 3)) (i32.const 105))
(assert_return (invoke "log") (i32.const 121))
(assert_return (invoke "serve" (i32.const 2) (i32.const 6)) (i32.const 206))
(assert_return (invoke "log") (i32.const 1212))

(invoke "ring")
(assert_return (invoke "serve" (i32.const 10) (i32.const 0)) (i32.const 123123))
;; 1 → 2 → 3, and 3 is moribund: the trap aborts the running fiber (2);
;; fiber 1 was suspended by its switch and survives.
(assert_trap (invoke "serve" (i32.const 10) (i32.const 0)) "fiber is moribund")
(assert_trap (invoke "serve" (i32.const 11) (i32.const 0)) "fiber is moribund")
(assert_return (invoke "serve" (i32.const 10) (i32.const 200000)) (i32.const 2000001))

(assert_return (invoke "mgr" (i32.const 3)) (i32.const 1056))
;; W1 stayed M's suspended child and was released when M returned.
(assert_trap (invoke "kick" (i32.const 3) (i32.const 0)) "fiber is moribund")
(assert_trap (invoke "kick" (i32.const 4) (i32.const 0)) "fiber is moribund")
(assert_return (invoke "mgr" (i32.const 7)) (i32.const 2014))
(assert_trap (invoke "kick" (i32.const 3) (i32.const 0)) "fiber is moribund")
(assert_trap (invoke "kick" (i32.const 4) (i32.const 0)) "fiber is moribund")

(assert_return (invoke "direct" (i32.const 2)) (i32.const 1054))
(assert_return (invoke "kick" (i32.const 3) (i32.const 1)) (i32.const 301))
(assert_return (invoke "direct" (i32.const 6)) (i32.const 2012))
(assert_return (invoke "kick" (i32.const 4) (i32.const 5)) (i32.const 5))
(assert_return (invoke "kick" (i32.const 3) (i32.const 2)) (i32.const 302))

(assert_return (invoke "anc" (i32.const 3)) (i32.const 25))
(assert_trap (invoke "kick" (i32.const 6) (i32.const 0)) "fiber is moribund")
