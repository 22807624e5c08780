;; Typed function references (Wasm 3.0) beyond the proposal's own files:
;; every place the reference of br_on_null / br_on_non_null / call_ref can
;; come from (a local, a constant, a call's result, a block's result), branch
;; values that must move to their label's slots, call_ref of a host function
;; and of another instance's function, a return_call_ref loop in constant
;; stack, and the traps. Runs on both tiers (the JIT with --no-fallback).

(module $other
  (type $i2i (func (param i32) (result i32)))
  (func $triple (export "triple") (type $i2i) (i32.mul (local.get 0) (i32.const 3)))
  (global (export "triple-ref") (ref $i2i) (ref.func $triple))
  (table (export "fns") 2 (ref null $i2i) (ref.null $i2i))
  (elem (table 0) (i32.const 0) (ref $i2i) (ref.func $triple)))
(register "other" $other)

(module
  (type $i2i (func (param i32) (result i32)))
  (type $ii2i (func (param i32 i32) (result i32)))
  (import "spectest" "print_i32" (func $print (param i32)))
  (import "other" "triple-ref" (global $triple (ref $i2i)))
  (import "other" "fns" (table $fns 2 (ref null $i2i)))

  (func $inc (type $i2i) (i32.add (local.get 0) (i32.const 1)))
  (func $add (type $ii2i) (i32.add (local.get 0) (local.get 1)))
  (func $null_i2i (result (ref null $i2i)) (ref.null $i2i))
  (elem declare func $inc $add)

  ;; A non-nullable table with an initializer, and a non-nullable local.
  (table $own 3 (ref $i2i) (ref.func $inc))

  (func (export "call-local") (param $x i32) (result i32)
    (local $f (ref $i2i))
    (local.set $f (ref.func $inc))
    (call_ref $i2i (local.get $x) (local.get $f)))
  (func (export "call-other-instance") (param $x i32) (result i32)
    (call_ref $i2i (local.get $x) (global.get $triple)))
  (func (export "call-imported-table") (param $x i32) (param $i i32) (result i32)
    (call_ref $i2i (local.get $x) (ref.as_non_null (table.get $fns (local.get $i)))))
  (func (export "call-own-table") (param $x i32) (result i32)
    (call_ref $i2i (local.get $x) (table.get $own (i32.const 2))))
  (func (export "call-host") (param $x i32)
    (call_ref $print-type (local.get $x) (ref.func $print)))
  (type $print-type (func (param i32)))
  (elem declare func $print)

  ;; br_on_null: the fall-through keeps the reference; the branch carries the
  ;; values below it, which move to the block's result slots.
  (func (export "on-null") (param $which i32) (param $x i32) (result i32)
    (local $f (ref null $i2i))
    (local $g (ref $i2i))
    (if (local.get $which) (then (local.set $f (ref.func $inc))))
    (block $null (result i32 i32)
      (i32.const 100) (local.get $x)
      (br_on_null $null (local.get $f))
      (local.set $g)
      (call_ref $i2i (local.get $g))  ;; $f(x), 100 below
      (i32.add)
      (i32.const 7)
      (return (i32.add)))
    (i32.sub))
  ;; The reference from a call, and from a constant.
  (func (export "on-null-call") (result i32)
    (block $null
      (br_on_null $null (call $null_i2i))
      (drop)
      (return (i32.const 1)))
    (i32.const 2))
  (func (export "on-null-const") (result i32)
    (block $null
      (br_on_null $null (ref.null $i2i))
      (drop)
      (return (i32.const 1)))
    (i32.const 2))
  ;; br_on_non_null at the function level: the branch returns the reference's
  ;; call result through a block.
  (func (export "on-non-null") (param $which i32) (param $x i32) (result i32)
    (local $f (ref null $i2i))
    (if (local.get $which) (then (local.set $f (ref.func $inc))))
    (call_ref $i2i (local.get $x)
      (block $some (result (ref $i2i))
        (br_on_non_null $some (local.get $f))
        (ref.func $add)
        (drop)
        (return (i32.const -1)))))
  ;; br_on_non_null with values below the reference that move.
  (func (export "on-non-null-values") (param $x i32) (result i32)
    (block $some (result i32 (ref $i2i))
      (local.get $x) (i32.const 5) (i32.add)
      (br_on_non_null $some (ref.func $inc))
      (return))
    (call_ref $i2i))

  ;; return_call_ref in a loop of a million calls: constant stack.
  (type $count (func (param i32 i32) (result i32)))
  (func $count_down (type $count)
    (if (result i32) (i32.eqz (local.get 0))
      (then (local.get 1))
      (else (return_call_ref $count (i32.sub (local.get 0) (i32.const 1)) (i32.add (local.get 1) (i32.const 2))
                                    (ref.func $count_down)))))
  (elem declare func $count_down)
  (func (export "count") (param i32) (result i32)
    (call_ref $count (local.get 0) (i32.const 0) (ref.func $count_down)))

  (func (export "call-null") (result i32)
    (call_ref $i2i (i32.const 1) (ref.null $i2i)))
  (func (export "tail-call-null") (result i32)
    (return_call_ref $i2i (i32.const 1) (call $null_i2i)))
  (func (export "as-non-null-null") (drop (ref.as_non_null (call $null_i2i))))
)

(assert_return (invoke "call-local" (i32.const 41)) (i32.const 42))
(assert_return (invoke "call-other-instance" (i32.const 5)) (i32.const 15))
(assert_return (invoke "call-imported-table" (i32.const 7) (i32.const 0)) (i32.const 21))
(assert_trap (invoke "call-imported-table" (i32.const 7) (i32.const 1)) "null reference")
(assert_return (invoke "call-own-table" (i32.const 9)) (i32.const 10))
(assert_return (invoke "call-host" (i32.const 3)))
(assert_return (invoke "on-null" (i32.const 1) (i32.const 10)) (i32.const 118))
(assert_return (invoke "on-null" (i32.const 0) (i32.const 10)) (i32.const 90))
(assert_return (invoke "on-null-call") (i32.const 2))
(assert_return (invoke "on-null-const") (i32.const 2))
(assert_return (invoke "on-non-null" (i32.const 1) (i32.const 4)) (i32.const 5))
(assert_return (invoke "on-non-null" (i32.const 0) (i32.const 4)) (i32.const -1))
(assert_return (invoke "on-non-null-values" (i32.const 10)) (i32.const 16))
(assert_return (invoke "count" (i32.const 1000000)) (i32.const 2000000))
(assert_trap (invoke "call-null") "null function reference")
(assert_trap (invoke "tail-call-null") "null function reference")
(assert_trap (invoke "as-non-null-null") "null reference")

;; Validation: a local set in a block is unset after it; br_on_non_null needs
;; a reference as the label's last value.
(assert_invalid
  (module (type $t (func))
    (func (param (ref $t)) (local (ref $t))
      (block (local.set 1 (local.get 0)))
      (drop (local.get 1))))
  "uninitialized local")
(assert_invalid
  (module (func (param funcref) (result i32)
    (block $l (result i32) (br_on_non_null $l (local.get 0)) (i32.const 0))))
  "type mismatch")
(assert_invalid
  (module (type $t (func (param i32))) (func (param (ref null $t))
    (call_ref $t (local.get 0))))
  "type mismatch")
