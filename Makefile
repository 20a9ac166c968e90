# paycore: `make run` starts the whole stack; `make test` runs every test; `make` lists the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help
GO ?= go
BIN := $(CURDIR)/bin
TEMPORAL_VERSION := v1.5.1
SQLC_VERSION := v1.31.1
STATICCHECK_VERSION := v0.8.2
WORKFLOWCHECK_VERSION := v0.6.0
HELM_VERSION := v3.22.0
# The Temporal server and its SQL tool for the cluster profile (make run-cluster,
# make test-cluster), and the Temporal UI server. v1.31 needs a module the proxy does not
# serve; v1.30 is the newest that builds from it.
TEMPORAL_SERVER_VERSION := v1.30.4
TEMPORAL_UI_VERSION := v2.42.1
# The Kubernetes release whose OpenAPI schemas `deploy-check` validates the chart against:
# its api/openapi-spec/v3 folder, from the k8s.io/kubernetes module zip (18 MB, Go module
# cache). The chart must be valid there, so it runs on clusters of this release and newer.
K8S_SCHEMA_VERSION := v1.34.4
# The regtest Lightning network (make lightning-tools, make test-lightning): LND with the
# RPC sub-servers the Lightning rail uses, its CLI, and the btcd it requires, at the
# versions pinned by tools/lightning (which repeats lnd's replace directives).
LND_TAGS := routerrpc invoicesrpc walletrpc signrpc chainrpc
LIGHTNING_BINS := $(BIN)/lnd $(BIN)/lncli $(BIN)/btcd $(BIN)/btcctl
# The gRPC stubs of the part of LND's API the Lightning rail calls (make generate): protoc
# from Debian's protobuf-compiler, its Go plugins built into bin/ at the versions of the
# protobuf and gRPC modules go.mod requires.
# The Go SDK's client (sdk/go/paycore.gen.go), generated from api/openapi.yaml.
OAPI_CODEGEN_VERSION := v2.8.2
SDK := sdk/go
# The Go program of the README's quickstart, a module of its own on the SDK.
GO_EXAMPLE := examples/go-platform
PROTOC_GEN_GO_VERSION := v1.36.12
PROTOC_GEN_GO_GRPC_VERSION := v1.6.2
LNDRPC := internal/infra/lnd/lndrpc
PROTOC_PLUGINS := $(BIN)/protoc-gen-go $(BIN)/protoc-gen-go-grpc
PKGS := ./...

export PAYCORE_TEMPORAL_CLI ?= $(BIN)/temporal

.PHONY: api-compat peer-check help lightning-tools test-lightning bench-lightning run-lightning run run-cluster test-cluster test-faults test-quickstart cluster-tools build test test-short fuzz bench bench-lists bench-ledger bench-capacity lint verify generate docs-renderer docs-renderer-check tools deploy-check clean-data

help: ## list the targets (the default)
	@awk 'BEGIN { FS = ":[^#]*## " } /^[a-z][a-z-]*:.*## / { printf "  %-12s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)

run: $(BIN)/temporal build ## build and start the whole stack (Temporal dev server + UI, DB, API, worker)
	$(BIN)/paycore dev

run-cluster: $(BIN)/temporal-server $(BIN)/temporal-sql-tool $(BIN)/temporal-ui build ## the production shape: Temporal server on PostgreSQL + UI, 2 APIs, 2 workers
	$(BIN)/paycore cluster

build: ## build bin/paycore
	$(GO) build -o $(BIN)/paycore ./cmd/paycore

# The pinned Temporal CLI dev server, built once from the Go module proxy (~5 min on 2 cores).
$(BIN)/temporal:
	@echo ">> building the Temporal CLI $(TEMPORAL_VERSION) into bin/ (once; several minutes)"
	GOBIN=$(BIN) $(GO) install -v github.com/temporalio/cli/cmd/temporal@$(TEMPORAL_VERSION) 2>&1 | \
		awk '{ n++; if (n % 25 == 0) printf("   ... %d packages compiled\n", n); fflush() } END { if (n) printf("   %d packages compiled\n", n); else print "   (all packages cached)" }'
	@test -x $(BIN)/temporal

$(BIN)/sqlc:
	@echo ">> building sqlc $(SQLC_VERSION) into bin/ (once)"
	GOBIN=$(BIN) $(GO) install github.com/sqlc-dev/sqlc/cmd/sqlc@$(SQLC_VERSION)

