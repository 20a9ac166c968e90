package client

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"paycore/internal/infra/npmci"
	"paycore/internal/walletcrypto"
	"paycore/internal/webhooksig"
)

// webhookCase is one webhook the Node test verifies with verifyWebhook.
type webhookCase struct {
	Name          string            `json:"name"`
	Body          string            `json:"body"`
	Headers       map[string]string `json:"headers"`
	SigningKeyPEM string            `json:"signingKeyPem,omitempty"`
	Secrets       []string          `json:"secrets,omitempty"`
	Schemes       []string          `json:"schemes,omitempty"`
	Valid         bool              `json:"valid"`
	FailedScheme  string            `json:"failedScheme,omitempty"` // ecdsa, standard or input
	Error         string            `json:"error,omitempty"`        // a part of the error message
}

// fixtures is what the Go side hands the Node tests (PAYCORE_CLIENT_FIXTURES).
type fixtures struct {
	Webhooks []webhookCase `json:"webhooks"`
	// The schema of each event type's data by the document (nil: free-form), which the
	// client's webhookDataSchemas must equal.
	WebhookDataSchemas map[string]*string `json:"webhookDataSchemas"`
	SessionKey         struct {
		PrivateKey string `json:"privateKey"` // hex
		PublicKey  string `json:"publicKey"`  // hex, compressed
	} `json:"sessionKey"`
}

// stampRecord is a wallet stamp the Node tests made and the Go side checks (PAYCORE_CLIENT_OUT).
type stampRecord struct {
	Payload string `json:"payload"`
	Stamp   string `json:"stamp"`
}

// TestTypeScriptClient builds and type-checks the TypeScript client and runs its Node tests:
// webhooks signed here by internal/webhooksig (both schemes, two secrets during a rotation)
// must verify, and tampered, stale, wrongly keyed or incomplete ones must not; the signed
// retry and Idempotency-Key retries run against a local server. The stamps the signed-retry
// test made with @turnkey/api-key-stamper must then verify here as the service checks them.
func TestTypeScriptClient(t *testing.T) {
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: the TypeScript client's tests need Node 20+ and npm", tool)
		}
	}
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	// The lock is held through npm test, which rebuilds dist/: the kit's test reads it.
	unlock, err := npmci.Lock("tsclient")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if err := npmci.Install(dir); err != nil {
		t.Fatalf("installing the client's packages: %v", err)
	}

	fx, sessionPub := makeFixtures(t)
	tmp := t.TempDir()
	in := filepath.Join(tmp, "fixtures.json")
	out := filepath.Join(tmp, "stamps.json")
	raw, err := json.Marshal(fx)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in, raw, 0o600); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command("npm", "test", "--silent")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PAYCORE_CLIENT_FIXTURES="+in, "PAYCORE_CLIENT_OUT="+out)
	output, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("npm test in examples/client: %v\n%s", err, output)
	}
	t.Logf("npm test:\n%s", output)
	// Every test ran (the fixture-driven ones skip without PAYCORE_CLIENT_FIXTURES).
	if !strings.Contains(string(output), "# fail 0") || !strings.Contains(string(output), "# skipped 0") {
		t.Fatalf("npm test reported failures, skips or no summary:\n%s", output)
	}

	raw, err = os.ReadFile(out)
	if err != nil {
		t.Fatalf("the Node tests wrote no stamps: %v", err)
	}
	var stamps []stampRecord
	if err := json.Unmarshal(raw, &stamps); err != nil {
		t.Fatal(err)
	}
	if len(stamps) == 0 {
		t.Fatal("the Node tests made no wallet stamp")
	}
	for _, s := range stamps {
		st, err := walletcrypto.ParseStamp(s.Stamp)
		if err != nil {
			t.Fatalf("stamp %q: %v", s.Stamp, err)
		}
		if err := st.Verify([]byte(s.Payload)); err != nil {
			t.Fatalf("stamp over %s: %v", s.Payload, err)
		}
		if !walletcrypto.SameKey(st.PublicKey, sessionPub) {
			t.Fatal("the stamp names another key than the session key")
		}
		if err := st.Verify([]byte(s.Payload + " ")); err == nil {
			t.Fatal("the stamp verified another payload")
		}
	}
}

