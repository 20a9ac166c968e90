package api_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/fxamacker/cbor/v2"

	"paycore/api/apitest"
	"paycore/db/view"
	"paycore/internal/walletcrypto/jsinterop"
)

var b64 = base64.RawURLEncoding

// softAuthenticator makes real WebAuthn registration (packed "none" attestation) and
// assertion objects with its own P-256 key, as a platform authenticator would.
type softAuthenticator struct {
	key     *ecdsa.PrivateKey
	credID  []byte
	counter uint32
}

func newSoftAuthenticator(t *testing.T) *softAuthenticator {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	id := make([]byte, 16)
	_, _ = rand.Read(id)
	return &softAuthenticator{key: k, credID: id}
}

func (a *softAuthenticator) authData(rpID string, flags byte, attested []byte) []byte {
	h := sha256.Sum256([]byte(rpID))
	a.counter++
	out := append(h[:], flags)
	out = binary.BigEndian.AppendUint32(out, a.counter)
	return append(out, attested...)
}

func (a *softAuthenticator) register(t *testing.T, challenge, origin, rpID string) map[string]any {
	t.Helper()
	pub, _ := a.key.PublicKey.Bytes()
	cose, err := cbor.Marshal(map[int]any{1: 2, 3: -7, -1: 1, -2: pub[1:33], -3: pub[33:]})
	if err != nil {
		t.Fatal(err)
	}
	attested := make([]byte, 16) // AAGUID
	attested = binary.BigEndian.AppendUint16(attested, uint16(len(a.credID)))
	attested = append(append(attested, a.credID...), cose...)
	authData := a.authData(rpID, 0x45, attested) // UP | UV | AT
	att, err := cbor.Marshal(map[string]any{"fmt": "none", "attStmt": map[string]any{}, "authData": authData})
	if err != nil {
		t.Fatal(err)
	}
	cd, _ := json.Marshal(map[string]any{"type": "webauthn.create", "challenge": challenge, "origin": origin, "crossOrigin": false})
	return map[string]any{"credentialId": b64.EncodeToString(a.credID), "clientDataJson": b64.EncodeToString(cd),
		"attestationObject": b64.EncodeToString(att), "transports": []string{"internal"}}
}

