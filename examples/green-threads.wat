;; green-threads.wat — the proposal's cooperative threads ("Structure of a
;; Green Thread" / "Managing Fibers in an Arena"), corrected so that it
;; validates and runs (docs/fibers.md §13; numbers in brackets refer to it).
;;
;;   weft run --invoke main examples/green-threads.wat
;;   1      ← index of the thread that finished first
;;   60     ← its total (10 + 20 + 30)
;;   610    ← totals of the two canceled threads (1+2+3+4 and 100+200+300)
;;
;; Three adder threads, each with its own array generator, are created as
;; fresh fibers (fiber.new) and kept in a table. The canceling arena resumes
;; them round-robin with $go_ahead; each adds one generated element and
;; pauses. The first thread whose generator is exhausted retires with
;; $finish_(total); the arena then cancels every other thread, each of which
;; retires with $finish_ of its partial total (its suspended generator is
;; released with it).
(module
  ;; [C1] fiber types are type definitions; neither kind of fiber returns a
  ;; value (threads always end with fiber.retire).
  (type $generator (fiber))
  (type $thread (fiber))

  (tag $identify (param (ref $generator)))
  (tag $yield (param i32))
  (tag $next)
  (tag $end_gen)
  (tag $pause_)
  (tag $go_ahead)
  (tag $cancel_thread)
  (tag $finish_ (param i32))

  ;; Three arrays: [1 2 3 4 5] at 0, [10 20 30] at 20, [100 200 300 400] at 32.
  (memory 1)
  (data (i32.const 0) "\01\00\00\00\02\00\00\00\03\00\00\00\04\00\00\00\05\00\00\00")
  (data (i32.const 20) "\0a\00\00\00\14\00\00\00\1e\00\00\00")
  (data (i32.const 32) "\64\00\00\00\c8\00\00\00\2c\01\00\00\90\01\00\00")

  ;; The threads of the arena ("we don't include the code to construct the
  ;; array of fibers" — here it is, see $newThread and main).
  (table $task_table 8 (ref null $thread))

  ;; The generator of generator.wat.
  (func $arrayGenerator (param $thisTask (ref $generator)) (param $count i32) (param $els i32)
    (local $ix i32)
    (handle
      (fiber.suspend $identify (local.get $thisTask) (local.get $thisTask))
      (event $next))
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $ix) (local.get $count)))
        (handle
          (fiber.suspend $yield (local.get $thisTask)
            (i32.load (i32.add (local.get $els) (i32.mul (local.get $ix) (i32.const 4)))))
          (event $next
            (local.set $ix (i32.add (local.get $ix) (i32.const 1)))
            (br $l))))))

  ;; void fiber adderThread(fiber *thisThread, fiber *generatorTask)
  ;; [C12] the generator parameter must be nullable or typed exactly; locals
  ;; have no initializers (`(local $total i32 (i32.const 0))`).
  (func $adderThread (param $thisThread (ref $thread)) (param $generator (ref null $generator))
    (local $total i32)
    ;; The body segment is empty: a fresh fiber starts in one of the
    ;; function-level clauses below.
    ;; [C13] canceled before it ever ran: release the generator and report
    ;; (the proposal returned a total from a function declared without
    ;; results, and its arena expects $finish_ from every canceled thread).
    (event $cancel_thread
      (fiber.release (local.get $generator))
      (fiber.retire $finish_ (local.get $thisThread) (local.get $total)))
    (event $go_ahead
      (loop $l
        (handle $body
          (handle $gen
            (fiber.resume $generator $next (local.get $generator))
            (br $body)  ;; the generator returned, so we're done
            (event $yield (param i32)
              (local.set $total (i32.add (local.get $total)))
              ;; [C14] this suspension point lies in a clause of $gen, so
              ;; only $body's clauses handle the events that resume it
              (fiber.suspend $pause_ (local.get $thisThread)))
            (event $end_gen
              (br $body)))
          (event $go_ahead
            (br $l))
          (event $cancel_thread
            (br $body))))
      ;; [C15] `(fiber.retire (local.get $thisThred) ($finish_ …))` →
      ;; tag immediate, then the fiber, then the payload. Retiring releases
      ;; the suspended generator of a canceled thread.
      (fiber.retire $finish_ (local.get $thisThread) (local.get $total))))

  ;; int cancelingArena(fiber fibers[]) — returns (winner, its total,
  ;; sum of the canceled threads' totals).
  ;; [C16] the proposal's loop conditions were inverted (`br_if $for_ix` when
  ;; ix >= len), `$pause`/`finish_` were misspelled, `(trap)` is
  ;; `unreachable`, the winner's total was lost (`(return)` with the
  ;; canceled thread's value on the stack), and the skip of the winner
  ;; (`br_if $inner_jx`) never advanced jx.
  (func $cancelingArena (param $fibers i32) (param $len i32) (result i32 i32 i32)
    (local $ix i32) (local $jx i32) (local $winner i32) (local $total i32) (local $canceled i32)
    (block $finished
      (loop $round
        (local.set $ix (i32.const 0))
        (loop $for_ix
          (handle
            (fiber.resume $thread $go_ahead
              (table.get $task_table (i32.add (local.get $fibers) (local.get $ix))))
            (unreachable)  ;; threads never return normally
            (event $pause_)  ;; next thread
            (event $finish_ (param i32)
              (local.set $total)
              (local.set $winner (local.get $ix))
              (br $finished)))
          (local.set $ix (i32.add (local.get $ix) (i32.const 1)))
          (br_if $for_ix (i32.lt_u (local.get $ix) (local.get $len))))
        (br $round)))
    ;; Cancel every other thread; each reports $finish_ with its partial total.
    (block $done
      (loop $for_jx
        (br_if $done (i32.ge_u (local.get $jx) (local.get $len)))
        (if (i32.ne (local.get $jx) (local.get $winner))
          (then
            (handle
              (fiber.resume $thread $cancel_thread
                (table.get $task_table (i32.add (local.get $fibers) (local.get $jx))))
              (unreachable)
              (event $finish_ (param i32)  ;; the only acceptable event
                (local.set $canceled (i32.add (local.get $canceled))))
              (event $pause_
                (unreachable)))))
        (local.set $jx (i32.add (local.get $jx) (i32.const 1)))
        (br $for_jx)))
    (local.get $winner)
    (local.get $total)
    (local.get $canceled))

  ;; A new (fresh) thread with its own generator over count elements at els.
  (func $newThread (param $count i32) (param $els i32) (result (ref $thread))
    (local $gen (ref null $generator))
    (handle
      (fiber.spawn $arrayGenerator (local.get $count) (local.get $els))
      (unreachable)
      (event $identify (param (ref $generator))
        (local.set $gen)))
    (fiber.new $adderThread (local.get $gen)))

  (func (export "main") (result i32 i32 i32)
    (table.set $task_table (i32.const 0) (call $newThread (i32.const 5) (i32.const 0)))
    (table.set $task_table (i32.const 1) (call $newThread (i32.const 3) (i32.const 20)))
    (table.set $task_table (i32.const 2) (call $newThread (i32.const 4) (i32.const 32)))
    (call $cancelingArena (i32.const 0) (i32.const 3)))
)
