package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"paycore/internal/infra/testpki"
)

func loadEnv(env map[string]string) (Config, error) {
	return LoadFrom(func(k string) string { return env[k] })
}

// The Temporal connection's security settings: TLS with a private CA and a client
// certificate (mTLS), an API key from a variable or a file, and the combinations refused.
func TestTemporalSecurity(t *testing.T) {
	c, err := loadEnv(nil)
	if err != nil {
		t.Fatal(err)
	}
	if tc, err := c.TemporalTLSConfig(); err != nil || tc != nil {
		t.Fatalf("default: TLS config %v, %v; want none (plaintext to a local Temporal)", tc, err)
	}

	dir := t.TempDir()
	pki := testpki.New(t, dir, "temporal.test")
	c, err = loadEnv(map[string]string{
		"PAYCORE_TEMPORAL_TLS_CA_FILE":     pki.CA,
		"PAYCORE_TEMPORAL_TLS_CERT_FILE":   pki.ClientCert,
		"PAYCORE_TEMPORAL_TLS_KEY_FILE":    pki.ClientKey,
		"PAYCORE_TEMPORAL_TLS_SERVER_NAME": "temporal.test",
	})
	if err != nil {
		t.Fatal(err)
	}
	tc, err := c.TemporalTLSConfig()
	if err != nil {
		t.Fatal(err)
	}
	if tc == nil || tc.RootCAs == nil || len(tc.Certificates) != 1 || tc.ServerName != "temporal.test" || tc.MinVersion == 0 {
		t.Fatalf("mTLS config: %+v", tc)
	}

	// TLS alone (Temporal Cloud with an API key, or a server with a public certificate):
	// the system's roots.
	c, err = loadEnv(map[string]string{"PAYCORE_TEMPORAL_TLS": "true"})
	if err != nil {
		t.Fatal(err)
	}
	if tc, err := c.TemporalTLSConfig(); err != nil || tc == nil || tc.RootCAs != nil || len(tc.Certificates) != 0 {
		t.Fatalf("PAYCORE_TEMPORAL_TLS=true: %+v, %v", tc, err)
	}

	// The API key, from a variable or from a file (a mounted Secret; surrounding
	// whitespace dropped), turns TLS on and is never printed with the configuration.
	keyFile := filepath.Join(dir, "api-key")
	if err := os.WriteFile(keyFile, []byte("key-from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for env, want := range map[string]string{"PAYCORE_TEMPORAL_API_KEY": "key-in-variable", "PAYCORE_TEMPORAL_API_KEY_FILE": keyFile} {
		c, err := loadEnv(map[string]string{env: want})
		if err != nil {
			t.Fatal(err)
		}
		if env == "PAYCORE_TEMPORAL_API_KEY_FILE" {
			want = "key-from-file"
		}
		got, err := c.TemporalAPIKeyValue()
		if err != nil || got != want {
			t.Errorf("%s: key %q, %v; want %q", env, got, err, want)
		}
		if tc, err := c.TemporalTLSConfig(); err != nil || tc == nil {
			t.Errorf("%s: an API key goes over TLS only; TLS config %v, %v", env, tc, err)
		}
		for _, format := range []string{"%v", "%+v", "%#v"} {
			if s := fmt.Sprintf(format, c); strings.Contains(s, "key-in-variable") {
				t.Errorf("%s printed the API key: %s", format, s)
			}
		}
	}

	for name, env := range map[string]map[string]string{
		"PAYCORE_TEMPORAL_TLS_KEY_FILE":  {"PAYCORE_TEMPORAL_TLS_CERT_FILE": pki.ClientCert},
		"PAYCORE_TEMPORAL_TLS_CERT_FILE": {"PAYCORE_TEMPORAL_TLS_KEY_FILE": pki.ClientKey},
		"PAYCORE_TEMPORAL_API_KEY_FILE":  {"PAYCORE_TEMPORAL_API_KEY": "k", "PAYCORE_TEMPORAL_API_KEY_FILE": keyFile},
		"PAYCORE_TEMPORAL_TLS":           {"PAYCORE_TEMPORAL_TLS": "false", "PAYCORE_TEMPORAL_API_KEY": "k"},
		"PAYCORE_TEMPORAL_TLS=false":     {"PAYCORE_TEMPORAL_TLS": "false", "PAYCORE_TEMPORAL_TLS_CA_FILE": pki.CA},
		"PAYCORE_TEMPORAL_TLS ":          {"PAYCORE_TEMPORAL_TLS": "perhaps"},
	} {
		if _, err := loadEnv(env); err == nil || !strings.Contains(err.Error(), strings.TrimSpace(strings.Split(name, "=")[0])) {
			t.Errorf("%v: %v; want an error naming %s", env, err, name)
		}
	}

	// Files that are missing or not what they should be fail when the connection is built,
	// naming the variable.
	for name, env := range map[string]map[string]string{
		"PAYCORE_TEMPORAL_TLS_CA_FILE":   {"PAYCORE_TEMPORAL_TLS_CA_FILE": filepath.Join(dir, "missing.pem")},
		"PAYCORE_TEMPORAL_TLS_CA_FILE ":  {"PAYCORE_TEMPORAL_TLS_CA_FILE": keyFile},
		"PAYCORE_TEMPORAL_TLS_CERT_FILE": {"PAYCORE_TEMPORAL_TLS_CERT_FILE": pki.ClientCert, "PAYCORE_TEMPORAL_TLS_KEY_FILE": pki.ServerKey},
		"PAYCORE_TEMPORAL_API_KEY_FILE":  {"PAYCORE_TEMPORAL_API_KEY_FILE": filepath.Join(dir, "missing")},
	} {
		c, err := loadEnv(env)
		if err != nil {
			t.Fatalf("%v: %v", env, err)
		}
		_, errTLS := c.TemporalTLSConfig()
		_, errKey := c.TemporalAPIKeyValue()
		err = errTLS
		if err == nil {
			err = errKey
		}
		if err == nil || !strings.Contains(err.Error(), strings.TrimSpace(name)) {
			t.Errorf("%v: %v; want an error naming %s", env, err, name)
		}
	}
}
