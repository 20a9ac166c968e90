package main

import (
	"bytes"
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"paycore/api"
	"paycore/api/apitest"
	"paycore/db/view"
	"paycore/internal/ids"
	"paycore/internal/infra/config"
	"paycore/internal/infra/npmci"
)

// The integrator kit end to end: the wallet page (examples/wallet-web) in headless Chromium
// with a virtual authenticator, the reference platform backend (examples/platform-backend)
// as a Node child process, and the service. A user signs up, registers a passkey, signs in
// (the session key decrypted in the page) and pays euros out of the USDC wallet with a
// stamp made in the page; the payment completes and the backend verifies its webhook. A
// payment beyond the balance, an expired quote, a signature by another key, an expired session and a wrong
// e-mail code are refused, with their messages on the page; the recovery phrase is exported
// and decrypted in the page, e-mail codes added as a second credential, and the user signs
// out and in again with a code.
// Screenshots of each step go to $PAYCORE_ARTEFACTS/kit (a temporary directory without it).
func TestKitWalletPage(t *testing.T) {
	t.Parallel()
	exe := apitest.Chromium(t)
	root := kitTools(t)
	kitInstall(t, root)
	shots := kitArtefacts(t, "kit")

	// The platform make run creates: a sandbox whose customers the service verifies.
	// Quotes live 10 s (5 minutes by default), so that one can expire during the test.
	s := newStack(t, quoteFast, kycFast, func(c *config.Config) { c.QuoteLifetime = 10 * time.Second })
	c, _ := s.unregulatedPlatform()
	b := startBackend(t, root, s.baseURL, c.User, c.Password)

	ctx := kitBrowser(t, exe, b.origin)
	p := &kitPage{t: t, ctx: ctx, dir: shots}
	p.shot("01-start")
	p.waitStatus("info", "Create a wallet")

	stored := p.signUp()
	p.registerPasskey()
	var creds api.List[view.AuthMethod]
	c.Do("GET", "/auth/credentials?accountId="+stored.AccountID, nil).Decode(t, &creds)
	if len(creds.Data) != 1 || creds.Data[0].Type != "PASSKEY" {
		t.Fatalf("credentials after registration: %+v", creds.Data)
	}

	sess := p.signIn()
	var active api.List[view.Session]
	c.Do("GET", "/auth/sessions?accountId="+stored.AccountID, nil).Decode(t, &active)
	if len(active.Data) != 1 || active.Data[0].ID != sess.ID || len(sess.PrivateKey) != 64 {
		t.Fatalf("the page's session %q (key of %d hex digits), the service's %+v", sess.ID, len(sess.PrivateKey), active.Data)
	}
	if balance := p.text("#balances li"); !strings.Contains(balance, "100.000000 USDC") {
		t.Fatalf("the wallet shows %q, not the sandbox's 100 USDC", balance)
	}

	quoteID := p.pay("10.00")
	var q view.Quote
	c.Do("GET", "/quotes/"+quoteID, nil).Decode(t, &q)
	var tx struct {
		ID, Status string
	}
	eventually(t, 30*time.Second, "the payment COMPLETED", func() bool {
		c.Do("GET", "/transactions/"+q.TransactionID, nil).Decode(t, &tx)
		return tx.Status == "COMPLETED"
	}, func() string { return tx.Status })
	p.click("refresh-button")
	p.waitJS(fmt.Sprintf(`document.querySelector('#transactions tr[data-transaction-id=%q]')?.dataset.status === 'COMPLETED'`, q.TransactionID), "the payment COMPLETED on the page")
	if balance := p.text("#balances li"); !strings.Contains(balance, "90.000000 USDC") {
		t.Fatalf("after paying 10 USDC the wallet shows %q", balance)
	}
	b.waitVerified(t, "OUTGOING_PAYMENT_COMPLETED", q.TransactionID)
	p.shot("07-completed")

	// More than the wallet holds: the service refuses, the page says why.
	p.quote("1000.00")
	p.click("pay-button")
	p.waitStatus("error", "Not enough money in your wallet")
	p.shot("08-insufficient-funds")

	// A quote that expired before it was signed: refused, and the page says to get a new one.
	p.quote("5.00")
	expiring := p.attr("#quote", "data-quote-id")
	eventually(t, 60*time.Second, "the quote EXPIRED", func() bool {
		c.Do("GET", "/quotes/"+expiring, nil).Decode(t, &q)
		return q.Status == "EXPIRED"
	}, func() string { return string(q.Status) })
	p.click("pay-button")
	p.waitStatus("error", "This quote has expired")
	p.shot("09-quote-expired")

	// A signature by another key: the page's session key replaced by a key that is no session
	// of the wallet. The service refuses the stamp, the page says so, and no money moves.
	other, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	p.quote("5.00")
	refused := p.attr("#quote", "data-quote-id")
	p.eval(fmt.Sprintf(`const s = JSON.parse(sessionStorage.getItem('paycore.session')); s.privateKey = %q; s.publicKey = %q;
		sessionStorage.setItem('paycore.session', JSON.stringify(s))`, hex.EncodeToString(other.Bytes()), compressed(other.PublicKey())))
	p.click("pay-button")
	p.waitStatus("error", "refused this device's signature")
	msg := p.text("#status")
	if !strings.Contains(msg, "WALLET_SIGNATURE_INVALID") {
		t.Fatalf("the refusal does not show the service's code: %q", msg)
	}
	p.shot("10-other-key-refused")
	c.Do("GET", "/quotes/"+refused, nil).Decode(t, &q)
	if q.Status != "PENDING" {
		t.Fatalf("another key's signature moved the quote to %s", q.Status)
	}

	// An expired session: the real key back, the session's lifetime over (as if 15 minutes
	// had passed). The service refuses the stamp; the page finds the session gone and says so.
	p.eval(fmt.Sprintf(`const s = JSON.parse(sessionStorage.getItem('paycore.session')); s.privateKey = %q; s.publicKey = %q;
		sessionStorage.setItem('paycore.session', JSON.stringify(s))`, sess.PrivateKey, sess.PublicKey))
	acct, err := ids.Parse(ids.InternalAccount, stored.AccountID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.app.pool.Exec(context.Background(), "UPDATE auth_sessions SET expires_at = now() - interval '1 second' WHERE account_id = $1", acct); err != nil {
		t.Fatal(err)
	}
	p.click("pay-button")
	p.waitStatus("error", "Your session has expired")
	p.waitJS(`!document.getElementById('passkey').hidden && document.getElementById('wallet').hidden`, "the sign-in again")
	p.shot("11-session-expired")
	c.Do("GET", "/quotes/"+refused, nil).Decode(t, &q)
	if q.Status != "PENDING" {
		t.Fatalf("an expired session moved the quote to %s", q.Status)
	}

	// Signed in again with the passkey: the wallet's recovery phrase, sealed to a key pair the
	// page makes for it, by the signed retry signed in the page.
	p.click("signin-button")
	p.waitStatus("ok", "Signed in (passkey)")
	p.click("export-button")
	p.waitStatus("ok", "Your recovery phrase (24 words)")
	if words := strings.Fields(p.text("#mnemonic")); len(words) != 24 {
		t.Fatalf("the page shows %d words: %q", len(words), words)
	}
	p.shot("12-exported")

	// E-mail codes as a second credential (signed retry), then sign out (the session revoked
	// by a signed retry) and in again with a code: a wrong one refused, the sandbox's right.
	p.click("otp-button")
	p.waitStatus("ok", "E-mail codes added")
	c.Do("GET", "/auth/credentials?accountId="+stored.AccountID, nil).Decode(t, &creds)
	if len(creds.Data) != 2 || creds.Data[1].Type != "EMAIL_OTP" {
		t.Fatalf("credentials after adding e-mail codes: %+v", creds.Data)
	}
	p.shot("13-email-added")
	p.click("signout-button")
	p.waitStatus("ok", "Signed out")
	c.Do("GET", "/auth/sessions?accountId="+stored.AccountID, nil).Decode(t, &active)
	if len(active.Data) != 0 {
		t.Fatalf("sessions after signing out: %+v", active.Data)
	}
	p.eval(`document.getElementById('otp-code').value = '123456'`)
	p.click("otp-signin-button")
	p.waitStatus("error", "That code is wrong")
	p.shot("14-wrong-code")
	p.eval(`document.getElementById('otp-code').value = '000000'`)
	p.click("otp-signin-button")
	p.waitStatus("ok", "Signed in (e-mail code)")
	p.waitJS(`document.querySelectorAll('#balances li').length > 0`, "the balances")
	p.shot("15-signed-in-with-code")
	t.Logf("screenshots in %s", shots)
}

// compressed is the hex SEC 1 compressed form of a P-256 public key.
func compressed(pub *ecdh.PublicKey) string {
	raw := pub.Bytes() // 0x04 ‖ x ‖ y
	prefix := byte(0x02 | raw[64]&1)
	return hex.EncodeToString(append([]byte{prefix}, raw[1:33]...))
}

// kitEvent is a webhook as the backend's GET /api/events lists it.
type kitEvent struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Verified bool   `json:"verified"`
	Data     struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	} `json:"data"`
}

