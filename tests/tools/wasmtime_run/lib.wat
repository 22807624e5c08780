;; A library module for `--preload lib=lib.wasm`.
(module
  (func (export "answer") (result i32) (i32.const 42)))
