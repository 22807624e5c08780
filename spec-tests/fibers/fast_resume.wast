;; fiber.resume on its fast path and on its slow path, through every trap of a
;; resume site (docs/fibers.md §6.3, §6.13, §9).
;;
;; The fast path resumes a started, suspended fiber from the running context
;; (the root or a fiber, which becomes the parent); everything else — a fresh
;; fiber, and every failing check — takes the slow path with the same trap
;; order: null → `null fiber reference`, moribund or stale → `fiber is
;; moribund`, running or waiting → `fiber is active`.
;;
;; Every resume in this file goes through ONE fiber.resume instruction ($resume),
;; from the root and from fibers alike, so each trap below hits a site that has
;; just taken the fast path several times, in the same invocation ($pump first
;; resumes a healthy fiber k times, then the target under test). After each
;; trap the test checks what the trap did (§6.12): the running fiber and the
;; waiting fibers below it are moribund, suspended fibers are not affected and
;; keep their state.
;;
;; Stale handles: the fiber table reuses the most recently freed slot first
;; (fibers/wasm_fiber.cc), so a fiber created right after another one died gets
;; the dead fiber's slot with a new generation. The stale handle then names the
;; slot of a live fiber — a suspended child of the root, the running fiber
;; itself, or its waiting parent — and must still be `fiber is moribund`.

(module
  (type $g (fiber (result i32)))
  (tag $go (param i32))
  (tag $tick (param i32))
  (table $t 32 (ref null $g))

  ;; A counter. $go(x): x = 0 returns n + 1000; x = -1 retires with
  ;; $tick(n + 500); otherwise n += x and it suspends with $tick(n).
  (func $counter (param $self (ref $g)) (result i32)
    (local $n i32) (local $x i32)
    (unreachable)
    (event $go (param i32)
      (local.set $x)
      (loop $l
        (if (i32.eqz (local.get $x)) (then (return (i32.add (local.get $n) (i32.const 1000)))))
        (if (i32.eq (local.get $x) (i32.const -1))
          (then (fiber.retire $tick (local.get $self) (i32.add (local.get $n) (i32.const 500)))))
        (local.set $n (i32.add (local.get $n) (local.get $x)))
        (handle
          (fiber.suspend $tick (local.get $self) (local.get $n))
          (event $go (param i32) (local.set $x) (br $l))))
      (unreachable)))

  ;; THE resume site. Returns the $tick value, or 100000 + the fiber's result.
  (func $resume (param $f (ref null $g)) (param $x i32) (result i32)
    (handle (result i32)
      (fiber.resume $g $go (local.get $f) (local.get $x))
      (i32.add (i32.const 100000))
      (event $tick (param i32))))

  ;; Resumes table[i] k times with $go(1), then table[j] once with $go(x).
  (func $pump (param $i i32) (param $k i32) (param $j i32) (param $x i32) (result i32)
    (block $done
      (loop $l
        (br_if $done (i32.eqz (local.get $k)))
        (drop (call $resume (table.get $t (local.get $i)) (i32.const 1)))
        (local.set $k (i32.sub (local.get $k) (i32.const 1)))
        (br $l)))
    (call $resume (table.get $t (local.get $j)) (local.get $x)))

  ;; A driver: a fiber that, resumed with $go(y), suspends with $tick(y) while
  ;; y != 0 (so it is fast-resumed itself), and on $go(0) runs
  ;; $pump(i, k, j, x) as the parent of what it resumes and returns its value.
  (func $driver (param $self (ref $g)) (param $i i32) (param $k i32) (param $j i32) (param $x i32)
    (result i32)
    (local $y i32)
    (unreachable)
    (event $go (param i32)
      (local.set $y)
      (loop $l
        (if (i32.eqz (local.get $y))
          (then (return (call $pump (local.get $i) (local.get $k) (local.get $j) (local.get $x)))))
        (handle
          (fiber.suspend $tick (local.get $self) (local.get $y))
          (event $go (param i32) (local.set $y) (br $l))))
      (unreachable)))

  (func (export "counter") (param $slot i32)
    (table.set $t (local.get $slot) (fiber.new $counter)))
  (func (export "driver") (param $slot i32) (param $i i32) (param $k i32) (param $j i32) (param $x i32)
    (table.set $t (local.get $slot)
      (fiber.new $driver (local.get $i) (local.get $k) (local.get $j) (local.get $x))))
  (func (export "release") (param $slot i32)
    (fiber.release (table.get $t (local.get $slot))))
  (func (export "pump") (param $i i32) (param $k i32) (param $j i32) (param $x i32) (result i32)
    (call $pump (local.get $i) (local.get $k) (local.get $j) (local.get $x)))
  ;; $pump, then one more resume of table[j2] with $go(x2) in the same call.
  (func (export "pump-then") (param $i i32) (param $k i32) (param $j i32) (param $x i32)
    (param $j2 i32) (param $x2 i32) (result i32)
    (drop (call $pump (local.get $i) (local.get $k) (local.get $j) (local.get $x)))
    (call $resume (table.get $t (local.get $j2)) (local.get $x2)))
  ;; Releases table[j] after k fast resumes of table[i], then resumes table[j].
  (func (export "release-then") (param $i i32) (param $k i32) (param $j i32) (result i32)
    (drop (call $pump (local.get $i) (local.get $k) (local.get $i) (i32.const 1)))
    (fiber.release (table.get $t (local.get $j)))
    (call $resume (table.get $t (local.get $j)) (i32.const 1)))

  ;; `rounds` short-lived counters through the same site: fresh (slow), two
  ;; fast resumes, the last one returning. Slots are reused every round. The
  ;; first and the last handle are kept in table[30] and table[31].
  (func (export "churn") (param $rounds i32) (result i32)
    (local $f (ref null $g)) (local $sum i32) (local $r i32)
    (loop $l
      (local.set $f (fiber.new $counter))
      (if (i32.eqz (local.get $r)) (then (table.set $t (i32.const 30) (local.get $f))))
      (local.set $sum (i32.add (local.get $sum) (call $resume (local.get $f) (i32.const 1))))
      (local.set $sum (i32.add (local.get $sum) (call $resume (local.get $f) (i32.const 2))))
      (local.set $sum (i32.add (local.get $sum) (call $resume (local.get $f) (i32.const 0))))
      (local.set $r (i32.add (local.get $r) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $r) (local.get $rounds))))
    (table.set $t (i32.const 31) (local.get $f))
    (local.get $sum))
)

