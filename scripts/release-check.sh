#!/usr/bin/env bash
# Keeps the release configuration from rotting, within CI's time: `goreleaser check` on
# .goreleaser.yaml, then a snapshot release of one target (linux/amd64) through the whole
# pipeline (build with the release flags, archive, checksums, SBOM), and checks of what came
# out: the archive's files, the checksums, the SBOM, the version stamped into the binary.
# The six-target snapshot (`make snapshot`) is the same with more builds; it is left to the
# release workflow because each extra target recompiles every dependency.
#
# GoReleaser (pinned) and cyclonedx-gomod are installed into $KPL_TOOLS_CACHE/bin like the
# tools of scripts/integration.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE=${KPL_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kube-proxy-lint-ci}
BIN=$CACHE/bin
mkdir -p "$BIN"
export PATH="$BIN:$PATH"
GORELEASER_VERSION=v2.15.1
CYCLONEDX_VERSION=v1.10.0

go_install() { GOFLAGS='' GOBIN="$BIN" go install "$@"; }
if ! goreleaser --version 2>/dev/null | grep -q "GitVersion: *$GORELEASER_VERSION\$"; then
  go_install "github.com/goreleaser/goreleaser/v2@$GORELEASER_VERSION"
fi
if ! [ -x "$BIN/cyclonedx-gomod" ] || ! [ -f "$BIN/.cyclonedx-gomod-$CYCLONEDX_VERSION" ]; then
  go_install "github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod@$CYCLONEDX_VERSION"
  touch "$BIN/.cyclonedx-gomod-$CYCLONEDX_VERSION"
fi

echo "==> goreleaser check"
# A deprecation is a failure too: the configuration must not rot until a GoReleaser upgrade
# breaks it.
check=$(goreleaser check 2>&1) || { printf '%s\n' "$check"; exit 1; }
printf '%s\n' "$check"
if printf '%s\n' "$check" | grep -qi deprecat; then
  echo "release-check: .goreleaser.yaml uses deprecated settings" >&2
  exit 1
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kpl-release.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# The release runs in a copy of the tree (with uncommitted changes, committed there), so that
# dist/ never lands in the work tree and GoReleaser finds what a clone of the repository has: a
# commit and a remote.
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=kpl-ci GIT_AUTHOR_EMAIL=ci@example.invalid
export GIT_COMMITTER_NAME=kpl-ci GIT_COMMITTER_EMAIL=ci@example.invalid
src=$WORK/src
mkdir -p "$src"
git ls-files -z --cached --others --exclude-standard |
  tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -C "$src" -xf -
git -C "$src" init -q -b main
git -C "$src" add -A
git -C "$src" commit -q -m snapshot
git -C "$src" remote add origin https://github.com/kube-proxy-lint/kube-proxy-lint.git
cd "$src"
# One target: the same configuration with the build matrix cut to linux/amd64 and without
# the container image (no Docker daemon here).
sed -e 's/^    goos: \[linux, darwin, windows\]$/    goos: [linux]/' \
  -e 's/^    goarch: \[amd64, arm64\]$/    goarch: [amd64]/' .goreleaser.yaml >"$WORK/goreleaser.yaml"
if cmp -s .goreleaser.yaml "$WORK/goreleaser.yaml"; then
  echo "release-check: could not cut the build matrix of .goreleaser.yaml to one target" >&2
  exit 1
fi
# Snapshot versions count from the last tag; the copy has none.
export GORELEASER_CURRENT_TAG=${GORELEASER_CURRENT_TAG:-$(git -C "$OLDPWD" describe --tags --abbrev=0 2>/dev/null || echo v0.0.0)}
echo "==> goreleaser release --snapshot (linux/amd64)"
start=$(date +%s)
goreleaser release --snapshot --clean --skip=docker --config "$WORK/goreleaser.yaml"
echo "snapshot release took $(($(date +%s) - start)) s"

fail() {
  echo "release-check: $*" >&2
  exit 1
}
cd dist
sums=$(ls kube-proxy-lint_*_checksums.txt) || fail "no checksums file"
archive=$(ls kube-proxy-lint_*_linux_amd64.tar.gz) || fail "no linux/amd64 archive"
sha256sum -c "$sums" || fail "checksums do not verify"
grep -q " $archive\$" "$sums" || fail "$archive is not in $sums"
listing=$(tar -tzf "$archive")
for f in kube-proxy-lint kube-proxy-lint-helm LICENSE README.md CHANGELOG.md man/kube-proxy-lint.1 \
  completions/kube-proxy-lint.bash completions/kube-proxy-lint.zsh completions/kube-proxy-lint.fish; do
  printf '%s\n' "$listing" | grep -qx "$f" || fail "$archive lacks $f"
done
sbom=$(ls kube-proxy-lint_*_linux_amd64.cdx.json) || fail "no SBOM"
node -e '
  const s = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const names = (s.components || []).map(c => c.name);
  if (s.bomFormat !== "CycloneDX" || !names.includes("github.com/open-policy-agent/opa") ||
      !String((s.metadata && s.metadata.component && s.metadata.component.name) || "").includes("kube-proxy-lint")) {
    console.error("SBOM: " + JSON.stringify({format: s.bomFormat, component: s.metadata && s.metadata.component, components: names.length}));
    process.exit(1);
  }' "$sbom" || fail "$sbom is not a CycloneDX SBOM of kube-proxy-lint and its modules"
