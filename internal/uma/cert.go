package uma

import (
	"crypto/sha256"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
)

// Providers publish their keys as X.509 certificate chains (UMAD-02). Go's crypto/x509
// knows no secp256k1, so the certificates are built and read here with encoding/asn1, in
// the shapes of RFC 5280 that openssl writes for such keys.
var (
	oidECPublicKey   = asn1.ObjectIdentifier{1, 2, 840, 10045, 2, 1}
	oidSecp256k1     = asn1.ObjectIdentifier{1, 3, 132, 0, 10}
	oidECDSAWithSHA2 = asn1.ObjectIdentifier{1, 2, 840, 10045, 4, 3, 2}
	oidBasicConstr   = asn1.ObjectIdentifier{2, 5, 29, 19}
)

type certificate struct {
	TBS       asn1.RawValue
	Algorithm pkix.AlgorithmIdentifier
	Signature asn1.BitString
}

type tbsCertificate struct {
	Version      int `asn1:"optional,explicit,default:0,tag:0"`
	SerialNumber *big.Int
	Algorithm    pkix.AlgorithmIdentifier
	Issuer       asn1.RawValue
	Validity     validity
	Subject      asn1.RawValue
	PublicKey    publicKeyInfo
	IssuerID     asn1.BitString   `asn1:"optional,tag:1"`
	SubjectID    asn1.BitString   `asn1:"optional,tag:2"`
	Extensions   []pkix.Extension `asn1:"omitempty,optional,explicit,tag:3"`
}

type validity struct {
	NotBefore, NotAfter time.Time
}

type publicKeyInfo struct {
	Algorithm pkix.AlgorithmIdentifier
	PublicKey asn1.BitString
}

type basicConstraints struct {
	IsCA bool `asn1:"optional"`
}

// Certificate is a certificate of a chain as UMA uses it: whose key it carries, for when,
// and who signed it.
type Certificate struct {
	Raw       []byte
	Subject   string // the common name
	Issuer    string // the issuer's common name
	Key       PublicKey
	NotBefore time.Time
	NotAfter  time.Time
	tbs       []byte
	signature []byte
	issuerRaw []byte
	selfRaw   []byte
}

// SelfSigned is a self-signed certificate (DER) of p's public key for name, valid from
// notBefore to notAfter: what a provider publishes when its counterparties trust its
// domain (UMAD-02).
func SelfSigned(p PrivateKey, name string, serial int64, notBefore, notAfter time.Time) ([]byte, error) {
	subject, err := asn1.Marshal(pkix.Name{CommonName: name}.ToRDNSequence())
	if err != nil {
		return nil, fmt.Errorf("uma: certificate name: %w", err)
	}
	ca, err := asn1.Marshal(basicConstraints{IsCA: true})
	if err != nil {
		return nil, fmt.Errorf("uma: certificate constraints: %w", err)
	}
	alg := pkix.AlgorithmIdentifier{Algorithm: oidECDSAWithSHA2}
	curve, err := asn1.Marshal(oidSecp256k1)
	if err != nil {
		return nil, fmt.Errorf("uma: certificate curve: %w", err)
	}
	pub := p.Public().Uncompressed()
	tbs, err := asn1.Marshal(tbsCertificate{Version: 2, SerialNumber: big.NewInt(serial), Algorithm: alg,
		Issuer: asn1.RawValue{FullBytes: subject}, Validity: validity{NotBefore: notBefore.UTC().Truncate(time.Second), NotAfter: notAfter.UTC().Truncate(time.Second)},
		Subject: asn1.RawValue{FullBytes: subject},
		PublicKey: publicKeyInfo{Algorithm: pkix.AlgorithmIdentifier{Algorithm: oidECPublicKey, Parameters: asn1.RawValue{FullBytes: curve}},
			PublicKey: asn1.BitString{Bytes: pub, BitLength: 8 * len(pub)}},
		Extensions: []pkix.Extension{{Id: oidBasicConstr, Critical: true, Value: ca}}})
	if err != nil {
		return nil, fmt.Errorf("uma: certificate: %w", err)
	}
	h := sha256.Sum256(tbs)
	sig := ecdsa.Sign(p.k, h[:]).Serialize()
	der, err := asn1.Marshal(certificate{TBS: asn1.RawValue{FullBytes: tbs}, Algorithm: alg, Signature: asn1.BitString{Bytes: sig, BitLength: 8 * len(sig)}})
	if err != nil {
		return nil, fmt.Errorf("uma: certificate: %w", err)
	}
	return der, nil
}

// Errors of certificate chains, as the protocol's error codes name them.
var (
	// ErrCertChainInvalid: not certificates of secp256k1 keys, or not a chain.
	ErrCertChainInvalid = errors.New("uma: the certificate chain is invalid")
	// ErrCertChainExpired: a certificate of the chain is not valid now.
	ErrCertChainExpired = errors.New("uma: the certificate chain has expired")
)

