;; Regressions: fiber.switch / fiber.retireto to the fiber that called the host
;; this segment runs under (running, not waiting) jumped to its empty saved
;; context (SIGSEGV on both tiers); now "cannot switch across a host frame",
;; as fiber.suspend_to to it (which trapped "fiber is active"). fiber.resume of
;; it is "fiber is active". Found by the fast-path trap tests (issue 13).
(module
  (type $g (fiber))
  (import "weft_test" "reenter" (func $reenter))
  (tag $e)
  (global $b (mut (ref null $g)) (ref.null $g))
  ;; B calls the host, which re-enters Wasm: B is running in the outer segment.
  (func $b (param $self (ref $g)) (global.set $b (local.get $self)) (call $reenter))
  (func (export "outer") (fiber.spawn $b))
  ;; In the inner segment, C switches to B.
  (func $c (param $self (ref $g)) (fiber.switch $g $e (local.get $self) (global.get $b)))
  (func (export "reenter-target") (fiber.spawn $c)))
(assert_trap (invoke "outer") "cannot switch across a host frame")
(module
  (type $g (fiber))
  (import "weft_test" "reenter" (func $reenter))
  (tag $e)
  (global $b (mut (ref null $g)) (ref.null $g))
  ;; B calls the host, which re-enters Wasm: B is running in the outer segment.
  (func $b (param $self (ref $g)) (global.set $b (local.get $self)) (call $reenter))
  (func (export "outer") (fiber.spawn $b))
  ;; In the inner segment, C switches to B.
  (func $c (param $self (ref $g)) (fiber.retireto $g $e (local.get $self) (global.get $b)))
  (func (export "reenter-target") (fiber.spawn $c)))
(assert_trap (invoke "outer") "cannot switch across a host frame")
(module
  (type $g (fiber))
  (import "weft_test" "reenter" (func $reenter))
  (tag $e)
  (global $b (mut (ref null $g)) (ref.null $g))
  (func $b (param $self (ref $g)) (global.set $b (local.get $self)) (call $reenter))
  (func (export "outer") (fiber.spawn $b))
  (func $c (param $self (ref $g)) (fiber.suspend_to $g $e (global.get $b)))
  (func (export "reenter-target") (fiber.spawn $c)))
(assert_trap (invoke "outer") "cannot switch across a host frame")
(module
  (type $g (fiber))
  (import "weft_test" "reenter" (func $reenter))
  (tag $e)
  (global $b (mut (ref null $g)) (ref.null $g))
  (func $b (param $self (ref $g)) (global.set $b (local.get $self)) (call $reenter))
  (func (export "outer") (fiber.spawn $b))
  (func (export "reenter-target") (fiber.resume $g $e (global.get $b))))
(assert_trap (invoke "outer") "fiber is active")
