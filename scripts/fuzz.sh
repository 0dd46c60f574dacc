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
    # -parallel 2: CI machines are small. On a loaded machine Go's fuzzing coordinator can
    # stop with a bare "context deadline exceeded" when the time runs out while a worker is
    # busy: no failing input, no crash. That run is repeated once; any other failure (a
    # failing input is written to testdata/fuzz) fails at once.
    out=$(mktemp)
    if ! go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$time" -parallel 2 2>&1 | tee "$out"; then
      if grep -q 'context deadline exceeded' "$out" && ! grep -qE 'Failing input|failure while testing seed corpus|panic:' "$out"; then
        echo "fuzz $pkg $target: the coordinator timed out without a failing input; running it again"
        go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$time" -parallel 2
      else
        rm -f "$out"
        exit 1
      fi
    fi
    rm -f "$out"
  done
done
