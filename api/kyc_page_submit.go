package api

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"paycore/db"
	"paycore/internal/catalog"
	"paycore/internal/customer"
	"paycore/internal/document"
	"paycore/internal/ids"
	"paycore/internal/kyc"
	"paycore/workflows"
)

// kycPageMaxFiles bounds the files one submission of the hosted page may carry; its body
// limit is that many document files.
const kycPageMaxFiles = 6

// kycPageUploadTime is how long a submission of the hosted page may take to arrive: a few
// files from a phone on a slow network.
const kycPageUploadTime = 10 * time.Minute

// pageHandler adapts the handler of one of the service's pages: an error is answered with
// a page saying so, and logged with the route, not the path (which carries a token or a
// code).
func pageHandler(fn func(w http.ResponseWriter, r *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		err := fn(w, r)
		if err == nil {
			return
		}
		e := errorOf(err)
		if e == nil {
			slog.ErrorContext(r.Context(), "hosted page failed", "method", r.Method, "route", chi.RouteContext(r.Context()).RoutePattern(),
				"request_id", w.Header().Get("X-Request-Id"), "error", err)
			e = &Error{Status: http.StatusInternalServerError, Message: "Something went wrong on our side. Please try again in a moment."}
		}
		if e.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
		}
		renderKycPage(w, e.Status, kycPage{Title: "Verification", Message: e.Message})
	}
}

// kycSubmission is a decoded submission of the hosted page: the customer's answers (by
// field name) and the document files it stored.
type kycSubmission struct {
	values map[string]string
	docs   []db.KycPageDocument
}

