#!/usr/bin/env bash
# kube-proxy-lint beside its peers on the same trees: kubeconform (decoding only, no
# schemas: the floor of reading and parsing the YAML), kube-linter (default checks) and
# conftest (five Rego policies). Whole-process wall time and peak RSS, medians; the table
# ends with kube-proxy-lint's ratios to kubeconform and kube-linter. docs/performance.md
# explains the method.
#
#   scripts/bench-peers.sh [SIZE...]       sizes in files; default: 1 1000 20000
#
# Size 1 is one kube-proxy ConfigMap (start-up), timed with hyperfine; larger sizes are trees
# of the shared corpus generator (../shared/bench/gen-corpus, seed 1), timed with GNU time,
# the tools taking turns run after run so that a noisy machine slows them alike.
#
# Environment:
#   RUNS=5               timed runs per tool on a tree (the 1-file case takes 30 with hyperfine)
#   WARMUP=1             untimed runs per tool on a tree first (they fill the file cache)
#   KPL_BENCH_CACHE=DIR  where generated trees are kept (the corpus benchmarks use the same)
#   KPL=PATH             the kube-proxy-lint binary (default: built from this checkout)
#   KUBE_LINTER=PATH     a kube-linter binary: its module path (golang.stackrox.io) is not
#                        served by every Go module proxy; without one its column is n/a
#   BENCH_OUT=FILE       also write the table there
#
# Needs go, hyperfine (Debian package) and GNU time (/usr/bin/time, Debian package time).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

# Peers, pinned; installed once into .cache/peers.
KUBECONFORM_VERSION=v0.8.0
CONFTEST_VERSION=v0.71.1
KUBE_LINTER_VERSION=v0.8.3

runs=${RUNS:-5}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1 1000 20000)
gen=$root/../shared/bench/gen-corpus
cache=${KPL_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kube-proxy-lint/bench-corpus}
peers=$root/.cache/peers

die() { echo "bench-peers: $*" >&2; exit 2; }
command -v hyperfine >/dev/null || die "hyperfine is missing (apt-get install hyperfine)"
/usr/bin/time -f %M -o /dev/null true 2>/dev/null || die "GNU time is missing (apt-get install time)"
[ -f "$gen/main.go" ] || die "no shared corpus generator at $gen"

mkdir -p "$peers" "$cache"
install() { # install NAME MODULE/PATH@VERSION
  [ -x "$peers/$1" ] || GOFLAGS= GOBIN=$peers go install "$2" >&2 || return 1
}
install kubeconform github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION || die "cannot install kubeconform"
install conftest github.com/open-policy-agent/conftest@$CONFTEST_VERSION || die "cannot install conftest"
kube_linter=${KUBE_LINTER:-}
if [ -z "$kube_linter" ]; then
  if install kube-linter golang.stackrox.io/kube-linter/cmd/kube-linter@$KUBE_LINTER_VERSION 2>/dev/null; then
    kube_linter=$peers/kube-linter
  else
    echo "bench-peers: kube-linter $KUBE_LINTER_VERSION cannot be installed here; set KUBE_LINTER to a binary (its column is n/a)" >&2
  fi
fi
kpl=${KPL:-}
if [ -z "$kpl" ]; then
  kpl=$peers/kube-proxy-lint
  go build -trimpath -o "$kpl" ./cmd/kube-proxy-lint
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The one-file case: the benchmark's start-up file (internal/corpus/bench_test.go).
cat > "$work/kube-proxy.yaml" <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata:
  name: kube-proxy
  namespace: kube-system
data:
  config.conf: |
    apiVersion: kubeproxy.config.k8s.io/v1alpha1
    kind: KubeProxyConfiguration
    mode: iptables
    clusterCIDR: 10.244.0.0/16
YAML

# Five conftest policies: a share of what kube-proxy-lint checks, in conftest's terms.
mkdir "$work/policy"
cat > "$work/policy/kube_proxy.rego" <<'REGO'
package main

import rego.v1

config := yaml.unmarshal(input.data["config.conf"]) if {
	input.kind == "ConfigMap"
	input.metadata.name == "kube-proxy"
}

deny contains "kube-proxy mode is unset" if {
	not config.mode
}

deny contains "kube-proxy mode ipvs is deprecated" if {
	config.mode == "ipvs"
}

deny contains msg if {
	input.kind == "Service"
	input.spec.type == "NodePort"
	msg := sprintf("Service %s opens node ports", [input.metadata.name])
}

deny contains msg if {
	input.spec.template.spec.hostNetwork
	some c in input.spec.template.spec.containers
	some e in c.env
	contains(e.value, "127.0.0.1:3")
	msg := sprintf("%s: hostNetwork container %s talks to a node port on loopback", [input.metadata.name, c.name])
}

deny contains msg if {
	input.kind == "DaemonSet"
	some c in input.spec.template.spec.containers
	some a in array.concat(object.get(c, "command", []), object.get(c, "args", []))
	startswith(a, "--proxy-mode")
	some b in array.concat(object.get(c, "command", []), object.get(c, "args", []))
	startswith(b, "--config")
	msg := sprintf("%s: --proxy-mode is ignored with --config", [input.metadata.name])
}
REGO

