;; The JIT tests an `if` or `br_if` condition that is a pinned local in the
;; local's own register (FunctionCompiler::pop_condition: read only, no copy,
;; the register stays the local's), and loads a pinned local set from a
;; value in its slot (a block's or an if's result) straight into the pin
;; (set_pinned_local). Ackermann's shape (clang -O2's: the tail call a loop,
;; `if (result)` feeding local.set, br_if on local.tee) and a countdown whose
;; conditions read locals the loop writes and reads again after the branch;
;; expected values from C. Both tiers must agree.
(module
  (func $ack (export "ack") (param $m i32) (param $n i32) (result i32)
    (if (local.get $m)
      (then
        (loop $l
          (local.set $n
            (if (result i32) (local.get $n)
              (then (call $ack (local.get $m) (i32.sub (local.get $n) (i32.const 1))))
              (else (i32.const 1))))
          (br_if $l (local.tee $m (i32.sub (local.get $m) (i32.const 1)))))))
    (i32.add (local.get $n) (i32.const 1)))

  (func (export "countdown") (param $n i32) (result i32) (local $odd i32) (local $sum i32)
    (block $done
      (loop $l
        (br_if $done (i32.eqz (local.get $n)))
        (local.set $odd (i32.and (local.get $n) (i32.const 1)))
        (if (local.get $odd)
          (then (local.set $sum (i32.add (local.get $sum) (local.get $n))))
          (else (local.set $sum (i32.sub (local.get $sum) (local.get $odd)))))
        ;; the condition's local is read again after the branch: still intact
        (local.set $sum (i32.add (local.get $sum) (local.get $odd)))
        (local.set $n (block (result i32) (i32.sub (local.get $n) (i32.const 1))))
        (br_if $l (local.get $n))))
    (i32.add (local.get $sum) (local.get $n)))

  ;; After each branch on $n, eleven values computed from it are live at
  ;; once: a register wrongly released with the condition would be handed
  ;; out among them and $n's register overwritten.
  (func (export "pressure") (param $n i32) (result i32) (local $sum i32)
    (block $done
      (loop $l
        (br_if $done (i32.eqz (local.get $n)))
        (if (local.get $n) (then (nop)))
        (local.set $sum (i32.add (local.get $sum)
          (i32.add (i32.mul (local.get $n) (i32.const 3))
          (i32.add (i32.mul (local.get $n) (i32.const 5))
          (i32.add (i32.mul (local.get $n) (i32.const 7))
          (i32.add (i32.mul (local.get $n) (i32.const 11))
          (i32.add (i32.mul (local.get $n) (i32.const 13))
          (i32.add (i32.mul (local.get $n) (i32.const 17))
          (i32.add (i32.mul (local.get $n) (i32.const 19))
          (i32.add (i32.mul (local.get $n) (i32.const 23))
          (i32.add (i32.mul (local.get $n) (i32.const 29))
          (i32.add (i32.mul (local.get $n) (i32.const 31)) (i32.mul (local.get $n) (i32.const 37))))))))))))))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $l)))
    (local.get $sum))

  (func (export "tee_branch") (param $n i32) (result i32) (local $k i32)
    (loop $l
      (local.set $k (i32.add (local.get $k) (i32.const 3)))
      (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))
    (i32.add (local.get $k) (local.get $n)))
)
(assert_return (invoke "ack" (i32.const 0) (i32.const 5)) (i32.const 6))
(assert_return (invoke "ack" (i32.const 1) (i32.const 5)) (i32.const 7))
(assert_return (invoke "ack" (i32.const 2) (i32.const 3)) (i32.const 9))
(assert_return (invoke "ack" (i32.const 3) (i32.const 3)) (i32.const 61))
(assert_return (invoke "ack" (i32.const 2) (i32.const 300)) (i32.const 603))
(assert_return (invoke "countdown" (i32.const 0)) (i32.const 0))
(assert_return (invoke "countdown" (i32.const 1)) (i32.const 2))
(assert_return (invoke "countdown" (i32.const 10)) (i32.const 30))
(assert_return (invoke "countdown" (i32.const 101)) (i32.const 2652))
(assert_return (invoke "pressure" (i32.const 0)) (i32.const 0))
(assert_return (invoke "pressure" (i32.const 10)) (i32.const 10725))
(assert_return (invoke "tee_branch" (i32.const 1)) (i32.const 3))
(assert_return (invoke "tee_branch" (i32.const 7)) (i32.const 21))
