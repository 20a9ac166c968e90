package api

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	"paycore/db"
	"paycore/internal/catalog"
	"paycore/internal/customer"
	"paycore/internal/ids"
	"paycore/internal/kyc"
)

// kycPagePath is where hosted KYC links point: the service's own page, outside the API
// and its authentication (the link's token is the credential).
const kycPagePath = "/kyc/"

//go:embed pages/*.html
var pageFiles embed.FS

// pages are the service's own HTML pages (the hosted KYC page, the invitation page, the
// API reference): no external asset, and no script but the API reference's own (served by
// the service, see docsSite).
var pages = template.Must(template.ParseFS(pageFiles, "pages/*.html"))

// kycPage is what the hosted page shows.
type kycPage struct {
	Title, Platform, Message, Error string
	Business                        bool
	// redirect is the link's redirectUri: the form may lead there (CSP form-action).
	redirect  string
	Problems  []string
	Fields    []pageField
	Documents []pageDocument
}

// pageField is one input of the page, named by its path below "customer.".
type pageField struct {
	Name, Label, Type, Value, Placeholder string
	Missing                               bool
}

// pageDocument is one upload slot: a document of one of the accepted types for holder.
type pageDocument struct {
	Slot, Holder, Label string
	Types               []string
}

// kycForm lists the fields the page asks for, by customer type: name, label, input type.
var kycForm = map[catalog.CustomerType][][3]string{
	catalog.Individual: {{"fullName", "Full name", "text"}, {"birthDate", "Date of birth", "date"}, {"nationality", "Nationality (country code, e.g. US)", "text"},
		{"email", "E-mail", "email"}},
	catalog.Business: {{"businessInfo.legalName", "Legal name", "text"}, {"businessInfo.registrationNumber", "Registration number", "text"},
		{"businessInfo.country", "Country of registration (e.g. US)", "text"}, {"businessInfo.taxId", "Tax id", "text"}, {"email", "E-mail", "email"}},
}

var addressForm = [][3]string{{"address.line1", "Address", "text"}, {"address.line2", "Address line 2", "text"}, {"address.city", "City", "text"},
	{"address.state", "State or region", "text"}, {"address.postalCode", "Postal code", "text"}, {"address.country", "Country (e.g. US)", "text"}}

// serveKycPage is GET /kyc/{token}: the hosted verification page of a KYC link.
func (s *Server) serveKycPage(w http.ResponseWriter, r *http.Request) error {
	sub, page, ok, err := s.kycSubject(w, r)
	if err != nil || !ok {
		return err
	}
	fillKycPage(&page, sub, "")
	renderKycPage(w, http.StatusOK, page)
	return nil
}

// kycSubject reads the subject of the page's link; when the link cannot be used, the page
// saying why is written and ok is false.
func (s *Server) kycSubject(w http.ResponseWriter, r *http.Request) (db.KycLinkSubject, kycPage, bool, error) {
	page := kycPage{Title: "Verify your identity"}
	sub, err := db.KycLinkSubjectGet(r.Context(), s.Pool, pathParam(r, "token"))
	if err == db.ErrNotFound {
		page.Message = "This verification link is not valid. Ask for a new link."
		renderKycPage(w, http.StatusNotFound, page)
		return sub, page, false, nil
	}
	if err != nil {
		return sub, page, false, err
	}
	if sub.Customer.Type == catalog.Business {
		page.Title, page.Business = "Verify your business", true
	}
	p, err := db.PlatformGet(r.Context(), s.Pool, sub.Link.PlatformID)
	if err != nil {
		return sub, page, false, fmt.Errorf("load platform: %w", err)
	}
	page.Platform = p.Name
	if sub.Link.RedirectUri != nil {
		page.redirect = *sub.Link.RedirectUri
	}
	latest := catalog.VerificationStatus("")
	if sub.Verification != nil {
		latest = sub.Verification.Status
	}
	st := kyc.StateOf(sub.Link.ExpiresAt, sub.Link.UsedAt, latest, sub.Customer.KycStatus, s.now())
	if st == kyc.LinkUsable && sub.Customer.IsDeleted {
		page.Message = "This verification link is no longer valid."
		renderKycPage(w, http.StatusGone, page)
		return sub, page, false, nil
	}
	if st != kyc.LinkUsable {
		closedKycPage(w, &page, st)
		return sub, page, false, nil
	}
	return sub, page, true, nil
}

