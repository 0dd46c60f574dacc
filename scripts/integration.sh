#!/usr/bin/env bash
# Integration tests of kube-proxy-lint with the real tools of its three homes:
#
#   pre-commit   .pre-commit-hooks.yaml, in a temporary consumer repository: the golang hook
#                (built by pre-commit from a temporary commit of this tree) and the system hook;
#                a bad commit is blocked, the fixed commit accepted, old findings in files that
#                are not staged do not block; the fixing hooks fix the staged files only and stop
#                the commit for review.
#   reviewdog    -f=rdjson -reporter=local -diff="git diff": only the added line's finding.
#   actionlint   action.yml and docs/examples/workflow.yml (the workflow uses the action
#                locally, so actionlint checks its inputs against action.yml); shellcheck on the
#                composite action's scripts.
#   SARIF        Microsoft's SARIF Multitool validates the example repository's SARIF with the
#                SARIF and GitHub rule kinds; any error fails (the tool itself exits 0).
#   HTML report  the readiness report of fixtures/repos/migration in Debian's headless chromium
#                (driven by playwright-core from npm; no browser download): no console error, no
#                request, every scope shown, filters work; and html-validate (npm). Both must
#                reject a broken page.
#   JUnit        xmllint validates the junit output against fixtures/report/junit.xsd, and
#                junit2json (npm), a real consumer, reads one failed test case per finding.
#
# Tools are installed on first use and cached in $KPL_TOOLS_CACHE (default
# ~/.cache/kube-proxy-lint-ci). A tool that cannot be installed is a failure. Only when
# KPL_INTEGRATION_ALLOW_SKIP=1 and CI is unset (a laptop without network) is such a check
# skipped, with a SKIP line in the log and in the summary.
#
# Arguments name the sections to run (sarif, html, junit, actionlint, shellcheck, reviewdog,
# pre-commit); none runs them all.
set -euo pipefail
cd "$(dirname "$0")/.."
ONLY=" $* "
# want SECTION: whether the command line selects SECTION.
want() { [ "$ONLY" = "  " ] || [[ $ONLY == *" $1 "* ]]; }


CACHE=${KPL_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kube-proxy-lint-ci}
BIN=$CACHE/bin
mkdir -p "$BIN"
export PATH="$BIN:$PATH"
ALLOW_SKIP=0
if [ "${KPL_INTEGRATION_ALLOW_SKIP:-0}" = 1 ] && [ -z "${CI:-}" ]; then
  ALLOW_SKIP=1
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kpl-integration.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# Git in the temporary repositories must not depend on the user's configuration.
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=kpl-ci GIT_AUTHOR_EMAIL=ci@example.invalid
export GIT_COMMITTER_NAME=kpl-ci GIT_COMMITTER_EMAIL=ci@example.invalid

passed=0
failed=0
skipped=0
log() { printf '==> %s\n' "$*"; }
ok() {
  printf 'PASS: %s\n' "$*"
  passed=$((passed + 1))
}
bad() {
  printf 'FAIL: %s\n' "$*" >&2
  failed=$((failed + 1))
}
# unavailable NAME: a tool could not be installed: a failure, or a logged skip when allowed.
unavailable() {
  if [ "$ALLOW_SKIP" = 1 ]; then
    printf 'SKIP: %s: the tool could not be installed (KPL_INTEGRATION_ALLOW_SKIP=1)\n' "$1"
    skipped=$((skipped + 1))
  else
    bad "$1: the tool could not be installed"
  fi
}

apt_install() {
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get install -y -qq "$@" >/dev/null 2>&1 ||
    { $sudo apt-get update -qq >/dev/null 2>&1 && $sudo apt-get install -y -qq "$@" >/dev/null 2>&1; }
}

# Go tools are installed outside this module: its GOFLAGS (-mod=readonly) do not apply.
go_install() { GOFLAGS='' GOBIN="$BIN" go install "$@"; }

