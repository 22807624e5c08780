;; fiber.suspend on its fast path and on its slow path: `not the running
;; fiber` (docs/fibers.md §6.4, §6.13, §9) at a suspend site that has just
;; taken the fast path several times.
;;
;; The fast path suspends the running fiber to its parent (a fiber or the
;; root) when the self operand S is the running fiber. Every other S — another
;; suspended fiber, a fresh or moribund one, the waiting parent, the fiber's
;; own suspended child, null, a stale handle whose slot the running fiber now
;; occupies, or any fiber at all while the root runs — traps `not the running
;; fiber` on the slow path, in the running fiber, which the trap aborts with
;; the waiting fibers below it (§6.12). The fiber named by S is not touched.
;;
;; All suspends of the generators below go through ONE fiber.suspend
;; instruction ($yield), which the root calls too. The root has no handle: a
;; null S must not look like "the root suspending itself".

(module
  (type $g (fiber (result i32)))
  (tag $go (param i32))
  (tag $tick (param i32))
  (table $t 32 (ref null $g))

  ;; THE suspend site: suspends S with $tick(v) and returns the value of the
  ;; $go that resumes it.
  (func $yield (param $s (ref null $g)) (param $v i32) (result i32)
    (handle (result i32)
      (fiber.suspend $tick (local.get $s) (local.get $v))
      (event $go (param i32))))

  ;; A generator: counts the $go events it receives; $go(x) with
  ;;   x = 0          returns count + 1000,
  ;;   1 <= x < 100   suspends itself with $tick(count),
  ;;   100 <= x < 200 suspends with S = table[x - 100] instead,
  ;;   x >= 200       resumes table[x - 200] (making it its child), then
  ;;                  suspends itself with $tick(count + 10 * that tick).
  (func $gen (param $self (ref $g)) (result i32)
    (local $n i32) (local $x i32) (local $s (ref null $g))
    (unreachable)
    (event $go (param i32)
      (local.set $x)
      (loop $l
        (if (i32.eqz (local.get $x)) (then (return (i32.add (local.get $n) (i32.const 1000)))))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (local.set $s (local.get $self))
        (if (i32.ge_u (local.get $x) (i32.const 200))
          (then
            (local.set $n (i32.add (local.get $n)
              (i32.mul (i32.const 10) (call $resume (table.get $t (i32.sub (local.get $x) (i32.const 200))) (i32.const 1))))))
          (else
            (if (i32.ge_u (local.get $x) (i32.const 100))
              (then (local.set $s (table.get $t (i32.sub (local.get $x) (i32.const 100))))))))
        (local.set $x (call $yield (local.get $s) (local.get $n)))
        (br $l))
      (unreachable)))

  ;; The root's resume site: the $tick value, or 100000 + the result.
  (func $resume (param $f (ref null $g)) (param $x i32) (result i32)
    (handle (result i32)
      (fiber.resume $g $go (local.get $f) (local.get $x))
      (i32.add (i32.const 100000))
      (event $tick (param i32))))

  ;; A driver fiber: resumed with $go(y), y != 0, it suspends (through
  ;; $yield) with $tick(y); on $go(0) it resumes table[i] k times with $go(1)
  ;; and then table[j] with $go(x), and returns that value.
  (func $driver (param $self (ref $g)) (param $i i32) (param $k i32) (param $j i32) (param $x i32)
    (result i32)
    (local $y i32)
    (unreachable)
    (event $go (param i32)
      (local.set $y)
      (loop $l
        (if (local.get $y)
          (then
            (local.set $y (call $yield (local.get $self) (local.get $y)))
            (br $l))))
      (call $pump (local.get $i) (local.get $k) (local.get $j) (local.get $x))))

  (func $pump (param $i i32) (param $k i32) (param $j i32) (param $x i32) (result i32)
    (block $done
      (loop $l
        (br_if $done (i32.eqz (local.get $k)))
        (drop (call $resume (table.get $t (local.get $i)) (i32.const 1)))
        (local.set $k (i32.sub (local.get $k) (i32.const 1)))
        (br $l)))
    (call $resume (table.get $t (local.get $j)) (local.get $x)))

  (func (export "gen") (param $slot i32)
    (table.set $t (local.get $slot) (fiber.new $gen)))
  (func (export "driver") (param $slot i32) (param $i i32) (param $k i32) (param $j i32) (param $x i32)
    (table.set $t (local.get $slot)
      (fiber.new $driver (local.get $i) (local.get $k) (local.get $j) (local.get $x))))
  (func (export "pump") (param $i i32) (param $k i32) (param $j i32) (param $x i32) (result i32)
    (call $pump (local.get $i) (local.get $k) (local.get $j) (local.get $x)))
  ;; The root at the hot suspend site, after k fast round trips of table[i].
  (func (export "root-yield") (param $i i32) (param $k i32) (param $j i32) (result i32)
    (drop (call $pump (local.get $i) (local.get $k) (local.get $i) (i32.const 1)))
    (call $yield (table.get $t (local.get $j)) (i32.const 0)))
  (func (export "root-yield-null") (param $i i32) (param $k i32) (result i32)
    (drop (call $pump (local.get $i) (local.get $k) (local.get $i) (i32.const 1)))
    (call $yield (ref.null $g) (i32.const 0)))
)

