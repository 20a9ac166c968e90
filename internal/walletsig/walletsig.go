// Package walletsig verifies that a customer controls a self-custody wallet (an external
// account): the customer signs a server-chosen text message with the wallet's key, and
// Verify checks that signature against the wallet's address, with the message-signing
// convention of the wallet's chain:
//
//   - EVM chains (ETHEREUM, BASE, POLYGON, PLASMA): EIP-191 personal_sign, as ethers'
//     Wallet.signMessage, MetaMask and other wallets produce it; the signature is 65 bytes
//     r||s||v in hex.
//   - TRON: TIP-191, as TronWeb's trx.signMessageV2 and TronLink produce it; the same
//     layout as EVM with the "\x19TRON Signed Message:\n" prefix; the address is base58check.
//   - SOLANA: Ed25519 over the raw UTF-8 message (Phantom's signMessage), base58 signature.
//   - SPARK: Bitcoin message signing (BIP-137 or Electrum headers) with the wallet's
//     identity key, the key a Spark address (bech32m) carries; base64 signature.
//
// The package is pure: it holds no state and makes no calls. Every input is treated as
// untrusted: sizes are bounded and nothing panics.
package walletsig

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/btcsuite/btcd/btcutil/bech32"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
	"github.com/mr-tron/base58"
	"golang.org/x/crypto/sha3"
	"google.golang.org/protobuf/encoding/protowire"
)

// Errors Verify wraps; test them with errors.Is.
var (
	// ErrMalformed: the signature or the address cannot be decoded (bad encoding, wrong
	// length, out-of-range values, input too long), or the message is too long.
	ErrMalformed = errors.New("malformed signature or address")
	// ErrMismatch: the signature and the address are well formed, but the signature is not
	// one of the message by the key behind the address.
	ErrMismatch = errors.New("signature does not match the address")
	// ErrUnsupported: the network (or, for SPARK, the signing scheme) is not one Verify knows.
	ErrUnsupported = errors.New("unsupported network or scheme")
)

// Networks supported by Verify.
const (
	Ethereum = "ETHEREUM"
	Base     = "BASE"
	Polygon  = "POLYGON"
	Plasma   = "PLASMA"
	Tron     = "TRON"
	Solana   = "SOLANA"
	Spark    = "SPARK"
)

// Signing schemes for SPARK signatures.
const (
	// SchemeBIP137 is Bitcoin message signing with the BIP-137 header byte, whose value
	// (27..42) also tells the address type the signer had in mind; the default.
	SchemeBIP137 = "bip137"
	// SchemeElectrum is Bitcoin message signing as Electrum (and bitcoinjs-message's
	// verify with checkSegwitAlways) does it: the header byte only tells the recovery id
	// and whether the key is compressed (27..34), whatever the address type.
	SchemeElectrum = "electrum"
)

// Input bounds. A valid signature or address is far shorter; anything longer is refused
// before any decoding.
const (
	maxSignatureLen = 256
	maxAddressLen   = 256
	maxMessageLen   = 64 << 10
)

// Networks returns the networks Verify supports, sorted.
func Networks() []string {
	return []string{Base, Ethereum, Plasma, Polygon, Solana, Spark, Tron}
}

