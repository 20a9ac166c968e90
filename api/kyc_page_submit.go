package api

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/jackc/pgx/v5"

	"paycore/db"
	"paycore/internal/catalog"
	"paycore/internal/customer"
	"paycore/internal/document"
	"paycore/internal/ids"
	"paycore/workflows"
)

// kycPageMaxFiles bounds the files one submission of the hosted page may carry; its body
// limit is that many document files.
const kycPageMaxFiles = 6

// kycSubmission is a decoded submission of the hosted page: the customer's answers (by
// field name) and the document files it stored.
type kycSubmission struct {
	values map[string]string
	docs   []kycUpload
}

// kycUpload is one stored file of a submission with the slot's holder and type.
type kycUpload struct {
	holder, typ string
	file        db.DocumentFile
}

// submitKycPage is POST /kyc/{token}: the page's form. The files are stored as they
// arrive, the answers checked with the customer rules and written, the documents
// recorded, and the customer's verification submitted. Complete, the link is spent and
// the browser sent to redirectUri (or shown a confirmation); otherwise the page shows
// what is still missing. A refusal shows the page with the reason and leaves no file.
func (s *Server) submitKycPage(w http.ResponseWriter, r *http.Request) error {
	sub, page, ok, err := s.kycSubject(w, r)
	if err != nil || !ok {
		return err
	}
	form, err := s.readKycForm(r, sub)
	if err == nil {
		err = s.applyKycForm(r, sub, form)
	}
	if err != nil {
		for _, d := range form.docs {
			s.discardFile(r.Context(), d.file.BlobKey)
		}
		e := errorOf(err)
		if e == nil || e.Status >= 500 {
			return err
		}
		if sub, err = db.KycLinkSubjectGet(r.Context(), s.q, chi.URLParam(r, "token")); err != nil {
			return err
		}
		fillKycPage(&page, sub, e.Message)
		renderKycPage(w, e.Status, page)
		return nil
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
		if sub, err = db.KycLinkSubjectGet(r.Context(), s.q, chi.URLParam(r, "token")); err != nil {
			return err
		}
		fillKycPage(&page, sub, "Thank you. A few things are still missing before we can verify you.")
		renderKycPage(w, http.StatusOK, page)
		return nil
	}
	if _, err := s.q.KycLinkUse(r.Context(), sub.Link.ID); err != nil {
		return fmt.Errorf("spend KYC link: %w", err)
	}
	if sub.Link.RedirectUri != nil {
		http.Redirect(w, r, *sub.Link.RedirectUri, http.StatusSeeOther)
		return nil
	}
	page.Message = "Thank you. Your information was submitted for review; you can close this page."
	renderKycPage(w, http.StatusOK, page)
	return nil
}

// readKycForm reads the page's multipart form as it arrives: text answers (bounded) and,
// for each document slot, its holder and type followed by its file, which is checked from
// its first bytes and streamed encrypted into the document store. An empty file input is
// no document. The slots' holders must be the subject's customer or owners.
func (s *Server) readKycForm(r *http.Request, sub db.KycLinkSubject) (kycSubmission, error) {
	out := kycSubmission{values: map[string]string{}}
	if s.Documents == nil {
		return out, &Error{Status: http.StatusServiceUnavailable, Code: catalog.Unavailable, Message: "document storage is not configured"}
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
		if slot, ok := strings.CutSuffix(name, ".file"); ok && strings.HasPrefix(slot, "doc") {
			_, params, _ := mime.ParseMediaType(part.Header.Get("Content-Disposition"))
			if params["filename"] == "" {
				continue // no file chosen for this slot
			}
			holder, typ := out.values[slot+".holder"], out.values[slot+".type"]
			if !holders[holder] || typ == "" {
				return out, invalid("each document needs its holder and type before its file")
			}
			if len(out.docs) == kycPageMaxFiles {
				return out, invalid("at most %d documents can be sent at once", kycPageMaxFiles)
			}
			key := sub.Link.PlatformID.String() + "/" + sub.Link.CustomerID.String() + "/" + ids.New().String()
			f, err := s.storeDocumentFile(r.Context(), part, key)
			if err != nil {
				return out, err
			}
			out.docs = append(out.docs, kycUpload{holder: holder, typ: typ, file: f})
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

// applyKycForm writes a submission: the answers through the customer rules (only fields
// answered; an e-mail only where the customer has none), then the documents, in one
// transaction.
func (s *Server) applyKycForm(r *http.Request, sub db.KycLinkSubject, form kycSubmission) error {
	in := kycAnswers(sub.Customer, form.values)
	settings, err := db.PlatformSettingsGet(r.Context(), s.q, sub.Link.PlatformID)
	if err != nil {
		return err
	}
	if in != (customer.Input{CustomerType: in.CustomerType}) {
		check := func(c customer.Record) (customer.Change, error) { return customer.Patch(c, in, settings) }
		if _, err := db.CustomerPatch(r.Context(), s.Pool, s.Box, db.CustomerPatchParams{PlatformID: sub.Link.PlatformID, ID: sub.Customer.ID, Check: check}); err != nil {
			return err
		}
	}
	country := sub.Customer.Region
	return db.WithTx(r.Context(), s.Pool, func(q *db.Queries, _ pgx.Tx) error {
		for _, d := range form.docs {
			var f document.Form
			f.Set(document.FieldDocumentType, d.typ)
			f.Set(document.FieldCountry, country)
			f.Set(document.FieldDocumentHolder, d.holder)
			fields, err := document.Check(f, true)
			if err != nil {
				return err
			}
			if _, err := db.DocumentCreate(r.Context(), q, sub.Link.PlatformID, ids.New(), fields, d.file); err != nil {
				return err
			}
		}
		return nil
	})
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
