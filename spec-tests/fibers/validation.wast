;; Validation of the fiber extension (docs/fibers.md §3, §4, §5): every
;; typing and structure rule, one assert_invalid each, plus valid modules at
;; the edges of the rules. (weft's runner does not compare assert_invalid
;; messages; they name the rule.)

;; ---- Valid modules at the edges of the rules ----------------------------

(module
  (type $g (fiber (result i32)))
  (type $none (fiber))
  (type $rr (fiber (result (ref null $g) fiberref)))
  (tag $e (param i32))
  (tag $e2 (param i32))
  (tag $plain)
  ;; params and results may be non-nullable; locals nullable
  (func $f (param $self (ref $g)) (param fiberref) (result i32)
    (local (ref null $g)) (local fiberref) (local (ref null fiber))
    (unreachable)
    (event $e (param i32)))
  (func (param (ref fiber)) (result (ref fiber) fiberref) (local.get 0) (local.get 0))
  ;; empty body segment without results; function-level clauses
  (func $v (param $self (ref null $none))
    (event $plain)
    (event $e (param i32) (drop)))
  ;; after fiber.suspend / switch / retire / retireto the stack is polymorphic
  (func (param $s (ref $g)) (param $t (ref null $g)) (result i32 i64)
    (fiber.suspend $plain (local.get $s))
    (i32.add)
    (i64.const 0))
  (func (param $s (ref $g)) (param $t (ref null $g)) (result f64)
    (fiber.switch $g $e (local.get $s) (local.get $t) (i32.const 1))
    (f64.add))
  (func (param $s fiberref) (result externref)
    (fiber.retire $plain (local.get $s)))
  (func (param $s (ref $g)) (param $t (ref $g)) (result funcref)
    (fiber.retireto $g $e (local.get $s) (local.get $t) (i32.const 0)))
  ;; every instruction with its exact operand types
  (func (result i32)
    (local $x (ref null $g))
    (local.set $x (fiber.new $f (ref.null fiber)))
    (drop (fiber.spawn $f (ref.null fiber)))
    (drop (fiber.resume $g $e (local.get $x) (i32.const 1)))
    (drop (fiber.suspend_to $g $plain (local.get $x)))
    (fiber.release (local.get $x))
    (fiber.release (ref.null $g))
    (fiber.release (ref.null fiber))
    (fiber.resume $g $plain (fiber.new $f (fiber.new $f (ref.null fiber)))))
  ;; handles: empty bodies, clauses with and without params, params on the
  ;; handle, clauses branching to the handle and to outer labels, the same tag
  ;; in nested handles, distinct tags with the same type in one handle
  (func (result i32)
    (handle (event $plain))
    (handle (result i32) (i32.const 1) (event $e (param i32)) (event $e2))
    (i32.const 2)
    (handle (param i32) (result i32)
      (event $plain (i32.const 3))
      (event $e (br 0)))
    (block $b (result i32)
      (handle (result i32)
        (handle (result i32)
          (unreachable)
          (event $e (br $b)))
        (event $e)))
    (drop)
    (drop))
  ;; a clause ends a segment like `end`: unreachable code before it is fine
  (func (result i32)
    (handle (result i32)
      (br 0 (i32.const 1))
      (event $e)))
)

;; ---- Types (§3) -----------------------------------------------------------

(assert_invalid
  (module (func (param (ref null 9))))
  "unknown type")
(assert_invalid
  (module (func (drop (ref.null 3))))
  "unknown type")
;; With typed function references (Wasm 3.0, on by default) typed references
;; may name function types and locals may be non-nullable; version 1's
;; restrictions without them: version1_typing.wast.
(module (type $f (func)) (func (param (ref $f))))
(module (type $f (func)) (type $g (fiber (result (ref null $f)))))
(module (type $g (fiber)) (func (param (ref $g)) (local (ref $g))
  (local.set 1 (local.get 0))
  (drop (local.get 1))))
(assert_invalid
  (module (type $g (fiber)) (func (local (ref $g)) (drop (local.get 0))))
  "uninitialized local")
(assert_invalid
  (module (type $g (fiber)) (table 1 (ref $g)))
  "non-defaultable type")
(assert_invalid
  (module (table 1 (ref fiber)))
  "non-defaultable type")
(assert_invalid
  (module (type $g (fiber)) (global (ref $g) (ref.null $g)))
  "type mismatch")
(assert_invalid
  (module (global fiberref (ref.null func)))
  "type mismatch")