// kitTools checks for node and npm (skipped without them, but failed in CI) and returns the
// repository's root.
func kitTools(t *testing.T) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is required in CI for the integrator kit's tests", tool)
			}
			t.Skipf("%s is not installed: the integrator kit needs Node 20+ and npm", tool)
		}
	}
	out, err := exec.Command("node", "-p", "process.versions.node.split('.')[0]").Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	if major := strings.TrimSpace(string(out)); len(major) < 2 || major < "20" {
		if os.Getenv("CI") != "" {
			t.Fatalf("Node %s is too old for the integrator kit: it needs Node 20+", major)
		}
		t.Skipf("Node %s is too old for the integrator kit: it needs Node 20+", major)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(filepath.Dir(wd))
}

// kitInstall installs and builds the client, the backend and the page, under the lock the
// client's own test takes (one install at a time across test binaries).
func kitInstall(t *testing.T, root string) {
	t.Helper()
	unlock, err := npmci.Lock("tsclient")
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	steps := []struct {
		dir   string
		build bool
	}{{"examples/client", true}, {"examples/platform-backend", false}, {"examples/wallet-web", true}}
	for _, st := range steps {
		dir := filepath.Join(root, st.dir)
		if err := npmci.Install(dir); err != nil {
			t.Fatalf("%s: %v", st.dir, err)
		}
		if st.build && !builtFrom(dir) {
			cmd := exec.Command("npm", "run", "build", "--silent")
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("npm run build in %s: %v\n%s", st.dir, err, out)
			}
		}
	}
}

