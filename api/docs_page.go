package api

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"
	"go.yaml.in/yaml/v3"

	"paycore/internal/catalog"
	"paycore/internal/events"
	"paycore/internal/incoming"
	"paycore/internal/infra/config"
	"paycore/internal/kyc"
	"paycore/internal/rail"
	"paycore/internal/sandbox"
	"paycore/internal/sandbox/sandboxrail"
)

// The API reference (GET /docs): the OpenAPI document rendered in the browser by Redoc,
// whose standalone bundle is vendored in api/docs/ (pinned by api/docs/package-lock.json,
// refreshed by make generate, checked by make verify) and served by the service itself.
// Like the hosted KYC and invitation pages it lives at the host root, outside the
// versioned prefix and without authentication.
const (
	docsPath         = "/docs"
	docsDocumentPath = docsPath + "/openapi.yaml"
)

//go:embed docs/redoc.standalone.js
var redocBundle []byte

//go:embed docs/init.js
var docsInit []byte

// docsCSP is the page's Content-Security-Policy: scripts, the document and images from the
// service only; inline styles (Redoc's styled-components inject <style> elements) and a
// blob: worker (Redoc's search index runs in one it builds from its own bundle). Nothing
// from another origin: Redoc's attribution logo (an image on its CDN) is blocked and
// hidden.
const docsCSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; " +
	"connect-src 'self'; worker-src blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

// docsAsset is one file of the API reference: its bytes, also gzip-compressed, its type
// and its content hash (the ETag, and part of the name of the immutable ones).
type docsAsset struct {
	body, gzipped []byte
	contentType   string
	etag          string
}

func newDocsAsset(body []byte, contentType string) (docsAsset, error) {
	sum := sha256.Sum256(body)
	var gz bytes.Buffer
	zw, err := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	if err != nil {
		return docsAsset{}, fmt.Errorf("compress: %w", err)
	}
	if _, err := zw.Write(body); err != nil {
		return docsAsset{}, fmt.Errorf("compress: %w", err)
	}
	if err := zw.Close(); err != nil {
		return docsAsset{}, fmt.Errorf("compress: %w", err)
	}
	return docsAsset{body: body, gzipped: gz.Bytes(), contentType: contentType, etag: `"` + hex.EncodeToString(sum[:16]) + `"`}, nil
}

// hashedName is name with the asset's content hash before its extension.
func (a docsAsset) hashedName(name string) string {
	dot := strings.LastIndexByte(name, '.')
	return name[:dot] + "." + strings.Trim(a.etag, `"`)[:16] + name[dot:]
}

// docsSite is everything GET /docs and its files serve, built once on first use.
type docsSite struct {
	page, document docsAsset
	// assets are the immutable files, by their hashed names.
	assets map[string]docsAsset
}

// buildDocsSite builds the page, the document (the OpenAPI document with the sandbox's
// magic values and the webhook event catalogue added from the code that decides them)
// and the renderer's files.
func buildDocsSite(cfg config.Config) (*docsSite, error) {
	doc, err := DocsDocument(cfg)
	if err != nil {
		return nil, err
	}
	site := &docsSite{assets: map[string]docsAsset{}}
	var renderer, init docsAsset
	for _, a := range []struct {
		to          *docsAsset
		body        []byte
		contentType string
	}{{&renderer, redocBundle, "text/javascript; charset=utf-8"}, {&init, docsInit, "text/javascript; charset=utf-8"},
		{&site.document, doc, "application/yaml"}} {
		if *a.to, err = newDocsAsset(a.body, a.contentType); err != nil {
			return nil, err
		}
	}
	names := struct{ Title, Document, Renderer, Init string }{"paycore API reference", docsDocumentPath,
		docsPath + "/" + renderer.hashedName("redoc.standalone.js"), docsPath + "/" + init.hashedName("init.js")}
	site.assets[strings.TrimPrefix(names.Renderer, docsPath+"/")] = renderer
	site.assets[strings.TrimPrefix(names.Init, docsPath+"/")] = init
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, "docs", names); err != nil {
		return nil, fmt.Errorf("render the docs page: %w", err)
	}
	if site.page, err = newDocsAsset(buf.Bytes(), "text/html; charset=utf-8"); err != nil {
		return nil, err
	}
	return site, nil
}

// docsSiteOnce builds the site on first use (parsing and writing the document again takes
// a moment, which servers that never show the page should not pay).
type docsSiteOnce struct {
	once sync.Once
	site *docsSite
	err  error
}

