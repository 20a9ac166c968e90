package api_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"go.temporal.io/sdk/client"

	"paycore/api"
	"paycore/api/apitest"
	"paycore/db"
	"paycore/db/dbtest"
	"paycore/db/view"
	"paycore/internal/infra/config"
	"paycore/internal/infra/docstore"
	"paycore/internal/kit/filecrypt"
	"paycore/internal/kit/sealbox"
	"paycore/internal/uma"
	"paycore/internal/webhooksig"
)

// env is one API server on its own database. Routes that need Temporal are covered by the
// end-to-end tests in cmd/paycore; here the Temporal client is lazy and never dialled.
type env struct {
	t    testing.TB
	srv  *httptest.Server
	pool *pgxpool.Pool
	box  *sealbox.Box
	cfg  config.Config
	api  *api.Server
	deps api.Deps
	docs *docstore.Store // the document store, in a directory of the test's own
}

func newEnv(t testing.TB, tweak ...func(*config.Config)) *env {
	t.Helper()
	return newEnvWith(t, nil, tweak...)
}

// newEnvWith is newEnv with a hook to adjust the API's dependencies.
func newEnvWith(t testing.TB, deps func(*api.Deps), tweak ...func(*config.Config)) *env {
	t.Helper()
	pool, _ := dbtest.NewPool(t)
	key, _ := sealbox.ParseKey(sealbox.NewKey())
	box, _ := sealbox.New(key)
	der, err := webhooksig.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	signer, _ := webhooksig.NewECDSASigner(der)
	cfg := config.Defaults()
	for _, f := range tweak {
		f(&cfg)
	}
	tc, err := client.NewLazyClient(client.Options{HostPort: "127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	docKey, err := filecrypt.Generate()
	if err != nil {
		t.Fatal(err)
	}
	docs, err := docstore.Open(context.Background(), t.TempDir(), docKey)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { docs.Close() })
	d := api.Deps{Pool: pool, Temporal: tc, Config: cfg, Box: box, Signer: signer, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Documents: docs}
	if deps != nil {
		deps(&d)
	}
	s := api.New(d)
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return &env{t: t, srv: srv, pool: pool, box: box, cfg: cfg, api: s, deps: d, docs: d.Documents}
}

// sibling is a second API server on the same database, as another instance of a
// deployment; c's credentials work on it too.
func (e *env) sibling(c *apitest.Client) *apitest.Client {
	e.t.Helper()
	srv := httptest.NewServer(api.New(e.deps))
	e.t.Cleanup(srv.Close)
	return &apitest.Client{T: e.t, BaseURL: srv.URL + e.cfg.BasePath(), User: c.User, Password: c.Password}
}

// platform creates a regulated platform (it attests its customers' KYC status) and returns
// a client authenticated with its first token.
func (e *env) platform(sandbox bool) (*apitest.Client, db.Platform) {
	e.t.Helper()
	p, tok, err := api.CreatePlatform(context.Background(), e.pool, e.box, api.PlatformParams{Name: "Test Platform", Sandbox: sandbox, IsRegulated: true})
	if err != nil {
		e.t.Fatal(err)
	}
	return e.client(tok.Token.ID.String(), tok.Secret), p
}

func (e *env) client(user, password string) *apitest.Client {
	return &apitest.Client{T: e.t, BaseURL: e.srv.URL + e.cfg.BasePath(), User: user, Password: password}
}

// expectError checks an error envelope: status, code, and that the message says something.
func expectError(t *testing.T, r *apitest.Response, status int, code string) map[string]any {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	m := r.JSON(t)
	if m["code"] != code {
		t.Fatalf("code %v, want %s: %s", m["code"], code, r.Body)
	}
	if int(m["status"].(float64)) != status {
		t.Fatalf("envelope status %v, want %d", m["status"], status)
	}
	if msg, _ := m["message"].(string); msg == "" {
		t.Fatalf("empty message: %s", r.Body)
	}
	return m
}

// listProviders lists the example UMA providers of testdata/uma-providers.json in e's
// database, as an operator's `paycore uma providers` does (nothing is seeded).
func (e *env) listProviders() {
	e.t.Helper()
	b, err := os.ReadFile("testdata/uma-providers.json")
	if err != nil {
		e.t.Fatal(err)
	}
	list, err := uma.ParseProviders(b)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := db.NewStore(e.pool, view.Resources{}).UmaProvidersPut(context.Background(), list); err != nil {
		e.t.Fatal(err)
	}
}
