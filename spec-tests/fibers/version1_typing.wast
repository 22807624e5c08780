;; weft-wast-options: --disable-function-references
;; The fiber extension's version 1 typing (design/fibers-spec.md §2, docs/fibers.md
;; §2): without Wasm 3.0's typed function references, typed references name
;; fiber types only and locals must be nullable. With them (the default) these
;; modules are valid: validation.wast and binary.wast check that.

;; A heap type naming a function type, in the binary format.
;; (module (type (func)) (func (param (ref 0))))
(assert_invalid
  (module binary
      "\00\61\73\6d\01\00\00\00\01\09\02\60\00\00\60\01"
      "\64\00\00\03\02\01\01\0a\04\01\02\00\0b")
  "type mismatch: reference to a non-fiber type")

;; A non-nullable local.
;; (module (type $g (fiber)) (func (local (ref $g))))
(assert_invalid
  (module binary
      "\00\61\73\6d\01\00\00\00\01\06\02\5c\00\60\00\00"
      "\03\02\01\01\0a\07\01\05\01\01\64\00\0b")
  "non-defaultable type")

(assert_invalid
  (module (type $f (func)) (func (param (ref $f))))
  "type mismatch: reference to a non-fiber type")
(assert_invalid
  (module (type $f (func)) (func (result (ref null $f)) (unreachable)))
  "type mismatch: reference to a non-fiber type")
(assert_invalid
  (module (type $f (func)) (global (ref null $f) (ref.null $f)))
  "type mismatch: reference to a non-fiber type")
(assert_invalid
  (module (type $f (func)) (table 1 (ref null $f)))
  "type mismatch: reference to a non-fiber type")
(assert_invalid
  (module (type $f (func)) (type $g (fiber (result (ref null $f)))))
  "type mismatch: reference to a non-fiber type")
(assert_invalid
  (module (type $f (func)) (func (drop (ref.null $f))))
  "type mismatch: ref.null of a non-fiber type")
(assert_invalid
  (module (type $g (fiber)) (func (local (ref $g))))
  "non-defaultable type")
(assert_invalid
  (module (func (local (ref fiber))))
  "non-defaultable type")

;; Their instructions are not there either.
(assert_invalid
  (module (type $f (func)) (func (param funcref) (drop (ref.as_non_null (local.get 0)))))
  "function references are not enabled")
(assert_invalid
  (module (func (param externref) (block (br_on_null 0 (local.get 0)) (drop))))
  "function references are not enabled")
