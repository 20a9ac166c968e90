package document

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"paycore/internal/catalog"
	"paycore/internal/problem"
)

// MaxFileBytes is the largest document file accepted: 10 MiB.
const MaxFileBytes = 10 << 20

// SniffBytes is how much of the start of a file ContentTypeOf needs.
const SniffBytes = 512

// MaxFileNameBytes bounds a file name.
const MaxFileNameBytes = 255

// ContentType is the media type of an accepted file, decided by its content.
type ContentType string

// Accepted content types.
const (
	PDF  ContentType = "application/pdf"
	JPEG ContentType = "image/jpeg"
	PNG  ContentType = "image/png"
)

// extensions are the file name extensions (lower case) of each content type.
var extensions = map[ContentType][]string{PDF: {".pdf"}, JPEG: {".jpg", ".jpeg"}, PNG: {".png"}}

// declared are the part Content-Type values each content type may be declared as.
var declared = map[ContentType][]string{PDF: {"application/pdf"}, JPEG: {"image/jpeg", "image/jpg"}, PNG: {"image/png"}}

var (
	pdfMagic  = []byte("%PDF-")
	pngMagic  = []byte("\x89PNG\r\n\x1a\n")
	jpegMagic = []byte{0xFF, 0xD8, 0xFF}
)

// ContentTypeOf sniffs the content type of a file from its first bytes (at least
// SniffBytes of them, or the whole file when shorter): a PDF starts with "%PDF-", a PNG
// with its 8-byte signature followed by the IHDR chunk, a JPEG with the SOI marker and
// the start of the next marker. ok is false for anything else.
func ContentTypeOf(head []byte) (ct ContentType, ok bool) {
	switch {
	case bytes.HasPrefix(head, pdfMagic):
		return PDF, true
	case bytes.HasPrefix(head, pngMagic) && len(head) >= 16 && string(head[12:16]) == "IHDR":
		return PNG, true
	case bytes.HasPrefix(head, jpegMagic):
		return JPEG, true
	}
	return "", false
}

// File is a checked file's name (as it will be shown) and content type.
type File struct {
	Name        string
	ContentType ContentType
}

// CheckFile checks a file before it is stored: its name (the part's filename, without
// any directory), the part's declared Content-Type (ignored when empty or
// application/octet-stream) and its first bytes. The content must be a PDF, JPEG or PNG,
// and the name's extension and the declared type must agree with it: a PNG named .pdf or
// a script named .png is refused.
func CheckFile(name, declaredType string, head []byte) (File, error) {
	clean, err := CleanFileName(name)
	if err != nil {
		return File{}, err
	}
	if len(head) == 0 {
		return File{}, problem.Field(FieldFile, "file is empty")
	}
	ct, ok := ContentTypeOf(head)
	if !ok {
		return File{}, problem.Field(FieldFile, "file must be a PDF, JPEG or PNG document; its content is none of them")
	}
	ext := strings.ToLower(path.Ext(clean))
	if !slices.Contains(extensions[ct], ext) {
		return File{}, problem.Field(FieldFile, "file %q is named %s but its content is %s; name it %s",
			clean, extOrNone(ext), ct, strings.Join(extensions[ct], " or ")).With(map[string]any{"contentType": string(ct)})
	}
	if declaredType != "" {
		mt, _, err := mime.ParseMediaType(declaredType)
		if err != nil {
			return File{}, problem.Field(FieldFile, "the file part's Content-Type %q is malformed", declaredType)
		}
		if mt != "application/octet-stream" && !slices.Contains(declared[ct], mt) {
			return File{}, problem.Field(FieldFile, "the file part's Content-Type is %s but its content is %s", mt, ct).
				With(map[string]any{"contentType": string(ct)})
		}
	}
	return File{Name: clean, ContentType: ct}, nil
}

// CleanFileName is the file name a document is shown with: the last element of the
// part's filename (a client may send a path, with either kind of slash). It must be
// valid UTF-8 without control characters, at most MaxFileNameBytes long, and have a
// name before its extension.
func CleanFileName(name string) (string, error) {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	switch {
	case name == "":
		return "", problem.Field(FieldFile, "the file part must carry a file name (Content-Disposition filename) ending in .pdf, .jpg, .jpeg or .png")
	case !utf8.ValidString(name) || strings.IndexFunc(name, isControl) >= 0:
		return "", problem.Field(FieldFile, "the file name must be valid UTF-8 without control characters")
	case len(name) > MaxFileNameBytes:
		return "", problem.Field(FieldFile, "the file name must be at most %d bytes long", MaxFileNameBytes)
	case strings.TrimSpace(strings.TrimSuffix(name, path.Ext(name))) == "" || name == "..":
		return "", problem.Field(FieldFile, "the file name %q has no name before its extension", name)
	}
	return name, nil
}

// TooLarge is the refusal of a file over MaxFileBytes (413 PAYLOAD_TOO_LARGE).
func TooLarge() error {
	return problem.Refuse(catalog.PayloadTooLarge, "file is larger than 10 MiB (%d bytes)", MaxFileBytes).
		With(map[string]any{"field": FieldFile, "maxBytes": MaxFileBytes})
}

// LimitFile reads r and fails with TooLarge as soon as it yields more than MaxFileBytes.
func LimitFile(r io.Reader) io.Reader { return &limited{r: r, left: MaxFileBytes} }

type limited struct {
	r    io.Reader
	left int64
}

func (l *limited) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, TooLarge()
	}
	// Read one byte more than is left, so a file of exactly the limit passes and one
	// byte more fails.
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n + int(l.left), TooLarge() // only the bytes within the limit
	}
	return n, err
}

// IsTooLarge reports whether err is TooLarge.
func IsTooLarge(err error) bool {
	var r *problem.Refusal
	return errors.As(err, &r) && r.Code == catalog.PayloadTooLarge
}

func extOrNone(ext string) string {
	if ext == "" {
		return "without an extension"
	}
	return ext
}
