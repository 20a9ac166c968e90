# paycore: `make run` starts the whole stack; `make test` runs every test.
SHELL := /bin/bash
GO ?= go
BIN := $(CURDIR)/bin
TEMPORAL_VERSION := v1.5.1
SQLC_VERSION := v1.31.1
STATICCHECK_VERSION := v0.8.2
WORKFLOWCHECK_VERSION := v0.6.0
PKGS := ./...

export PAYCORE_TEMPORAL_CLI ?= $(BIN)/temporal

.PHONY: run build test test-short fuzz bench lint verify generate tools clean-data

run: $(BIN)/temporal build ## build and start the whole stack (Temporal dev server + UI, DB, API, worker)
	$(BIN)/paycore dev

build:
	$(GO) build -o $(BIN)/paycore ./cmd/paycore

# The pinned Temporal CLI dev server, built once from the Go module proxy (~5 min on 2 cores).
$(BIN)/temporal:
	@echo ">> building the Temporal CLI $(TEMPORAL_VERSION) into bin/ (once; several minutes)"
	GOBIN=$(BIN) $(GO) install -v github.com/temporalio/cli/cmd/temporal@$(TEMPORAL_VERSION) 2>&1 | \
		awk '{ n++; if (n % 25 == 0) printf("   ... %d packages compiled\n", n) } END { if (n) printf("   %d packages compiled\n", n); else print "   (all packages cached)" }'
	@test -x $(BIN)/temporal

$(BIN)/sqlc:
	@echo ">> building sqlc $(SQLC_VERSION) into bin/ (once)"
	GOBIN=$(BIN) $(GO) install github.com/sqlc-dev/sqlc/cmd/sqlc@$(SQLC_VERSION)

$(BIN)/staticcheck:
	GOBIN=$(BIN) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

$(BIN)/workflowcheck:
	GOBIN=$(BIN) $(GO) install go.temporal.io/sdk/contrib/tools/workflowcheck@$(WORKFLOWCHECK_VERSION)

tools: $(BIN)/temporal $(BIN)/sqlc $(BIN)/staticcheck $(BIN)/workflowcheck

test: $(BIN)/temporal ## every test: unit, Postgres integration, end to end against the Temporal dev server
	$(GO) test -count=1 -timeout 15m $(PKGS)
	$(MAKE) --no-print-directory fuzz

# Every fuzz test of the decoders runs for FUZZTIME beyond its seed corpus (which plain
# `go test` already runs).
FUZZTIME ?= 3s
fuzz:
	@set -e; for f in $$(grep -rl --include='*_test.go' '^func Fuzz' internal api db); do \
		pkg=./$$(dirname $$f); \
		for name in $$(grep -o '^func Fuzz[A-Za-z0-9_]*' $$f | cut -d' ' -f2); do \
			echo ">> fuzz $$pkg $$name ($(FUZZTIME))"; \
			$(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) $$pkg >/dev/null || { $(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) $$pkg; exit 1; }; \
		done; \
	done

test-short:
	$(GO) test -count=1 -short $(PKGS)

bench: $(BIN)/temporal
	$(GO) test -run '^$$' -bench . -benchtime 3s -timeout 20m ./cmd/paycore ./api ./internal/...

generate: $(BIN)/sqlc
	$(BIN)/sqlc generate

verify: $(BIN)/sqlc ## generated code and go.mod are in sync
	$(BIN)/sqlc diff
	$(GO) mod tidy -diff

lint: $(BIN)/staticcheck $(BIN)/workflowcheck
	$(GO) vet $(PKGS)
	$(BIN)/staticcheck $(PKGS)
	$(BIN)/workflowcheck ./workflows/...
	$(GO) run ./cmd/archlint

clean-data:
	rm -rf .data