// builtFrom reports whether dir's dist/ is newer than every file of its src/ and public/ and
// its package-lock.json (so a build would change nothing). The wallet page is always rebuilt
// when the client's dist/ is newer than its own.
func builtFrom(dir string) bool {
	oldest := time.Time{}
	_ = filepath.WalkDir(filepath.Join(dir, "dist"), func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil && (oldest.IsZero() || info.ModTime().Before(oldest)) {
				oldest = info.ModTime()
			}
		}
		return nil
	})
	if oldest.IsZero() {
		return false
	}
	newer := false
	sources := []string{filepath.Join(dir, "src"), filepath.Join(dir, "public"), filepath.Join(dir, "package-lock.json"), filepath.Join(dir, "build.mjs")}
	if filepath.Base(dir) != "client" {
		sources = append(sources, filepath.Join(dir, "..", "client", "dist"))
	}
	for _, src := range sources {
		_ = filepath.WalkDir(src, func(_ string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if info, err := d.Info(); err == nil && info.ModTime().After(oldest) {
					newer = true
				}
			}
			return nil
		})
	}
	return !newer
}

// kitArtefacts is the directory of the test's screenshots: name under $PAYCORE_ARTEFACTS.
func kitArtefacts(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	if a := os.Getenv("PAYCORE_ARTEFACTS"); a != "" {
		dir = filepath.Join(a, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("screenshots go to %s", dir)
	return dir
}

// kitBackend is the platform backend running as a Node child process.
type kitBackend struct {
	origin string // http://localhost:PORT, the page's origin and the passkeys' relying party
	url    string // http://127.0.0.1:PORT
}

// startBackend starts examples/platform-backend with the platform's token and waits until it
// answers; its output is logged when the test ends.
func startBackend(t *testing.T, root, baseURL, tokenID, secret string) *kitBackend {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	b := &kitBackend{origin: fmt.Sprintf("http://localhost:%d", port), url: fmt.Sprintf("http://127.0.0.1:%d", port)}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "node", "server.mjs")
	cmd.Dir = filepath.Join(root, "examples", "platform-backend")
	cmd.Env = append(os.Environ(), "PAYCORE_BASE_URL="+baseURL, "PAYCORE_TOKEN_ID="+tokenID, "PAYCORE_TOKEN_SECRET="+secret,
		fmt.Sprintf("KIT_LISTEN=127.0.0.1:%d", port), "KIT_PUBLIC_ORIGIN="+b.origin)
	var out syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("start the platform backend: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cancel()
		<-exited
		t.Logf("platform backend output:\n%s", out.String())
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-exited:
			t.Fatalf("the platform backend exited: %s", out.String())
		default:
		}
		if r, err := http.Get(b.url + "/api/config"); err == nil {
			_ = r.Body.Close()
			if r.StatusCode == 200 {
				return b
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the platform backend did not answer within 30 s: %s", out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// events lists the webhooks the backend received and verified.
func (b *kitBackend) events(t *testing.T) []kitEvent {
	t.Helper()
	r, err := http.Get(b.url + "/api/events")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var list struct {
		Data []kitEvent `json:"data"`
	}
	if err := json.NewDecoder(r.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	return list.Data
}

// waitVerified waits until the backend has received and verified (both signatures) the
// webhook of type about the object id.
func (b *kitBackend) waitVerified(t *testing.T, typ, id string) {
	t.Helper()
	var seen []kitEvent
	eventually(t, 30*time.Second, "the backend's verified "+typ, func() bool {
		seen = b.events(t)
		for _, e := range seen {
			if e.Type == typ && e.Data.ID == id && e.Verified {
				return true
			}
		}
		return false
	}, func() string { return fmt.Sprintf("%+v", seen) })
}

// kitBrowser starts headless Chromium on origin with a virtual authenticator that verifies
// the user (a platform authenticator with resident keys).
func kitBrowser(t *testing.T, exe, origin string) context.Context {
	t.Helper()
	ctx := apitest.Browser(t, exe, 3*time.Minute, chromedp.WindowSize(1000, 1400))
	if err := chromedp.Do(ctx, chromedp.Navigate(origin+"/"),
		apitest.VirtualAuthenticator()); err != nil {
		t.Fatalf("start the browser: %v", err)
	}
	return ctx
}

// kitPage drives the wallet page.
type kitPage struct {
	t   *testing.T
	ctx context.Context
	dir string
}

func (p *kitPage) eval(js string) {
	p.t.Helper()
	if _, err := chromedp.Run(p.ctx, chromedp.Evaluate[any]("(() => { "+js+"; return null })()")); err != nil {
		p.t.Fatalf("in the page: %v\n%s", err, js)
	}
}

func (p *kitPage) evalJSON(expr string, out any) {
	p.t.Helper()
	s, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		p.t.Fatalf("in the page: %v", err)
	}
	if err := json.Unmarshal([]byte(s), out); err != nil {
		p.t.Fatalf("%s: %v: %s", expr, err, s)
	}
}

// signUp creates the wallet on the page (a customer with a USDC embedded wallet, funded by
// the sandbox, and a EUR account) and returns what the page stored of it.
func (p *kitPage) signUp() (stored struct{ CustomerID, AccountID, ExternalAccountID string }) {
	p.t.Helper()
	p.eval(`document.getElementById('signup-name').value = 'Ada Lovelace';
		document.getElementById('signup-email').value = 'ada@example.com';
		document.getElementById('signup-button').click()`)
	p.waitStatus("ok", "Your wallet is ready")
	p.shot("02-signed-up")
	p.evalJSON(`localStorage.getItem('paycore.wallet')`, &stored)
	if stored.AccountID == "" || stored.ExternalAccountID == "" {
		p.t.Fatalf("the page stored no wallet: %+v", stored)
	}
	return stored
}

// registerPasskey registers a passkey through the backend, with the challenge it issued.
func (p *kitPage) registerPasskey() {
	p.t.Helper()
	p.click("register-button")
	p.waitStatus("ok", "Passkey registered")
	p.shot("03-passkey-registered")
}

// signIn signs in with the passkey (the challenge with the page's fresh key, the assertion,
// verify, the session key decrypted in the page) and returns the page's session.
func (p *kitPage) signIn() (sess struct{ ID, PrivateKey, PublicKey string }) {
	p.t.Helper()
	p.click("signin-button")
	p.waitStatus("ok", "Signed in")
	p.waitJS(`document.querySelectorAll('#balances li').length > 0`, "the balances")
	p.shot("04-signed-in")
	p.evalJSON(`sessionStorage.getItem('paycore.session')`, &sess)
	return sess
}

// pay sends amount USDC as euros, the quote's payloadToSign stamped in the page with the
// session key, and returns the quote's id.
func (p *kitPage) pay(amount string) string {
	p.t.Helper()
	p.quote(amount)
	p.shot("05-quote")
	quoteID := p.attr("#quote", "data-quote-id")
	p.click("pay-button")
	p.waitStatus("ok", "Payment sent")
	p.shot("06-paid")
	return quoteID
}

// quote asks the page for a quote of amount USDC and waits until it shows it.
func (p *kitPage) quote(amount string) {
	p.t.Helper()
	p.eval(fmt.Sprintf(`document.getElementById('send-amount').value = %q`, amount))
	p.click("quote-button") // once the page is done with what it was doing (a refresh), or the click is lost
	p.waitStatus("info", "Check the quote")
	p.waitJS(fmt.Sprintf(`!document.getElementById('quote').hidden && document.getElementById('quote-text').textContent.includes('You send %s0000 USDC')`, amount), "the quote of "+amount)
}

// click clicks a button once it is enabled (the page disables them while it works).
func (p *kitPage) click(id string) {
	p.t.Helper()
	p.waitJS(fmt.Sprintf("!document.getElementById(%q).disabled", id), id+" enabled")
	p.eval(fmt.Sprintf("document.getElementById(%q).click()", id))
}

func (p *kitPage) text(sel string) string {
	p.t.Helper()
	s, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](fmt.Sprintf("document.querySelector(%q)?.textContent ?? ''", sel)))
	if err != nil {
		p.t.Fatal(err)
	}
	return s
}

func (p *kitPage) attr(sel, name string) string {
	p.t.Helper()
	s, err := chromedp.Run(p.ctx, chromedp.Evaluate[string](fmt.Sprintf("document.querySelector(%q)?.getAttribute(%q) ?? ''", sel, name)))
	if err != nil {
		p.t.Fatal(err)
	}
	return s
}

// waitJS waits until a JS condition holds in the page.
func (p *kitPage) waitJS(cond, what string) {
	p.t.Helper()
	p.waitJSUnless(cond, "", what)
}

// waitJSUnless waits until a JS condition holds in the page, failing at once when fail does.
func (p *kitPage) waitJSUnless(cond, fail, what string) {
	p.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		ok, err := chromedp.Run(p.ctx, chromedp.Evaluate[bool]("Boolean("+cond+")"))
		if err != nil {
			p.t.Fatalf("waiting for %s: %v", what, err)
		}
		if ok {
			return
		}
		if fail != "" && p.text("#status") != "" {
			if bad, _ := chromedp.Run(p.ctx, chromedp.Evaluate[bool]("Boolean("+fail+")")); bad {
				p.shot("failed")
				p.t.Fatalf("waiting for %s; the page's status says %q", what, p.text("#status"))
			}
		}
		if time.Now().After(deadline) {
			p.shot("failed")
			p.t.Fatalf("waiting for %s; the page's status says %q", what, p.text("#status"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitStatus waits until the page's visible status element is of kind (ok, error, info)
// and contains text.
func (p *kitPage) waitStatus(kind, text string) {
	p.t.Helper()
	other := `document.getElementById('status').dataset.kind === 'error'`
	if kind == "error" {
		other = `document.getElementById('status').dataset.kind === 'ok'`
	}
	p.waitJSUnless(fmt.Sprintf(`(() => { const s = document.getElementById('status');
		return s.dataset.kind === %q && s.textContent.includes(%q) && s.checkVisibility() })()`, kind, text),
		other, fmt.Sprintf("the status %s %q", kind, text))
}

// shot writes a PNG screenshot of the page as name.png.
func (p *kitPage) shot(name string) {
	p.t.Helper()
	png, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		p.t.Errorf("screenshot %s: %v", name, err)
		return
	}
	if err := os.WriteFile(filepath.Join(p.dir, name+".png"), png, 0o644); err != nil {
		p.t.Errorf("screenshot %s: %v", name, err)
	}
}

// syncBuffer is a bytes.Buffer safe for a child process's two output streams.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
