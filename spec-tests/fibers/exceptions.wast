;; Exceptions and fibers (docs/fibers.md §6.14, docs/exceptions.md): every rule
;; of §6.14, on both tiers.
;;
;;  1. Inside a fiber exceptions are core Wasm's; a try_table whose body
;;     suspended still catches after the fiber is resumed.
;;  2. An exception leaving fiber F's function ends F as a return does (moribund,
;;     suspended descendants released) and is thrown in F's parent at its
;;     pending instruction (fiber.spawn, fiber.resume, fiber.suspend_to), where
;;     F's results would have arrived.
;;  3. After fiber.switch, the fiber switched to has the switcher's parent: that
;;     parent receives its exception.
;;  4. At the root, the host call ends with the exception (assert_exception).
;;  5. Events are not exceptions and exceptions are not events (one tag may be
;;     both).
;;  6. Traps are not exceptions: no clause catches one, not even catch_all.
;;  7. fiber.release of a suspended fiber runs none of its handlers.
;;  8. Host frames: an exception leaving the Wasm code a host function called
;;     ends that call; the host function here returns the error unchanged, so
;;     it continues in the caller, inside a fiber too.
;;  9. exnref values cross fibers.

(module
  (type $g (fiber (result i32)))
  (tag $go (param i32))
  (tag $tick (param i32))
  (tag $boom (param i32))
  (tag $plain)
  (tag $both (param i32))    ;; thrown, and sent as an event
  (tag $carry (param exnref))

  (global $a (mut (ref null $g)) (ref.null $g))
  (global $c (mut (ref null $g)) (ref.null $g))
  (global $log (mut i32) (i32.const 0))
  (func $log (param $d i32)
    (global.set $log (i32.add (i32.mul (global.get $log) (i32.const 10)) (local.get $d))))
  (func (export "log") (result i32) (global.get $log))
  (func (export "reset") (global.set $log (i32.const 0)))
  (func (export "resume-a") (param i32) (result i32) (fiber.resume $g $go (global.get $a) (local.get 0)))
  (func (export "resume-c") (param i32) (result i32) (fiber.resume $g $go (global.get $c) (local.get 0)))

  ;; A fresh fiber: on $go(x), returns 77 for x = 0, else throws $boom(2x).
  (func $thrower (param $self (ref $g)) (result i32)
    (local $x i32)
    (unreachable)
    (event $go (param i32)
      (local.set $x)
      (if (i32.eqz (local.get $x)) (then (return (i32.const 77))))
      (throw $boom (i32.mul (local.get $x) (i32.const 2)))))

  ;; Rule 2 at fiber.resume: 1000 + the payload when the fiber threw.
  (func (export "resume-catch") (param $x i32) (result i32)
    (block $h (result i32)
      (try_table (result i32) (catch $boom $h)
        (global.set $a (fiber.new $thrower))
        (fiber.resume $g $go (global.get $a) (local.get $x)))
      (return))
    (i32.add (i32.const 1000)))
  (func (export "resume-uncaught") (param $x i32) (result i32)
    (fiber.resume $g $go (fiber.new $thrower) (local.get $x)))
  ;; The try_table is in a caller of the function that resumes.
  (func $resume-thrower (param $x i32) (result i32)
    (fiber.resume $g $go (fiber.new $thrower) (local.get $x)))
  (func (export "resume-catch-in-caller") (param $x i32) (result i32)
    (block $h (result i32)
      (try_table (result i32) (catch $boom $h)
        (call $resume-thrower (local.get $x)))
      (return))
    (i32.add (i32.const 1100)))
  ;; catch_all and catch_all_ref see the fiber's exception too.
  (func (export "resume-catch-all") (param $x i32) (result i32)
    (block $h
      (try_table (result i32) (catch_all $h)
        (fiber.resume $g $go (fiber.new $thrower) (local.get $x)))
      (return))
    (i32.const -2))
  (func (export "resume-rethrow") (param $x i32) (result i32)
    (block $outer (result i32)
      (try_table (result i32) (catch $boom $outer)
        (block $h (result exnref)
          (try_table (result i32) (catch_all_ref $h)
            (fiber.resume $g $go (fiber.new $thrower) (local.get $x)))
          (return))
        (throw_ref)))
    (i32.add (i32.const 1200)))

  ;; Rule 2 at fiber.spawn: the spawned function throws at once.
  (func $spawn-thrower (param $self (ref $g)) (param $x i32) (result i32)
    (call $log (i32.const 1))
    (throw $boom (local.get $x)))
  (func (export "spawn-catch") (param $x i32) (result i32)
    (block $h (result i32)
      (try_table (result i32) (catch $boom $h)
        (fiber.spawn $spawn-thrower (local.get $x)))
      (return))
    (i32.add (i32.const 2000)))
  (func (export "spawn-uncaught") (param $x i32) (result i32)
    (fiber.spawn $spawn-thrower (local.get $x)))

  ;; Rule 2 down a chain: root spawns A ($middle), A resumes B ($thrower).
  ;; $catch = 1: A catches B's exception (300 + payload) and returns.
  (func $middle (param $self (ref $g)) (param $x i32) (param $catch i32) (result i32)
    (global.set $a (local.get $self))
    (global.set $c (fiber.new $thrower))
    (if (local.get $catch)
      (then
        (block $h (result i32)
          (try_table (result i32) (catch $boom $h)
            (fiber.resume $g $go (global.get $c) (local.get $x)))
          (return (i32.add (i32.const 5000))))
        (return (i32.add (i32.const 300)))))
    (fiber.resume $g $go (global.get $c) (local.get $x))
    (i32.add (i32.const 5000)))
  (func (export "chain") (param $x i32) (param $catch i32) (result i32)
    (block $h (result i32)
      (try_table (result i32) (catch $boom $h)
        (fiber.spawn $middle (local.get $x) (local.get $catch)))
      (return))
    (i32.add (i32.const 1000)))
  (func (export "chain-uncaught") (param $x i32) (result i32)
    (fiber.spawn $middle (local.get $x) (i32.const 0)))

  ;; Rule 2 at fiber.suspend_to of a suspended non-ancestor: the caller waits
  ;; there, and the fiber it switched to throws.
  (func (export "suspend-to-catch") (param $x i32) (result i32)
    (local $t (ref null $g))
    (local.set $t (fiber.new $thrower))
    (block $h (result i32)
      (try_table (result i32) (catch $boom $h)
        (fiber.suspend_to $g $go (local.get $t) (local.get $x)))
      (return))
    (i32.add (i32.const 1300)))

  ;; Rule 1: a try_table around a suspension point catches after the resume.
  (func $patient (param $self (ref $g)) (result i32)
    (local $x i32)
    (global.set $a (local.get $self))
    (block $h (result i32)
      (try_table (result i32) (catch $boom $h)
        (handle (result i32)
          (fiber.suspend $tick (local.get $self) (i32.const 1))
          (event $go (param i32)
            (local.set $x)
            (if (local.get $x) (then (throw $boom (local.get $x))))
            (i32.const 55))))
      (return))
    (i32.add (i32.const 100)))
  (func (export "patient-start") (result i32)
    (handle (result i32) (fiber.spawn $patient) (event $tick (param i32))))

  ;; Rule 2 at a resume of a suspended fiber (the JIT's inline switch): $late
  ;; suspends with $tick, then throws what the resume sends it. "late-loop"
  ;; does that n times through one resume site.
  (func $late (param $self (ref $g)) (result i32)
    (global.set $a (local.get $self))
    (handle (result i32)
      (fiber.suspend $tick (local.get $self) (i32.const 4))
      (event $go (param i32) (throw $boom))))
  (func $resume-late (param $x i32) (result i32)
    (block $h (result i32)
      (try_table (result i32) (catch $boom $h)
        (fiber.resume $g $go (global.get $a) (local.get $x)))
      (return))
    (i32.add (i32.const 1400)))
  (func (export "late-loop") (param $n i32) (result i32)
    (local $sum i32)
    (loop $l
      (drop (handle (result i32) (fiber.spawn $late) (event $tick (param i32))))
      (local.set $sum (i32.add (local.get $sum) (call $resume-late (local.get $n))))
      (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))
    (local.get $sum))
  (func (export "late-uncaught") (param $x i32) (result i32)
    (drop (handle (result i32) (fiber.spawn $late) (event $tick (param i32))))
    (fiber.resume $g $go (global.get $a) (local.get $x)))

  ;; Rule 2, descendants: $parent spawns $child, which suspends to it; then
  ;; $parent throws. The child is released as on a return.
  (func $child (param $self (ref $g)) (result i32)
    (global.set $c (local.get $self))
    (handle (result i32)
      (fiber.suspend $tick (local.get $self) (i32.const 3))
      (event $go (param i32))))
  (func $parent (param $self (ref $g)) (param $x i32) (result i32)
    (global.set $a (local.get $self))
    (drop (handle (result i32) (fiber.spawn $child) (event $tick (param i32))))
    (throw $boom (local.get $x)))
  (func (export "parent-throws") (param $x i32) (result i32)
    (block $h (result i32)
      (try_table (result i32) (catch $boom $h)
        (fiber.spawn $parent (local.get $x)))
      (return))
    (i32.add (i32.const 700)))

  ;; Rule 3: A switches to a fresh $thrower B, which takes A's place: B's
  ;; exception goes to the root's resume of A; A stays suspended.
  (func $switcher (param $self (ref $g)) (result i32)
    (local $x i32)
    (unreachable)
    (event $go (param i32)
      (local.set $x)
      (global.set $a (local.get $self))
      (global.set $c (fiber.new $thrower))
      (handle (result i32)
        (fiber.switch $g $go (local.get $self) (global.get $c) (local.get $x))
        (event $go (param i32) (i32.add (i32.const 40))))))
  (func (export "switch-throw") (param $x i32) (result i32)
    (block $h (result i32)
      (try_table (result i32) (catch $boom $h)
        (fiber.resume $g $go (fiber.new $switcher) (local.get $x)))
      (return))
    (i32.add (i32.const 3000)))

  ;; Rule 5: the event $both goes to the handle, not to the try_table ...
  (func $sender (param $self (ref $g)) (result i32)
    (fiber.suspend $both (local.get $self) (i32.const 5)))
  (func (export "event-not-caught") (result i32)
    (block $h (result i32)
      (try_table (result i32) (catch $both $h)
        (handle (result i32)
          (fiber.spawn $sender)
          (event $both (param i32) (i32.add (i32.const 500)))))
      (return))
    (i32.add (i32.const 900)))
  ;; ... the exception $both to the try_table, not to the handle ...
  (func $both-thrower (param $self (ref $g)) (result i32)
    (throw $both (i32.const 6)))
  (func (export "exception-not-an-event") (result i32)
    (block $h (result i32)
      (try_table (result i32) (catch $both $h)
        (handle (result i32)
          (fiber.spawn $both-thrower)
          (event $both (param i32) (i32.add (i32.const 500)))))
      (return))
    (i32.add (i32.const 900)))
  (func (export "exception-not-an-event-uncaught") (result i32)
    (handle (result i32)
      (fiber.spawn $both-thrower)
      (event $both (param i32) (i32.add (i32.const 500)))))
  ;; ... and a try_table does not take an event for a handle.
  (func $waiting-in-try (param $self (ref $g)) (result i32)
    (global.set $a (local.get $self))
    (block $h (result i32)
      (try_table (result i32) (catch $go $h)
        (handle (result i32)
          (fiber.suspend $tick (local.get $self) (i32.const 2))
          (event $plain (i32.const 8))))
      (return))
    (drop)
    (i32.const 9))
  (func (export "waiting-in-try-start") (result i32)
    (handle (result i32) (fiber.spawn $waiting-in-try) (event $tick (param i32))))

  ;; Rule 6: a trap in a fiber is not caught, and aborts the segment.
  (func $trapper (param $self (ref $g)) (result i32)
    (global.set $c (local.get $self))
    (unreachable))
  (func (export "trap-not-caught") (result i32)
    (block $h
      (try_table (result i32) (catch_all $h)
        (fiber.spawn $trapper))
      (return))
    (i32.const -1))
  (func $trap-under-spawn (param $self (ref $g)) (result i32)
    (global.set $a (local.get $self))
    (block $h
      (try_table (result i32) (catch_all $h)
        (fiber.spawn $trapper))
      (return))
    (i32.const -1))
  (func (export "trap-two-deep") (result i32) (fiber.spawn $trap-under-spawn))

  ;; Rule 7: releasing a suspended fiber runs none of its handlers.
  (func $guarded (param $self (ref $g)) (result i32)
    (global.set $a (local.get $self))
    (block $h
      (try_table (catch_all $h)
        (handle
          (fiber.suspend $tick (local.get $self) (i32.const 1))
          (event $go (param i32) (drop) (throw $plain))))
      (return (i32.const 0)))
    (call $log (i32.const 9))
    (i32.const 9))
  (func (export "guarded-start") (result i32)
    (handle (result i32) (fiber.spawn $guarded) (event $tick (param i32))))
  (func (export "release-a") (fiber.release (global.get $a)))

  ;; Rule 9: a fiber catches with catch_all_ref and hands the exnref over as
  ;; an event; the root throws it again.
  (func $catcher (param $self (ref $g)) (result i32)
    (local $e exnref)
    (block $h (result exnref)
      (try_table (catch_all_ref $h) (throw $boom (i32.const 12)))
      (unreachable))
    (local.set $e)
    (fiber.suspend $carry (local.get $self) (local.get $e)))
  (func (export "exnref-across") (result i32)
    (block $h (result i32)
      (try_table (result i32) (catch $boom $h)
        (handle (result i32)
          (fiber.spawn $catcher)
          (event $carry (param exnref) (throw_ref))))
      (return))
    (i32.add (i32.const 400)))

  ;; Many fibers ending by exceptions (the exception objects are reused).
  (func (export "many") (param $n i32) (result i32)
    (local $sum i32)
    (loop $l
      (block $h (result i32)
        (try_table (result i32) (catch $boom $h)
          (fiber.resume $g $go (fiber.new $thrower) (local.get $n)))
        (drop)
        (br $l))
      (local.set $sum (i32.add (local.get $sum)))
      (local.tee $n (i32.sub (local.get $n) (i32.const 1)))
      (br_if $l))
    (local.get $sum))
)

;; Rule 2 at fiber.resume: caught, the fiber is moribund after.
(assert_return (invoke "resume-catch" (i32.const 0)) (i32.const 77))
(assert_trap (invoke "resume-a" (i32.const 1)) "fiber is moribund")
(assert_return (invoke "resume-catch" (i32.const 5)) (i32.const 1010))
(assert_trap (invoke "resume-a" (i32.const 1)) "fiber is moribund")
(assert_return (invoke "resume-catch" (i32.const -3)) (i32.const 994))
(assert_return (invoke "resume-catch-in-caller" (i32.const 4)) (i32.const 1108))
(assert_return (invoke "resume-catch-in-caller" (i32.const 0)) (i32.const 77))
(assert_return (invoke "resume-catch-all" (i32.const 1)) (i32.const -2))
(assert_return (invoke "resume-catch-all" (i32.const 0)) (i32.const 77))
(assert_return (invoke "resume-rethrow" (i32.const 21)) (i32.const 1242))
(assert_return (invoke "resume-rethrow" (i32.const 0)) (i32.const 77))
;; Rule 4: uncaught, the host call ends with the exception.
(assert_exception (invoke "resume-uncaught" (i32.const 5)))
(assert_return (invoke "resume-uncaught" (i32.const 0)) (i32.const 77))

;; Rule 2 at fiber.spawn.
(invoke "reset")
(assert_return (invoke "spawn-catch" (i32.const 4)) (i32.const 2004))
(assert_return (invoke "log") (i32.const 1))
(assert_exception (invoke "spawn-uncaught" (i32.const 4)))
(assert_return (invoke "log") (i32.const 11))

;; Rule 2 down a chain.
(assert_return (invoke "chain" (i32.const 3) (i32.const 0)) (i32.const 1006))
(assert_trap (invoke "resume-a" (i32.const 0)) "fiber is moribund")
(assert_trap (invoke "resume-c" (i32.const 0)) "fiber is moribund")
(assert_return (invoke "chain" (i32.const 3) (i32.const 1)) (i32.const 306))
(assert_trap (invoke "resume-a" (i32.const 0)) "fiber is moribund")
(assert_trap (invoke "resume-c" (i32.const 0)) "fiber is moribund")
(assert_return (invoke "chain" (i32.const 0) (i32.const 0)) (i32.const 5077))
(assert_return (invoke "chain" (i32.const 0) (i32.const 1)) (i32.const 5077))
(assert_exception (invoke "chain-uncaught" (i32.const 2)))
(assert_trap (invoke "resume-a" (i32.const 0)) "fiber is moribund")

;; Rule 2 at fiber.suspend_to.
(assert_return (invoke "suspend-to-catch" (i32.const 6)) (i32.const 1312))
(assert_return (invoke "suspend-to-catch" (i32.const 0)) (i32.const 77))

;; Rule 1: the try_table around the suspension point catches after resume.
(assert_return (invoke "patient-start") (i32.const 1))
(assert_return (invoke "resume-a" (i32.const 7)) (i32.const 107))
(assert_trap (invoke "resume-a" (i32.const 7)) "fiber is moribund")
(assert_return (invoke "patient-start") (i32.const 1))
(assert_return (invoke "resume-a" (i32.const 0)) (i32.const 55))

;; Rule 2 at resumes of suspended fibers, through one (hot) resume site.
(assert_return (invoke "late-loop" (i32.const 1)) (i32.const 1401))
(assert_trap (invoke "resume-a" (i32.const 0)) "fiber is moribund")
(assert_return (invoke "late-loop" (i32.const 100)) (i32.const 145050))
(assert_exception (invoke "late-uncaught" (i32.const 3)))
(assert_trap (invoke "resume-a" (i32.const 0)) "fiber is moribund")

;; Rule 2: the thrower's suspended child is released with it.
(assert_return (invoke "parent-throws" (i32.const 9)) (i32.const 709))
(assert_trap (invoke "resume-c" (i32.const 0)) "fiber is moribund")
(assert_trap (invoke "resume-a" (i32.const 0)) "fiber is moribund")

;; Rule 3: after fiber.switch, the exception goes to the switcher's parent.
(assert_return (invoke "switch-throw" (i32.const 4)) (i32.const 3008))
(assert_trap (invoke "resume-c" (i32.const 0)) "fiber is moribund")
(assert_return (invoke "resume-a" (i32.const 2)) (i32.const 42))
(assert_trap (invoke "resume-a" (i32.const 2)) "fiber is moribund")
(assert_return (invoke "switch-throw" (i32.const 0)) (i32.const 77))
(assert_return (invoke "resume-a" (i32.const 3)) (i32.const 43))

;; Rule 5: events and exceptions of one tag.
(assert_return (invoke "event-not-caught") (i32.const 505))
(assert_return (invoke "exception-not-an-event") (i32.const 906))
(assert_exception (invoke "exception-not-an-event-uncaught"))
(assert_return (invoke "waiting-in-try-start") (i32.const 2))
(assert_trap (invoke "resume-a" (i32.const 1)) "unhandled event")
(assert_trap (invoke "resume-a" (i32.const 1)) "fiber is moribund")

;; Rule 6: traps are not caught.
(assert_trap (invoke "trap-not-caught") "unreachable")
(assert_trap (invoke "resume-c" (i32.const 0)) "fiber is moribund")
(assert_trap (invoke "trap-two-deep") "unreachable")
(assert_trap (invoke "resume-a" (i32.const 0)) "fiber is moribund")
(assert_trap (invoke "resume-c" (i32.const 0)) "fiber is moribund")

;; Rule 7: release runs no handler (the catch_all would log 9).
(invoke "reset")
(assert_return (invoke "guarded-start") (i32.const 1))
(invoke "release-a")
(assert_return (invoke "log") (i32.const 0))
(assert_trap (invoke "resume-a" (i32.const 1)) "fiber is moribund")
;; Resumed instead of released, the same fiber's handler runs.
(assert_return (invoke "guarded-start") (i32.const 1))
(assert_return (invoke "resume-a" (i32.const 1)) (i32.const 9))
(assert_return (invoke "log") (i32.const 9))

;; Rule 9: an exnref thrown again in another fiber.
(assert_return (invoke "exnref-across") (i32.const 412))

(assert_return (invoke "many" (i32.const 1000)) (i32.const 1001000))

;; Rule 8: host frames. weft_test.reenter calls this module's export
;; "reenter-target" through a host frame and returns its error unchanged.
(module
  (type $g (fiber (result i32)))
  (import "weft_test" "reenter" (func $reenter))
  (tag $boom (param i32))
  (tag $tick (param i32))
  (global $mode (mut i32) (i32.const 0))
  (global $seen (mut i32) (i32.const 0))
  (func $inner-thrower (param $self (ref $g)) (result i32)
    (throw $boom (i32.const 31)))
  ;; mode 0: throws $boom(11); mode 1: spawns a fiber of the inner segment
  ;; that throws $boom(31); mode 2: catches that itself.
  (func (export "reenter-target")
    (if (i32.eqz (global.get $mode)) (then (throw $boom (i32.const 11))))
    (if (i32.eq (global.get $mode) (i32.const 1)) (then (drop (fiber.spawn $inner-thrower))))
    (block $h (result i32)
      (try_table (result i32) (catch $boom $h)
        (fiber.spawn $inner-thrower))
      (drop)
      (return))
    (global.set $seen))
  (func (export "set-mode") (param i32) (global.set $mode (local.get 0)))
  (func (export "seen") (result i32) (global.get $seen))
  (func (export "reenter-catch") (result i32)
    (block $h (result i32)
      (try_table (catch $boom $h) (call $reenter))
      (return (i32.const 0)))
    (i32.add (i32.const 1000)))
  (func (export "reenter-uncaught") (call $reenter))
  ;; The host frame inside a fiber: the fiber catches what came through it.
  (func $via-host (param $self (ref $g)) (result i32)
    (block $h (result i32)
      (try_table (catch $boom $h) (call $reenter))
      (return (i32.const 0)))
    (i32.add (i32.const 2000)))
  (func (export "fiber-reenter-catch") (result i32) (fiber.spawn $via-host))
  ;; Not caught in the fiber: it ends the fiber and reaches the root.
  (func $via-host-uncaught (param $self (ref $g)) (result i32)
    (call $reenter)
    (i32.const 0))
  (func (export "fiber-reenter-parent-catch") (result i32)
    (block $h (result i32)
      (try_table (result i32) (catch $boom $h) (fiber.spawn $via-host-uncaught))
      (return))
    (i32.add (i32.const 3000)))
)
(assert_return (invoke "reenter-catch") (i32.const 1011))
(assert_exception (invoke "reenter-uncaught"))
(assert_return (invoke "fiber-reenter-catch") (i32.const 2011))
(assert_return (invoke "fiber-reenter-parent-catch") (i32.const 3011))
(invoke "set-mode" (i32.const 1))
(assert_return (invoke "reenter-catch") (i32.const 1031))
(assert_return (invoke "fiber-reenter-catch") (i32.const 2031))
(assert_return (invoke "fiber-reenter-parent-catch") (i32.const 3031))
(assert_exception (invoke "reenter-uncaught"))
(invoke "set-mode" (i32.const 2))
(assert_return (invoke "reenter-catch") (i32.const 0))
(assert_return (invoke "seen") (i32.const 31))
(assert_return (invoke "fiber-reenter-catch") (i32.const 0))
