package paycore_test

// These tests run against a running service: PAYCORE_SDK_BASE_URL, PAYCORE_SDK_TOKEN_ID and
// PAYCORE_SDK_TOKEN_SECRET name it and a sandbox platform's API token with every permission,
// whose webhooks the service may deliver to this machine. `make test` runs them
// (TestGoSDK in the paycore module starts the service and passes them).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	paycore "paycore/sdk/go"
)

func service(t *testing.T) *paycore.ClientWithResponses {
	t.Helper()
	base, id, secret := os.Getenv("PAYCORE_SDK_BASE_URL"), os.Getenv("PAYCORE_SDK_TOKEN_ID"), os.Getenv("PAYCORE_SDK_TOKEN_SECRET")
	if base == "" || id == "" || secret == "" {
		t.Skip("no service: PAYCORE_SDK_BASE_URL, PAYCORE_SDK_TOKEN_ID and PAYCORE_SDK_TOKEN_SECRET are unset (make test sets them)")
	}
	c, err := paycore.New(base, id, secret)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// must ends the test (a panic) on a transport error; check then looks at the answer.
func must[R any](r R, err error) R {
	if err != nil {
		panic(err)
	}
	return r
}

func check(t *testing.T, resp *http.Response, body []byte) {
	t.Helper()
	if err := paycore.CheckResponse(resp, body); err != nil {
		t.Fatal(err)
	}
}

// walletAccount configures the platform for embedded wallets and opens a customer whose
// EMBEDDED_WALLET account it returns.
func walletAccount(t *testing.T, ctx context.Context, c *paycore.ClientWithResponses, email string) string {
	t.Helper()
	cfg := must(c.UpdatePlatformConfigWithBodyWithResponse(ctx, "application/json", strings.NewReader(
		`{"supportedCurrencies":[{"currencyCode":"USD","minAmount":1,"maxAmount":100000000,"enabledTransactionTypes":["INCOMING","OUTGOING"],"requiredCounterpartyFields":[]},`+
			`{"currencyCode":"USDC","minAmount":1,"maxAmount":100000000,"enabledTransactionTypes":["INCOMING","OUTGOING"],"requiredCounterpartyFields":[]}],`+
			`"embeddedWalletConfig":{"appName":"Go SDK"}}`)))
	check(t, cfg.HTTPResponse, cfg.Body)
	cust := must(c.CreateCustomerWithBodyWithResponse(ctx, nil, "application/json", strings.NewReader(
		`{"customerType":"INDIVIDUAL","region":"US","email":"`+email+`","currencies":["USD","USDC"]}`)))
	check(t, cust.HTTPResponse, cust.Body)
	var created struct{ ID string }
	if err := json.Unmarshal(cust.Body, &created); err != nil {
		t.Fatal(err)
	}
	walletType := paycore.InternalAccountType("EMBEDDED_WALLET")
	accts := must(c.ListCustomerInternalAccountsWithResponse(ctx, &paycore.ListCustomerInternalAccountsParams{CustomerId: &created.ID, Type: &walletType}))
	check(t, accts.HTTPResponse, accts.Body)
	if accts.JSON200 == nil || len(accts.JSON200.Data) != 1 {
		t.Fatalf("wallet accounts: %s", accts.Body)
	}
	return accts.JSON200.Data[0].Id
}

// session signs in to the account with an e-mail code (the sandbox's 000000) and a session
// key held by this client (a compressed public key: the session's key is the client's).
func session(t *testing.T, ctx context.Context, c *paycore.ClientWithResponses, credID string) (string, *paycore.SessionStamper) {
	t.Helper()
	stamper, err := paycore.GenerateSessionStamper()
	if err != nil {
		t.Fatal(err)
	}
	otp, pub := "000000", stamper.PublicKeyHex()
	v := must(c.VerifyAuthCredentialWithResponse(ctx, credID, nil, paycore.AuthCredentialVerifyRequest{Otp: &otp, ClientPublicKey: &pub}))
	check(t, v.HTTPResponse, v.Body)
	return v.JSON200.Id, stamper
}

// TestSignedRetryRevokesASession revokes a wallet session with SignedRetry: the service
// challenges the request, another session of the account stamps the payload, the retry
// succeeds. A stamp by a key that is no session of the account is refused.
func TestSignedRetryRevokesASession(t *testing.T) {
	c := service(t)
	ctx := context.Background()
	acct := walletAccount(t, ctx, c, "sdk-signed@example.com")
	cred := must(c.CreateAuthCredentialWithResponse(ctx, nil, paycore.AuthCredentialCreateRequest{AccountId: acct, Type: "EMAIL_OTP"}))
	check(t, cred.HTTPResponse, cred.Body)
	first, signer := session(t, ctx, c, cred.JSON201.Id)
	second, _ := session(t, ctx, c, cred.JSON201.Id)

	revoke := func(id string) paycore.Call[*paycore.RevokeAuthSessionResult] {
		return func(ctx context.Context, edit paycore.RequestEditorFn) (*paycore.RevokeAuthSessionResult, error) {
			return c.RevokeAuthSessionWithResponse(ctx, id, nil, edit)
		}
	}
	// A stranger's key: the retry is refused with the check that failed.
	stranger, err := paycore.GenerateSessionStamper()
	if err != nil {
		t.Fatal(err)
	}
	_, err = paycore.SignedRetry(ctx, revoke(second), stranger)
	var apiErr *paycore.APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 401 || apiErr.Reason != "Invalid Service-Wallet-Signature" {
		t.Fatalf("a stranger's stamp: %v, want 401 Invalid Service-Wallet-Signature", err)
	}
	// The account's first session signs the revocation of the second.
	r, err := paycore.SignedRetry(ctx, revoke(second), signer)
	if err != nil {
		t.Fatalf("signed retry: %v", err)
	}
	if r.StatusCode()/100 != 2 {
		t.Fatalf("revoke: %d %s", r.StatusCode(), r.Body)
	}
	list := must(c.ListAuthSessionsWithResponse(ctx, &paycore.ListAuthSessionsParams{AccountId: acct}))
	check(t, list.HTTPResponse, list.Body)
	if n := len(list.JSON200.Data); n != 1 || list.JSON200.Data[0].Id != first {
		t.Fatalf("sessions after the revocation: %s", list.Body)
	}
	// The signer's failure is the client's, not the service's.
	_, err = paycore.SignedRetry(ctx, revoke(first), paycore.SignerFunc(func(context.Context, string) (string, error) {
		return "", errors.New("no key here")
	}))
	var sErr *paycore.SignedRetryError
	if !errors.As(err, &sErr) {
		t.Fatalf("a failing signer: %v, want a SignedRetryError", err)
	}
}

// flaky fails the first n requests of a kind before they reach the service, as a lost
// connection would: the request went out (or not) and no answer came back.
type flaky struct {
	mu    sync.Mutex
	left  int
	sent  int
	after bool // true: the request reaches the service, then the answer is lost
}

func (f *flaky) Do(req *http.Request) (*http.Response, error) {
	f.mu.Lock()
	f.sent++
	fail := f.left > 0
	f.left--
	f.mu.Unlock()
	if fail && !f.after {
		return nil, errors.New("connection reset before sending")
	}
	resp, err := http.DefaultClient.Do(req)
	if fail && err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return nil, errors.New("connection reset before the answer")
	}
	return resp, err
}

