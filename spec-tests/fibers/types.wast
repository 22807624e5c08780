;; Fiber types and fiber references (docs/fibers.md §3): fiber types with any
;; number of results, typed references (ref null? $g), the abstract fiberref,
;; subtyping and structural equivalence, defaults, locals, globals, tables,
;; typed select, and references crossing module boundaries.

(module
  (type $g (fiber (result i32)))
  (type $g2 (fiber (result i32)))
  (type $none (fiber))
  (type $many (fiber (result i32 i64 i32)))
  (type $inner (fiber (result i32)))
  (type $outer (fiber (result (ref null $inner))))
  (tag $go)
  (tag $go-i (param i32))

  (global $gf (export "gf") (mut fiberref) (ref.null fiber))
  (global $gt (export "gt") (mut (ref null $g)) (ref.null $g))
  (global $gc fiberref (ref.null fiber))
  (global $gi (ref null $g) (ref.null $g))
  (table $tf 2 fiberref)
  (table $tg 2 (ref null $g))
  (table $tg2 3 10 (ref null $g))

  (func $seven (param $self (ref $g)) (result i32)
    (unreachable)
    (event $go (i32.const 7)))
  (func $none (param $self (ref $none))
    (event $go))
  (func $many (param $self (ref $many)) (result i32 i64 i32)
    (unreachable)
    (event $go (i32.const 1) (i64.const 2) (i32.const 3)))

  ;; Null references of every fiber type.
  (func (export "null-typed") (result (ref null $g)) (ref.null $g))
  (func (export "null-abstract") (result fiberref) (ref.null fiber))
  (func (export "null-abstract-long") (result (ref null fiber)) (ref.null fiber))
  (func (export "null-none") (result (ref null $none)) (ref.null $none))
  (func (export "is-null-typed") (result i32) (ref.is_null (ref.null $g)))
  (func (export "is-null-abstract") (result i32) (ref.is_null (ref.null fiber)))
  (func (export "is-null-arg") (param $f fiberref) (result i32) (ref.is_null (local.get $f)))
  (func (export "is-null-typed-arg") (param $f (ref null $g)) (result i32) (ref.is_null (local.get $f)))

  ;; Locals of nullable fiber types start out null.
  (func (export "local-defaults") (result i32)
    (local $a fiberref) (local $b (ref null $g)) (local $c (ref null fiber)) (local $d (ref null $outer))
    (i32.add
      (i32.add (ref.is_null (local.get $a)) (ref.is_null (local.get $b)))
      (i32.add (ref.is_null (local.get $c)) (ref.is_null (local.get $d)))))

  ;; Non-null references: results, params, subtyping into nullable and
  ;; abstract types, a moribund fiber is still a non-null value.
  (func (export "new") (result (ref $g)) (fiber.new $seven))
  (func (export "new-as-abstract") (result (ref fiber)) (fiber.new $seven))
  (func (export "new-as-fiberref") (result fiberref) (fiber.new $seven))
  (func $take-ref (param $f (ref $g)) (result i32) (fiber.resume $g $go (local.get $f)))
  (func (export "pass-non-null") (result i32) (call $take-ref (fiber.new $seven)))
  (func (export "moribund-not-null") (result i32)
    (local $f (ref null $g))
    (local.set $f (fiber.new $seven))
    (drop (fiber.resume $g $go (local.get $f)))
    (ref.is_null (local.get $f)))
  (func (export "resume-none")
    (fiber.resume $none $go (fiber.new $none)))
  (func (export "resume-many") (result i32 i64 i32)
    (fiber.resume $many $go (fiber.new $many)))

  ;; Structurally equivalent fiber types are interchangeable.
  (func $take-g2 (param $f (ref null $g2)) (result i32) (fiber.resume $g2 $go (local.get $f)))
  (func (export "equivalent") (result i32)
    (local $f (ref null $g))
    (local.set $f (fiber.new $seven))
    (call $take-g2 (local.get $f)))
  (func (export "equivalent-resume") (result i32)
    (fiber.resume $g2 $go (fiber.new $seven)))

  ;; Typed select.
  (func (export "select") (param $c i32) (result i32)
    (ref.is_null
      (select (result (ref null $g)) (fiber.new $seven) (ref.null $g) (local.get $c))))
  (func (export "select-abstract") (param $c i32) (result fiberref)
    (select (result fiberref) (ref.null fiber) (fiber.new $seven) (local.get $c)))

  ;; Globals.
  (func (export "global-roundtrip") (result i32)
    (global.set $gt (fiber.new $seven))
    (global.set $gf (global.get $gt))
    (i32.add
      (i32.mul (ref.is_null (global.get $gf)) (i32.const 10))
      (fiber.resume $g $go (global.get $gt))))
  (func (export "global-consts") (result i32)
    (i32.add (ref.is_null (global.get $gc)) (ref.is_null (global.get $gi))))
  (func (export "global-clear")
    (global.set $gf (ref.null fiber))
    (global.set $gt (ref.null $g)))

  ;; Tables.
  (func (export "table-size") (result i32)
    (i32.add (i32.mul (table.size $tf) (i32.const 100))
      (i32.add (i32.mul (table.size $tg) (i32.const 10)) (table.size $tg2))))
  (func (export "table-defaults") (result i32)
    (i32.add (ref.is_null (table.get $tf (i32.const 1))) (ref.is_null (table.get $tg2 (i32.const 2)))))
  (func (export "table-set-get") (result i32)
    (table.set $tg (i32.const 1) (fiber.new $seven))
    (table.set $tf (i32.const 0) (table.get $tg (i32.const 1)))
    (i32.add
      (i32.mul (ref.is_null (table.get $tf (i32.const 0))) (i32.const 10))
      (fiber.resume $g $go (table.get $tg (i32.const 1)))))
  (func (export "table-grow") (result i32)
    (table.grow $tg2 (fiber.new $seven) (i32.const 2)))
  (func (export "table-grow-fail") (result i32)
    (table.grow $tg2 (ref.null $g) (i32.const 100)))
  (func (export "table-fill-copy") (result i32)
    (table.fill $tg2 (i32.const 0) (fiber.new $seven) (i32.const 2))
    (table.copy $tg $tg2 (i32.const 0) (i32.const 0) (i32.const 2))
    ;; two distinct table slots, one fiber: the second resume finds it moribund
    (fiber.resume $g $go (table.get $tg (i32.const 1))))
  (func (export "table-slot-0") (result i32)
    (fiber.resume $g $go (table.get $tg (i32.const 0))))
  (func (export "table-oob") (result i32)
    (ref.is_null (table.get $tg (i32.const 2))))

  ;; A fiber whose result is a reference to another fiber.
  (func $maker (param $self (ref $outer)) (result (ref null $inner))
    (unreachable)
    (event $go-i (param i32)
      (if (result (ref null $inner)) (i32.eqz)
        (then (ref.null $inner))
        (else (fiber.new $seven)))))
  (func (export "fiber-of-fiber") (param $x i32) (result i32)
    (local $f (ref null $inner))
    (local.set $f (fiber.resume $outer $go-i (fiber.new $maker) (local.get $x)))
    (if (result i32) (ref.is_null (local.get $f))
      (then (i32.const -1))
      (else (fiber.resume $inner $go (local.get $f)))))
)