$(BIN)/protoc-gen-go:
	GOBIN=$(BIN) $(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)

$(BIN)/protoc-gen-go-grpc:
	GOBIN=$(BIN) $(GO) install google.golang.org/grpc/cmd/protoc-gen-go-grpc@$(PROTOC_GEN_GO_GRPC_VERSION)

# lndrpc generates the LND stubs under the folder $(1) (the repository's root, or a
# temporary one that verify compares).
lndrpc = command -v protoc >/dev/null || { echo "protoc not found: apt-get install protobuf-compiler"; exit 1; }; \
	PATH=$(BIN):$$PATH protoc -I $(LNDRPC) --go_out=$(1) --go_opt=module=paycore \
	--go-grpc_out=$(1) --go-grpc_opt=module=paycore $(LNDRPC)/lightning.proto $(LNDRPC)/router.proto

$(BIN)/oapi-codegen:
	GOBIN=$(BIN) $(GO) install github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@$(OAPI_CODEGEN_VERSION)

$(BIN)/staticcheck:
	GOBIN=$(BIN) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

$(BIN)/workflowcheck:
	GOBIN=$(BIN) $(GO) install go.temporal.io/sdk/contrib/tools/workflowcheck@$(WORKFLOWCHECK_VERSION)

# The pinned Helm CLI, built once from the Go module proxy (~3 min on 2 cores from empty caches).
$(BIN)/helm:
	@echo ">> building Helm $(HELM_VERSION) into bin/ (once; about three minutes)"
	GOBIN=$(BIN) $(GO) install -v -ldflags "-X helm.sh/helm/v3/internal/version.version=$(HELM_VERSION)" helm.sh/helm/v3/cmd/helm@$(HELM_VERSION) 2>&1 | \
		awk '{ n++; if (n % 25 == 0) printf("   ... %d packages compiled\n", n); fflush() } END { if (n) printf("   %d packages compiled\n", n); else print "   (all packages cached)" }'
	@test -x $(BIN)/helm

# The Temporal server and its SQL tool, built once from the Go module proxy (several
# minutes on 2 cores), and the Temporal UI server (its module carries the built UI).
lightning-tools: $(LIGHTNING_BINS) ## build LND v0.20.0-beta, lncli, btcd and btcctl into bin/ (the regtest Lightning network)

$(LIGHTNING_BINS) &: tools/lightning/go.mod tools/lightning/go.sum
	@echo ">> building LND and btcd (tools/lightning) into bin/ (once; several minutes)"
	cd tools/lightning && GOBIN=$(BIN) $(GO) install -v -tags "$(LND_TAGS)" \
		github.com/lightningnetwork/lnd/cmd/lnd github.com/lightningnetwork/lnd/cmd/lncli \
		github.com/btcsuite/btcd github.com/btcsuite/btcd/cmd/btcctl 2>&1 | \
		awk '{ n++; if (n % 25 == 0) printf("   ... %d packages compiled\n", n); fflush() } END { if (n) printf("   %d packages compiled\n", n); else print "   (all packages cached)" }'
	@for b in $(LIGHTNING_BINS); do test -x $$b || { echo "$$b was not built"; exit 1; }; done
	@touch $(LIGHTNING_BINS) # newer than the module files, also when go install found them up to date

test-lightning: $(LIGHTNING_BINS) $(BIN)/temporal ## the Lightning rail's tests on a regtest network (btcd and two LND nodes with channels): the network, the rail, payments through the whole service
	PAYCORE_LIGHTNING_BIN=$(BIN) $(GO) test -count=1 -timeout 10m ./internal/infra/lnregtest/ ./internal/infra/lightningrail/
	PAYCORE_LIGHTNING_BIN=$(BIN) $(GO) test -count=1 -timeout 10m -run '^TestLightning' ./cmd/paycore/

run-lightning: $(LIGHTNING_BINS) ## start a fresh regtest Lightning network (btcd, two LND nodes, an active channel) under .data/lightning until Ctrl-C
	$(GO) run ./cmd/lnregtest -bin $(BIN) -dir .data/lightning

