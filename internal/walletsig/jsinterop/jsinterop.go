// Package jsinterop runs the JavaScript libraries self-custody wallets sign messages with
// (ethers, TronWeb, tweetnacl with bs58, bitcoinjs-message) from tests, through a small
// Node script, so walletsig.Verify is checked against independent implementations.
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
	return &Client{nodescript.Start(t, Dir(), "interop.mjs", "walletsig-jsinterop")}
}

// Signed is a wallet's address and its signature over a message.
type Signed struct {
	Address   string `json:"address"`
	Signature string `json:"signature"`
	// Verified is, for Spark, whether bitcoinjs-message's own verify accepts the
	// signature for the key's Bitcoin address.
	Verified bool `json:"verified"`
}

// Sign has op's library sign message with a new random key, or with privateKey (hex) when
// it is not empty. op is "evm", "tron", "solana" or "spark"; mode, for spark only, is
// "compressed", "uncompressed", "p2wpkh", "p2sh-p2wpkh" or "electrum".
func (c *Client) Sign(op, mode, message, privateKey string) Signed {
	req := map[string]string{"op": op, "message": message}
	if mode != "" {
		req["mode"] = mode
	}
	if privateKey != "" {
		req["privateKey"] = privateKey
	}
	var resp Signed
	c.s.Call(req, &resp)
	return resp
}
