package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"paycore/api/apitest"
)

// TestGoSDK runs the Go SDK's tests (sdk/go, a module of its own) against this service: a
// sandbox platform's token, with webhooks deliverable to this machine.
func TestGoSDK(t *testing.T) {
	s, c, cmd := goModuleAgainstTheService(t, filepath.Join("sdk", "go"), "test", "-count=1", "-v", "./...")
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

// TestGoPlatformExample runs the README's Go program (examples/go-platform) against the
// service, here on a regulated platform (the quickstart runs it on make run's unregulated
// one): every step it prints must have happened.
func TestGoPlatformExample(t *testing.T) {
	s, c, cmd := goModuleAgainstTheService(t, filepath.Join("examples", "go-platform"), "run", ".", "-platform-file", filepath.Join(t.TempDir(), "none.json"))
	cmd.Env = append(os.Environ(), "PAYCORE_BASE_URL="+s.baseURL, "PAYCORE_TOKEN_ID="+c.User, "PAYCORE_TOKEN_SECRET="+c.Password)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run in examples/go-platform: %v\n%s", err, out)
	}
	for _, want := range []string{"(regulated: true)", "its KYC attested by the platform", "funded: 100.00 USD", "Paid 5.00 USD out: Transaction:",
		"No test webhook: the platform has no webhook endpoint", `"Quickstart assistant": up to 50.00 USD a payment`, "Its device code, until "} {
		if !bytes.Contains(out, []byte(want)) {
			t.Fatalf("the program's output lacks %q:\n%s", want, out)
		}
	}
	// The agent it created holds a device code that redeems once.
	code := string(out[bytes.LastIndexByte(bytes.TrimSpace(out), ' ')+1:])
	if r := c.With("", "").Do("POST", "/agents/device-codes/"+strings.TrimSpace(code)+"/redeem", nil); r.Status != 200 {
		t.Fatalf("redeem %q: %d %s", code, r.Status, r.Body)
	}
}

// goModuleAgainstTheService starts the service with a regulated sandbox platform and
// prepares `go args...` in the module at dir (from the repository's root): the stack, the
// platform's client and the command, whose environment the caller sets. It runs in parallel,
// and not with -short.
func goModuleAgainstTheService(t *testing.T, dir string, args ...string) (*stack, *apitest.Client, *exec.Cmd) {
	t.Helper()
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs another Go module")
	}
	s := newStack(t)
	c, _ := s.platform(true)
	abs, err := filepath.Abs(filepath.Join("..", "..", dir))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = abs
	return s, c, cmd
}