;; ---- fiber is moribund: the fiber returned, retired, was released ----------
(invoke "counter" (i32.const 0))
;; the first resume is the slow path (fresh), the other five the fast path
(assert_return (invoke "pump" (i32.const 0) (i32.const 5) (i32.const 0) (i32.const 10)) (i32.const 15))
;; $go(0) on the fast path; the fiber returns through the same site
(assert_return (invoke "pump" (i32.const 0) (i32.const 2) (i32.const 0) (i32.const 0)) (i32.const 101017))
(assert_trap (invoke "pump" (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 1)) "fiber is moribund")
(invoke "counter" (i32.const 1))
(assert_trap (invoke "pump" (i32.const 1) (i32.const 4) (i32.const 0) (i32.const 1)) "fiber is moribund")
;; the trap hit the root only: table[1] kept its four resumes
(assert_return (invoke "pump" (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 1)) (i32.const 5))
;; returns and is resumed again by the same site in the same call
(assert_trap (invoke "pump-then" (i32.const 1) (i32.const 3) (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 1))
  "fiber is moribund")
;; retire (slow) delivers $tick to the hot site
(invoke "counter" (i32.const 2))
(assert_return (invoke "pump" (i32.const 2) (i32.const 3) (i32.const 2) (i32.const -1)) (i32.const 503))
(assert_trap (invoke "pump" (i32.const 2) (i32.const 0) (i32.const 2) (i32.const 1)) "fiber is moribund")
;; release after fast resumes
(invoke "counter" (i32.const 3))
(assert_return (invoke "pump" (i32.const 3) (i32.const 3) (i32.const 3) (i32.const 1)) (i32.const 4))
(invoke "release" (i32.const 3))
(assert_trap (invoke "pump" (i32.const 3) (i32.const 0) (i32.const 3) (i32.const 1)) "fiber is moribund")
;; released and resumed in one call, right after four fast resumes of another
(invoke "counter" (i32.const 3))
(invoke "counter" (i32.const 2))
(assert_return (invoke "pump" (i32.const 2) (i32.const 0) (i32.const 2) (i32.const 1)) (i32.const 1))
(assert_trap (invoke "release-then" (i32.const 3) (i32.const 4) (i32.const 2)) "fiber is moribund")
(assert_return (invoke "pump" (i32.const 3) (i32.const 0) (i32.const 3) (i32.const 1)) (i32.const 6))