// Verify reports nil when signature is a valid signature of message by the key behind
// address on network.
//
// network is one of "ETHEREUM", "BASE", "POLYGON", "PLASMA" (EVM), "TRON", "SOLANA",
// "SPARK". scheme matters only for SPARK (Bitcoin message signing): "bip137" (the default
// when "") or "electrum"; both accept every header byte 27..42 (see SchemeBIP137 and
// SchemeElectrum), since only the key, not a Bitcoin address type, is checked. Errors wrap
// ErrMalformed, ErrMismatch or ErrUnsupported.
func Verify(network, address, message, signature, scheme string) error {
	var verify func(address, message, signature, scheme string) error
	switch network {
	case Ethereum, Base, Polygon, Plasma:
		verify = verifyEVM
	case Tron:
		verify = verifyTron
	case Solana:
		verify = verifySolana
	case Spark:
		verify = verifySpark
	default:
		return fmt.Errorf("network %q: %w", truncate(network), ErrUnsupported)
	}
	switch {
	case len(signature) > maxSignatureLen:
		return fmt.Errorf("%s signature of %d characters, over %d: %w", network, len(signature), maxSignatureLen, ErrMalformed)
	case len(address) > maxAddressLen:
		return fmt.Errorf("%s address of %d characters, over %d: %w", network, len(address), maxAddressLen, ErrMalformed)
	case len(message) > maxMessageLen:
		return fmt.Errorf("message of %d bytes, over %d: %w", len(message), maxMessageLen, ErrMalformed)
	}
	if err := verify(address, message, signature, scheme); err != nil {
		return fmt.Errorf("verify %s wallet signature: %w", network, err)
	}
	return nil
}

// truncate bounds an untrusted string quoted in an error.
func truncate(s string) string {
	if len(s) > 32 {
		return s[:32] + "…"
	}
	return s
}

// --- EVM and TRON: EIP-191 / TIP-191 over secp256k1 with recovery ---

const (
	evmPrefix  = "\x19Ethereum Signed Message:\n"
	tronPrefix = "\x19TRON Signed Message:\n"
)

// prefixedKeccak is keccak256(prefix || decimal byte length of message || message).
func prefixedKeccak(prefix, message string) []byte {
	h := sha3.NewLegacyKeccak256()
	h.Write([]byte(prefix))
	h.Write([]byte(strconv.Itoa(len(message))))
	h.Write([]byte(message))
	return h.Sum(nil)
}

// recoverEVM decodes a 65-byte r||s||v hex signature (0x optional; v 27/28 or 0/1) and
// returns the 20-byte account of the key that signed hash.
func recoverEVM(signature string, hash []byte) ([]byte, error) {
	s := strings.TrimPrefix(strings.TrimPrefix(signature, "0x"), "0X")
	if len(s) != 130 {
		return nil, fmt.Errorf("signature of %d hex digits, want 130 (65 bytes): %w", len(s), ErrMalformed)
	}
	sig, err := hex.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("signature is not hex: %w", ErrMalformed)
	}
	v := sig[64]
	if v >= 27 {
		v -= 27
	}
	if v > 1 {
		return nil, fmt.Errorf("signature recovery byte v=%d, want 27, 28, 0 or 1: %w", sig[64], ErrMalformed)
	}
	pub, err := recoverKey(sig[:32], sig[32:64], v, hash)
	if err != nil {
		return nil, err
	}
	return ethAccount(pub), nil
}

// ethAccount is the last 20 bytes of keccak256 of the uncompressed key without its 0x04.
func ethAccount(pub *secp256k1.PublicKey) []byte {
	h := sha3.NewLegacyKeccak256()
	h.Write(pub.SerializeUncompressed()[1:])
	return h.Sum(nil)[12:]
}

// recoverKey recovers the public key from r, s (32 bytes each) and a recovery id 0..3.
// Out-of-range r or s is ErrMalformed; a signature no key made is ErrMismatch.
func recoverKey(r, s []byte, recID byte, hash []byte) (*secp256k1.PublicKey, error) {
	var rs, ss secp256k1.ModNScalar
	if overflow := rs.SetByteSlice(r); overflow || rs.IsZero() {
		return nil, fmt.Errorf("signature r is 0 or not below the group order: %w", ErrMalformed)
	}
	if overflow := ss.SetByteSlice(s); overflow || ss.IsZero() {
		return nil, fmt.Errorf("signature s is 0 or not below the group order: %w", ErrMalformed)
	}
	compact := make([]byte, 0, 65)
	compact = append(compact, 27+4+recID) // decred's header: 27 + 4 (compressed) + recovery id
	compact = append(compact, r...)
	compact = append(compact, s...)
	pub, _, err := ecdsa.RecoverCompact(compact, hash)
	if err != nil {
		return nil, fmt.Errorf("recover the signing key: %v: %w", err, ErrMismatch)
	}
	return pub, nil
}

