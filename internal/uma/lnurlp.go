package uma

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Version is the UMA protocol version this implementation speaks, and MajorVersion its
// major part (UMAD-08).
const (
	Version      = "1.0"
	MajorVersion = 1
)

// UnsupportedVersionError is a request in a major version this implementation does not
// speak: answered 412 with the major versions it does (UMAD-08).
type UnsupportedVersionError struct{ Version string }

func (e *UnsupportedVersionError) Error() string {
	return fmt.Sprintf("uma: unsupported version %q; supported major versions: %v", e.Version, SupportedMajorVersions())
}

// SupportedMajorVersions are the major versions this implementation speaks.
func SupportedMajorVersions() []int { return []int{MajorVersion} }

// NegotiateVersion is the version to answer a request in requested with: the highest this
// implementation speaks of requested's major version (UMAD-08).
func NegotiateVersion(requested string) (string, error) {
	major, _, ok := strings.Cut(requested, ".")
	if n, err := strconv.Atoi(major); !ok || err != nil || n != MajorVersion {
		return "", &UnsupportedVersionError{Version: requested}
	}
	return Version, nil
}

// NewNonce is a random nonce for a signed message.
func NewNonce() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// LnurlpRequest is the first request of a payment, from the sending provider to the
// receiver's (UMAD-03): GET https://<domain>/.well-known/lnurlp/<user>?<UMA parameters>.
type LnurlpRequest struct {
	// ReceiverAddress is the receiver's UMA address, "$bob@vasp2.com": the request's path's
	// user at the host it was sent to.
	ReceiverAddress       string
	VaspDomain            string // the sender's domain, where its keys are published
	Nonce                 string
	Timestamp             int64 // seconds since the epoch
	Signature             string
	IsSubjectToTravelRule bool
	UmaVersion            string
}

// SignablePayload is what the request's signature covers: receiver|nonce|timestamp.
func (r LnurlpRequest) SignablePayload() string {
	return r.ReceiverAddress + "|" + r.Nonce + "|" + strconv.FormatInt(r.Timestamp, 10)
}

// NewLnurlpRequest is a request for receiverAddress by the provider of senderDomain, signed
// with its signing key at now.
func NewLnurlpRequest(key PrivateKey, receiverAddress, senderDomain string, travelRule bool, now time.Time) LnurlpRequest {
	r := LnurlpRequest{ReceiverAddress: receiverAddress, VaspDomain: senderDomain, Nonce: NewNonce(), Timestamp: now.Unix(),
		IsSubjectToTravelRule: travelRule, UmaVersion: Version}
	r.Signature = key.Sign(r.SignablePayload())
	return r
}

// URL is where the request is sent: https (http for local domains, as the SDKs allow)
// to the receiver's domain.
func (r LnurlpRequest) URL() (string, error) {
	user, domain, err := SplitAddress(r.ReceiverAddress)
	if err != nil {
		return "", err
	}
	q := url.Values{}
	q.Set("signature", r.Signature)
	q.Set("vaspDomain", r.VaspDomain)
	q.Set("nonce", r.Nonce)
	q.Set("isSubjectToTravelRule", strconv.FormatBool(r.IsSubjectToTravelRule))
	q.Set("timestamp", strconv.FormatInt(r.Timestamp, 10))
	q.Set("umaVersion", r.UmaVersion)
	return Scheme(domain) + "://" + domain + "/.well-known/lnurlp/" + user + "?" + q.Encode(), nil
}

// Scheme is the scheme a provider at domain is reached with: https, or http for a local
// domain (localhost, 127.0.0.1, *.local, *.internal, with or without a port), as the SDKs
// allow.
func Scheme(domain string) string {
	host := domain
	if h, _, ok := strings.Cut(domain, ":"); ok {
		host = h
	}
	if host == "localhost" || host == "127.0.0.1" || strings.HasSuffix(host, ".local") || strings.HasSuffix(host, ".internal") {
		return "http"
	}
	return "https"
}

// Errors of requests, as the protocol's error codes name them.
var (
	// ErrMissingParameters: some UMA parameters are present, not all (MISSING_REQUIRED_UMA_PARAMETERS).
	ErrMissingParameters = errors.New("uma: the request lacks required UMA parameters")
	// ErrInvalidAddress: not a UMA address (INVALID_UMA_ADDRESS... of the request path).
	ErrInvalidAddress = errors.New("uma: not a UMA address")
	// ErrInvalidTimestamp: the timestamp is not a number.
	ErrInvalidTimestamp = errors.New("uma: the timestamp is invalid")
)

