package api_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"

	"paycore/api/apitest"
	"paycore/internal/events"
	"paycore/internal/incoming"
	"paycore/internal/infra/config"
	"paycore/internal/kyc"
	"paycore/internal/sandbox"
)

// pageRefs finds the URLs an HTML page names (src, href, action and CSS url()).
var pageRefs = regexp.MustCompile(`(?i)(?:\b(?:src|href|action|srcset|poster|data)\s*=\s*["']?([^"'\s>]*)|url\(\s*["']?([^"')]*))`)

// cspSources parses a Content-Security-Policy into its directives' source lists.
func cspSources(t *testing.T, csp string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, d := range strings.Split(csp, ";") {
		f := strings.Fields(d)
		if len(f) == 0 {
			continue
		}
		out[strings.ToLower(f[0])] = f[1:]
	}
	return out
}

// GET /docs answers the page without credentials; every file it names is the service's
// own, its CSP allows no other origin, and the renderer's files are cached by content
// hash.
func TestDocsPageWithoutCredentials(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	root := &apitest.Client{T: t, BaseURL: e.srv.URL}
	r := root.Do("GET", "/docs", nil)
	if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /docs: %d %s %.200s", r.Status, r.Header.Get("Content-Type"), r.Body)
	}
	csp := cspSources(t, r.Header.Get("Content-Security-Policy"))
	if got := csp["default-src"]; len(got) != 1 || got[0] != "'none'" {
		t.Errorf("default-src %v, want 'none'", got)
	}
	for _, d := range []string{"script-src", "connect-src", "frame-ancestors", "base-uri"} {
		if _, ok := csp[d]; !ok {
			t.Errorf("the CSP sets no %s: %s", d, r.Header.Get("Content-Security-Policy"))
		}
	}
	for d, sources := range csp {
		for _, s := range sources {
			switch s {
			case "'self'", "'none'", "'unsafe-inline'", "data:", "blob:":
			default:
				t.Errorf("CSP %s allows %s: only the service's own origin may serve the page's resources", d, s)
			}
		}
	}
	if got := csp["script-src"]; len(got) != 1 || got[0] != "'self'" {
		t.Errorf("script-src %v, want only 'self'", got)
	}
	if r.Header.Get("ETag") == "" || r.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("page headers: %v", r.Header)
	}
	if again := root.Do("GET", "/docs", nil, "If-None-Match", r.Header.Get("ETag")); again.Status != http.StatusNotModified {
		t.Errorf("GET /docs with its ETag: %d", again.Status)
	}

	var scripts []string
	refs := pageRefs.FindAllStringSubmatch(string(r.Body), -1)
	if len(refs) < 3 {
		t.Fatalf("the page names %d URLs, want the renderer, its start script and the document: %s", len(refs), r.Body)
	}
	for _, m := range refs {
		ref := m[1] + m[2]
		u, err := url.Parse(ref)
		if err != nil || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(u.Path, "/") {
			t.Errorf("the page names %q: every URL must be a path on the service itself", ref)
			continue
		}
		if strings.HasSuffix(u.Path, ".js") {
			scripts = append(scripts, u.Path)
		}
	}
	if !bytes.Contains(r.Body, []byte(`data-spec-url="/docs/openapi.yaml"`)) {
		t.Errorf("the page does not render /docs/openapi.yaml: %s", r.Body)
	}

	bundle, err := os.ReadFile("docs/redoc.standalone.js")
	if err != nil {
		t.Fatal(err)
	}
	servedBundle := false
	for _, p := range scripts {
		a := root.Do("GET", p, nil)
		if a.Status != 200 || a.Header.Get("Content-Type") != "text/javascript; charset=utf-8" {
			t.Errorf("GET %s: %d %s", p, a.Status, a.Header.Get("Content-Type"))
			continue
		}
		if cc := a.Header.Get("Cache-Control"); !strings.Contains(cc, "immutable") || !strings.Contains(cc, "max-age=31536000") {
			t.Errorf("GET %s: Cache-Control %q", p, cc)
		}
		etag := a.Header.Get("ETag")
		if len(etag) < 18 || !strings.Contains(p, strings.Trim(etag, `"`)[:16]) {
			t.Errorf("GET %s: ETag %q is not the hash in its name", p, etag)
		}
		if again := root.Do("GET", p, nil, "If-None-Match", etag); again.Status != http.StatusNotModified || len(again.Body) != 0 {
			t.Errorf("GET %s with its ETag: %d", p, again.Status)
		}
		if strings.Contains(p, "redoc.standalone.") {
			servedBundle = bytes.Equal(a.Body, bundle)
		}
	}
	if !servedBundle {
		t.Errorf("the page does not load the vendored renderer (scripts %v)", scripts)
	}
	// Compressed for a client that accepts gzip, under an ETag of its own; as is otherwise.
	for _, tc := range []struct {
		accept string
		gzip   bool
	}{{"gzip, deflate, br", true}, {"br;q=1.0, gzip;q=0.8", true}, {"identity", false}, {"gzip;q=0, *", false}, {"*", true}} {
		req, _ := http.NewRequest("GET", e.srv.URL+scripts[0], nil)
		req.Header.Set("Accept-Encoding", tc.accept)
		resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if tc.gzip {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Errorf("Accept-Encoding %q: %v (Content-Encoding %q)", tc.accept, err, resp.Header.Get("Content-Encoding"))
				continue
			}
			if body, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		want := root.Do("GET", scripts[0], nil).Body
		if resp.StatusCode != 200 || (resp.Header.Get("Content-Encoding") == "gzip") != tc.gzip || !bytes.Equal(body, want) ||
			resp.Header.Get("Vary") != "Accept-Encoding" {
			t.Errorf("Accept-Encoding %q: %d, Content-Encoding %q, Vary %q, %d bytes", tc.accept, resp.StatusCode,
				resp.Header.Get("Content-Encoding"), resp.Header.Get("Vary"), len(body))
		}
	}
	if a := root.Do("GET", "/docs/redoc.standalone.0000000000000000.js", nil); a.Status != 404 {
		t.Errorf("an unknown file: %d", a.Status)
	}
}

