#!/usr/bin/env bash
# Runs every fuzz target of the module (each func FuzzXxx in a _test.go file) for a while
# (default 5s: the CI smoke run, which first replays the committed corpus in testdata/fuzz).
# Give a longer time to hunt: scripts/fuzz.sh 10m. A failing input is written to the package's
# testdata/fuzz/<Target>/ directory: fix the code and commit the input as a regression test.
set -euo pipefail
cd "$(dirname "$0")/.."
time="${1:-5s}"

grep -rlE '^func Fuzz[A-Za-z0-9_]+\(' --include='*_test.go' . | sort | while read -r file; do
  pkg="./$(dirname "${file#./}")"
  grep -oE '^func Fuzz[A-Za-z0-9_]+' "$file" | sed 's/^func //' | while read -r target; do
    echo "fuzz $pkg $target ($time)"
    # -parallel 2: CI machines are small.
    go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$time" -parallel 2
  done
done
