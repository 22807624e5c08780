#!/usr/bin/env bash
# Keeps docs/architecture.md true of the tree (run by `make test`):
#
# 1. Every repository path it names in backticks exists. Read: the inline code
#    spans (`…`) outside fenced blocks. A span is a path when
#    it is one word (no whitespace) and contains a `/`, ends in a source or
#    doc extension (.h .cc .inc .def .S .c .py .sh .cmake .md .wat .wast .txt
#    .mjs .failures), or is `Makefile`. Not paths, and skipped: spans with
#    whitespace (commands such as `weft run …`, code), URLs (`://`), options
#    (leading `-`), paths outside the repository (leading `/`, `../`, `~`),
#    build trees (first component `build` or `build-…`), gtest names (a `/`
#    and an upper-case first letter, as in `Exec/Suite.Name/Jit`: no top-level
#    folder starts with one), and patterns or placeholders (any of
#    * ? < > [ ] ( ) … | $ = : ; & ^ ' " \). One brace group is expanded:
#    `jit/executor.{h,cc}` names `jit/executor.h` and `jit/executor.cc`. A path
#    exists if git tracks it or it is an untracked, not ignored file (a new
#    file counts before its commit); a path ending in `/`, or naming a folder,
#    exists if such a file lies below it.
# 2. The link graph between the markers `<!-- link-graph:begin -->` and
#    `<!-- link-graph:end -->` equals the one the stage folders' CMakeLists.txt
#    declare: for each stage of WEFT_STAGES (root CMakeLists.txt), in order,
#    each target its add_library/add_executable defines, with the weft_*
#    libraries of its target_link_libraries calls in order of appearance
#    (conditional ones included). `--links` prints that graph and exits.
#
# 3. The JIT's compiler is written once for every machine: the files directly
#    in jit/ name no x86-64 register or instruction (outside jit/x64/) and no
#    AArch64 one (outside jit/a64/); machine code is the backends' business
#    (jit/backend.h). Checked by the word lists below, in code and comments.
#
# Exit status 1, with what is wrong, when any check fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
doc=docs/architecture.md

link_graph() {
  local stages stage text target libs
  stages=$(tr '\n' ' ' < CMakeLists.txt | grep -o 'set(WEFT_STAGES [^)]*)' | head -1 | sed 's/^set(WEFT_STAGES //; s/)$//')
  for stage in $stages; do
    [ -f "$stage/CMakeLists.txt" ] || continue
    text=$(sed 's/#.*//' "$stage/CMakeLists.txt" | tr '\n' ' ')
    for target in $(grep -o 'add_\(library\|executable\)( *[A-Za-z0-9_]*' <<<"$text" | sed 's/.*( *//'); do
      libs=$(grep -o "target_link_libraries( *$target [^)]*)" <<<"$text" | sed 's/^[^ ]* *[^ ]* //; s/)$//' \
        | tr ' ' '\n' | grep '^weft_' | tr '\n' ' ' | sed 's/ $//' || true)
      echo "$target: ${libs:-(none)}"
    done
  done
}

if [ "${1:-}" = "--links" ]; then
  link_graph
  exit 0
fi

