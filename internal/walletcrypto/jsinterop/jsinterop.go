// Package jsinterop runs the JavaScript client libraries platforms use for embedded
// wallets (@turnkey/crypto and @turnkey/api-key-stamper) from tests, through a small Node
// script, so the service's wire formats are checked against independent implementations.
package jsinterop

import (
	"path/filepath"
	"runtime"
	"testing"

	"paycore/internal/infra/nodescript"
)

// Dir is the directory of the Node script and its package.json.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata", "interop")
}

// Client talks to one running interop script.
type Client struct{ s *nodescript.Script }

// Start installs the libraries when needed (npm ci) and starts the script.
func Start(t testing.TB) *Client {
	t.Helper()
	return &Client{nodescript.Start(t, Dir(), "interop.mjs", "jsinterop")}
}

func (c *Client) call(req map[string]string) map[string]string {
	var resp map[string]string
	c.s.Call(req, &resp)
	return resp
}

// Decrypt opens a credential bundle with decryptCredentialBundle; privateKey is hex.
func (c *Client) Decrypt(bundle, privateKey string) string {
	return c.call(map[string]string{"op": "decrypt", "bundle": bundle, "privateKey": privateKey})["secret"]
}

// Stamp signs payload with ApiKeyStamper using a hex private key.
func (c *Client) Stamp(payload, privateKey string) string {
	return c.call(map[string]string{"op": "stamp", "payload": payload, "privateKey": privateKey})["stamp"]
}

// EncryptOTP encrypts code and the client's compressed public key (hex) to a target bundle
// with encryptOtpCodeToBundle, which first checks the bundle's signature against signer
// (hex, uncompressed). A refusal (a bundle signed by another key) is the error.
func (c *Client) EncryptOTP(code, bundle, publicKey, signer string) (string, error) {
	var resp map[string]string
	err := c.s.Try(map[string]string{"op": "encryptOtp", "code": code, "bundle": bundle, "publicKey": publicKey, "signer": signer}, &resp)
	return resp["encrypted"], err
}