(assert_invalid
  (module (global funcref (ref.null fiber)))
  "type mismatch")
(assert_invalid
  (module (type $g (fiber)) (global (ref null $g) (ref.null fiber)))
  "type mismatch")
;; fiberref is not a subtype of (ref null $g)
(assert_invalid
  (module (type $g (fiber))
    (func $h (param (ref null $g)))
    (func (param fiberref) (call $h (local.get 0))))
  "type mismatch")
;; (ref null $g) is not a subtype of (ref $g)
(assert_invalid
  (module (type $g (fiber))
    (func $h (param (ref $g)))
    (func (param (ref null $g)) (call $h (local.get 0))))
  "type mismatch")
;; (ref null fiber) is not a subtype of (ref fiber)
(assert_invalid
  (module
    (func $h (param (ref fiber)))
    (func (param fiberref) (call $h (local.get 0))))
  "type mismatch")
;; fiber types with different results are not equivalent
(assert_invalid
  (module (type $g (fiber (result i32))) (type $h (fiber (result i64)))
    (func $k (param (ref null $h)))
    (func (param (ref null $g)) (call $k (local.get 0))))
  "type mismatch")
(assert_invalid
  (module (type $g (fiber (result i32))) (type $h (fiber (result i32 i32)))
    (func (param (ref $g)) (result (ref $h)) (local.get 0)))
  "type mismatch")
;; funcref and externref are unrelated to fiber references
(assert_invalid
  (module (func (param funcref) (result fiberref) (local.get 0)))
  "type mismatch")
(assert_invalid
  (module (func (param fiberref) (result funcref) (local.get 0)))
  "type mismatch")
(assert_invalid
  (module (func (param externref) (result fiberref) (local.get 0)))
  "type mismatch")
(assert_invalid
  (module (type $g (fiber)) (func (param (ref $g)) (result externref) (local.get 0)))
  "type mismatch")
(assert_invalid
  (module (table 1 funcref) (func (param fiberref) (table.set 0 (i32.const 0) (local.get 0))))
  "type mismatch")
(assert_invalid
  (module (table 1 fiberref) (table 1 funcref)
    (func (table.copy 0 1 (i32.const 0) (i32.const 0) (i32.const 1))))
  "type mismatch")
;; select without a type annotation is only for numeric operands
(assert_invalid
  (module (func (param fiberref fiberref) (result fiberref)
    (select (local.get 0) (local.get 1) (i32.const 1))))
  "type mismatch")
(assert_invalid
  (module (type $g (fiber))
    (func (param (ref null $g)) (result fiberref)
      (select (result (ref null $g)) (local.get 0) (ref.null fiber) (i32.const 1))))
  "type mismatch")
;; a fiber type is not a function type
(assert_invalid
  (module (type $g (fiber)) (func (type $g)))
  "type mismatch: function type expected")
(assert_invalid
  (module (type $g (fiber)) (func (block (type $g))))
  "type mismatch: block type is not a function type")
(assert_invalid
  (module (type $g (fiber)) (func (handle (type $g))))
  "type mismatch: block type is not a function type")
(assert_invalid
  (module (type $g (fiber)) (table 1 funcref)
    (func (call_indirect (type $g) (i32.const 0))))
  "type mismatch: not a function type")
;; tags: a function type without results
(assert_invalid
  (module (tag (param i32) (result i32)))
  "non-empty tag result type")
(assert_invalid
  (module (type $g (fiber)) (tag (type $g)))
  "type mismatch: tag type must be a function type")
(assert_invalid
  (module (tag (type 5)))
  "unknown type")

;; ---- handle and event structure (§5.1) -----------------------------------

(assert_invalid
  (module (tag $e) (func block event $e end))
  "event clause outside handle")
(assert_invalid
  (module (tag $e) (func loop event $e end))
  "event clause outside handle")
(assert_invalid
  (module (tag $e) (func (i32.const 1) if event $e end))
  "event clause outside handle")
(assert_invalid
  (module (tag $e) (func (i32.const 1) if else event $e end))
  "event clause outside handle")
(assert_invalid
  (module (tag $e) (func handle block event $e end end))
  "event clause outside handle")
(assert_invalid
  (module (tag $e) (tag $f) (func handle event $e block event $f end end))
  "event clause outside handle")
(assert_invalid
  (module (tag $e) (func (handle (event $e) (event $e))))
  "duplicate event clause")
(assert_invalid
  (module (tag $e) (tag $f) (func (handle (event $e) (event $f) (event $e))))
  "duplicate event clause")