// ParseCertificate reads one DER certificate of a secp256k1 key signed with ECDSA-SHA256.
func ParseCertificate(der []byte) (Certificate, error) {
	var c certificate
	if rest, err := asn1.Unmarshal(der, &c); err != nil || len(rest) > 0 {
		return Certificate{}, fmt.Errorf("%w: not a certificate", ErrCertChainInvalid)
	}
	var tbs tbsCertificate
	if rest, err := asn1.Unmarshal(c.TBS.FullBytes, &tbs); err != nil || len(rest) > 0 {
		return Certificate{}, fmt.Errorf("%w: not a certificate: %v", ErrCertChainInvalid, err)
	}
	var curve asn1.ObjectIdentifier
	if !tbs.PublicKey.Algorithm.Algorithm.Equal(oidECPublicKey) {
		return Certificate{}, fmt.Errorf("%w: not an elliptic-curve key", ErrCertChainInvalid)
	}
	if _, err := asn1.Unmarshal(tbs.PublicKey.Algorithm.Parameters.FullBytes, &curve); err != nil || !curve.Equal(oidSecp256k1) {
		return Certificate{}, fmt.Errorf("%w: not a secp256k1 key", ErrCertChainInvalid)
	}
	key, err := ParsePublicKey(tbs.PublicKey.PublicKey.RightAlign())
	if err != nil {
		return Certificate{}, fmt.Errorf("%w: %v", ErrCertChainInvalid, err)
	}
	if !c.Algorithm.Algorithm.Equal(oidECDSAWithSHA2) {
		return Certificate{}, fmt.Errorf("%w: not signed with ECDSA-SHA256", ErrCertChainInvalid)
	}
	return Certificate{Raw: der, Subject: commonName(tbs.Subject.FullBytes), Issuer: commonName(tbs.Issuer.FullBytes), Key: key,
		NotBefore: tbs.Validity.NotBefore, NotAfter: tbs.Validity.NotAfter, tbs: c.TBS.FullBytes, signature: c.Signature.RightAlign(),
		issuerRaw: tbs.Issuer.FullBytes, selfRaw: tbs.Subject.FullBytes}, nil
}

// commonName is a name's common name ("" when it has none).
func commonName(raw []byte) string {
	var rdn pkix.RDNSequence
	if _, err := asn1.Unmarshal(raw, &rdn); err != nil {
		return ""
	}
	var n pkix.Name
	n.FillFromRDNSequence(&rdn)
	return n.CommonName
}

// signedBy reports whether c's signature verifies with k.
func (c Certificate) signedBy(k PublicKey) bool {
	sig, err := ecdsa.ParseDERSignature(c.signature)
	if err != nil {
		return false
	}
	h := sha256.Sum256(c.tbs)
	return sig.Verify(h[:], k.k)
}

// Chain is a provider's certificate chain, leaf first: its key is the leaf's.
type Chain []Certificate

// Key is the chain's key: the leaf certificate's.
func (ch Chain) Key() PublicKey { return ch[0].Key }

// ParseChain reads a chain of hex DER certificates, leaf to root, as /.well-known/lnurlpubkey
// publishes them, and checks it at now: every certificate valid now and signed by the next
// one, the last by itself. Trust in the chain comes from the domain that served it (or from
// an identity authority the operator configures), not from the chain.
func ParseChain(hexCerts []string, now time.Time) (Chain, error) {
	if len(hexCerts) == 0 {
		return nil, fmt.Errorf("%w: no certificate", ErrCertChainInvalid)
	}
	chain := make(Chain, 0, len(hexCerts))
	for i, h := range hexCerts {
		der, err := hex.DecodeString(strings.TrimSpace(h))
		if err != nil {
			return nil, fmt.Errorf("%w: certificate %d is not hex", ErrCertChainInvalid, i)
		}
		c, err := ParseCertificate(der)
		if err != nil {
			return nil, fmt.Errorf("certificate %d: %w", i, err)
		}
		chain = append(chain, c)
	}
	for i, c := range chain {
		if now.Before(c.NotBefore) || now.After(c.NotAfter) {
			return nil, fmt.Errorf("%w: certificate %d is valid from %s to %s", ErrCertChainExpired, i, c.NotBefore.Format(time.RFC3339), c.NotAfter.Format(time.RFC3339))
		}
		issuer := c
		if i+1 < len(chain) {
			issuer = chain[i+1]
		}
		if string(c.issuerRaw) != string(issuer.selfRaw) || !c.signedBy(issuer.Key) {
			return nil, fmt.Errorf("%w: certificate %d is not signed by its issuer", ErrCertChainInvalid, i)
		}
	}
	return chain, nil
}

// PEM is a DER certificate in PEM, as the SDKs take certificate chains.
func PEM(der []byte) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}
