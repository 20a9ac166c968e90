package api

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/catalog"
	"paycore/internal/document"
	"paycore/internal/ids"
	"paycore/internal/infra/docstore"
)

// Document is a KYC/KYB document's metadata (rendered by db/view).
type Document = view.Document

var errDocumentNotFound = errorOf(document.NotFound())

// documentBodyOverhead is what a document upload's body may hold beside the file: the
// multipart boundaries and part headers and the text fields (each at most
// document.MaxFieldBytes).
const documentBodyOverhead = 256 << 10

// isDocumentUpload reports whether r is for one of the routes that take a
// multipart/form-data body with a document file.
func (s *Server) isDocumentUpload(r *http.Request) bool {
	base := s.Config.BasePath() + "/documents"
	switch r.Method {
	case http.MethodPost:
		return r.URL.Path == base
	case http.MethodPut:
		id, ok := strings.CutPrefix(r.URL.Path, base+"/")
		return ok && id != "" && !strings.Contains(id, "/")
	}
	return false
}

// uploadDocument is POST /documents: the file is stored (encrypted) while it arrives,
// then its metadata is recorded; a refusal at any point leaves neither behind.
func (s *Server) uploadDocument(w http.ResponseWriter, r *http.Request) error {
	pid := principalFrom(r.Context()).PlatformID
	id := ids.New()
	form, err := s.readDocumentForm(r, pid, id, true)
	if err != nil {
		return err
	}
	d, err := db.DocumentUpload(r.Context(), s.Pool, pid, id, form.fields, form.file, s.Config.DocumentsPerCustomer)
	if err != nil {
		s.discardFile(r.Context(), form.file.BlobKey)
		return err
	}
	writeJSON(w, http.StatusCreated, view.DocumentOf(d))
	return nil
}

// replaceDocument is PUT /documents/{documentId}: a new file and metadata replace the
// document's (not after it was submitted for verification); the old file is deleted once
// the replacement is recorded.
func (s *Server) replaceDocument(w http.ResponseWriter, r *http.Request) error {
	cur, err := loadOne(r, "documentId", ids.Document, errDocumentNotFound, s.getDocumentRow)
	if err != nil {
		return err
	}
	// Refused before the file is read; checked again under the row lock.
	if err := document.CheckReplace(db.DocumentHolderOf(cur), cur.SubmittedAt != nil, document.Fields{}); err != nil {
		return err
	}
	form, err := s.readDocumentForm(r, cur.PlatformID, cur.ID, false)
	if err != nil {
		return err
	}
	d, old, err := db.DocumentReplace(r.Context(), s.Pool, cur.PlatformID, cur.ID, form.fields, form.file)
	if err != nil {
		s.discardFile(r.Context(), form.file.BlobKey)
		return err
	}
	s.discardFile(r.Context(), old)
	writeJSON(w, http.StatusOK, view.DocumentOf(d))
	return nil
}

func (s *Server) getDocumentRow(ctx context.Context, pid, id uuid.UUID) (db.Document, error) {
	return db.DocumentGet(ctx, s.Pool, db.DocumentGetParams{PlatformID: pid, ID: id})
}

func (s *Server) getDocument(w http.ResponseWriter, r *http.Request) error {
	return serveOne(w, r, "documentId", ids.Document, errDocumentNotFound, s.getDocumentRow, view.DocumentOf)
}

// listDocuments is GET /documents, newest first, optionally of one documentHolder (a
// holder the platform does not have has no documents).
func (s *Server) listDocuments(w http.ResponseWriter, r *http.Request) error {
	return serveList(s, w, r, listSpec[db.DocumentFilter, db.IDPos, db.Document, Document]{
		name: "documents", params: []string{document.FieldDocumentHolder, "limit", "cursor"},
		filter: func(q *query, pid uuid.UUID) db.DocumentFilter {
			f := db.DocumentFilter{PlatformID: pid}
			if v := q.str(document.FieldDocumentHolder); v != nil {
				h, err := document.ParseHolder(document.FieldDocumentHolder, *v)
				if err != nil {
					q.fail(errorOf(err))
					return f
				}
				f.Holder = &h
			}
			return f
		},
		read: db.DocumentPage, pos: idPos(func(d db.Document) uuid.UUID { return d.ID }), view: view.DocumentOf,
	})
}

// deleteDocument is DELETE /documents/{documentId}: the record, then its file.
func (s *Server) deleteDocument(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "documentId", ids.Document, errDocumentNotFound)
	if err != nil {
		return err
	}
	key, err := db.DocumentDelete(r.Context(), s.Pool, principalFrom(r.Context()).PlatformID, id)
	if err != nil {
		return err
	}
	s.discardFile(r.Context(), key)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// documentForm is a decoded upload or replacement: its checked fields and its file,
// already stored.
type documentForm struct {
	fields document.Fields
	file   db.DocumentFile
}