;; Two generators, started (slow) and resumed on the fast path.
(invoke "gen" (i32.const 0))
(invoke "gen" (i32.const 1))
(assert_return (invoke "pump" (i32.const 0) (i32.const 4) (i32.const 0) (i32.const 1)) (i32.const 5))
(assert_return (invoke "pump" (i32.const 1) (i32.const 2) (i32.const 1) (i32.const 1)) (i32.const 3))

;; ---- S is another suspended fiber ----------------------------------------
(assert_trap (invoke "pump" (i32.const 0) (i32.const 3) (i32.const 0) (i32.const 101)) "not the running fiber")
(assert_trap (invoke "pump" (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 1)) "fiber is moribund")
;; table[1], named as S, was not touched
(assert_return (invoke "pump" (i32.const 1) (i32.const 3) (i32.const 1) (i32.const 1)) (i32.const 7))

;; ---- S is null, fresh, moribund --------------------------------------------
(invoke "gen" (i32.const 2))
(assert_trap (invoke "pump" (i32.const 2) (i32.const 5) (i32.const 2) (i32.const 115)) "not the running fiber")
(assert_trap (invoke "pump" (i32.const 2) (i32.const 0) (i32.const 2) (i32.const 1)) "fiber is moribund")
(invoke "gen" (i32.const 3))
(invoke "gen" (i32.const 4))
(assert_trap (invoke "pump" (i32.const 3) (i32.const 5) (i32.const 3) (i32.const 104)) "not the running fiber")
;; the fresh fiber named as S is still fresh: its first event enters its entry
(assert_return (invoke "pump" (i32.const 4) (i32.const 0) (i32.const 4) (i32.const 1)) (i32.const 1))
(invoke "gen" (i32.const 3))
;; table[2] is moribund
(assert_trap (invoke "pump" (i32.const 3) (i32.const 5) (i32.const 3) (i32.const 102)) "not the running fiber")

;; ---- S is a stale handle of the running fiber's own slot --------------------
;; table[5] dies; table[6] gets its slot (a new generation) and is resumed on
;; the fast path several times, then suspends naming table[5].
(invoke "gen" (i32.const 5))
(assert_return (invoke "pump" (i32.const 5) (i32.const 2) (i32.const 5) (i32.const 0)) (i32.const 101002))
(invoke "gen" (i32.const 6))
(assert_return (invoke "pump" (i32.const 6) (i32.const 5) (i32.const 6) (i32.const 1)) (i32.const 6))
(assert_trap (invoke "pump" (i32.const 6) (i32.const 3) (i32.const 6) (i32.const 105)) "not the running fiber")
(assert_trap (invoke "pump" (i32.const 6) (i32.const 0) (i32.const 6) (i32.const 1)) "fiber is moribund")

