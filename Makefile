# weft — convenience targets. On a fresh Debian machine (as root or with sudo)
# `make demo` and `make test` install the dependencies, build and run.
BUILD_DIR ?= build
JOBS ?= 2
CMAKE_FLAGS := -G Ninja -DCMAKE_BUILD_TYPE=Release
ifdef CI
CMAKE_FLAGS += -DWEFT_WERROR=ON
endif
WEFT := $(BUILD_DIR)/tools/weft

.PHONY: all deps build test test-arm64 test-asan spec demo fuzz fuzz-smoke differential bench clean

all: build

# Debian packages (idempotent: installs only what is missing).
deps:
	bash scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD_DIR) $(CMAKE_FLAGS)
	cmake --build $(BUILD_DIR) -j $(JOBS)

# Unit tests and spec tests (ctest), then the AArch64 tests under qemu when
# scripts/test-arm64.sh exists.
test: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j$(JOBS)
	@if [ -f scripts/test-arm64.sh ]; then $(MAKE) --no-print-directory test-arm64; \
	else echo "test-arm64: scripts/test-arm64.sh not present; skipped"; fi

# Cross build of the fiber layer in $(BUILD_DIR)-arm64 (default build-arm64).
test-arm64: deps
	BUILD_DIR=$(abspath $(BUILD_DIR))-arm64 JOBS=$(JOBS) bash scripts/test-arm64.sh

# The spec test suite: one line per file and the summary "spec: N passed, M failed".
spec: build
	bash spec-tests/run-spec.sh $(WEFT)

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

# Benchmarks (no timing assertions anywhere): P1 native fiber switch, ours vs Boost.Context.
bench: deps
	cmake -S . -B build-bench $(CMAKE_FLAGS)
	cmake --build build-bench -j $(JOBS) --target fiber_switch
	build-bench/bench/fiber_switch --benchmark_repetitions=10 --benchmark_enable_random_interleaving=true \
	  --benchmark_report_aggregates_only=true

# libFuzzer on the decoder, the text parsers and execution (fuel-limited),
# seeded with the suite's modules (FUZZ_SECONDS per target, default 120).
fuzz: deps
	bash fuzz/run.sh

# Every fuzzer for 60 s on a fresh copy of the seeds; fails on any finding
# (crash, sanitizer report, timeout). Inputs that fail: build-fuzz/artifacts/.
fuzz-smoke: deps
	bash fuzz/run.sh smoke

# Unit and spec tests built with ASan+UBSan (RelWithDebInfo) in build-asan. A
# sanitizer report (UBSan included) fails the test that produced it.
ASAN_DIR ?= build-asan
test-asan: deps
	cmake -S . -B $(ASAN_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWEFT_SANITIZE=ON
	cmake --build $(ASAN_DIR) -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  ctest --test-dir $(ASAN_DIR) --output-on-failure -j$(JOBS)

# Differential testing against Binaryen's interpreter (DIFF_N modules, default
# 1000): "differential: N agreed, M mismatched"; mismatches kept in build-diff/mismatches.
DIFF_N ?= 1000
differential: deps
	JOBS=$(JOBS) bash fuzz/differential.sh $(DIFF_N)

clean:
	rm -rf $(BUILD_DIR)
