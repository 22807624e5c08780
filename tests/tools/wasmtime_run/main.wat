;; Imports from the module preloaded as "lib" and exits with its answer.
(module
  (import "lib" "answer" (func $answer (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (func (export "_start") (call $exit (call $answer))))
