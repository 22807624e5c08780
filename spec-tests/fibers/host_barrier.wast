;; Chain segments and host frames (docs/fibers.md §2.4, §6.12).
;;
;; Every host → Wasm entry (each invoke, and a module's start function) is the
;; root of a new chain segment. A fiber suspended in one segment can be
;; resumed from a later one; its parent is then the new root. Calls between
;; Wasm instances are ordinary calls, not host frames: a fiber may suspend
;; inside a function of another instance, and tags keep their identity across
;; instances.
;;
;; Not expressible in WAST: the trap "cannot switch across a host frame". It
;; needs a host function that calls back into Wasm while fibers are waiting
;; below it; the spectest module has no such function. A unit test of the
;; embedding API must cover it (fiber F calls host function H, H calls export
;; E, and E does fiber.suspend_to / fiber.switch / fiber.retireto to F or to
;; any fiber waiting below H: trap "cannot switch across a host frame";
;; fiber.resume or fiber.release of such a fiber: trap "fiber is active";
;; fiber.suspend with S = F: "not the running fiber"; a fiber that is merely
;; suspended may be resumed from E; a trap in E aborts only E's segment).

(module $lib
  (type $g (fiber (result i32)))
  (tag $yield (export "yield") (param i32))
  (tag $resume (export "resume") (param i32))
  (table $tab (export "tab") 4 (ref null $g))
  ;; Suspends the calling fiber with $yield(v); returns the value of the
  ;; $resume that continues it.
  (func (export "yield-value") (param $self (ref null $g)) (param $v i32) (result i32)
    (handle (result i32)
      (fiber.suspend $yield (local.get $self) (local.get $v))
      (event $resume (param i32))))
  (func (export "resume-slot") (param $i i32) (param $v i32) (result i32)
    (handle (result i32)
      (fiber.resume $g $resume (table.get $tab (local.get $i)) (local.get $v))
      (i32.add (i32.const 1000))
      (event $yield (param i32))))
)
(register "lib" $lib)

(module $user
  (type $g (fiber (result i32)))
  (import "lib" "yield" (tag $yield (param i32)))
  (import "lib" "resume" (tag $resume (param i32)))
  (import "lib" "yield-value" (func $yield-value (param (ref null $g) i32) (result i32)))
  (import "lib" "tab" (table $tab 4 (ref null $g)))
  (import "spectest" "print_i32" (func $print (param i32)))
  (func $worker (param $self (ref $g)) (result i32)
    (local $sum i32)
    (unreachable)
    (event $resume (param i32)
      (local.set $sum)
      (call $print (local.get $sum))
      (local.set $sum (i32.add (local.get $sum) (call $yield-value (local.get $self) (i32.const 1))))
      (local.set $sum (i32.add (local.get $sum) (call $yield-value (local.get $self) (i32.const 2))))
      (local.get $sum)))
  (func (export "install") (param $i i32)
    (table.set $tab (local.get $i) (fiber.new $worker)))
  (func (export "resume-here") (param $i i32) (param $v i32) (result i32)
    (handle (result i32)
      (fiber.resume $g $resume (table.get $tab (local.get $i)) (local.get $v))
      (i32.add (i32.const 2000))
      (event $yield (param i32) (i32.add (i32.const 3000)))))
)

;; Each invoke is a new segment; the worker's parent changes every time, and
;; it may be resumed from either instance.
(invoke $user "install" (i32.const 0))
(assert_return (invoke $lib "resume-slot" (i32.const 0) (i32.const 10)) (i32.const 1))
(assert_return (invoke $user "resume-here" (i32.const 0) (i32.const 20)) (i32.const 3002))
(assert_return (invoke $lib "resume-slot" (i32.const 0) (i32.const 5)) (i32.const 1035))
(assert_trap (invoke $lib "resume-slot" (i32.const 0) (i32.const 0)) "fiber is moribund")
(invoke $user "install" (i32.const 0))
(assert_return (invoke $user "resume-here" (i32.const 0) (i32.const 1)) (i32.const 3001))
(assert_return (invoke $user "resume-here" (i32.const 0) (i32.const 1)) (i32.const 3002))
(assert_return (invoke $user "resume-here" (i32.const 0) (i32.const 1)) (i32.const 2003))

;; A start function is a root too: the fiber it leaves suspended survives
;; instantiation and is resumed by a later invoke.
(module $starter
  (type $g (fiber (result i32)))
  (import "lib" "yield" (tag $yield (param i32)))
  (import "lib" "resume" (tag $resume (param i32)))
  (import "lib" "yield-value" (func $yield-value (param (ref null $g) i32) (result i32)))
  (import "lib" "tab" (table $tab 4 (ref null $g)))
  (func $w (param $self (ref $g)) (result i32)
    (local $x i32)
    (unreachable)
    (event $resume (param i32)
      (local.set $x)
      (i32.add (call $yield-value (local.get $self) (local.get $x)) (i32.const 100))))
  (func $start
    (table.set $tab (i32.const 1) (fiber.new $w))
    (handle
      (fiber.resume $g $resume (table.get $tab (i32.const 1)) (i32.const 7))
      (drop)
      (event $yield (param i32) (drop))))
  (start $start)
)
(assert_return (invoke $lib "resume-slot" (i32.const 1) (i32.const 5)) (i32.const 1105))
(assert_trap (invoke $lib "resume-slot" (i32.const 1) (i32.const 5)) "fiber is moribund")

;; A trap in a start function aborts its segment: the fiber running there is
;; moribund; a fiber it only created is not affected (table writes made before
;; the trap persist).
(assert_trap
  (module
    (type $g (fiber (result i32)))
    (import "lib" "resume" (tag $resume (param i32)))
    (import "lib" "tab" (table $tab 4 (ref null $g)))
    (func $bad (param $self (ref $g)) (result i32)
      (local $x i32)
      (unreachable)
      (event $resume (param i32)
        (local.set $x)
        (i32.div_u (i32.const 1) (local.get $x))))
    (func $start
      (table.set $tab (i32.const 2) (fiber.new $bad))
      (table.set $tab (i32.const 3) (fiber.new $bad))
      (drop (fiber.resume $g $resume (table.get $tab (i32.const 2)) (i32.const 0))))
    (start $start))
  "integer divide by zero")
(assert_trap (invoke $lib "resume-slot" (i32.const 2) (i32.const 1)) "fiber is moribund")
(assert_return (invoke $lib "resume-slot" (i32.const 3) (i32.const 1)) (i32.const 1001))
(assert_trap (invoke $lib "resume-slot" (i32.const 3) (i32.const 1)) "fiber is moribund")
