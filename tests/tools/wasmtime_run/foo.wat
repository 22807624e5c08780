;; What a WASI command sees, one line each: its arguments, then "env NAME=VALUE"
;; for each environment variable, then "dir NAME" for each preopened directory.
;; The export `initialize` prints "initialized" (for `--invoke initialize`).
(module
  (import "wasi_snapshot_preview1" "args_sizes_get" (func $args_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_get" (func $args_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_sizes_get" (func $environ_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "environ_get" (func $environ_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_prestat_get" (func $fd_prestat_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_prestat_dir_name" (func $fd_prestat_dir_name (param i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  ;; 0: iovec, 8: nwritten, 16: two sizes or a prestat, 32: text,
  ;; 1024: argv pointers, 4096: argv strings, 16384: environ pointers,
  ;; 65536: environ strings, 229376: a preopen's name.
  (memory (export "memory") 4)
  (data (i32.const 32) "env dir \0ainitialized\0a")

  (func $write (param $ptr i32) (param $len i32)
    (i32.store (i32.const 0) (local.get $ptr))
    (i32.store (i32.const 4) (local.get $len))
    (drop (call $fd_write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8))))

  (func $strlen (param $s i32) (result i32) (local $n i32)
    (block $end
      (loop $next
        (br_if $end (i32.eqz (i32.load8_u (i32.add (local.get $s) (local.get $n)))))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (br $next)))
    (local.get $n))

  ;; One line per string of the $count pointers at $array, each after the
  ;; $prefix_len bytes at $prefix.
  (func $print_lines (param $array i32) (param $count i32) (param $prefix i32) (param $prefix_len i32)
    (local $i i32) (local $s i32)
    (block $end
      (loop $next
        (br_if $end (i32.ge_u (local.get $i) (local.get $count)))
        (local.set $s (i32.load (i32.add (local.get $array) (i32.shl (local.get $i) (i32.const 2)))))
        (call $write (local.get $prefix) (local.get $prefix_len))
        (call $write (local.get $s) (call $strlen (local.get $s)))
        (call $write (i32.const 40) (i32.const 1))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next))))

  (func (export "_start") (local $fd i32)
    (drop (call $args_sizes_get (i32.const 16) (i32.const 20)))
    (drop (call $args_get (i32.const 1024) (i32.const 4096)))
    (call $print_lines (i32.const 1024) (i32.load (i32.const 16)) (i32.const 0) (i32.const 0))
    (drop (call $environ_sizes_get (i32.const 16) (i32.const 20)))
    (drop (call $environ_get (i32.const 16384) (i32.const 65536)))
    (call $print_lines (i32.const 16384) (i32.load (i32.const 16)) (i32.const 32) (i32.const 4))
    ;; Preopens are fds 3, 4, … until fd_prestat_get fails.
    (local.set $fd (i32.const 3))
    (block $end
      (loop $next
        (br_if $end (call $fd_prestat_get (local.get $fd) (i32.const 16)))
        (drop (call $fd_prestat_dir_name (local.get $fd) (i32.const 229376) (i32.load (i32.const 20))))
        (call $write (i32.const 36) (i32.const 4))
        (call $write (i32.const 229376) (i32.load (i32.const 20)))
        (call $write (i32.const 40) (i32.const 1))
        (local.set $fd (i32.add (local.get $fd) (i32.const 1)))
        (br $next))))

  (func (export "initialize") (call $write (i32.const 41) (i32.const 12))))