var userPattern = regexp.MustCompile(`^[a-zA-Z0-9._$+-]+$`)

// ParseLnurlpRequest reads a request received at host for user (the path's last segment)
// with its query. isUma is false for a plain LNURL-pay request (no UMA parameter at all);
// a request with some UMA parameters but not all is ErrMissingParameters, one in a major
// version this implementation does not speak an *UnsupportedVersionError.
func ParseLnurlpRequest(host, user string, q url.Values) (r LnurlpRequest, isUma bool, err error) {
	if !userPattern.MatchString(user) {
		return LnurlpRequest{}, false, fmt.Errorf("%w: user %q", ErrInvalidAddress, user)
	}
	r = LnurlpRequest{ReceiverAddress: user + "@" + host, VaspDomain: q.Get("vaspDomain"), Nonce: q.Get("nonce"),
		Signature: q.Get("signature"), UmaVersion: q.Get("umaVersion"), IsSubjectToTravelRule: strings.EqualFold(q.Get("isSubjectToTravelRule"), "true")}
	present := 0
	for _, k := range []string{"vaspDomain", "signature", "nonce", "timestamp", "umaVersion"} {
		if q.Get(k) != "" {
			present++
		}
	}
	switch {
	case present == 0:
		return r, false, nil
	case r.UmaVersion != "":
		if _, err := NegotiateVersion(r.UmaVersion); err != nil {
			return r, true, err
		}
	}
	if present < 5 {
		return r, true, ErrMissingParameters
	}
	if r.Timestamp, err = strconv.ParseInt(q.Get("timestamp"), 10, 64); err != nil {
		return r, true, ErrInvalidTimestamp
	}
	return r, true, nil
}

// SplitAddress splits a UMA address "$user@domain" into its user (with its "$") and domain.
func SplitAddress(address string) (user, domain string, err error) {
	user, domain, ok := strings.Cut(address, "@")
	if !ok || !strings.HasPrefix(user, "$") || len(user) < 2 || !userPattern.MatchString(user) || !ValidDomain(domain) {
		return "", "", fmt.Errorf("%w: %q", ErrInvalidAddress, address)
	}
	return user, domain, nil
}

// domainPattern is a provider's domain as messages name it: a host name, and a port for
// local domains (Scheme).
var domainPattern = regexp.MustCompile(`^[a-zA-Z0-9]([a-zA-Z0-9.-]{0,252})(:[0-9]{1,5})?$`)

// ValidDomain reports whether d can name a provider's domain (an address's, a request's
// vaspDomain): a host name with an optional port, nothing a URL would read otherwise.
func ValidDomain(d string) bool { return domainPattern.MatchString(d) }

// KYC statuses of a receiver, as LNURLP responses state them.
const (
	KycUnknown     = "UNKNOWN"
	KycNotVerified = "NOT_VERIFIED"
	KycPending     = "PENDING"
	KycVerified    = "VERIFIED"
)

// LnurlpResponse is the receiver's answer (UMAD-04): LNURL-pay's pay request with the
// receiver's currencies, the payer data it requires and its signed compliance data.
type LnurlpResponse struct {
	Tag         string                       `json:"tag"`
	Callback    string                       `json:"callback"`
	MinSendable int64                        `json:"minSendable"` // millisatoshis
	MaxSendable int64                        `json:"maxSendable"`
	Metadata    string                       `json:"metadata"`
	Currencies  []Currency                   `json:"currencies,omitempty"`
	PayerData   map[string]CounterpartyField `json:"payerData,omitempty"`
	Compliance  *LnurlpCompliance            `json:"compliance,omitempty"`
	UmaVersion  string                       `json:"umaVersion,omitempty"`
	// CommentAllowed is LUD-12's comment length (0: none).
	CommentAllowed int `json:"commentAllowed,omitempty"`
}

// Currency is a currency the receiver can receive (UMAD-04, version 1): Multiplier is the
// estimated millisatoshis per smallest unit.
type Currency struct {
	Code        string      `json:"code"`
	Name        string      `json:"name"`
	Symbol      string      `json:"symbol"`
	Multiplier  float64     `json:"multiplier"`
	Decimals    int         `json:"decimals"`
	Convertible Convertible `json:"convertible"`
}

