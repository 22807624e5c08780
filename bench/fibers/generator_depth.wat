;; Depth sweep: the generator of generator.wat, but every value is yielded from
;; `depth` calls below the fiber's entry, so a round trip (fiber.resume +
;; fiber.suspend with event dispatch) leaves that many frames suspended on the
;; fiber's stack. A stack-switching engine should pay for those frames only the
;; ordinary call + return that produces each value; Asyncify (the same program
;; in bench/native/generator_depth_asyncify.c) unwinds and rewinds every one of
;; them per yield.
;;
;;   weft run --invoke run   bench/fibers/generator_depth.wat N DEPTH  → N(N−1)/2
;;   weft run --invoke calls bench/fibers/generator_depth.wat N DEPTH  → N(N−1)/2
;;
;; `run` yields 0 … N-1 through the fiber; `calls` is the control: the same
;; DEPTH-deep call chain per value, inside a fiber as well, but without any
;; switch, so (run − calls) is what the switch costs at that depth.
;; bench/run.py takes (t(N) − t(0)) / N of each.
(module
  (type $gen (fiber))
  (type $summer (fiber (result i64)))
  (tag $next)
  (tag $yield (param i32))

  (global $sum_by_calls (mut i64) (i64.const 0))

  ;; Calls itself down to depth 1, which yields $v and waits for $next. Returns
  ;; the number of frames it used (checked by the caller) and adds to it after
  ;; each call, so every frame is a real call + return that must stay on the
  ;; stack while the fiber is suspended.
  (func $yield_from_depth (param $self (ref $gen)) (param $depth i32) (param $v i32) (result i32)
    (if (result i32) (i32.gt_u (local.get $depth) (i32.const 1))
      (then
        (i32.add
          (call $yield_from_depth (local.get $self) (i32.sub (local.get $depth) (i32.const 1)) (local.get $v))
          (i32.const 1)))
      (else
        (handle
          (fiber.suspend $yield (local.get $self) (local.get $v))
          (event $next))
        (i32.const 1))))

  ;; The generator: entered by the first $next, yields 0 … n-1 from `depth`
  ;; calls down, then returns. A wrong frame count traps (fails the benchmark).
  (func $count_up (param $self (ref $gen)) (param $n i32) (param $depth i32)
    (local $i i32)
    (event $next
      (block $done
        (loop $more
          (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
          (if (i32.ne (call $yield_from_depth (local.get $self) (local.get $depth) (local.get $i))
                      (local.get $depth))
            (then (unreachable)))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $more)))))

  (func (export "run") (param $n i32) (param $depth i32) (result i64)
    (local $g (ref null $gen))
    (local $sum i64)
    (local.set $g (fiber.new $count_up (local.get $n) (local.get $depth)))
    (block $done
      (loop $next_value
        (handle
          (fiber.resume $gen $next (local.get $g))
          (br $done)  ;; the generator returned: all values consumed
          (event $yield (param i32)
            (i64.extend_i32_u)
            (local.get $sum)
            (i64.add)
            (local.set $sum)
            (br $next_value)))))
    (local.get $sum))

  ;; The control's chain: the same shape as $yield_from_depth, but its bottom
  ;; adds $v to the sum instead of switching.
  ;; The same frames as $yield_from_depth: three parameters, the first passed
  ;; down unchanged (there the fiber, here a stand-in of the same width), so
  ;; that (run − calls) leaves out nothing but the switch.
  (func $add_from_depth (param $pass_down i64) (param $depth i32) (param $v i32) (result i32)
    (if (result i32) (i32.gt_u (local.get $depth) (i32.const 1))
      (then
        (i32.add
          (call $add_from_depth (local.get $pass_down) (i32.sub (local.get $depth) (i32.const 1)) (local.get $v))
          (i32.const 1)))
      (else
        (global.set $sum_by_calls
          (i64.add (global.get $sum_by_calls) (i64.extend_i32_u (local.get $v))))
        (i32.const 1))))

  ;; The control's fiber: runs the chain for 0 … n-1 on a fiber stack, like the
  ;; generator, and returns the sum without ever switching in between.
  (func $sum_by_calls (param $self (ref $summer)) (param $n i32) (param $depth i32) (result i64)
    (local $i i32)
    (unreachable)  ;; the body segment of a fiber.new-only function never runs
    (event $next
      (block $done
        (loop $more
          (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
          (if (i32.ne (call $add_from_depth (i64.const 0) (local.get $depth) (local.get $i)) (local.get $depth))
            (then (unreachable)))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $more)))
      (global.get $sum_by_calls)))

  (func (export "calls") (param $n i32) (param $depth i32) (result i64)
    (fiber.resume $summer $next (fiber.new $sum_by_calls (local.get $n) (local.get $depth))))
)
