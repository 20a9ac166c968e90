// Package walletcrypto implements the embedded-wallet wire formats, byte-compatible with
// the client libraries platforms already use (@turnkey/crypto decryptCredentialBundle and
// @turnkey/api-key-stamper):
//
//   - clientPublicKey: 130 hex characters, an uncompressed SEC1 P-256 point;
//   - credential bundles: HPKE (RFC 9180 base mode, DHKEM(P-256, HKDF-SHA256), HKDF-SHA256,
//     AES-256-GCM, info "turnkey_hpke", AAD = enc || clientPublicKey) of a secret, written as
//     base58check(compressed enc || ciphertext);
//   - API-key stamps: base64url(JSON {publicKey, scheme, signature}) with an ECDSA P-256
//     signature over SHA-256 of the exact payload bytes.
package walletcrypto

import (
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hpke"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"

	"github.com/mr-tron/base58"
)

// StampScheme is the only stamp scheme accepted.
const StampScheme = "SIGNATURE_SCHEME_TK_API_P256"

var (
	hpkeInfo        = []byte("turnkey_hpke")
	clientKeyFormat = regexp.MustCompile(`^(04[0-9a-fA-F]{128}|0[23][0-9a-fA-F]{64})$`)
)

// ErrBadClientKey reports a clientPublicKey that is not a P-256 point.
var ErrBadClientKey = errors.New("clientPublicKey must be a P-256 point in hex: uncompressed (130 characters: 04, then X and Y) " +
	"or compressed (66 characters: 02 or 03, then X)")

// ParseClientPublicKey reads a clientPublicKey, uncompressed (65 bytes) or compressed (33
// bytes), and checks that the point is on the curve. It returns the raw bytes as given.
func ParseClientPublicKey(s string) ([]byte, error) {
	if !clientKeyFormat.MatchString(s) {
		return nil, ErrBadClientKey
	}
	raw, _ := hex.DecodeString(s)
	full, err := Uncompressed(raw)
	if err != nil {
		return nil, ErrBadClientKey
	}
	if _, err := ecdh.P256().NewPublicKey(full); err != nil {
		return nil, ErrBadClientKey
	}
	return raw, nil
}

// ClientHeld reports whether a client public key was given compressed: the client then
// holds its session's signing key itself (the session's key is the client's).
func ClientHeld(key []byte) bool { return len(key) == 33 }

// SealBundle encrypts secret to the client's public key (65 bytes, uncompressed) and
// returns the bundle text.
func SealBundle(clientPublicKey, secret []byte) (string, error) {
	full, err := Uncompressed(clientPublicKey)
	if err != nil {
		return "", ErrBadClientKey
	}
	enc, ct, err := hpkeSeal(full, secret)
	if err != nil {
		return "", err
	}
	encC := append([]byte{0x02 | (enc[64] & 1)}, enc[1:33]...)
	return base58Check(append(encC, ct...)), nil
}

// hpkeSeal seals plaintext to the receiver's uncompressed P-256 key (the wire formats'
// HPKE: info turnkey_hpke, the AAD the encapsulated key followed by the receiver's key) and
// returns the encapsulated key (uncompressed) and the ciphertext.
func hpkeSeal(receiver, plaintext []byte) (enc, ct []byte, err error) {
	pub, err := ecdh.P256().NewPublicKey(receiver)
	if err != nil {
		return nil, nil, ErrBadClientKey
	}
	pk, err := hpke.NewDHKEMPublicKey(pub)
	if err != nil {
		return nil, nil, fmt.Errorf("hpke public key: %w", err)
	}
	enc, sender, err := hpke.NewSender(pk, hpke.HKDFSHA256(), hpke.AES256GCM(), hpkeInfo)
	if err != nil {
		return nil, nil, fmt.Errorf("hpke sender: %w", err)
	}
	ct, err = sender.Seal(append(append([]byte{}, enc...), receiver...), plaintext)
	if err != nil {
		return nil, nil, fmt.Errorf("hpke seal: %w", err)
	}
	return enc, ct, nil
}

// OpenBundle decrypts a bundle with the client's private key (what a client library does);
// the service uses it in tests and to check bundles.
func OpenBundle(clientPrivate *ecdh.PrivateKey, bundle string) ([]byte, error) {
	payload, err := unBase58Check(bundle)
	if err != nil {
		return nil, err
	}
	if len(payload) < 33+16 {
		return nil, errors.New("bundle too short")
	}
	enc, err := decompress(payload[:33])
	if err != nil {
		return nil, err
	}
	sk, err := hpke.NewDHKEMPrivateKey(clientPrivate)
	if err != nil {
		return nil, fmt.Errorf("hpke private key: %w", err)
	}
	rcpt, err := hpke.NewRecipient(enc, sk, hpke.HKDFSHA256(), hpke.AES256GCM(), hpkeInfo)
	if err != nil {
		return nil, fmt.Errorf("hpke recipient: %w", err)
	}
	aad := append(append([]byte{}, enc...), clientPrivate.PublicKey().Bytes()...)
	pt, err := rcpt.Open(aad, payload[33:])
	if err != nil {
		return nil, fmt.Errorf("bundle does not open: %w", err)
	}
	return pt, nil
}

// NewSessionKey makes a session signing key and returns its private scalar (32 bytes) and
// compressed public key (33 bytes).
func NewSessionKey() (private, publicCompressed []byte, err error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("generate session key: %w", err)
	}
	private, err = k.Bytes()
	if err != nil {
		return nil, nil, err
	}
	pub, err := k.PublicKey.Bytes()
	if err != nil {
		return nil, nil, err
	}
	return private, compress(pub), nil
}

