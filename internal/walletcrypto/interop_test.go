package walletcrypto

import (
	"bufio"
	"bytes"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// interop drives testdata/interop/interop.mjs, which uses the npm packages @turnkey/crypto
// and @turnkey/api-key-stamper exactly as a platform would.
type interop struct {
	cmd *exec.Cmd
	in  *json.Encoder
	out *bufio.Scanner
	mu  sync.Mutex
}

var installOnce = sync.OnceValue(func() error {
	dir := filepath.Join("testdata", "interop")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@turnkey", "crypto")); err == nil {
		return nil
	}
	cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return &installError{out: string(out), err: err}
	}
	return nil
})

type installError struct {
	out string
	err error
}

func (e *installError) Error() string { return "npm ci: " + e.err.Error() + ": " + e.out }

func startInterop(t *testing.T) *interop {
	t.Helper()
	if err := installOnce(); err != nil {
		t.Fatalf("installing the JS client libraries: %v", err)
	}
	cmd := exec.Command("node", "interop.mjs")
	cmd.Dir = filepath.Join("testdata", "interop")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start node: %v", err)
	}
	t.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	return &interop{cmd: cmd, in: json.NewEncoder(stdin), out: sc}
}

func (i *interop) call(t *testing.T, req map[string]string) map[string]string {
	t.Helper()
	i.mu.Lock()
	defer i.mu.Unlock()
	if err := i.in.Encode(req); err != nil {
		t.Fatal(err)
	}
	if !i.out.Scan() {
		t.Fatalf("node answered nothing: %v", i.out.Err())
	}
	var resp map[string]string
	if err := json.Unmarshal(i.out.Bytes(), &resp); err != nil {
		t.Fatalf("node answered %q", i.out.Text())
	}
	return resp
}

// Bundles sealed here open with decryptCredentialBundle; stamps made by ApiKeyStamper
// verify here, and only over the exact payload.
func TestInteropWithClientLibraries(t *testing.T) {
	js := startInterop(t)
	for range 20 {
		client, _ := ecdh.P256().GenerateKey(rand.Reader)
		priv, pubC, err := NewSessionKey()
		if err != nil {
			t.Fatal(err)
		}
		bundle, err := SealBundle(client.PublicKey().Bytes(), priv)
		if err != nil {
			t.Fatal(err)
		}
		got := js.call(t, map[string]string{"op": "decrypt", "bundle": bundle, "privateKey": hex.EncodeToString(client.Bytes())})
		if got["secret"] != hex.EncodeToString(priv) {
			t.Fatalf("decryptCredentialBundle: %v, want %x", got, priv)
		}
		payload := `{"requestId":"Request:0190a000-0000-7000-8000-000000000001","type":"PASSKEY","accountId":"InternalAccount:x","expiresAt":"2026-11-22T05:00:00Z"}`
		st := js.call(t, map[string]string{"op": "stamp", "payload": payload, "privateKey": got["secret"]})
		stamp, err := ParseStamp(st["stamp"])
		if err != nil {
			t.Fatalf("parse JS stamp %v: %v", st, err)
		}
		if err := stamp.Verify([]byte(payload)); err != nil {
			t.Fatalf("JS stamp does not verify: %v", err)
		}
		if !SameKey(stamp.PublicKey, pubC) {
			t.Fatal("the stamp names another key than the session's")
		}
		if err := stamp.Verify(bytes.Replace([]byte(payload), []byte("PASSKEY"), []byte("OAUTH__"), 1)); err == nil {
			t.Fatal("the stamp verified a tampered payload")
		}
	}
}
