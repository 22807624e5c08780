#!/usr/bin/env bash
# Fails when the repository tracks files that are outputs, not sources: fuzz
# corpora and crash inputs, logs, build trees, core dumps, or any file over
# 512 KiB (the largest source today is ~60 KiB). Run by `make test`, so CI
# refuses a commit that adds them.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bad=$(git ls-files | grep -E '(^|/)(exec-corpus|corpus|crashes|build(-[^/]*)?)/|\.log$|(^|/)(crash|leak|timeout|oom|slow-unit)-[0-9a-f]+$|(^|/)core(\.[0-9]+)?$|\.o$|\.a$|\.so$' || true)
big=$(git ls-files -z | xargs -0 -r stat -c '%s %n' 2>/dev/null | awk '$1 > 524288 { print $2 " (" $1 " bytes)" }')
if [ -n "$bad$big" ]; then
  echo "check-tree: the repository tracks files that must not be committed:" >&2
  [ -n "$bad" ] && echo "$bad" | head -20 | sed 's/^/  /' >&2
  [ -n "$big" ] && echo "$big" | head -20 | sed 's/^/  too large: /' >&2
  echo "check-tree: FAILED (git rm --cached them and add the pattern to .gitignore)" >&2
  exit 1
fi
echo "check-tree: $(git ls-files | wc -l) tracked files, no corpora, logs, build outputs or files over 512 KiB"
