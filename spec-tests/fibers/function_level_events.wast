;; Function-level event clauses (docs/fibers.md §4.3, §5.1, §5.3): clauses at
;; the outermost level of a function body. They are the handler scope of a
;; fresh fiber's entry and of the suspension points in the function's body
;; segment; reaching the first clause returns from the function; code inside
;; a function-level clause is not in their scope.

(module
  (type $g (fiber (result i32)))
  (tag $start (param i32 i32))
  (tag $ping)
  (tag $up (param i32))
  (tag $back (param i32))
  (tag $take (param (ref $g)))
  (global $f (mut (ref null $g)) (ref.null $g))

  (func $set (param $f (ref $g)) (global.set $f (local.get $f)))
  (func (export "start") (param $a i32) (param $b i32) (result i32)
    (handle (result i32)
      (fiber.resume $g $start (global.get $f) (local.get $a) (local.get $b))
      (event $up (param i32) (i32.add (i32.const 70000)))))
  (func (export "ping") (result i32)
    (handle (result i32)
      (fiber.resume $g $ping (global.get $f))
      (event $up (param i32) (i32.add (i32.const 70000)))))
  (func (export "back") (param $v i32) (result i32)
    (handle (result i32)
      (fiber.resume $g $back (global.get $f) (local.get $v))
      (event $up (param i32) (i32.add (i32.const 70000)))))
  (func (export "up") (param $v i32) (result i32)
    (handle (result i32)
      (fiber.resume $g $up (global.get $f) (local.get $v))
      (event $up (param i32) (i32.add (i32.const 70000)))))

  ;; The first resume picks the clause; params hold the fiber.new arguments,
  ;; other locals are zero.
  (func $entry (param $self (ref $g)) (param $base i32) (result i32)
    (local $zero i32)
    (unreachable)
    (event $start (param i32 i32)
      (i32.add)
      (i32.add (local.get $base))
      (i32.add (local.get $zero)))
    (event $ping (i32.add (local.get $base) (i32.const 1000)))
    (event $back (param i32) (i32.mul (local.get $base))))
  (func (export "new-entry") (param $base i32) (call $set (fiber.new $entry (local.get $base))))

  ;; The same in the plain syntax.
  (func $plain (param $self (ref $g)) (param $base i32) (result i32)
    unreachable
    event $start
      i32.add
      local.get $base
      i32.add
    event $ping
      local.get $base
      i32.const 2000
      i32.add
    event $back (param i32)
      local.get $base
      i32.mul)
  (func (export "new-plain") (param $base i32) (call $set (fiber.new $plain (local.get $base))))

  ;; Called (not resumed): the body segment runs and reaching the first clause
  ;; returns.
  (func $body-returns (param $self (ref $g)) (param $x i32) (result i32)
    (i32.mul (local.get $x) (i32.const 3))
    (event $ping (i32.const -1)))
  (func (export "call-body") (param $x i32) (result i32)
    (call $body-returns (fiber.new $body-returns (i32.const 0)) (local.get $x)))
  (func (export "new-body") (param $x i32) (call $set (fiber.new $body-returns (local.get $x))))

  ;; A helper with function-level clauses, called from a fiber: its body
  ;; suspends; the resume enters its clause, in its own frame, and the clause's
  ;; result returns to the caller.
  (func $ask (param $self (ref $g)) (param $q i32) (result i32)
    (fiber.suspend $up (local.get $self) (local.get $q))
    (event $back (param i32) (i32.add (local.get $q)))
    (event $ping (i32.const 0)))
  (func $asker (param $self (ref $g)) (result i32)
    (unreachable)
    (event $ping
      (i32.add
        (call $ask (local.get $self) (i32.const 10))
        (i32.mul (call $ask (local.get $self) (i32.const 20)) (i32.const 100)))))
  (func (export "new-asker") (call $set (fiber.new $asker)))

  ;; Branches to the function label and returns inside a clause.
  (func $exits (param $self (ref $g)) (param $x i32) (result i32)
    (unreachable)
    (event $back (param i32)
      (br_if 0 (i32.const 7) (i32.eqz (local.get $x)))
      (drop)
      (return (i32.add (i32.const 1)))))
  (func (export "new-exits") (param $x i32) (call $set (fiber.new $exits (local.get $x))))

  ;; A suspension point inside a function-level clause has no clauses.
  (func $in-clause (param $self (ref $g)) (result i32)
    (unreachable)
    (event $ping
      (fiber.suspend $up (local.get $self) (i32.const 5)))
    (event $back (param i32)))
  (func (export "new-in-clause") (call $set (fiber.new $in-clause)))

  ;; Spawned: the body segment suspends directly.
  (func $direct (param $self (ref $g)) (result i32)
    (global.set $f (local.get $self))
    (fiber.suspend $up (local.get $self) (i32.const 9))
    (event $back (param i32) (i32.add (i32.const 1))))
  (func (export "spawn-direct") (result i32)
    (handle (result i32)
      (fiber.spawn $direct)
      (event $up (param i32) (i32.add (i32.const 70000)))))

  ;; An event carrying a fiber reference: the fresh fiber resumes the fiber it
  ;; was given.
  (func $taker (param $self (ref $g)) (result i32)
    (unreachable)
    (event $take (param (ref $g))
      (i32.add (fiber.resume $g $ping) (i32.const 1))))
  (func (export "take") (param $base i32) (result i32)
    (fiber.resume $g $take (fiber.new $taker) (fiber.new $entry (local.get $base))))
)

