#!/usr/bin/env bash
# libFuzzer targets of weft: build them with clang (every library instrumented
# for coverage, ASan and UBSan) and fuzz each one, seeded from the spec suite.
#
# usage: fuzz/run.sh configure             configure the shared sanitizer build (build-asan)
#        fuzz/run.sh build                 configure, then build the fuzzers
#        fuzz/run.sh run [SECONDS]         build, then fuzz every target for SECONDS
#                                          (default $FUZZ_SECONDS or 120); exits 1 on a finding
#        fuzz/run.sh smoke                 `run 60` on a fresh copy of the seeds (make fuzz-smoke)
# environment: FUZZ_TARGETS (default "decode text exec fiber"), FUZZ_BUILD_DIR
# (default build-asan), WEFT_TESTSUITE (spec suite), JOBS (build parallelism, default 2).
#
# One build directory serves the fuzzers and `make test-asan` (unit and spec
# tests under ASan+UBSan): CI compiles the sanitized libraries once.
#
# Corpora live in fuzz/corpus/<target>/ (git-ignored) and grow across runs;
# `smoke` uses <build>/smoke-corpus/ so CI results do not depend on earlier
# runs. Crashing inputs are written to <build>/artifacts/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
suite=${WEFT_TESTSUITE:-$root/../shared/wasm-testsuite}
build=${FUZZ_BUILD_DIR:-$root/build-asan}
targets=${FUZZ_TARGETS:-decode text exec fiber}
mode=${1:-run}

# Coverage instrumentation must cover the libraries, not only the fuzzer
# files: -fsanitize=fuzzer-no-link on everything (the unit tests link without
# libFuzzer; ASan's runtime provides the coverage callbacks), ASan+UBSan via
# WEFT_SANITIZE. UBSan findings abort (no recovery) so libFuzzer records them
# as crashes and ctest as failures. -O1 with line tables only: full reports at
# about half the build time of -O2 -g; assertions stay on (no NDEBUG).
configure() {
  CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DWEFT_FUZZ=ON -DWEFT_SANITIZE=ON -DWEFT_BUILD_TESTS=ON \
    "-DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link -fno-sanitize-recover=undefined" \
    "-DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link -fno-sanitize-recover=undefined" \
    "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" >/dev/null
}

build_fuzzers() {
  configure
  local names=()
  for t in $targets; do names+=("${t}_fuzzer"); done
  ninja -C "$build" -j "${JOBS:-2}" "${names[@]}"
}

# Seeds: every module binary of the suite (wast2json) for decode/exec, the
# .wast scripts (and the regression scripts) for text. The fiber fuzzer starts
# empty: any bytes make a valid program, and libFuzzer grows them.
seed() {
  local corpus=$1
  mkdir -p "$corpus/decode" "$corpus/text" "$corpus/exec" "$corpus/fiber"
  [ -d "$suite" ] || return 0
  if [ -z "$(ls -A "$corpus/decode")" ] || [ -z "$(ls -A "$corpus/exec")" ]; then
    local tmp
    tmp=$(mktemp -d)
    for f in "$suite"/*.wast; do
      wast2json --enable-all "$f" -o "$tmp/$(basename "$f" .wast).json" >/dev/null 2>&1 || true
    done
    [ -n "$(ls -A "$corpus/decode")" ] || cp "$tmp"/*.wasm "$corpus/decode/" 2>/dev/null || true
    [ -n "$(ls -A "$corpus/exec")" ] || cp "$tmp"/*.wasm "$corpus/exec/" 2>/dev/null || true
    rm -rf "$tmp"
  fi
  if [ -z "$(ls -A "$corpus/text")" ]; then
    cp "$suite"/*.wast "$corpus/text/"
    cp "$root"/spec-tests/regressions/*.wast "$corpus/text/" 2>/dev/null || true
  fi
}

run_fuzzers() {
  local seconds=$1 corpus=$2 status=0
  mkdir -p "$build/artifacts"
  for t in $targets; do
    echo "== fuzzing ${t} for ${seconds}s"
    local log="$build/${t}_fuzzer.log" extra=()
    # Whole spec scripts (up to ~1 MB) make slow text inputs: cap mutants at 20 KB.
    [ "$t" = text ] && extra=(-max_len=20000)
    # Generated programs need a few hundred bytes of choices to grow
    # interesting: start at full length instead of libFuzzer's slow ramp.
    [ "$t" = fiber ] && extra=(-max_len=2048 -len_control=0)
    # -timeout: one input may run at most 10 s (the exec fuzzer's fuel keeps it far below).
    if ! "$build/fuzz/${t}_fuzzer" "$corpus/$t" "${extra[@]}" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
      -print_final_stats=1 -artifact_prefix="$build/artifacts/${t}-" >"$log" 2>&1; then
      status=1
      echo "!! ${t}_fuzzer found a problem (log: $log)"
      grep -E "ERROR|SUMMARY|runtime error|Test unit written" "$log" | head -n 20 || true
    fi
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$log" || true
  done
  return $status
}

case "$mode" in
  configure) configure ;;
  build) build_fuzzers ;;
  run)
    build_fuzzers
    seed "$root/fuzz/corpus"
    run_fuzzers "${2:-${FUZZ_SECONDS:-120}}" "$root/fuzz/corpus"
    ;;
  smoke)
    build_fuzzers
    rm -rf "$build/smoke-corpus"
    seed "$build/smoke-corpus"
    run_fuzzers "${FUZZ_SECONDS:-60}" "$build/smoke-corpus"
    ;;
  *) echo "usage: fuzz/run.sh configure | build | run [SECONDS] | smoke" >&2; exit 2 ;;
esac
