package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"paycore/internal/infra/config"
	"paycore/internal/rail"
)

// `paycore rails list` prints the rails the configuration routes payments to: by default
// the sandbox rail, for every sandbox payment; none when PAYCORE_RAILS is empty; a route
// to a rail that cannot serve it is an error.
func TestRailsList(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"rails", "list"}, &out); err != nil {
		t.Fatal(err)
	}
	var got struct{ Rails []rail.Configured }
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if len(got.Rails) != 1 || got.Rails[0].Name != "sandbox" || strings.Join(got.Rails[0].Routes, ",") != "SANDBOX:*:*" ||
		len(got.Rails[0].Environments) != 1 || got.Rails[0].Environments[0] != "SANDBOX" || !got.Rails[0].Cancellable {
		t.Fatalf("default rails: %s", out.String())
	}

	cfg := config.Defaults()
	cfg.Rails = nil
	out.Reset()
	if err := railsList(cfg, &out); err != nil || strings.Join(strings.Fields(out.String()), "") != `{"rails":[]}` {
		t.Fatalf("no rails: %s %v", out.String(), err)
	}
	cfg.Rails = []rail.Route{{Environment: "PRODUCTION", Currency: "*", Kind: "*", Rail: "sandbox"}}
	if err := railsList(cfg, &out); err == nil || !strings.Contains(err.Error(), "does not serve") {
		t.Fatalf("the sandbox rail routed production payments: %v", err)
	}
	if err := run([]string{"rails", "show"}, &out); err == nil || !strings.Contains(err.Error(), "paycore rails list") {
		t.Fatalf("unknown subcommand: %v", err)
	}
}
