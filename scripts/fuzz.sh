#!/usr/bin/env bash
# Runs every fuzz target of the module for a while each (default 5s: the CI smoke run over the
# committed corpora). Give a longer time to hunt: scripts/fuzz.sh 10m. A failing input is
# written to the package's testdata/fuzz/<Target>/ directory; keep it as a regression input.
set -euo pipefail
cd "$(dirname "$0")/.."
time="${1:-5s}"

# package  target: one line per fuzz target (docs/security.md lists what each checks).
targets="
./checker/load FuzzBytes
./checker/load FuzzTextFiles
./checker/load FuzzEmbedded
./checker/shell FuzzParse
./checker/shell FuzzNeutralize
./checker FuzzMaskTemplate
./policy FuzzInput
./checker/report FuzzFormats
"

# Every Fuzz function of the module must be listed above.
found=$(grep -rhoE '^func Fuzz[A-Za-z0-9_]+' --include='*_test.go' . | sed 's/^func //' | sort)
listed=$(echo "$targets" | awk 'NF { print $2 }' | sort)
if [ "$found" != "$listed" ]; then
  echo "scripts/fuzz.sh does not list every fuzz target:" >&2
  diff <(echo "$listed") <(echo "$found") >&2 || true
  exit 1
fi

echo "$targets" | while read -r pkg target; do
  [ -n "$pkg" ] || continue
  echo "fuzz $pkg $target ($time)"
  # -parallel 2: the CI machine is small; the corpus in testdata/fuzz runs first.
  go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$time" -parallel 2
done