// TestIdempotentResendsAfterALostAnswer creates a customer whose first answer is lost on
// the way back: Idempotent sends the request again with the same key and gets the stored
// answer, and the customer exists once.
func TestIdempotentResendsAfterALostAnswer(t *testing.T) {
	c := service(t)
	ctx := context.Background()
	f := &flaky{left: 2, after: true}
	lossy, err := paycore.New(os.Getenv("PAYCORE_SDK_BASE_URL"), os.Getenv("PAYCORE_SDK_TOKEN_ID"), os.Getenv("PAYCORE_SDK_TOKEN_SECRET"), paycore.WithHTTPClient(f))
	if err != nil {
		t.Fatal(err)
	}
	ref := "sdk-idem-" + time.Now().Format("150405.000000")
	body := `{"customerType":"INDIVIDUAL","region":"US","platformCustomerId":"` + ref + `","currencies":["USD"]}`
	var retries int
	r, err := paycore.Idempotent(ctx, func(ctx context.Context, edit paycore.RequestEditorFn) (*paycore.CreateCustomerResult, error) {
		return lossy.CreateCustomerWithBodyWithResponse(ctx, nil, "application/json", strings.NewReader(body), edit)
	}, paycore.IdempotencyOptions{BaseDelay: 10 * time.Millisecond, OnRetry: func(int, time.Duration, error) { retries++ }})
	if err != nil {
		t.Fatalf("idempotent create: %v", err)
	}
	if r.StatusCode() != 201 || retries != 2 || f.sent != 3 {
		t.Fatalf("status %d after %d retries (%d sent)", r.StatusCode(), retries, f.sent)
	}
	if r.HTTPResponse.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("the third answer is not the stored one (Idempotent-Replayed %q)", r.HTTPResponse.Header.Get("Idempotent-Replayed"))
	}
	list := must(c.ListCustomersWithResponse(ctx, &paycore.ListCustomersParams{PlatformCustomerId: &ref}))
	check(t, list.HTTPResponse, list.Body)
	if n := len(list.JSON200.Data); n != 1 {
		t.Fatalf("%d customers with platformCustomerId %s, want 1", n, ref)
	}

	// The same key with another request is 422 and never resent.
	retries = 0
	_, err = paycore.Idempotent(ctx, func(ctx context.Context, edit paycore.RequestEditorFn) (*paycore.CreateCustomerResult, error) {
		return c.CreateCustomerWithBodyWithResponse(ctx, nil, "application/json", strings.NewReader(strings.Replace(body, "USD", "EUR", 1)), edit)
	}, paycore.IdempotencyOptions{Key: keyOf(t, r), OnRetry: func(int, time.Duration, error) { retries++ }})
	var apiErr *paycore.APIError
	if !errors.As(err, &apiErr) || apiErr.Code != "IDEMPOTENCY_KEY_REUSED" || retries != 0 {
		t.Fatalf("a reused key: %v after %d retries, want 422 IDEMPOTENCY_KEY_REUSED at once", err, retries)
	}
}

