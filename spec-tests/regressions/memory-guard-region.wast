;; Out-of-bounds accesses in JIT code that runs with guard regions
;; (Config::guard_regions, jit/guard_regions.h: no bounds check in the code,
;; the fault turned into the trap by the signal handler): at the memory's
;; end, straddling it (a trapping store writes none of its bytes), at the
;; largest address and offset, after memory.grow moved the end, in a callee
;; (the trap unwinds through its callers), and inside a fiber. Every tier must
;; give the interpreter's answers.
(module
  (type $f (fiber (result i32)))
  (tag $go (param i32))
  (memory 1 3)
  (func (export "load") (param i32) (result i32) (i32.load (local.get 0)))
  (func (export "load_far") (param i32) (result i64) (i64.load offset=4294967295 (local.get 0)))
  (func (export "store") (param i32) (i64.store (local.get 0) (i64.const -1)))
  (func (export "store_f64") (param i32) (f64.store offset=8 (local.get 0) (f64.const 1.5)))
  (func (export "peek") (param i32) (result i32) (i32.load8_u (local.get 0)))
  (func (export "grow") (result i32) (memory.grow (i32.const 1)))
  (func $deep (param i32) (result i32)
    (if (result i32) (i32.eqz (local.get 0))
      (then (i32.load (i32.const 0x7fffffff)))
      (else (i32.add (i32.const 1) (call $deep (i32.sub (local.get 0) (i32.const 1)))))))
  (func (export "deep") (param i32) (result i32) (call $deep (local.get 0)))
  ;; a fiber that reads the address it is sent
  (func $reader (param $self (ref $f)) (result i32)
    (unreachable)
    (event $go (param i32) (i32.load)))
  (func (export "fiber_load") (param i32) (result i32)
    (fiber.resume $f $go (fiber.new $reader) (local.get 0)))
)

(assert_return (invoke "load" (i32.const 65532)) (i32.const 0))
(assert_trap (invoke "load" (i32.const 65533)) "out of bounds memory access")
(assert_trap (invoke "load" (i32.const -1)) "out of bounds memory access")
(assert_trap (invoke "load_far" (i32.const -1)) "out of bounds memory access")
(assert_trap (invoke "store" (i32.const 65530)) "out of bounds memory access")
(assert_return (invoke "peek" (i32.const 65530)) (i32.const 0))
(assert_return (invoke "peek" (i32.const 65535)) (i32.const 0))
(assert_trap (invoke "store_f64" (i32.const 65528)) "out of bounds memory access")
(assert_return (invoke "grow") (i32.const 1))
(assert_return (invoke "load" (i32.const 65533)) (i32.const 0))
(assert_trap (invoke "load" (i32.const 131069)) "out of bounds memory access")
(assert_trap (invoke "deep" (i32.const 100)) "out of bounds memory access")
(assert_trap (invoke "deep" (i32.const 5000)) "out of bounds memory access")
(assert_return (invoke "load" (i32.const 0)) (i32.const 0))
(assert_return (invoke "fiber_load" (i32.const 131068)) (i32.const 0))
(assert_trap (invoke "fiber_load" (i32.const 131069)) "out of bounds memory access")
