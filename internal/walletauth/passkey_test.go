package walletauth

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/platformconfig"
)

func TestRelyingPartyOf(t *testing.T) {
	_, err := RelyingPartyOf(platformconfig.Wallet{PasskeyRpID: ptr("acme.example")})
	check(t, "no origins", err, want{code: catalog.InvalidInput, msg: "passkeys need embeddedWalletConfig.passkeyRpId and passkeyOrigins"})
	_, err = RelyingPartyOf(platformconfig.Wallet{PasskeyOrigins: &[]string{"https://acme.example"}})
	check(t, "no rp id", err, want{code: catalog.InvalidInput, msg: "passkeys need"})
	rp, err := RelyingPartyOf(platformconfig.Wallet{PasskeyRpID: ptr("acme.example"), PasskeyOrigins: &[]string{"https://acme.example"}})
	if err != nil || rp.ID != "acme.example" || rp.Name != "Wallet" || len(rp.Origins) != 1 {
		t.Fatalf("%+v %v", rp, err)
	}
	if rp, _ := RelyingPartyOf(platformconfig.Wallet{PasskeyRpID: ptr("a.example"), PasskeyOrigins: &[]string{"https://a.example"}, AppName: ptr("Acme")}); rp.Name != "Acme" {
		t.Fatalf("name %q", rp.Name)
	}
}

func TestPasskeyChallengeRate(t *testing.T) {
	check(t, "9 recent", CheckPasskeyChallengeRate(9), want{})
	err := CheckPasskeyChallengeRate(10)
	check(t, "10 recent", err, want{code: catalog.RateLimited, msg: "too many passkey challenges; retry in a minute"})
	if rf := asRefusal(err); rf.RetryAfter != 60 {
		t.Fatalf("Retry-After %d", rf.RetryAfter)
	}
}

func TestNewPasskeyChallenge(t *testing.T) {
	acct := uuid.New()
	upper := strings.ToUpper(testClientKey[:10]) + testClientKey[10:]
	c := NewPasskeyChallenge(acct, "cred-id", upper, t0)
	if c.Kind != KindPasskeySession || c.AccountID != acct || !c.ExpiresAt.Equal(t0.Add(5*time.Minute)) || len(c.Binding) != 65 || c.Binding[0] != 4 {
		t.Fatalf("challenge %+v", c)
	}
	var p map[string]string
	if err := json.Unmarshal([]byte(c.Payload), &p); err != nil {
		t.Fatal(err)
	}
	if p["clientPublicKey"] != testClientKey || p["credentialId"] != "cred-id" || p["type"] != "PASSKEY_SESSION" || p["requestId"] != c.RequestID() ||
		p["accountId"] != ids.Format(ids.InternalAccount, acct) || p["expiresAt"] != "2025-10-13T12:05:00Z" {
		t.Fatalf("payload %s", c.Payload)
	}
	sum := sha256.Sum256([]byte(c.Payload))
	if PasskeyChallengeOf(c.Payload) != base64.RawURLEncoding.EncodeToString(sum[:]) {
		t.Fatal("the WebAuthn challenge is not the base64url SHA-256 of the payload")
	}
}

func TestCheckPasskeyChallenge(t *testing.T) {
	acct, used := uuid.New(), t0.Add(-time.Second)
	ok := Issued{AccountID: acct, Kind: KindPasskeySession, ExpiresAt: t0.Add(time.Minute)}
	for name, tc := range map[string]struct {
		is    Issued
		found bool
		want  want
	}{
		"valid":         {ok, true, want{}},
		"unknown":       {Issued{}, false, want{code: catalog.Unauthorized, reason: ReasonBadPasskey, msg: "Request-Id is not a challenge of this credential"}},
		"signed retry":  {Issued{AccountID: acct, Kind: KindRevokeSession, ExpiresAt: ok.ExpiresAt}, true, want{code: catalog.Unauthorized, reason: ReasonBadPasskey, msg: "not a challenge of this credential"}},
		"other account": {Issued{AccountID: uuid.New(), Kind: KindPasskeySession, ExpiresAt: ok.ExpiresAt}, true, want{code: catalog.Unauthorized, reason: ReasonBadPasskey, msg: "not a challenge of this credential"}},
		"used":          {Issued{AccountID: acct, Kind: KindPasskeySession, ExpiresAt: ok.ExpiresAt, UsedAt: &used}, true, want{code: catalog.Unauthorized, reason: ReasonBadPasskey, msg: "this challenge was already used"}},
		"expired":       {Issued{AccountID: acct, Kind: KindPasskeySession, ExpiresAt: t0.Add(-time.Second)}, true, want{code: catalog.Unauthorized, reason: ReasonBadPasskey, msg: "the challenge has expired"}},
	} {
		check(t, name, CheckPasskeyChallenge(tc.is, tc.found, acct, t0), tc.want)
	}
	_, err := PasskeyRequestID("Request-Id", "")
	check(t, "no Request-Id", err, want{code: catalog.InvalidInput, field: "Request-Id", msg: "the Request-Id header (the requestId of the challenge) is required"})
	check(t, "registration challenge", CheckRegistrationChallenge(ptr("")), want{code: catalog.InvalidInput, field: "challenge"})
	check(t, "registration challenge given", CheckRegistrationChallenge(ptr("abc")), want{})
}