(assert_invalid
  (module (tag $e) (func (event $e) (event $e)))
  "duplicate event clause")
(assert_invalid
  (module (tag $e) (func handle event $e event 0 end))
  "duplicate event clause")
(assert_invalid
  (module (func (handle (event 0))))
  "unknown tag")
(assert_invalid
  (module (func (event 0)))
  "unknown tag")
;; the body segment must produce the handle's results
(assert_invalid
  (module (tag $e) (func (result i32) (handle (result i32) (event $e (i32.const 1)))))
  "type mismatch")
(assert_invalid
  (module (tag $e) (func (result i32) (handle (result i32) (i64.const 0) (event $e (i32.const 1)))))
  "type mismatch")
(assert_invalid
  (module (tag $e) (func (result i32)
    (handle (result i32) (i32.const 0) (i32.const 0) (event $e (i32.const 1)))))
  "type mismatch")
;; every clause must produce them too
(assert_invalid
  (module (tag $e) (func (result i32) (handle (result i32) (i32.const 0) (event $e))))
  "type mismatch")
(assert_invalid
  (module (tag $e (param i64)) (func (result i32) (handle (result i32) (i32.const 0) (event $e))))
  "type mismatch")
(assert_invalid
  (module (tag $e) (tag $f) (func (result i32)
    (handle (result i32) (i32.const 0) (event $e (i32.const 1)) (event $f (f32.const 1)))))
  "type mismatch")
(assert_invalid
  (module (tag $e (param i32)) (func
    (handle (i32.const 0) (drop) (event $e))))
  "type mismatch")
;; a clause starts with exactly the tag's values: the handle's params are gone
(assert_invalid
  (module (tag $e) (func (param i32) (result i32)
    (local.get 0)
    (handle (param i32) (result i32) (event $e))))
  "type mismatch")
(assert_invalid
  (module (tag $e (param i32)) (func (result i32)
    (i32.const 5)
    (handle (result i32) (i32.const 6) (event $e (i32.add)))))
  "type mismatch")
;; a handle's params come from the stack
(assert_invalid
  (module (tag $e) (func (result i32) (handle (param i32) (result i32) (event $e (i32.const 0)))))
  "type mismatch")
;; clauses add no label: depth 1 in a clause of a top-level handle is the
;; function, depth 2 does not exist
(assert_invalid
  (module (tag $e) (func (handle (event $e (br 2)))))
  "unknown label")
;; function-level clauses: the body segment and every clause must produce
;; the function's results
(assert_invalid
  (module (type $g (fiber (result i32))) (tag $e)
    (func (param (ref $g)) (result i32) (event $e (i32.const 0))))
  "type mismatch")
(assert_invalid
  (module (tag $e) (func (result i32) (i32.const 0) (event $e)))
  "type mismatch")
(assert_invalid
  (module (tag $e (param i64)) (func (result i32) (i32.const 0) (event $e)))
  "type mismatch")

;; ---- fiber.new / fiber.spawn (§4.4, §5.2) --------------------------------

(assert_invalid
  (module (func $f) (func (drop (fiber.new $f))))
  "type mismatch: fiber function")
(assert_invalid
  (module (func $f (param i32)) (func (drop (fiber.new $f (i32.const 0)))))
  "type mismatch: fiber function")
(assert_invalid
  (module (func $f (param fiberref)) (func (drop (fiber.new $f))))
  "type mismatch: fiber function")
(assert_invalid
  (module (func $f (param (ref fiber))) (func (drop (fiber.new $f))))
  "type mismatch: fiber function")
(assert_invalid
  (module (type $g (fiber (result i32))) (func $f (param (ref $g)) (unreachable))
    (func (drop (fiber.new $f))))
  "type mismatch: fiber function")
(assert_invalid
  (module (type $g (fiber)) (func $f (param (ref $g)) (result i32) (unreachable))
    (func (drop (fiber.new $f))))
  "type mismatch: fiber function")
(assert_invalid
  (module (type $g (fiber (result i32))) (func $f (param (ref $g)) (result i64) (unreachable))
    (func (drop (fiber.new $f))))
  "type mismatch: fiber function")
(assert_invalid
  (module (type $g (fiber (result i32))) (func $f (param i32 (ref $g)) (result i32) (unreachable))
    (func (drop (fiber.new $f (ref.null $g)))))
  "type mismatch: fiber function")
