package walletauth

import (
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/ids"
)

// A stamp of the wire-format test vectors: the session key below over stampPayload.
const (
	stampPayload  = `{"organizationId":"org_123","parameters":{"amount":"1.5"},"timestampMs":"1700000000000"}`
	stampSession  = "0227fddc91a598a199043705ae0673241d9263f0f397c860b24018708cca6ddc28"
	stampVector   = "eyJwdWJsaWNLZXkiOiIwMjI3ZmRkYzkxYTU5OGExOTkwNDM3MDVhZTA2NzMyNDFkOTI2M2YwZjM5N2M4NjBiMjQwMTg3MDhjY2E2ZGRjMjgiLCJzY2hlbWUiOiJTSUdOQVRVUkVfU0NIRU1FX1RLX0FQSV9QMjU2Iiwic2lnbmF0dXJlIjoiMzA0NjAyMjEwMDhjMzQyOGUxYjE0MTEzMjM3NDVmOGUxMjQyNDc0ZGIzYjc2MTEwMTRmMTI3NjlhNGU3YWI1YTgyYjQ4OTZkNDkwMjIxMDBjOTNhMzYzMjZiMjQ4NTNkZGE3ZDQ1OTg3MjQ3NDg5MzdkMTZhYmJjZWEwYWYxMzEyNzhhNzY4MDA3ZTYyZTg1In0"
	otherSessionK = "03" + "6b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"
)

func TestRequestHashBindsMethodPathAndBody(t *testing.T) {
	base := RequestHash("PATCH", "/p/internal-accounts/x", []byte(`{"a":1}`))
	for name, other := range map[string][]byte{
		"method": RequestHash("POST", "/p/internal-accounts/x", []byte(`{"a":1}`)),
		"path":   RequestHash("PATCH", "/p/internal-accounts/y", []byte(`{"a":1}`)),
		"body":   RequestHash("PATCH", "/p/internal-accounts/x", []byte(`{"a":2}`)),
	} {
		if string(other) == string(base) {
			t.Errorf("the hash ignores the %s", name)
		}
	}
}

func TestNewRetryChallenge(t *testing.T) {
	acct := uuid.New()
	now := time.Date(2025, 10, 13, 12, 0, 0, 700_000_000, time.UTC)
	c := NewRetryChallenge(KindExportWallet, acct, "POST", "/p/internal-accounts/x/export", []byte(`{}`), now)
	if !c.ExpiresAt.Equal(time.Date(2025, 10, 13, 12, 5, 0, 0, time.UTC)) {
		t.Fatalf("expires %s, want 5 minutes later in whole seconds", c.ExpiresAt)
	}
	if string(c.Binding) != string(RequestHash("POST", "/p/internal-accounts/x/export", []byte(`{}`))) || c.Kind != KindExportWallet || c.AccountID != acct {
		t.Fatalf("challenge %+v", c)
	}
	var p map[string]string
	if err := json.Unmarshal([]byte(c.Payload), &p); err != nil {
		t.Fatal(err)
	}
	wantPayload := map[string]string{"requestId": c.RequestID(), "type": "EXPORT_WALLET", "accountId": ids.Format(ids.InternalAccount, acct),
		"expiresAt": "2025-10-13T12:05:00Z", "method": "POST", "path": "/p/internal-accounts/x/export",
		"bodySha256": "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"}
	for k, v := range wantPayload {
		if p[k] != v {
			t.Errorf("payload %s = %q, want %q", k, p[k], v)
		}
	}
	if len(p) != len(wantPayload) || !strings.HasPrefix(c.Payload, `{"requestId":`) {
		t.Fatalf("payload %s", c.Payload)
	}
}

