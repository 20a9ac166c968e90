package document

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/problem"
)

func ptr[T any](v T) *T { return &v }

// Sample file starts of each accepted type.
var (
	pdfHead  = []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n")
	pngHead  = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR"), make([]byte, 17)...)
	jpegHead = []byte{0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 'J', 'F', 'I', 'F', 0}
)

func wantFieldErr(t *testing.T, err error, field, msg string) {
	t.Helper()
	var fe *problem.FieldError
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v, want a field error on %s", err, field)
	}
	if fe.Field != field || !strings.Contains(fe.Message, msg) {
		t.Fatalf("field error %s: %q, want %s containing %q", fe.Field, fe.Message, field, msg)
	}
}

func TestContentTypeOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		head []byte
		want ContentType
	}{
		{"pdf", pdfHead, PDF},
		{"png", pngHead, PNG},
		{"jpeg", jpegHead, JPEG},
		{"png signature without IHDR", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dJUNK"), ""},
		{"png signature alone", []byte("\x89PNG\r\n\x1a\n"), ""},
		{"shell script", []byte("#!/bin/sh\nrm -rf /\n"), ""},
		{"html", []byte("<html><script>alert(1)</script>"), ""},
		{"pdf later in the file", []byte("junk%PDF-1.4"), ""},
		{"gif", []byte("GIF89a"), ""},
		{"jpeg SOI alone", []byte{0xFF, 0xD8}, ""},
		{"empty", nil, ""},
	} {
		got, ok := ContentTypeOf(tc.head)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("%s: ContentTypeOf = %q, %v; want %q", tc.name, got, ok, tc.want)
		}
	}
}