// Stamp is a parsed Service-Wallet-Signature header.
type Stamp struct {
	PublicKey []byte // uncompressed, 65 bytes
	Signature []byte // ASN.1 DER
}

// ParseStamp reads a stamp: base64url (unpadded, padding tolerated) of a JSON object.
func ParseStamp(value string) (Stamp, error) {
	if len(value) == 0 || len(value) > 4096 {
		return Stamp{}, errors.New("stamp is empty or too long")
	}
	raw, err := base64.RawURLEncoding.DecodeString(value)
	if err != nil {
		if raw, err = base64.URLEncoding.DecodeString(value); err != nil {
			return Stamp{}, errors.New("stamp is not base64url")
		}
	}
	var s struct {
		PublicKey string `json:"publicKey"`
		Scheme    string `json:"scheme"`
		Signature string `json:"signature"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return Stamp{}, errors.New("stamp is not a JSON object")
	}
	if s.Scheme != StampScheme {
		return Stamp{}, fmt.Errorf("stamp scheme must be %s", StampScheme)
	}
	pub, err := hex.DecodeString(s.PublicKey)
	if err != nil {
		return Stamp{}, errors.New("stamp publicKey is not hex")
	}
	switch len(pub) {
	case 33:
		if pub, err = decompress(pub); err != nil {
			return Stamp{}, err
		}
	case 65:
		if _, err := ecdh.P256().NewPublicKey(pub); err != nil {
			return Stamp{}, errors.New("stamp publicKey is not a P-256 point")
		}
	default:
		return Stamp{}, errors.New("stamp publicKey must be a compressed or uncompressed P-256 point")
	}
	sig, err := hex.DecodeString(s.Signature)
	if err != nil || len(sig) == 0 || len(sig) > 80 {
		return Stamp{}, errors.New("stamp signature is not hex DER")
	}
	return Stamp{PublicKey: pub, Signature: sig}, nil
}

// Verify checks the stamp's signature over the exact payload bytes.
func (s Stamp) Verify(payload []byte) error {
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), s.PublicKey)
	if err != nil {
		return errors.New("stamp publicKey is not a P-256 point")
	}
	sum := sha256.Sum256(payload)
	if !ecdsa.VerifyASN1(pub, sum[:], s.Signature) {
		return errors.New("stamp signature does not verify")
	}
	return nil
}

// SameKey reports whether two encodings (compressed or uncompressed) name the same point.
func SameKey(a, b []byte) bool {
	ua, err1 := Uncompressed(a)
	ub, err2 := Uncompressed(b)
	return err1 == nil && err2 == nil && string(ua) == string(ub)
}

// Uncompressed is a P-256 point's 65-byte uncompressed encoding, from either encoding
// (a compressed one is checked to be on the curve).
func Uncompressed(k []byte) ([]byte, error) {
	if len(k) == 33 {
		return decompress(k)
	}
	if len(k) == 65 && k[0] == 4 {
		return k, nil
	}
	return nil, errors.New("not a P-256 point encoding")
}

func compress(uncompressed []byte) []byte {
	return append([]byte{0x02 | (uncompressed[64] & 1)}, uncompressed[1:33]...)
}

// decompress turns a 33-byte compressed P-256 point into its 65-byte uncompressed form,
// checking that it is on the curve.
func decompress(c []byte) ([]byte, error) {
	if len(c) != 33 || (c[0] != 2 && c[0] != 3) {
		return nil, errors.New("not a compressed P-256 point")
	}
	params := elliptic.P256().Params()
	x := new(big.Int).SetBytes(c[1:])
	if x.Cmp(params.P) >= 0 {
		return nil, errors.New("not a P-256 point")
	}
	// y² = x³ - 3x + b (mod p)
	y2 := new(big.Int).Exp(x, big.NewInt(3), params.P)
	y2.Sub(y2, new(big.Int).Mul(x, big.NewInt(3)))
	y2.Add(y2, params.B)
	y2.Mod(y2, params.P)
	y := new(big.Int).ModSqrt(y2, params.P)
	if y == nil {
		return nil, errors.New("not a P-256 point")
	}
	if y.Bit(0) != uint(c[0]&1) {
		y.Sub(params.P, y)
	}
	out := make([]byte, 65)
	out[0] = 4
	x.FillBytes(out[1:33])
	y.FillBytes(out[33:])
	if _, err := ecdh.P256().NewPublicKey(out); err != nil {
		return nil, errors.New("not a P-256 point")
	}
	return out, nil
}

func base58Check(payload []byte) string {
	h1 := sha256.Sum256(payload)
	h2 := sha256.Sum256(h1[:])
	return base58.Encode(append(append([]byte{}, payload...), h2[:4]...))
}

func unBase58Check(s string) ([]byte, error) {
	if len(s) > 4096 {
		return nil, errors.New("bundle too long")
	}
	raw, err := base58.Decode(s)
	if err != nil || len(raw) < 5 {
		return nil, errors.New("bundle is not base58check")
	}
	payload, check := raw[:len(raw)-4], raw[len(raw)-4:]
	h1 := sha256.Sum256(payload)
	h2 := sha256.Sum256(h1[:])
	if string(h2[:4]) != string(check) {
		return nil, errors.New("bundle checksum does not match")
	}
	return payload, nil
}
