#!/usr/bin/env bash
# Builds WAMR's iwasm with its fast JIT (a baseline JIT like weft's) outside the
# repository, as a peer for `make bench` (bench/run.py's wamr-fast-jit column).
#
# Usage: scripts/build-wamr.sh            prints the path of iwasm on stdout
#
# Nothing is vendored and nothing is downloaded: the sources come from trees
# or git directories already on the machine.
#   WAMR_PREFIX  where to build (default $HOME/.cache/weft-peers/wamr); iwasm
#                ends up in $WAMR_PREFIX/bin/iwasm. Idempotent: when that file
#                exists the script only prints its path (delete the directory
#                to rebuild).
#   WAMR_SRC     a wasm-micro-runtime source tree, used as it is; otherwise
#   WAMR_GIT     a git directory of it (default: the mirror,
#                $MIRROR_DIR/bytecodealliance+wasm-micro-runtime/repo), whose
#                WAMR_REV (default HEAD) is exported into $WAMR_PREFIX/src.
#   ASMJIT_SRC   an asmjit source tree at the commit WAMR pins; otherwise
#   ASMJIT_GIT   a git directory of asmjit (default
#                $MIRROR_DIR/asmjit+asmjit/repo) holding that commit.
#   MIRROR_DIR   default /work/.mirror
#   JOBS         parallel compile jobs (default 2)
set -euo pipefail

PREFIX=${WAMR_PREFIX:-$HOME/.cache/weft-peers/wamr}
MIRROR_DIR=${MIRROR_DIR:-/work/.mirror}
WAMR_GIT=${WAMR_GIT:-$MIRROR_DIR/bytecodealliance+wasm-micro-runtime/repo}
ASMJIT_GIT=${ASMJIT_GIT:-$MIRROR_DIR/asmjit+asmjit/repo}
WAMR_REV=${WAMR_REV:-HEAD}
JOBS=${JOBS:-2}
IWASM="$PREFIX/bin/iwasm"

say() { echo "build-wamr: $*" >&2; }
die() { say "$*"; exit 1; }

if [ -x "$IWASM" ]; then
  say "already built ($(head -1 "$PREFIX/BUILD-INFO" 2>/dev/null || true)); delete $PREFIX to rebuild"
  echo "$IWASM"
  exit 0
fi

for tool in cmake git make gcc g++; do
  command -v "$tool" >/dev/null || die "$tool not found (run scripts/install-deps.sh)"
done

