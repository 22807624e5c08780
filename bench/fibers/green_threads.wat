;; P4 — green threads: N fibers made with fiber.new, run by a round-robin
;; scheduler; each thread yields `yields` times, then returns.
;;
;;   weft run --invoke run bench/fibers/green_threads.wat N 100
;;       → 100 · N(N−1)/2 (each thread adds its id once per yield)
;;   weft run --invoke create bench/fibers/green_threads.wat N
;;       → N(N−1)/2 (each thread resumed once; all N stay suspended)
;;
;;   weft run --invoke fresh bench/fibers/green_threads.wat N
;;       → N (N fresh fibers, all live at once; none has a stack yet)
;;
;; `create N` is the create + first-resume cost and, with every fiber
;; suspended at its first yield when the process peaks, the resident memory
;; per suspended fiber: bench/run.py takes (t(N) − t(0)) / N and
;; (maxrss(N) − maxrss(0)) / N. `run N 100` is the scheduler's steady state.
;; `fresh 1000000` shows that a million fibers can be live at once (one more
;; traps "too many fibers" under the default --max-fibers).
(module
  (type $thread (fiber))
  (tag $go)
  (tag $pause)

  (table $threads 0 (ref null $thread))
  (global $total (mut i64) (i64.const 0))

  ;; A thread adds its id to $total, pauses, and repeats `yields` times.
  (func $worker (param $self (ref $thread)) (param $id i32) (param $yields i32)
    (local $k i32)
    (event $go
      (block $done
        (loop $again
          (br_if $done (i32.ge_u (local.get $k) (local.get $yields)))
          (global.set $total (i64.add (global.get $total) (i64.extend_i32_u (local.get $id))))
          (handle
            (fiber.suspend $pause (local.get $self))
            (event $go))
          (local.set $k (i32.add (local.get $k) (i32.const 1)))
          (br $again)))))

  ;; Creates N fresh threads in the table.
  (func $spawn_all (param $n i32) (param $yields i32)
    (local $i i32)
    (if (i32.eq (table.grow $threads (ref.null $thread) (local.get $n)) (i32.const -1))
      (then (unreachable)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (table.set $threads (local.get $i)
          (fiber.new $worker (local.get $i) (local.get $yields)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next))))

  ;; One round: resume every thread once; returns how many returned this round.
  (func $round (param $n i32) (result i32)
    (local $i i32) (local $finished i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (handle $switch
          (fiber.resume $thread $go (table.get $threads (local.get $i)))
          (local.set $finished (i32.add (local.get $finished) (i32.const 1)))
          (event $pause))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $finished))

  ;; Round-robin until every thread has returned (yields + 1 rounds); traps
  ;; if the scheduler lost or double-counted a thread.
  (func (export "run") (param $n i32) (param $yields i32) (result i64)
    (local $r i32) (local $finished i32)
    (call $spawn_all (local.get $n) (local.get $yields))
    (block $done
      (loop $rounds
        (br_if $done (i32.gt_u (local.get $r) (local.get $yields)))
        (local.set $finished (i32.add (local.get $finished) (call $round (local.get $n))))
        (local.set $r (i32.add (local.get $r) (i32.const 1)))
        (br $rounds)))
    (if (i32.ne (local.get $finished) (local.get $n)) (then (unreachable)))
    (global.get $total))

  ;; Create N threads and leave them fresh (live, no stack yet).
  (func (export "fresh") (param $n i32) (result i64)
    (call $spawn_all (local.get $n) (i32.const 1))
    (i64.extend_i32_u (table.size $threads)))

  ;; Create N threads and resume each once: all N end suspended at their first pause.
  (func (export "create") (param $n i32) (result i64)
    (call $spawn_all (local.get $n) (i32.const 1))
    (if (i32.ne (call $round (local.get $n)) (i32.const 0)) (then (unreachable)))
    (global.get $total))
)