func (s *Server) docs() (*docsSite, error) {
	s.docsSite.once.Do(func() { s.docsSite.site, s.docsSite.err = buildDocsSite(s.Config) })
	return s.docsSite.site, s.docsSite.err
}

// serveDocsPage is GET /docs: the page that renders the document.
func (s *Server) serveDocsPage(w http.ResponseWriter, r *http.Request) error {
	site, err := s.docs()
	if err != nil {
		return err
	}
	w.Header().Set("Content-Security-Policy", docsCSP)
	serveDocsAsset(w, r, site.page, "no-cache")
	return nil
}

// serveDocsDocument is GET /docs/openapi.yaml: the document the page renders.
func (s *Server) serveDocsDocument(w http.ResponseWriter, r *http.Request) error {
	site, err := s.docs()
	if err != nil {
		return err
	}
	serveDocsAsset(w, r, site.document, "no-cache")
	return nil
}

// serveDocsFile is GET /docs/{asset}: one of the renderer's files, under a name that
// carries its content hash, so it may be cached for good.
func (s *Server) serveDocsFile(w http.ResponseWriter, r *http.Request) error {
	site, err := s.docs()
	if err != nil {
		return err
	}
	a, ok := site.assets[chi.URLParam(r, "asset")]
	if !ok {
		return refusal(catalog.NotFound, "no such file", nil)
	}
	serveDocsAsset(w, r, a, "public, max-age=31536000, immutable")
	return nil
}