;; ---- fiber is moribund: a stale handle whose slot holds a live fiber --------
;; table[4] dies; table[5] gets its slot and becomes a suspended child of the
;; root — exactly what the fast path resumes.
(invoke "counter" (i32.const 4))
(assert_return (invoke "pump" (i32.const 4) (i32.const 2) (i32.const 4) (i32.const 0)) (i32.const 101002))
(invoke "counter" (i32.const 5))
(assert_return (invoke "pump" (i32.const 5) (i32.const 3) (i32.const 5) (i32.const 1)) (i32.const 4))
(assert_trap (invoke "pump" (i32.const 5) (i32.const 3) (i32.const 4) (i32.const 1)) "fiber is moribund")
(assert_trap (invoke "pump" (i32.const 4) (i32.const 0) (i32.const 4) (i32.const 1)) "fiber is moribund")
(assert_return (invoke "pump" (i32.const 5) (i32.const 0) (i32.const 5) (i32.const 1)) (i32.const 8))
;; The slot of table[6] goes to the driver table[7], which then resumes
;; table[6]: a stale handle of the running fiber's own slot is moribund, not
;; active. The trap aborts the driver; its suspended child table[5] survives.
(invoke "counter" (i32.const 6))
(assert_return (invoke "pump" (i32.const 6) (i32.const 0) (i32.const 6) (i32.const 0)) (i32.const 101000))
(invoke "driver" (i32.const 7) (i32.const 5) (i32.const 3) (i32.const 6) (i32.const 1))
(assert_trap (invoke "pump" (i32.const 7) (i32.const 2) (i32.const 7) (i32.const 0)) "fiber is moribund")
(assert_trap (invoke "pump" (i32.const 7) (i32.const 0) (i32.const 7) (i32.const 1)) "fiber is moribund")
(assert_return (invoke "pump" (i32.const 5) (i32.const 0) (i32.const 5) (i32.const 1)) (i32.const 12))
;; The slot of table[8] goes to the driver table[9], which resumes the driver
;; table[10] (fresh, then fast), which resumes table[5] three times and then
;; table[8]: a stale handle of its waiting parent's slot.
(invoke "counter" (i32.const 8))
(assert_return (invoke "pump" (i32.const 8) (i32.const 0) (i32.const 8) (i32.const 0)) (i32.const 101000))
(invoke "driver" (i32.const 9) (i32.const 10) (i32.const 2) (i32.const 10) (i32.const 0))
(invoke "driver" (i32.const 10) (i32.const 5) (i32.const 3) (i32.const 8) (i32.const 1))
(assert_trap (invoke "pump" (i32.const 9) (i32.const 2) (i32.const 9) (i32.const 0)) "fiber is moribund")
(assert_trap (invoke "pump" (i32.const 9) (i32.const 0) (i32.const 9) (i32.const 1)) "fiber is moribund")
(assert_trap (invoke "pump" (i32.const 10) (i32.const 0) (i32.const 10) (i32.const 1)) "fiber is moribund")
(assert_return (invoke "pump" (i32.const 5) (i32.const 0) (i32.const 5) (i32.const 1)) (i32.const 16))

;; ---- null fiber reference --------------------------------------------------
;; table[15] is never set.
(assert_trap (invoke "pump" (i32.const 5) (i32.const 3) (i32.const 15) (i32.const 1)) "null fiber reference")
(assert_return (invoke "pump" (i32.const 5) (i32.const 0) (i32.const 5) (i32.const 1)) (i32.const 20))
;; in a fast-resumed fiber: the driver is aborted, its child survives
(invoke "driver" (i32.const 11) (i32.const 5) (i32.const 2) (i32.const 15) (i32.const 1))
(assert_trap (invoke "pump" (i32.const 11) (i32.const 2) (i32.const 11) (i32.const 0)) "null fiber reference")
(assert_trap (invoke "pump" (i32.const 11) (i32.const 0) (i32.const 11) (i32.const 1)) "fiber is moribund")
(assert_return (invoke "pump" (i32.const 5) (i32.const 0) (i32.const 5) (i32.const 1)) (i32.const 23))

