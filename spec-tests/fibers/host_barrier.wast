;; Chain segments and host frames (docs/fibers.md §2.4, §6.12).
;;
;; Every host → Wasm entry (each invoke, and a module's start function) is the
;; root of a new chain segment. A fiber suspended in one segment can be
;; resumed from a later one; its parent is then the new root. Calls between
;; Wasm instances are ordinary calls, not host frames: a fiber may suspend
;; inside a function of another instance, and tags keep their identity across
;; instances.
;;
;; Host frames: weft's WAST runner provides `(import "weft_test" "reenter"
;; (func))`, a host function that calls the export "reenter-target" of the
;; latest module — a host frame between two chain segments. The last module of
;; this file uses it: a fiber waiting below the host frame cannot be switched
;; to from the inner segment ("cannot switch across a host frame"), cannot be
;; resumed or released ("fiber is active"), and is not the running fiber of the
;; inner segment. The embedding-API unit tests (tests/execution/
;; fiber_host_test.cc) cover the same through Store::call.

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

;; ---- Host frames as barriers (weft_test.reenter) ----------------------------
(module
  (type $g (fiber))
  (import "weft_test" "reenter" (func $reenter))
  (tag $e)
  (global $waiting (mut (ref null $g)) (ref.null $g))
  (global $mode (mut i32) (i32.const 0))

  ;; B runs on top of A (A waits in its fiber.spawn) and calls the host,
  ;; which re-enters this module through "reenter-target".
  (func $b (param $self (ref $g)) (call $reenter))
  (func $a (param $self (ref $g))
    (global.set $waiting (local.get $self))
    (fiber.spawn $b))
  (func (export "outer") (param $mode i32)
    (global.set $mode (local.get $mode))
    (fiber.spawn $a))

  (func (export "reenter-target")
    (block $m3 (block $m2 (block $m1 (block $m0
      (br_table $m0 $m1 $m2 $m3 (global.get $mode)))
      ;; 0: suspend_to a fiber waiting below the host frame
      (fiber.suspend_to $g $e (global.get $waiting))
      (return))
      ;; 1: resume it
      (fiber.resume $g $e (global.get $waiting))
      (return))
      ;; 2: release it
      (fiber.release (global.get $waiting))
      (return))
    ;; 3: the inner segment's root is not A
    (fiber.suspend $e (global.get $waiting))))

(assert_trap (invoke "outer" (i32.const 0)) "cannot switch across a host frame")
(assert_trap (invoke "outer" (i32.const 1)) "fiber is active")
(assert_trap (invoke "outer" (i32.const 2)) "fiber is active")
(assert_trap (invoke "outer" (i32.const 3)) "not the running fiber")
