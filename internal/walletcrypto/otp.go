package walletcrypto

import (
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hpke"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
)

// The encrypted one-time code: the service issues each code with a target key of its own
// and hands out that key's public half in a signed target bundle (the shape a Turnkey
// enclave's initOtp answers, which @turnkey/crypto's encryptOtpCodeToBundle takes). The
// client HPKE-encrypts {otp_code, public_key} to it: the code the user typed and the
// public key of the signing key it will keep as its session key.

// ErrBadOTPBundle is an encryptedOtpBundle that is not the target key's encryption of a
// code and a compressed P-256 public key.
var ErrBadOTPBundle = errors.New("the encrypted OTP bundle does not open with this challenge's target key")

// OTPSigner is the key that signs target bundles (the bundle's enclaveQuorumPublic): a
// P-256 key made from a 32-byte secret (sealbox.Box.Derive), the same for the deployment
// at every start.
func OTPSigner(secret []byte) (*ecdsa.PrivateKey, error) {
	k, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), secret)
	if err != nil {
		return nil, fmt.Errorf("OTP bundle signer: %w", err)
	}
	return k, nil
}

// OTPSignerPublic is the hex of a signer's uncompressed public key: what a client passes to
// encryptOtpCodeToBundle as the expected signer (dangerouslyOverrideSignerPublicKey).
func OTPSignerPublic(k *ecdsa.PrivateKey) string {
	b, _ := k.PublicKey.Bytes() // a valid P-256 key always encodes
	return hex.EncodeToString(b)
}

// NewOTPTarget makes the target key of one code: its private scalar is stored (sealed)
// with the code.
func NewOTPTarget() (*ecdh.PrivateKey, error) {
	k, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("OTP target key: %w", err)
	}
	return k, nil
}

// ParseOTPTarget is a stored target key (its private scalar).
func ParseOTPTarget(scalar []byte) (*ecdh.PrivateKey, error) {
	k, err := ecdh.P256().NewPrivateKey(scalar)
	if err != nil {
		return nil, fmt.Errorf("OTP target key: %w", err)
	}
	return k, nil
}

// OTPTargetBundle is the signed target bundle of target: version v1.0.0, data the hex of
// {"targetPublic": hex of the uncompressed key}, dataSignature the hex of signer's DER
// ECDSA signature over SHA-256(data), and the signer's public key.
func OTPTargetBundle(signer *ecdsa.PrivateKey, target *ecdh.PrivateKey) (string, error) {
	data, err := json.Marshal(map[string]string{"targetPublic": hex.EncodeToString(target.PublicKey().Bytes())})
	if err != nil {
		return "", fmt.Errorf("OTP target bundle: %w", err)
	}
	sum := sha256.Sum256(data)
	sig, err := ecdsa.SignASN1(rand.Reader, signer, sum[:])
	if err != nil {
		return "", fmt.Errorf("sign OTP target bundle: %w", err)
	}
	out, err := json.Marshal(map[string]string{"version": "v1.0.0", "data": hex.EncodeToString(data),
		"dataSignature": hex.EncodeToString(sig), "enclaveQuorumPublic": OTPSignerPublic(signer)})
	if err != nil {
		return "", fmt.Errorf("OTP target bundle: %w", err)
	}
	return string(out), nil
}

// OpenOTPBundle opens an encryptedOtpBundle ({"encappedPublic", "ciphertext"}, hex) with
// the code's target key and returns the code and the client's compressed public key.
func OpenOTPBundle(target *ecdh.PrivateKey, bundle string) (code string, clientKey []byte, err error) {
	var b struct {
		EncappedPublic string `json:"encappedPublic"`
		Ciphertext     string `json:"ciphertext"`
	}
	if len(bundle) > 4096 || json.Unmarshal([]byte(bundle), &b) != nil {
		return "", nil, ErrBadOTPBundle
	}
	enc, err1 := hex.DecodeString(b.EncappedPublic)
	ct, err2 := hex.DecodeString(b.Ciphertext)
	if err1 != nil || err2 != nil || len(enc) != 65 || len(ct) < 16 {
		return "", nil, ErrBadOTPBundle
	}
	sk, err := hpke.NewDHKEMPrivateKey(target)
	if err != nil {
		return "", nil, fmt.Errorf("hpke private key: %w", err)
	}
	rcpt, err := hpke.NewRecipient(enc, sk, hpke.HKDFSHA256(), hpke.AES256GCM(), hpkeInfo)
	if err != nil {
		return "", nil, ErrBadOTPBundle
	}
	aad := append(append([]byte{}, enc...), target.PublicKey().Bytes()...)
	pt, err := rcpt.Open(aad, ct)
	if err != nil {
		return "", nil, ErrBadOTPBundle
	}
	var attempt struct {
		Code      string `json:"otp_code"`
		PublicKey string `json:"public_key"`
	}
	if json.Unmarshal(pt, &attempt) != nil || attempt.Code == "" {
		return "", nil, ErrBadOTPBundle
	}
	key, err := ParseClientPublicKey(attempt.PublicKey)
	if err != nil || !ClientHeld(key) {
		return "", nil, ErrBadOTPBundle
	}
	return attempt.Code, key, nil
}

// SealOTPBundle is what a client does (encryptOtpCodeToBundle): code and the compressed
// public key, hex, encrypted to the target public key (uncompressed). Tests use it.
func SealOTPBundle(targetPublic []byte, code, clientKeyHex string) (string, error) {
	pt, _ := json.Marshal(map[string]string{"otp_code": code, "public_key": clientKeyHex})
	enc, ct, err := hpkeSeal(targetPublic, pt)
	if err != nil {
		return "", err
	}
	out, _ := json.Marshal(map[string]string{"encappedPublic": hex.EncodeToString(enc), "ciphertext": hex.EncodeToString(ct)})
	return string(out), nil
}