func TestRetryRequestID(t *testing.T) {
	id := uuid.New()
	got, err := RetryRequestID("stamp", ids.Format(ids.Request, id))
	if err != nil || got != id {
		t.Fatalf("%v %v", got, err)
	}
	_, err = RetryRequestID("", ids.Format(ids.Request, id))
	check(t, "no signature", err, want{code: catalog.WalletSignatureMissing, reason: ReasonBadSignature, msg: "go together"})
	_, err = RetryRequestID("stamp", "")
	check(t, "no request id", err, want{code: catalog.RequestIDMissing, reason: ReasonBadSignature, msg: "go together"})
	_, err = RetryRequestID("stamp", "Transaction:"+id.String())
	check(t, "not a request id", err, want{code: catalog.WalletSignatureInvalid, reason: ReasonBadSignature, msg: "Request-Id is not a requestId this service issued"})
}

func TestCheckRetry(t *testing.T) {
	acct, used := uuid.New(), t0.Add(-time.Second)
	hash := RequestHash("DELETE", "/p/auth/sessions/s", nil)
	ok := Issued{AccountID: acct, Kind: KindRevokeSession, Binding: hash, ExpiresAt: t0.Add(time.Minute)}
	for name, tc := range map[string]struct {
		is   func(Issued) Issued
		want want
	}{
		"matching":      {func(i Issued) Issued { return i }, want{}},
		"used":          {func(i Issued) Issued { i.UsedAt = &used; return i }, want{code: catalog.Unauthorized, reason: "Request-Id already used"}},
		"expired":       {func(i Issued) Issued { i.ExpiresAt = t0.Add(-time.Second); return i }, want{code: catalog.Unauthorized, reason: "Signed retry expired"}},
		"other account": {func(i Issued) Issued { i.AccountID = uuid.New(); return i }, want{code: catalog.WalletSignatureBodyMismatch, reason: ReasonBadSignature, msg: "repeat the original request exactly"}},
		"other kind":    {func(i Issued) Issued { i.Kind = KindExportWallet; return i }, want{code: catalog.WalletSignatureBodyMismatch, reason: ReasonBadSignature, msg: "repeat"}},
		"other request": {func(i Issued) Issued { i.Binding = RequestHash("DELETE", "/p/auth/sessions/t", nil); return i }, want{code: catalog.WalletSignatureBodyMismatch, reason: ReasonBadSignature, msg: "repeat"}},
	} {
		check(t, name, CheckRetry(tc.is(ok), acct, KindRevokeSession, hash, t0), tc.want)
	}
	check(t, "used first", RetryUsed(), want{code: catalog.Unauthorized, reason: "Request-Id already used", msg: "this requestId was already used"})
}

func TestStampKeyAndSigner(t *testing.T) {
	key, err := StampKey(stampVector, stampPayload)
	if err != nil {
		t.Fatal(err)
	}
	_, err = StampKey(stampVector, strings.Replace(stampPayload, "1.5", "2.5", 1))
	check(t, "tampered payload", err, want{code: catalog.WalletSignatureInvalid, reason: ReasonBadSignature, msg: "does not sign payloadToSign"})
	_, err = StampKey("sandbox-valid-signature", stampPayload)
	check(t, "not a stamp", err, want{code: catalog.WalletSignatureMalformed, reason: ReasonBadSignature, msg: "Service-Wallet-Signature: "})

	session, _ := hex.DecodeString(stampSession)
	other, _ := hex.DecodeString(otherSessionK)
	cred, otherCred := uuid.New(), uuid.New()
	active := []SessionSigner{{CredentialID: otherCred, PublicKey: other}, {CredentialID: cred, PublicKey: session}}
	check(t, "active session", CheckSigner(key, active, uuid.Nil), want{})
	check(t, "another credential's session", CheckSigner(key, active, otherCred), want{})
	check(t, "the excluded credential's session", CheckSigner(key, active, cred), want{code: catalog.WalletSignatureInvalid, reason: ReasonBadSignature, msg: "not an active session"})
	check(t, "no session", CheckSigner(key, active[:1], uuid.Nil), want{code: catalog.WalletSignatureInvalid, reason: ReasonBadSignature, msg: "not an active session"})
}