func keyOf(t *testing.T, r *paycore.CreateCustomerResult) string {
	t.Helper()
	key := r.HTTPResponse.Request.Header.Get("Idempotency-Key")
	if key == "" {
		t.Fatal("the request carried no Idempotency-Key")
	}
	return key
}

// TestWebhookVerifier receives the service's test webhook on a local endpoint and verifies
// it both ways, across a secret rotation, and refuses a replay and a forged body.
func TestWebhookVerifier(t *testing.T) {
	c := service(t)
	ctx := context.Background()
	type delivery struct {
		body   []byte
		header http.Header
	}
	got := make(chan delivery, 4)
	endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- delivery{b, r.Header.Clone()}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer endpoint.Close()
	cfg := must(c.UpdatePlatformConfigWithBodyWithResponse(ctx, "application/json", strings.NewReader(`{"webhookEndpoint":"`+endpoint.URL+`/webhooks"}`)))
	check(t, cfg.HTTPResponse, cfg.Body)
	<-got // the TEST event that follows setting the endpoint

	key := must(c.GetWebhookSigningKeyWithResponse(ctx))
	check(t, key.HTTPResponse, key.Body)
	old := must(c.GetWebhookSecretWithResponse(ctx))
	check(t, old.HTTPResponse, old.Body)
	rotated := must(c.RotateWebhookSecretWithResponse(ctx, nil))
	check(t, rotated.HTTPResponse, rotated.Body)
	newSecret := rotated.JSON200.Secret

	sent := must(c.SendWebhookTestWithResponse(ctx, nil))
	check(t, sent.HTTPResponse, sent.Body)
	d := <-got
	for name, secrets := range map[string][]string{"the new secret": {newSecret}, "the old secret": {old.JSON200.Secret}, "both": {newSecret, old.JSON200.Secret}} {
		v := paycore.WebhookVerifier{SigningKeyPEM: key.JSON200.PublicKey, Secrets: secrets}
		ev, err := v.Verify(d.body, d.header)
		if err != nil {
			t.Fatalf("with %s: %v", name, err)
		}
		if ev.Type != "TEST" || !strings.HasPrefix(ev.Id, "Webhook:") {
			t.Fatalf("event %+v", ev)
		}
	}
	late := paycore.WebhookVerifier{Secrets: []string{newSecret}, Now: func() time.Time { return time.Now().Add(10 * time.Minute) }}
	if _, err := late.Verify(d.body, d.header); err == nil || !strings.Contains(err.Error(), "replay") {
		t.Fatalf("a webhook ten minutes old: %v, want a replay refusal", err)
	}
	forged := bytes.Replace(d.body, []byte(`"TEST"`), []byte(`"TEST "`), 1)
	for _, v := range []paycore.WebhookVerifier{{SigningKeyPEM: key.JSON200.PublicKey}, {Secrets: []string{newSecret}}} {
		var vErr *paycore.WebhookVerificationError
		if _, err := v.Verify(forged, d.header); !errors.As(err, &vErr) {
			t.Fatalf("a forged body verified: %v", err)
		}
	}
	if _, err := (paycore.WebhookVerifier{Secrets: []string{"whsec_" + strings.Repeat("A", 32)}}).Verify(d.body, d.header); err == nil {
		t.Fatal("another secret verified")
	}
}

// Check passes a 2xx result on and turns any other answer into an *APIError.
func TestCheck(t *testing.T) {
	c := service(t)
	ctx := context.Background()
	cfg, err := paycore.Check(c.GetPlatformConfigWithResponse(ctx))
	if err != nil || cfg.JSON200 == nil {
		t.Fatalf("the configuration: %v", err)
	}
	missing, err := paycore.Check(c.GetCustomerByIdWithResponse(ctx, "Customer:01900000-0000-7000-8000-000000000000"))
	var apiErr *paycore.APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 404 || apiErr.RequestID == "" || missing.StatusCode() != 404 {
		t.Fatalf("an unknown customer: %v", err)
	}
	if _, err := paycore.Check(c.GetPlatformConfigWithResponse(ctx, func(context.Context, *http.Request) error {
		return errors.New("refused before sending")
	})); err == nil || !strings.Contains(err.Error(), "refused before sending") {
		t.Fatalf("a request that was never sent: %v", err)
	}
}
