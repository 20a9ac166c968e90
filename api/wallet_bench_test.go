package api_test

import (
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"testing"

	"paycore/api/apitest"
	"paycore/db/view"
	"paycore/internal/walletcrypto"
)

// stamp makes a Service-Wallet-Signature the way @turnkey/api-key-stamper does.
func stamp(b *testing.B, key *ecdsa.PrivateKey, payload string) string {
	sum := sha256.Sum256([]byte(payload))
	sig, err := ecdsa.SignASN1(rand.Reader, key, sum[:])
	if err != nil {
		b.Fatal(err)
	}
	pub, _ := key.PublicKey.Bytes()
	j, _ := json.Marshal(map[string]string{"publicKey": hex.EncodeToString(pub), "scheme": walletcrypto.StampScheme, "signature": hex.EncodeToString(sig)})
	return base64.RawURLEncoding.EncodeToString(j)
}

func benchWallet(b *testing.B) (*apitest.Client, string, view.AuthMethod) {
	e := newEnv(b)
	c, _ := e.platform(true)
	c.SkipValidation = true // the validator's own cost would dominate
	multiCurrency(b, c, true)
	acct := walletAccount(b, c, "bench@example.com")
	var cred view.AuthMethod
	c.Do("POST", "/auth/credentials", map[string]any{"type": "EMAIL_OTP", "accountId": acct}).Decode(b, &cred)
	return c, acct, cred
}

// BenchmarkSessionIssuance: POST /auth/credentials/{id}/verify with the sandbox OTP over
// HTTP: authentication, a fresh session key, HPKE sealing to the client key, one insert.
func BenchmarkSessionIssuance(b *testing.B) {
	c, _, cred := benchWallet(b)
	keys := make([]string, b.N)
	for i := range keys {
		k, _ := ecdh.P256().GenerateKey(rand.Reader)
		keys[i] = hex.EncodeToString(k.PublicKey().Bytes())
	}
	b.ResetTimer()
	for i := range b.N {
		r := c.Do("POST", "/auth/credentials/"+cred.ID+"/verify", map[string]any{"otp": "000000", "clientPublicKey": keys[i]})
		if r.Status != 200 {
			b.Fatalf("verify: %d %s", r.Status, r.Body)
		}
	}
}

// BenchmarkSignedRetry: one wallet operation by signed retry over HTTP (PATCH of an
// embedded wallet): the 202 challenge, then the stamped retry the service verifies
// against the account's active sessions.
func BenchmarkSignedRetry(b *testing.B) {
	c, acct, cred := benchWallet(b)
	client, _ := ecdh.P256().GenerateKey(rand.Reader)
	var sess view.Session
	c.Do("POST", "/auth/credentials/"+cred.ID+"/verify", map[string]any{"otp": "000000", "clientPublicKey": hex.EncodeToString(client.PublicKey().Bytes())}).Decode(b, &sess)
	priv, err := walletcrypto.OpenBundle(client, sess.EncryptedSessionSigningKey)
	if err != nil {
		b.Fatal(err)
	}
	key, _ := ecdsa.ParseRawPrivateKey(elliptic.P256(), priv)
	body := map[string]any{"privateEnabled": true}
	b.ResetTimer()
	for range b.N {
		var ch view.Challenge
		c.Do("PATCH", "/internal-accounts/"+acct, body).Decode(b, &ch)
		r := c.Do("PATCH", "/internal-accounts/"+acct, body, "Service-Wallet-Signature", stamp(b, key, ch.PayloadToSign), "Request-Id", ch.RequestID)
		if r.Status != 200 {
			b.Fatalf("signed retry: %d %s", r.Status, r.Body)
		}
	}
}
