;; fiber.resume and fiber.suspend (docs/fibers.md §6.3, §6.4): events carry
;; values in both directions, a resumed fiber continues at the event clause of
;; its suspension point, a normal return delivers the fiber's results after the
;; resuming instruction, and the operand stack above the handle is discarded
;; when an event arrives.

(module
  (type $g (fiber (result i32)))
  (tag $next)
  (tag $stop)
  (tag $yield (param i32))
  (tag $push (param i32))
  (tag $pair (param i32 i32))

  (global $f (mut (ref null $g)) (ref.null $g))

  ;; Counter: every $next makes it count up by $step and yield the count;
  ;; $stop makes it return count + 1000.
  (func $counter (param $self (ref $g)) (param $step i32) (result i32)
    (local $n i32)
    (unreachable)
    (event $next
      (loop $l
        (local.set $n (i32.add (local.get $n) (local.get $step)))
        (handle
          (fiber.suspend $yield (local.get $self) (local.get $n))
          (event $next (br $l))
          (event $stop)))
      (i32.add (local.get $n) (i32.const 1000))))

  ;; Accumulator: adds every pushed value, yields the running sum; $stop
  ;; returns the sum.
  (func $acc (param $self (ref $g)) (result i32)
    (local $sum i32)
    (unreachable)
    (event $push (param i32)
      (local.set $sum)
      (loop $l
        (handle
          (fiber.suspend $yield (local.get $self) (local.get $sum))
          (event $push (param i32)
            (local.set $sum (i32.add (local.get $sum)))
            (br $l))
          (event $stop)))
      (local.get $sum)))

  (func (export "new-counter") (param $step i32)
    (global.set $f (fiber.new $counter (local.get $step))))
  (func (export "new-acc")
    (global.set $f (fiber.new $acc)))

  ;; The handle's result is either the yielded value (clause) or the fiber's
  ;; result (normal return).
  (func (export "next") (result i32)
    (handle (result i32)
      (fiber.resume $g $next (global.get $f))
      (event $yield)))
  (func (export "stop") (result i32)
    (handle (result i32)
      (fiber.resume $g $stop (global.get $f))
      (event $yield)))
  (func (export "push") (param $v i32) (result i32)
    (handle (result i32)
      (fiber.resume $g $push (global.get $f) (local.get $v))
      (event $yield)))

  ;; Values below the handle survive; values pushed inside the handle body
  ;; before the resume are discarded when an event arrives (they are added on
  ;; the normal-return path only).
  (func (export "next-stack") (result i32)
    (i32.add
      (i32.const 100)
      (handle (result i32)
        (i32.const 1)
        (i32.const 2)
        (fiber.resume $g $next (global.get $f))
        (i32.add)
        (i32.add)
        (event $yield))))
  (func (export "stop-stack") (result i32)
    (i32.add
      (i32.const 100)
      (handle (result i32)
        (i32.const 1)
        (i32.const 2)
        (fiber.resume $g $stop (global.get $f))
        (i32.add)
        (i32.add)
        (event $yield))))

  ;; A handle with a parameter: the parameter is gone when the clause runs.
  (func (export "next-param") (param $x i32) (result i32)
    (local.get $x)
    (handle (param i32) (result i32)
      (global.get $f)
      (fiber.resume $g $next)
      (i32.add)
      (event $yield (i32.add (i32.const 1000)))))
)

(invoke "new-counter" (i32.const 1))
(assert_return (invoke "next") (i32.const 1))
(assert_return (invoke "next") (i32.const 2))
(assert_return (invoke "next") (i32.const 3))
(assert_return (invoke "stop") (i32.const 1003))
(assert_trap (invoke "next") "fiber is moribund")

(invoke "new-counter" (i32.const 5))
(assert_return (invoke "next") (i32.const 5))
(assert_return (invoke "next-stack") (i32.const 110))
(assert_return (invoke "next-param" (i32.const 7)) (i32.const 1015))
(assert_return (invoke "stop-stack") (i32.const 1118))
(assert_trap (invoke "stop") "fiber is moribund")

(invoke "new-counter" (i32.const 2))
(assert_return (invoke "next-param" (i32.const 7)) (i32.const 1002))
(assert_return (invoke "stop") (i32.const 1002))

(invoke "new-acc")
(assert_return (invoke "push" (i32.const 10)) (i32.const 10))
(assert_return (invoke "push" (i32.const 5)) (i32.const 15))
(assert_return (invoke "push" (i32.const -3)) (i32.const 12))
(assert_return (invoke "stop") (i32.const 12))
(assert_trap (invoke "push" (i32.const 1)) "fiber is moribund")

;; Suspension deep inside nested calls: every frame of the fiber survives the
;; switch, and the results flow back through the frames after the resume.
(module
  (type $g (fiber (result i32)))
  (tag $next)
  (tag $yield (param i32))
  (tag $push (param i32))
  (global $f (mut (ref null $g)) (ref.null $g))

  (func $level (param $self (ref $g)) (param $k i32) (result i32)
    (local $here i32)
    (local.set $here (i32.mul (local.get $k) (i32.const 10)))
    (if (result i32) (i32.eqz (local.get $k))
      (then
        (handle (result i32)
          (fiber.suspend $yield (local.get $self) (i32.const 77))
          (event $push (param i32))))
      (else
        (i32.add
          (local.get $here)
          (call $level (local.get $self) (i32.sub (local.get $k) (i32.const 1)))))))

  (func $deep (param $self (ref $g)) (param $k i32) (result i32)
    (unreachable)
    (event $next (call $level (local.get $self) (local.get $k))))

  (func (export "new") (param $k i32) (global.set $f (fiber.new $deep (local.get $k))))
  (func (export "next") (result i32)
    (handle (result i32)
      (fiber.resume $g $next (global.get $f))
      (i32.add (i32.const 5000))
      (event $yield)))
  (func (export "push") (param $v i32) (result i32)
    (handle (result i32)
      (fiber.resume $g $push (global.get $f) (local.get $v))
      (i32.add (i32.const 5000))
      (event $yield)))
)

