// Package jsinterop runs the JavaScript client libraries platforms use for embedded
// wallets (@turnkey/crypto and @turnkey/api-key-stamper) from tests, through a small Node
// script, so the service's wire formats are checked against independent implementations.
package jsinterop

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"paycore/internal/infra/npmci"
)

// Dir is the directory of the Node script and its package.json.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "testdata", "interop")
}

var install = sync.OnceValue(func() error {
	// Test binaries run in parallel: one installs while the others wait on the lock.
	unlock, err := npmci.Lock("jsinterop")
	if err != nil {
		return err
	}
	defer unlock()
	return npmci.Install(Dir())
})

// Client talks to one running interop script.
type Client struct {
	in  *json.Encoder
	out *bufio.Scanner
	mu  sync.Mutex
	t   testing.TB
}

// Start installs the libraries when needed (npm ci) and starts the script.
func Start(t testing.TB) *Client {
	t.Helper()
	if err := install(); err != nil {
		t.Fatalf("installing the JS client libraries: %v", err)
	}
	cmd := exec.Command("node", "interop.mjs")
	cmd.Dir = Dir()
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start node: %v", err)
	}
	t.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	return &Client{in: json.NewEncoder(stdin), out: sc, t: t}
}

func (c *Client) call(req map[string]string) map[string]string {
	c.t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.in.Encode(req); err != nil {
		c.t.Fatal(err)
	}
	if !c.out.Scan() {
		c.t.Fatalf("node answered nothing: %v", c.out.Err())
	}
	var resp map[string]string
	if err := json.Unmarshal(c.out.Bytes(), &resp); err != nil {
		c.t.Fatalf("node answered %q", c.out.Text())
	}
	if resp["error"] != "" {
		c.t.Fatalf("node: %s", resp["error"])
	}
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
