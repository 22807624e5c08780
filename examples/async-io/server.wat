;; async-io/server.wat — the proposal's asynchronous I/O example for real: a
;; TCP echo server on WASI sockets where every connection is a fiber running
;; straight-line code (read, then write everything back, repeat), and one
;; scheduler multiplexes all their I/O requests through poll_oneoff and routes
;; each readiness event back to the fiber that asked (examples/README.md puts
;; it beside the proposal's pseudo-code).
;;
;;   weft run --tcplisten 127.0.0.1:7000 examples/async-io/server.wat [MAX_CONNECTIONS [IDLE_TIMEOUT_MS]]
;;
;; The listening socket is fd 3 (--tcplisten). MAX_CONNECTIONS (default 0 =
;; unlimited): after accepting that many, the server stops accepting and exits
;; once the last of them has closed. IDLE_TIMEOUT_MS (default 10000): a
;; connection that waits longer than this for its peer — to send (idle) or to
;; read (backpressure) — is closed with an error line, and the server stops if
;; it has had no connection for this long. When it exits it prints
;;   server: N connections served, B bytes echoed, E ended with an error
;; Per-connection errors go to stderr, one line each, and never stop the
;; server:
;;   conn 12 (fd 15): recv failed: connreset
;;   conn 7 (fd 10): the peer stopped reading; send blocked for the idle timeout, closing: timedout
;;   server: out of file descriptors, accepting again when a connection closes: mfile
;;
;; Roles (the proposal's async-aware scheduler, without the browser):
;; - a *connection fiber* ($connection) reads and writes as if I/O blocked: when
;;   a socket call would block (EAGAIN), $wait suspends the fiber with the I/O
;;   request $io_wait(fd, direction) and returns the $io_ready(result) that
;;   resumes it. Like the proposal's simple_fetch.
;; - the *acceptor fiber* ($acceptor) accepts connections the same way and
;;   hands each new one to the scheduler with $accepted(fd).
;; - the *scheduler* ($serve, the body of _start) resumes ready fibers from a
;;   queue, turns each $io_wait into a poll_oneoff subscription whose userdata
;;   is the fiber's slot, and — when nothing is ready — waits in poll_oneoff
;;   for all of them at once plus a clock, then queues exactly the fibers whose
;;   events came back. The proposal needs a separate outer event loop only
;;   because a browser must be returned to before I/O completes; WASI's
;;   poll_oneoff is a call, so "the same scheduler that decides which fiber to
;;   resume next [also keeps] track of I/O requests" (the proposal's words).
(module
  (import "wasi_snapshot_preview1" "args_sizes_get" (func $args_sizes_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "args_get" (func $args_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "clock_time_get" (func $clock_time_get (param i32 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_close" (func $fd_close (param i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_fdstat_get" (func $fd_fdstat_get (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_fdstat_set_flags" (func $fd_fdstat_set_flags (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $fd_write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "poll_oneoff" (func $poll_oneoff (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))
  (import "wasi_snapshot_preview1" "sock_accept" (func $sock_accept (param i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "sock_recv" (func $sock_recv (param i32 i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "sock_send" (func $sock_send (param i32 i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "sock_shutdown" (func $sock_shutdown (param i32 i32) (result i32)))

  ;; Every task — the acceptor in slot 0, connections in slots 1… — is a fiber
  ;; that returns nothing.
  (type $task (fiber))

  (tag $io_wait (param i32 i32))  ;; task → scheduler: fd, direction (1 read, 2 write: poll_oneoff's tags)
  (tag $io_ready (param i32))     ;; scheduler → task: 0 (try again) or an errno (timedout: gave up waiting)
  (tag $accepted (param i32))     ;; acceptor → scheduler: a new connection's fd
  (tag $out_of_fds)               ;; acceptor → scheduler: wake me when a connection closes

  ;; ---- memory layout ----------------------------------------------------------
  ;; 0       out-parameters of WASI calls (only read right after the call, so the
  ;;         fibers can share them): 0 byte count, 4 ro_flags, 8 accepted fd,
  ;;         12 event count, 16 one iovec, 24 clock time, 32 fdstat (24 bytes)
  ;; 64      decimal digits (32 bytes)
  ;; 256     message texts and errno names (data segments below)
  ;; 2048    the log line being built (2 KiB)
  ;; 4096    argv pointers and strings (4 KiB)
  ;; 8192    task records, 16 bytes per slot: fd @0, subscription index @4
  ;;         (0 = not waiting), time the wait started @8 (ns)
  ;; 0x48000 ready queue: a ring of (slot, result) pairs
  ;; 0x68000 free slots (a stack of i32)
  ;; 0x78000 poll_oneoff subscriptions (48 bytes): [0] the clock, [1..$waiting] one per waiting task
  ;; 0x139000 poll_oneoff events (32 bytes each)
  ;; 0x200000 connection buffers, 4 KiB per slot; memory grows as slots are used
  (memory (export "memory") 33)
  (global $max_tasks i32 (i32.const 16384))  ;; slots: the acceptor and up to 16383 connections
  (global $tasks_at i32 (i32.const 8192))
  (global $ready_at i32 (i32.const 0x48000))
  (global $free_at i32 (i32.const 0x68000))
  (global $subs_at i32 (i32.const 0x78000))
  (global $events_at i32 (i32.const 0x139000))
  (global $buffers_at i32 (i32.const 0x200000))
  (global $buffer_size i32 (i32.const 4096))

  (table $tasks 16384 (ref null $task))

  ;; ---- state --------------------------------------------------------------------
  (global $waiting (mut i32) (i32.const 0))       ;; subscriptions in use after the clock
  (global $ready_head (mut i32) (i32.const 0))
  (global $ready_tail (mut i32) (i32.const 0))
  (global $free_top (mut i32) (i32.const 0))
  (global $live (mut i32) (i32.const 0))          ;; connection fibers not finished
  (global $accepting (mut i32) (i32.const 0))     ;; the acceptor has not finished
  (global $acceptor_parked (mut i32) (i32.const 0))  ;; waiting for a free fd
  (global $accepted_total (mut i32) (i32.const 0))
  (global $max_connections (mut i32) (i32.const 0))
  (global $idle_timeout_ns (mut i64) (i64.const 10000000000))
  (global $errors (mut i32) (i32.const 0))
  (global $bytes_echoed (mut i64) (i64.const 0))
  (global $now (mut i64) (i64.const 0))
  (global $last_activity (mut i64) (i64.const 0))
  (global $sweep_interval_ns (mut i64) (i64.const 1000000000))  ;; how often idle waits are checked
  (global $next_sweep (mut i64) (i64.const 0))
  (global $log_len (mut i32) (i32.const 0))

  ;; WASI constants used below.
  (global $EAGAIN i32 (i32.const 6))
  (global $EMFILE i32 (i32.const 33))
  (global $ENFILE i32 (i32.const 41))
  (global $ETIMEDOUT i32 (i32.const 73))
  (global $READ i32 (i32.const 1))
  (global $WRITE i32 (i32.const 2))
  (global $NONBLOCK i32 (i32.const 4))
  (global $SHUT_WR i32 (i32.const 2))
  (global $CLOCK_USERDATA i64 (i64.const -1))

  ;; ---- texts: (address, length) at each use ----------------------------------------
  (data (i32.const 256) "conn ")                                             ;; 5
  (data (i32.const 264) " (fd ")                                             ;; 5
  (data (i32.const 272) "): ")                                               ;; 3
  (data (i32.const 280) "recv failed: ")                                     ;; 13
  (data (i32.const 296) "send failed: ")                                     ;; 13
  (data (i32.const 312) "no data from the peer for the idle timeout, closing: ")  ;; 53
  (data (i32.const 368) "the peer stopped reading; send blocked for the idle timeout, closing: ")  ;; 70
  (data (i32.const 440) "server: accept failed: ")                           ;; 23
  (data (i32.const 464) "server: out of file descriptors, accepting again when a connection closes: ")  ;; 75
  (data (i32.const 544) "server: no free slot or buffer memory, refusing connection on fd ")  ;; 65
  (data (i32.const 616) "server: ")                                          ;; 8
  (data (i32.const 624) " connections served, ")                             ;; 21
  (data (i32.const 648) " bytes echoed, ")                                   ;; 15
  (data (i32.const 664) " ended with an error")                              ;; 20
  (data (i32.const 688) "server: no connection for the idle timeout, stopping")  ;; 52
  (data (i32.const 744) "server: fd 3 is not a socket; run: weft run --tcplisten HOST:PORT server.wat [MAX_CONNECTIONS [IDLE_TIMEOUT_MS]]")  ;; 112
  (data (i32.const 864) "server: arguments are numbers: [MAX_CONNECTIONS [IDLE_TIMEOUT_MS]]")  ;; 66
  (data (i32.const 936) "server: poll_oneoff failed: ")                      ;; 28
  ;; WASI errno names in errno order, separated by spaces ($say_errno finds the n-th).
  (data (i32.const 1024)
    "success toobig acces addrinuse addrnotavail afnosupport again already badf badmsg busy "
    "canceled child connaborted connrefused connreset deadlk destaddrreq dom dquot exist fault "
    "fbig hostunreach idrm ilseq inprogress intr inval io isconn isdir loop mfile mlink msgsize "
    "multihop nametoolong netdown netreset netunreach nfile nobufs nodev noent noexec nolck "
    "nolink nomem nomsg noprotoopt nospc nosys notconn notdir notempty notrecoverable notsock "
    "notsup notty nxio overflow ownerdead perm pipe proto protonosupport prototype range rofs "
    "spipe srch stale timedout txtbsy xdev notcapable ")

  ;; ---- logging: one line at a time, written to stderr ------------------------------
  (func $say (param $text i32) (param $len i32)
    (memory.copy (i32.add (i32.const 2048) (global.get $log_len)) (local.get $text) (local.get $len))
    (global.set $log_len (i32.add (global.get $log_len) (local.get $len))))
  (func $say_number (param $n i64)
    (local $at i32)
    (local.set $at (i32.const 96))  ;; digits are written backwards from the end of 64..95
    (loop $digit
      (local.set $at (i32.sub (local.get $at) (i32.const 1)))
      (i32.store8 (local.get $at) (i32.wrap_i64 (i64.add (i64.const 48) (i64.rem_u (local.get $n) (i64.const 10)))))
      (local.set $n (i64.div_u (local.get $n) (i64.const 10)))
      (br_if $digit (i64.ne (local.get $n) (i64.const 0))))
    (call $say (local.get $at) (i32.sub (i32.const 96) (local.get $at))))
  (func $say_errno (param $errno i32)
    (local $at i32) (local $end i32)
    (local.set $at (i32.const 1024))
    (block $found
      (loop $skip  ;; past $errno names
        (br_if $found (i32.eqz (local.get $errno)))
        (br_if $found (i32.eqz (i32.load8_u (local.get $at))))  ;; past the last name: print nothing
        (if (i32.eq (i32.load8_u (local.get $at)) (i32.const 32))
          (then (local.set $errno (i32.sub (local.get $errno) (i32.const 1)))))
        (local.set $at (i32.add (local.get $at) (i32.const 1)))
        (br $skip)))
    (local.set $end (local.get $at))
    (loop $name
      (if (i32.gt_u (i32.load8_u (local.get $end)) (i32.const 32))
        (then
          (local.set $end (i32.add (local.get $end) (i32.const 1)))
          (br $name))))
    (call $say (local.get $at) (i32.sub (local.get $end) (local.get $at))))
  ;; Ends the line and writes it to `fd` (1 stdout, 2 stderr).
  (func $say_line (param $fd i32)
    (i32.store8 (i32.add (i32.const 2048) (global.get $log_len)) (i32.const 10))
    (i32.store (i32.const 16) (i32.const 2048))
    (i32.store (i32.const 20) (i32.add (global.get $log_len) (i32.const 1)))
    (drop (call $fd_write (local.get $fd) (i32.const 16) (i32.const 1) (i32.const 0)))
    (global.set $log_len (i32.const 0)))
  ;; "conn SLOT (fd FD): "
  (func $say_conn (param $slot i32) (param $fd i32)
    (call $say (i32.const 256) (i32.const 5))
    (call $say_number (i64.extend_i32_u (local.get $slot)))
    (call $say (i32.const 264) (i32.const 5))
    (call $say_number (i64.extend_i32_u (local.get $fd)))
    (call $say (i32.const 272) (i32.const 3)))
  (func $connection_error (param $slot i32) (param $fd i32) (param $text i32) (param $len i32) (param $errno i32)
    (global.set $errors (i32.add (global.get $errors) (i32.const 1)))
    (call $say_conn (local.get $slot) (local.get $fd))
    (call $say (local.get $text) (local.get $len))
    (call $say_errno (local.get $errno))
    (call $say_line (i32.const 2)))

  (func $clock_ns (result i64)
    (drop (call $clock_time_get (i32.const 1) (i64.const 0) (i32.const 24)))  ;; monotonic
    (i64.load (i32.const 24)))

  ;; ---- blocking-style I/O for fibers ---------------------------------------------------
  ;; Suspends `self` until `fd` is ready in `direction`; returns the scheduler's
  ;; answer: 0, or an errno (timedout when the idle timeout passed first).
  (func $wait (param $self (ref $task)) (param $fd i32) (param $direction i32) (result i32)
    (handle (result i32)
      (fiber.suspend $io_wait (local.get $self) (local.get $fd) (local.get $direction))
      (event $io_ready (param i32))))

  ;; Reads up to `len` bytes into `buf`: the count (0 at end of stream), or
  ;; -1 after logging why the connection failed.
  (func $read (param $self (ref $task)) (param $slot i32) (param $fd i32) (param $buf i32) (param $len i32)
              (result i32)
    (local $errno i32)
    (loop $retry
      (i32.store (i32.const 16) (local.get $buf))
      (i32.store (i32.const 20) (local.get $len))
      (local.set $errno (call $sock_recv (local.get $fd) (i32.const 16) (i32.const 1) (i32.const 0)
                                         (i32.const 0) (i32.const 4)))
      (if (i32.eqz (local.get $errno)) (then (return (i32.load (i32.const 0)))))
      (if (i32.eq (local.get $errno) (global.get $EAGAIN))
        (then
          (local.set $errno (call $wait (local.get $self) (local.get $fd) (global.get $READ)))
          (br_if $retry (i32.eqz (local.get $errno)))
          (call $connection_error (local.get $slot) (local.get $fd) (i32.const 312) (i32.const 53) (local.get $errno))
          (return (i32.const -1)))))
    (call $connection_error (local.get $slot) (local.get $fd) (i32.const 280) (i32.const 13) (local.get $errno))
    (i32.const -1))

  ;; Writes all `len` bytes of `buf`: 0, or -1 after logging why it could not.
  (func $write_all (param $self (ref $task)) (param $slot i32) (param $fd i32) (param $buf i32) (param $len i32)
                   (result i32)
    (local $errno i32)
    (block $failed
      (loop $more
        (if (i32.eqz (local.get $len)) (then (return (i32.const 0))))
        (i32.store (i32.const 16) (local.get $buf))
        (i32.store (i32.const 20) (local.get $len))
        (local.set $errno (call $sock_send (local.get $fd) (i32.const 16) (i32.const 1) (i32.const 0) (i32.const 0)))
        (if (i32.eqz (local.get $errno))
          (then
            (local.set $buf (i32.add (local.get $buf) (i32.load (i32.const 0))))
            (local.set $len (i32.sub (local.get $len) (i32.load (i32.const 0))))
            (br $more)))
        (br_if $failed (i32.ne (local.get $errno) (global.get $EAGAIN)))
        ;; The peer's receive window is full: wait until it reads (backpressure).
        (local.set $errno (call $wait (local.get $self) (local.get $fd) (global.get $WRITE)))
        (br_if $more (i32.eqz (local.get $errno)))
        (call $connection_error (local.get $slot) (local.get $fd) (i32.const 368) (i32.const 70) (local.get $errno))
        (return (i32.const -1))))
    (call $connection_error (local.get $slot) (local.get $fd) (i32.const 296) (i32.const 13) (local.get $errno))
    (i32.const -1))

  ;; ---- a connection: one fiber, straight-line code ------------------------------------
  (func $connection (param $self (ref $task)) (param $slot i32) (param $fd i32)
    (local $buf i32) (local $n i32)
    (unreachable)  ;; a fresh fiber starts in the clause below
    (event $io_ready (param i32)
      (drop)
      (local.set $buf (i32.add (global.get $buffers_at) (i32.mul (local.get $slot) (global.get $buffer_size))))
      (block $done
        (loop $echo
          (local.set $n (call $read (local.get $self) (local.get $slot) (local.get $fd)
                                    (local.get $buf) (global.get $buffer_size)))
          (br_if $done (i32.le_s (local.get $n) (i32.const 0)))
          (br_if $done (call $write_all (local.get $self) (local.get $slot) (local.get $fd)
                                        (local.get $buf) (local.get $n)))
          (global.set $bytes_echoed (i64.add (global.get $bytes_echoed) (i64.extend_i32_u (local.get $n))))
          (br $echo)))
      ;; At the end of the peer's stream (it may have only half-closed), everything
      ;; it sent has been echoed: end ours too, so it reads EOF after the echo.
      (if (i32.eqz (local.get $n))
        (then (drop (call $sock_shutdown (local.get $fd) (global.get $SHUT_WR)))))
      (drop (call $fd_close (local.get $fd)))))

  ;; ---- the accept loop: one fiber --------------------------------------------------------
  (func $acceptor (param $self (ref $task)) (param $listener i32)
    (local $errno i32)
    (unreachable)
    (event $io_ready (param i32)
      (drop)
      (loop $next
        (if (i32.and (i32.ne (global.get $max_connections) (i32.const 0))
                     (i32.ge_u (global.get $accepted_total) (global.get $max_connections)))
          (then (return)))
        (local.set $errno (call $sock_accept (local.get $listener) (global.get $NONBLOCK) (i32.const 8)))
        (if (i32.eqz (local.get $errno))
          (then
            (global.set $accepted_total (i32.add (global.get $accepted_total) (i32.const 1)))
            (handle
              (fiber.suspend $accepted (local.get $self) (i32.load (i32.const 8)))
              (event $io_ready (param i32) (drop)))
            (br $next)))
        (if (i32.eq (local.get $errno) (global.get $EAGAIN))
          (then
            (drop (call $wait (local.get $self) (local.get $listener) (global.get $READ)))
            (br $next)))
        (if (i32.or (i32.eq (local.get $errno) (global.get $EMFILE)) (i32.eq (local.get $errno) (global.get $ENFILE)))
          (then
            ;; The pending connection stays in the listen backlog until an fd is free.
            (call $say (i32.const 464) (i32.const 75))
            (call $say_errno (local.get $errno))
            (call $say_line (i32.const 2))
            (handle
              (fiber.suspend $out_of_fds (local.get $self))
              (event $io_ready (param i32) (drop)))
            (br $next)))
        ;; e.g. connaborted: that client is gone, the next one may be fine
        (call $say (i32.const 440) (i32.const 23))
        (call $say_errno (local.get $errno))
        (call $say_line (i32.const 2))
        (br $next))))

  ;; ---- the scheduler's queues ---------------------------------------------------------------
  (func $task_record (param $slot i32) (result i32)
    (i32.add (global.get $tasks_at) (i32.shl (local.get $slot) (i32.const 4))))

  ;; The ready queue holds each task at most once (a queued task is not
  ;; waiting), so $max_tasks entries suffice.
  (func $enqueue (param $slot i32) (param $result i32)
    (local $at i32)
    (local.set $at (i32.add (global.get $ready_at)
      (i32.shl (i32.rem_u (global.get $ready_tail) (global.get $max_tasks)) (i32.const 3))))
    (i32.store (local.get $at) (local.get $slot))
    (i32.store offset=4 (local.get $at) (local.get $result))
    (global.set $ready_tail (i32.add (global.get $ready_tail) (i32.const 1))))

  ;; Subscribes the task in `slot` to `fd` becoming ready in `direction`.
  (func $add_waiter (param $fd i32) (param $direction i32) (param $slot i32)
    (local $sub i32)
    (global.set $waiting (i32.add (global.get $waiting) (i32.const 1)))
    (local.set $sub (i32.add (global.get $subs_at) (i32.mul (global.get $waiting) (i32.const 48))))
    (i64.store (local.get $sub) (i64.extend_i32_u (local.get $slot)))  ;; userdata
    (i32.store8 offset=8 (local.get $sub) (local.get $direction))      ;; tag: fd_read 1, fd_write 2
    (i32.store offset=16 (local.get $sub) (local.get $fd))
    (i32.store offset=4 (call $task_record (local.get $slot)) (global.get $waiting))
    (i64.store offset=8 (call $task_record (local.get $slot)) (global.get $now)))

  ;; Removes the subscription of the task in `slot`: the last one moves into its place.
  (func $remove_waiter (param $slot i32)
    (local $index i32) (local $moved i32)
    (local.set $index (i32.load offset=4 (call $task_record (local.get $slot))))
    (if (i32.ne (local.get $index) (global.get $waiting))
      (then
        (memory.copy (i32.add (global.get $subs_at) (i32.mul (local.get $index) (i32.const 48)))
                     (i32.add (global.get $subs_at) (i32.mul (global.get $waiting) (i32.const 48)))
                     (i32.const 48))
        (local.set $moved (i32.wrap_i64 (i64.load (i32.add (global.get $subs_at) (i32.mul (local.get $index) (i32.const 48))))))
        (i32.store offset=4 (call $task_record (local.get $moved)) (local.get $index))))
    (i32.store offset=4 (call $task_record (local.get $slot)) (i32.const 0))
    (global.set $waiting (i32.sub (global.get $waiting) (i32.const 1))))

  ;; A new connection: a slot, a buffer and a fresh fiber, queued to run.
  (func $start_connection (param $fd i32)
    (local $slot i32) (local $needed_pages i32)
    (block $refuse
      (br_if $refuse (i32.eqz (global.get $free_top)))
      (global.set $free_top (i32.sub (global.get $free_top) (i32.const 1)))
      (local.set $slot (i32.load (i32.add (global.get $free_at) (i32.shl (global.get $free_top) (i32.const 2)))))
      ;; Grow memory to cover this slot's buffer (slots are reused lowest-last,
      ;; so memory follows the peak number of connections).
      (local.set $needed_pages (i32.shr_u
        (i32.add (i32.add (global.get $buffers_at) (i32.mul (i32.add (local.get $slot) (i32.const 1)) (global.get $buffer_size)))
                 (i32.const 65535))
        (i32.const 16)))
      (if (i32.gt_u (local.get $needed_pages) (memory.size))
        (then
          (if (i32.eq (memory.grow (i32.sub (local.get $needed_pages) (memory.size))) (i32.const -1))
            (then
              (global.set $free_top (i32.add (global.get $free_top) (i32.const 1)))
              (br $refuse)))))
      (i32.store (call $task_record (local.get $slot)) (local.get $fd))
      (table.set $tasks (local.get $slot) (fiber.new $connection (local.get $slot) (local.get $fd)))
      (global.set $live (i32.add (global.get $live) (i32.const 1)))
      (call $enqueue (local.get $slot) (i32.const 0))
      (return))
    (call $say (i32.const 544) (i32.const 65))
    (call $say_number (i64.extend_i32_u (local.get $fd)))
    (call $say_line (i32.const 2))
    (global.set $errors (i32.add (global.get $errors) (i32.const 1)))
    (drop (call $fd_close (local.get $fd))))

  (func $task_finished (param $slot i32)
    (table.set $tasks (local.get $slot) (ref.null $task))
    (if (i32.eqz (local.get $slot))
      (then (global.set $accepting (i32.const 0)) (return)))
    (i32.store (i32.add (global.get $free_at) (i32.shl (global.get $free_top) (i32.const 2))) (local.get $slot))
    (global.set $free_top (i32.add (global.get $free_top) (i32.const 1)))
    (global.set $live (i32.sub (global.get $live) (i32.const 1)))
    ;; An fd was freed: the acceptor may continue.
    (if (global.get $acceptor_parked)
      (then
        (global.set $acceptor_parked (i32.const 0))
        (call $enqueue (i32.const 0) (i32.const 0)))))

  ;; Resumes the task in `slot` with $io_ready(result) and acts on how it stops.
  (func $run (param $slot i32) (param $result i32)
    (handle
      (fiber.resume $task $io_ready (table.get $tasks (local.get $slot)) (local.get $result))
      (call $task_finished (local.get $slot))
      (event $io_wait (param i32 i32)  ;; fd, direction
        (call $add_waiter (local.get $slot)))
      (event $accepted (param i32)     ;; fd
        (call $start_connection)
        (call $enqueue (local.get $slot) (i32.const 0)))
      (event $out_of_fds
        (global.set $acceptor_parked (i32.const 1)))))

  ;; Resumes every task whose wait outlasted the idle timeout with timedout.
  ;; Walking down lets $remove_waiter move the last subscription into a place
  ;; already visited; tasks that wait again are appended, with a fresh start time.
  (func $expire_idle_waits
    (local $index i32) (local $slot i32)
    (local.set $index (global.get $waiting))
    (block $done
      (loop $each
        (br_if $done (i32.eqz (local.get $index)))
        (local.set $slot (i32.wrap_i64 (i64.load (i32.add (global.get $subs_at) (i32.mul (local.get $index) (i32.const 48))))))
        (if (i64.gt_u (i64.sub (global.get $now) (i64.load offset=8 (call $task_record (local.get $slot))))
                      (global.get $idle_timeout_ns))
          (then
            (call $remove_waiter (local.get $slot))
            (call $enqueue (local.get $slot) (global.get $ETIMEDOUT))))
        (local.set $index (i32.sub (local.get $index) (i32.const 1)))
        (br $each))))

  ;; Waits in poll_oneoff for every subscription and the clock, then queues the
  ;; tasks whose events came back, with the event's error (0 when ready).
  (func $poll
    (local $timeout i64) (local $count i32) (local $event i32) (local $slot i32) (local $errno i32)
    ;; The clock: wake up for the next check of idle waits.
    (if (i64.gt_u (global.get $next_sweep) (global.get $now))
      (then (local.set $timeout (i64.sub (global.get $next_sweep) (global.get $now)))))
    (memory.fill (global.get $subs_at) (i32.const 0) (i32.const 48))
    (i64.store (global.get $subs_at) (global.get $CLOCK_USERDATA))
    (i32.store offset=16 (global.get $subs_at) (i32.const 1))  ;; monotonic
    (i64.store offset=24 (global.get $subs_at) (local.get $timeout))
    (local.set $errno (call $poll_oneoff (global.get $subs_at) (global.get $events_at)
                                        (i32.add (global.get $waiting) (i32.const 1)) (i32.const 12)))
    (if (local.get $errno)
      (then  ;; nothing could ever be resumed again
        (call $say (i32.const 936) (i32.const 28))
        (call $say_errno (local.get $errno))
        (call $say_line (i32.const 2))
        (call $proc_exit (i32.const 1))))
    (global.set $now (call $clock_ns))
    (local.set $count (i32.load (i32.const 12)))
    (local.set $event (global.get $events_at))
    (block $done
      (loop $each
        (br_if $done (i32.eqz (local.get $count)))
        (if (i64.ne (i64.load (local.get $event)) (global.get $CLOCK_USERDATA))
          (then
            (local.set $slot (i32.wrap_i64 (i64.load (local.get $event))))
            (if (i32.load offset=4 (call $task_record (local.get $slot)))  ;; still waiting
              (then
                (call $remove_waiter (local.get $slot))
                (call $enqueue (local.get $slot) (i32.load16_u offset=8 (local.get $event)))
                (global.set $last_activity (global.get $now))))))
        (local.set $event (i32.add (local.get $event) (i32.const 32)))
        (local.set $count (i32.sub (local.get $count) (i32.const 1)))
        (br $each))))

  ;; ---- startup: arguments, the listening socket ------------------------------------------
  ;; argv[i] as a decimal number; `default` when absent; exits 2 when not a number.
  (func $argument (param $i i32) (param $default i64) (result i64)
    (local $at i32) (local $n i64)
    (drop (call $args_sizes_get (i32.const 0) (i32.const 4)))
    (if (i32.le_u (i32.load (i32.const 0)) (local.get $i)) (then (return (local.get $default))))
    (if (i32.or (i32.gt_u (i32.load (i32.const 0)) (i32.const 64)) (i32.gt_u (i32.load (i32.const 4)) (i32.const 3800)))
      (then (call $usage_error)))
    (drop (call $args_get (i32.const 4096) (i32.const 4352)))
    (local.set $at (i32.load (i32.add (i32.const 4096) (i32.shl (local.get $i) (i32.const 2)))))
    (if (i32.eqz (i32.load8_u (local.get $at))) (then (call $usage_error)))
    (loop $digit
      (if (i32.load8_u (local.get $at))
        (then
          (if (i32.gt_u (i32.sub (i32.load8_u (local.get $at)) (i32.const 48)) (i32.const 9))
            (then (call $usage_error)))
          (if (i64.gt_u (local.get $n) (i64.const 100000000000)) (then (call $usage_error)))
          (local.set $n (i64.add (i64.mul (local.get $n) (i64.const 10))
                                 (i64.extend_i32_u (i32.sub (i32.load8_u (local.get $at)) (i32.const 48)))))
          (local.set $at (i32.add (local.get $at) (i32.const 1)))
          (br $digit))))
    (local.get $n))
  (func $usage_error
    (call $say (i32.const 864) (i32.const 66))
    (call $say_line (i32.const 2))
    (call $proc_exit (i32.const 2)))

  (func $serve (export "_start")
    (local $slot i32) (local $result i32) (local $entry i32)
    (global.set $max_connections (i32.wrap_i64 (call $argument (i32.const 1) (i64.const 0))))
    (global.set $idle_timeout_ns (i64.mul (call $argument (i32.const 2) (i64.const 10000)) (i64.const 1000000)))
    ;; Idle waits are checked four times per timeout, at least once a second.
    (global.set $sweep_interval_ns (i64.div_u (global.get $idle_timeout_ns) (i64.const 4)))
    (if (i64.gt_u (global.get $sweep_interval_ns) (i64.const 1000000000))
      (then (global.set $sweep_interval_ns (i64.const 1000000000))))
    ;; fd 3 must be a socket (filetype 6, socket_stream)
    (if (i32.or (call $fd_fdstat_get (i32.const 3) (i32.const 32))
                (i32.ne (i32.load8_u (i32.const 32)) (i32.const 6)))
      (then
        (call $say (i32.const 744) (i32.const 112))
        (call $say_line (i32.const 2))
        (call $proc_exit (i32.const 2))))
    (drop (call $fd_fdstat_set_flags (i32.const 3) (global.get $NONBLOCK)))

    ;; Free slots 1 … max_tasks-1, the lowest on top.
    (local.set $slot (i32.sub (global.get $max_tasks) (i32.const 1)))
    (loop $push
      (i32.store (i32.add (global.get $free_at) (i32.shl (global.get $free_top) (i32.const 2))) (local.get $slot))
      (global.set $free_top (i32.add (global.get $free_top) (i32.const 1)))
      (local.set $slot (i32.sub (local.get $slot) (i32.const 1)))
      (br_if $push (local.get $slot)))

    (global.set $now (call $clock_ns))
    (global.set $last_activity (global.get $now))
    (global.set $next_sweep (i64.add (global.get $now) (global.get $sweep_interval_ns)))
    (table.set $tasks (i32.const 0) (fiber.new $acceptor (i32.const 3)))
    (global.set $accepting (i32.const 1))
    (call $enqueue (i32.const 0) (i32.const 0))

    (block $stop
      (loop $schedule
        ;; Run everything that is ready; running may make more ready.
        (block $idle
          (loop $run_ready
            (br_if $idle (i32.eq (global.get $ready_head) (global.get $ready_tail)))
            (local.set $entry (i32.add (global.get $ready_at)
              (i32.shl (i32.rem_u (global.get $ready_head) (global.get $max_tasks)) (i32.const 3))))
            (global.set $ready_head (i32.add (global.get $ready_head) (i32.const 1)))
            (call $run (i32.load (local.get $entry)) (i32.load offset=4 (local.get $entry)))
            (br $run_ready)))
        (br_if $stop (i32.eqz (i32.or (global.get $accepting) (global.get $live))))
        (if (i32.and (i32.eqz (global.get $live))
                     (i64.gt_u (i64.sub (global.get $now) (global.get $last_activity)) (global.get $idle_timeout_ns)))
          (then
            (call $say (i32.const 688) (i32.const 52))
            (call $say_line (i32.const 2))
            (br $stop)))
        (call $poll)
        (if (i64.ge_u (global.get $now) (global.get $next_sweep))
          (then
            (call $expire_idle_waits)
            (global.set $next_sweep (i64.add (global.get $now) (global.get $sweep_interval_ns)))))
        (br $schedule)))

    ;; server: N connections served, B bytes echoed, E ended with an error
    (call $say (i32.const 616) (i32.const 8))
    (call $say_number (i64.extend_i32_u (global.get $accepted_total)))
    (call $say (i32.const 624) (i32.const 21))
    (call $say_number (global.get $bytes_echoed))
    (call $say (i32.const 648) (i32.const 15))
    (call $say_number (i64.extend_i32_u (global.get $errors)))
    (call $say (i32.const 664) (i32.const 20))
    (call $say_line (i32.const 1)))
)