(assert_invalid
  (module (type $g (fiber)) (func $f (param (ref $g)) (result i32) (unreachable))
    (func (drop (fiber.spawn $f))))
  "type mismatch: fiber function")
(assert_invalid
  (module (func $f) (func (fiber.spawn $f)))
  "type mismatch: fiber function")
(assert_invalid
  (module (func (drop (fiber.new 7))))
  "unknown function")
(assert_invalid
  (module (func (fiber.spawn 7)))
  "unknown function")
(assert_invalid
  (module (type $g (fiber)) (func $f (param (ref $g) i32))
    (func (drop (fiber.new $f))))
  "type mismatch")
(assert_invalid
  (module (type $g (fiber)) (func $f (param (ref $g) i32))
    (func (drop (fiber.new $f (i64.const 0)))))
  "type mismatch")
(assert_invalid
  (module (type $g (fiber)) (func $f (param (ref $g) i32))
    (func (fiber.spawn $f (i32.const 0) (i32.const 0))))
  "type mismatch")
(assert_invalid
  (module (type $g (fiber)) (func $f (param (ref $g)))
    (func (result i32) (fiber.new $f)))
  "type mismatch")
(assert_invalid
  (module (type $g (fiber)) (type $h (fiber (result i32)))
    (func $f (param (ref $g)))
    (func (result (ref $h)) (fiber.new $f)))
  "type mismatch")
(assert_invalid
  (module (type $g (fiber (result i32))) (func $f (param (ref $g)) (result i32) (unreachable))
    (func (result i64) (fiber.spawn $f)))
  "type mismatch")

;; ---- fiber.resume / fiber.suspend_to --------------------------------------

(assert_invalid
  (module (type $f (func)) (tag $e) (func (param fiberref) (fiber.resume $f $e (local.get 0))))
  "type mismatch: not a fiber type")
(assert_invalid
  (module (tag $e) (func (param fiberref) (fiber.resume 4 $e (local.get 0))))
  "unknown type")
(assert_invalid
  (module (type $g (fiber)) (func (param (ref null $g)) (fiber.resume $g 0 (local.get 0))))
  "unknown tag")
(assert_invalid
  (module (type $g (fiber)) (tag $e) (func (param fiberref) (fiber.resume $g $e (local.get 0))))
  "type mismatch")
(assert_invalid
  (module (type $g (fiber)) (type $h (fiber (result i32))) (tag $e)
    (func (param (ref null $h)) (fiber.resume $g $e (local.get 0))))
  "type mismatch")
(assert_invalid
  (module (type $g (fiber)) (tag $e) (func (param funcref) (fiber.resume $g $e (local.get 0))))
  "type mismatch")
(assert_invalid
  (module (type $g (fiber)) (tag $e) (func (fiber.resume $g $e)))
  "type mismatch")
(assert_invalid
  (module (type $g (fiber)) (tag $e (param i32)) (func (param (ref null $g))
    (fiber.resume $g $e (local.get 0))))
  "type mismatch")
(assert_invalid
  (module (type $g (fiber)) (tag $e (param i32)) (func (param (ref null $g))
    (fiber.resume $g $e (local.get 0) (i64.const 0))))
  "type mismatch")
(assert_invalid
  (module (type $g (fiber)) (tag $e (param i32 i64)) (func (param (ref null $g))
    (fiber.resume $g $e (local.get 0) (i64.const 0) (i32.const 0))))
  "type mismatch")
;; the fiber reference goes below the payload
(assert_invalid
  (module (type $g (fiber)) (tag $e (param i32)) (func (param (ref null $g))
    (fiber.resume $g $e (i32.const 0) (local.get 0))))
  "type mismatch")
(assert_invalid
  (module (type $g (fiber (result i32))) (tag $e) (func (param (ref null $g)) (result i64)
    (fiber.resume $g $e (local.get 0))))
  "type mismatch")
(assert_invalid
  (module (type $g (fiber (result i32))) (tag $e) (func (param (ref null $g))
    (fiber.resume $g $e (local.get 0))))
  "type mismatch")
(assert_invalid
  (module (type $f (func)) (tag $e) (func (param fiberref) (drop (fiber.suspend_to $f $e (local.get 0)))))
  "type mismatch: not a fiber type")
(assert_invalid
  (module (type $g (fiber)) (tag $e) (func (param fiberref) (fiber.suspend_to $g $e (local.get 0))))
  "type mismatch")
