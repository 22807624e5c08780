;; Grows its memory a page at a time until memory.grow fails or 100 pages are
;; reached, then exits with the number of pages it has: 3 under
;; -W max-memory-size=196608 (3 × 64 KiB).
(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (func (export "_start")
    (block $full
      (loop $grow
        (br_if $full (i32.eq (memory.grow (i32.const 1)) (i32.const -1)))
        (br_if $grow (i32.lt_u (memory.size) (i32.const 100)))))
    (call $exit (memory.size))))
