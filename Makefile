# weft — convenience targets. On a fresh Debian machine (as root or with sudo)
# `make demo` and `make test` install the dependencies, build and run.
BUILD_DIR ?= build
JOBS ?= 2
CMAKE_FLAGS := -G Ninja -DCMAKE_BUILD_TYPE=Release
ifdef CI
CMAKE_FLAGS += -DWEFT_WERROR=ON
endif
WEFT := $(BUILD_DIR)/tools/weft

.PHONY: all deps build test test-arm64 spec demo fuzz bench clean

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
	@echo "== weft demo: examples/fib.wat, run with 'weft run --invoke NAME FILE ARGS...'"
	@echo "-- fib(50), iterative:"
	$(WEFT) run --invoke fib examples/fib.wat 50
	@echo "-- fib_rec(25), naive recursion (242785 calls):"
	$(WEFT) run --invoke fib_rec examples/fib.wat 25
	@echo "-- fac(20):"
	$(WEFT) run --invoke fac examples/fib.wat 20
	@echo "-- golden_ratio(40) = fib(41) / fib(40):"
	$(WEFT) run --invoke golden_ratio examples/fib.wat 40
	@echo "-- div(7, 0) traps; weft prints the trap and exits with status 1:"
	-$(WEFT) run --invoke div examples/fib.wat 7 0
	@echo "-- wat2wasm + validate:"
	$(WEFT) wat2wasm examples/fib.wat -o $(BUILD_DIR)/fib.wasm
	$(WEFT) validate $(BUILD_DIR)/fib.wasm

# Benchmarks (no timing assertions anywhere): P1 native fiber switch, ours vs Boost.Context.
bench: deps
	cmake -S . -B build-bench $(CMAKE_FLAGS)
	cmake --build build-bench -j $(JOBS) --target fiber_switch
	build-bench/bench/fiber_switch --benchmark_repetitions=10 --benchmark_enable_random_interleaving=true \
	  --benchmark_report_aggregates_only=true

# libFuzzer on the decoder and the text parsers, seeded with the suite's modules
# (FUZZ_SECONDS per target, default 120).
fuzz: deps
	bash fuzz/run.sh

clean:
	rm -rf $(BUILD_DIR)
