# weft — convenience targets. On a fresh Debian machine (as root or with sudo)
# `make demo` and `make test` install the dependencies, build and run.
BUILD_DIR ?= build
JOBS ?= 2
CMAKE_FLAGS := -G Ninja -DCMAKE_BUILD_TYPE=Release
ifdef CI
CMAKE_FLAGS += -DWEFT_WERROR=ON
endif
WEFT := $(BUILD_DIR)/tools/weft

.PHONY: all deps build test test-arm64 test-asan spec demo fuzz fuzz-smoke differential differential-jit differential-jit-arm64 differential-fuel differential-simd bench bench-quick bench-fibers bench-exceptions clean

all: build

# Debian packages (idempotent: installs only what is missing).
deps:
	bash scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD_DIR) $(CMAKE_FLAGS)
	cmake --build $(BUILD_DIR) -j $(JOBS)

# Tree checks (no build outputs tracked; docs/architecture.md's paths and link
# graph match the tree), unit tests and spec tests (ctest), then the AArch64
# tests under qemu when scripts/test-arm64.sh exists, then every fuzzer for
# 60 s (fuzz-smoke).
test: build
	bash scripts/check-tree.sh
	bash scripts/check-architecture.sh
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j$(JOBS)
	@if [ -f scripts/test-arm64.sh ]; then $(MAKE) --no-print-directory test-arm64; \
	else echo "test-arm64: scripts/test-arm64.sh not present; skipped"; fi
	$(MAKE) --no-print-directory fuzz-smoke

# The whole of weft cross-built for AArch64 in $(BUILD_DIR)-arm64 (default
# build-arm64), its ctest run under qemu-aarch64 (every tier the build has),
# then, with a JIT tier, an interpreter-vs-JIT differential slice (≥ 10,000
# runs). scripts/test-arm64.sh says what runs, what is excluded and its times.
test-arm64: deps
	BUILD_DIR=$(abspath $(BUILD_DIR))-arm64 JOBS=$(JOBS) bash scripts/test-arm64.sh

# differential-jit's full counts (JIT_DIFF_N, JIT_FIBER_N) on the AArch64 build under qemu.
differential-jit-arm64: deps
	BUILD_DIR=$(abspath $(BUILD_DIR))-arm64 JOBS=$(JOBS) JIT_DIFF_N=$(JIT_DIFF_N) JIT_FIBER_N=$(JIT_FIBER_N) \
	  $(if $(JIT_FIBER_SEED),JIT_FIBER_SEED=$(JIT_FIBER_SEED)) bash scripts/test-arm64.sh differential

# The spec test suite on both tiers (the JIT with --no-fallback): one line per
# file and the summaries "spec: N passed, M failed" / "fibers: …" per tier.
spec: build
	bash spec-tests/run-spec.sh --tier=interp $(WEFT)
	bash spec-tests/run-spec.sh --tier=jit $(WEFT)

demo: build
	@echo "== weft demo: the fiber extension (examples/README.md explains each example)"
	@echo "-- generator: a fiber yields array elements to its consumer; sum of 1..10:"
	$(WEFT) run --invoke main examples/generator.wat
	@echo "-- green threads: three adder threads under a canceling arena manager"
	@echo "   (winner's index, its total, the canceled threads' totals):"
	$(WEFT) run --invoke main examples/green-threads.wat
	@echo "-- async I/O: a Wasm scheduler multiplexing fetches over simulated I/O:"
	$(WEFT) run --invoke main examples/async-io/scheduler.wat
	@echo "-- the perfect-hash event dispatch tables of the green-threads example:"
	$(WEFT) inspect --dispatch examples/green-threads.wat
	@echo "-- plain Wasm: fib(50), and a trap with its backtrace (exit status 1):"
	$(WEFT) run --invoke fib examples/fib.wat 50
	-$(WEFT) run --invoke div examples/fib.wat 7 0