$(BIN)/temporal-server:
	@echo ">> building the Temporal server $(TEMPORAL_SERVER_VERSION) into bin/ (once; several minutes)"
	@mkdir -p $(BIN)/.build-server
	GOBIN=$(BIN)/.build-server $(GO) install -v go.temporal.io/server/cmd/server@$(TEMPORAL_SERVER_VERSION) 2>&1 | \
		awk '{ n++; if (n % 25 == 0) printf("   ... %d packages compiled\n", n); fflush() } END { if (n) printf("   %d packages compiled\n", n); else print "   (all packages cached)" }'
	mv $(BIN)/.build-server/server $@ && rmdir $(BIN)/.build-server

$(BIN)/temporal-sql-tool:
	@echo ">> building Temporal's SQL tool $(TEMPORAL_SERVER_VERSION) into bin/ (once)"
	@mkdir -p $(BIN)/.build-sql
	GOBIN=$(BIN)/.build-sql $(GO) install go.temporal.io/server/cmd/tools/sql@$(TEMPORAL_SERVER_VERSION)
	mv $(BIN)/.build-sql/sql $@ && rmdir $(BIN)/.build-sql

$(BIN)/temporal-ui:
	@echo ">> building the Temporal UI server $(TEMPORAL_UI_VERSION) into bin/ (once)"
	@mkdir -p $(BIN)/.build-ui
	GOBIN=$(BIN)/.build-ui $(GO) install github.com/temporalio/ui-server/v2/cmd/server@$(TEMPORAL_UI_VERSION)
	mv $(BIN)/.build-ui/server $@ && rmdir $(BIN)/.build-ui

cluster-tools: $(BIN)/temporal-server $(BIN)/temporal-sql-tool $(BIN)/temporal-ui ## build the Temporal server, its SQL tool and its UI into bin/

# The end-to-end tests once more, against the Temporal server on PostgreSQL instead of the
# dev server (without the race detector: the same code already ran under it in make test;
# 4 tests at a time, since the server's connections share PostgreSQL's 100 with theirs).
test-cluster: $(BIN)/temporal-server $(BIN)/temporal-sql-tool ## the end-to-end tests against the Temporal server on PostgreSQL
	PAYCORE_TEST_TEMPORAL=cluster $(GO) test -count=1 -timeout 20m -parallel 4 ./cmd/paycore

# The seeded fault test: a deployment of its own (PostgreSQL, the Temporal server, 2 APIs, 2
# workers) under a bank workload while API, worker, Temporal and PostgreSQL processes are
# killed with SIGKILL at random. FAULT_SEED replays a schedule; FAULT_RUNS runs several.
FAULT_RUNS ?= 1
FAULT_DURATION ?= 45s
test-faults: $(BIN)/temporal $(BIN)/temporal-server $(BIN)/temporal-sql-tool ## SIGKILL the API, a worker, Temporal and PostgreSQL under load; check every payment and webhook
	PAYCORE_TEST_FAULTS=1 PAYCORE_FAULT_SEED=$(FAULT_SEED) PAYCORE_FAULT_RUNS=$(FAULT_RUNS) PAYCORE_FAULT_DURATION=$(FAULT_DURATION) \
		$(GO) test -count=1 -timeout 30m -run '^TestSeededFaults$$' -v ./cmd/paycore

# The README's quickstart run as written (in a copy of the working tree, on the default
# ports, which must be free), then its browser steps in headless Chromium.
test-quickstart: $(BIN)/temporal ## run the README's quickstart commands as written, then pay from the wallet page in Chromium
	PAYCORE_TEST_QUICKSTART=1 $(GO) test -count=1 -timeout 30m -run '^TestQuickstart$$' -v ./cmd/paycore

tools: $(BIN)/temporal $(BIN)/sqlc $(BIN)/staticcheck $(BIN)/workflowcheck $(BIN)/helm $(BIN)/oapi-codegen ## build the pinned tools into bin/ (Temporal CLI, sqlc, staticcheck, workflowcheck, Helm, oapi-codegen)