tree() { # tree N: the shared corpus of N files, generated once (BenchmarkCorpus's naming)
  local sum dir
  sum=$(sha256sum "$gen/main.go" | cut -c1-12)
  dir=$cache/shared-$sum-seed1-n$1
  if [ ! -d "$dir" ]; then
    (cd "$gen" && GOFLAGS= GOWORK=off go run . -n "$1" -seed 1 -out "$dir.tmp" -force) >&2
    mv "$dir.tmp" "$dir"
  fi
  echo "$dir"
}

tools=(kube-proxy-lint kubeconform kube-linter conftest)
cmdline() { # cmdline TOOL PATH: the command, one word per line
  case $1 in
  kube-proxy-lint) printf '%s\n' "$kpl" --no-config --format json --output /dev/null "$2" ;;
  kubeconform) printf '%s\n' "$peers/kubeconform" -schema-location /nonexistent/ -ignore-missing-schemas -skip CustomResourceDefinition -summary "$2" ;;
  kube-linter) printf '%s\n' "$kube_linter" lint --format json "$2" ;;
  conftest) printf '%s\n' "$peers/conftest" test --no-color --output json --policy "$work/policy" "$2" ;;
  esac
}
available() { [ "$1" != kube-linter ] || [ -n "$kube_linter" ]; }

median() { sort -g | awk '{v[NR]=$1} END{if (NR==0) exit; print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

# measure TOOL PATH: "SECONDS KIB", medians; PATH is a tree (GNU time, $runs runs, in turns
# with the other tools: see below) or the file (hyperfine for the time, GNU time for RSS).
declare -A secs kib
time_run() { # time_run TOOL PATH: one run under GNU time, appended to $work/TOOL.tsv
  local -a cmd
  mapfile -t cmd < <(cmdline "$1" "$2")
  /usr/bin/time -f '%e %M' -o "$work/one" "${cmd[@]}" >/dev/null 2>&1 || true
  tail -1 "$work/one" >> "$work/$1.tsv"
}

table_cell() { # table_cell SECONDS KIB
  awk -v s="$1" -v k="$2" 'BEGIN{
    t = (s < 1) ? sprintf("%.0f ms", s*1000) : sprintf("%.2f s", s)
    printf "%s, %.0f MiB", t, k/1024 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b > 0) printf "%.2f×", a/b; else printf "n/a" }'; }

rows=()
for n in "${sizes[@]}"; do
  rm -f "$work"/*.tsv
  if [ "$n" = 1 ]; then
    path=$work/kube-proxy.yaml
    label="1 file (start-up)"
    hf=()
    for t in "${tools[@]}"; do
      available "$t" || continue
      hf+=(-n "$t" "$(cmdline "$t" "$path" | tr '\n' ' ')")
      for _ in 1 2 3; do time_run "$t" "$path"; done
    done
    hyperfine -N --warmup 5 --runs 30 --ignore-failure --export-csv "$work/hf.csv" "${hf[@]}" >/dev/null
    for t in "${tools[@]}"; do
      available "$t" || continue
      secs[$t]=$(awk -F, -v t="$t" '$1 == t {print $4}' "$work/hf.csv")
      kib[$t]=$(awk '{print $2}' "$work/$t.tsv" | median)
    done
  else
    path=$(tree "$n")
    label="$(echo "$n" | sed -E ':a; s/([0-9])([0-9]{3})($|,)/\1,\2\3/; ta') files"
    for _ in $(seq "${WARMUP:-1}"); do # fill the file cache
      for t in "${tools[@]}"; do available "$t" && time_run "$t" "$path"; done
    done
    rm -f "$work"/*.tsv
    for _ in $(seq "$runs"); do
      for t in "${tools[@]}"; do available "$t" && time_run "$t" "$path"; done
    done
    for t in "${tools[@]}"; do
      available "$t" || continue
      secs[$t]=$(awk '{print $1}' "$work/$t.tsv" | median)
      kib[$t]=$(awk '{print $2}' "$work/$t.tsv" | median)
    done
  fi
  row="| $label"
  for t in "${tools[@]}"; do
    if available "$t"; then row+=" | $(table_cell "${secs[$t]}" "${kib[$t]}")"; else row+=" | n/a"; fi
  done
  for p in kubeconform kube-linter; do
    if available "$p"; then
      row+=" | $(ratio "${secs[kube-proxy-lint]}" "${secs[$p]}") time, $(ratio "${kib[kube-proxy-lint]}" "${kib[$p]}") RSS"
    else
      row+=" | n/a"
    fi
  done
  rows+=("$row |")
  echo "bench-peers: $label done" >&2
done

{
  echo "$(date -u +%Y-%m-%d), $(nproc) cores ($(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || uname -m)), load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown) at the end;"
  echo "$("$kpl" version 2>/dev/null | head -1 || echo 'kube-proxy-lint ?'), kubeconform $KUBECONFORM_VERSION, kube-linter $([ -n "$kube_linter" ] && "$kube_linter" version 2>/dev/null || echo n/a), conftest $CONFTEST_VERSION;"
  echo "whole-process wall time and peak RSS, medians ($runs timed run(s) per tree, 30 for one file); trees of gen-corpus -seed 1."
  echo
  echo "| case | kube-proxy-lint | kubeconform (decode only, no schemas) | kube-linter | conftest (5 policies) | kube-proxy-lint / kubeconform | kube-proxy-lint / kube-linter |"
  echo "|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
} | tee "${BENCH_OUT:-/dev/null}"
