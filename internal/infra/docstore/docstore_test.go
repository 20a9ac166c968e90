package docstore

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
	"io/fs"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"paycore/internal/kit/filecrypt"
)

func newKey(t *testing.T) *filecrypt.Key {
	t.Helper()
	k, err := filecrypt.Generate()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// localStore is a store in a fresh directory.
func localStore(t *testing.T) (*Store, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "documents") // created by Open
	s, err := Open(context.Background(), dir, newKey(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, dir
}

// s3Store is a store in a bucket of an in-process S3-compatible server on loopback,
// opened by URL as an operator configures it.
func s3Store(t *testing.T) *Store {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket("documents"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	t.Setenv("AWS_ACCESS_KEY_ID", "test-access-key")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test-secret-key")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	s, err := Open(context.Background(), "s3://documents?region=us-east-1&use_path_style=true&disable_https=true&endpoint="+srv.URL, newKey(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestLocalStore(t *testing.T) {
	s, dir := localStore(t)
	exercise(t, s)
	// Nothing but the files stored (no temporary or metadata files) is left in the
	// directory, and it is readable by the service alone.
	var files []string
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, path)
		}
		return err
	})
	if len(files) != 1 || !strings.HasSuffix(files[0], filepath.FromSlash("p/kept")) {
		t.Fatalf("files left in the directory: %v", files)
	}
	info, err := os.Stat(dir)
	if err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("directory mode %v, %v", info.Mode(), err)
	}
}

func TestS3Store(t *testing.T) { exercise(t, s3Store(t)) }

// exercise runs the same checks on any store. It leaves exactly one file, "p/kept".
func exercise(t *testing.T, s *Store) {
	ctx := context.Background()
	plain := make([]byte, 6<<20+123) // more than one S3 part
	_, _ = rand.Read(plain)
	copy(plain, "%PDF-1.7 recognisable plaintext")
	n, err := s.Put(ctx, "p/doc", bytes.NewReader(plain))
	if err != nil || n != int64(len(plain)) {
		t.Fatalf("Put = %d, %v", n, err)
	}
	raw, err := s.Raw(ctx, "p/doc")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, plain[:31]) || bytes.Contains(raw, plain[1<<20:1<<20+64]) {
		t.Fatal("plaintext visible at rest")
	}
	if got := readAll(t, s, "p/doc"); !bytes.Equal(got, plain) {
		t.Fatalf("read back %d bytes, want the %d stored", len(got), len(plain))
	}

	// A source that fails part way (after a whole S3 part was sent) stores nothing.
	boom := errors.New("client went away")
	_, err = s.Put(ctx, "p/broken", io.MultiReader(bytes.NewReader(plain), failing{boom}))
	var se *SourceError
	if !errors.Is(err, boom) || !errors.As(err, &se) {
		t.Fatalf("Put of a failing source: %v", err)
	}
	// So does a cancelled request.
	cctx, cancel := context.WithCancel(ctx)
	_, err = s.Put(cctx, "p/cancelled", io.MultiReader(bytes.NewReader(plain[:100]), cancelling{cancel}, bytes.NewReader(plain[:100])))
	if err == nil {
		t.Fatal("Put went through a cancelled context")
	}
	for _, name := range []string{"p/broken", "p/cancelled"} {
		if ok, err := s.Exists(ctx, name); ok || err != nil {
			t.Fatalf("%s exists after a failed Put (%v)", name, err)
		}
	}

	// A file moved to another name does not open there.
	if err := s.bucket.Copy(ctx, "p/moved", "p/doc", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Open(ctx, "p/moved"); !errors.Is(err, filecrypt.ErrDecrypt) {
		t.Fatalf("a moved file opened: %v", err)
	}
	// A changed file does not open, or fails before its end.
	changed := bytes.Clone(raw)
	changed[len(changed)-40] ^= 1
	if err := s.bucket.WriteAll(ctx, "p/changed", changed, nil); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Open(ctx, "p/changed"); err == nil {
		if _, err := io.Copy(io.Discard, r); !errors.Is(err, filecrypt.ErrDecrypt) {
			t.Fatalf("a changed file read through: %v", err)
		}
		r.Close()
	}

	for _, name := range []string{"p/doc", "p/moved", "p/changed"} {
		if err := s.Delete(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Delete(ctx, "p/doc"); err != nil {
		t.Fatalf("deleting again: %v", err)
	}
	if _, err := s.Open(ctx, "p/doc"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Open after Delete: %v", err)
	}
	if _, err := s.Put(ctx, "p/kept", strings.NewReader("")); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, s, "p/kept"); len(got) != 0 {
		t.Fatalf("empty file read back as %q", got)
	}
	names, err := s.Names(ctx)
	if err != nil || len(names) != 1 || names[0] != "p/kept" {
		t.Fatalf("names %v, %v", names, err)
	}
}

func readAll(t *testing.T, s *Store, name string) []byte {
	t.Helper()
	r, err := s.Open(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type failing struct{ err error }

func (f failing) Read([]byte) (int, error) { return 0, f.err }

// cancelling cancels the context when it is read.
type cancelling struct{ cancel context.CancelFunc }

func (c cancelling) Read([]byte) (int, error) { c.cancel(); return 0, io.EOF }

func TestOpenRefusesOtherSchemes(t *testing.T) {
	for _, loc := range []string{"gs://bucket", "mem://", "azblob://x"} {
		if _, err := Open(context.Background(), loc, newKey(t)); err == nil || !strings.Contains(err.Error(), "not supported") {
			t.Errorf("Open(%s) = %v", loc, err)
		}
	}
}

// A file stored by one process opens in the next one, with the key read back.
func TestReopen(t *testing.T) {
	dir := t.TempDir()
	k := newKey(t)
	s, err := Open(context.Background(), "file://"+filepath.ToSlash(dir)+"?no_tmp_dir=1&metadata=skip", k)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(context.Background(), "a", strings.NewReader("hello")); err != nil {
		t.Fatal(err)
	}
	s.Close()
	back, _ := filecrypt.Parse(k.Secret())
	s2, err := Open(context.Background(), dir, back)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if got := readAll(t, s2, "a"); string(got) != "hello" {
		t.Fatalf("read %q", got)
	}
}
