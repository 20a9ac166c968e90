// Package testpki writes a throwaway certificate authority and certificates signed by it,
// for tests of TLS and mutual TLS: a server certificate for a DNS name and 127.0.0.1, and
// a client certificate.
package testpki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Files are the PEM files New writes.
type Files struct {
	CA                    string // the authority's certificate
	ServerCert, ServerKey string // for ServerName and 127.0.0.1
	ClientCert, ClientKey string // a client certificate (CN "paycore")
	ServerName            string
	// ca and caKey sign what Issue issues.
	ca    *x509.Certificate
	caKey *ecdsa.PrivateKey
	dir   string
}

// New writes a fresh authority and its server and client certificates into dir.
func New(t testing.TB, dir, serverName string) Files {
	t.Helper()
	caKey := newKey(t)
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "paycore test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	f := Files{CA: filepath.Join(dir, "ca.pem"), ServerName: serverName, ca: ca, caKey: caKey, dir: dir,
		ServerCert: filepath.Join(dir, "server.pem"), ServerKey: filepath.Join(dir, "server-key.pem"),
		ClientCert: filepath.Join(dir, "client.pem"), ClientKey: filepath.Join(dir, "client-key.pem")}
	writePEM(t, f.CA, "CERTIFICATE", caDER)
	leaf := func(serial int64, cn string, usage []x509.ExtKeyUsage, certFile, keyFile string, dns []string, ips []net.IP) {
		key := newKey(t)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn},
			NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), KeyUsage: x509.KeyUsageDigitalSignature,
			ExtKeyUsage: usage, DNSNames: dns, IPAddresses: ips}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		keyDER, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			t.Fatal(err)
		}
		writePEM(t, certFile, "CERTIFICATE", der)
		writePEM(t, keyFile, "PRIVATE KEY", keyDER)
	}
	// The server's certificate is also good for client authentication: Temporal's own
	// services present it to each other.
	leaf(2, serverName, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}, f.ServerCert, f.ServerKey, []string{serverName, "localhost"}, []net.IP{net.IPv4(127, 0, 0, 1)})
	leaf(3, "paycore", []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, f.ClientCert, f.ClientKey, nil, nil)
	return f
}

// Issue writes a server certificate for the DNS name name and the addresses ips, signed by
// the authority, and answers its certificate and key files.
func (f Files) Issue(t testing.TB, name string, ips ...net.IP) (certFile, keyFile string) {
	t.Helper()
	key := newKey(t)
	now := time.Now()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(now.UnixNano()), Subject: pkix.Name{CommonName: name},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, DNSNames: []string{name}, IPAddresses: ips}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, f.ca, &key.PublicKey, f.caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(f.dir, name+".pem"), filepath.Join(f.dir, name+"-key.pem")
	writePEM(t, certFile, "CERTIFICATE", der)
	writePEM(t, keyFile, "PRIVATE KEY", keyDER)
	return certFile, keyFile
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func writePEM(t testing.TB, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}
