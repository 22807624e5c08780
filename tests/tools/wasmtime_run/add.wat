;; `--invoke add add.wasm 1 2` prints 3.
(module
  (func (export "add") (param i32 i32) (result i32) (i32.add (local.get 0) (local.get 1))))