install_pre_commit() { command -v pre-commit >/dev/null || apt_install pre-commit; }
install_shellcheck() { command -v shellcheck >/dev/null || apt_install shellcheck; }
install_reviewdog() {
  [ -x "$BIN/reviewdog" ] && [ -f "$BIN/.reviewdog-v0.20.3" ] && return 0
  # golang.org/x/build, a dependency, is not in the checksum database at that version.
  GONOSUMDB=golang.org/x/build go_install github.com/reviewdog/reviewdog/cmd/reviewdog@v0.20.3 &&
    touch "$BIN/.reviewdog-v0.20.3"
}
install_actionlint() {
  [ -x "$BIN/actionlint" ] && "$BIN/actionlint" -version | grep -qx 'v1.7.12' && return 0
  go_install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12
}
MULTITOOL=$CACHE/npm/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool
install_multitool() {
  if [ ! -f "$MULTITOOL" ]; then
    mkdir -p "$CACHE/npm"
    npm install --prefix "$CACHE/npm" --no-audit --no-fund --loglevel=error @microsoft/sarif-multitool@5.7.0 >/dev/null || return 1
  fi
  # npm may not run the package's postinstall (chmod u+x); do it here.
  chmod u+x "$MULTITOOL"
}

install_chromium() { command -v chromium >/dev/null || apt_install chromium; }
REPORT_NPM=$CACHE/npm-report
install_report_tools() {
  [ -f "$REPORT_NPM/node_modules/html-validate/package.json" ] &&
    [ -f "$REPORT_NPM/node_modules/playwright-core/package.json" ] && return 0
  mkdir -p "$REPORT_NPM"
  # playwright-core is the driver only: it downloads no browser.
  npm install --prefix "$REPORT_NPM" --no-audit --no-fund --loglevel=error \
    html-validate@9.7.1 playwright-core@1.65.1 >/dev/null
}
install_xmllint() { command -v xmllint >/dev/null || apt_install libxml2-utils; }
JUNIT2JSON=$CACHE/npm/node_modules/.bin/junit2json
install_junit2json() {
  [ -x "$JUNIT2JSON" ] && return 0
  mkdir -p "$CACHE/npm"
  npm install --prefix "$CACHE/npm" --no-audit --no-fund --loglevel=error junit2json@4.0.0 >/dev/null
}

log "build kube-proxy-lint"
mkdir -p "$WORK/bin"
go build -ldflags "-X main.version=0.0.0-integration" -o "$WORK/bin/kube-proxy-lint" ./cmd/kube-proxy-lint
export PATH="$WORK/bin:$PATH"

# ---------------------------------------------------------------------------------------------
# SARIF Multitool
want sarif && log "SARIF Multitool validate (rule kinds Sarif;Gh)"
if ! want sarif; then
  :
elif install_multitool; then
  sarif=$WORK/example.sarif
  rc=0
  kube-proxy-lint --quiet --format sarif="$sarif" fixtures/repos/kubeadm-ipvs >/dev/null || rc=$?
  if [ "$rc" != 1 ]; then
    bad "SARIF of the example repository: kube-proxy-lint exited $rc, want 1"
  else
    # count_errors LOG: the number of error results and error notifications in a validation log.
    count_errors() {
      node -e '
        const log = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
        let n = 0;
        for (const run of log.runs || []) {
          for (const r of run.results || []) {
            if (r.level === "error") { n++; console.error("  " + r.ruleId + ": " + JSON.stringify(r.message)); }
          }
          for (const inv of run.invocations || []) {
            for (const x of [...(inv.toolExecutionNotifications || []), ...(inv.toolConfigurationNotifications || [])]) {
              if (x.level === "error") { n++; console.error("  notification: " + JSON.stringify(x.message)); }
            }
          }
        }
        console.log(n);' "$1"
    }
    validate() { rm -f "$2" && "$MULTITOOL" validate --rule-kind "Sarif;Gh" --output "$2" "$1" >"$2.out" 2>&1; }
    if ! validate "$sarif" "$WORK/validation.sarif" || [ ! -s "$WORK/validation.sarif" ]; then
      cat "$WORK/validation.sarif.out"
      bad "SARIF Multitool did not write a validation log"
    else
      grep -E ': (error|warning) ' "$WORK/validation.sarif.out" || true
      errors=$(count_errors "$WORK/validation.sarif")
      if [ "$errors" = 0 ]; then
        ok "SARIF Multitool: no error on the example repository's SARIF"
      else
        bad "SARIF Multitool: $errors errors"
      fi
      # The check must be able to fail: a result without locations breaks GitHub's rules.
      node -e '
        const fs = require("fs");
        const log = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
        delete log.runs[0].results[0].locations;
        fs.writeFileSync(process.argv[2], JSON.stringify(log));' "$sarif" "$WORK/broken.sarif"
      validate "$WORK/broken.sarif" "$WORK/broken-validation.sarif" || true
      if [ "$(count_errors "$WORK/broken-validation.sarif" 2>/dev/null)" -gt 0 ]; then
        ok "SARIF Multitool: a result without locations is reported as an error (the check works)"
      else
        bad "SARIF Multitool: a broken log was not reported"
      fi
    fi
  fi
