;; async-io/scheduler.wat — the proposal's asynchronous I/O example ("A
;; fetching Fiber", "An async-aware scheduler", "Reporting a paused
;; execution"), written out in WebAssembly (the proposal leaves the
;; scheduler "as an exercise") and made runnable without a host: the
;; browser's event loop and `fetch` are simulated in linear memory.
;;
;;   weft run --invoke main examples/async-io/scheduler.wat
;;   1324   ← the order in which the four fetchers finished (slot + 1 each)
;;   8308   ← the sum of all data they received
;;   12     ← the simulated time when the last request completed
;;   4      ← the number of tasks the scheduler saw finish
;;
;; Roles, as in the proposal:
;; - `main` is the outer event loop (the browser). It starts the scheduler
;;   and, whenever the scheduler has nothing to run and suspends with
;;   $global_pause, completes the earliest pending request (advancing the
;;   simulated clock) and resumes the scheduler with $io_notify(client, data).
;; - the scheduler fiber runs a queue of ready tasks in linear memory: it
;;   resumes each with its reason ($go_ahead, or $io_result(data) for a
;;   completed request), re-queues tasks that $pause, counts tasks blocked on
;;   an $async_request, and demultiplexes $io_notify into the client's
;;   $io_result. It returns when no task is ready or blocked.
;; - four fetcher tasks each `simple_fetch` two URLs with a cooperative
;;   pause in between, then record their completion.
;; - simple_fetch registers the request with the simulated device (instead
;;   of fetch(url).then(…)) and suspends the client with $async_request; the
;;   $io_result that resumes it carries the data.
;;
;; Simulated device: URL u completes latency[u] time units after it was
;; requested and delivers the value 1000 + 11 * u. Ties complete in client
;; slot order. Corrections relative to the proposal: docs/fibers.md §13.
(module
  (type $task (fiber))
  (type $sched (fiber (result i32)))

  (tag $start)
  (tag $go_ahead)
  (tag $pause)
  (tag $async_request)
  (tag $io_result (param i32))
  (tag $global_pause)
  (tag $io_notify (param i32 i32))  ;; client slot, data

  ;; 0..31: latency of URLs 0..7; 64..255: ready queue (16 entries of slot,
  ;; reason, value); 256..303: pending request per client slot (active,
  ;; completion time, data).
  (memory 1)
  (data (i32.const 0)
    "\05\00\00\00\03\00\00\00\09\00\00\00\01\00\00\00"
    "\07\00\00\00\02\00\00\00\08\00\00\00\04\00\00\00")

  (table $tasks 4 (ref null $task))
  (global $scheduler (mut (ref null $sched)) (ref.null $sched))
  (global $head (mut i32) (i32.const 0))
  (global $tail (mut i32) (i32.const 0))
  (global $now (mut i32) (i32.const 0))
  (global $log (mut i32) (i32.const 0))
  (global $sum (mut i32) (i32.const 0))

  ;; ---- the ready queue ------------------------------------------------------
  (func $enqueue (param $slot i32) (param $reason i32) (param $value i32)
    (local $a i32)
    (local.set $a (i32.add (i32.const 64)
      (i32.mul (i32.rem_u (global.get $tail) (i32.const 16)) (i32.const 12))))
    (i32.store (local.get $a) (local.get $slot))
    (i32.store offset=4 (local.get $a) (local.get $reason))
    (i32.store offset=8 (local.get $a) (local.get $value))
    (global.set $tail (i32.add (global.get $tail) (i32.const 1))))
  (func $dequeue (result i32 i32 i32)
    (local $a i32)
    (local.set $a (i32.add (i32.const 64)
      (i32.mul (i32.rem_u (global.get $head) (i32.const 16)) (i32.const 12))))
    (global.set $head (i32.add (global.get $head) (i32.const 1)))
    (i32.load (local.get $a))
    (i32.load offset=4 (local.get $a))
    (i32.load offset=8 (local.get $a)))
  (func $queue_empty (result i32)
    (i32.eq (global.get $head) (global.get $tail)))

  ;; ---- the simulated device ---------------------------------------------------
  (func $submit (param $slot i32) (param $url i32)
    (local $a i32)
    (local.set $a (i32.add (i32.const 256) (i32.mul (local.get $slot) (i32.const 12))))
    (i32.store (local.get $a) (i32.const 1))
    (i32.store offset=4 (local.get $a)
      (i32.add (global.get $now) (i32.load (i32.mul (local.get $url) (i32.const 4)))))
    (i32.store offset=8 (local.get $a)
      (i32.add (i32.const 1000) (i32.mul (local.get $url) (i32.const 11)))))
  ;; Completes the earliest pending request: returns (client slot, data).
  (func $complete_next (result i32 i32)
    (local $i i32) (local $a i32) (local $best i32) (local $best_time i32)
    (local.set $best (i32.const -1))
    (local.set $best_time (i32.const -1))
    (loop $scan
      (local.set $a (i32.add (i32.const 256) (i32.mul (local.get $i) (i32.const 12))))
      (if (i32.and (i32.load (local.get $a))
                   (i32.lt_u (i32.load offset=4 (local.get $a)) (local.get $best_time)))
        (then
          (local.set $best (local.get $i))
          (local.set $best_time (i32.load offset=4 (local.get $a)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $scan (i32.lt_u (local.get $i) (i32.const 4))))
    (local.set $a (i32.add (i32.const 256) (i32.mul (local.get $best) (i32.const 12))))
    (global.set $now (local.get $best_time))
    (i32.store (local.get $a) (i32.const 0))
    (local.get $best)
    (i32.load offset=8 (local.get $a)))

  ;; ---- the async library ------------------------------------------------------
  ;; string simple_fetch(client, url)
  (func $simple_fetch (param $client (ref $task)) (param $slot i32) (param $url i32) (result i32)
    (call $submit (local.get $slot) (local.get $url))
    (handle (result i32)
      (fiber.suspend $async_request (local.get $client))
      (event $io_result (param i32))))
  (func $pause (param $self (ref $task))
    (handle
      (fiber.suspend $pause (local.get $self))
      (event $go_ahead)))

  ;; async fetcher(slot, url a, url b)
  (func $fetcher (param $self (ref $task)) (param $slot i32) (param $a i32) (param $b i32)
    (local $text i32)
    (event $go_ahead
      (local.set $text (call $simple_fetch (local.get $self) (local.get $slot) (local.get $a)))
      (call $pause (local.get $self))
      (local.set $text (i32.add (local.get $text)
        (call $simple_fetch (local.get $self) (local.get $slot) (local.get $b))))
      ;; doSomething(text): record the completion order and the data
      (global.set $log (i32.add (i32.mul (global.get $log) (i32.const 10))
                                (i32.add (local.get $slot) (i32.const 1))))
      (global.set $sum (i32.add (global.get $sum) (local.get $text)))))

  ;; ---- the scheduler ------------------------------------------------------------
  (func $naiveScheduler (param $self (ref $sched)) (result i32)
    (local $slot i32) (local $reason i32) (local $value i32) (local $done i32) (local $blocked i32)
    (unreachable)
    (event $start
      (loop $main
        (block $empty
          (loop $run
            (br_if $empty (call $queue_empty))
            (call $dequeue)
            (local.set $value)
            (local.set $reason)
            (local.set $slot)
            (handle
              (if (i32.eqz (local.get $reason))
                (then
                  (fiber.resume $task $go_ahead (table.get $tasks (local.get $slot))))
                (else
                  (fiber.resume $task $io_result (table.get $tasks (local.get $slot)) (local.get $value))))
              ;; the task returned: it is finished
              (local.set $done (i32.add (local.get $done) (i32.const 1)))
              (event $pause
                (call $enqueue (local.get $slot) (i32.const 0) (i32.const 0)))
              (event $async_request
                (local.set $blocked (i32.add (local.get $blocked) (i32.const 1)))))
            (br $run)))
        ;; Nothing is ready; if nothing is in flight either, all tasks are done.
        (if (i32.eqz (local.get $blocked))
          (then (return (local.get $done))))
        ;; Let the outside world complete a request, and route its result to
        ;; the client that asked for it.
        (handle
          (fiber.suspend $global_pause (local.get $self))
          (event $io_notify (param i32 i32)
            (local.set $value)
            (local.set $slot)
            (local.set $blocked (i32.sub (local.get $blocked) (i32.const 1)))
            (call $enqueue (local.get $slot) (i32.const 1) (local.get $value))))
        (br $main))
      (unreachable)))

  ;; ---- the outer event loop -------------------------------------------------------
  (func (export "main") (result i32 i32 i32 i32)
    (local $i i32) (local $slot i32) (local $data i32) (local $done i32) (local $first i32)
    ;; fetcher i requests URLs 2i and 2i + 1
    (loop $make
      (table.set $tasks (local.get $i)
        (fiber.new $fetcher (local.get $i)
          (i32.mul (local.get $i) (i32.const 2))
          (i32.add (i32.mul (local.get $i) (i32.const 2)) (i32.const 1))))
      (call $enqueue (local.get $i) (i32.const 0) (i32.const 0))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $make (i32.lt_u (local.get $i) (i32.const 4))))
    (global.set $scheduler (fiber.new $naiveScheduler))
    (local.set $first (i32.const 1))
    (block $finished
      (loop $event_loop
        (handle
          (if (local.get $first)
            (then
              (local.set $first (i32.const 0))
              (local.set $done (fiber.resume $sched $start (global.get $scheduler))))
            (else
              (local.set $done
                (fiber.resume $sched $io_notify (global.get $scheduler) (local.get $slot) (local.get $data)))))
          ;; the scheduler returned: everything is done
          (br $finished)
          (event $global_pause
            (call $complete_next)
            (local.set $data)
            (local.set $slot)))
        (br $event_loop)))
    (global.get $log)
    (global.get $sum)
    (global.get $now)
    (local.get $done))
)
