package document

import (
	"strings"
	"unicode/utf8"

	"paycore/internal/catalog"
	"paycore/internal/country"
	"paycore/internal/problem"
)

// Form field names of an upload (POST /documents) and a replacement (PUT /documents/{id}).
const (
	FieldFile             = "file"
	FieldDocumentType     = "documentType"
	FieldCountry          = "country"
	FieldDocumentHolder   = "documentHolder"
	FieldSide             = "side"
	FieldDocumentNumber   = "documentNumber"
	FieldIssuingAuthority = "issuingAuthority"
)

// TextFields are the form's text fields, in the order refusals name them.
var TextFields = []string{FieldDocumentType, FieldCountry, FieldDocumentHolder, FieldSide, FieldDocumentNumber, FieldIssuingAuthority}

// Length limits of the free-text fields, in characters.
const (
	MaxDocumentNumber   = 100
	MaxIssuingAuthority = 255
	// MaxFieldBytes bounds what is read of any one text field; longer values are refused
	// without being read further.
	MaxFieldBytes = 1024
)

// Form is the text fields of an upload or a replacement as received; nil is absent.
type Form struct {
	DocumentType     *string
	Country          *string
	DocumentHolder   *string
	Side             *string
	DocumentNumber   *string
	IssuingAuthority *string
}

// Set stores the value of the text field name; it reports false for a name that is not
// a text field of the form.
func (f *Form) Set(name, value string) bool {
	dst := map[string]**string{FieldDocumentType: &f.DocumentType, FieldCountry: &f.Country, FieldDocumentHolder: &f.DocumentHolder,
		FieldSide: &f.Side, FieldDocumentNumber: &f.DocumentNumber, FieldIssuingAuthority: &f.IssuingAuthority}[name]
	if dst == nil {
		return false
	}
	*dst = &value
	return true
}

// Fields are the checked metadata of a document.
type Fields struct {
	Type    Type
	Country string
	// Holder is the documentHolder; nil when a replacement does not name it.
	Holder           *Holder
	Side             *Side
	DocumentNumber   *string
	IssuingAuthority *string
}

// Check is the one check of the form fields of both routes: documentType (a DocumentType),
// country (ISO 3166-1 alpha-2) and, for an upload, documentHolder are required; side is
// FRONT or BACK; documentNumber and issuingAuthority are single-line text of bounded
// length. A replacement may repeat documentHolder (a document never changes holder; the
// caller compares it). Every value is valid UTF-8 without NUL or other control
// characters and not blank.
func Check(f Form, upload bool) (Fields, error) {
	var out Fields
	for _, v := range []struct {
		name  string
		value *string
	}{{FieldDocumentType, f.DocumentType}, {FieldCountry, f.Country}, {FieldDocumentHolder, f.DocumentHolder},
		{FieldSide, f.Side}, {FieldDocumentNumber, f.DocumentNumber}, {FieldIssuingAuthority, f.IssuingAuthority}} {
		if v.value != nil {
			if err := checkText(v.name, *v.value); err != nil {
				return out, err
			}
		}
	}
	switch {
	case f.DocumentType == nil:
		return out, problem.Field(FieldDocumentType, "documentType is required")
	case !ValidType(*f.DocumentType):
		return out, problem.Field(FieldDocumentType, "documentType %q is not a document type (one of %s)", *f.DocumentType,
			strings.Join(catalog.Names(Types), ", "))
	}
	out.Type = Type(*f.DocumentType)
	switch {
	case f.Country == nil:
		return out, problem.Field(FieldCountry, "country (the issuing country) is required")
	case !country.Valid(*f.Country):
		return out, problem.Field(FieldCountry, "country must be an ISO 3166-1 alpha-2 code in upper case, such as US or DE")
	}
	out.Country = *f.Country
	switch {
	case f.DocumentHolder != nil:
		h, err := ParseHolder(FieldDocumentHolder, *f.DocumentHolder)
		if err != nil {
			return out, err
		}
		out.Holder = &h
	case upload:
		return out, problem.Field(FieldDocumentHolder, "documentHolder (the Customer or BeneficialOwner id the document belongs to) is required")
	}
	if f.Side != nil {
		s := Side(*f.Side)
		if s != Front && s != Back {
			return out, problem.Field(FieldSide, "side must be FRONT or BACK")
		}
		out.Side = &s
	}
	if err := checkLength(FieldDocumentNumber, f.DocumentNumber, MaxDocumentNumber); err != nil {
		return out, err
	}
	if err := checkLength(FieldIssuingAuthority, f.IssuingAuthority, MaxIssuingAuthority); err != nil {
		return out, err
	}
	out.DocumentNumber, out.IssuingAuthority = f.DocumentNumber, f.IssuingAuthority
	return out, nil
}

// checkText refuses a value that is not valid UTF-8, holds a control character or is
// blank.
func checkText(name, v string) error {
	if !utf8.ValidString(v) {
		return problem.Field(name, "%s must be valid UTF-8", name)
	}
	if strings.IndexFunc(v, isControl) >= 0 {
		return problem.Field(name, "%s must be one line of text without control characters", name)
	}
	if strings.TrimSpace(v) == "" {
		return problem.Field(name, "%s must not be blank", name)
	}
	return nil
}

func checkLength(name string, v *string, limit int) error {
	if v != nil && utf8.RuneCountInString(*v) > limit {
		return problem.Field(name, "%s must be at most %d characters", name, limit)
	}
	return nil
}

// isControl reports C0 and C1 control characters (NUL, line breaks, tabs, DEL …).
func isControl(r rune) bool { return r < 0x20 || (r >= 0x7f && r < 0xa0) }
