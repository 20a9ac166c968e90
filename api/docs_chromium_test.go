package api_test

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"paycore/api/apitest"
	"paycore/internal/events"
)

// browserTraffic records what a page asked for, from the DevTools network events.
type browserTraffic struct {
	mu sync.Mutex
	// urls are the requests by DevTools id; blocked those the browser refused to send
	// (the page's CSP), with the reason.
	urls       map[network.RequestID]string
	blocked    map[network.RequestID]string
	exceptions []string
}

func (b *browserTraffic) listen(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		b.urls[ev.RequestID] = ev.Request.URL
	case *network.EventLoadingFailed:
		if ev.BlockedReason != "" {
			b.blocked[ev.RequestID] = string(ev.BlockedReason)
		}
	case *runtime.EventExceptionThrown:
		if d := ev.ExceptionDetails; d != nil {
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			b.exceptions = append(b.exceptions, msg)
		}
	}
}

// GET /docs in headless Chromium: the renderer draws the document's operations and the
// sections written from the code, and no request leaves 127.0.0.1 (the test server).
// A screenshot is kept in PAYCORE_DOCS_SCREENSHOT (a file name) or the test's temporary
// folder.
func TestDocsPageRendersInChromium(t *testing.T) {
	t.Parallel()
	exe := apitest.Chromium(t)
	e := newEnv(t)
	base, err := url.Parse(e.srv.URL)
	if err != nil || base.Hostname() != "127.0.0.1" {
		t.Fatalf("test server at %s, want 127.0.0.1", e.srv.URL)
	}

	traffic := &browserTraffic{urls: map[network.RequestID]string{}, blocked: map[network.RequestID]string{}}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-quic", true),
		// Should a request leave anyway, it goes nowhere: every name but the test server's
		// address fails to resolve (the test still counts it).
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"))
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(traffic.listen))
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()

	// The page's CSP violations, as the page itself sees them.
	const watch = `window.__csp = []; document.addEventListener('securitypolicyviolation',
		e => window.__csp.push(e.effectiveDirective + ' ' + e.blockedURI));`
	if err := chromedp.Do(ctx,
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: watch})
			return err
		}),
		chromedp.Navigate(e.srv.URL+"/docs"),
		// Redoc has drawn an operation, the sandbox tables and the event catalogue.
		chromedp.WaitVisible(chromedp.Search(`//h2[normalize-space(.)="Transfer out to an external account"]`)),
		chromedp.WaitVisible(chromedp.Search(`//h2[normalize-space(.)="Webhook events"]`)),
		chromedp.WaitVisible(chromedp.Search(`//td[normalize-space(.)="`+events.AgentActionPendingApproval+`"]`)),
		chromedp.WaitVisible(chromedp.Search(`//td[normalize-space(.)="sandbox-valid-oidc-token"]`)),
	); err != nil {
		t.Fatalf("render /docs: %v (exceptions: %v)", err, traffic.exceptions)
	}
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"paycore payments API", "Sandbox magic values", "INSUFFICIENT_FUNDS", "/transfer-out"} {
		if !strings.Contains(text, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
	var violations []string
	if raw, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.__csp`)); err != nil {
		t.Fatal(err)
	} else {
		violations = raw
	}

	// The screenshot shows the operation, with the side menu.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const h = document.evaluate('//h2[normalize-space(.)="Transfer out to an external account"]',
		document, null, XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue; h.scrollIntoView(); return true; })()`)); err != nil {
		t.Fatal(err)
	}
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	path := os.Getenv("PAYCORE_DOCS_SCREENSHOT")
	if path == "" {
		path = filepath.Join(t.TempDir(), "docs.png")
	}
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", path, len(shot))

	traffic.mu.Lock()
	defer traffic.mu.Unlock()
	var own, left []string
	for id, u := range traffic.urls {
		p, err := url.Parse(u)
		switch {
		case err == nil && (p.Scheme == "data" || p.Scheme == "blob"):
		case err == nil && p.Host == base.Host:
			own = append(own, p.Path)
		case traffic.blocked[id] != "":
			t.Logf("blocked by the browser (%s), never sent: %s", traffic.blocked[id], u)
		default:
			left = append(left, u)
		}
	}
	if len(left) > 0 {
		t.Errorf("requests left 127.0.0.1: %v", left)
	}
	for _, want := range []string{"/docs", "/docs/openapi.yaml"} {
		if !slices.Contains(own, want) {
			t.Errorf("the browser did not request %s (requests %v): the traffic was not recorded", want, own)
		}
	}
	// The only refusal the CSP may have to make is Redoc's attribution logo on its CDN.
	for _, v := range violations {
		if !strings.HasPrefix(v, "img-src https://cdn.redoc.ly/") {
			t.Errorf("CSP violation: %s", v)
		}
	}
	if len(traffic.exceptions) > 0 {
		t.Errorf("page exceptions: %v", traffic.exceptions)
	}
}
