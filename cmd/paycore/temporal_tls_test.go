package main

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"

	"paycore/db/dbtest"
	"paycore/internal/infra/config"
	"paycore/internal/infra/tcluster"
	"paycore/internal/infra/testpki"
)

func configFrom(t *testing.T, env map[string]string) config.Config {
	t.Helper()
	cfg, err := config.LoadFrom(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// startTLSCluster starts a Temporal server of its own whose frontend requires a client
// certificate signed by pki's CA; with jwksURL, its default authorizer requires a JWT too.
func startTLSCluster(t *testing.T, pki testpki.Files, jwksURL string) *tcluster.Cluster {
	t.Helper()
	wd, _ := os.Getwd()
	bin, err := findBin(wd)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(bin, "temporal-server")); err != nil {
		if os.Getenv("PAYCORE_TEST_TEMPORAL") == "cluster" {
			t.Fatal(err)
		}
		t.Skip("needs bin/temporal-server (make cluster-tools)")
	}
	port, err := tcluster.FreePortRange(21)
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("paycore_tls_%d_%d", os.Getpid(), port)
	t.Cleanup(func() { dropDatabases(name+"_temporal", name+"_temporal_visibility") })
	o, err := clusterOptions(strings.Replace(dbtest.AdminURL(), "/postgres?", "/"+name+"?", 1))
	if err != nil {
		t.Fatal(err)
	}
	o.ServerPath, o.SQLToolPath, o.Port, o.Dir, o.Log = filepath.Join(bin, "temporal-server"), filepath.Join(bin, "temporal-sql-tool"), port, t.TempDir(), io.Discard
	if os.Getenv("PAYCORE_TEST_LOG") != "" {
		o.Log = os.Stderr
	}
	o.FrontendTLS = &tcluster.FrontendTLS{CAFile: pki.CA, CertFile: pki.ServerCert, KeyFile: pki.ServerKey, ServerName: pki.ServerName}
	o.JWKSURL = jwksURL
	tc, err := tcluster.Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tc.Stop)
	return tc
}

// dialConfigured connects as the service does, with the configuration env (and the address
// of tc).
func dialConfigured(t *testing.T, tc *tcluster.Cluster, env map[string]string) (client.Client, error) {
	env["PAYCORE_TEMPORAL_ADDRESS"] = tc.Address
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return dialTemporal(ctx, configFrom(t, env), client.Options{})
}

// The real Temporal server with mutual TLS required on its frontend: a client without a
// certificate (plaintext, or TLS without a client certificate) cannot connect; the client
// built from the PAYCORE_TEMPORAL_TLS_* configuration can.
func TestTemporalMutualTLS(t *testing.T) {
	pki := testpki.New(t, t.TempDir(), "temporal.paycore.test")
	tc := startTLSCluster(t, pki, "")
	ctx := context.Background()
	dial := func(env map[string]string) (client.Client, error) { return dialConfigured(t, tc, env) }
	// The server answers once its services have joined ("Frontend is not healthy yet" comes
	// back at once before that): the configured client tries again, a moment apart, for up
	// to a minute (a refusal of its certificate would fail every try).
	var c client.Client
	var err error
	for give := time.Now().Add(time.Minute); ; time.Sleep(500 * time.Millisecond) {
		c, err = dial(map[string]string{"PAYCORE_TEMPORAL_TLS_CA_FILE": pki.CA, "PAYCORE_TEMPORAL_TLS_SERVER_NAME": pki.ServerName,
			"PAYCORE_TEMPORAL_TLS_CERT_FILE": pki.ClientCert, "PAYCORE_TEMPORAL_TLS_KEY_FILE": pki.ClientKey})
		if err == nil || time.Now().After(give) {
			break
		}
	}
	if err != nil {
		t.Fatalf("the client configured with the CA, a client certificate and the server name: %v", err)
	}
	defer c.Close()
	if _, err := c.CheckHealth(ctx, &client.CheckHealthRequest{}); err != nil {
		t.Fatalf("health over mutual TLS: %v", err)
	}
	if _, err := c.WorkflowService().ListNamespaces(ctx, &workflowservice.ListNamespacesRequest{}); err != nil {
		t.Fatalf("a call over mutual TLS: %v", err)
	}

	for what, env := range map[string]map[string]string{
		"plaintext (the service's default)": {},
		"TLS without a client certificate":  {"PAYCORE_TEMPORAL_TLS_CA_FILE": pki.CA, "PAYCORE_TEMPORAL_TLS_SERVER_NAME": pki.ServerName},
	} {
		c, err := dial(env)
		if err == nil {
			c.Close()
			t.Errorf("%s connected to a frontend that requires a client certificate", what)
			continue
		}
		t.Logf("%s: %v", what, err)
	}
}