else
  unavailable "SARIF Multitool"
fi

# ---------------------------------------------------------------------------------------------
# The HTML readiness report in a real browser, and an HTML validator
want html && log "HTML readiness report: headless chromium and html-validate"
if ! want html; then
  :
elif install_chromium && install_report_tools; then
  page=$WORK/readiness.html
  kube-proxy-lint report --quiet --format report-html="$page" fixtures/repos/migration
  scopes=(fixtures/repos/migration/clusters/{edge,legacy,payments,platform})
  check_page() { KPL_NODE_MODULES=$REPORT_NPM/node_modules KPL_CHROMIUM=$(command -v chromium) node scripts/check-report-html.mjs "$@"; }
  if check_page "$page" "${scopes[@]}"; then
    ok "chromium: the report loads without console errors or requests, shows every scope, filters work"
  else
    bad "chromium: the HTML report"
  fi
  # The check must be able to fail: a style the CSP does not name is a console error.
  sed 's/^body{margin:0/body{margin:1px/' "$page" >"$WORK/tampered.html"
  if check_page "$WORK/tampered.html" "${scopes[@]}" >/dev/null 2>&1; then
    bad "chromium: a style outside the CSP went unnoticed"
  else
    ok "chromium: a style outside the CSP is caught (the check works)"
  fi
  printf '{"extends": ["html-validate:recommended"]}\n' >"$WORK/htmlvalidate.json"
  validate_html() { "$REPORT_NPM/node_modules/.bin/html-validate" -c "$WORK/htmlvalidate.json" "$1"; }
  if validate_html "$page"; then
    ok "html-validate: the report is valid HTML"
  else
    bad "html-validate: the report"
  fi
  sed 's#</table>#</tabel>#' "$page" >"$WORK/invalid.html"
  if validate_html "$WORK/invalid.html" >/dev/null 2>&1; then
    bad "html-validate accepted a broken page"
  else
    ok "html-validate rejects a broken page (the check works)"
  fi
else
  unavailable "chromium or the npm tools of the HTML report check"
fi

# ---------------------------------------------------------------------------------------------
# JUnit XML: the schema (xmllint) and a real consumer (junit2json)
want junit && log "JUnit XML: xmllint against fixtures/report/junit.xsd, read by junit2json"
if ! want junit; then
  :
elif install_xmllint && install_junit2json; then
  junit=$WORK/junit.xml
  kube-proxy-lint --quiet --fail-on none --format junit="$junit" --format json="$WORK/junit-run.json" fixtures/repos/kubeadm-ipvs
  if xmllint --noout --schema fixtures/report/junit.xsd "$junit" 2>"$WORK/xmllint.err"; then
    ok "JUnit: the output matches fixtures/report/junit.xsd"
  else
    cat "$WORK/xmllint.err"
    bad "JUnit: the output does not match fixtures/report/junit.xsd"
  fi
  # The check must be able to fail: a test case without its classname is invalid.
  sed 's/ classname="[^"]*"//' "$junit" >"$WORK/junit-broken.xml"
  if xmllint --noout --schema fixtures/report/junit.xsd "$WORK/junit-broken.xml" 2>/dev/null; then
    bad "JUnit: xmllint accepted a test case without classname"
  else
    ok "JUnit: xmllint rejects a broken report (the check works)"
  fi
  # The consumer reads as many failed test cases as there are findings.
  if "$JUNIT2JSON" "$junit" >"$WORK/junit2json.json" 2>"$WORK/junit2json.err" &&
    node -e '
      const fs = require("fs");
      const j = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
      const run = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
      let cases = 0, failed = 0;
      for (const s of j.testsuite || []) for (const c of s.testcase || []) { cases++; if (c.failure) failed++; }
      const want = run.findings.length;
      if (j.tests !== want || cases !== want || failed !== want) {
        console.error("junit2json read " + cases + " cases, " + failed + " failed, tests=" + j.tests + "; want " + want);
        process.exit(1);
      }' "$WORK/junit2json.json" "$WORK/junit-run.json"; then
    ok "JUnit: junit2json reads one failed test case per finding"
  else
    cat "$WORK/junit2json.err"
    bad "JUnit: junit2json does not read the report as expected"
  fi
