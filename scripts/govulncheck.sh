#!/usr/bin/env bash
# govulncheck ./... for CI (.ci/run) and the release workflow: known vulnerabilities in the code
# and the dependencies it calls, with the standard library of the Go release that builds the
# release binaries (.go-version; the release workflow's actions/setup-go reads the same file).
# The verdict is scripts/vulngate's: a called vulnerability fails, in a required module or in
# that standard library alike.
#
# The machine's own Go may be older than the release's (CI's is not this project's to choose):
# the script then runs govulncheck with GOTOOLCHAIN=go$(cat .go-version), which the go command
# fetches from the module proxy once (about 76 MB). KPL_VULN_GO=local checks the machine's own
# Go instead, with the standard library's findings as warnings (what a `go install` with that
# Go would ship).
#
# The database is vuln.go.dev. Where that is out of reach (machines that only reach the Go
# module proxy), the same database is built from golang.org/x/vulndb, fetched through the
# module proxy, with its own indexdb command, and cached in $KPL_TOOLS_CACHE.
set -euo pipefail
cd "$(dirname "$0")/.."

GOVULNCHECK_VERSION=v1.9.0
CACHE=${KPL_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kube-proxy-lint-ci}
mkdir -p "$CACHE"
gopath=$(go env GOPATH)
export PATH="$gopath/bin:$PATH"

if ! govulncheck -version 2>/dev/null | grep -q "govulncheck@$GOVULNCHECK_VERSION"; then
  go install "golang.org/x/vuln/cmd/govulncheck@$GOVULNCHECK_VERSION"
fi

release_go=go$(tr -d '[:space:]' <.go-version)
gate=(-stdlib=fail)
if [ "${KPL_VULN_GO:-release}" = local ]; then
  gate=(-stdlib=warn)
else
  export GOTOOLCHAIN=$release_go
  # The go command switches to the release's Go here (downloading it once) and must say so.
  if [ "$(go env GOVERSION)" != "$release_go" ]; then
    echo "govulncheck: GOTOOLCHAIN=$release_go runs $(go env GOVERSION)" >&2
    exit 1
  fi
fi

out=$(mktemp)
errs=$(mktemp)
trap 'rm -f "$out" "$errs"' EXIT

if ! govulncheck -format json ./... >"$out" 2>"$errs"; then
  if ! grep -q "fetching vulnerabilities" "$errs"; then
    cat "$errs" >&2
    exit 1
  fi
  echo "govulncheck: vuln.go.dev is out of reach; building the database from golang.org/x/vulndb via the module proxy"
  ver=$(go list -m -f '{{.Version}}' golang.org/x/vulndb@latest)
  db="$CACHE/vulndb-$ver"
  if [ ! -f "$db/index/db.json" ]; then
    src=$(go mod download -json "golang.org/x/vulndb@$ver" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
    rm -rf "$db.tmp"
    go run "golang.org/x/vulndb/cmd/indexdb@$ver" -vulns "$src/data/osv" -out "$db.tmp"
    mv "$db.tmp" "$db"
  fi
  govulncheck -db "file://$db" -format json ./... >"$out"
fi
go run -tags kpltools ./scripts/vulngate "${gate[@]}" <"$out"