;; ---- fiber is active: the running fiber resumes itself ----------------------
(invoke "driver" (i32.const 12) (i32.const 5) (i32.const 3) (i32.const 12) (i32.const 1))
(assert_trap (invoke "pump" (i32.const 12) (i32.const 3) (i32.const 12) (i32.const 0)) "fiber is active")
(assert_trap (invoke "pump" (i32.const 12) (i32.const 0) (i32.const 12) (i32.const 1)) "fiber is moribund")
(assert_return (invoke "pump" (i32.const 5) (i32.const 0) (i32.const 5) (i32.const 1)) (i32.const 27))

;; ---- fiber is active: a waiting ancestor -----------------------------------
;; root → table[13] → table[14]; table[14] resumes table[5] three times, then
;; its waiting parent table[13].
(invoke "driver" (i32.const 13) (i32.const 14) (i32.const 2) (i32.const 14) (i32.const 0))
(invoke "driver" (i32.const 14) (i32.const 5) (i32.const 3) (i32.const 13) (i32.const 1))
(assert_trap (invoke "pump" (i32.const 13) (i32.const 2) (i32.const 13) (i32.const 0)) "fiber is active")
(assert_trap (invoke "pump" (i32.const 13) (i32.const 0) (i32.const 13) (i32.const 1)) "fiber is moribund")
(assert_trap (invoke "pump" (i32.const 14) (i32.const 0) (i32.const 14) (i32.const 1)) "fiber is moribund")
(assert_return (invoke "pump" (i32.const 5) (i32.const 0) (i32.const 5) (i32.const 1)) (i32.const 31))
;; root → table[20] → table[21] → table[22]; table[22] resumes its waiting
;; grandparent table[20].
(invoke "driver" (i32.const 20) (i32.const 21) (i32.const 2) (i32.const 21) (i32.const 0))
(invoke "driver" (i32.const 21) (i32.const 22) (i32.const 2) (i32.const 22) (i32.const 0))
(invoke "driver" (i32.const 22) (i32.const 5) (i32.const 3) (i32.const 20) (i32.const 1))
(assert_trap (invoke "pump" (i32.const 20) (i32.const 2) (i32.const 20) (i32.const 0)) "fiber is active")
(assert_trap (invoke "pump" (i32.const 20) (i32.const 0) (i32.const 20) (i32.const 1)) "fiber is moribund")
(assert_trap (invoke "pump" (i32.const 21) (i32.const 0) (i32.const 21) (i32.const 1)) "fiber is moribund")
(assert_trap (invoke "pump" (i32.const 22) (i32.const 0) (i32.const 22) (i32.const 1)) "fiber is moribund")
(assert_return (invoke "pump" (i32.const 5) (i32.const 0) (i32.const 5) (i32.const 1)) (i32.const 35))
;; the same chain working: table[22] resumes table[5] and returns its tick,
;; each level adding 100000 on the way down
(invoke "driver" (i32.const 20) (i32.const 21) (i32.const 2) (i32.const 21) (i32.const 0))
(invoke "driver" (i32.const 21) (i32.const 22) (i32.const 2) (i32.const 22) (i32.const 0))
(invoke "driver" (i32.const 22) (i32.const 5) (i32.const 3) (i32.const 5) (i32.const 1))
(assert_return (invoke "pump" (i32.const 20) (i32.const 2) (i32.const 20) (i32.const 0)) (i32.const 300039))
;; table[5] was the suspended child of table[22], released when the chain
;; returned
(assert_trap (invoke "pump" (i32.const 5) (i32.const 0) (i32.const 5) (i32.const 1)) "fiber is moribund")

;; ---- fresh (slow) and started (fast) resumes through one site, reused slots --
(assert_return (invoke "churn" (i32.const 100)) (i32.const 10100700))
(assert_trap (invoke "pump" (i32.const 30) (i32.const 0) (i32.const 30) (i32.const 1)) "fiber is moribund")
(assert_trap (invoke "pump" (i32.const 31) (i32.const 0) (i32.const 31) (i32.const 1)) "fiber is moribund")
(invoke "counter" (i32.const 0))
(assert_return (invoke "pump" (i32.const 0) (i32.const 9) (i32.const 0) (i32.const 1)) (i32.const 10))
(assert_trap (invoke "pump" (i32.const 0) (i32.const 9) (i32.const 30) (i32.const 1)) "fiber is moribund")
(assert_return (invoke "pump" (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0)) (i32.const 101019))