// submitKycPage is POST /kyc/{token}: the page's form. The files are stored as they
// arrive, then in one transaction under the link's lock the link is spent and the answers
// (through the customer rules) and the documents written; then the customer's
// verification is submitted. Complete, the browser is sent to redirectUri (or shown a
// confirmation); incomplete, the link is given back and the page shows what is still
// missing. A refusal shows the page with the reason and leaves no file behind.
func (s *Server) submitKycPage(w http.ResponseWriter, r *http.Request) error {
	sub, page, ok, err := s.kycSubject(w, r)
	if err != nil || !ok {
		return err
	}
	if err := s.countKycSubmission(r, sub.Link.ID); err != nil {
		return err
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(wall().Add(kycPageUploadTime))
	_ = rc.SetWriteDeadline(wall().Add(kycPageUploadTime + time.Minute))
	token := pathParam(r, "token")
	form, err := s.readKycForm(r, sub)
	if err == nil {
		err = s.writeKycForm(r, sub, token, form)
	}
	if err != nil {
		for _, d := range form.docs {
			s.discardFile(r.Context(), d.File.BlobKey)
		}
		return s.refusedKycPage(w, r, token, err)
	}
	raw, err := s.start.Verification(r.Context(), s.verification(sub.Link.PlatformID, sub.Link.CustomerID), workflows.UpdateSubmit, nil)
	if err != nil {
		return err
	}
	var v struct {
		Status catalog.VerificationStatus `json:"verificationStatus"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("read verification: %w", err)
	}
	if v.Status == catalog.VerificationResolveErrors {
		if err := db.KycLinkReopen(r.Context(), s.Pool, sub.Link.ID); err != nil {
			return fmt.Errorf("give the KYC link back: %w", err)
		}
		if sub, err = db.KycLinkSubjectGet(r.Context(), s.Pool, token); err != nil {
			return err
		}
		fillKycPage(&page, sub, "Thank you. A few things are still missing before we can verify you.")
		renderKycPage(w, http.StatusOK, page)
		return nil
	}
	if sub.Link.RedirectUri != nil {
		http.Redirect(w, r, *sub.Link.RedirectUri, http.StatusSeeOther)
		return nil
	}
	page.Message = "Thank you. Your information was submitted for review; you can close this page."
	renderKycPage(w, http.StatusOK, page)
	return nil
}

// countKycSubmission counts a submission of a usable link, before its body is read, and
// refuses it over the link's limit (kyc.CheckSubmissions).
func (s *Server) countKycSubmission(r *http.Request, linkID uuid.UUID) error {
	c, err := db.RateLimitHit(r.Context(), s.Pool, kyc.SubmissionKey(linkID.String()), s.Config.KycLinkSubmissionWindow)
	if err != nil {
		return err
	}
	return kyc.CheckSubmissions(c.Attempts, s.Config.KycLinkSubmissions, c.WindowEnds, s.now())
}

// refusedKycPage answers a refused submission with the page as it now stands: closed
// (the link was spent meanwhile), or the form again with the reason.
func (s *Server) refusedKycPage(w http.ResponseWriter, r *http.Request, token string, refusal error) error {
	e := errorOf(refusal)
	if e == nil || e.Status >= 500 {
		return refusal
	}
	sub, page, ok, err := s.kycSubject(w, r)
	if err != nil || !ok {
		return err
	}
	fillKycPage(&page, sub, e.Message)
	renderKycPage(w, e.Status, page)
	return nil
}

// kycPageFields are the text fields the page's form may carry besides its document slots.
var kycPageFields = func() []string {
	var out []string
	for _, fields := range kycForm {
		for _, f := range fields {
			out = append(out, f[0])
		}
	}
	for _, f := range addressForm {
		out = append(out, f[0])
	}
	return out
}()

// slotPart splits a document slot's part name ("doc2.type") into its slot and member;
// ok is false for any other name.
func slotPart(name string) (slot, member string, ok bool) {
	slot, member, found := strings.Cut(name, ".")
	n, err := strconv.Atoi(strings.TrimPrefix(slot, "doc"))
	if !found || !strings.HasPrefix(slot, "doc") || err != nil || n < 0 || n >= kycPageMaxFiles || strconv.Itoa(n) != slot[3:] {
		return "", "", false
	}
	return slot, member, member == "holder" || member == "type" || member == "file"
}

// readKycForm is the one decoder of the page's multipart form, read as it arrives: the
// known text fields (bounded, each once) and, for each document slot, its holder and type
// followed by its file. A slot's holder must be the link's customer or one of its owners
// and its fields are checked (document.Check) before its file is read, which is then
// checked from its first bytes and streamed encrypted into the document store. An empty
// file input is no document.
func (s *Server) readKycForm(r *http.Request, sub db.KycLinkSubject) (kycSubmission, error) {
	out := kycSubmission{values: map[string]string{}}
	if s.Documents == nil {
		return out, refusal(catalog.Unavailable, "document storage is not configured", nil)
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return out, &Error{Status: http.StatusUnsupportedMediaType, Code: catalog.InvalidInput, Message: "the form must be sent as multipart/form-data"}
	}
	holders := map[string]bool{ids.Format(ids.Customer, sub.Customer.ID): true}
	for _, o := range sub.Owners {
		holders[ids.Format(ids.BeneficialOwner, o.ID)] = true
	}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, multipartError(err)
		}
		name := part.FormName()
		slot, member, isSlot := slotPart(name)
		switch _, seen := out.values[name]; {
		case !isSlot && !slices.Contains(kycPageFields, name):
			return out, invalidField(name, "unknown form field %q", name)
		case seen:
			return out, invalidField(name, "form field %s is given more than once", name)
		}
		if member == "file" {
			out.values[name] = ""
			_, params, _ := mime.ParseMediaType(part.Header.Get("Content-Disposition"))
			if params["filename"] == "" {
				continue // no file chosen for this slot
			}
			holder, typ := out.values[slot+".holder"], out.values[slot+".type"]
			if slices.ContainsFunc(out.docs, func(d db.KycPageDocument) bool {
				return d.Fields.Holder.String() == holder && string(d.Fields.Type) == typ
			}) {
				return out, invalidField(name, "two files of one holder's %s: send one (a new file replaces the stored one)", typ)
			}
			if err := document.CheckLinkCount(int(sub.Link.DocumentsStored)+len(out.docs)+1, s.Config.KycLinkDocuments); err != nil {
				return out, err
			}
			doc, err := s.kycPageDocument(r, sub, holders, holder, typ, part)
			if err != nil {
				return out, err
			}
			out.docs = append(out.docs, doc)
			continue
		}
		value, err := io.ReadAll(io.LimitReader(part, document.MaxFieldBytes+1))
		if err != nil {
			return out, multipartError(err)
		}
		if len(value) > document.MaxFieldBytes {
			return out, invalidField(name, "%s is too long", name)
		}
		out.values[name] = strings.TrimSpace(string(value))
	}
}

// kycPageDocument checks a document slot (its holder one of holders, its type one of the
// catalogue; the country is the customer's region) and stores its file.
func (s *Server) kycPageDocument(r *http.Request, sub db.KycLinkSubject, holders map[string]bool, holder, typ string, part *multipart.Part) (db.KycPageDocument, error) {
	if !holders[holder] {
		return db.KycPageDocument{}, invalid("each document needs its holder (this customer or one of its owners) before its file")
	}
	var f document.Form
	f.Set(document.FieldDocumentType, typ)
	f.Set(document.FieldCountry, sub.Customer.Region)
	f.Set(document.FieldDocumentHolder, holder)
	fields, err := document.Check(f, true)
	if err != nil {
		return db.KycPageDocument{}, err
	}
	key := sub.Link.PlatformID.String() + "/" + sub.Link.CustomerID.String() + "/" + ids.New().String()
	stored, err := s.storeDocumentFile(r.Context(), part, key)
	if err != nil {
		return db.KycPageDocument{}, err
	}
	return db.KycPageDocument{Fields: fields, File: stored}, nil
}

// writeKycForm writes a submission (db.KycPageWrite): the answers through the customer
// rules (only the fields answered; an e-mail only where the customer has none) and the
// documents, each replacing its slot's (whose files are deleted once that committed),
// spending the link.
func (s *Server) writeKycForm(r *http.Request, sub db.KycLinkSubject, token string, form kycSubmission) error {
	var patch *db.CustomerPatchParams
	if in := kycAnswers(sub.Customer, form.values); in != (customer.Input{CustomerType: in.CustomerType}) {
		settings, err := db.PlatformSettingsGet(r.Context(), s.Pool, sub.Link.PlatformID)
		if err != nil {
			return err
		}
		check := func(c customer.Record) (customer.Change, error) { return customer.Patch(c, in, settings) }
		if _, err := check(sub.Customer); err != nil {
			return err
		}
		patch = &db.CustomerPatchParams{PlatformID: sub.Link.PlatformID, ID: sub.Customer.ID, Check: check}
	}
	_, replaced, err := s.store.KycPageWrite(r.Context(), s.Box, token, patch, form.docs,
		db.KycPageLimits{LinkDocuments: s.Config.KycLinkDocuments, CustomerDocuments: s.Config.DocumentsPerCustomer}, s.now())
	if err != nil {
		return err
	}
	for _, key := range replaced {
		s.discardFile(r.Context(), key)
	}
	return nil
}

// kycAnswers turns the page's answers into a customer update: only fields answered, the
// address whole when any of it is.
func kycAnswers(c customer.Record, v map[string]string) customer.Input {
	typ := string(c.Type)
	in := customer.Input{CustomerType: &typ}
	opt := func(name string) *string {
		if x := v[name]; x != "" {
			return &x
		}
		return nil
	}
	if c.Type == catalog.Individual {
		in.FullName, in.BirthDate, in.Nationality = opt("fullName"), opt("birthDate"), opt("nationality")
	} else {
		b := customer.BusinessInfoInput{LegalName: opt("businessInfo.legalName"), RegistrationNumber: opt("businessInfo.registrationNumber"),
			Country: opt("businessInfo.country"), TaxID: opt("businessInfo.taxId")}
		if b.LegalName != nil || b.RegistrationNumber != nil || b.Country != nil || b.TaxID != nil {
			in.BusinessInfo = &b
		}
	}
	if c.Email == nil {
		in.Email = opt("email")
	}
	a := customer.AddressInput{Line1: opt("address.line1"), Line2: opt("address.line2"), City: opt("address.city"), State: opt("address.state"),
		PostalCode: opt("address.postalCode"), Country: opt("address.country")}
	if a != (customer.AddressInput{}) {
		in.Address = &a
	}
	return in
}
