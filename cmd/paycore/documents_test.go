package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
	"io/fs"
	"mime/multipart"
	"net/http/httptest"
	"net/textproto"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"paycore/api/apitest"
	"paycore/internal/infra/config"
	"paycore/internal/kit/filecrypt"
	"paycore/internal/kit/sealbox"
)

// uploadPassport uploads a PDF passport of a new customer of c's platform and returns the
// document's id and the file.
func uploadPassport(t *testing.T, c *apitest.Client) (string, []byte) {
	t.Helper()
	if r := c.Do("PATCH", "/config", map[string]any{"supportedCurrencies": []any{currencyItem("USD")}}); r.Status != 200 {
		t.Fatalf("config: %d %s", r.Status, r.Body)
	}
	r := c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "region": "US", "fullName": "Ada Lovelace"})
	if r.Status != 201 {
		t.Fatalf("customer: %d %s", r.Status, r.Body)
	}
	holder := r.JSON(t)["id"].(string)
	file := make([]byte, 200<<10)
	_, _ = rand.Read(file)
	copy(file, "%PDF-1.7\n% a passport scan\n")
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, f := range [][2]string{{"documentType", "PASSPORT"}, {"country", "GB"}, {"documentHolder", holder}} {
		_ = mw.WriteField(f[0], f[1])
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="file"; filename="passport.pdf"`)
	h.Set("Content-Type", "application/pdf")
	part, _ := mw.CreatePart(h)
	_, _ = part.Write(file)
	_ = mw.Close()
	r = c.Do("POST", "/documents", body.Bytes(), "Content-Type", mw.FormDataContentType())
	if r.Status != 201 {
		t.Fatalf("upload: %d %s", r.Status, r.Body)
	}
	return r.JSON(t)["id"].(string), file
}

// storedKey is the blob key of a document's file.
func storedKey(t *testing.T, s *stack, id string) string {
	t.Helper()
	var key string
	if err := s.app.pool.QueryRow(context.Background(), "SELECT blob_key FROM documents WHERE id = $1", uuidOf(id)).Scan(&key); err != nil {
		t.Fatal(err)
	}
	return key
}

// readBack opens a stored file the way a process started later would: with the document
// key loaded from the database under the master key, from the configured location.
func readBack(t *testing.T, s *stack, key string) []byte {
	t.Helper()
	a := &app{cfg: s.cfg, pool: s.app.pool, box: s.app.box}
	docs, err := a.openDocuments(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer docs.Close()
	r, err := docs.Open(context.Background(), key)
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

// `serve` keeps uploaded documents in the data directory by default, encrypted with a key
// it creates once and keeps sealed under the master key, so a later process reads them.
func TestDocumentsStoredEncrypted(t *testing.T) {
	t.Parallel()
	s := newStack(t)
	c, _ := s.platform(true)
	id, file := uploadPassport(t, c)
	key := storedKey(t, s, id)

	path := filepath.Join(s.cfg.DataDir, "documents", filepath.FromSlash(key))
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the file is not in the data directory: %v", err)
	}
	if bytes.Contains(raw, file[:27]) || bytes.Contains(raw, file[100<<10:100<<10+64]) {
		t.Fatal("the document is stored in plaintext")
	}
	var files []string
	_ = filepath.WalkDir(filepath.Join(s.cfg.DataDir, "documents"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return err
	})
	if len(files) != 1 {
		t.Fatalf("files in the document directory: %v", files)
	}
	var publicKey string
	var privateSealed []byte
	err = s.app.pool.QueryRow(context.Background(), "SELECT public_key_pem, private_sealed FROM service_keys WHERE name = $1", documentKeyName).Scan(&publicKey, &privateSealed)
	if err != nil || !strings.HasPrefix(publicKey, "age1") || bytes.Contains(privateSealed, []byte("AGE-SECRET-KEY")) {
		t.Fatalf("document key row %q %x, %v", publicKey, privateSealed, err)
	}
	if got := readBack(t, s, key); !bytes.Equal(got, file) {
		t.Fatal("a later process does not read the document back")
	}
	// Under another master key the document key does not open.
	otherKey, _ := sealbox.ParseKey(sealbox.NewKey())
	otherBox, _ := sealbox.New(otherKey)
	if _, err := filecrypt.Unseal(otherBox, privateSealed); err == nil {
		t.Fatal("the document key opened under another master key")
	}
	if r := c.Do("DELETE", "/documents/"+id, nil); r.Status != 204 {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the deleted document's file is still there: %v", err)
	}
}

// With PAYCORE_DOCUMENTS_URL naming an S3 bucket, documents go there (here an
// S3-compatible server in the test process), encrypted the same way.
func TestDocumentsInS3Bucket(t *testing.T) {
	// Not parallel: the S3 credentials are environment variables.
	backend := s3mem.New()
	if err := backend.CreateBucket("kyc"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	t.Setenv("AWS_ACCESS_KEY_ID", "test-access-key")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test-secret-key")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	s := newStack(t, func(c *config.Config) {
		c.DocumentsURL = "s3://kyc?region=us-east-1&use_path_style=true&disable_https=true&endpoint=" + srv.URL
	})
	c, _ := s.platform(true)
	id, file := uploadPassport(t, c)
	key := storedKey(t, s, id)
	obj, err := backend.GetObject("kyc", key, nil)
	if err != nil {
		t.Fatalf("the file is not in the bucket: %v", err)
	}
	raw, _ := io.ReadAll(obj.Contents)
	obj.Contents.Close()
	if len(raw) < len(file) || bytes.Contains(raw, file[:27]) {
		t.Fatal("the document is not stored encrypted in the bucket")
	}
	if got := readBack(t, s, key); !bytes.Equal(got, file) {
		t.Fatal("the document does not read back from the bucket")
	}
	if _, err := os.Stat(filepath.Join(s.cfg.DataDir, "documents")); !os.IsNotExist(err) {
		t.Fatalf("a documents directory was made although a bucket is configured: %v", err)
	}
}
