#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and fuzzes each for FUZZ_SECONDS
# (default 120), seeded with every module binary of the spec suite.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
suite=${WEFT_TESTSUITE:-$root/../shared/wasm-testsuite}
seconds=${FUZZ_SECONDS:-120}
build=$root/build-fuzz
corpus=$root/fuzz/corpus

CC=clang CXX=clang++ cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DWEFT_FUZZ=ON -DWEFT_BUILD_TESTS=OFF >/dev/null
ninja -C "$build" decode_fuzzer text_fuzzer

mkdir -p "$corpus/decode" "$corpus/text"
if [ -d "$suite" ] && [ -z "$(ls -A "$corpus/decode")" ]; then
  tmp=$(mktemp -d)
  for f in "$suite"/*.wast; do
    wast2json "$f" -o "$tmp/$(basename "$f" .wast).json" >/dev/null 2>&1 || true
  done
  cp "$tmp"/*.wasm "$corpus/decode/" 2>/dev/null || true
  rm -rf "$tmp"
  cp "$suite"/*.wast "$corpus/text/"
fi

for target in decode text; do
  echo "== fuzzing ${target} for ${seconds}s"
  "$build/fuzz/${target}_fuzzer" "$corpus/$target" -max_total_time="$seconds" -rss_limit_mb=4096 \
    -print_final_stats=1 2>&1 | grep -E "stat::number_of_executed_units|Done|ERROR|SUMMARY|crash" || true
done