func verifyEVM(address, message, signature, _ string) error {
	a := strings.TrimPrefix(strings.TrimPrefix(address, "0x"), "0X")
	want, err := hex.DecodeString(a)
	if err != nil || len(want) != 20 {
		return fmt.Errorf("address is not 0x and 40 hex digits: %w", ErrMalformed)
	}
	got, err := recoverEVM(signature, prefixedKeccak(evmPrefix, message))
	if err != nil {
		return err
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("signed by 0x%x, not %s: %w", got, address, ErrMismatch)
	}
	return nil
}

// tronAddressPrefix is the version byte of TRON mainnet addresses (base58 "T...").
const tronAddressPrefix = 0x41

func verifyTron(address, message, signature, _ string) error {
	want, err := decodeTronAddress(address)
	if err != nil {
		return err
	}
	got, err := recoverEVM(signature, prefixedKeccak(tronPrefix, message))
	if err != nil {
		return err
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("signed by another key than %s's: %w", address, ErrMismatch)
	}
	return nil
}

// decodeTronAddress returns the 20-byte account of a base58check TRON address.
func decodeTronAddress(address string) ([]byte, error) {
	raw, err := base58.Decode(address)
	if err != nil || len(raw) != 25 {
		return nil, fmt.Errorf("address is not base58 of 25 bytes: %w", ErrMalformed)
	}
	payload, check := raw[:21], raw[21:]
	sum := sha256.Sum256(payload)
	sum = sha256.Sum256(sum[:])
	if !bytes.Equal(sum[:4], check) {
		return nil, fmt.Errorf("address checksum does not match: %w", ErrMalformed)
	}
	if payload[0] != tronAddressPrefix {
		return nil, fmt.Errorf("address version byte 0x%02x, want 0x41: %w", payload[0], ErrMalformed)
	}
	return payload[1:], nil
}

// --- SOLANA: Ed25519 over the raw message ---

func verifySolana(address, message, signature, _ string) error {
	pub, err := base58.Decode(address)
	if err != nil || len(pub) != ed25519.PublicKeySize {
		return fmt.Errorf("address is not base58 of a 32-byte key: %w", ErrMalformed)
	}
	sig, err := base58.Decode(signature)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return fmt.Errorf("signature is not base58 of 64 bytes: %w", ErrMalformed)
	}
	if !ed25519.Verify(ed25519.PublicKey(pub), []byte(message), sig) {
		return fmt.Errorf("not a signature of the message by %s: %w", address, ErrMismatch)
	}
	return nil
}

// --- SPARK: Bitcoin signed message by the identity key of a Spark address ---

// sparkHRPs are the human-readable parts of Spark addresses, current then legacy, as
// @buildonspark/spark-sdk's encodeSparkAddress / getNetworkFromSparkAddress have them:
// mainnet, testnet, regtest, signet, local.
var sparkHRPs = [...]string{"spark", "sparkt", "sparkrt", "sparks", "sparkl", "sp", "spt", "sprt", "sps", "spl"}

const bitcoinMagic = "\x18Bitcoin Signed Message:\n"

// bitcoinMessageHash is double-SHA256 of the magic and the varint-prefixed message.
func bitcoinMessageHash(message string) []byte {
	buf := make([]byte, 0, len(bitcoinMagic)+9+len(message))
	buf = append(buf, bitcoinMagic...)
	switch n := len(message); {
	case n < 0xfd:
		buf = append(buf, byte(n))
	case n <= 0xffff:
		buf = append(buf, 0xfd)
		buf = binary.LittleEndian.AppendUint16(buf, uint16(n))
	default:
		buf = append(buf, 0xfe)
		buf = binary.LittleEndian.AppendUint32(buf, uint32(n))
	}
	buf = append(buf, message...)
	first := sha256.Sum256(buf)
	second := sha256.Sum256(first[:])
	return second[:]
}