// Convertible is the range, in the currency's smallest unit, the receiver converts to it.
type Convertible struct {
	Min int64 `json:"min"`
	Max int64 `json:"max"`
}

// CounterpartyField is whether a payer (or payee) data field is required.
type CounterpartyField struct {
	Mandatory bool `json:"mandatory"`
}

// LnurlpCompliance is the response's signed compliance data.
type LnurlpCompliance struct {
	KycStatus             string `json:"kycStatus"`
	Signature             string `json:"signature"`
	SignatureNonce        string `json:"signatureNonce"`
	SignatureTimestamp    int64  `json:"signatureTimestamp"`
	IsSubjectToTravelRule bool   `json:"isSubjectToTravelRule"`
	ReceiverIdentifier    string `json:"receiverIdentifier"`
}

// SignablePayload is what the compliance data's signature covers:
// receiverIdentifier|nonce|timestamp.
func (c LnurlpCompliance) SignablePayload() string {
	return c.ReceiverIdentifier + "|" + c.SignatureNonce + "|" + strconv.FormatInt(c.SignatureTimestamp, 10)
}

// SignedCompliance is the compliance data for a response to r, signed with key at now.
func SignedCompliance(key PrivateKey, r LnurlpRequest, kycStatus string, travelRule bool, now time.Time) *LnurlpCompliance {
	c := &LnurlpCompliance{KycStatus: kycStatus, SignatureNonce: NewNonce(), SignatureTimestamp: now.Unix(), IsSubjectToTravelRule: travelRule,
		ReceiverIdentifier: r.ReceiverAddress}
	c.Signature = key.Sign(c.SignablePayload())
	return c
}

// PubKeyResponse is what a provider publishes at /.well-known/lnurlpubkey (UMAD-02): its
// signing and encryption certificate chains (hex DER, leaf first) and, optionally, the
// moment (seconds since the epoch) they must be fetched again.
type PubKeyResponse struct {
	SigningCertChain    []string `json:"signingCertChain"`
	EncryptionCertChain []string `json:"encryptionCertChain"`
	// SigningPubKey and EncryptionPubKey are the leaves' keys (hex, uncompressed), as the
	// SDKs also publish and read them.
	SigningPubKey       string `json:"signingPubKey,omitempty"`
	EncryptionPubKey    string `json:"encryptionPubKey,omitempty"`
	ExpirationTimestamp int64  `json:"expirationTimestamp,omitempty"`
}

// ProviderKeys are a provider's keys as its published response gives them, checked.
type ProviderKeys struct {
	Signing    PublicKey
	Encryption PublicKey
	// Expires is when they must be fetched again (zero: not cached).
	Expires time.Time
}

// Keys reads and checks the response's chains at now.
func (p PubKeyResponse) Keys(now time.Time) (ProviderKeys, error) {
	signing, err := ParseChain(p.SigningCertChain, now)
	if err != nil {
		return ProviderKeys{}, fmt.Errorf("signing chain: %w", err)
	}
	encryption, err := ParseChain(p.EncryptionCertChain, now)
	if err != nil {
		return ProviderKeys{}, fmt.Errorf("encryption chain: %w", err)
	}
	k := ProviderKeys{Signing: signing.Key(), Encryption: encryption.Key()}
	if p.ExpirationTimestamp > 0 {
		k.Expires = time.Unix(p.ExpirationTimestamp, 0)
	}
	return k, nil
}

// ProxySubdomain is the proxy subdomain that host names under the deployment's proxy
// domain (label.proxyDomain, case-insensitive, a port ignored): one DNS label; ok is false
// for any other host, and when there is no proxy domain.
func ProxySubdomain(host, proxyDomain string) (label string, ok bool) {
	host = strings.ToLower(host)
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	proxyDomain = strings.ToLower(proxyDomain)
	if proxyDomain == "" || !strings.HasSuffix(host, "."+proxyDomain) {
		return "", false
	}
	label = strings.TrimSuffix(host, "."+proxyDomain)
	if label == "" || len(label) > 63 || strings.ContainsAny(label, ".") || strings.HasPrefix(label, "-") || strings.HasSuffix(label, "-") {
		return "", false
	}
	for _, r := range label {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' {
			return "", false
		}
	}
	return label, true
}