// The document the page renders is the OpenAPI document with the sandbox's magic values
// and the webhook event catalogue written from the code: every event type, every suffix.
func TestDocsDocumentListsSandboxValuesAndEvents(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *config.Config) { c.APIPrefix = "/payments" })
	root := &apitest.Client{T: t, BaseURL: e.srv.URL}
	r := root.Do("GET", "/docs/openapi.yaml", nil)
	if r.Status != 200 || r.Header.Get("Content-Type") != "application/yaml" || r.Header.Get("ETag") == "" {
		t.Fatalf("GET /docs/openapi.yaml: %d %v", r.Status, r.Header)
	}
	doc, err := libopenapi.NewDocument(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	model, errs := doc.BuildV3Model()
	if errs != nil {
		t.Fatalf("the served document does not build: %v", errs)
	}
	if got := model.Model.Servers[0].URL; got != "/payments/2025-10-13" {
		t.Errorf("server %s, want this deployment's base path", got)
	}
	if model.Model.Paths.PathItems.Len() < 50 {
		t.Errorf("only %d paths", model.Model.Paths.PathItems.Len())
	}
	desc := model.Model.Info.Description
	section := func(title, next string) string {
		i := strings.Index(desc, title+"\n")
		if i < 0 {
			t.Fatalf("no section %q in info.description", title)
		}
		s := desc[i:]
		if j := strings.Index(s[len(title):], next); next != "" && j >= 0 {
			s = s[:len(title)+j]
		}
		return s
	}
	row := func(where, sec, value string) {
		t.Helper()
		if !strings.Contains(sec, "| `"+value+"` | ") {
			t.Errorf("%s: no row for %s", where, value)
		}
	}
	for _, typ := range events.Types {
		row("webhook events", section("# Webhook events", ""), typ)
	}
	transfers := section("## Transfers", "\n## ")
	for _, s := range sandbox.TransferSuffixes() {
		row("transfers", transfers, s)
	}
	for _, s := range []string{"002", "003", "004", "005"} { // the sandbox table of docs/api/accounts-and-transfers.md
		row("transfers", transfers, s)
	}
	if !strings.Contains(transfers, "INSUFFICIENT_FUNDS") || !strings.Contains(transfers, "| any other | `COMPLETED` |") {
		t.Errorf("transfers: %s", transfers)
	}
	quotes := section("## Quotes", "\n## ")
	for _, s := range sandbox.QuoteSuffixes() {
		row("quotes", quotes, s)
	}
	uma := section("## UMA counterparties", "\n## ")
	for _, c := range incoming.SandboxAddresses() {
		row("UMA counterparties", uma, c.Address)
	}
	if !strings.Contains(uma, "COMPLIANCE_CHECK_FAILED") {
		t.Errorf("UMA counterparties: %s", uma)
	}
	beneficiary := section("## Beneficiary name check", "\n## ")
	for _, s := range sandbox.BeneficiarySuffixes() {
		row("beneficiary check", beneficiary, s)
	}
	verification := section("## KYC and KYB", "\n## ")
	for _, s := range kyc.SandboxSuffixes() {
		row("verification", verification, s)
	}
	wallets := section("## Embedded wallets", "\n## ")
	for _, m := range []string{"000000", "sandbox-valid-signature", "sandbox-valid-passkey-signature", "sandbox-valid-oidc-token"} {
		row("wallets", wallets, m)
	}
	if !strings.Contains(section("## Sandbox funding", "\n#"), "100000000000") {
		t.Error("the funding limit is missing")
	}
	// The plain document stays as it is.
	if plain := root.Do("GET", "/openapi.yaml", nil); bytes.Contains(plain.Body, []byte("# Webhook events")) {
		t.Error("/openapi.yaml carries the reference's sections")
	}
}