func TestPasskeyShapes(t *testing.T) {
	b64 := base64.RawURLEncoding.EncodeToString([]byte(`{"type":"webauthn.get"}`))
	good := Assertion{CredentialID: "AQID", ClientDataJSON: b64, AuthenticatorData: "AQID", Signature: "AQID"}
	check(t, "good assertion", good.CheckShape(), want{})
	check(t, "padded base64url", Assertion{CredentialID: "AQI=", ClientDataJSON: b64, AuthenticatorData: "AQID", Signature: "AQID"}.CheckShape(), want{})
	missing := good
	missing.Signature = ""
	check(t, "no signature", missing.CheckShape(), want{code: catalog.InvalidInput, field: "assertion.signature", msg: "assertion.signature is required"})
	bad := good
	bad.AuthenticatorData = "a+b/"
	check(t, "standard base64", bad.CheckShape(), want{code: catalog.InvalidInput, field: "assertion.authenticatorData", msg: "must be base64url"})
	handle := good
	handle.UserHandle = ptr("***")
	check(t, "bad user handle", handle.CheckShape(), want{code: catalog.InvalidInput, field: "assertion.userHandle"})
	check(t, "attestation without object", Attestation{CredentialID: "AQID", ClientDataJSON: b64}.CheckShape(),
		want{code: catalog.InvalidInput, field: "attestation.attestationObject", msg: "attestation.attestationObject is required"})
}