# deploy-check renders the chart with its defaults and with every optional part turned on
# (deploy/helm/ci-values.yaml), validates each manifest strictly against the Kubernetes
# schemas (unknown fields, wrong types and missing required fields fail), and validates
# deploy/compose.yaml as `docker compose config` would. Nothing is downloaded but Go modules.
CHART := deploy/helm/paycore
deploy-check: $(BIN)/helm ## lint and render the Helm chart, validate the manifests and the compose file
	@set -eo pipefail; \
	echo ">> Kubernetes $(K8S_SCHEMA_VERSION) schemas (k8s.io/kubernetes module)"; \
	dir=$$(cd / && $(GO) mod download -json k8s.io/kubernetes@$(K8S_SCHEMA_VERSION) | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$$/\1/p'); \
	test -d "$$dir/api/openapi-spec/v3" || { echo "no api/openapi-spec/v3 in k8s.io/kubernetes@$(K8S_SCHEMA_VERSION)"; exit 1; }; \
	tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; check=$$tmp/deploycheck; \
	$(GO) build -o $$check ./cmd/deploycheck; \
	echo ">> helm lint $(CHART)"; \
	$(BIN)/helm lint --strict --kube-version $(K8S_SCHEMA_VERSION) $(CHART) --set secrets.existingSecret=paycore; \
	$(BIN)/helm lint --strict --kube-version $(K8S_SCHEMA_VERSION) $(CHART) -f deploy/helm/ci-values.yaml; \
	$(BIN)/helm lint --strict --kube-version $(K8S_SCHEMA_VERSION) $(CHART) -f deploy/helm/sizing-1000.yaml --set secrets.existingSecret=paycore; \
	echo ">> helm template $(CHART) | deploycheck manifests (default values)"; \
	$(BIN)/helm template paycore $(CHART) --namespace paycore --kube-version $(K8S_SCHEMA_VERSION) --set secrets.existingSecret=paycore | $$check manifests -schemas "$$dir/api/openapi-spec/v3"; \
	echo ">> helm template $(CHART) | deploycheck manifests (deploy/helm/ci-values.yaml)"; \
	$(BIN)/helm template paycore $(CHART) --namespace paycore --kube-version $(K8S_SCHEMA_VERSION) -f deploy/helm/ci-values.yaml | $$check manifests -schemas "$$dir/api/openapi-spec/v3"; \
	echo ">> helm template $(CHART) | deploycheck manifests (deploy/helm/sizing-1000.yaml)"; \
	$(BIN)/helm template paycore $(CHART) --namespace paycore --kube-version $(K8S_SCHEMA_VERSION) -f deploy/helm/sizing-1000.yaml --set secrets.existingSecret=paycore | $$check manifests -schemas "$$dir/api/openapi-spec/v3"; \
	echo ">> deploycheck compose deploy/compose.yaml"; \
	PAYCORE_MASTER_KEY=placeholder PAYCORE_POSTGRES_PASSWORD=placeholder $$check compose deploy/compose.yaml

# Tests mostly wait on PostgreSQL and the Temporal dev server rather than the CPU, so each
# test binary runs up to TESTPARALLEL parallel tests (go test's default is GOMAXPROCS, 2 on a
# 2-core machine; 8 runs the api package about 2.5 times faster there).
TESTPARALLEL ?= 8
test: $(BIN)/temporal ## every test with the race detector (unit, Postgres, end to end against the Temporal dev server), then fuzz
	$(GO) test -race -parallel $(TESTPARALLEL) -count=1 -timeout 20m $(PKGS)
	$(MAKE) --no-print-directory fuzz

# Every fuzz test of the decoders runs for FUZZTIME beyond its seed corpus (which plain
# `go test` already runs). A failing input found is kept in testdata/fuzz and fails the
# target; an engine that stops without one (a worker starved on a loaded machine) is run
# once more.
FUZZTIME ?= 3s
fuzz: ## run every fuzz test for FUZZTIME (default 3s) beyond its seed corpus
	@set -e; for f in $$(grep -rl --include='*_test.go' '^func Fuzz' internal api db); do \
		pkg=./$$(dirname $$f); \
		for name in $$(grep -o '^func Fuzz[A-Za-z0-9_]*' $$f | cut -d' ' -f2); do \
			echo ">> fuzz $$pkg $$name ($(FUZZTIME))"; \
			out=$$(mktemp); \
			if ! $(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) $$pkg >$$out 2>&1; then \
				cat $$out; \
				if grep -q 'Failing input written' $$out; then rm -f $$out; exit 1; fi; \
				echo "   (the fuzzing engine stopped without a failing input, as it can on a loaded machine; once more)"; \
				$(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime $(FUZZTIME) $$pkg || { rm -f $$out; exit 1; }; \
			fi; \
			rm -f $$out; \
		done; \
	done

# The peer check (docs/peer-conformance.md): the api and end-to-end tests run with every 2xx
# answer also validated against PEER_OPENAPI (another provider's document of the same API,
# not part of this repository); the mismatches are summarised from PEER_REPORT.
PEER_REPORT ?= .data/peer-report.jsonl
peer-check: $(BIN)/temporal ## validate every 2xx answer of the api and end-to-end tests against PEER_OPENAPI too, then summarise the mismatches
	@test -n "$(PEER_OPENAPI)" || { echo "set PEER_OPENAPI to the peer's openapi.yaml"; exit 2; }
	@mkdir -p $$(dirname $(PEER_REPORT)); rm -f $(PEER_REPORT)
	PAYCORE_PEER_OPENAPI=$(abspath $(PEER_OPENAPI)) PAYCORE_PEER_REPORT=$(abspath $(PEER_REPORT)) PAYCORE_LIGHTNING_BIN=$(abspath $(BIN)) \
		$(GO) test -count=1 -timeout 30m ./api/ ./cmd/paycore/
	$(GO) run ./api/apitest/peerreport $(PEER_REPORT)

test-short: $(BIN)/temporal ## the quick tests only (-short), without the race detector
	$(GO) test -count=1 -short $(PKGS)

bench: $(BIN)/temporal ## every benchmark (-benchtime 3s), then bench-lists, bench-ledger and bench-capacity
	$(GO) test -run '^$$' -bench . -skip '^BenchmarkListTransactions$$' -benchtime 3s -timeout 20m ./cmd/paycore ./api ./internal/...
	$(MAKE) --no-print-directory bench-lists
	$(MAKE) --no-print-directory bench-ledger
	$(MAKE) --no-print-directory bench-capacity

# The capacity model's measurements (docs/performance/capacity.md) on the Temporal server on
# PostgreSQL: what a transfer and a quote cost (400 each, closed loop, 16 clients: the
# transfer's payments/s is its ceiling here), the quote executions' ceiling (the same, quotes
# created beforehand), transfers at CAPACITY_LOADS times their ceiling (30 s each), then
# transfers and quote executions at half their ceilings (60 s each) for the p99 of the
# answer. The rates follow from this run's ceilings, whatever the machine.
CAPACITY_LOADS ?= 0.25 0.5 0.75 1 1.25
bench-capacity: $(BIN)/temporal-server $(BIN)/temporal-sql-tool ## per-payment costs, the load raised, and p50/p99 at half the ceiling, on the Temporal server on PostgreSQL
	@set -eo pipefail; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; $(GO) test -c -o $$tmp/paycore.test ./cmd/paycore; cd cmd/paycore; \
	export PAYCORE_TEST_TEMPORAL=cluster; \
	run() { $$tmp/paycore.test -test.run '^$$' -test.bench "$$1" -test.benchtime "$$2" -test.timeout 20m; }; \
	rate() { awk -v f="$$2" -v b="$$1" 'index($$1, b) == 1 { for (i = 2; i < NF; i++) if ($$(i+1) == "payments/s") r = $$i * f } END { if (!r) exit 1; printf "%.1f", r }'; }; \
	run '^BenchmarkPaymentCosts$$' 400x | tee $$tmp/costs.txt; \
	run '^BenchmarkQuoteExecute/clients=16$$' 400x | tee $$tmp/quotes.txt; \
	loop() { PAYCORE_BENCH_RATE=$$2 run "$$1" $$(awk -v r=$$2 -v s=$$3 'BEGIN { printf "%d", r * s }')x; }; \
	for f in $(CAPACITY_LOADS); do r=$$(rate BenchmarkPaymentCosts/transfer $$f < $$tmp/costs.txt); \
		echo "transfers at $$f × the ceiling: $$r/s"; loop '^BenchmarkTransferOutOpenLoop$$' $$r 30; done; \
	t=$$(rate BenchmarkPaymentCosts/transfer 0.5 < $$tmp/costs.txt); q=$$(rate BenchmarkQuoteExecute/clients=16 0.5 < $$tmp/quotes.txt); \
	echo "half the ceilings: transfers $$t/s, quote executions $$q/s"; \
	loop '^BenchmarkTransferOutOpenLoop$$' $$t 60; \
	loop '^BenchmarkQuoteExecuteOpenLoop$$' $$q 60

bench-lightning: $(LIGHTNING_BINS) $(BIN)/temporal ## payouts through the sandbox rail and the Lightning rail (regtest) side by side: ceiling, then p50/p99 to COMPLETED at half of it; then a Lightning payout's costs
	PAYCORE_LIGHTNING_BIN=$(BIN) $(GO) test -run '^$$' -bench '^BenchmarkLightningPayout(s|Costs)$$' -benchtime 120x -timeout 20m ./cmd/paycore

# The seed takes a minute or two.
bench-lists: ## GET /transactions on 1,000,000 seeded transactions: p50/p99 per filter, one at a time and at 20 req/s
	$(GO) test ./api -run '^$$' -bench '^BenchmarkListTransactions$$' -benchtime 200x -timeout 30m

# A transfer's create + finish at the database (no Temporal) beside pgbench's TPC-B on the
# same database, each side LEDGER_BENCHTIME per concurrency. The setup (1,000 funded
# customers, pgbench's tables at scale 32, about 500 MB) takes half a minute; without
# pgbench installed the benchmark is skipped.
LEDGER_BENCHTIME ?= 5s
bench-ledger: ## a transfer's create + finish on the database at 1, 8 and 32 connections beside pgbench TPC-B: postings/s, pgbench tx/s, ratio
	$(GO) test ./db -run '^$$' -bench '^BenchmarkLedgerPosting$$' -benchtime $(LEDGER_BENCHTIME) -timeout 15m

# The TypeScript client (examples/client): its pinned packages, installed with npm ci from its
# package-lock.json, again whenever that changes (the Go test of examples/client reads the same
# marker). It needs Node 20+ and npm.
CLIENT := examples/client
$(CLIENT)/node_modules/.installed: $(CLIENT)/package-lock.json
	@command -v npm >/dev/null || { echo "$(CLIENT) needs Node 20+ and npm"; exit 1; }
	cd $(CLIENT) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

generate: $(BIN)/sqlc $(PROTOC_PLUGINS) $(BIN)/oapi-codegen $(CLIENT)/node_modules/.installed ## regenerate the sqlc code in db/internal/gen and its aliases in db/gen_types.go, the LND stubs, the TypeScript client's types (examples/client/src/schema.ts), the Go SDK's client (sdk/go/paycore.gen.go) and the vendored API reference renderer
	$(BIN)/sqlc generate
	@$(call lndrpc,.)
	$(GO) run ./db/internal/aliasgen
	cd $(CLIENT) && npm run --silent generate
	cd $(SDK) && $(BIN)/oapi-codegen -config oapi-codegen.yaml ../../api/openapi.yaml
	$(MAKE) --no-print-directory docs-renderer

verify: $(BIN)/sqlc $(PROTOC_PLUGINS) $(BIN)/oapi-codegen $(CLIENT)/node_modules/.installed ## generated code (sqlc and its db aliases, the LND stubs, the TypeScript client's types, the Go SDK's client), go.mod files and the vendored API reference renderer are in sync
	$(BIN)/sqlc diff
	$(GO) mod tidy -diff
	cd $(SDK) && $(GO) mod tidy -diff
	cd $(GO_EXAMPLE) && $(GO) mod tidy -diff
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	$(call lndrpc,$$tmp); \
	if ! diff -ru -x '*.proto' $(LNDRPC) "$$tmp/$(LNDRPC)"; then \
		echo "$(LNDRPC) is not what its .proto files generate: run make generate"; exit 1; \
	fi
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	$(GO) run ./db/internal/aliasgen -out "$$tmp/gen_types.go"; \
	if ! diff -u db/gen_types.go "$$tmp/gen_types.go"; then \
		echo "db/gen_types.go is not what db/internal/gen generates: run make generate"; exit 1; \
	fi; \
	(cd $(CLIENT) && SCHEMA_OUT="$$tmp/schema.ts" npm run --silent generate >/dev/null); \
	if ! diff -u $(CLIENT)/src/schema.ts "$$tmp/schema.ts"; then \
		echo "$(CLIENT)/src/schema.ts is not what api/openapi.yaml generates: run make generate"; exit 1; \
	fi; \
	cp $(SDK)/oapi-codegen.yaml "$$tmp"/ && (cd "$$tmp" && $(BIN)/oapi-codegen -config oapi-codegen.yaml $(CURDIR)/api/openapi.yaml); \
	if ! cmp -s $(SDK)/paycore.gen.go "$$tmp/paycore.gen.go"; then \
		echo "$(SDK)/paycore.gen.go is not what api/openapi.yaml generates: run make generate"; exit 1; \
	fi
	$(MAKE) --no-print-directory docs-renderer-check

# The base api-compat compares api/openapi.yaml with: the newest api-<version> tag reachable
# from HEAD (a released API version), else the commit that started CHANGELOG.md. Set API_BASE
# to any commit to compare with that instead.
API_BASE ?= $(shell git describe --tags --abbrev=0 --match 'api-*' 2>/dev/null || git log --diff-filter=A --format=%H -1 -- CHANGELOG.md)

api-compat: ## fail on a breaking change to api/openapi.yaml (oasdiff, against API_BASE) that CHANGELOG.md does not record
	@test -n "$(API_BASE)" || { echo "api-compat: no base: tag a released version api-<version> or commit CHANGELOG.md"; exit 1; }
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	git show "$(API_BASE):api/openapi.yaml" > "$$tmp/base.yaml"; \
	echo ">> api/openapi.yaml against $(API_BASE)"; \
	$(GO) run ./cmd/apicompat -base "$$tmp/base.yaml" -doc api/openapi.yaml -changelog CHANGELOG.md

# The API reference page (/docs) serves Redoc's standalone bundle, vendored in api/docs/ so
# that `go build` needs no npm; api/docs/package.json and package-lock.json pin it (the
# lock holds its integrity hash). docs-renderer installs exactly that package (npm ci, into
# a temporary folder) and copies the bundle, its licence and the bundled libraries' licence
# notices; docs-renderer-check fails when the vendored files differ from them.
DOCS_DIR := api/docs
DOCS_FILES := bundles/redoc.standalone.js:redoc.standalone.js bundles/redoc.standalone.js.LICENSE.txt:redoc.standalone.js.LICENSE.txt LICENSE:LICENSE.redoc
define docs_install
tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	cp $(DOCS_DIR)/package.json $(DOCS_DIR)/package-lock.json $(DOCS_DIR)/.npmrc "$$tmp"/; \
	(cd "$$tmp" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null) || { echo "npm ci failed in $(DOCS_DIR)"; exit 1; }; \
	pkg="$$tmp/node_modules/redoc"
endef

docs-renderer: ## refresh the vendored Redoc bundle in api/docs/ from the pinned package (npm ci)
	@set -eo pipefail; $(docs_install); \
	for f in $(DOCS_FILES); do cp "$$pkg/$${f%%:*}" "$(DOCS_DIR)/$${f##*:}"; done; \
	echo ">> $(DOCS_DIR): redoc $$(sed -n 's/^  "version": "\(.*\)",$$/\1/p' "$$pkg/package.json") vendored"

docs-renderer-check: ## fail if the vendored Redoc bundle differs from the pinned package
	@set -eo pipefail; $(docs_install); \
	for f in $(DOCS_FILES); do \
		cmp -s "$$pkg/$${f%%:*}" "$(DOCS_DIR)/$${f##*:}" || { echo "$(DOCS_DIR)/$${f##*:} differs from the pinned package's $${f%%:*}: run make docs-renderer"; exit 1; }; \
	done; \
	echo ">> $(DOCS_DIR): the vendored renderer matches the pinned package"

lint: $(BIN)/staticcheck $(BIN)/workflowcheck ## gofmt, go vet, staticcheck, workflowcheck and archlint (the dependency direction)
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$unformatted" ]; then echo "not gofmt-formatted:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet $(PKGS)
	$(BIN)/staticcheck $(PKGS)
	$(BIN)/workflowcheck ./workflows/...
	$(GO) run ./cmd/archlint
	cd $(SDK) && $(GO) vet ./... && $(BIN)/staticcheck ./...
	cd $(GO_EXAMPLE) && $(GO) vet ./... && $(BIN)/staticcheck ./...

clean-data: ## delete .data/ (Temporal's SQLite file, master key, sandbox credentials)
	rm -rf .data