else
  unavailable "xmllint or junit2json"
fi

# ---------------------------------------------------------------------------------------------
# actionlint and shellcheck
want actionlint && log "actionlint on action.yml and docs/examples/workflow.yml"
if ! want actionlint; then
  :
elif install_actionlint; then
  al=$WORK/actionlint
  mkdir -p "$al/.github/workflows"
  cp action.yml "$al/action.yml"
  # The example uses the published action; here it uses the local copy, so that actionlint
  # checks the inputs against action.yml.
  sed 's#kube-proxy-lint/kube-proxy-lint@main#./#' docs/examples/workflow.yml >"$al/.github/workflows/example.yml"
  # And this repository's own release workflow.
  cp .github/workflows/release.yml "$al/.github/workflows/release.yml"
  git -C "$al" init -q
  if (cd "$al" && actionlint -no-color); then
    ok "actionlint: example workflow, release workflow and action.yml"
  else
    bad "actionlint: example workflow, release workflow and action.yml"
  fi
  # And it must notice a wrong input.
  sed -i 's/^\( *\)fail-on: error$/&\n\1not-an-input: x/' "$al/.github/workflows/example.yml"
  grep -q 'not-an-input' "$al/.github/workflows/example.yml" || bad "could not add a wrong input to the example"
  if (cd "$al" && actionlint -no-color >/dev/null 2>&1); then
    bad "actionlint accepted an input that action.yml does not define"
  else
    ok "actionlint rejects an input that action.yml does not define (it reads action.yml)"
  fi
else
  unavailable "actionlint"
fi
want shellcheck && log "shellcheck on the composite action's scripts"
if ! want shellcheck; then
  :
elif install_shellcheck && install_pre_commit; then
  # PyYAML comes with Debian's pre-commit.
  if /usr/bin/python3 - "$WORK/steps" <<'EOF'
import os, sys, yaml
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
with open("action.yml") as f:
    action = yaml.safe_load(f)
for i, step in enumerate(action["runs"]["steps"]):
    if "run" in step:
        with open(os.path.join(out, "step%02d.sh" % i), "w") as s:
            s.write("#!/usr/bin/env bash\n" + step["run"])