# Benchmarks (no timing assertions anywhere; docs/performance.md): builds weft
# and fiber_switch in build-bench, the kernels and fiber programs with gcc/clang,
# runs native, weft, node (default, pinned Liftoff, TurboFan), WAMR fast-jit (when
# scripts/build-wamr.sh has built it; the column is left out otherwise), wasm-interp
# and Boost.Context round-robin and prints one table with the P1-P8 lines. Fails only on a checksum
# mismatch or a failed run. bench-quick: small sizes, one run each (~1 min, for CI).
# Then the async-I/O load test: the fiber echo server holding 10,000 loopback
# connections on each tier (bench/echo_load.py; fails if a byte is lost).
bench: deps
	cmake -S . -B build-bench $(CMAKE_FLAGS) -DWEFT_BUILD_TESTS=OFF
	cmake --build build-bench -j $(JOBS) --target weft fiber_switch compile_speed fiber_depth
	python3 bench/run.py --build-dir build-bench --output build-bench/bench-results.md
	for tier in interp jit; do python3 bench/echo_load.py --weft build-bench/tools/weft --tier $$tier \
	  --server examples/async-io/server.wat --connections 10000 --messages 10 --timeout 600 || exit 1; done

bench-quick: deps
	cmake -S . -B build-bench $(CMAKE_FLAGS) -DWEFT_BUILD_TESTS=OFF
	cmake --build build-bench -j $(JOBS) --target weft fiber_switch compile_speed fiber_depth
	python3 bench/run.py --quick --build-dir build-bench

# The fiber section alone (~1.5 min after the build): P1-P4, the depth sweep
# (the generator yielding from 1, 4, 16, 64 calls down: fibers on both tiers,
# plain calls, Asyncify on node and weft), the in-process depth probe
# (bench/fiber_depth, depths 1-128) and instructions per round trip
# under callgrind; ends with Markdown tables for docs/performance.md, also
# written to build-bench/bench-fibers.md.
bench-fibers: deps
	cmake -S . -B build-bench $(CMAKE_FLAGS) -DWEFT_BUILD_TESTS=OFF
	cmake --build build-bench -j $(JOBS) --target weft fiber_switch fiber_depth
	python3 bench/run.py --only fibers --build-dir build-bench --output build-bench/bench-fibers.md

# The exceptions section alone (issue 19, ~20 s after the build): throw/catch
# round trips in one function and across 10 frames, and a call without and
# with a try_table around it, on weft's tiers (bench/exceptions/exceptions.wat)
# beside the same loops in C++ (bench/native/exceptions.cc, g++ -O2); tables
# for docs/performance.md, also written to build-bench/bench-exceptions.md.
bench-exceptions: deps
	cmake -S . -B build-bench $(CMAKE_FLAGS) -DWEFT_BUILD_TESTS=OFF
	cmake --build build-bench -j $(JOBS) --target weft
	python3 bench/run.py --only exceptions --build-dir build-bench --output build-bench/bench-exceptions.md

# libFuzzer on the decoder, the text parsers, execution (fuel-limited) and
# generated fiber-heavy programs, seeded with the suite's modules
# (FUZZ_SECONDS per target, default 120). Built in $(ASAN_DIR), shared with test-asan.
fuzz: deps
	FUZZ_BUILD_DIR=$(abspath $(ASAN_DIR)) bash fuzz/run.sh

# Every fuzzer for FUZZ_SECONDS (default 60) on a fresh copy of the seeds; fails
# on any finding (crash, sanitizer report, timeout). Failing inputs: $(ASAN_DIR)/artifacts/.
fuzz-smoke: deps
	FUZZ_BUILD_DIR=$(abspath $(ASAN_DIR)) bash fuzz/run.sh smoke

# Unit and spec tests built with ASan+UBSan in build-asan: the one sanitizer
# build, shared with fuzz and fuzz-smoke (clang, -O1 with line tables, coverage
# instrumentation; configured by `fuzz/run.sh configure`), so CI compiles it
# once. A sanitizer report (UBSan included) fails the test that produced it.
# - 64 MiB main stack: ASan's redzones make frames ~4x larger, and the text
#   parser's folded-nesting bound (2048 levels, text/instructions.cc) is sized
#   for uninstrumented frames (it needs 1-2 MiB there, ~8 MiB under ASan).
# - Excluded (resource tests calibrated for uninstrumented builds): fibers on
#   2 KiB native stacks (ASan frames overflow them), one million live fibers
#   (ASan's shadow memory exhausts the mappings: SIGBUS), and the resident-memory
#   bound per suspended fiber (ASan's shadow and redzones exceed it).
ASAN_DIR ?= build-asan
ASAN_EXCLUDE := ManyFibers\.SmallStackIsLargeEnough|ManyFibers\.OneMillionLiveFibers|FiberScale\.HundredThousandFibersRoundRobinWithinMemoryBound
test-asan: deps
	FUZZ_BUILD_DIR=$(abspath $(ASAN_DIR)) bash fuzz/run.sh configure
	cmake --build $(ASAN_DIR) -j $(JOBS)
	ulimit -s 65536 || true; \
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  ctest --test-dir $(ASAN_DIR) --output-on-failure -j$(JOBS) -E '$(ASAN_EXCLUDE)'

