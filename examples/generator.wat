;; generator.wat — the proposal's yield-style generator ("Generating elements
;; of an array" / "Consuming generated elements"), corrected so that it
;; validates and runs (docs/fibers.md §13 lists every correction; the
;; numbers in brackets below refer to it).
;;
;;   weft run --invoke main examples/generator.wat          → 55
;;   weft run --invoke addAllElements examples/generator.wat 3 8   → 12
;;
;; $arrayGenerator is started with fiber.spawn, so it first hands its own
;; reference to the consumer with an $identify event, then yields one array
;; element per $next event and simply returns at the end of the array.
;; $addAllElements drives it and adds up what it yields.
(module
  ;; [C1] a fiber type is a type definition `fiber (result …)`, and values
  ;; are references to it; this generator returns nothing.
  (type $generator (fiber))

  (tag $identify (param (ref $generator)))  ;; [C2] `(param (ref $generator))`
  (tag $yield (param i32))
  (tag $next)
  (tag $end-gen)

  ;; The array: 1, 2, …, 10 as i32 at address 0.
  (memory (export "memory") 1)
  (data (i32.const 0)
    "\01\00\00\00\02\00\00\00\03\00\00\00\04\00\00\00\05\00\00\00"
    "\06\00\00\00\07\00\00\00\08\00\00\00\09\00\00\00\0a\00\00\00")

  ;; void generator arrayGenerator(fiber *thisTask, int count, int els)
  (func $arrayGenerator (param $thisTask (ref $generator)) (param $count i32) (param $els i32)
    (local $ix i32)  ;; [C3] locals are declared before the instructions

    ;; Tell the consumer who we are, then wait for the first $next.
    (handle $on-init
      ;; [C4] immediates first, then operands: the fiber, then the payload
      (fiber.suspend $identify (local.get $thisTask) (local.get $thisTask))
      (event $next))

    (block $done
      (loop $l
        ;; [C5] leave the loop (not restart it) when the array is exhausted;
        ;; i32.ge_u instead of the nonexistent i32.ge
        (br_if $done (i32.ge_u (local.get $ix) (local.get $count)))
        (handle
          (fiber.suspend $yield (local.get $thisTask)
            (i32.load (i32.add (local.get $els) (i32.mul (local.get $ix) (i32.const 4)))))
          ;; [C6] an event clause names a tag ($next), not a label ($on-next)
          (event $next
            (local.set $ix (i32.add (local.get $ix) (i32.const 1)))
            (br $l)))))
    ;; Returning ends the fiber; the consumer's fiber.resume then simply
    ;; continues with the next instruction.
    (return))

  ;; int addAllElements(int count, int els[])
  (func $addAllElements (export "addAllElements") (param $count i32) (param $els i32) (result i32)
    (local $generator (ref null $generator))  ;; [C7] nullable: locals need a default
    (local $total i32)
    (handle
      (fiber.spawn $arrayGenerator (local.get $count) (local.get $els))
      (unreachable)  ;; [C8] `unreachable`, there is no `trap` instruction
      (event $identify (param (ref $generator))
        (local.set $generator)))

    ;; [C9] a block to leave the loop, which the proposal's `br $body` only
    ;; left the handle of (and looped forever)
    (block $done
      (loop $l
        (handle $body
          ;; [C10] fiber.resume names the fiber type and the event: the
          ;; results of a normal return come from the type
          (fiber.resume $generator $next (local.get $generator))
          ;; the generator returned
          (br $done)
          (event $yield (param i32)
            (local.get $total)
            (i32.add)
            (local.set $total)
            (br $l))
          ;; [C11] `$end` was never declared; a generator may also retire with
          ;; $end-gen instead of returning
          (event $end-gen
            (br $done)))))
    (local.get $total))

  ;; 1 + 2 + … + 10
  (func (export "main") (result i32)
    (call $addAllElements (i32.const 10) (i32.const 0)))
)