func TestClientAndAuthDataProblems(t *testing.T) {
	raw := base64.RawURLEncoding.EncodeToString([]byte(`{}`))
	ok := ClientData{Type: "webauthn.get", Challenge: "ch", Origin: "https://a.example", OriginAllowed: true}
	for name, tc := range map[string]struct {
		raw  string
		cd   func(ClientData) ClientData
		want string
	}{
		"fine":         {raw, func(c ClientData) ClientData { return c }, ""},
		"not JSON":     {base64.RawURLEncoding.EncodeToString([]byte("nope")), func(c ClientData) ClientData { return c }, "f is not base64url of a JSON object"},
		"ceremony":     {raw, func(c ClientData) ClientData { c.Type = "webauthn.create"; return c }, `f.type is "webauthn.create" where "webauthn.get" was expected`},
		"challenge":    {raw, func(c ClientData) ClientData { c.Challenge = "other"; return c }, "f.challenge is not the challenge this ceremony was started with"},
		"origin":       {raw, func(c ClientData) ClientData { c.OriginAllowed = false; return c }, `f.origin "https://a.example" is not one of the platform's passkeyOrigins`},
		"cross origin": {raw, func(c ClientData) ClientData { c.CrossOrigin = true; return c }, "f.crossOrigin is true: passkeys are accepted from the platform's own origins only, not from a cross-origin frame"},
		"top origin":   {raw, func(c ClientData) ClientData { c.TopOrigin = "https://b.example"; return c }, "f.topOrigin is set: passkeys are accepted from the platform's own origins only"},
	} {
		if got := ClientDataProblem("f", tc.raw, tc.cd(ok), "webauthn.get", "ch"); got != tc.want {
			t.Errorf("%s: %q, want %q", name, got, tc.want)
		}
	}
	hash := sha256.Sum256([]byte("a.example"))
	good := AuthData{RPIDHash: hash[:], UserPresent: true}
	for name, tc := range map[string]struct {
		ad   AuthData
		want string
	}{
		"fine":             {good, ""},
		"other party":      {AuthData{RPIDHash: make([]byte, 32), UserPresent: true}, `ad was made for another relying party: its rpIdHash is not the SHA-256 of passkeyRpId "a.example"`},
		"no user presence": {AuthData{RPIDHash: hash[:]}, "ad does not show user presence (the UP flag is not set)"},
		"backup flags":     {AuthData{RPIDHash: hash[:], UserPresent: true, BackupState: true}, "ad flags are inconsistent: backup state is set without backup eligibility"},
		"backed up":        {AuthData{RPIDHash: hash[:], UserPresent: true, BackupState: true, BackupEligible: true}, ""},
	} {
		if got := AuthDataProblem("ad", tc.ad, "a.example"); got != tc.want {
			t.Errorf("%s: %q, want %q", name, got, tc.want)
		}
	}
	// The assertion's own checks come first, in the library's order.
	cd := ClientData{Type: "webauthn.get", Challenge: "ch", OriginAllowed: true}
	facts := AssertionFacts{RawID: []byte{1}, CredentialID: []byte{1}, UserHandle: []byte{7}, WalletID: []byte{7}}
	if got := AssertionProblem(facts, raw, cd, good, "ch", "a.example"); got != "" {
		t.Fatalf("fine assertion: %q", got)
	}
	if got := AssertionProblem(AssertionFacts{RawID: []byte{2}, CredentialID: []byte{1}}, raw, ClientData{}, AuthData{}, "ch", "a.example"); got != "assertion.credentialId is not the credential id of this passkey" {
		t.Fatalf("credential id: %q", got)
	}
	if got := AssertionProblem(AssertionFacts{RawID: []byte{1}, CredentialID: []byte{1}, UserHandle: []byte{8}, WalletID: []byte{7}}, raw, ClientData{}, AuthData{}, "ch", "a.example"); got != "assertion.userHandle is not the user handle of this wallet" {
		t.Fatalf("user handle: %q", got)
	}
	if got := AssertionProblem(facts, raw, cd, AuthData{RPIDHash: hash[:]}, "ch", "a.example"); !strings.HasPrefix(got, "assertion.authenticatorData does not show user presence") {
		t.Fatalf("auth data: %q", got)
	}
	create := ClientData{Type: "webauthn.create", Challenge: "ch", OriginAllowed: true}
	if got := AttestationProblem(AttestationFacts{RawID: []byte{1}, AttestedID: []byte{1}, AttestedCredData: true}, raw, create, good, "ch", "a.example"); got != "" {
		t.Fatalf("fine attestation: %q", got)
	}
	if got := AttestationProblem(AttestationFacts{RawID: []byte{1}}, raw, create, good, "ch", "a.example"); !strings.Contains(got, "carries no attested credential") {
		t.Fatalf("no attested credential: %q", got)
	}
	if got := AttestationProblem(AttestationFacts{RawID: []byte{1}, AttestedID: []byte{2}, AttestedCredData: true}, raw, create, good, "ch", "a.example"); got != "attestation.credentialId is not the credential id inside attestation.attestationObject" {
		t.Fatalf("credential id: %q", got)
	}
}

func TestUnreadable(t *testing.T) {
	obj := base64.RawURLEncoding.EncodeToString([]byte(`{}`))
	for a, want := range map[Assertion]string{
		{ClientDataJSON: "bm9wZQ"}:                                        "assertion.clientDataJson is not base64url of a JSON object",
		{ClientDataJSON: obj, AuthenticatorData: "AQID"}:                  "assertion.authenticatorData is shorter than 37 bytes (rpIdHash, flags and signature counter)",
		{ClientDataJSON: obj, AuthenticatorData: strings.Repeat("A", 60)}: "assertion.authenticatorData is not valid WebAuthn authenticator data",
	} {
		if got := UnreadableAssertion(a); got != want {
			t.Errorf("%+v: %q, want %q", a, got, want)
		}
	}
	if got := UnreadableAttestation(Attestation{ClientDataJSON: "bm9wZQ"}); got != "attestation.clientDataJson is not base64url of a JSON object" {
		t.Fatal(got)
	}
	if got := UnreadableAttestation(Attestation{ClientDataJSON: obj}); !strings.HasPrefix(got, "attestation.attestationObject is not a CBOR") {
		t.Fatal(got)
	}
}
