#!/usr/bin/env bash
# Corpus benchmark against peers: kube-proxy-lint, conftest (OPA policies over the same YAML)
# and kubeconform (parsing and schema-less validation) on one generated tree, timed with
# hyperfine in one run so the ratios are comparable on a shared, noisy machine.
#
#   scripts/bench-peers.sh [FILES]      (default 20000)
#
# Needs hyperfine (Debian package); installs the peers with `go install` into .cache/peers.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-20000}
bin=$PWD/.cache/peers
mkdir -p "$bin"
[ -x "$bin/conftest" ] || GOBIN=$bin go install github.com/open-policy-agent/conftest@latest
[ -x "$bin/kubeconform" ] || GOBIN=$bin go install github.com/yannh/kubeconform/cmd/kubeconform@latest
go build -o "$bin/kube-proxy-lint" ./cmd/kube-proxy-lint
tree=$(mktemp -d)
policy=$(mktemp -d)
trap 'rm -rf "$tree" "$policy"' EXIT
go run -tags kpltools ./internal/corpus/gen -n "$n" "$tree" >/dev/null
# A conftest policy doing a small part of KP102's job, to compare the cost of the Rego path.
cat > "$policy/kube_proxy.rego" <<'REGO'
package main

import rego.v1

deny contains msg if {
	input.kind == "ConfigMap"
	contains(input.data["config.conf"], "mode: \"ipvs\"")
	msg := "kube-proxy mode ipvs"
}
REGO
hyperfine --warmup 1 --runs 5 --ignore-failure --export-markdown "${BENCH_OUT:-/dev/stdout}" \
  -n kube-proxy-lint "$bin/kube-proxy-lint --format json --output /dev/null $tree" \
  -n conftest "$bin/conftest test --policy $policy --no-color --output json $tree > /dev/null" \
  -n kubeconform "$bin/kubeconform -skip CustomResourceDefinition -schema-location /nonexistent -ignore-missing-schemas -summary $tree > /dev/null"
