;; The JIT's own calling convention (jit/<arch>/registers.h, docs/architecture.md
;; "Calls"): the call depth lives in a register (kDepth), a function saves only
;; its caller's frame, a one-result function stores its result straight to
;; its frame base, and calls to functions that are not JIT code (host
;; functions) go through the host adapter. Each function here checks one of
;; those against the interpreter (values worked out by hand).
(module
  (import "spectest" "print_i32" (func $print_i32 (param i32)))
  (type $to_i32 (func (param i32) (result i32)))
  (table 2 funcref)
  (elem (i32.const 0) $print_i32 $double)
  (global $depth (mut i32) (i32.const 0))

  (func $double (param i32) (result i32) (i32.add (local.get 0) (local.get 0)))

  ;; `return` inside nested blocks with values below it: the values of the
  ;; frames around it stay where they are for the path that does not return
  (func (export "return_in_blocks") (param i32) (result i32)
    (i32.add (i32.const 100)
      (block (result i32)
        (i32.add (i32.const 10)
          (if (result i32) (local.get 0)
            (then (return (i32.const 7)))
            (else (call $double (i32.const 1))))))))

  ;; a float result returned from a nested block
  (func $half (param f64) (result f64)
    (block (result f64)
      (br_if 0 (f64.const -1) (f64.lt (local.get 0) (f64.const 0)))
      (return (f64.mul (local.get 0) (f64.const 0.5)))))
  (func (export "halves") (param f64) (result f64)
    (f64.add (call $half (local.get 0)) (call $half (f64.neg (local.get 0)))))

  ;; unbounded recursion: counts its frames in $depth until the call stack is
  ;; exhausted — both tiers stop at the same depth (Config::max_call_depth)
  (func $dive (global.set $depth (i32.add (global.get $depth) (i32.const 1))) (call $dive))
  (func (export "dive") (call $dive))
  (func (export "depth") (result i32) (global.get $depth))

  ;; calls after a trap unwound many frames: the depth is whole again
  (func $count_down (param i32) (result i32)
    (if (result i32) (i32.eqz (local.get 0))
      (then (i32.const 0))
      (else (i32.add (i32.const 1) (call $count_down (i32.sub (local.get 0) (i32.const 1)))))))
  (func (export "count_down") (param i32) (result i32) (call $count_down (local.get 0)))

  ;; a host function called directly, through a table, and by a tail call
  (func (export "host_calls") (param i32) (result i32)
    (call $print_i32 (local.get 0))
    (call_indirect (param i32) (local.get 0) (i32.const 0))
    (call_indirect (type $to_i32) (local.get 0) (i32.const 1)))
  (func (export "host_tail_call") (param i32) (return_call $print_i32 (local.get 0)))

  ;; mutual tail recursion far deeper than the call stack: constant depth
  (func $even (param i32) (result i32)
    (if (result i32) (i32.eqz (local.get 0)) (then (i32.const 1))
      (else (return_call $odd (i32.sub (local.get 0) (i32.const 1))))))
  (func $odd (param i32) (result i32)
    (if (result i32) (i32.eqz (local.get 0)) (then (i32.const 0))
      (else (return_call $even (i32.sub (local.get 0) (i32.const 1))))))
  (func (export "even") (param i32) (result i32) (call $even (local.get 0)))
)

(assert_return (invoke "return_in_blocks" (i32.const 0)) (i32.const 112))
(assert_return (invoke "return_in_blocks" (i32.const 1)) (i32.const 7))
(assert_return (invoke "halves" (f64.const 3)) (f64.const 0.5))
(assert_exhaustion (invoke "dive") "call stack exhausted")
;; max_call_depth (20000) frames: "dive" and 19999 of $dive, each counted
;; before its call
(assert_return (invoke "depth") (i32.const 19999))
(assert_return (invoke "count_down" (i32.const 19000)) (i32.const 19000))
(assert_exhaustion (invoke "count_down" (i32.const 20000)) "call stack exhausted")
(assert_return (invoke "count_down" (i32.const 19998)) (i32.const 19998))
(assert_return (invoke "host_calls" (i32.const 21)) (i32.const 42))
(assert_return (invoke "host_tail_call" (i32.const 5)))
(assert_return (invoke "even" (i32.const 1000001)) (i32.const 0))