;; ---- S is the waiting parent ------------------------------------------------
;; root → driver table[7] → table[8]; table[8] suspends naming table[7].
(invoke "gen" (i32.const 8))
(invoke "driver" (i32.const 7) (i32.const 8) (i32.const 4) (i32.const 8) (i32.const 107))
(assert_trap (invoke "pump" (i32.const 7) (i32.const 3) (i32.const 7) (i32.const 0)) "not the running fiber")
(assert_trap (invoke "pump" (i32.const 7) (i32.const 0) (i32.const 7) (i32.const 1)) "fiber is moribund")
(assert_trap (invoke "pump" (i32.const 8) (i32.const 0) (i32.const 8) (i32.const 1)) "fiber is moribund")
;; the same chain with a correct S: table[8]'s suspension reaches the driver,
;; which returns it
(invoke "gen" (i32.const 8))
(invoke "driver" (i32.const 7) (i32.const 8) (i32.const 4) (i32.const 8) (i32.const 1))
(assert_return (invoke "pump" (i32.const 7) (i32.const 3) (i32.const 7) (i32.const 0)) (i32.const 100005))
;; table[8] was the driver's suspended child: released when the driver returned
(assert_trap (invoke "pump" (i32.const 8) (i32.const 0) (i32.const 8) (i32.const 1)) "fiber is moribund")

;; ---- S is the running fiber's own suspended child ----------------------------
;; table[9] resumes table[10] (its $go(210)), which suspends back to it on the
;; fast path; then table[9] suspends naming table[10].
(invoke "gen" (i32.const 9))
(invoke "gen" (i32.const 10))
(assert_return (invoke "pump" (i32.const 9) (i32.const 2) (i32.const 9) (i32.const 210)) (i32.const 13))
(assert_return (invoke "pump" (i32.const 9) (i32.const 0) (i32.const 9) (i32.const 210)) (i32.const 34))
(assert_trap (invoke "pump" (i32.const 9) (i32.const 2) (i32.const 9) (i32.const 110)) "not the running fiber")
(assert_trap (invoke "pump" (i32.const 9) (i32.const 0) (i32.const 9) (i32.const 1)) "fiber is moribund")
;; table[10] survives its parent's trap (orphaned, still suspended)
(assert_return (invoke "pump" (i32.const 10) (i32.const 0) (i32.const 10) (i32.const 1)) (i32.const 3))

;; ---- the root at the hot suspend site -----------------------------------------
;; table[1] and table[10] take the fast path through $yield first.
(assert_trap (invoke "root-yield-null" (i32.const 1) (i32.const 3)) "not the running fiber")
(assert_trap (invoke "root-yield" (i32.const 1) (i32.const 3) (i32.const 10)) "not the running fiber")
(assert_trap (invoke "root-yield" (i32.const 10) (i32.const 3) (i32.const 10)) "not the running fiber")
(assert_trap (invoke "root-yield" (i32.const 1) (i32.const 3) (i32.const 2)) "not the running fiber")
(assert_trap (invoke "root-yield" (i32.const 1) (i32.const 3) (i32.const 31)) "not the running fiber")
(invoke "gen" (i32.const 11))
(assert_trap (invoke "root-yield" (i32.const 1) (i32.const 3) (i32.const 11)) "not the running fiber")
;; none of them was touched
(assert_return (invoke "pump" (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 0)) (i32.const 101027))
(assert_return (invoke "pump" (i32.const 10) (i32.const 0) (i32.const 10) (i32.const 0)) (i32.const 101007))
(assert_return (invoke "pump" (i32.const 11) (i32.const 1) (i32.const 11) (i32.const 0)) (i32.const 101001))