files=$(git ls-files --cached --others --exclude-standard)
exists() {
  local p=${1%/}
  [[ $'\n'"$files"$'\n' == *$'\n'"$p"$'\n'* || $'\n'"$files" == *$'\n'"$p"/* ]]
}

# Inline code spans outside fenced blocks, one per line; a span continued on
# the next line is joined with a space (so it is never a path); a blank line
# ends an unclosed one, as in Markdown.
spans=$(awk '
  /^[ \t]*```/ { fenced = !fenced; next }
  fenced { next }
  /^[ \t]*$/ { inspan = 0; span = ""; next }
  {
    n = split($0, part, "`")
    if (inspan) span = span " " part[1]
    for (i = 2; i <= n; i++) {
      if (inspan) { print span; inspan = 0 } else { inspan = 1; span = part[i] }
    }
  }
' "$doc")

paths=()
while IFS= read -r span; do
  [ -n "$span" ] || continue
  case "$span" in
    *[[:space:]]* | *://* | -* | /* | ../* | '~'* | build/* | build-*/*) continue ;;
    *[\*\?\<\>\[\]\(\)\|\$=:\;\&^\'\"\\]* | *…*) continue ;;
    [A-Z]*/*) continue ;;
  esac
  case "$span" in
    */* | *.h | *.cc | *.inc | *.def | *.S | *.c | *.py | *.sh | *.cmake | *.md | *.wat | *.wast | *.txt | *.mjs | *.failures | Makefile) ;;
    *) continue ;;
  esac
  if [[ "$span" =~ ^([^{}]*)\{([^{}]*)\}([^{}]*)$ ]]; then
    IFS=',' read -ra alternatives <<<"${BASH_REMATCH[2]}"
    for a in "${alternatives[@]}"; do paths+=("${BASH_REMATCH[1]}$a${BASH_REMATCH[3]}"); done
  else
    paths+=("$span")
  fi
done <<<"$spans"

mapfile -t unique < <(printf '%s\n' "${paths[@]}" | sort -u)
missing=()
for p in "${unique[@]}"; do
  exists "$p" || missing+=("$p")
done

status=0
if [ "${#missing[@]}" -gt 0 ]; then
  echo "check-architecture: $doc names ${#missing[@]} of ${#unique[@]} paths that do not exist:" >&2
  printf '  %s\n' "${missing[@]}" >&2
  status=1
fi

documented=$(sed -n '/<!-- link-graph:begin -->/,/<!-- link-graph:end -->/p' "$doc" | grep -v '^<!--\|^```' || true)
declared=$(link_graph)
if [ "$documented" != "$declared" ]; then
  echo "check-architecture: the link graph in $doc differs from the CMake files (- doc, + CMake):" >&2
  diff <(echo "$documented") <(echo "$declared") | grep '^[<>]' | sed 's/^</  -/; s/^>/  +/' >&2 || true
  status=1
fi

# Machine words: registers (general, float/vector, special) and mnemonics the
# backends emit. Case-sensitive (the compiler's FloatOp::Div is not div), except
# the upper-case spellings of register files and extensions.
x86_words='\b(r[abcd]x|r[sd]i|r[sb]p|r(8|9|1[0-5])[dwb]?|e[abcd]x|e[sd]i|[re]ip|xmm[0-9]*|ymm[0-9]*|XMM|YMM|cl|[re]flags|lea|cmov[a-z]*|set(cc|n?[abglz]e?)|movzx|movsxd?|movabs|movq|movd|idiv|div|imul|cqo|cdq|push|pop|jmp|jcc|j(a|ae|b|be|g|ge|l|le|z|nz|e|ne)|rounds[sd]|cvt[a-z0-9]*|SSE[0-9.]*|sse[0-9.]*|AVX[0-9]*)\b'
a64_words='\b([xw]([0-9]|[12][0-9]|30)|[qdsvbh]([0-9]|[12][0-9]|3[01])|wzr|xzr|lr|ldr[bhs]?[bhw]?|ldu?r|stu?r[bh]?|ldp|stp|cbn?z|tbn?z|csel|cset|csinc|madd|msub|[su]div|fmov|adrp?|blr|bl|br|NEON)\b'
machine_names=$(for f in jit/*.cc jit/*.h; do
  grep -noE "$x86_words" "$f" | sed "s|^|  $f:|; s|\$| (x86-64)|" || true
  grep -noE "$a64_words" "$f" | sed "s|^|  $f:|; s|\$| (AArch64)|" || true
done)
if [ -n "$machine_names" ]; then
  echo "check-architecture: machine register or instruction names in the arch-independent compiler (jit/*.cc, jit/*.h):" >&2
  echo "$machine_names" >&2
  status=1
fi

if [ "$status" -ne 0 ]; then
  echo "check-architecture: FAILED" >&2
  exit 1
fi
echo "check-architecture: ${#unique[@]} paths, all exist; link graph of $(wc -l <<<"$declared") targets matches the CMake files; jit/*.cc, jit/*.h name no machine registers or instructions"