func makeFixtures(t *testing.T) (fixtures, []byte) {
	t.Helper()
	signer := newSigner(t)
	other := newSigner(t)
	newSecret, newPrintable := webhooksig.NewSecret()
	oldSecret, oldPrintable := webhooksig.NewSecret()
	_, otherPrintable := webhooksig.NewSecret()
	pem := signer.PublicKeyPEM()

	now := time.Now()
	sign := func(body string, at time.Time, secrets ...[]byte) map[string]string {
		id := "Webhook:0190a000-0000-7000-8000-000000000001"
		sig, err := signer.Sign([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		return map[string]string{
			webhooksig.HeaderServiceSignature: sig,
			webhooksig.HeaderID:               id,
			webhooksig.HeaderTimestamp:        fmt.Sprint(at.Unix()),
			webhooksig.HeaderSignature:        webhooksig.SignStandard(secrets, id, at, []byte(body)),
		}
	}
	event := func(typ string, data string) string {
		return fmt.Sprintf(`{"id":"Webhook:0190a000-0000-7000-8000-000000000001","type":%q,"timestamp":%q,"data":%s}`,
			typ, now.UTC().Format(time.RFC3339Nano), data)
	}
	without := func(h map[string]string, name string) map[string]string {
		c := map[string]string{}
		for k, v := range h {
			if k != name {
				c[k] = v
			}
		}
		return c
	}

	body := event("OUTGOING_PAYMENT_COMPLETED", `{"id":"Transaction:0190a000-0000-7000-8000-000000000009","status":"COMPLETED","description":"caf\u00e9 \u2014 r\u00e9sum\u00e9 \u20ac"}`)
	test := event("TEST", `{}`)
	rotated := sign(body, now, newSecret, oldSecret) // two v1 signatures during a rotation
	single := sign(test, now, newSecret)
	stale := sign(body, now.Add(-10*time.Minute), newSecret)
	future := sign(body, now.Add(10*time.Minute), newSecret)
	tampered := strings.Replace(body, "COMPLETED", "FAILED", 1)
	both := []string{newPrintable}

	cases := []webhookCase{
		{Name: "both schemes, one secret", Body: test, Headers: single, SigningKeyPEM: pem, Secrets: both, Valid: true},
		{Name: "rotation: the new secret", Body: body, Headers: rotated, SigningKeyPEM: pem, Secrets: []string{newPrintable}, Valid: true},
		{Name: "rotation: the old secret", Body: body, Headers: rotated, SigningKeyPEM: pem, Secrets: []string{oldPrintable}, Valid: true},
		{Name: "rotation: both secrets, unknown first", Body: body, Headers: rotated, SigningKeyPEM: pem, Secrets: []string{otherPrintable, oldPrintable}, Valid: true},
		{Name: "ecdsa only, no secret", Body: body, Headers: stale, SigningKeyPEM: pem, Schemes: []string{"ecdsa"}, Valid: true},
		{Name: "standard only, no key", Body: body, Headers: rotated, Secrets: []string{oldPrintable}, Schemes: []string{"standard"}, Valid: true},
		{Name: "tampered body", Body: tampered, Headers: rotated, SigningKeyPEM: pem, Secrets: both, FailedScheme: "ecdsa", Error: "does not verify"},
		{Name: "tampered body, standard only", Body: tampered, Headers: rotated, Secrets: both, Schemes: []string{"standard"}, FailedScheme: "standard", Error: "no v1 signature"},
		{Name: "wrong signing key", Body: body, Headers: rotated, SigningKeyPEM: other.PublicKeyPEM(), Secrets: both, FailedScheme: "ecdsa", Error: "does not verify"},
		{Name: "wrong secret", Body: body, Headers: rotated, SigningKeyPEM: pem, Secrets: []string{otherPrintable}, FailedScheme: "standard", Error: "no v1 signature"},
		{Name: "stale timestamp", Body: body, Headers: stale, SigningKeyPEM: pem, Secrets: both, FailedScheme: "standard", Error: "too old"},
		{Name: "future timestamp", Body: body, Headers: future, SigningKeyPEM: pem, Secrets: both, FailedScheme: "standard", Error: "too new"},
		{Name: "missing X-Service-Signature", Body: body, Headers: without(rotated, webhooksig.HeaderServiceSignature), SigningKeyPEM: pem, Secrets: both, FailedScheme: "ecdsa", Error: "missing X-Service-Signature"},
		{Name: "missing webhook-signature", Body: body, Headers: without(rotated, webhooksig.HeaderSignature), SigningKeyPEM: pem, Secrets: both, FailedScheme: "standard", Error: "missing webhook-signature"},
		{Name: "missing webhook-timestamp", Body: body, Headers: without(rotated, webhooksig.HeaderTimestamp), SigningKeyPEM: pem, Secrets: both, FailedScheme: "standard", Error: "missing webhook-timestamp"},
		{Name: "both schemes asked, no key", Body: body, Headers: rotated, Secrets: both, FailedScheme: "input", Error: "signingKeyPem is needed"},
		{Name: "both schemes asked, no secret", Body: body, Headers: rotated, SigningKeyPEM: pem, FailedScheme: "input", Error: "secrets are needed"},
	}

	var fx fixtures
	fx.Webhooks = cases
	fx.WebhookDataSchemas = webhookDataSchemas(t)
	priv, pub, err := walletcrypto.NewSessionKey()
	if err != nil {
		t.Fatal(err)
	}
	fx.SessionKey.PrivateKey = hex.EncodeToString(priv)
	fx.SessionKey.PublicKey = hex.EncodeToString(pub)
	return fx, pub
}

// webhookDataSchemas reads, from api/openapi.yaml, which schema each webhook event type's
// data has: the WebhookEnvelope's if/then rules, nil for the types none names.
func webhookDataSchemas(t *testing.T) map[string]*string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "api", "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	type typeRule struct {
		Const string   `yaml:"const"`
		Enum  []string `yaml:"enum"`
	}
	var doc struct {
		Components struct {
			Schemas struct {
				WebhookEventType struct {
					Enum []string `yaml:"enum"`
				} `yaml:"WebhookEventType"`
				WebhookEnvelope struct {
					AllOf []struct {
						If struct {
							Properties struct {
								Type typeRule `yaml:"type"`
							} `yaml:"properties"`
						} `yaml:"if"`
						Then struct {
							Properties struct {
								Data struct {
									Ref string `yaml:"$ref"`
								} `yaml:"data"`
							} `yaml:"properties"`
						} `yaml:"then"`
					} `yaml:"allOf"`
				} `yaml:"WebhookEnvelope"`
			} `yaml:"schemas"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("api/openapi.yaml: %v", err)
	}
	s := doc.Components.Schemas
	out := map[string]*string{}
	for _, typ := range s.WebhookEventType.Enum {
		out[typ] = nil
	}
	for _, rule := range s.WebhookEnvelope.AllOf {
		ref, ok := strings.CutPrefix(rule.Then.Properties.Data.Ref, "#/components/schemas/")
		types := rule.If.Properties.Type.Enum
		if c := rule.If.Properties.Type.Const; c != "" {
			types = append(types, c)
		}
		if !ok || len(types) == 0 {
			t.Fatalf("a WebhookEnvelope rule the test does not read: %+v", rule)
		}
		for _, typ := range types {
			out[typ] = &ref
		}
	}
	if len(out) < 20 {
		t.Fatalf("read %d webhook event types from api/openapi.yaml", len(out))
	}
	return out
}

func newSigner(t *testing.T) *webhooksig.ECDSASigner {
	t.Helper()
	der, err := webhooksig.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	s, err := webhooksig.NewECDSASigner(der)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
