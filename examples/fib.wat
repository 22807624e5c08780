;; fib.wat — the module `make demo` runs: Fibonacci (iterative and recursive),
;; factorial and the golden ratio, each an exported function for
;; `weft run --invoke NAME examples/fib.wat ARGS…`.
(module
  ;; fib(n) with a loop, in i64: fib(90) = 2880067194370816120 still fits.
  (func $fib (export "fib") (param $n i64) (result i64)
    (local $a i64) (local $b i64) (local $t i64)
    (local.set $b (i64.const 1))
    (block $done
      (loop $next
        (br_if $done (i64.eqz (local.get $n)))
        (local.set $t (i64.add (local.get $a) (local.get $b)))
        (local.set $a (local.get $b))
        (local.set $b (local.get $t))
        (local.set $n (i64.sub (local.get $n) (i64.const 1)))
        (br $next)))
    (local.get $a))

  ;; fib(n) by naive recursion: exponentially many calls, a small benchmark.
  (func $fib_rec (export "fib_rec") (param $n i32) (result i32)
    (if (result i32) (i32.lt_u (local.get $n) (i32.const 2))
      (then (local.get $n))
      (else
        (i32.add
          (call $fib_rec (i32.sub (local.get $n) (i32.const 1)))
          (call $fib_rec (i32.sub (local.get $n) (i32.const 2)))))))

  ;; n! in i64 (wraps around above 20!).
  (func $fac (export "fac") (param $n i64) (result i64)
    (if (result i64) (i64.le_u (local.get $n) (i64.const 1))
      (then (i64.const 1))
      (else (i64.mul (local.get $n) (call $fac (i64.sub (local.get $n) (i64.const 1)))))))

  ;; fib(n+1) / fib(n) → the golden ratio (1 + sqrt 5) / 2 as n grows.
  (func (export "golden_ratio") (param $n i64) (result f64)
    (f64.div
      (f64.convert_i64_u (call $fib (i64.add (local.get $n) (i64.const 1))))
      (f64.convert_i64_u (call $fib (local.get $n)))))

  ;; Divides two integers: traps on a zero divisor, to show a trap report.
  (func (export "div") (param $a i32) (param $b i32) (result i32)
    (i32.div_s (local.get $a) (local.get $b))))