// The API key (PAYCORE_TEMPORAL_API_KEY or _FILE) is sent as "Authorization: Bearer <key>"
// on every call the client makes, over TLS: a frontend of our own records each call's
// metadata.
func TestTemporalAPIKeySentOnEveryCall(t *testing.T) {
	dir := t.TempDir()
	pki := testpki.New(t, dir, "temporal.paycore.test")
	cert, err := tls.LoadX509KeyPair(pki.ServerCert, pki.ServerKey)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var calls []string
	srv := grpc.NewServer(grpc.Creds(credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{cert}})),
		grpc.UnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			md, _ := metadata.FromIncomingContext(ctx)
			mu.Lock()
			calls = append(calls, info.FullMethod+" "+strings.Join(md.Get("authorization"), ","))
			mu.Unlock()
			return h(ctx, req)
		}))
	workflowservice.RegisterWorkflowServiceServer(srv, systemInfoOnly{})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(l) }()
	defer srv.Stop()

	keyFile := filepath.Join(dir, "api-key")
	if err := os.WriteFile(keyFile, []byte("file-key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for env, key := range map[string]string{"PAYCORE_TEMPORAL_API_KEY": "variable-key", "PAYCORE_TEMPORAL_API_KEY_FILE": keyFile} {
		mu.Lock()
		calls = nil
		mu.Unlock()
		if env == "PAYCORE_TEMPORAL_API_KEY_FILE" {
			key = "file-key"
		}
		cfg := configFrom(t, map[string]string{"PAYCORE_TEMPORAL_ADDRESS": l.Addr().String(), env: keyFile,
			"PAYCORE_TEMPORAL_TLS_CA_FILE": pki.CA, "PAYCORE_TEMPORAL_TLS_SERVER_NAME": pki.ServerName})
		if env == "PAYCORE_TEMPORAL_API_KEY" {
			cfg = configFrom(t, map[string]string{"PAYCORE_TEMPORAL_ADDRESS": l.Addr().String(), env: key,
				"PAYCORE_TEMPORAL_TLS_CA_FILE": pki.CA, "PAYCORE_TEMPORAL_TLS_SERVER_NAME": pki.ServerName})
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		c, err := dialTemporal(ctx, cfg, client.Options{})
		if err != nil {
			cancel()
			t.Fatalf("%s: %v", env, err)
		}
		// Calls the server does not implement still arrive, with their metadata.
		_ = c.SignalWorkflow(ctx, "wf", "", "approve", nil)
		_, _ = c.DescribeWorkflowExecution(ctx, "wf", "")
		c.Close()
		cancel()
		mu.Lock()
		got := append([]string(nil), calls...)
		mu.Unlock()
		if len(got) < 3 {
			t.Fatalf("%s: %d calls recorded: %v", env, len(got), got)
		}
		for _, call := range got {
			if !strings.HasSuffix(call, " Bearer "+key) {
				t.Errorf("%s: call without the key as bearer: %q", env, call)
			}
		}
	}
}

// systemInfoOnly answers GetSystemInfo (the SDK's first call) and nothing else.
type systemInfoOnly struct {
	workflowservice.UnimplementedWorkflowServiceServer
}

func (systemInfoOnly) GetSystemInfo(context.Context, *workflowservice.GetSystemInfoRequest) (*workflowservice.GetSystemInfoResponse, error) {
	return &workflowservice.GetSystemInfoResponse{}, nil
}

// The real Temporal server with its default authorizer and JWT claim mapper (keys from a
// JSON Web Key Set), behind mutual TLS: the service's client without an API key is refused
// (PermissionDenied), with a token signed by another key too; with the token in
// PAYCORE_TEMPORAL_API_KEY_FILE it is let in.
func TestTemporalAPIKeyWithJWTAuthorizer(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	jwks := fmt.Sprintf(`{"keys":[{"kty":"RSA","kid":"paycore-test","use":"sig","alg":"RS256","n":%q,"e":%q}]}`,
		base64.RawURLEncoding.EncodeToString(key.N.Bytes()), base64.RawURLEncoding.EncodeToString(big.NewInt(int64(key.E)).Bytes()))
	keys := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, jwks)
	}))
	defer keys.Close()
	dir := t.TempDir()
	pki := testpki.New(t, dir, "temporal.paycore.test")
	tc := startTLSCluster(t, pki, keys.URL)

	mTLS := func(extra map[string]string) map[string]string {
		env := map[string]string{"PAYCORE_TEMPORAL_TLS_CA_FILE": pki.CA, "PAYCORE_TEMPORAL_TLS_SERVER_NAME": pki.ServerName,
			"PAYCORE_TEMPORAL_TLS_CERT_FILE": pki.ClientCert, "PAYCORE_TEMPORAL_TLS_KEY_FILE": pki.ClientKey}
		for k, v := range extra {
			env[k] = v
		}
		return env
	}
	list := func(env map[string]string) error {
		c, err := dialConfigured(t, tc, env)
		if err != nil {
			return err
		}
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_, err = c.WorkflowService().ListNamespaces(ctx, &workflowservice.ListNamespacesRequest{})
		return err
	}
	keyFile := filepath.Join(dir, "api-key")
	if err := os.WriteFile(keyFile, []byte(signJWT(t, key)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The key provider loads the key set while the server starts; the first calls may
	// still be refused, so the configured client tries a few times.
	for i := 0; ; i++ {
		err = list(mTLS(map[string]string{"PAYCORE_TEMPORAL_API_KEY_FILE": keyFile}))
		if err == nil || i == 10 {
			break
		}
		time.Sleep(time.Second)
	}
	if err != nil {
		t.Fatalf("the client with the API key: %v", err)
	}
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	var denied *serviceerror.PermissionDenied
	for what, env := range map[string]map[string]string{
		"without an API key":          mTLS(nil),
		"with a token of another key": mTLS(map[string]string{"PAYCORE_TEMPORAL_API_KEY": signJWT(t, other)}),
	} {
		if err := list(env); !errors.As(err, &denied) {
			t.Errorf("%s: %v; want PermissionDenied", what, err)
		}
	}
}

// signJWT is an RS256 token granting the admin role on every namespace.
func signJWT(t *testing.T, key *rsa.PrivateKey) string {
	enc := func(v string) string { return base64.RawURLEncoding.EncodeToString([]byte(v)) }
	now := time.Now().Unix()
	unsigned := enc(`{"alg":"RS256","typ":"JWT","kid":"paycore-test"}`) + "." +
		enc(fmt.Sprintf(`{"sub":"paycore","iat":%d,"exp":%d,"permissions":["temporal-system:admin"]}`, now, now+3600))
	sum := sha256.Sum256([]byte(unsigned))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	return unsigned + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// `paycore dev` and `paycore cluster` start a plaintext Temporal of their own on loopback:
// the settings of a secured Temporal are refused there, clearly, before anything starts.
func TestLocalStacksRefuseTemporalSecurity(t *testing.T) {
	cfg := configFrom(t, map[string]string{"PAYCORE_TEMPORAL_API_KEY": "k", "PAYCORE_DATA_DIR": t.TempDir()})
	var out strings.Builder
	for name, run := range map[string]func() error{
		"dev":     func() error { return runDev(context.Background(), cfg, newLogger("warn"), &out) },
		"cluster": func() error { return runCluster(context.Background(), cfg, newLogger("warn"), nil, &out) },
	} {
		if err := run(); err == nil || !strings.Contains(err.Error(), "PAYCORE_TEMPORAL_API_KEY") {
			t.Errorf("%s: %v; want the settings refused", name, err)
		}
	}
}