# Differential testing against Binaryen's interpreter (DIFF_N modules, default
# 1000): "differential: N agreed, M mismatched … (R runs, V v128 results)";
# mismatches kept in build-diff/mismatches. SIMD=1 adds SIMD to the modules
# (not strict with Binaryen 108: docs/simd.md, "Not done").
DIFF_N ?= 1000
differential: deps
	JOBS=$(JOBS) bash fuzz/differential.sh $(DIFF_N)

# Interpreter vs. JIT in one process (tests/jit/differential.sh): JIT_DIFF_N
# Binaryen `wasm-opt -ttf` modules (default 300, every export called 4 times:
# ~4,000 runs) and JIT_FIBER_N generated fiber programs (default 2500, every
# root called twice: ~10,000 runs, a few seconds). One run is one export call;
# the defaults give well over 10,000. JIT_FIBER_SEED (default random) is
# printed for reproduction; disagreeing modules are kept in
# $(BUILD_DIR)/jit-differential. Ends with "jit differential: R runs agree, D disagree (…)".
JIT_DIFF_N ?= 300
JIT_FIBER_N ?= 2500
differential-jit: deps
	cmake -S . -B $(BUILD_DIR) $(CMAKE_FLAGS)
	cmake --build $(BUILD_DIR) -j $(JOBS) --target jit_differential
	FIBER_N=$(JIT_FIBER_N) $(if $(JIT_FIBER_SEED),FIBER_SEED=$(JIT_FIBER_SEED)) KEEP=$(abspath $(BUILD_DIR))/jit-differential \
	  bash tests/jit/differential.sh $(JIT_DIFF_N) $(abspath $(BUILD_DIR))/tests/jit/jit_differential

# The same, under fuel (issue 14): JIT_FUEL_N Binaryen modules (default 200,
# every export called 6 times: ~30,000 runs) and JIT_FUEL_FIBER_N fiber
# programs (default 1000, ~4,000 runs), each call with its own random fuel
# budget, the fuel left after it compared between the tiers. Ends with
# "jit differential: R runs agree, D disagree (…)".
JIT_FUEL_N ?= 200
JIT_FUEL_FIBER_N ?= 1000
differential-fuel: deps
	cmake -S . -B $(BUILD_DIR) $(CMAKE_FLAGS)
	cmake --build $(BUILD_DIR) -j $(JOBS) --target jit_differential
	RANDOM_FUEL=1 CALLS=6 FIBER_N=$(JIT_FUEL_FIBER_N) KEEP=$(abspath $(BUILD_DIR))/jit-differential-fuel \
	  bash tests/jit/differential.sh $(JIT_FUEL_N) $(abspath $(BUILD_DIR))/tests/jit/jit_differential

# The same with SIMD in the Binaryen modules (issue 17): JIT_SIMD_N modules
# (default 100, every export called 4 times, each module also with two
# memories: ~20,000 runs), no fiber programs; every SIMD function compiled.
JIT_SIMD_N ?= 100
differential-simd: deps
	cmake -S . -B $(BUILD_DIR) $(CMAKE_FLAGS)
	cmake --build $(BUILD_DIR) -j $(JOBS) --target jit_differential
	SIMD=1 FIBER_N=0 KEEP=$(abspath $(BUILD_DIR))/jit-differential-simd \
	  bash tests/jit/differential.sh $(JIT_SIMD_N) $(abspath $(BUILD_DIR))/tests/jit/jit_differential

clean:
	rm -rf $(BUILD_DIR)