(assert_return (invoke "null-typed") (ref.null fiber))
(assert_return (invoke "null-abstract") (ref.null fiber))
(assert_return (invoke "null-abstract-long") (ref.null fiber))
(assert_return (invoke "null-none") (ref.null fiber))
(assert_return (invoke "is-null-typed") (i32.const 1))
(assert_return (invoke "is-null-abstract") (i32.const 1))
(assert_return (invoke "is-null-arg" (ref.null fiber)) (i32.const 1))
(assert_return (invoke "is-null-typed-arg" (ref.null fiber)) (i32.const 1))
(assert_return (invoke "local-defaults") (i32.const 4))
(assert_return (invoke "new") (ref.fiber))
(assert_return (invoke "new-as-abstract") (ref.fiber))
(assert_return (invoke "new-as-fiberref") (ref.fiber))
(assert_return (invoke "pass-non-null") (i32.const 7))
(assert_return (invoke "moribund-not-null") (i32.const 0))
(assert_return (invoke "resume-none"))
(assert_return (invoke "resume-many") (i32.const 1) (i64.const 2) (i32.const 3))
(assert_return (invoke "equivalent") (i32.const 7))
(assert_return (invoke "equivalent-resume") (i32.const 7))
(assert_return (invoke "select" (i32.const 1)) (i32.const 0))
(assert_return (invoke "select" (i32.const 0)) (i32.const 1))
(assert_return (invoke "select-abstract" (i32.const 1)) (ref.null fiber))
(assert_return (invoke "select-abstract" (i32.const 0)) (ref.fiber))
(assert_return (get "gf") (ref.null fiber))
(assert_return (invoke "global-roundtrip") (i32.const 7))
(assert_return (get "gf") (ref.fiber))
(assert_return (get "gt") (ref.fiber))
(assert_return (invoke "global-consts") (i32.const 2))
(invoke "global-clear")
(assert_return (get "gt") (ref.null fiber))
(assert_return (invoke "table-size") (i32.const 223))
(assert_return (invoke "table-defaults") (i32.const 2))
(assert_return (invoke "table-set-get") (i32.const 7))
(assert_return (invoke "table-grow") (i32.const 3))
(assert_return (invoke "table-size") (i32.const 225))
(assert_return (invoke "table-grow-fail") (i32.const -1))
(assert_return (invoke "table-fill-copy") (i32.const 7))
(assert_trap (invoke "table-slot-0") "fiber is moribund")
(assert_trap (invoke "table-oob") "out of bounds table access")
(assert_return (invoke "fiber-of-fiber" (i32.const 0)) (i32.const -1))
(assert_return (invoke "fiber-of-fiber" (i32.const 1)) (i32.const 7))

