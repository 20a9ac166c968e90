package main

import (
	"bytes"
	"context"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"paycore/api"
	"paycore/api/apitest"
	"paycore/db/view"
)

// kycLink creates a KYC link for customer and returns its URL on the stack's listener.
func kycLink(t *testing.T, s *stack, c *apitest.Client, customerID string, body any, headers ...string) string {
	t.Helper()
	r := c.Do("POST", "/customers/"+customerID+"/kyc-link", body, headers...)
	if r.Status != 201 {
		t.Fatalf("kyc-link: %d %s", r.Status, r.Body)
	}
	var link struct {
		KycURL    string    `json:"kycUrl"`
		ExpiresAt time.Time `json:"expiresAt"`
		Provider  string    `json:"provider"`
	}
	r.Decode(t, &link)
	u, err := url.Parse(link.KycURL)
	if err != nil || !strings.HasPrefix(u.Path, "/kyc/") || link.Provider != "SUMSUB" || time.Until(link.ExpiresAt) < time.Hour {
		t.Fatalf("link %+v", link)
	}
	return strings.TrimSuffix(s.baseURL, s.cfg.BasePath()) + u.Path
}

// postKycPassport submits the hosted KYC page at page with fields and a PNG as the file of
// slot doc0 (its holder and type among fields), and returns the answer (its body read and
// closed; an empty response after a transport error, reported with t.Error).
func postKycPassport(t *testing.T, page string, fields map[string]string) (*http.Response, []byte) {
	t.Helper()
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	for k, v := range fields {
		_ = mw.WriteField(k, v)
	}
	fw, _ := mw.CreateFormFile("doc0.file", "passport.png")
	_, _ = fw.Write(pngBytes)
	_ = mw.Close()
	resp, err := noRedirects.Post(page, mw.FormDataContentType(), &form)
	if err != nil {
		t.Error(err)
		return &http.Response{}, nil
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, body
}

// noRedirects is a client that shows redirects instead of following them.
var noRedirects = &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func get(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := noRedirects.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// The hosted page over plain HTTP: what it shows, a submission that completes the
// verification and is sent to redirectUri, and the pages of used, expired and unknown
// links; the link endpoint's checks.
func TestKycLinkPage(t *testing.T) {
	t.Parallel()
	s := newStack(t, kycFast)
	c, _ := s.unregulatedPlatform()
	var cust api.Customer
	c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "region": "US", "currencies": []string{"USD"}}).Decode(t, &cust)
	if r := c.Do("POST", "/customers/"+cust.ID+"/kyc-link", map[string]any{"redirectUri": "http://app.example.com/done"}); r.Status != 400 {
		t.Fatalf("a plain-http redirect: %d %s", r.Status, r.Body)
	}
	other, _ := s.unregulatedPlatform()
	if r := other.Do("POST", "/customers/"+cust.ID+"/kyc-link", nil); r.Status != 404 {
		t.Fatalf("another platform's customer: %d", r.Status)
	}
	body := map[string]any{"redirectUri": "https://app.example.com/kyc-done?c=1"}
	page := kycLink(t, s, c, cust.ID, body, "Idempotency-Key", "link-1")
	if again := kycLink(t, s, c, cust.ID, body, "Idempotency-Key", "link-1"); again != page {
		t.Fatalf("a repeated key gave another link")
	}
	bare := kycLink(t, s, c, cust.ID, nil) // the body is optional; earlier links stay valid

	status, html := get(t, page)
	if status != 200 || !strings.Contains(html, "Date of birth") || !strings.Contains(html, "an identity document is required") {
		t.Fatalf("page: %d %s", status, html)
	}
	// A script named .png is refused on the page; nothing is stored or changed.
	var bad bytes.Buffer
	bw := multipart.NewWriter(&bad)
	_ = bw.WriteField("fullName", "Mallory")
	_ = bw.WriteField("doc0.holder", cust.ID)
	_ = bw.WriteField("doc0.type", "PASSPORT")
	bf, _ := bw.CreateFormFile("doc0.file", "passport.png")
	_, _ = bf.Write([]byte("#!/bin/sh\nrm -rf /\n"))
	_ = bw.Close()
	resp, err := noRedirects.Post(page, bw.FormDataContentType(), &bad)
	if err != nil {
		t.Fatal(err)
	}
	refused, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(string(refused), "PDF, JPEG or PNG") {
		t.Fatalf("a script named .png: %d %s", resp.StatusCode, refused)
	}
	var none api.List[view.Document]
	c.Do("GET", "/documents?documentHolder="+cust.ID, nil).Decode(t, &none)
	var still api.Customer
	c.Do("GET", "/customers/"+cust.ID, nil).Decode(t, &still)
	if len(none.Data) != 0 || still.FullName != nil {
		t.Fatalf("a refused submission left %d documents, name %v", len(none.Data), still.FullName)
	}

	submit := func(extra map[string]string) *http.Response {
		fields := map[string]string{"fullName": "Ana García", "birthDate": "1990-05-17", "nationality": "US", "address.line1": "1 Main St",
			"address.postalCode": "94105", "address.country": "US", "doc0.holder": cust.ID, "doc0.type": "PASSPORT"}
		for k, v := range extra {
			fields[k] = v
		}
		resp, _ := postKycPassport(t, page, fields)
		return resp
	}
	if r := submit(map[string]string{"isAdmin": "true"}); r.StatusCode != 400 {
		t.Fatalf("an unknown form field: %d", r.StatusCode)
	}
	// Two submissions at once: the link is spent by exactly one.
	answers := make(chan *http.Response, 2)
	for range 2 {
		go func() { answers <- submit(nil) }()
	}
	a, b := <-answers, <-answers
	if a.StatusCode == 303 == (b.StatusCode == 303) {
		t.Fatalf("two submissions of one link: %d and %d", a.StatusCode, b.StatusCode)
	}
	if ok := map[bool]*http.Response{true: a, false: b}[a.StatusCode == 303]; ok.Header.Get("Location") != "https://app.example.com/kyc-done?c=1" {
		t.Fatalf("submission → %q", ok.Header.Get("Location"))
	}
	var docs api.List[view.Document]
	c.Do("GET", "/documents?documentHolder="+cust.ID, nil).Decode(t, &docs)
	if len(docs.Data) != 1 {
		t.Fatalf("%d documents after two submissions of one link", len(docs.Data))
	}
	var list api.List[view.Verification]
	c.Do("GET", "/verifications?customerId="+cust.ID, nil).Decode(t, &list)
	if len(list.Data) != 1 {
		t.Fatalf("verifications %+v", list.Data)
	}
	if v := waitVerification(t, c, list.Data[0].ID); v.VerificationStatus != "APPROVED" {
		t.Fatalf("verification %+v", v)
	}
	if status, html := get(t, page); status != 410 || !strings.Contains(html, "already used") {
		t.Fatalf("a used link: %d %s", status, html)
	}
	// Another link of the customer: nothing is left to do once the verification is approved.
	if status, html := get(t, bare); status != 200 || !strings.Contains(html, "already submitted") || strings.Contains(html, "<form") {
		t.Fatalf("a link of an approved customer: %d %s", status, html)
	}
	if _, err := s.app.pool.Exec(context.Background(), "UPDATE kyc_links SET expires_at = now() - interval '1 second' WHERE customer_id = (SELECT id FROM customers WHERE uma_address = $1) AND used_at IS NULL", cust.UmaAddress); err != nil {
		t.Fatal(err)
	}
	if status, html := get(t, bare); status != 410 || !strings.Contains(html, "expired") {
		t.Fatalf("an expired link: %d %s", status, html)
	}
	if status, _ := get(t, strings.TrimSuffix(bare, bare[len(bare)-5:])+"AAAAA"); status != 404 {
		t.Fatalf("an unknown link: %d", status)
	}
}