# need_sources NAME SRC_VAR GIT_VAR URL FETCH_SOURCE [COMMIT]
need_sources() {
  local checkout=${6:+ && git -C /somewhere checkout $6}
  die "no $1 sources: set $2=<source tree> or $3=<git directory>, e.g.
  git clone $4 /somewhere$checkout && $2=/somewhere $0
(on the project's machines the fetch tool provides a git directory under $MIRROR_DIR: fetch $5)"
}

# Exports commit REV of git directory GIT into DIR (once: DIR is keyed by the commit).
export_tree() {
  local git_dir=$1 rev=$2 dir=$3
  if [ ! -d "$dir" ]; then
    rm -rf "$dir.partial" && mkdir -p "$dir.partial"
    git --git-dir="$git_dir" archive "$rev" | tar -x -C "$dir.partial"
    mv "$dir.partial" "$dir"
  fi
}

# --- WAMR ---------------------------------------------------------------------
if [ -n "${WAMR_SRC:-}" ]; then
  [ -f "$WAMR_SRC/product-mini/platforms/linux/CMakeLists.txt" ] ||
    die "WAMR_SRC=$WAMR_SRC is not a wasm-micro-runtime tree (no product-mini/platforms/linux/CMakeLists.txt)"
  wamr_src=$WAMR_SRC
  wamr_commit=$(git -C "$WAMR_SRC" rev-parse HEAD 2>/dev/null || echo "unknown (not a git checkout)")
elif git --git-dir="$WAMR_GIT" rev-parse --verify -q "$WAMR_REV^{commit}" >/dev/null 2>&1; then
  wamr_commit=$(git --git-dir="$WAMR_GIT" rev-parse "$WAMR_REV^{commit}")
  wamr_src="$PREFIX/src/wamr-${wamr_commit:0:12}"
  export_tree "$WAMR_GIT" "$wamr_commit" "$wamr_src"
else
  need_sources WAMR WAMR_SRC WAMR_GIT https://github.com/bytecodealliance/wasm-micro-runtime \
    github:bytecodealliance/wasm-micro-runtime
fi

# --- asmjit, at the commit WAMR's fast JIT pins (its CMake would clone it) -----
jit_cmake="$wamr_src/core/iwasm/fast-jit/iwasm_fast_jit.cmake"
asmjit_commit=$(sed -n 's/^ *GIT_TAG *\([0-9a-f]\{40\}\).*/\1/p' "$jit_cmake" | head -1)
[ -n "$asmjit_commit" ] || die "cannot find asmjit's GIT_TAG in $jit_cmake"
if [ -n "${ASMJIT_SRC:-}" ]; then
  [ -f "$ASMJIT_SRC/src/asmjit/asmjit.h" ] || die "ASMJIT_SRC=$ASMJIT_SRC is not an asmjit tree (no src/asmjit/asmjit.h)"
  asmjit_src=$ASMJIT_SRC
  checked_out=$(git -C "$ASMJIT_SRC" rev-parse HEAD 2>/dev/null || true)
  if [ -n "$checked_out" ] && [ "$checked_out" != "$asmjit_commit" ]; then
    say "warning: ASMJIT_SRC is at $checked_out, WAMR pins $asmjit_commit"
  fi
elif git --git-dir="$ASMJIT_GIT" cat-file -e "$asmjit_commit^{commit}" 2>/dev/null; then
  asmjit_src="$PREFIX/src/asmjit-${asmjit_commit:0:12}"
  export_tree "$ASMJIT_GIT" "$asmjit_commit" "$asmjit_src"
else
  [ -d "$ASMJIT_GIT" ] && say "$ASMJIT_GIT lacks commit $asmjit_commit, which WAMR pins"
  need_sources asmjit ASMJIT_SRC ASMJIT_GIT https://github.com/asmjit/asmjit github:asmjit/asmjit "$asmjit_commit"
fi

# --- build ---------------------------------------------------------------------
# SIMD is on by default for x86-64 builds but WAMR refuses it with the fast JIT;
# the kernels are scalar. FetchContent is pointed at the asmjit tree and kept
# offline, so the build never reaches for the network.
flags=(-DCMAKE_BUILD_TYPE=Release -DWAMR_BUILD_FAST_JIT=1 -DWAMR_BUILD_SIMD=0 -DWAMR_BUILD_LIBC_WASI=1
       "-DFETCHCONTENT_SOURCE_DIR_ASMJIT=$asmjit_src" -DFETCHCONTENT_FULLY_DISCONNECTED=ON)
build="$PREFIX/build"
mkdir -p "$PREFIX"
say "WAMR $wamr_commit, asmjit $asmjit_commit; building in $build (-j $JOBS)"
cmake -S "$wamr_src/product-mini/platforms/linux" -B "$build" "${flags[@]}" >"$PREFIX/cmake.log" 2>&1 ||
  die "cmake failed; see $PREFIX/cmake.log"
cmake --build "$build" -j "$JOBS" --target iwasm >"$PREFIX/build.log" 2>&1 ||
  die "build failed; see $PREFIX/build.log"
help=$("$build/iwasm" --help 2>&1 || true)  # iwasm --help exits non-zero
grep -q -- "--fast-jit" <<<"$help" || die "$build/iwasm was built without the fast JIT"

mkdir -p "$PREFIX/bin"
cp "$build/iwasm" "$IWASM.tmp" && mv "$IWASM.tmp" "$IWASM"
{
  echo "WAMR $wamr_commit with asmjit $asmjit_commit"
  echo "cmake ${flags[*]}"
} >"$PREFIX/BUILD-INFO"
say "built"
echo "$IWASM"
