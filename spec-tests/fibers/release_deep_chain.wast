;; weft-wast-options: --fiber-stack-size=262144
;; Regression: releasing (or returning above) a chain of 40,000 suspended
;; fibers recursed once per fiber in FiberRuntime::release_descendants and
;; overflowed the releasing fiber's native stack (SIGSEGV on both tiers from
;; ~30,000 with 256 KiB fiber stacks, the size used here; the default stacks
;; are larger and would need a longer chain); the release is iterative now.
;; Found by the fast-path trap tests.
(module
  (type $g (fiber (result i32)))
  (tag $up)
  (global $top (mut (ref null $g)) (ref.null $g))
  ;; Spawns the next link; the last one suspends and every link passes the
  ;; suspension up, so all n end up suspended, each the child of the one before.
  (func $link (param $self (ref $g)) (param $n i32) (result i32)
    (if (i32.eqz (local.get $n)) (then (fiber.suspend $up (local.get $self))))
    (handle
      (drop (fiber.spawn $link (i32.sub (local.get $n) (i32.const 1))))
      (event $up (fiber.suspend $up (local.get $self))))
    (i32.const 0))
  (func $first (param $self (ref $g)) (param $n i32) (result i32)
    (global.set $top (local.get $self))
    (call $link (local.get $self) (local.get $n)))
  (func (export "build") (param $n i32)
    (handle (drop (fiber.spawn $first (local.get $n))) (event $up)))
  (func $releaser (param $self (ref $g)) (result i32)
    (fiber.release (global.get $top)) (i32.const 5))
  (func (export "release-in-fiber") (result i32) (fiber.spawn $releaser))
  ;; a fiber that builds the chain below itself and returns
  (func $holder (param $self (ref $g)) (param $n i32) (result i32)
    (handle (drop (fiber.spawn $first (local.get $n))) (event $up))
    (i32.const 6))
  (func (export "return-with-chain") (param $n i32) (result i32) (fiber.spawn $holder (local.get $n)))
)
(invoke "build" (i32.const 40000))
(assert_return (invoke "release-in-fiber") (i32.const 5))
(assert_return (invoke "return-with-chain" (i32.const 40000)) (i32.const 6))