EOF
  then
    if shellcheck -s bash "$WORK"/steps/*.sh; then
      ok "shellcheck: action.yml run scripts"
    else
      bad "shellcheck: action.yml run scripts"
    fi
  else
    bad "extract the run scripts of action.yml"
  fi
else
  unavailable "shellcheck"
fi

# ---------------------------------------------------------------------------------------------
# reviewdog
want reviewdog && log "reviewdog -f=rdjson -reporter=local -filter-mode=added"
if ! want reviewdog; then
  :
elif install_reviewdog; then
  rd=$WORK/reviewdog
  mkdir -p "$rd"
  git -C "$rd" init -q -b main
  cat >"$rd/kube-proxy.yaml" <<'EOF'
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: ipvs
EOF
  git -C "$rd" add -A && git -C "$rd" commit -q -m base
  # The old finding (mode ipvs) stays; the added line brings a new one.
  cat >>"$rd/kube-proxy.yaml" <<'EOF'
featureGates:
  NoSuchGate: true
EOF
  # Unfiltered, both findings are there: the old one (line 3) and the new one (line 5).
  total=$(cd "$rd" && kube-proxy-lint --quiet --fail-on none --format rdjsonl . | wc -l)
  if [ "$total" -lt 2 ]; then
    bad "reviewdog fixture: want at least two findings before filtering, got $total"
  fi
  out=$(cd "$rd" && kube-proxy-lint --quiet --fail-on none --format rdjson . |
    reviewdog -f=rdjson -name=kube-proxy-lint -reporter=local -filter-mode=added -diff="git diff HEAD" 2>&1) || true
  printf '%s\n' "$out" | sed 's/^/    /'
  # reporter=local prints each diagnostic in protobuf text form: "… path:\"x\" range:{start:{line:5 …".
  if [ "$(printf '%s\n' "$out" | grep -c 'code:{value:"KP')" = 1 ] &&
    printf '%s\n' "$out" | grep -q 'path:"kube-proxy.yaml" range:{start:{line:5 ' &&
    printf '%s\n' "$out" | grep -q 'value:"KP105"'; then
    ok "reviewdog reports the added line's finding only"
  else
    bad "reviewdog: want one diagnostic, KP105 at kube-proxy.yaml:5 (the added line)"
  fi
  # The same with --new-from-rev, without reviewdog.
  out=$(cd "$rd" && kube-proxy-lint --quiet --fail-on none --new-from-rev HEAD .)
  if printf '%s\n' "$out" | grep -q '^kube-proxy.yaml:5:' && ! printf '%s\n' "$out" | grep -q '^kube-proxy.yaml:3:'; then
    ok "--new-from-rev HEAD agrees with reviewdog"
  else
    printf '%s\n' "$out"
    bad "--new-from-rev HEAD: want the finding at line 5 only"
  fi
else
  unavailable "reviewdog"
fi

# ---------------------------------------------------------------------------------------------
# pre-commit
want pre-commit && log "pre-commit with .pre-commit-hooks.yaml"
if ! want pre-commit; then
  :
elif install_pre_commit; then
  # pre-commit clones hook repositories at a commit, so the current tree, with its uncommitted
  # changes, is committed to a temporary copy.
  hooks=$WORK/hook-repo
  mkdir -p "$hooks"
  git ls-files -z --cached --others --exclude-standard |
    tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -C "$hooks" -xf -
  git -C "$hooks" init -q -b main
  git -C "$hooks" add -A
  git -C "$hooks" commit -q -m snapshot
  hook_rev=$(git -C "$hooks" rev-parse HEAD)
  export PRE_COMMIT_HOME=$WORK/pre-commit-home
  # pre-commit's golang language sets GOPATH to its environment; keep the module cache shared.
  GOMODCACHE=$(go env GOMODCACHE)
  export GOMODCACHE

  # precommit_case HOOK_ID: a consumer repository with an old finding committed before the
  # hook; a clean file commits, a bad file is blocked, the fix commits.
  precommit_case() {
    local id=$1 c=$WORK/consumer-$1 out rc
    mkdir -p "$c/legacy" "$c/apps" "$c/kube-system"
    git -C "$c" init -q -b main
    cat >"$c/.pre-commit-config.yaml" <<EOF
repos:
  - repo: file://$hooks
    rev: $hook_rev
    hooks:
      - id: $id
        args: [--target-version, "1.40"]
EOF
    cat >"$c/legacy/old.yaml" <<'EOF'
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: ipvs
EOF
    git -C "$c" add -A
    git -C "$c" commit -q --no-verify -m "before the hook"
    (cd "$c" && pre-commit install >/dev/null)
    # Install the hook's environment now, timed: for the golang hook this is the go install
    # that a user waits for on the first commit.
    local t0 t1
    t0=$(date +%s)
    if (cd "$c" && pre-commit install-hooks >"$WORK/install-$id.log" 2>&1); then
      t1=$(date +%s)
      log "pre-commit $id: hook environment installed in $((t1 - t0)) s"
    else
      cat "$WORK/install-$id.log"
      bad "pre-commit $id: the hook environment does not install"
      return
    fi
    if [ "$id" = kube-proxy-lint ]; then
      # pre-commit's golang language runs `go install ./...`: only the CLI and its Helm
      # renderer may come out of it, side by side, so that the hook renders charts.
      local bins kpl out
      bins=$(find "$PRE_COMMIT_HOME" -path '*golangenv*/bin/*' \( -type f -o -type l \) -printf '%f\n' | sort | tr '\n' ' ')
      if [ "$bins" = "kube-proxy-lint kube-proxy-lint-helm " ]; then
        ok "pre-commit $id: the golang hook installs the CLI and its Helm renderer only"
      else
        bad "pre-commit $id: the golang hook installs [$bins], want kube-proxy-lint and kube-proxy-lint-helm"
      fi
      kpl=$(find "$PRE_COMMIT_HOME" -path '*golangenv*/bin/kube-proxy-lint' | head -n1)
      if out=$(PATH= "$kpl" --no-config --target-version 1.40 --color never fixtures/rules/KP102/helm-charts/kube-proxy 2>&1); then :; fi
      if printf '%s\n' "$out" | grep -q 'kube-proxy/values.yaml:4:9: error: kube-proxy mode ipvs'; then
        ok "pre-commit $id: the hook's kube-proxy-lint renders a chart with the renderer beside it"
      else
        printf '%s\n' "$out"
        bad "pre-commit $id: the hook's kube-proxy-lint does not render a chart"
      fi
    fi

    cat >"$c/apps/web.yaml" <<'EOF'
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  ports:
    - port: 80
