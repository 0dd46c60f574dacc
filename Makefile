# kube-proxy-lint developer targets. `make test` is what CI runs (.ci/run).

GO      ?= go
BIN     ?= bin/kube-proxy-lint
# The version stamped into the binary; `kube-proxy-lint --version` prints it.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)

.PHONY: all build test lint docs bench fmt vet integration

all: fmt vet build test

## build: compile the CLI to $(BIN)
build:
	$(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/kube-proxy-lint

## test: run every test with the race detector
test:
	$(GO) test -race ./...

## lint: run golangci-lint with .golangci.yml
lint:
	golangci-lint run

## docs: regenerate docs/rules from the rule registry (TestDocsUpToDate checks it)
docs:
	$(GO) run ./internal/ruledoc/gen -dir docs/rules

## integration: pre-commit, reviewdog, actionlint and SARIF Multitool end to end (installs them)
integration:
	bash scripts/integration.sh

## bench: run the benchmarks (loader and full run on generated trees)
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

## fmt: format the Go sources
fmt:
	$(GO) fmt ./...

## vet: run go vet
vet:
	$(GO) vet ./...