(invoke "new-entry" (i32.const 5))
(assert_return (invoke "start" (i32.const 1) (i32.const 2)) (i32.const 8))
(invoke "new-entry" (i32.const 5))
(assert_return (invoke "ping") (i32.const 1005))
(invoke "new-entry" (i32.const 5))
(assert_return (invoke "back" (i32.const 3)) (i32.const 15))
(assert_trap (invoke "back" (i32.const 3)) "fiber is moribund")
(invoke "new-entry" (i32.const 5))
(assert_trap (invoke "up" (i32.const 3)) "unhandled event")
(assert_trap (invoke "ping") "fiber is moribund")

(invoke "new-plain" (i32.const 6))
(assert_return (invoke "start" (i32.const 1) (i32.const 2)) (i32.const 9))
(invoke "new-plain" (i32.const 6))
(assert_return (invoke "ping") (i32.const 2006))
(invoke "new-plain" (i32.const 6))
(assert_return (invoke "back" (i32.const 3)) (i32.const 18))

(assert_return (invoke "call-body" (i32.const 4)) (i32.const 12))
(invoke "new-body" (i32.const 4))
(assert_return (invoke "ping") (i32.const -1))

(invoke "new-asker")
(assert_return (invoke "ping") (i32.const 70010))
(assert_return (invoke "back" (i32.const 1)) (i32.const 70020))
(assert_return (invoke "back" (i32.const 2)) (i32.const 2211))
(invoke "new-asker")
(assert_return (invoke "ping") (i32.const 70010))
(assert_return (invoke "ping") (i32.const 70020))
(assert_return (invoke "back" (i32.const 3)) (i32.const 2300))

(invoke "new-exits" (i32.const 0))
(assert_return (invoke "back" (i32.const 5)) (i32.const 7))
(invoke "new-exits" (i32.const 1))
(assert_return (invoke "back" (i32.const 5)) (i32.const 6))

(invoke "new-in-clause")
(assert_return (invoke "ping") (i32.const 70005))
(assert_trap (invoke "back" (i32.const 1)) "unhandled event")

(assert_return (invoke "spawn-direct") (i32.const 70009))
(assert_return (invoke "back" (i32.const 4)) (i32.const 5))

(assert_return (invoke "take" (i32.const 3)) (i32.const 1004))