(assert_invalid
  (module (type $g (fiber)) (tag $e (param i32)) (func (param (ref null $g))
    (fiber.suspend_to $g $e (local.get 0))))
  "type mismatch")
(assert_invalid
  (module (type $g (fiber (result i32))) (tag $e) (func (param (ref null $g))
    (fiber.suspend_to $g $e (local.get 0))))
  "type mismatch")
(assert_invalid
  (module (type $g (fiber)) (func (param (ref null $g)) (fiber.suspend_to $g 1 (local.get 0))))
  "unknown tag")

;; ---- fiber.suspend / fiber.retire -----------------------------------------

(assert_invalid
  (module (tag $e) (func (fiber.suspend $e (i32.const 0))))
  "type mismatch")
(assert_invalid
  (module (tag $e) (func (param funcref) (fiber.suspend $e (local.get 0))))
  "type mismatch")
(assert_invalid
  (module (tag $e) (func (fiber.suspend $e)))
  "type mismatch")
(assert_invalid
  (module (tag $e (param i32)) (func (param fiberref) (fiber.suspend $e (local.get 0))))
  "type mismatch")
(assert_invalid
  (module (tag $e (param i32)) (func (param fiberref) (fiber.suspend $e (local.get 0) (f32.const 0))))
  "type mismatch")
(assert_invalid
  (module (func (param fiberref) (fiber.suspend 0 (local.get 0))))
  "unknown tag")
(assert_invalid
  (module (tag $e) (func (param externref) (fiber.retire $e (local.get 0))))
  "type mismatch")
(assert_invalid
  (module (tag $e (param i64)) (func (param fiberref) (fiber.retire $e (local.get 0) (i32.const 0))))
  "type mismatch")
(assert_invalid
  (module (func (param fiberref) (fiber.retire 0 (local.get 0))))
  "unknown tag")

;; ---- fiber.switch / fiber.retireto ----------------------------------------

(assert_invalid
  (module (type $f (func)) (tag $e)
    (func (param fiberref fiberref) (fiber.switch $f $e (local.get 0) (local.get 1))))
  "type mismatch: not a fiber type")
(assert_invalid
  (module (type $g (fiber)) (tag $e)
    (func (param (ref null $g)) (fiber.switch $g $e (local.get 0))))
  "type mismatch")
(assert_invalid
  (module (type $g (fiber)) (tag $e)
    (func (param fiberref (ref null $g)) (fiber.switch $g $e (local.get 0) (local.get 1))))
  "type mismatch")
(assert_invalid
  (module (type $g (fiber)) (type $h (fiber (result i32))) (tag $e)
    (func (param (ref null $h) (ref null $g)) (fiber.switch $g $e (local.get 0) (local.get 1))))
  "type mismatch")
(assert_invalid
  (module (type $g (fiber)) (type $h (fiber (result i32))) (tag $e)
    (func (param (ref null $g) (ref null $h)) (fiber.switch $g $e (local.get 0) (local.get 1))))
  "type mismatch")
(assert_invalid
  (module (type $g (fiber)) (tag $e (param i32))
    (func (param (ref null $g) (ref null $g)) (fiber.switch $g $e (local.get 0) (local.get 1))))
  "type mismatch")
(assert_invalid
  (module (type $f (func)) (tag $e)
    (func (param fiberref fiberref) (fiber.retireto $f $e (local.get 0) (local.get 1))))
  "type mismatch: not a fiber type")
(assert_invalid
  (module (type $g (fiber)) (tag $e)
    (func (param (ref null $g) fiberref) (fiber.retireto $g $e (local.get 0) (local.get 1))))
  "type mismatch")
(assert_invalid
  (module (type $g (fiber)) (tag $e (param i32))
    (func (param (ref null $g) (ref null $g)) (fiber.retireto $g $e (local.get 0) (local.get 1) (i64.const 1))))
  "type mismatch")
(assert_invalid
  (module (type $g (fiber))
    (func (param (ref null $g) (ref null $g)) (fiber.retireto $g 0 (local.get 0) (local.get 1))))
  "unknown tag")

;; ---- fiber.release ----------------------------------------------------------

(assert_invalid
  (module (func (fiber.release (i32.const 0))))
  "type mismatch")
(assert_invalid
  (module (func (param funcref) (fiber.release (local.get 0))))
  "type mismatch")
(assert_invalid
  (module (func (fiber.release)))
  "type mismatch")
(assert_invalid
  (module (func (param fiberref) (result i32) (fiber.release (local.get 0))))
  "type mismatch")