// decodeSparkAddress returns the identity public key a Spark address carries: the address
// is bech32m (no 90-character limit) of a protobuf SparkAddress whose field 1 is the
// 33-byte compressed key; other fields (those of Spark invoices) are skipped.
func decodeSparkAddress(address string) (*secp256k1.PublicKey, error) {
	hrp, words, version, err := bech32.DecodeNoLimitWithVersion(address)
	if err != nil {
		return nil, fmt.Errorf("address is not bech32m: %v: %w", err, ErrMalformed)
	}
	if version != bech32.VersionM {
		return nil, fmt.Errorf("address has a bech32 checksum, want bech32m: %w", ErrMalformed)
	}
	known := false
	for _, p := range sparkHRPs {
		known = known || hrp == p
	}
	if !known {
		return nil, fmt.Errorf("address prefix %q is not a Spark network's: %w", truncate(hrp), ErrMalformed)
	}
	data, err := bech32.ConvertBits(words, 5, 8, false)
	if err != nil {
		return nil, fmt.Errorf("address data: %v: %w", err, ErrMalformed)
	}
	var key []byte
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 {
			return nil, fmt.Errorf("address payload is not protobuf: %w", ErrMalformed)
		}
		data = data[n:]
		if num == 1 {
			if typ != protowire.BytesType || key != nil {
				return nil, fmt.Errorf("address payload has a bad identity key field: %w", ErrMalformed)
			}
			v, m := protowire.ConsumeBytes(data)
			if m < 0 {
				return nil, fmt.Errorf("address payload is not protobuf: %w", ErrMalformed)
			}
			key, data = v, data[m:]
			continue
		}
		m := protowire.ConsumeFieldValue(num, typ, data)
		if m < 0 {
			return nil, fmt.Errorf("address payload is not protobuf: %w", ErrMalformed)
		}
		data = data[m:]
	}
	if len(key) != 33 {
		return nil, fmt.Errorf("address identity key of %d bytes, want 33: %w", len(key), ErrMalformed)
	}
	pub, err := secp256k1.ParsePubKey(key)
	if err != nil {
		return nil, fmt.Errorf("address identity key: %v: %w", err, ErrMalformed)
	}
	return pub, nil
}

// decodeBase64 accepts standard base64, padded or not.
func decodeBase64(s string) ([]byte, error) {
	if strings.HasSuffix(s, "=") {
		return base64.StdEncoding.DecodeString(s)
	}
	return base64.RawStdEncoding.DecodeString(s)
}

func verifySpark(address, message, signature, scheme string) error {
	switch scheme {
	case "", SchemeBIP137, SchemeElectrum:
	default:
		return fmt.Errorf("signing scheme %q, want %q or %q: %w", truncate(scheme), SchemeBIP137, SchemeElectrum, ErrUnsupported)
	}
	want, err := decodeSparkAddress(address)
	if err != nil {
		return err
	}
	sig, err := decodeBase64(signature)
	if err != nil || len(sig) != 65 {
		return fmt.Errorf("signature is not base64 of 65 bytes: %w", ErrMalformed)
	}
	// BIP-137 headers: 27..30 uncompressed P2PKH, 31..34 compressed P2PKH, 35..38
	// P2SH-P2WPKH, 39..42 P2WPKH; Electrum uses 27..34 for every address type. Either
	// way the low two bits of header-27 are the recovery id, and the key is the same.
	header := sig[0]
	if header < 27 || header > 42 {
		return fmt.Errorf("signature header byte %d, want 27..42: %w", header, ErrMalformed)
	}
	got, err := recoverKey(sig[1:33], sig[33:65], (header-27)&3, bitcoinMessageHash(message))
	if err != nil {
		return err
	}
	if !got.IsEqual(want) {
		return fmt.Errorf("signed by another key than %s's identity key: %w", truncate(address), ErrMismatch)
	}
	return nil
}