EOF
    git -C "$c" add apps/web.yaml
    rc=0
    out=$(cd "$c" && git commit -q -m "clean file" 2>&1) || rc=$?
    if [ "$rc" = 0 ]; then
      ok "pre-commit $id: a clean commit passes despite old findings elsewhere"
    else
      printf '%s\n' "$out"
      bad "pre-commit $id: a clean commit was blocked (exit $rc)"
    fi

    cat >"$c/kube-system/kube-proxy.yaml" <<'EOF'
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: ipvs
EOF
    git -C "$c" add kube-system/kube-proxy.yaml
    rc=0
    out=$(cd "$c" && git commit -q -m "bad file" 2>&1) || rc=$?
    printf '%s\n' "$out" | sed 's/^/    /' | tail -15
    if [ "$rc" != 0 ] && printf '%s\n' "$out" | grep -q 'kube-system/kube-proxy.yaml:3:7: error' &&
      ! printf '%s\n' "$out" | grep -q 'legacy/old.yaml'; then
      ok "pre-commit $id: the bad commit is blocked, with the staged file's finding only"
    else
      bad "pre-commit $id: want the commit blocked with a KP102 error in kube-system/kube-proxy.yaml (exit $rc)"
    fi

    sed -i 's/mode: ipvs/mode: nftables/' "$c/kube-system/kube-proxy.yaml"
    git -C "$c" add kube-system/kube-proxy.yaml
    rc=0
    out=$(cd "$c" && git commit -q -m "fixed file" 2>&1) || rc=$?
    if [ "$rc" = 0 ] && [ "$(git -C "$c" log -1 --format=%s)" = "fixed file" ]; then
      ok "pre-commit $id: the fixed commit is accepted"
    else
      printf '%s\n' "$out"
      bad "pre-commit $id: the fixed commit was blocked (exit $rc)"
    fi

    # Not only YAML: a staged script, unit or Terraform file is checked too.
    mkdir -p "$c/node"
    printf '#!/bin/sh\nexec /usr/local/bin/kube-proxy --proxy-mode=ipvs\n' >"$c/node/bootstrap.sh"
    git -C "$c" add node/bootstrap.sh
    rc=0
    out=$(cd "$c" && git commit -q -m "bad script" 2>&1) || rc=$?
    if [ "$rc" != 0 ] && printf '%s\n' "$out" | grep -q 'node/bootstrap.sh:2:[0-9]*: error'; then
      ok "pre-commit $id: a staged shell script with a finding blocks the commit"
    else
      printf '%s\n' "$out"
      bad "pre-commit $id: want the commit of node/bootstrap.sh blocked with its finding (exit $rc)"
    fi
    git -C "$c" reset -q
    rm -f "$c/node/bootstrap.sh"

    # --all-files reports what a directory run reports, every input kind included.
    mkdir -p "$c/units" "$c/tf" "$c/inventory/prod"
    printf '[Service]\nExecStart=/usr/local/bin/kube-proxy --proxy-mode=ipvs\n' >"$c/units/kube-proxy.service"
    printf '[k8s_cluster:vars]\nkube_proxy_mode=ipvs\n' >"$c/inventory/prod/inventory.ini"
    printf 'resource "aws_eks_addon" "p" {\n  addon_name = "kube-proxy"\n  configuration_values = jsonencode({ mode = "ipvs" })\n}\n' >"$c/tf/main.tf"
    printf '#!/bin/sh\nexec /usr/local/bin/kube-proxy --proxy-mode=ipvs\n' >"$c/node/start.sh"
    git -C "$c" add -A
    git -C "$c" commit -q --no-verify -m "more inputs"
    local want got
    want=$(cd "$c" && kube-proxy-lint --quiet --target-version 1.40 . | grep -cE '^[^ ][^:]*:[0-9]+:[0-9]+: (error|warning|info): ') || true
    got=$(cd "$c" && pre-commit run --all-files 2>&1 | grep -E '^[^ ][^:]*:[0-9]+:[0-9]+: (error|warning|info): ' | sort -u | wc -l) || true
    if [ "$want" -ge 5 ] && [ "$got" = "$want" ]; then
      ok "pre-commit $id: --all-files reports all $want findings of a directory run (scripts, units, Terraform, inventories)"
    else
      bad "pre-commit $id: --all-files reports $got findings, a directory run $want"
    fi
  }
  precommit_case kube-proxy-lint        # language: golang, built by pre-commit
  precommit_case kube-proxy-lint-system # language: system, the binary on PATH

  # precommit_fix_case HOOK_ID: the fixing hook applies the safe fixes to the staged files only
  # and fails the commit because it changed them; staging the fixed file commits.
  precommit_fix_case() {
    local id=$1 c=$WORK/consumer-$1 out rc f
    mkdir -p "$c/kube-system" "$c/other"
    git -C "$c" init -q -b main
    printf 'repos:\n  - repo: file://%s\n    rev: %s\n    hooks:\n      - id: %s\n        args: [--target-version, "1.40"]\n' \
      "$hooks" "$hook_rev" "$id" >"$c/.pre-commit-config.yaml"
    git -C "$c" add -A
    git -C "$c" commit -q --no-verify -m "hook config"
    (cd "$c" && pre-commit install >/dev/null)
    # No mode: KP101's safe fix pins iptables. other/ is not staged and must stay as it is.
    for f in kube-system/kube-proxy.yaml other/kube-proxy.yaml; do
      printf 'apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nnodePortAddresses: ["primary"]\n' >"$c/$f"
    done
    git -C "$c" add kube-system/kube-proxy.yaml
    rc=0
    out=$(cd "$c" && git commit -q -m "unpinned mode" 2>&1) || rc=$?
    printf '%s\n' "$out" | sed 's/^/    /' | tail -8
    if [ "$rc" != 0 ] && grep -q '^mode: iptables$' "$c/kube-system/kube-proxy.yaml" &&
      ! grep -q 'mode:' "$c/other/kube-proxy.yaml" && printf '%s\n' "$out" | grep -q 'fixed 1 finding in 1 file'; then
      ok "pre-commit $id: the staged file is fixed, the commit stopped for review, the other file untouched"
    else
      bad "pre-commit $id: want the staged file fixed (mode: iptables) and the commit stopped (exit $rc)"
    fi
    git -C "$c" add kube-system/kube-proxy.yaml
    rc=0
    out=$(cd "$c" && git commit -q -m "pinned mode" 2>&1) || rc=$?
    if [ "$rc" = 0 ] && [ "$(git -C "$c" log -1 --format=%s)" = "pinned mode" ]; then
      ok "pre-commit $id: the reviewed fix commits"
    else
      printf '%s\n' "$out"
      bad "pre-commit $id: the fixed file's commit was blocked (exit $rc)"
    fi
  }
  precommit_fix_case kube-proxy-lint-fix        # language: golang, built by pre-commit
  precommit_fix_case kube-proxy-lint-fix-system # language: system, the binary on PATH
else
  unavailable "pre-commit"
fi

echo
echo "integration: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