(invoke "new" (i32.const 3))
(assert_return (invoke "next") (i32.const 77))
(assert_return (invoke "push" (i32.const 5)) (i32.const 5065))
(invoke "new" (i32.const 0))
(assert_return (invoke "next") (i32.const 77))
(assert_return (invoke "push" (i32.const 9)) (i32.const 5009))
(invoke "new" (i32.const 20))
(assert_return (invoke "next") (i32.const 77))
(assert_return (invoke "push" (i32.const 1)) (i32.const 7101))

;; Events with several values, in both directions, and i64 payloads.
(module
  (type $g (fiber (result i64)))
  (tag $start (param i32 i64))
  (tag $pair (param i32 i64))
  (tag $more (param i64 i32))
  (global $f (mut (ref null $g)) (ref.null $g))

  ;; Suspends with (a + 1, b * 2); on $more (x, y) returns x - y.
  (func $worker (param $self (ref $g)) (result i64)
    (local $a i32) (local $b i64)
    (unreachable)
    (event $start (param i32 i64)
      (local.set $b)
      (local.set $a)
      (handle (result i64)
        (fiber.suspend $pair (local.get $self)
          (i32.add (local.get $a) (i32.const 1))
          (i64.mul (local.get $b) (i64.const 2)))
        (event $more (param i64 i32)
          (i64.extend_i32_u)
          (i64.sub)))))

  (func (export "start") (param i32 i64) (result i32 i64)
    (global.set $f (fiber.new $worker))
    (handle (result i32 i64)
      (fiber.resume $g $start (global.get $f) (local.get 0) (local.get 1))
      (drop)
      (i32.const -1)
      (i64.const -1)
      (event $pair)))
  (func (export "more") (param i64 i32) (result i64)
    (handle (result i64)
      (fiber.resume $g $more (global.get $f) (local.get 0) (local.get 1))
      (event $pair (drop) (drop) (i64.const -1))))
)

(assert_return (invoke "start" (i32.const 41) (i64.const 0x100000000)) (i32.const 42) (i64.const 0x200000000))
(assert_return (invoke "more" (i64.const 100) (i32.const 58)) (i64.const 42))
(assert_trap (invoke "more" (i64.const 1) (i32.const 1)) "fiber is moribund")
(assert_return (invoke "start" (i32.const -1) (i64.const -4)) (i32.const 0) (i64.const -8))
(assert_return (invoke "more" (i64.const 0) (i32.const 1)) (i64.const -1))

;; Fibers resuming fibers: a fiber is the resume parent of the fibers it
;; resumes, so their suspensions come back to it, not to the root.
(module
  (type $g (fiber (result i32)))
  (tag $next)
  (tag $yield (param i32))
  (global $inner (mut (ref null $g)) (ref.null $g))
  (global $outer (mut (ref null $g)) (ref.null $g))

  ;; yields 1, 2, 3, then returns 0
  (func $numbers (param $self (ref $g)) (result i32)
    (local $i i32)
    (unreachable)
    (event $next
      (block $done
        (loop $l
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br_if $done (i32.gt_u (local.get $i) (i32.const 3)))
          (handle
            (fiber.suspend $yield (local.get $self) (local.get $i))
            (event $next (br $l)))))
      (i32.const 0)))

  ;; pulls two values from $inner per $next and yields their product * 10 + 1;
  ;; when $inner returns, returns -1
  (func $pairs (param $self (ref $g)) (result i32)
    (local $a i32)
    (unreachable)
    (event $next
      (loop $l
        (handle
          (fiber.resume $g $next (global.get $inner))
          (drop)
          (return (i32.const -1))
          (event $yield (local.set $a)))
        (handle
          (fiber.resume $g $next (global.get $inner))
          (drop)
          (return (i32.const -1))
          (event $yield
            (local.get $a)
            (i32.mul)
            (i32.const 10)
            (i32.mul)
            (i32.const 1)
            (i32.add)
            (local.set $a)))
        (handle
          (fiber.suspend $yield (local.get $self) (local.get $a))
          (event $next (br $l))))
      (unreachable)))

  (func (export "init")
    (global.set $inner (fiber.new $numbers))
    (global.set $outer (fiber.new $pairs)))
  (func (export "next") (result i32)
    (handle (result i32)
      (fiber.resume $g $next (global.get $outer))
      (i32.add (i32.const 1000))
      (event $yield)))
  (func (export "next-inner") (result i32)
    (handle (result i32)
      (fiber.resume $g $next (global.get $inner))
      (i32.add (i32.const 1000))
      (event $yield)))
)

(invoke "init")
(assert_return (invoke "next") (i32.const 21))
(assert_return (invoke "next") (i32.const 999))
(assert_trap (invoke "next") "fiber is moribund")
(assert_trap (invoke "next-inner") "fiber is moribund")
(invoke "init")
(assert_return (invoke "next-inner") (i32.const 1))
(assert_return (invoke "next") (i32.const 61))
(assert_return (invoke "next-inner") (i32.const 1000))