// closedKycPage writes the page of a link that takes no submission: 410 for a used or
// expired link; for a customer whose verification is under review or approved, 200 saying
// so (nothing is left to do).
func closedKycPage(w http.ResponseWriter, page *kycPage, st kyc.LinkState) {
	status := http.StatusGone
	switch st {
	case kyc.LinkExpired:
		page.Message = "This verification link has expired. Ask " + page.Platform + " for a new link."
	case kyc.LinkUsed:
		page.Message = "This verification link was already used: your information was submitted for review."
	default:
		status = http.StatusOK
		page.Message = "Your verification was already submitted; there is nothing more to do here."
	}
	renderKycPage(w, status, *page)
}

// fillKycPage fills the form of sub: its current values, what it still lacks, and an
// upload slot for each missing document.
func fillKycPage(page *kycPage, sub db.KycLinkSubject, problem string) {
	page.Error = problem
	problems := sub.Problems()
	missing := map[string]bool{}
	for _, p := range problems {
		page.Problems = append(page.Problems, p.Reason)
		if p.Field != nil {
			missing[strings.TrimPrefix(*p.Field, "customer.")] = true
		}
	}
	values := currentValues(sub.Customer)
	for _, f := range append(kycForm[sub.Customer.Type], addressForm...) {
		page.Fields = append(page.Fields, pageField{Name: f[0], Label: f[1], Type: f[2], Value: values[f[0]], Missing: missing[f[0]]})
	}
	owners := map[string]string{}
	for _, o := range sub.Owners {
		owners[ids.Format(ids.BeneficialOwner, o.ID)] = o.PersonalInfo.FirstName + " " + o.PersonalInfo.LastName
	}
	for _, p := range problems {
		if len(p.AcceptedDocumentTypes) == 0 {
			continue
		}
		label := strings.TrimSuffix(strings.SplitN(p.Reason, ":", 2)[0], " is required")
		if name, ok := owners[p.ResourceID]; ok {
			label += " (" + name + ")"
		}
		page.Documents = append(page.Documents, pageDocument{Slot: fmt.Sprintf("doc%d", len(page.Documents)), Holder: p.ResourceID,
			Label: strings.ToUpper(label[:1]) + label[1:], Types: p.AcceptedDocumentTypes})
	}
}

// currentValues are the customer's current answers to the page's fields.
func currentValues(c customer.Record) map[string]string {
	v := map[string]string{}
	put := func(name string, p *string) {
		if p != nil {
			v[name] = *p
		}
	}
	put("fullName", c.FullName)
	put("nationality", c.Nationality)
	put("email", c.Email)
	if c.BirthDate != nil {
		v["birthDate"] = c.BirthDate.Format(time.DateOnly)
	}
	if a := c.Address; a != nil {
		v["address.line1"], v["address.postalCode"], v["address.country"] = a.Line1, a.PostalCode, a.Country
		put("address.line2", a.Line2)
		put("address.city", a.City)
		put("address.state", a.State)
	}
	if b := c.BusinessInfo; b != nil {
		v["businessInfo.legalName"] = b.LegalName
		put("businessInfo.registrationNumber", b.RegistrationNumber)
		put("businessInfo.country", b.Country)
		put("businessInfo.taxId", b.TaxID)
	}
	return v
}

// renderKycPage writes the hosted KYC page.
func renderKycPage(w http.ResponseWriter, status int, page kycPage) {
	renderPage(w, status, "kyc", page, page.redirect)
}

// renderPage writes one of the service's pages: it carries no external asset and allows
// none, and its forms may lead only to this service (and to formTarget's origin, when
// set: where a submission redirects).
func renderPage(w http.ResponseWriter, status int, name string, data any, formTarget string) {
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, name, data); err != nil {
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	formAction := "'self'"
	if u, err := url.Parse(formTarget); err == nil && formTarget != "" {
		formAction += " " + u.Scheme + "://" + u.Host
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action "+formAction+"; frame-ancestors 'none'; base-uri 'none'")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}