// readDocumentForm is the one decoder of the multipart/form-data bodies of both document
// routes. Parts are read in order as they arrive: the file part (named file) is checked
// from its first bytes (document.CheckFile) and streamed through the size limit and the
// encryption into the document store, never held whole; text parts are read up to
// document.MaxFieldBytes. Then the fields are checked (document.Check). An unknown or
// repeated part, a file that is refused, too large or cut short, or a body that does not
// end with its closing boundary is a 4xx, and a file already stored is deleted again.
func (s *Server) readDocumentForm(r *http.Request, platformID, documentID uuid.UUID, upload bool) (documentForm, error) {
	if s.Documents == nil {
		return documentForm{}, refusal(catalog.Unavailable, "document storage is not configured", nil)
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return documentForm{}, &Error{Status: http.StatusUnsupportedMediaType, Code: catalog.InvalidInput,
			Message: "Content-Type must be multipart/form-data with a boundary"}
	}
	var (
		form document.Form
		file *db.DocumentFile
		seen = map[string]bool{}
	)
	fail := func(err error) (documentForm, error) {
		if file != nil {
			s.discardFile(r.Context(), file.BlobKey)
		}
		return documentForm{}, err
	}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail(multipartError(err))
		}
		name := part.FormName()
		switch {
		case name == "":
			return fail(invalid("every part of the body must be a form field (Content-Disposition: form-data; name=...)"))
		case name != document.FieldFile && !slices.Contains(document.TextFields, name):
			return fail(invalidField(name, "unknown form field %q (allowed: file, %s)", name, strings.Join(document.TextFields, ", ")))
		case seen[name]:
			return fail(invalidField(name, "form field %s is given more than once", name))
		}
		seen[name] = true
		if name == document.FieldFile {
			key := platformID.String() + "/" + documentID.String() + "/" + ids.New().String()
			f, err := s.storeDocumentFile(r.Context(), part, key)
			if err != nil {
				return fail(err)
			}
			file = &f
			continue
		}
		value, err := io.ReadAll(io.LimitReader(part, document.MaxFieldBytes+1))
		if err != nil {
			return fail(multipartError(err))
		}
		if len(value) > document.MaxFieldBytes {
			return fail(invalidField(name, "form field %s is longer than %d bytes", name, document.MaxFieldBytes))
		}
		form.Set(name, string(value))
	}
	if file == nil {
		return fail(invalidField(document.FieldFile, "file is required: the document as a PDF, JPEG or PNG part named file"))
	}
	fields, err := document.Check(form, upload)
	if err != nil {
		return fail(err)
	}
	return documentForm{fields: fields, file: *file}, nil
}

// storeDocumentFile checks the file part from its first bytes and streams it into the
// document store under key.
func (s *Server) storeDocumentFile(ctx context.Context, part *multipart.Part, key string) (db.DocumentFile, error) {
	head := make([]byte, document.SniffBytes)
	n, err := io.ReadFull(part, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return db.DocumentFile{}, multipartError(err)
	}
	head = head[:n]
	// The file name as sent: multipart.Part.FileName would drop a trailing slash and
	// keep backslashes; document.CleanFileName decides.
	_, params, _ := mime.ParseMediaType(part.Header.Get("Content-Disposition"))
	f, err := document.CheckFile(params["filename"], part.Header.Get("Content-Type"), head)
	if err != nil {
		return db.DocumentFile{}, err
	}
	size, err := s.Documents.Put(ctx, key, document.LimitFile(io.MultiReader(bytes.NewReader(head), part)))
	var src *docstore.SourceError
	switch {
	case err == nil:
	case document.IsTooLarge(err):
		return db.DocumentFile{}, document.TooLarge()
	case errors.As(err, &src):
		return db.DocumentFile{}, multipartError(src.Err)
	default:
		return db.DocumentFile{}, err
	}
	return db.DocumentFile{Name: f.Name, ContentType: f.ContentType, Size: size, BlobKey: key}, nil
}

// multipartError is the answer to a failed read of a multipart body: 413 past the body
// limit, 400 when it did not arrive in time or is cut short or malformed.
func multipartError(err error) *Error {
	var mbe *http.MaxBytesError
	var ne net.Error
	if errors.As(err, &mbe) || errors.As(err, &ne) && ne.Timeout() {
		return bodyReadError(err)
	}
	return invalid("the multipart/form-data body is incomplete or malformed: its parts must be complete and it must end with the closing boundary")
}

// discardFile deletes a stored document file that no record refers to (any more). It
// runs even when the request was cancelled; a failure is logged with the file's key.
func (s *Server) discardFile(ctx context.Context, key string) {
	if s.Documents == nil {
		s.Logger.ErrorContext(ctx, "document file left in the store: no document storage configured", "key", key)
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if err := s.Documents.Delete(ctx, key); err != nil {
		s.Logger.ErrorContext(ctx, "document file left in the store", "key", key, "error", err)
	}
}