// serveDocsAsset writes a with its ETag (a conditional request gets 304), gzip-compressed
// when the client accepts it (the compressed form has an ETag of its own).
func serveDocsAsset(w http.ResponseWriter, r *http.Request, a docsAsset, cacheControl string) {
	h := w.Header()
	h.Set("Content-Type", a.contentType)
	h.Set("Cache-Control", cacheControl)
	h.Set("Vary", "Accept-Encoding")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	body, etag := a.body, a.etag
	if acceptsGzip(r.Header.Values("Accept-Encoding")) {
		body, etag = a.gzipped, strings.TrimSuffix(a.etag, `"`)+`-gzip"`
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("ETag", etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}

// acceptsGzip reports whether Accept-Encoding values accept gzip: named without q=0, or
// not named and "*" without q=0.
func acceptsGzip(values []string) bool {
	star := false
	for _, v := range values {
		for _, coding := range strings.Split(v, ",") {
			name, params, _ := strings.Cut(coding, ";")
			q := strings.ReplaceAll(strings.ToLower(params), " ", "")
			ok := true
			if q, set := strings.CutPrefix(q, "q="); set && strings.Trim(q, "0.") == "" {
				ok = false
			}
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "gzip", "x-gzip":
				return ok
			case "*":
				star = ok
			}
		}
	}
	return star
}

// DocsDocument is the OpenAPI document as the API reference shows it: the embedded
// document with its server at cfg's base path and, in info.description, the sandbox's
// magic values and the webhook event catalogue, written from the code that decides them.
func DocsDocument(cfg config.Config) ([]byte, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(openAPIDoc, &root); err != nil {
		return nil, fmt.Errorf("parse the OpenAPI document: %w", err)
	}
	if len(root.Content) != 1 {
		return nil, fmt.Errorf("the OpenAPI document is not one YAML document")
	}
	desc := mappingValue(mappingValue(root.Content[0], "info"), "description")
	if desc == nil {
		return nil, fmt.Errorf("the OpenAPI document has no info.description")
	}
	desc.Value = strings.TrimRight(desc.Value, "\n") + "\n\n" + docsReference(cfg)
	if servers := mappingValue(root.Content[0], "servers"); servers != nil && len(servers.Content) > 0 {
		if u := mappingValue(servers.Content[0], "url"); u != nil {
			u.Value = cfg.BasePath()
		}
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&root); err != nil {
		return nil, fmt.Errorf("write the OpenAPI document: %w", err)
	}
	return buf.Bytes(), enc.Close()
}

// mappingValue is the value of key in the YAML mapping m, nil when m is not a mapping or
// lacks it.
func mappingValue(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// docsReference is the Markdown of the sandbox's magic values and the webhook event
// catalogue, with cfg's sandbox delays.
func docsReference(cfg config.Config) string {
	var b strings.Builder
	table := func(head [2]string, rules []sandbox.Rule) {
		fmt.Fprintf(&b, "| %s | %s |\n| --- | --- |\n", head[0], head[1])
		for _, r := range rules {
			v := r.Value
			if v != "any other" {
				v = "`" + v + "`"
			}
			fmt.Fprintf(&b, "| %s | %s |\n", v, r.Effect)
		}
		b.WriteString("\n")
	}
	suffix := "Chosen by the last three characters of the external account's primary identifier (account number, IBAN, " +
		"phone number...; for an address such as `name005@upi`, of the part before the `@`)."
	b.WriteString("# Sandbox magic values\n\n")
	b.WriteString("On sandbox platforms these values choose simulated outcomes; production platforms treat them as ordinary " +
		"values. This section is written by the service from the code that decides them, with this deployment's delays.\n\n")
	b.WriteString("## Transfers\n\n`POST /transfer-out` and `POST /transfer-in` (same currency). " + suffix + "\n\n")
	table([2]string{"Suffix", "Outcome"}, sandbox.TransferRules(cfg.SandboxSlowDelay))
	b.WriteString("## Refunds\n\n`POST /transactions/{transactionId}/refund` of a completed transfer in, by its external account. " + suffix +
		" The refund of a UMA payment received from a sandbox address goes as paying that address does (below).\n\n")
	table([2]string{"Suffix", "Outcome"}, sandbox.RefundRules(cfg.SandboxSlowDelay))
	b.WriteString("## Quotes\n\nExecuting a quote (`POST /quotes/{quoteId}/execute`, or `POST /quotes` with `immediatelyExecute: true`) " +
		"that pays an external account. " + suffix + "\n\n")
	table([2]string{"Suffix", "Outcome"}, sandbox.QuoteRules(cfg.QuoteSlowDelay, cfg.QuoteReturnDelay))
	b.WriteString("## UMA counterparties\n\nThe sandbox's UMA addresses at `" + incoming.SandboxDomain + "`: paying one with a quote, " +
		"and receiving from one with `POST /sandbox/uma/receive`.\n\n| Address | Paying it | Receiving from it |\n| --- | --- | --- |\n")
	for _, c := range incoming.SandboxAddresses() {
		paid := sandboxrail.Outcome(rail.Instruction{Payment: rail.Payout, Environment: catalog.Sandbox, Kind: rail.UMA, Identifier: c.Address})
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", c.Address, sandbox.Describe(paid, cfg.QuoteSlowDelay, cfg.QuoteReturnDelay),
			incoming.SandboxSenderEffect(c.Scenario, cfg.QuoteSlowDelay))
	}
	b.WriteString("\n")
	b.WriteString("## Beneficiary name check\n\nCreating an external bank account. " + suffix + "\n\n")
	table([2]string{"Suffix", "Result"}, sandbox.BeneficiaryRules())
	b.WriteString("## Wallet ownership\n\nA `FIRST_PARTY` self-custody wallet proves its owner's control with " +
		"`POST /customers/external-accounts/{externalAccountId}/challenge` (or the platform's route). A `WALLET_SIGNATURE` " +
		"challenge accepts `" + string(sandbox.WalletSignature) + "` in place of the wallet's signature; a `LIVENESS` check decides by itself after " +
		sandbox.FormatDelay(cfg.KycReviewDelay) + ": it fails (`UNVERIFIED`) for an address ending in `" + sandbox.LivenessDead +
		"` (any letter case) and passes (`ACTIVE`) otherwise.\n\n")
	b.WriteString("## KYC and KYB\n\nA complete verification is decided by the last three characters of a value: " + kyc.SandboxSubjects + ".\n\n")
	var kycRules []sandbox.Rule
	for _, r := range kyc.SandboxRules() {
		kycRules = append(kycRules, sandbox.Rule{Value: r.Suffix, Effect: "`" + r.Status + "`"})
	}
	table([2]string{"Suffix", "Status"}, kycRules)
	b.WriteString("## Embedded wallets\n\nStand-ins for the proofs of embedded-wallet authentication (real proofs work in sandbox too).\n\n")
	table([2]string{"Value", "Accepted as"}, sandbox.MagicRules())
	b.WriteString("## Sandbox funding\n\n`POST /sandbox/internal-accounts/{accountId}/fund` credits " + sandbox.FundingRule() + ".\n\n")
	b.WriteString("# Webhook events\n\nEvery event type the service sends (the `type` of the `WebhookEnvelope`; filter " +
		"`GET /webhooks/events` by it).\n\n| Type | Sent when |\n| --- | --- |\n")
	for _, e := range events.Catalogue() {
		fmt.Fprintf(&b, "| `%s` | %s |\n", e.Type, e.Meaning)
	}
	return b.String()
}
