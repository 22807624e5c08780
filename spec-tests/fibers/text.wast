;; The text format of the fiber extension (docs/fibers.md §7): fiber types,
;; reference type spellings, plain and folded handle/event syntax,
;; function-level clauses, immediates before operands in folded fiber
;; instructions, numeric indices, event clause labels and param annotations,
;; and the syntax errors (assert_malformed on quoted modules).

;; The worked generator of docs/fibers.md written entirely in the plain syntax.
(module
  (type $gen (fiber))
  (type $pair (fiber (result i32) (result i64)))
  (tag $identify (param (ref $gen)))
  (tag $yield (param i32))
  (tag $next)
  (memory 1)
  (data (i32.const 0) "\01\00\00\00\02\00\00\00\03\00\00\00\04\00\00\00")

  (func $gen (param $self (ref $gen)) (param $count i32) (param $els i32)
    (local $ix i32)
    handle $init
      local.get $self
      local.get $self
      fiber.suspend $identify
    event $next
    end $init
    block $done
      loop $l
        local.get $ix
        local.get $count
        i32.ge_u
        br_if $done
        handle
          local.get $self
          local.get $els
          local.get $ix
          i32.const 2
          i32.shl
          i32.add
          i32.load
          fiber.suspend $yield
        event $next
          local.get $ix
          i32.const 1
          i32.add
          local.set $ix
          br $l
        end
      end
    end)

  (func (export "sum") (param $count i32) (param $els i32) (result i32)
    (local $g (ref null $gen)) (local $total i32)
    handle
      local.get $count
      local.get $els
      fiber.spawn $gen
      unreachable
    event $identify (param (ref $gen))
      local.set $g
    end
    block $done
      loop $l
        handle $h
          local.get $g
          fiber.resume $gen $next
          br $done
        event $yield (param i32)
          local.get $total
          i32.add
          local.set $total
          br $l
        end $h
      end
    end
    local.get $total)

  (func $two (param $self (ref $pair)) (result i32 i64)
    i32.const 7
    i64.const 8
    event $next
      i32.const 9
      i64.const 10)
  (func (export "pair-spawn") (result i32 i64)
    fiber.spawn $two)
  (func (export "pair-new") (result i32 i64)
    fiber.new $two
    fiber.resume $pair $next)
)

(assert_return (invoke "sum" (i32.const 4) (i32.const 0)) (i32.const 10))
(assert_return (invoke "sum" (i32.const 2) (i32.const 8)) (i32.const 7))
(assert_return (invoke "sum" (i32.const 0) (i32.const 0)) (i32.const 0))
(assert_return (invoke "pair-spawn") (i32.const 7) (i64.const 8))
(assert_return (invoke "pair-new") (i32.const 9) (i64.const 10))

;; Numeric indices everywhere; mixed plain and folded forms; a block type
;; given by a type index; all reference type spellings.
(module
  (type (fiber (result i32)))
  (type (func (param (ref 0)) (result i32)))
  (type $bt (func (param i32) (result i32)))
  (tag (param i32))
  (tag)
  (func (type 1) unreachable event 1 i32.const 11)
  (func (export "numeric") (result i32)
    handle (result i32)
      fiber.new 0
      fiber.resume 0 1
    event 0
    end)
  (func (export "numeric-folded") (result i32)
    (handle (result i32)
      (fiber.resume 0 1 (fiber.new 0))
      (event 0)))
  (func (export "type-blocktype") (param i32) (result i32)
    (local.get 0)
    (handle (type $bt) (i32.const 1) (i32.add) (event 0) (event 1 (i32.const -1))))
  (func (export "spellings")
    (param fiberref (ref null fiber) (ref fiber) (ref 0) (ref null 0)) (result i32)
    (local fiberref) (local (ref null fiber)) (local (ref null 0))
    (local.set 5 (local.get 2))
    (local.set 6 (local.get 3))
    (local.set 7 (local.get 4))
    (i32.add (ref.is_null (local.get 0)) (ref.is_null (local.get 1))))
  (func (export "spellings-call") (result i32)
    (call 4 (ref.null fiber) (ref.null fiber) (fiber.new 0) (fiber.new 0) (ref.null 0)))
)

(assert_return (invoke "numeric") (i32.const 11))
(assert_return (invoke "numeric-folded") (i32.const 11))
(assert_return (invoke "type-blocktype" (i32.const 4)) (i32.const 5))
(assert_return (invoke "spellings-call") (i32.const 2))

