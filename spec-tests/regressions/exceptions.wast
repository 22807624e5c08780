;; Exception handling (docs/exceptions.md) in the places the suite's files do
;; not reach: catch clauses branching to loop and function labels, nested
;; try_tables in one function (the JIT's landing tries the inner clauses, then
;; the outer ones), several values of every number type, values below the
;; try_table and locals written before the throw (both still there at the
;; catch: the JIT's spilled slots and pinned locals), calls through tables and
;; references and across instances, deep recursion, a tail call out of a
;; try_table, a throw from a clause's code, exnref in locals, globals, tables
;; and select.

(module $lib
  (tag $shared (export "shared") (param i32))
  (func (export "throw-shared") (param i32) (throw $shared (local.get 0)))
)
(register "lib" $lib)

(module
  (import "lib" "shared" (tag $shared (param i32)))
  (import "lib" "throw-shared" (func $throw-shared (param i32)))
  (import "weft_test" "reenter" (func $reenter))
  (tag $e (param i32))
  (tag $lookalike (param i32))  ;; the same type as $shared, another tag
  (tag $a)
  (tag $b (param i32))
  (tag $many (param i32 i64 f32 f64))
  (type $v (func))
  (table $t 2 funcref)
  (elem (table $t) (i32.const 0) func $throw-e-1 $no-throw)
  (table $t2 1 funcref)
  (elem (table $t2) (i32.const 0) func $reenter)
  (global $x (mut exnref) (ref.null exn))
  (table $xs 2 exnref)

  (func $throw-e (param i32) (throw $e (local.get 0)))
  (func $throw-e-1 (throw $e (i32.const 1)))
  (func $no-throw)
  (func $throw-b (param i32) (throw $b (local.get 0)))

  ;; A catch to a loop label with a parameter: retries until the callee
  ;; stops throwing (it throws while its argument is below 5).
  (func $maybe (param $n i32) (result i32)
    (if (i32.lt_u (local.get $n) (i32.const 5)) (then (throw $e (i32.add (local.get $n) (i32.const 1)))))
    (local.get $n))
  (func (export "retry") (param $n i32) (result i32)
    (local.get $n)
    (loop $l (param i32) (result i32)
      (try_table (param i32) (result i32) (catch $e $l)
        (call $maybe))))

  ;; A catch to the function's own label: the payload is the result.
  (func (export "catch-to-return") (param $n i32) (result i32)
    (try_table (catch $e 0)
      (call $throw-e (local.get $n)))
    (i32.const -1))

  ;; Nested try_tables: the inner one catches only $a, the outer one $b.
  (func (export "nested") (param $which i32) (result i32)
    (block $outer (result i32)
      (try_table (result i32) (catch $b $outer)
        (block $inner
          (try_table (catch $a $inner)
            (if (i32.eqz (local.get $which)) (then (throw $a)))
            (call $throw-b (local.get $which)))
          (unreachable))
        (i32.const 100)))
    (i32.add (i32.const 200)))

  ;; Values of every number type through catch_ref and throw_ref.
  (func (export "many") (param i32 i64 f32 f64) (result i32 i64 f32 f64)
    (block $h (result i32 i64 f32 f64)
      (try_table (catch $many $h)
        (block $r (result exnref)
          (try_table (catch_all_ref $r)
            (throw $many (local.get 0) (local.get 1) (local.get 2) (local.get 3)))
          (unreachable))
        (local.set 0 (i32.const 0))  ;; the values come from the exception
        (throw_ref))
      (unreachable)))

  ;; Values below the try_table and locals set before the throw survive.
  (func (export "below-and-locals") (param $n i32) (result i32)
    (local $l i32) (local $k i64)
    (i32.const 1000)
    (block $h (result i32)
      (try_table (result i32) (catch $e $h)
        (local.set $l (i32.const 40))
        (local.set $k (i64.const 2))
        (call $throw-e (local.get $n))
        (i32.const 0)))
    (i32.add)
    (i32.add (local.get $l))
    (i32.add (i32.wrap_i64 (local.get $k))))

  ;; Calls through a table and a reference.
  (func (export "indirect") (param $i i32) (result i32)
    (block $h (result i32)
      (try_table (catch $e $h)
        (call_indirect (type $v) (local.get $i)))
      (return (i32.const 0)))
    (i32.add (i32.const 10)))
  (func (export "by-ref") (result i32)
    (block $h (result i32)
      (try_table (catch $e $h)
        (call_ref $v (ref.func $throw-e-1)))
      (return (i32.const 0)))
    (i32.add (i32.const 20)))

  ;; Tags across instances: the imported tag is the exporter's; a tag of
  ;; the same type is another tag.
  (func (export "shared") (param $n i32) (result i32)
    (block $h (result i32)
      (try_table (catch $lookalike $h) (catch $shared $h)
        (call $throw-shared (local.get $n)))
      (return (i32.const 0)))
    (i32.add (i32.const 30)))
  (func (export "lookalike-only") (param $n i32) (result i32)
    (block $h (result i32)
      (try_table (catch $lookalike $h)
        (call $throw-shared (local.get $n)))
      (return (i32.const 0)))
    (drop)
    (i32.const -1))

  ;; Deep recursion: thrown 200 frames down, caught at the top.
  (func $down (param $n i32)
    (if (i32.eqz (local.get $n)) (then (throw $e (i32.const 7))))
    (call $down (i32.sub (local.get $n) (i32.const 1))))
  (func (export "deep") (param $n i32) (result i32)
    (block $h (result i32)
      (try_table (catch $e $h) (call $down (local.get $n)))
      (return (i32.const 0)))
    (i32.add (local.get $n)))

  ;; A tail call leaves the try_table: its callee's exception is not caught
  ;; — a Wasm callee's, and a host function's (the spectest module's print
  ;; functions do not throw: weft_test.reenter calls "reenter-target", below).
  (func (export "tail-call-out") (result i32)
    (block $h
      (try_table (catch_all $h)
        (return_call $maybe (i32.const 0))))
    (i32.const -1))
  (func (export "reenter-target") (throw $e (i32.const 9)))
  (func (export "tail-call-host")
    (block $h
      (try_table (catch_all $h)
        (return_call $reenter))))
  (func (export "tail-call-host-indirect")
    (block $h
      (try_table (catch_all $h)
        (return_call_indirect $t2 (type $v) (i32.const 0)))))
  (func (export "call-host") (result i32)
    (block $h
      (try_table (catch_all $h)
        (call $reenter)))
    (i32.const -1))

  ;; A throw from a clause's code goes to the try_tables around the label.
  (func (export "throw-from-handler") (result i32)
    (block $outer (result i32)
      (try_table (result i32) (catch $b $outer)
        (block $h (result i32)
          (try_table (catch $e $h) (call $throw-e (i32.const 3)))
          (unreachable))
        (throw $b (i32.add (i32.const 50)))))
    (i32.add (i32.const 1)))

  ;; exnref in a global, a table and select; a null one traps at throw_ref.
  (func (export "keep") (param $n i32)
    (local $x exnref)
    (block $h (result exnref)
      (try_table (catch_all_ref $h) (call $throw-e (local.get $n)))
      (unreachable))
    (local.tee $x)
    (global.set $x)
    (table.set $xs (i32.const 1) (local.get $x)))
  (func (export "rethrow-kept") (param $from-table i32) (result i32)
    (block $h (result i32)
      (try_table (catch $e $h)
        (throw_ref
          (select (result exnref) (table.get $xs (i32.const 1)) (global.get $x) (local.get $from-table))))
      (return (i32.const 0)))
    (i32.add (i32.const 60)))
  (func (export "kept-is-null") (result i32) (ref.is_null (global.get $x)))
  (func (export "throw-null") (throw_ref (ref.null exn)))
  (func (export "throw-null-caught") (result i32)
    (block $h
      (try_table (catch_all $h) (throw_ref (table.get $xs (i32.const 0))))
      (return (i32.const 0)))
    (i32.const 1))
)

(assert_return (invoke "retry" (i32.const 0)) (i32.const 5))
(assert_return (invoke "retry" (i32.const 3)) (i32.const 5))
(assert_return (invoke "retry" (i32.const 9)) (i32.const 9))
(assert_return (invoke "catch-to-return" (i32.const 17)) (i32.const 17))
(assert_return (invoke "nested" (i32.const 0)) (i32.const 300))
(assert_return (invoke "nested" (i32.const 4)) (i32.const 204))
(assert_return (invoke "many" (i32.const -1) (i64.const 0x123456789) (f32.const 1.5) (f64.const -2.25))
               (i32.const -1) (i64.const 0x123456789) (f32.const 1.5) (f64.const -2.25))
(assert_return (invoke "below-and-locals" (i32.const 5)) (i32.const 1047))
(assert_return (invoke "indirect" (i32.const 0)) (i32.const 11))
(assert_return (invoke "indirect" (i32.const 1)) (i32.const 0))
(assert_return (invoke "by-ref") (i32.const 21))
(assert_return (invoke "shared" (i32.const 4)) (i32.const 34))
(assert_exception (invoke "lookalike-only" (i32.const 4)))
(assert_return (invoke "deep" (i32.const 200)) (i32.const 207))
(assert_return (invoke "deep" (i32.const 0)) (i32.const 7))
(assert_exception (invoke "tail-call-out"))
(assert_exception (invoke "tail-call-host"))
(assert_exception (invoke "tail-call-host-indirect"))
(assert_return (invoke "call-host") (i32.const -1))
(assert_return (invoke "throw-from-handler") (i32.const 54))
(assert_return (invoke "kept-is-null") (i32.const 1))
(invoke "keep" (i32.const 8))
(assert_return (invoke "kept-is-null") (i32.const 0))
(assert_return (invoke "rethrow-kept" (i32.const 0)) (i32.const 68))
(assert_return (invoke "rethrow-kept" (i32.const 1)) (i32.const 68))
(assert_return (invoke "rethrow-kept" (i32.const 0)) (i32.const 68))
(assert_trap (invoke "throw-null") "null reference")
(assert_trap (invoke "throw-null-caught") "null reference")

;; Validation.
(assert_invalid (module (tag $e (param i64)) (func (block $h (result i32) (try_table (catch $e $h)) (unreachable)) (drop)))
                "type mismatch")
(assert_invalid (module (tag $e) (func (block $h (result i32) (try_table (catch_ref $e $h)) (unreachable)) (drop)))
                "type mismatch")
(assert_invalid (module (func (try_table (catch_all 1)))) "unknown label")
(assert_invalid (module (func (try_table (catch 0 0)))) "unknown tag")
(assert_invalid (module (func (param i32) (throw_ref (local.get 0)))) "type mismatch")
(assert_invalid (module (func (result funcref) (block $h (result funcref) (try_table (catch_all_ref $h)) (unreachable))))
                "type mismatch")
(module (func (result (ref exn)) (block $h (result (ref exn)) (try_table (catch_all_ref $h) (throw_ref (ref.null exn))) (unreachable))))
(assert_malformed (module binary "\\00asm\\01\\00\\00\\00\\01\\04\\01\\60\\00\\00\\03\\02\\01\\00\\0a\\08\\01\\06\\00\\1f\\40\\01\\04\\0b")
                  "malformed catch clause")
