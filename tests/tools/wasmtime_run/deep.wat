;; Recurses 10,000 calls deep with 16 i64 locals per frame (over a megabyte of
;; locals in all): fine with the default stack, too deep for
;; -W max-wasm-stack=65536.
(module
  (func $down (param $n i32) (result i32)
    (local i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64 i64)
    (if (result i32) (i32.eqz (local.get $n))
      (then (i32.const 0))
      (else (i32.add (i32.const 1) (call $down (i32.sub (local.get $n) (i32.const 1)))))))
  (func (export "_start") (drop (call $down (i32.const 10000)))))
