;; Exception round trips (issue 19; docs/exceptions.md, docs/performance.md
;; "Exceptions (issue 19)"): every export loops n times and returns the sum of
;; the values it got back, 0 + 1 + … + n-1 = n(n−1)/2, so nothing can be left
;; out. bench/native/exceptions.cc is the same four loops in C++ with
;; throw/catch; bench/run.py (`--only exceptions`) takes (t(n) − t(0)) / n of
;; each on both of weft's tiers and natively.
;;
;;   weft run --invoke local  bench/exceptions/exceptions.wat N   → N(N−1)/2
;;   weft run --invoke deep   bench/exceptions/exceptions.wat N   → N(N−1)/2
;;   weft run --invoke plain  bench/exceptions/exceptions.wat N   → N(N−1)/2
;;   weft run --invoke in_try bench/exceptions/exceptions.wat N   → N(N−1)/2
;;
;; local:  a try_table around a `throw $e i` in the same function.
;; deep:   a try_table around a call of $f10, which calls $f9 … $f1, which
;;         throws: 10 Wasm frames between the catcher and the thrower.
;; plain:  a call of $work (returns its argument; throws only for a negative
;;         one, which never happens) per iteration, no try_table.
;; in_try: the same call inside a try_table in the loop body, so that
;;         in_try / plain is what a try_table costs when nothing throws.
(module
  (tag $e (param i32))

  (func (export "local") (param $n i32) (result i64)
    (local $i i32) (local $sum i64)
    (block $done
      (loop $more
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (block $caught (result i32)
          (try_table (result i32) (catch $e $caught)
            (throw $e (local.get $i))))
        (i64.extend_i32_u)  ;; the value got back, from the block or the catch
        (local.get $sum)
        (i64.add)
        (local.set $sum)
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $more)))
    (local.get $sum))

  ;; The chain: each frame adds 1 to the value of the one below it after the
  ;; call returns (it never does), so no call is a tail call.
  (func $f1 (param $v i32) (result i32) (throw $e (local.get $v)))
  (func $f2 (param $v i32) (result i32) (i32.add (call $f1 (local.get $v)) (i32.const 1)))
  (func $f3 (param $v i32) (result i32) (i32.add (call $f2 (local.get $v)) (i32.const 1)))
  (func $f4 (param $v i32) (result i32) (i32.add (call $f3 (local.get $v)) (i32.const 1)))
  (func $f5 (param $v i32) (result i32) (i32.add (call $f4 (local.get $v)) (i32.const 1)))
  (func $f6 (param $v i32) (result i32) (i32.add (call $f5 (local.get $v)) (i32.const 1)))
  (func $f7 (param $v i32) (result i32) (i32.add (call $f6 (local.get $v)) (i32.const 1)))
  (func $f8 (param $v i32) (result i32) (i32.add (call $f7 (local.get $v)) (i32.const 1)))
  (func $f9 (param $v i32) (result i32) (i32.add (call $f8 (local.get $v)) (i32.const 1)))
  (func $f10 (param $v i32) (result i32) (i32.add (call $f9 (local.get $v)) (i32.const 1)))

  (func (export "deep") (param $n i32) (result i64)
    (local $i i32) (local $sum i64)
    (block $done
      (loop $more
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (block $caught (result i32)
          (try_table (result i32) (catch $e $caught)
            (call $f10 (local.get $i))))
        (i64.extend_i32_u)  ;; the value got back, from the block or the catch
        (local.get $sum)
        (i64.add)
        (local.set $sum)
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $more)))
    (local.get $sum))

  ;; The no-throw path's callee: it could throw, but never does here.
  (func $work (param $v i32) (result i32)
    (if (i32.lt_s (local.get $v) (i32.const 0)) (then (throw $e (local.get $v))))
    (local.get $v))

  (func (export "plain") (param $n i32) (result i64)
    (local $i i32) (local $sum i64)
    (block $done
      (loop $more
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (call $work (local.get $i))
        (i64.extend_i32_u)  ;; the value got back, from the block or the catch
        (local.get $sum)
        (i64.add)
        (local.set $sum)
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $more)))
    (local.get $sum))

  (func (export "in_try") (param $n i32) (result i64)
    (local $i i32) (local $sum i64)
    (block $done
      (loop $more
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (block $caught (result i32)
          (try_table (result i32) (catch $e $caught)
            (call $work (local.get $i))))
        (i64.extend_i32_u)  ;; the value got back, from the block or the catch
        (local.get $sum)
        (i64.add)
        (local.set $sum)
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $more)))
    (local.get $sum))
)
