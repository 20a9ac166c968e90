package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGoSDK runs the Go SDK's tests (sdk/go, a module of its own) against this service: a
// sandbox platform's token, with webhooks deliverable to this machine.
func TestGoSDK(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs another module's tests")
	}
	s := newStack(t)
	c, _ := s.platform(true)
	dir, err := filepath.Abs(filepath.Join("..", "..", "sdk", "go"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "test", "-count=1", "-v", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PAYCORE_SDK_BASE_URL="+s.baseURL, "PAYCORE_SDK_TOKEN_ID="+c.User, "PAYCORE_SDK_TOKEN_SECRET="+c.Password)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test in sdk/go: %v\n%s", err, out)
	}
	if bytes.Contains(out, []byte("--- SKIP")) || !bytes.Contains(out, []byte("--- PASS")) {
		t.Fatalf("the SDK's tests did not run against the service:\n%s", out)
	}
	t.Logf("sdk/go:\n%s", out)
}
