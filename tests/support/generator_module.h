// A generator module the fiber tests share: `sum(n)` resumes a fiber that
// yields 0 … n−1 (fiber.new, fiber.resume, fiber.suspend; a two-clause and a
// one-clause dispatch table, over the module's own tags) and returns their sum.
#pragma once

namespace weft::test {

inline constexpr const char* kGeneratorModule = R"((module
  (type $gen (fiber))
  (tag $next)
  (tag $yield (param i32))
  (tag $other (param i64 i64))
  (func $count_up (param $self (ref $gen)) (param $n i32)
    (local $i i32)
    (event $next
      (block $done
        (loop $more
          (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
          (handle
            (fiber.suspend $yield (local.get $self) (local.get $i))
            (event $other (param i64 i64) (drop) (drop))
            (event $next))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $more)))))
  (func (export "sum") (param $n i32) (result i64)
    (local $g (ref null $gen))
    (local $sum i64)
    (local.set $g (fiber.new $count_up (local.get $n)))
    (block $done
      (loop $again
        (handle
          (fiber.resume $gen $next (local.get $g))
          (br $done)
          (event $yield (param i32)
            (i64.extend_i32_u)
            (local.set $sum (i64.add (local.get $sum)))
            (br $again)))))
    (local.get $sum))
))";

}  // namespace weft::test
