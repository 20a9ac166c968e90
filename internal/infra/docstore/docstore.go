// Package docstore keeps uploaded document files in a blob store (gocloud.dev/blob: a
// local directory by default, an S3-compatible bucket by configuration), encrypted at rest
// with internal/kit/filecrypt. Files stream through it in constant memory: Put encrypts what
// it reads straight into the bucket's writer, and a Put that fails for any reason (the
// source's error, the bucket's, a cancelled context) leaves nothing behind.
package docstore

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"

	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/s3blob" // s3:// URLs
	"gocloud.dev/gcerrors"

	"paycore/internal/kit/filecrypt"
)

// Store keeps encrypted files in a bucket.
type Store struct {
	bucket *blob.Bucket
	key    *filecrypt.Key
}

// New is a Store over an open bucket; it takes ownership of it (Close closes it).
func New(bucket *blob.Bucket, key *filecrypt.Key) *Store { return &Store{bucket: bucket, key: key} }

// Open opens the store at location: a local directory (a path, created when missing), or
// a blob URL, file:///dir or s3://bucket?region=…&endpoint=…&use_path_style=true (the
// parameters of gocloud.dev/blob/s3blob; credentials come from the usual AWS environment
// variables or profile).
func Open(ctx context.Context, location string, key *filecrypt.Key) (*Store, error) {
	if !strings.Contains(location, "://") {
		dir, err := filepath.Abs(location)
		if err != nil {
			return nil, fmt.Errorf("document store %s: %w", location, err)
		}
		// Temporary files next to the final ones (a rename never crosses file systems),
		// no metadata side files, directories only the service can read.
		b, err := fileblob.OpenBucket(dir, &fileblob.Options{CreateDir: true, NoTempDir: true,
			Metadata: fileblob.MetadataDontWrite, DirFileMode: 0o700})
		if err != nil {
			return nil, fmt.Errorf("document store directory %s: %w", dir, err)
		}
		return New(b, key), nil
	}
	u, err := url.Parse(location)
	if err != nil {
		return nil, fmt.Errorf("document store URL: %w", err)
	}
	if u.Scheme != "file" && u.Scheme != "s3" {
		return nil, fmt.Errorf("document store URL: scheme %q is not supported (a directory, file:// or s3://)", u.Scheme)
	}
	b, err := blob.OpenBucket(ctx, location)
	if err != nil {
		return nil, fmt.Errorf("open document store %s://%s: %w", u.Scheme, u.Host+u.Path, err)
	}
	return New(b, key), nil
}

// Close closes the bucket.
func (s *Store) Close() error { return s.bucket.Close() }

// partSize is the size of the parts a bucket that uploads in parts (S3) buffers: S3's
// smallest, one part at a time.
const partSize = 5 << 20

// header starts the plaintext of every stored file: it binds the file to its name, so a
// file copied or moved to another name in the bucket does not open there.
func header(name string) string { return "paycore-document " + name + "\n" }

// Put stores what src yields under name, encrypted, and returns how many bytes it read.
// On any error nothing is stored under name: the write is abandoned, not committed. An
// error of src is returned as it is (wrapped), so the caller can tell it apart.
func (s *Store) Put(ctx context.Context, name string, src io.Reader) (int64, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := s.bucket.NewWriter(ctx, name, &blob.WriterOptions{ContentType: "application/octet-stream",
		BufferSize: partSize, MaxConcurrency: 1})
	if err != nil {
		return 0, fmt.Errorf("open %s for writing: %w", name, err)
	}
	abandon := func(err error) error {
		cancel() // the writer then discards what it has: a local temp file, an S3 upload
		_ = w.Close()
		return err
	}
	enc, err := s.key.Encrypt(w)
	if err != nil {
		return 0, abandon(err)
	}
	if _, err := io.WriteString(enc, header(name)); err != nil {
		return 0, abandon(fmt.Errorf("write %s: %w", name, err))
	}
	src = &sourceReader{r: src}
	n, err := io.Copy(enc, src)
	if err != nil {
		return n, abandon(fmt.Errorf("write %s: %w", name, err))
	}
	if err := enc.Close(); err != nil {
		return n, abandon(fmt.Errorf("finish encrypting %s: %w", name, err))
	}
	if err := w.Close(); err != nil {
		return n, fmt.Errorf("store %s: %w", name, err)
	}
	return n, nil
}

// SourceError is a failure to read the source of Put (as opposed to the store's own).
type SourceError struct{ Err error }

func (e *SourceError) Error() string { return "read the file: " + e.Err.Error() }
func (e *SourceError) Unwrap() error { return e.Err }

// sourceReader marks the errors of Put's source.
type sourceReader struct{ r io.Reader }

func (s *sourceReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF {
		err = &SourceError{Err: err}
	}
	return n, err
}

// ErrNotFound is returned by Open for a name that holds no file.
var ErrNotFound = errors.New("no such stored file")

// Open returns a reader of the plaintext stored under name. Reads fail (with
// filecrypt.ErrDecrypt) rather than return anything that was changed in the store.
func (s *Store) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	r, err := s.bucket.NewReader(ctx, name, nil)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil, fmt.Errorf("%s: %w", name, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	plain, err := s.key.Decrypt(r)
	if err != nil {
		r.Close()
		return nil, fmt.Errorf("open %s: %w", name, err)
	}
	br := bufio.NewReaderSize(plain, 512)
	want := header(name)
	got, err := br.Peek(len(want))
	if err != nil || string(got) != want {
		r.Close()
		return nil, fmt.Errorf("open %s: %w: it was stored under another name", name, filecrypt.ErrDecrypt)
	}
	_, _ = br.Discard(len(want))
	return &readCloser{Reader: br, Closer: r}, nil
}

type readCloser struct {
	io.Reader
	io.Closer
}

// Delete removes the file stored under name; a name that holds none is not an error.
func (s *Store) Delete(ctx context.Context, name string) error {
	if err := s.bucket.Delete(ctx, name); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return fmt.Errorf("delete %s: %w", name, err)
	}
	return nil
}

// Exists reports whether a file is stored under name.
func (s *Store) Exists(ctx context.Context, name string) (bool, error) {
	ok, err := s.bucket.Exists(ctx, name)
	if err != nil {
		return false, fmt.Errorf("look up %s: %w", name, err)
	}
	return ok, nil
}

// Names lists every name that holds a file (for tests and operators).
func (s *Store) Names(ctx context.Context) ([]string, error) {
	var out []string
	it := s.bucket.List(nil)
	for {
		obj, err := it.Next(ctx)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("list stored files: %w", err)
		}
		out = append(out, obj.Key)
	}
}

// Raw returns the bytes stored under name as they are in the bucket (encrypted), for
// tests that check what is at rest.
func (s *Store) Raw(ctx context.Context, name string) ([]byte, error) {
	b, err := s.bucket.ReadAll(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return b, nil
}