;; Fiber references and fiber-typed functions cross module boundaries; the
;; importer's types only need to be structurally equivalent.
(module $producer
  (type $g (fiber (result i32)))
  (tag $go (export "go"))
  (tag $with-ref (export "with-ref") (param (ref null $g)))
  (func $seven (param $self (ref $g)) (result i32)
    (unreachable)
    (event $go (i32.const 7)))
  (func (export "make") (result (ref $g)) (fiber.new $seven))
  (func (export "run") (param $f (ref null $g)) (result i32)
    (fiber.resume $g $go (local.get $f)))
  (global (export "slot") (mut (ref null $g)) (ref.null $g))
  (table (export "tab") 2 fiberref)
)
(register "producer" $producer)

(module $consumer
  (type $h (fiber (result i32)))
  (tag $go (import "producer" "go"))
  (func $make (import "producer" "make") (result (ref $h)))
  (func $run (import "producer" "run") (param (ref null $h)) (result i32))
  (global $slot (import "producer" "slot") (mut (ref null $h)))
  (table $tab (import "producer" "tab") 2 fiberref)
  (func (export "local-resume") (result i32)
    (fiber.resume $h $go (call $make)))
  (func (export "remote-resume") (result i32)
    (local $f (ref null $h))
    (local.set $f (call $make))
    (global.set $slot (local.get $f))
    (table.set $tab (i32.const 1) (local.get $f))
    (call $run (global.get $slot)))
  (func (export "remote-null") (result i32)
    (call $run (ref.null $h)))
  (func (export "tab-is-null") (result i32)
    (ref.is_null (table.get $tab (i32.const 1))))
)

(assert_return (invoke "local-resume") (i32.const 7))
(assert_return (invoke "remote-resume") (i32.const 7))
(assert_return (invoke "tab-is-null") (i32.const 0))
(assert_trap (invoke "remote-null") "null fiber reference")
(assert_trap (invoke $producer "run" (ref.null fiber)) "null fiber reference")

;; Import types must match: a fiber type with different results, a nullable
;; vs non-nullable reference, and a tag with a different payload are
;; incompatible. (These modules validate: they fail only at link time.)
(assert_unlinkable
  (module
    (type $h (fiber (result i64)))
    (func (import "producer" "make") (result (ref $h))))
  "incompatible import type")
(assert_unlinkable
  (module
    (type $h (fiber (result i32)))
    (global (import "producer" "slot") (mut (ref $h))))
  "incompatible import type")
(assert_unlinkable
  (module
    (type $h (fiber (result i32)))
    (global (import "producer" "slot") (mut fiberref)))
  "incompatible import type")
(assert_unlinkable
  (module
    (tag (import "producer" "with-ref") (param fiberref)))
  "incompatible import type")
(assert_unlinkable
  (module
    (tag (import "producer" "go") (param i32)))
  "incompatible import type")
;; A non-null global is valid when its initializer is non-null (here an
;; imported non-null global, which nothing can provide).
(assert_unlinkable
  (module
    (type $g (fiber (result i32)))
    (global $in (import "spectest" "no-such-global") (ref $g))
    (global (ref $g) (global.get $in))
    (global fiberref (global.get $in)))
  "unknown import")
