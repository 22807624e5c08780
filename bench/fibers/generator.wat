;; P2 — Wasm generator: one fiber.resume + fiber.suspend round trip per yielded
;; value, event dispatch included (docs/fibers.md §6.3, §6.4, §6.10).
;;
;;   weft run --invoke run bench/fibers/generator.wat 10000000   → 49999995000000
;;
;; `run n` makes a fresh generator fiber, resumes it with $next until it
;; returns, and sums what it yields (0 + 1 + … + n-1 = n(n-1)/2, checked by
;; bench/run.py). The time per round trip is (t(n) − t(0)) / n, so parsing,
;; instantiation and process start-up cancel out. The native reference is
;; bench/native/generator_boost.cc; the Asyncify variant bench/native/generator_asyncify.c.
(module
  (type $gen (fiber))
  (tag $next)
  (tag $yield (param i32))

  ;; The generator: a fresh fiber enters its function-level $next clause on
  ;; its first resume, then yields 0 … n-1, one value per $next, and returns.
  (func $count_up (param $self (ref $gen)) (param $n i32)
    (local $i i32)
    (event $next
      (block $done
        (loop $more
          (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
          (handle
            (fiber.suspend $yield (local.get $self) (local.get $i))
            (event $next))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $more)))))

  (func (export "run") (param $n i32) (result i64)
    (local $g (ref null $gen))
    (local $sum i64)
    (local.set $g (fiber.new $count_up (local.get $n)))
    (block $done
      (loop $next_value
        (handle
          (fiber.resume $gen $next (local.get $g))
          (br $done)  ;; the generator returned: all values consumed
          (event $yield (param i32)  ;; the yielded value is on the stack
            (i64.extend_i32_u)
            (local.get $sum)
            (i64.add)
            (local.set $sum)
            (br $next_value)))))
    (local.get $sum))
)