// A business's end user in headless Chromium: the page lists what is missing, the user
// fills in the registration number and address and uploads the business's and the
// owner's documents, submits, and lands on the platform's redirectUri; the KYB then
// completes.
func TestKycPageInChromium(t *testing.T) {
	t.Parallel()
	exe := apitest.Chromium(t)
	s := newStack(t, kycFast)
	c, _ := s.unregulatedPlatform()

	// The platform's page the browser is sent back to.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	back := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<!doctype html><title>back</title><p id=done>Welcome back</p>"))
	})}
	go func() { _ = back.Serve(ln) }()
	t.Cleanup(func() { _ = back.Close() })
	redirect := "http://localhost:" + strings.Split(ln.Addr().String(), ":")[1] + "/kyc-done"

	r := c.Do("POST", "/customers", map[string]any{"customerType": "BUSINESS", "region": "US", "currencies": []string{"USD"},
		"businessInfo": map[string]any{"legalName": "Acme Browser Inc.", "country": "US"}})
	biz := r.JSON(t)["id"].(string)
	owner := c.Do("POST", "/beneficial-owners", ownerBody(biz, "Smith", 100)).JSON(t)["id"].(string)
	page := kycLink(t, s, c, biz, map[string]any{"redirectUri": redirect})

	dir := t.TempDir()
	file := filepath.Join(dir, "scan.png")
	if err := os.WriteFile(file, pngBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := apitest.Browser(t, exe, 90*time.Second)

	if err := chromedp.Do(ctx, chromedp.Navigate(page), chromedp.WaitVisible("#submit")); err != nil {
		t.Fatalf("open the page: %v", err)
	}
	problems, err := chromedp.Run(ctx, chromedp.Text("#problems"))
	if err != nil {
		t.Fatal(err)
	}
	slots, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('input[type=file]').length`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"customer.businessInfo.registrationNumber", "a legal-presence document", "an identity document of the owner"} {
		if !strings.Contains(problems, want) {
			t.Fatalf("the page does not show %q: %s", want, problems)
		}
	}
	if slots != 3 { // legal presence, ownership structure, the owner's identity
		t.Fatalf("%d upload slots", slots)
	}
	err = chromedp.Do(ctx,
		chromedp.SendKeys(`input[name="businessInfo.registrationNumber"]`, "REG-100"),
		chromedp.SendKeys(`input[name="address.line1"]`, "1 Market St"),
		chromedp.SendKeys(`input[name="address.postalCode"]`, "94105"),
		chromedp.SendKeys(`input[name="address.country"]`, "US"),
		chromedp.SetUploadFiles(`input[name="doc0.file"]`, []string{file}),
		chromedp.SetUploadFiles(`input[name="doc1.file"]`, []string{file}),
		chromedp.SetUploadFiles(`input[name="doc2.file"]`, []string{file}),
		chromedp.Click("#submit"),
		chromedp.WaitVisible("#done"))
	if err != nil {
		t.Fatalf("fill in and submit: %v", err)
	}
	landed, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	if landed != redirect {
		t.Fatalf("landed on %s", landed)
	}
	var docs api.List[view.Document]
	c.Do("GET", "/documents?documentHolder="+owner, nil).Decode(t, &docs)
	if len(docs.Data) != 1 || docs.Data[0].DocumentType != "PASSPORT" {
		t.Fatalf("the owner's document: %+v", docs.Data)
	}
	var list api.List[view.Verification]
	c.Do("GET", "/verifications?customerId="+biz, nil).Decode(t, &list)
	if v := waitVerification(t, c, list.Data[0].ID); v.VerificationStatus != "APPROVED" {
		t.Fatalf("KYB %+v", v)
	}
	// The used link shows a clear page in the browser too.
	if err := chromedp.Do(ctx, chromedp.Navigate(page)); err != nil {
		t.Fatal(err)
	}
	if msg, err := chromedp.Run(ctx, chromedp.Text("#message")); err != nil || !strings.Contains(msg, "already used") {
		t.Fatalf("the used link: %q %v", msg, err)
	}
}