func TestCheckFile(t *testing.T) {
	for _, tc := range []struct {
		name, file, declared string
		head                 []byte
		want                 ContentType
		err                  string // substring of the refusal; "" accepts
	}{
		{"pdf", "passport.pdf", "application/pdf", pdfHead, PDF, ""},
		{"pdf upper-case extension, octet-stream", "SCAN.PDF", "application/octet-stream", pdfHead, PDF, ""},
		{"jpeg .jpg, no declared type", "front.jpg", "", jpegHead, JPEG, ""},
		{"jpeg .jpeg, image/jpg", "front.jpeg", "image/jpg", jpegHead, JPEG, ""},
		{"png with parameters", "bill.png", "image/png; name=bill.png", pngHead, PNG, ""},
		{"path stripped", `C:\Users\me\scan.pdf`, "", pdfHead, PDF, ""},
		{"unix path stripped", "../../etc/id.png", "", pngHead, PNG, ""},
		{"png renamed .pdf", "passport.pdf", "application/pdf", pngHead, "", "named .pdf but its content is image/png"},
		{"png renamed .pdf, octet-stream", "passport.pdf", "application/octet-stream", pngHead, "", "content is image/png"},
		{"script renamed .png", "evil.png", "image/png", []byte("#!/bin/sh\necho hi\n"), "", "none of them"},
		{"pdf without extension", "passport", "", pdfHead, "", "without an extension"},
		{"pdf declared as png", "passport.pdf", "image/png", pdfHead, "", "Content-Type is image/png"},
		{"jpeg declared as text", "a.jpg", "text/plain", jpegHead, "", "Content-Type is text/plain"},
		{"malformed declared type", "a.jpg", "image/", jpegHead, "", "malformed"},
		{"no file name", "", "", pdfHead, "", "must carry a file name"},
		{"name is a directory", "dir/", "", pdfHead, "", "must carry a file name"},
		{"extension only", ".pdf", "", pdfHead, "", "no name before its extension"},
		{"control character", "a\nb.pdf", "", pdfHead, "", "control characters"},
		{"invalid UTF-8", "a\xff.pdf", "", pdfHead, "", "valid UTF-8"},
		{"long name", strings.Repeat("a", 252) + ".pdf", "", pdfHead, "", "at most 255 bytes"},
		{"empty file", "a.pdf", "", nil, "", "empty"},
	} {
		f, err := CheckFile(tc.file, tc.declared, tc.head)
		if tc.err == "" {
			if err != nil || f.ContentType != tc.want {
				t.Errorf("%s: CheckFile = %+v, %v; want %s", tc.name, f, err, tc.want)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: accepted, want a refusal containing %q", tc.name, tc.err)
			continue
		}
		wantFieldErr(t, err, FieldFile, tc.err)
	}
	f, _ := CheckFile(`C:\Users\me\scan.pdf`, "", pdfHead)
	if f.Name != "scan.pdf" {
		t.Fatalf("name %q, want the last element of the path", f.Name)
	}
}

func TestLimitFile(t *testing.T) {
	exact, err := io.Copy(io.Discard, LimitFile(bytes.NewReader(make([]byte, MaxFileBytes))))
	if err != nil || exact != MaxFileBytes {
		t.Fatalf("a file of exactly the limit: %d, %v", exact, err)
	}
	n, err := io.Copy(io.Discard, LimitFile(io.LimitReader(zeros{}, MaxFileBytes+1)))
	if !IsTooLarge(err) {
		t.Fatalf("one byte over the limit: err %v", err)
	}
	if n > MaxFileBytes {
		t.Fatalf("passed %d bytes, more than the limit", n)
	}
	if !IsTooLarge(TooLarge()) || IsTooLarge(io.EOF) || problem.CodeOf(TooLarge()) != catalog.PayloadTooLarge {
		t.Fatal("IsTooLarge")
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func TestCheckForm(t *testing.T) {
	holder := "Customer:0190a000-0000-7000-8000-000000000001"
	full := Form{DocumentType: ptr("PASSPORT"), Country: ptr("DE"), DocumentHolder: &holder, Side: ptr("FRONT"),
		DocumentNumber: ptr("C01X00T47"), IssuingAuthority: ptr("Stadt Köln")}
	f, err := Check(full, true)
	if err != nil {
		t.Fatal(err)
	}
	if f.Type != Passport || f.Country != "DE" || f.Holder == nil || f.Holder.Kind != HolderCustomer || f.Holder.String() != holder ||
		*f.Side != Front || *f.DocumentNumber != "C01X00T47" || *f.IssuingAuthority != "Stadt Köln" {
		t.Fatalf("fields %+v", f)
	}
	bo := "BeneficialOwner:0190a000-0000-7000-8000-000000000002"
	if f, err := Check(Form{DocumentType: ptr("SELFIE"), Country: ptr("US"), DocumentHolder: &bo}, true); err != nil ||
		f.Holder.Kind != HolderBeneficialOwner || f.Side != nil || f.DocumentNumber != nil {
		t.Fatalf("minimal upload: %+v, %v", f, err)
	}
	if f, err := Check(Form{DocumentType: ptr("SELFIE"), Country: ptr("US")}, false); err != nil || f.Holder != nil {
		t.Fatalf("replacement without documentHolder: %+v, %v", f, err)
	}
	with := func(change func(*Form)) Form {
		f := full
		change(&f)
		return f
	}
	for _, tc := range []struct {
		name  string
		form  Form
		field string
		msg   string
	}{
		{"no documentType", with(func(f *Form) { f.DocumentType = nil }), FieldDocumentType, "required"},
		{"unknown documentType", with(func(f *Form) { f.DocumentType = ptr("DIARY") }), FieldDocumentType, "PASSPORT, DRIVERS_LICENSE"},
		{"lower-case documentType", with(func(f *Form) { f.DocumentType = ptr("passport") }), FieldDocumentType, "not a document type"},
		{"no country", with(func(f *Form) { f.Country = nil }), FieldCountry, "required"},
		{"country name", with(func(f *Form) { f.Country = ptr("Germany") }), FieldCountry, "alpha-2"},
		{"lower-case country", with(func(f *Form) { f.Country = ptr("de") }), FieldCountry, "alpha-2"},
		{"unassigned country", with(func(f *Form) { f.Country = ptr("XX") }), FieldCountry, "alpha-2"},
		{"no holder on upload", with(func(f *Form) { f.DocumentHolder = nil }), FieldDocumentHolder, "required"},
		{"holder of another kind", with(func(f *Form) { f.DocumentHolder = ptr("InternalAccount:0190a000-0000-7000-8000-000000000001") }), FieldDocumentHolder, "Customer or BeneficialOwner id"},
		{"holder upper-case uuid", with(func(f *Form) { f.DocumentHolder = ptr("Customer:0190A000-0000-7000-8000-000000000001") }), FieldDocumentHolder, "lower case"},
		{"side", with(func(f *Form) { f.Side = ptr("LEFT") }), FieldSide, "FRONT or BACK"},
		{"blank number", with(func(f *Form) { f.DocumentNumber = ptr("  ") }), FieldDocumentNumber, "blank"},
		{"empty authority", with(func(f *Form) { f.IssuingAuthority = ptr("") }), FieldIssuingAuthority, "blank"},
		{"NUL", with(func(f *Form) { f.DocumentNumber = ptr("a\x00b") }), FieldDocumentNumber, "control"},
		{"line break", with(func(f *Form) { f.IssuingAuthority = ptr("a\r\nb") }), FieldIssuingAuthority, "control"},
		{"invalid UTF-8", with(func(f *Form) { f.IssuingAuthority = ptr("a\xffb") }), FieldIssuingAuthority, "UTF-8"},
		{"long number", with(func(f *Form) { f.DocumentNumber = ptr(strings.Repeat("1", MaxDocumentNumber+1)) }), FieldDocumentNumber, "at most 100"},
		{"long authority", with(func(f *Form) { f.IssuingAuthority = ptr(strings.Repeat("ö", MaxIssuingAuthority+1)) }), FieldIssuingAuthority, "at most 255"},
	} {
		_, err := Check(tc.form, true)
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		wantFieldErr(t, err, tc.field, tc.msg)
	}
	if _, err := Check(with(func(f *Form) { f.IssuingAuthority = ptr(strings.Repeat("ö", MaxIssuingAuthority)) }), true); err != nil {
		t.Fatalf("authority of exactly the limit in characters: %v", err)
	}
}

func TestFormSet(t *testing.T) {
	var f Form
	for _, name := range TextFields {
		if !f.Set(name, name+"-value") {
			t.Fatalf("Set(%s) refused", name)
		}
	}
	if *f.DocumentType != "documentType-value" || *f.IssuingAuthority != "issuingAuthority-value" || *f.DocumentHolder != "documentHolder-value" {
		t.Fatalf("form %+v", f)
	}
	if f.Set("file", "x") || f.Set("DocumentType", "x") || f.Set("extra", "x") {
		t.Fatal("Set accepted a name that is not a text field")
	}
}

func TestGroupsHoldKnownTypes(t *testing.T) {
	if len(Types) != 26 {
		t.Fatalf("%d document types, the catalogue has 26", len(Types))
	}
	for _, g := range [][]Type{IdentityGroup, LegalPresenceGroup, ControlStructureGroup, OwnershipGroup, ProofOfAddressGroup} {
		for _, ty := range g {
			if !ValidType(string(ty)) {
				t.Errorf("group member %s is not a type", ty)
			}
		}
	}
}

func TestRefusals(t *testing.T) {
	h, _ := ParseHolder("documentHolder", "Customer:0190a000-0000-7000-8000-000000000001")
	for err, code := range map[error]catalog.Code{HolderNotFound(h): catalog.ReferenceNotFound, NotFound(): catalog.DocumentNotFound,
		Submitted(): catalog.DocumentSubmitted, TooLarge(): catalog.PayloadTooLarge} {
		if problem.CodeOf(err) != code {
			t.Errorf("%v: code %s, want %s", err, problem.CodeOf(err), code)
		}
	}
}

// The checks never panic and never accept a file whose content is not one of the three
// types or whose name disagrees with it.
func FuzzCheckFile(f *testing.F) {
	f.Add("a.pdf", "application/pdf", pdfHead)
	f.Add("a.png", "", pngHead)
	f.Add("a.jpg", "image/jpeg", jpegHead)
	f.Add("x/y\\z.png", "image/png; q=1", []byte("#!"))
	f.Fuzz(func(t *testing.T, name, declaredType string, head []byte) {
		file, err := CheckFile(name, declaredType, head)
		if err != nil {
			return
		}
		ct, ok := ContentTypeOf(head)
		if !ok || ct != file.ContentType {
			t.Fatalf("accepted %q as %s, sniffed %q", head, file.ContentType, ct)
		}
		if strings.ContainsAny(file.Name, "/\\") {
			t.Fatalf("name %q keeps a path", file.Name)
		}
		ext := strings.ToLower(file.Name[strings.LastIndex(file.Name, "."):])
		if !map[ContentType]map[string]bool{PDF: {".pdf": true}, PNG: {".png": true}, JPEG: {".jpg": true, ".jpeg": true}}[ct][ext] {
			t.Fatalf("accepted %s named %q", ct, file.Name)
		}
	})
}

func FuzzParseHolder(f *testing.F) {
	f.Add("Customer:0190a000-0000-7000-8000-000000000001")
	f.Add("BeneficialOwner:0190a000-0000-7000-8000-000000000001")
	f.Add("Customer:")
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ParseHolder("documentHolder", s)
		if err == nil && h.String() != s {
			t.Fatalf("ParseHolder(%q) = %s", s, h)
		}
	})
}