func (a *softAuthenticator) assert(t *testing.T, challenge, origin, rpID string) map[string]any {
	t.Helper()
	cd, _ := json.Marshal(map[string]any{"type": "webauthn.get", "challenge": challenge, "origin": origin, "crossOrigin": false})
	authData := a.authData(rpID, 0x05, nil) // UP | UV
	cdh := sha256.Sum256(cd)
	sum := sha256.Sum256(append(append([]byte{}, authData...), cdh[:]...))
	sig, err := ecdsa.SignASN1(rand.Reader, a.key, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{"credentialId": b64.EncodeToString(a.credID), "clientDataJson": b64.EncodeToString(cd),
		"authenticatorData": b64.EncodeToString(authData), "signature": b64.EncodeToString(sig)}
}

const (
	rpID   = "wallet.example.com"
	origin = "https://wallet.example.com"
)

func passkeyPlatform(t *testing.T, e *env, sandbox bool) *apitest.Client {
	c, _ := e.platform(sandbox)
	multiCurrency(t, c, true)
	if r := c.Do("PATCH", "/config", map[string]any{"embeddedWalletConfig": map[string]any{"passkeyRpId": rpID, "passkeyOrigins": []string{origin}}}); r.Status != 200 {
		t.Fatalf("config: %d %s", r.Status, r.Body)
	}
	return c
}

// Passkeys are registered and used with real attestation and assertion objects, verified
// by go-webauthn; every wrong piece is refused.
func TestPasskeyRegistrationAndSessions(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := passkeyPlatform(t, e, false)
	acct := walletAccount(t, c, "hal@example.com")
	auth := newSoftAuthenticator(t)
	regChallenge := b64.EncodeToString([]byte("registration-challenge-0123456789"))

	// A registration made for another challenge or origin is refused.
	for name, att := range map[string]map[string]any{
		"challenge": auth.register(t, b64.EncodeToString([]byte("another-challenge")), origin, rpID),
		"origin":    auth.register(t, regChallenge, "https://evil.example", rpID),
		"rp id":     auth.register(t, regChallenge, origin, "evil.example"),
	} {
		r := c.Do("POST", "/auth/credentials", map[string]any{"type": "PASSKEY", "accountId": acct, "nickname": "Laptop", "challenge": regChallenge, "attestation": att})
		res := expectError(t, r, 401, "UNAUTHORIZED")
		if res["reason"] != "Invalid passkey signature" {
			t.Fatalf("%s: reason %v", name, res["reason"])
		}
	}
	cred := registerPasskey(t, c, auth, acct, regChallenge)
	if cred.CredentialID != b64.EncodeToString(auth.credID) || cred.Nickname != "Laptop" {
		t.Fatalf("credential %+v", cred)
	}
	// One passkey per account.
	other := newSoftAuthenticator(t)
	expectError(t, c.Do("POST", "/auth/credentials", map[string]any{"type": "PASSKEY", "accountId": acct, "nickname": "Phone",
		"challenge": regChallenge, "attestation": other.register(t, regChallenge, origin, rpID)}), 400, "PASSKEY_CREDENTIAL_ALREADY_EXISTS")

	// Authenticate: challenge (bound to clientPublicKey), assertion, session.
	expectError(t, c.Do("POST", "/auth/credentials/"+cred.ID+"/challenge", map[string]any{}), 400, "INVALID_INPUT")
	client, pub := clientKeyPair(t)
	ch, r := passkeyChallenge(t, c, cred.ID, pub)
	if ch.CredentialID != cred.CredentialID || ch.Challenge == "" {
		t.Fatalf("challenge %s", r.Body)
	}
	verify := func(assertion map[string]any, requestID string) *apitest.Response {
		return c.Do("POST", "/auth/credentials/"+cred.ID+"/verify", map[string]any{"assertion": assertion}, "Request-Id", requestID)
	}
	for name, rr := range map[string]*apitest.Response{
		"other key":       verify(other.assertFor(auth, t, ch.Challenge), ch.RequestID),
		"other challenge": verify(auth.assert(t, b64.EncodeToString([]byte("nope")), origin, rpID), ch.RequestID),
		"other origin":    verify(auth.assert(t, ch.Challenge, "https://evil.example", rpID), ch.RequestID),
		"magic value":     verify(map[string]any{"credentialId": cred.CredentialID, "clientDataJson": "e30", "authenticatorData": "AA", "signature": "sandbox-valid-passkey-signature"}, ch.RequestID),
	} {
		res := expectError(t, rr, 401, "UNAUTHORIZED")
		if res["reason"] != "Invalid passkey signature" {
			t.Fatalf("%s: reason %v", name, res["reason"])
		}
	}
	good := auth.assert(t, ch.Challenge, origin, rpID)
	r = verify(good, ch.RequestID)
	if r.Status != 200 {
		t.Fatalf("verify: %d %s", r.Status, r.Body)
	}
	var sess view.Session
	r.Decode(t, &sess)
	js := jsinterop.Start(t)
	if len(js.Decrypt(sess.EncryptedSessionSigningKey, hex.EncodeToString(client.Bytes()))) != 64 {
		t.Fatal("the session key is not sealed to the challenge's clientPublicKey")
	}
	// The challenge is single-use.
	expectError(t, verify(auth.assert(t, ch.Challenge, origin, rpID), ch.RequestID), 401, "UNAUTHORIZED")
	expectError(t, c.Do("POST", "/auth/credentials/"+cred.ID+"/verify", map[string]any{"assertion": good}), 400, "INVALID_INPUT")
}

// assertFor signs an assertion with a's key but claiming cred's credential id.
func (a *softAuthenticator) assertFor(cred *softAuthenticator, t *testing.T, challenge string) map[string]any {
	as := a.assert(t, challenge, origin, rpID)
	as["credentialId"] = b64.EncodeToString(cred.credID)
	return as
}

// Sandbox platforms accept the magic assertion signature; the challenge still binds the
// session to the client key.
func TestPasskeySandboxMagicValue(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := passkeyPlatform(t, e, true)
	acct := walletAccount(t, c, "ivy@example.com")
	auth := newSoftAuthenticator(t)
	ch0 := b64.EncodeToString([]byte("sandbox-registration-challenge-01"))
	cred := registerPasskey(t, c, auth, acct, ch0)
	_, pub := clientKeyPair(t)
	ch, _ := passkeyChallenge(t, c, cred.ID, pub)
	r := c.Do("POST", "/auth/credentials/"+cred.ID+"/verify", map[string]any{"assertion": map[string]any{
		"credentialId": cred.CredentialID, "clientDataJson": "e30", "authenticatorData": "AA", "signature": "sandbox-valid-passkey-signature"}},
		"Request-Id", ch.RequestID)
	if r.Status != 200 {
		t.Fatalf("sandbox passkey: %d %s", r.Status, r.Body)
	}
	// Challenge floods are limited.
	limited := false
	for range 12 {
		if r := c.Do("POST", "/auth/credentials/"+cred.ID+"/challenge", map[string]any{"clientPublicKey": pub}); r.Status == 429 {
			limited = r.Header.Get("Retry-After") != ""
			break
		}
	}
	if !limited {
		t.Fatal("passkey challenges are not rate-limited")
	}
}

// The PASSKEY challenge answer is the credential (AuthMethod fields) plus the challenge.
func TestPasskeyChallengeCarriesTheCredential(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := passkeyPlatform(t, e, false)
	acct := walletAccount(t, c, "kim@example.com")
	auth := newSoftAuthenticator(t)
	regChallenge := b64.EncodeToString([]byte("registration-challenge-shape"))
	cred := registerPasskey(t, c, auth, acct, regChallenge)
	_, pub := clientKeyPair(t)
	_, r := passkeyChallenge(t, c, cred.ID, pub)
	m := r.JSON(t)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if got := strings.Join(keys, ","); got != "accountId,challenge,createdAt,credentialId,expiresAt,id,nickname,requestId,type,updatedAt" {
		t.Fatalf("PASSKEY challenge fields: %s", got)
	}
	if m["id"] != cred.ID || m["accountId"] != acct || m["type"] != "PASSKEY" || m["nickname"] != "Laptop" || m["credentialId"] != cred.CredentialID ||
		m["createdAt"] == "" || m["updatedAt"] == "" {
		t.Fatalf("PASSKEY challenge: %s", r.Body)
	}
	var ch view.PasskeyAuthChallenge
	r.Decode(t, &ch)
	// The peer's type discriminator is accepted on verify.
	r = c.Do("POST", "/auth/credentials/"+cred.ID+"/verify", map[string]any{"type": "PASSKEY", "assertion": auth.assert(t, ch.Challenge, origin, rpID)},
		"Request-Id", ch.RequestID)
	if r.Status != 200 {
		t.Fatalf("verify: %d %s", r.Status, r.Body)
	}
}

// libraryWording are fragments of go-webauthn's and go-oidc's own error texts; none may
// reach an integrator.
var libraryWording = []string{"<nil>", "Error validating", "Error parsing", "Error unmarshalling", "Parse error", "%!", "Assertion Signature",
	"Expected Value", "RP Hash", "oidc:", "failed to verify", "malformed jwt", "go-webauthn", "protocol."}

// plainRefusal checks a 401 whose message names what was found, in plain words.
func plainRefusal(t *testing.T, name string, r *apitest.Response, reason, want string) {
	t.Helper()
	res := expectError(t, r, 401, "UNAUTHORIZED")
	msg, _ := res["message"].(string)
	if res["reason"] != reason {
		t.Fatalf("%s: reason %v", name, res["reason"])
	}
	for _, w := range libraryWording {
		if strings.Contains(msg, w) {
			t.Fatalf("%s: message carries library text %q: %s", name, w, msg)
		}
	}
	if !strings.Contains(msg, want) {
		t.Fatalf("%s: message %q does not say %q", name, msg, want)
	}
}

// Refused registrations and assertions say what was found, in plain words, never
// go-webauthn's text.
func TestPasskeyRefusalsInPlainWords(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := passkeyPlatform(t, e, false)
	acct := walletAccount(t, c, "jo@example.com")
	auth := newSoftAuthenticator(t)
	regChallenge := b64.EncodeToString([]byte("registration-challenge-plain-words"))
	register := func(att map[string]any) *apitest.Response {
		return c.Do("POST", "/auth/credentials", map[string]any{"type": "PASSKEY", "accountId": acct, "nickname": "Laptop", "challenge": regChallenge, "attestation": att})
	}
	plainRefusal(t, "registration for another challenge", register(auth.register(t, b64.EncodeToString([]byte("other")), origin, rpID)),
		"Invalid passkey signature", "clientDataJson.challenge is not the challenge")
	plainRefusal(t, "registration from another origin", register(auth.register(t, regChallenge, "https://evil.example", rpID)),
		"Invalid passkey signature", `origin "https://evil.example" is not one of the platform's passkeyOrigins`)
	plainRefusal(t, "registration for another relying party", register(auth.register(t, regChallenge, origin, "evil.example")),
		"Invalid passkey signature", "another relying party")
	garbled := auth.register(t, regChallenge, origin, rpID)
	garbled["attestationObject"] = b64.EncodeToString([]byte("not cbor"))
	res := expectError(t, register(garbled), 400, "INVALID_INPUT")
	if msg, _ := res["message"].(string); !strings.Contains(msg, "attestationObject") || strings.Contains(msg, "Parse error") {
		t.Fatalf("unreadable attestation: %s", msg)
	}
	cred := registerPasskey(t, c, auth, acct, regChallenge)

	_, pub := clientKeyPair(t)
	ch, _ := passkeyChallenge(t, c, cred.ID, pub)

	verify := func(assertion map[string]any) *apitest.Response {
		return c.Do("POST", "/auth/credentials/"+cred.ID+"/verify", map[string]any{"assertion": assertion}, "Request-Id", ch.RequestID)
	}
	garbage := auth.assert(t, ch.Challenge, origin, rpID)
	garbage["signature"] = b64.EncodeToString([]byte("garbage"))
	plainRefusal(t, "garbage signature", verify(garbage), "Invalid passkey signature", "the signature does not verify with the passkey's public key")
	plainRefusal(t, "other challenge", verify(auth.assert(t, b64.EncodeToString([]byte("nope")), origin, rpID)),
		"Invalid passkey signature", "clientDataJson.challenge is not the challenge")
	plainRefusal(t, "other origin", verify(auth.assert(t, ch.Challenge, "https://evil.example", rpID)),
		"Invalid passkey signature", "is not one of the platform's passkeyOrigins")
	plainRefusal(t, "other relying party", verify(auth.assert(t, ch.Challenge, origin, "evil.example")),
		"Invalid passkey signature", "another relying party")
	plainRefusal(t, "magic value outside sandbox", verify(map[string]any{"credentialId": cred.CredentialID, "clientDataJson": "e30",
		"authenticatorData": "AA", "signature": "sandbox-valid-passkey-signature"}), "Invalid passkey signature", "authenticatorData is shorter than 37 bytes")
	noSig := auth.assert(t, ch.Challenge, origin, rpID)
	delete(noSig, "signature")
	res = expectError(t, verify(noSig), 400, "INVALID_INPUT")
	if d, _ := res["details"].(map[string]any); d["field"] != "assertion.signature" {
		t.Fatalf("missing signature: %v", res)
	}
	// The right assertion still works after all that.
	if r := verify(auth.assert(t, ch.Challenge, origin, rpID)); r.Status != 200 {
		t.Fatalf("verify: %d %s", r.Status, r.Body)
	}
}

// registerPasskey registers auth's passkey (nickname "Laptop") on acct against the
// integrator's registration challenge; the answer must be 201.
func registerPasskey(t *testing.T, c *apitest.Client, auth *softAuthenticator, acct, regChallenge string) view.AuthMethod {
	t.Helper()
	r := c.Do("POST", "/auth/credentials", map[string]any{"type": "PASSKEY", "accountId": acct, "nickname": "Laptop",
		"challenge": regChallenge, "attestation": auth.register(t, regChallenge, origin, rpID)})
	if r.Status != 201 {
		t.Fatalf("register: %d %s", r.Status, r.Body)
	}
	var cred view.AuthMethod
	r.Decode(t, &cred)
	return cred
}

// passkeyChallenge asks for an authentication challenge bound to the client key pub; the
// answer must be 200.
func passkeyChallenge(t *testing.T, c *apitest.Client, credID, pub string) (view.PasskeyAuthChallenge, *apitest.Response) {
	t.Helper()
	r := c.Do("POST", "/auth/credentials/"+credID+"/challenge", map[string]any{"clientPublicKey": pub})
	if r.Status != 200 {
		t.Fatalf("challenge: %d %s", r.Status, r.Body)
	}
	var ch view.PasskeyAuthChallenge
	r.Decode(t, &ch)
	return ch, r
}
