# kube-proxy-lint developer targets. CI (.ci/run) runs `make test` and `make test-race`.

GO      ?= go
BIN     ?= bin/kube-proxy-lint
# The Helm renderer the CLI starts for charts; it must sit beside the CLI (or on PATH).
HELM_BIN = $(dir $(BIN))kube-proxy-lint-helm
# The version stamped into the binary; `kube-proxy-lint version` prints it with the commit
# and date (release builds get the same from GoReleaser, see .goreleaser.yaml).
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse HEAD 2>/dev/null)
DATE    ?= $(shell git log -1 --format=%cI 2>/dev/null)
LDFLAGS := -X main.version=$(VERSION) -X main.commit=$(COMMIT) -X main.date=$(DATE)
# The packages with goroutines or shared caches (the engine's parallel rules, the loader's
# parallel decoding, the policy state shared by Rego rules) and the end-to-end tests that run
# them in parallel with the real rules.
RACE_PKGS := ./checker/... ./policy/... ./cmd/...
# GoReleaser, pinned; `make release-check` installs it into $(TOOLS).
GORELEASER_VERSION := v2.15.1
TOOLS ?= $(CURDIR)/.cache/tools

.PHONY: all build build-release install test test-race lint docs bench bench-corpus bench-peers fmt vet integration release-check snapshot

all: fmt vet build test

## build: compile the CLI to $(BIN) and its Helm renderer beside it, fast: it reuses what `make test` compiled (seconds when warm)
build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/kube-proxy-lint
	$(GO) build -o $(HELM_BIN) ./cmd/kube-proxy-lint-helm

## install: build the CLI and its Helm renderer as `make build` does and install them into $(go env GOBIN), else $(go env GOPATH)/bin
install:
	$(GO) install -ldflags "$(LDFLAGS)" ./cmd/kube-proxy-lint ./cmd/kube-proxy-lint-helm

## build-release: the reproducible build of the release binaries (.goreleaser.yaml's flags: -trimpath,
## CGO_ENABLED=0, -s -w): -trimpath compiles the standard library and every dependency again, minutes
## the first time even right after `make test`
build-release:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w $(LDFLAGS)" -o $(BIN) ./cmd/kube-proxy-lint
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w" -o $(HELM_BIN) ./cmd/kube-proxy-lint-helm

## test: run every test of every package (the README's test command)
test:
	$(GO) test ./...

## test-race: run the tests of the packages with concurrency under the race detector
test-race:
	$(GO) test -race $(RACE_PKGS)

## lint: run golangci-lint with .golangci.yml
lint:
	golangci-lint run

## docs: regenerate docs/rules and the man page (TestDocsUpToDate, TestManPageUpToDate check them)
docs:
	$(GO) run -tags kpltools ./internal/ruledoc/gen -dir docs/rules
	$(GO) run ./cmd/kube-proxy-lint man > docs/man/kube-proxy-lint.1.tmp && mv docs/man/kube-proxy-lint.1.tmp docs/man/kube-proxy-lint.1

## integration: pre-commit, reviewdog, actionlint and SARIF Multitool end to end (installs them)
integration:
	bash scripts/integration.sh

## bench: run every benchmark, the corpus ones included (KPL_BENCH_MAX=100000 adds 100k files; docs/performance.md)
bench:
	$(GO) test -run '^$$' -bench . -benchmem -timeout 0 ./...

## bench-corpus: the corpus benchmarks alone (in process and the CLI binary, 1k/5k/20k files, -cpu 1,2)
bench-corpus:
	$(GO) test -run '^$$' -bench 'Corpus' -benchmem -cpu 1,2 -timeout 0 ./internal/corpus/

## bench-peers: kube-proxy-lint beside kubeconform, kube-linter and conftest (scripts/bench-peers.sh)
bench-peers:
	bash scripts/bench-peers.sh

## fmt: format the Go sources
fmt:
	$(GO) fmt ./...

## vet: run go vet
vet:
	$(GO) vet ./...

$(TOOLS)/goreleaser:
	GOFLAGS= GOBIN=$(TOOLS) $(GO) install github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION)

## release-check: validate .goreleaser.yaml with the pinned GoReleaser
release-check: $(TOOLS)/goreleaser
	$(TOOLS)/goreleaser check

## snapshot: build the release archives, checksums and SBOMs locally, without publishing
snapshot: $(TOOLS)/goreleaser
	$(TOOLS)/goreleaser release --snapshot --clean --skip=docker
