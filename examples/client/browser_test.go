package client

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"paycore/api/apitest"
	"paycore/internal/infra/npmci"
)

// The page: the browser entry point loaded as plain ES modules (an import map for
// openapi-fetch, no bundler), calling a fake API on the same origin.
const browserPage = `<!doctype html>
<meta charset="utf-8">
<script type="importmap">{"imports": {"openapi-fetch": "/node_modules/openapi-fetch/dist/index.mjs"}}</script>
<pre id="result"></pre>
<script type="module">
import { createPaycoreClient, signedRetry, withIdempotency, unwrap, PaycoreError } from "/dist/browser.js";
const out = document.getElementById("result");
const hex = (buf) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");
try {
  const api = createPaycoreClient({ baseUrl: location.origin + "/api/2025-10-13", tokenId: "tok", secret: "sec" });
  const config = unwrap(await api.GET("/config"));
  const quote = await withIdempotency((headers) => api.POST("/quotes", {
    body: { source: { sourceType: "ACCOUNT", accountId: "InternalAccount:1" },
            destination: { destinationType: "ACCOUNT", accountId: "ExternalAccount:2" },
            lockedCurrencySide: "SENDING", lockedCurrencyAmount: 1000 },
    headers }), { baseDelayMs: 1 });
  // The device's stamp: here the SHA-256 of the payload, made with WebCrypto.
  const sign = async (payload) => "stamp-" + hex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(payload)));
  const exported = await signedRetry((headers) => api.POST("/internal-accounts/{id}/export", {
    params: { path: { id: "InternalAccount:1" } }, body: { clientPublicKey: "04ab" }, headers }), sign);
  let refused = "";
  try { unwrap(await api.GET("/transactions")); } catch (e) { refused = e instanceof PaycoreError ? e.code : String(e); }
  out.textContent = JSON.stringify({ platformId: config.platformId, quote: quote.data.id,
    credentials: exported.data.encryptedWalletCredentials, refused });
} catch (e) {
  out.textContent = "error: " + (e && e.stack || e);
}
</script>
`

// TestTypeScriptClientInChromium runs the browser entry point in headless Chromium, without a
// bundler, against a fake API: Basic auth, an Idempotency-Key resent after a 503, the signed
// retry with a stamp made by WebCrypto, and an error envelope as a PaycoreError.
func TestTypeScriptClientInChromium(t *testing.T) {
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: the TypeScript client's tests need Node 20+ and npm", tool)
		}
	}
	exe := apitest.Chromium(t)
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := npmci.Lock("tsclient")
	if err != nil {
		t.Fatal(err)
	}
	if err := npmci.Install(dir); err != nil {
		unlock()
		t.Fatalf("installing the client's packages: %v", err)
	}
	build := exec.Command("npm", "run", "--silent", "build")
	build.Dir = dir
	out, err := build.CombinedOutput()
	unlock()
	if err != nil {
		t.Fatalf("npm run build: %v\n%s", err, out)
	}

	var mu sync.Mutex
	var keys []string
	var payload string
	api := http.NewServeMux()
	reply := func(w http.ResponseWriter, status int, body any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(body)
	}
	api.HandleFunc("GET /config", func(w http.ResponseWriter, _ *http.Request) {
		reply(w, 200, map[string]any{"id": "Platform:1", "platformId": "Platform:1"})
	})
	api.HandleFunc("GET /transactions", func(w http.ResponseWriter, _ *http.Request) {
		reply(w, 403, map[string]any{"status": 403, "code": "FORBIDDEN", "message": "no"})
	})
	api.HandleFunc("POST /quotes", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		keys = append(keys, r.Header.Get("Idempotency-Key"))
		n := len(keys)
		mu.Unlock()
		if n == 1 {
			w.Header().Set("Retry-After", "0")
			reply(w, 503, map[string]any{"status": 503, "code": "SERVICE_UNAVAILABLE", "message": "later"})
			return
		}
		reply(w, 201, map[string]any{"id": "Quote:1", "status": "PENDING"})
	})
	api.HandleFunc("POST /internal-accounts/{id}/export", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		if r.Header.Get("Request-Id") == "" {
			sum := sha256.Sum256(body)
			payload = fmt.Sprintf(`{"requestId":"Request:1","method":"POST","path":%q,"bodySha256":"%x"}`, r.URL.Path, sum)
			reply(w, 202, map[string]any{"payloadToSign": payload, "requestId": "Request:1", "expiresAt": "2030-01-01T00:00:00Z"})
			return
		}
		sum := sha256.Sum256([]byte(payload))
		if r.Header.Get("Request-Id") != "Request:1" || r.Header.Get("Service-Wallet-Signature") != "stamp-"+hex.EncodeToString(sum[:]) {
			reply(w, 401, map[string]any{"status": 401, "code": "UNAUTHORIZED", "message": "bad", "reason": "Invalid Service-Wallet-Signature"})
			return
		}
		reply(w, 200, map[string]any{"encryptedWalletCredentials": "sealed"})
	})
	auth := "Basic " + base64.StdEncoding.EncodeToString([]byte("tok:sec"))
	mux := http.NewServeMux()
	mux.Handle("/api/2025-10-13/", http.StripPrefix("/api/2025-10-13", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != auth {
			reply(w, 401, map[string]any{"status": 401, "code": "UNAUTHORIZED", "message": "credentials"})
			return
		}
		api.ServeHTTP(w, r)
	})))
	mux.Handle("/dist/", http.FileServer(http.Dir(dir)))
	mux.HandleFunc("/node_modules/openapi-fetch/dist/index.mjs", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		http.ServeFile(w, r, filepath.Join(dir, "node_modules", "openapi-fetch", "dist", "index.mjs"))
	})
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, browserPage)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	ctx := apitest.Browser(t, exe, 90*time.Second)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
		t.Fatalf("open the page: %v", err)
	}
	result, err := chromedp.Run(ctx, chromedp.Poll[string](`document.getElementById("result").textContent || false`))
	if err != nil {
		t.Fatalf("the page wrote no result: %v", err)
	}
	want := `{"platformId":"Platform:1","quote":"Quote:1","credentials":"sealed","refused":"FORBIDDEN"}`
	if result != want {
		t.Fatalf("the page says %s, want %s", result, want)
	}
	if len(keys) != 2 || keys[0] != keys[1] || len(keys[0]) != 36 {
		t.Fatalf("Idempotency-Keys sent: %q", keys)
	}
}
