;; Multiple memories (Wasm 3.0) beyond the proposal's own files: one memory
;; imported twice (growing it through one index must be seen through the
;; other, by code that caches memory 0's base and size: the interpreter's
;; cached base, the JIT's pinned registers), copies between memories and
;; within an aliased pair, memory k's accesses beside memory 0's in one loop,
;; a grow of memory 0 between accesses of memory 1, the fused address forms
;; (i32.add into a load/store) on memory 1, and memory k inside a fiber.
;; Runs on both tiers (the JIT with --no-fallback).

(module $exporter
  (memory (export "shared") 1 4)
  (data (i32.const 0) "\01\02\03\04"))
(register "exporter" $exporter)

(module
  (import "exporter" "shared" (memory $a 1 4))
  (import "exporter" "shared" (memory $b 1 4))
  (func (export "grow-b-read-a") (result i32)
    (drop (memory.grow $b (i32.const 1)))
    (i32.store $b (i32.const 70000) (i32.const 0x5eed))
    ;; memory 0 is the same memory: its cached size must have grown too
    (i32.load $a (i32.const 70000)))
  (func (export "sizes") (result i32 i32)
    (memory.size $a) (memory.size $b))
  (func (export "grow-a-read-b") (result i32)
    (drop (memory.grow $a (i32.const 1)))
    (i32.store $a (i32.const 140000) (i32.const 77))
    (i32.load $b (i32.const 140000)))
  ;; copies between the two indices of one memory overlap: memmove semantics
  (func (export "aliased-copy") (result i32)
    (memory.copy $b $a (i32.const 1) (i32.const 0) (i32.const 3))
    (i32.load $a (i32.const 0))))

(assert_return (invoke "grow-b-read-a") (i32.const 0x5eed))
(assert_return (invoke "sizes") (i32.const 2) (i32.const 2))
(assert_return (invoke "grow-a-read-b") (i32.const 77))
(assert_return (invoke "sizes") (i32.const 3) (i32.const 3))
(assert_return (invoke "aliased-copy") (i32.const 0x03020101))

(module
  (memory $m0 1)
  (memory $m1 1 2)
  (memory $m2 0)
  (data (memory $m1) (i32.const 8) "\2a")
  (data $passive "weft")

  ;; One loop, three memories: m0[i] = i, m1[i] = 2i, m1's word read back through an added address.
  (func (export "interleave") (param $n i32) (result i32)
    (local $i i32) (local $sum i32)
    (loop $next
      (i32.store8 $m0 (local.get $i) (local.get $i))
      (i32.store8 $m1 offset=100 (local.get $i) (i32.shl (local.get $i) (i32.const 1)))
      (local.set $sum
        (i32.add (local.get $sum)
          (i32.add (i32.load8_u $m0 (local.get $i))
                   (i32.load8_u $m1 (i32.add (local.get $i) (i32.const 100))))))
      (br_if $next (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
    (local.get $sum))

  ;; memory 0 grows (the JIT reloads its registers) between two reads of memory 1
  (func (export "grow-0-between") (result i32)
    (local $before i32)
    (local.set $before (i32.load8_u $m1 (i32.const 8)))
    (drop (memory.grow $m0 (i32.const 3)))
    (i32.add (local.get $before) (i32.load8_u $m1 (i32.const 8))))

  (func (export "size-0") (result i32) (memory.size $m0))
  (func (export "size-2") (result i32) (memory.size $m2))
  (func (export "grow-1") (param i32) (result i32) (memory.grow $m1 (local.get 0)))
  (func (export "load-1") (param i32) (result i32) (i32.load $m1 (local.get 0)))
  (func (export "load-2") (param i32) (result i32) (i32.load8_u $m2 (local.get 0)))
  (func (export "store-1-added") (param i32 i32)
    (i64.store32 $m1 (i32.add (local.get 0) (local.get 1)) (i64.const 0x1234)))

  ;; bulk memory on memory 1 and 2, and copies between memories
  (func (export "init-1") (param i32)
    (memory.init $m1 $passive (local.get 0) (i32.const 0) (i32.const 4)))
  (func (export "copy-1-to-0") (param $dst i32) (param $src i32) (param $n i32)
    (memory.copy $m0 $m1 (local.get $dst) (local.get $src) (local.get $n)))
  (func (export "copy-0-to-2") (param $dst i32) (param $src i32) (param $n i32)
    (memory.copy $m2 $m0 (local.get $dst) (local.get $src) (local.get $n)))
  (func (export "fill-1") (param i32 i32 i32)
    (memory.fill $m1 (local.get 0) (local.get 1) (local.get 2)))
  (func (export "load-0") (param i32) (result i32) (i32.load $m0 (local.get 0)))
  (func (export "f64-1") (param i32) (result f64)
    (f64.store $m1 (local.get 0) (f64.const 2.5))
    (f64.add (f64.load $m1 (local.get 0)) (f64.load $m1 (local.get 0)))))

(assert_return (invoke "interleave" (i32.const 50)) (i32.const 3675))
(assert_return (invoke "size-2") (i32.const 0))
(assert_trap (invoke "load-2" (i32.const 0)) "out of bounds memory access")
(assert_return (invoke "grow-0-between") (i32.const 84))
(assert_return (invoke "size-0") (i32.const 4))
(assert_return (invoke "load-1" (i32.const 65532)) (i32.const 0))
(assert_trap (invoke "load-1" (i32.const 65533)) "out of bounds memory access")
(assert_trap (invoke "load-1" (i32.const -1)) "out of bounds memory access")
(assert_return (invoke "grow-1" (i32.const 1)) (i32.const 1))
(assert_return (invoke "grow-1" (i32.const 1)) (i32.const -1))
(assert_return (invoke "load-1" (i32.const 65533)) (i32.const 0))
(assert_return (invoke "store-1-added" (i32.const 131068) (i32.const 0)))
(assert_trap (invoke "store-1-added" (i32.const 131068) (i32.const 1)) "out of bounds memory access")
(assert_return (invoke "load-1" (i32.const 131068)) (i32.const 0x1234))
(assert_return (invoke "init-1" (i32.const 1000)))
(assert_return (invoke "load-1" (i32.const 1000)) (i32.const 0x74666577))
(assert_trap (invoke "init-1" (i32.const 131070)) "out of bounds memory access")
(assert_return (invoke "copy-1-to-0" (i32.const 0) (i32.const 1000) (i32.const 4)))
(assert_return (invoke "load-0" (i32.const 0)) (i32.const 0x74666577))
(assert_trap (invoke "copy-1-to-0" (i32.const 0) (i32.const 131070) (i32.const 4)) "out of bounds memory access")
(assert_trap (invoke "copy-0-to-2" (i32.const 0) (i32.const 0) (i32.const 1)) "out of bounds memory access")
(assert_return (invoke "copy-0-to-2" (i32.const 0) (i32.const 0) (i32.const 0)))
(assert_return (invoke "fill-1" (i32.const 1000) (i32.const 0xAB) (i32.const 2)))
(assert_return (invoke "load-1" (i32.const 1000)) (i32.const 0x7466ABAB))
(assert_trap (invoke "fill-1" (i32.const 131071) (i32.const 0) (i32.const 2)) "out of bounds memory access")
(assert_return (invoke "f64-1" (i32.const 16)) (f64.const 5.0))

;; memory 1 inside a fiber: examples/generator.wat's generator yields the
;; elements of an array in memory 1 (memory 0 holds decoys); each element is
;; also written back doubled, by the fiber, across its suspensions.
(module
  (type $generator (fiber))
  (tag $identify (param (ref $generator)))
  (tag $yield (param i32))
  (tag $next)
  (memory $decoys 1)
  (memory $array 1)
  (data (memory $decoys) (i32.const 0) "\63\00\00\00\63\00\00\00\63\00\00\00")
  (data (memory $array) (i32.const 0) "\01\00\00\00\02\00\00\00\03\00\00\00")

  (func $arrayGenerator (param $thisTask (ref $generator)) (param $count i32) (param $els i32)
    (local $ix i32) (local $at i32)
    (handle
      (fiber.suspend $identify (local.get $thisTask) (local.get $thisTask))
      (event $next))
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $ix) (local.get $count)))
        (local.set $at (i32.add (local.get $els) (i32.mul (local.get $ix) (i32.const 4))))
        (handle
          (fiber.suspend $yield (local.get $thisTask) (i32.load $array (local.get $at)))
          (event $next
            (i32.store $array (local.get $at) (i32.shl (i32.load $array (local.get $at)) (i32.const 1)))
            (local.set $ix (i32.add (local.get $ix) (i32.const 1)))
            (br $l))))))

  (func $sum (export "sum") (param $count i32) (result i32)
    (local $generator (ref null $generator))
    (local $total i32)
    (handle
      (fiber.spawn $arrayGenerator (local.get $count) (i32.const 0))
      (unreachable)
      (event $identify (param (ref $generator))
        (local.set $generator)))
    (block $done
      (loop $l
        (handle
          (fiber.resume $generator $next (local.get $generator))
          (br $done)
          (event $yield (param i32)
            (local.get $total)
            (i32.add)
            (local.set $total)
            (br $l)))))
    (local.get $total))

  (func (export "array-sum-after") (result i32)
    (drop (call $sum (i32.const 3)))
    (i32.add (i32.add (i32.load $array (i32.const 0)) (i32.load $array (i32.const 4))) (i32.load $array (i32.const 8)))))

(assert_return (invoke "sum" (i32.const 3)) (i32.const 6))
(assert_return (invoke "array-sum-after") (i32.const 24))