;; An event clause may be given a label: it names the enclosing handle's label.
(module quote
  "(type $g (fiber (result i32)))"
  "(tag $e (param i32))"
  "(tag $up (param i32))"
  "(func $f (param $self (ref $g)) (result i32)"
  "  (unreachable)"
  "  (event $e (param i32)"
  "    (drop)"
  "    (handle $h (result i32)"
  "      (fiber.suspend $up (local.get $self) (i32.const 0))"
  "      (event $alias $e (br $alias (i32.add (i32.const 1)))))))"
  "(func (export \"alias\") (param i32) (result i32)"
  "  (local $f (ref null $g))"
  "  (local.set $f (fiber.new $f))"
  "  (drop (handle (result i32) (fiber.resume $g $e (local.get $f) (i32.const 0)) (event $up (param i32))))"
  "  (fiber.resume $g $e (local.get $f) (local.get 0)))"
)
(assert_return (invoke "alias" (i32.const 41)) (i32.const 42))

;; Param annotations on clauses may be split like a function's.
(module
  (type $g (fiber (result i64)))
  (tag $two (param i64 i32))
  (func $f (param $self (ref $g)) (result i64)
    (unreachable)
    (event $two (param i64) (param i32)
      (i64.add (i64.extend_i32_u))))
  (func (export "split") (result i64)
    (fiber.resume $g $two (fiber.new $f) (i64.const 40) (i32.const 2)))
)
(assert_return (invoke "split") (i64.const 42))

;; ---- Syntax errors ------------------------------------------------------------

(assert_malformed
  (module quote "(type (fiber (param i32)))")
  "unexpected token")
(assert_malformed
  (module quote "(type (fiber (result i32) (param i32)))")
  "unexpected token")
(assert_malformed
  (module quote "(type (fiber (result i32)) (func))")
  "unexpected token")
(assert_malformed
  (module quote "(func (param (ref null)))")
  "unexpected token")
(assert_malformed
  (module quote "(func (param (ref)))")
  "unexpected token")
(assert_malformed
  (module quote "(func (param (ref null fibers)))")
  "unexpected token")
(assert_malformed
  (module quote "(func (param (ref $nope)))")
  "unknown type")
(assert_malformed
  (module quote "(func (param fiber))")
  "unexpected token")
;; clause params must repeat the tag's params exactly
(assert_malformed
  (module quote "(tag $e (param i32)) (func (handle (event $e (param i64) (drop))))")
  "inline type mismatch")
(assert_malformed
  (module quote "(tag $e (param i32)) (func (handle (event $e (param i32 i32) (drop) (drop))))")
  "inline type mismatch")
(assert_malformed
  (module quote "(tag $e) (func (handle (event $e (param i32) (drop))))")
  "inline type mismatch")
(assert_malformed
  (module quote "(tag $e (param i32)) (func (param i32) (result i32) (local.get 0) (event $e (param f32)))")
  "inline type mismatch")
;; missing or extra immediates, unknown names
(assert_malformed
  (module quote "(type $g (fiber)) (func (param (ref null $g)) (fiber.resume $g (local.get 0)))")
  "unexpected token")
(assert_malformed
  (module quote "(type $g (fiber)) (tag $e) (func (param (ref null $g)) local.get 0 fiber.resume $e)")
  "unknown type")
(assert_malformed
  (module quote "(func (param fiberref) (fiber.suspend (local.get 0)))")
  "unexpected token")
(assert_malformed
  (module quote "(func (drop (fiber.new)))")
  "unexpected token")
(assert_malformed
  (module quote "(func (fiber.spawn))")
  "unexpected token")
(assert_malformed
  (module quote "(tag $e) (func (param fiberref) (fiber.release $e (local.get 0)))")
  "unexpected token")
(assert_malformed
  (module quote "(tag $e) (func (param fiberref) (fiber.yield $e (local.get 0)))")
  "unknown operator")
(assert_malformed
  (module quote "(func (handle (event $nope)))")
  "unknown tag")
(assert_malformed
  (module quote "(func (handle (event)))")
  "unexpected token")
(assert_malformed
  (module quote "(tag $e) (func (param fiberref) (fiber.suspend $nope (local.get 0)))")
  "unknown tag")
(assert_malformed
  (module quote "(type $g (fiber)) (tag $e) (func (param fiberref fiberref) (fiber.switch $g (local.get 0) (local.get 1)))")
  "unexpected token")
(assert_malformed
  (module quote "(func $f) (func (drop (fiber.new $g)))")
  "unknown function")
;; label mismatches and misplaced clauses
(assert_malformed
  (module quote "(tag $e) (func handle $a event $e end $b)")
  "mismatching label")
(assert_malformed
  (module quote "(tag $e) (func (handle (event $e) (nop)))")
  "unexpected token")
(assert_malformed
  (module quote "(tag $e) (func handle event $e end end)")
  "unexpected token")
