package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"paycore/api"
	"paycore/api/apitest"
)

// The operator commands create platforms and tokens that then work against the API.
func TestOperatorCommands(t *testing.T) {
	s := newStack(t)
	t.Setenv("PAYCORE_DATABASE_URL", s.cfg.DatabaseURL)
	t.Setenv("PAYCORE_MASTER_KEY", s.cfg.MasterKey)
	t.Setenv("PAYCORE_TEMPORAL_ADDRESS", s.cfg.TemporalAddress)
	var out bytes.Buffer
	if err := run([]string{"platform", "create", "-name", "Acme Payments", "-production", "-regulated", "-uma-domain", "pay.acme.example"}, &out); err != nil {
		t.Fatalf("platform create: %v", err)
	}
	var created map[string]any
	if err := json.Unmarshal(out.Bytes(), &created); err != nil {
		t.Fatalf("output is not JSON: %v: %s", err, out.String())
	}
	if created["environment"] != "PRODUCTION" || created["isRegulatedFinancialInstitution"] != true {
		t.Fatalf("platform: %s", out.String())
	}
	admin := &apitest.Client{T: t, BaseURL: s.baseURL, User: created["clientId"].(string), Password: created["clientSecret"].(string)}
	var cfg api.PlatformConfig
	r := admin.Do("GET", "/config", nil)
	r.Decode(t, &cfg)
	if r.Status != 200 || !cfg.IsRegulatedFinancialInstitution || cfg.UmaDomain != "pay.acme.example" {
		t.Fatalf("config of the new platform: %d %s", r.Status, r.Body)
	}
	out.Reset()
	if err := run([]string{"token", "create", "-platform", created["platformId"].(string), "-name", "reporting", "-permissions", "VIEW"}, &out); err != nil {
		t.Fatalf("token create: %v", err)
	}
	var tok map[string]any
	_ = json.Unmarshal(out.Bytes(), &tok)
	viewer := admin.With(tok["clientId"].(string), tok["clientSecret"].(string))
	if r := viewer.Do("GET", "/tokens", nil); r.Status != 200 {
		t.Fatalf("viewer token: %d", r.Status)
	}
	if r := viewer.Do("POST", "/tokens", map[string]any{"name": "x", "permissions": []string{"VIEW"}}); r.Status != 403 {
		t.Fatalf("viewer wrote: %d", r.Status)
	}
	// Bad operator input is refused with a message.
	for _, args := range [][]string{
		{"platform", "create"},
		{"platform", "create", "-name", "x", "-uma-domain", "Not A Domain"},
		{"token", "create", "-platform", "nope", "-name", "x"},
		{"token", "create", "-platform", created["platformId"].(string), "-name", "x", "-permissions", "ROOT"},
		{"frobnicate"},
	} {
		if err := run(args, &out); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}

func TestReadinessAndWorkflowMetrics(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	c, _ := s.platform(true)
	rc := newReceiver(t, nil)
	setEndpoint(t, c, rc.srv.URL)
	c.Do("POST", "/webhooks/test", nil)
	root := &apitest.Client{T: t, BaseURL: strings.TrimSuffix(s.baseURL, s.cfg.BasePath())}
	r := root.Do("GET", "/readyz", nil)
	if r.Status != 200 || r.JSON(t)["status"] != "ready" {
		t.Fatalf("readyz: %d %s", r.Status, r.Body)
	}
	// It lists the rails configured: by default the sandbox rail, for every sandbox payment.
	if rails, _ := r.JSON(t)["rails"].([]any); len(rails) != 1 || rails[0].(map[string]any)["name"] != "sandbox" ||
		fmt.Sprint(rails[0].(map[string]any)["routes"]) != "[SANDBOX:*:*]" {
		t.Fatalf("readyz rails: %s", r.Body)
	}
	// Metrics are served on their own listener, not on the API's port.
	m := (&apitest.Client{T: t, BaseURL: s.metricsURL, SkipValidation: true}).Do("GET", "", nil)
	if m.Status != 200 || !strings.Contains(string(m.Body), `paycore_workflow_starts_total{result="ok",workflow="WebhookDelivery"}`) {
		t.Fatalf("no workflow start metric: %d\n%s", m.Status, grep(string(m.Body), "paycore_"))
	}
	if r := (&apitest.Client{T: t, BaseURL: root.BaseURL, SkipValidation: true}).Do("GET", "/metrics", nil); r.Status != 404 {
		t.Fatalf("/metrics on the API port: %d", r.Status)
	}
	// With Postgres gone, readiness says so.
	s.app.pool.Close()
	resp, err := http.Get(root.BaseURL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 503 {
		t.Fatalf("readyz without a database: %d", resp.StatusCode)
	}
}

// An event committed while no worker (and so no relay) runs is delivered once one starts.
func TestEventCommittedWhileWorkerDown(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	c, _ := s.platform(true)
	rc := newReceiver(t, nil)
	s.stopWorkerAndWait()
	setEndpoint(t, c, rc.srv.URL) // records a TEST event in the same transaction
	var list api.List[api.WebhookEvent]
	c.Do("GET", "/webhooks/events", nil).Decode(t, &list)
	if len(list.Data) != 1 || list.Data[0].Status != "PENDING" {
		t.Fatalf("event not recorded: %+v", list)
	}
	time.Sleep(300 * time.Millisecond)
	if rc.count() != 0 {
		t.Fatal("delivered without a worker")
	}
	s.startWorker()
	eventually(t, 20*time.Second, "delivery after the worker started", func() bool { return rc.count() == 1 })
	eventually(t, 10*time.Second, "DELIVERED", func() bool { return eventStatus(t, c, list.Data[0].ID).Status == "DELIVERED" })
}

func grep(s, substr string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, substr) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