mkdir x && tar -xzf "$archive" -C x
version=$(x/kube-proxy-lint version --format json)
printf '%s\n' "$version"
printf '%s\n' "$version" | grep -q '"version": "[0-9][^"]*-next+' || fail "the snapshot version is not stamped into the binary"
printf '%s\n' "$version" | grep -q "\"commit\": \"$(git rev-parse HEAD)\"" || fail "the commit is not stamped into the binary"
# The renderer answers as a renderer, and the CLI finds it beside itself: a chart renders.
{ x/kube-proxy-lint-helm 2>&1 || true; } | grep -q 'renders Helm charts for kube-proxy-lint' || fail "the archive's kube-proxy-lint-helm is not the renderer"
out=$(cd "$OLDPWD" && PATH= dist/x/kube-proxy-lint --target-version 1.40 --color never fixtures/rules/KP102/helm-charts/kube-proxy 2>&1) && rc=0 || rc=$?
printf '%s\n' "$out" | grep -q 'kube-proxy/values.yaml:4:9: error: kube-proxy mode ipvs' || fail "the archive's binaries do not render a chart (exit $rc): $out"
rm -rf x
cd ..

# The Action's download step, run on this snapshot as if it were the release: it installs the
# verified binary, refuses a tampered archive, and leaves a version without a release to the
# source build.
echo "==> the Action's download step"
v=${archive#kube-proxy-lint_}
v=${v%_linux_amd64.tar.gz}
/usr/bin/python3 - "$WORK/download.sh" <<'PY'
import sys, yaml
action = yaml.safe_load(open("action.yml"))
step = next(s for s in action["runs"]["steps"] if s.get("id") == "download")
open(sys.argv[1], "w").write(step["run"])
PY
release=$WORK/releases/download/v$v
mkdir -p "$release"
cp "dist/$archive" "dist/$sums" "$release/"
download() { # download VERSION: run the step; prints its outputs
  local out=$WORK/out.$1
  : >"$out"
  : >"$WORK/path"
  (cd "$WORK" && RUNNER_OS=Linux RUNNER_ARCH=X64 RUNNER_TEMP=$WORK/tmp GITHUB_OUTPUT=$out GITHUB_PATH=$WORK/path \
    KPL_VERSION=$1 KPL_CHECKSUM=${2:-} KPL_REPO=file://$WORK bash -e "$WORK/download.sh") >"$WORK/log.$1" 2>&1 || return 1
  cat "$out"
}
mkdir -p "$WORK/tmp"
out=$(download "v$v") || { cat "$WORK/log.v$v"; fail "the Action's download step fails on a good release"; }
if [ "$out" != installed=true ] || [ ! -x "$(cat "$WORK/path")/kube-proxy-lint" ] || [ ! -x "$(cat "$WORK/path")/kube-proxy-lint-helm" ]; then
  fail "the Action's download step did not install the binaries: $out"
fi
"$(cat "$WORK/path")/kube-proxy-lint" version | grep -q "kube-proxy-lint $v " || fail "the Action installed another binary"
download "v$v" 0000 >/dev/null && fail "the Action's download step accepts an archive that does not match the checksum input"
out=$(download v9.9.9) || fail "the Action's download step fails on a version without a release"
[ "$out" = installed=false ] || fail "a version without a release is not left to the source build: $out"
out=$(download main) || fail "the Action's download step fails on a branch"
[ "$out" = installed=false ] || fail "a branch is not left to the source build: $out"
printf 'tampered' >>"$release/$archive"
download "v$v" >/dev/null && fail "the Action's download step accepts a tampered archive"
grep -q "::error::" "$WORK/log.v$v" || fail "a tampered archive gives no error annotation"

# The Action's source build of its own version, as when that version has no release yet: it
# builds the source that came with the action (GITHUB_ACTION_PATH) and stamps the version.
echo "==> the Action's source build of its own version"
/usr/bin/python3 - "$WORK/source.sh" <<'PY'
import sys, yaml
action = yaml.safe_load(open("action.yml"))
step = next(s for s in action["runs"]["steps"] if s.get("name") == "Build kube-proxy-lint from source")
open(sys.argv[1], "w").write(step["run"])
PY
: >"$WORK/path"
(cd "$WORK" && RUNNER_TEMP=$WORK/tmp GITHUB_PATH=$WORK/path GITHUB_ACTION_PATH=$src \
  KPL_VERSION='' KPL_OWN_VERSION=v0.0.0-check bash -e "$WORK/source.sh") >"$WORK/log.source" 2>&1 ||
  { cat "$WORK/log.source"; fail "the Action's source build of its own version fails"; }
"$(cat "$WORK/path")/kube-proxy-lint" version | grep -q "kube-proxy-lint v0.0.0-check-source " ||
  fail "the Action's source build did not install its own version: $("$(cat "$WORK/path")/kube-proxy-lint" version)"
[ -x "$(cat "$WORK/path")/kube-proxy-lint-helm" ] || fail "the Action's source build did not install the Helm renderer"
echo "release-check: OK ($archive, $sbom, $sums; the Action's download step and its source build verified)"
