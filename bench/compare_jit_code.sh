#!/usr/bin/env bash
# Compares the JIT code two weft builds generate for every function of the
# given modules (`weft inspect --disasm '#N'`), with address-space
# randomisation off and embedded heap addresses masked (they differ between
# builds). Prints each function that differs and "N functions, M differ".
# For "generated code unchanged" claims about a refactoring; see
# bench/compare_builds.py for the timing side.
#
# usage: bench/compare_jit_code.sh OLD_WEFT NEW_WEFT MODULE...
set -uo pipefail
[ $# -ge 3 ] || { echo "usage: $0 OLD_WEFT NEW_WEFT MODULE..." >&2; exit 2; }
old=$1 new=$2
shift 2
disasm() {  # weft module index → instructions without byte columns, heap addresses masked
  setarch "$(uname -m)" -R "$1" inspect --disasm "#$3" "$2" 2>&1 |
    sed -E 's/^ *([0-9a-f]+): +([0-9a-f]{2} )+ */\1 /; s/0x5555[0-9a-f]+/ADDR/g'
  return "${PIPESTATUS[0]}"
}
total=0 differ=0
for module in "$@"; do
  for ((i = 0; ; ++i)); do
    a=$(disasm "$old" "$module" "$i") || break
    b=$(disasm "$new" "$module" "$i")
    total=$((total + 1))
    if [ "$a" != "$b" ]; then
      differ=$((differ + 1))
      echo "differs: $module #$i"
    fi
  done
done
echo "$total functions, $differ differ"
