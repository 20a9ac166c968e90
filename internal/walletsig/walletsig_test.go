package walletsig_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/btcutil/bech32"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
	"github.com/mr-tron/base58"
	"golang.org/x/crypto/sha3"

	"paycore/internal/walletsig"
)

// The signing side is written here from the specifications, apart from the package, so
// that a shared mistake does not pass unnoticed; interop_test.go checks both against the
// wallets' own libraries.

const msg = "I verify that I control this wallet. Nonce: 019542f5-b3e7-1d02"

func keccak(parts ...[]byte) []byte {
	h := sha3.NewLegacyKeccak256()
	for _, p := range parts {
		h.Write(p)
	}
	return h.Sum(nil)
}

func newKey(t testing.TB) *secp256k1.PrivateKey {
	t.Helper()
	k, err := secp256k1.GeneratePrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// ethSign signs the EIP-191 / TIP-191 hash of message and returns r||s||v (v 27/28).
func ethSign(k *secp256k1.PrivateKey, chain, message string) []byte {
	hash := keccak([]byte("\x19"+chain+" Signed Message:\n"), fmt.Appendf(nil, "%d", len(message)), []byte(message))
	c := ecdsa.SignCompact(k, hash, false) // header 27 + recovery id, r, s
	return append(c[1:], c[0])
}

func ethAccount(pub *secp256k1.PublicKey) []byte {
	return keccak(pub.SerializeUncompressed()[1:])[12:]
}

func ethAddress(pub *secp256k1.PublicKey) string {
	return "0x" + hex.EncodeToString(ethAccount(pub))
}

func tronAddress(pub *secp256k1.PublicKey) string {
	payload := append([]byte{0x41}, ethAccount(pub)...)
	a := sha256.Sum256(payload)
	b := sha256.Sum256(a[:])
	return base58.Encode(append(payload, b[:4]...))
}

// sparkAddress is bech32m(hrp, protobuf {1: key} followed by extra raw protobuf bytes).
func sparkAddress(t testing.TB, hrp string, key []byte, extra ...byte) string {
	t.Helper()
	payload := append(append([]byte{0x0a, byte(len(key))}, key...), extra...)
	words, err := bech32.ConvertBits(payload, 8, 5, true)
	if err != nil {
		t.Fatal(err)
	}
	a, err := bech32.EncodeM(hrp, words)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// bitcoinSign is a compact Bitcoin signed-message signature whose header is base (27, 31,
// 35 or 39) plus the recovery id.
func bitcoinSign(k *secp256k1.PrivateKey, message string, base byte) []byte {
	n := len(message)
	var vi []byte
	switch {
	case n < 0xfd:
		vi = []byte{byte(n)}
	case n <= 0xffff:
		vi = []byte{0xfd, byte(n), byte(n >> 8)}
	default:
		vi = []byte{0xfe, byte(n), byte(n >> 8), byte(n >> 16), byte(n >> 24)}
	}
	data := append(append([]byte("\x18Bitcoin Signed Message:\n"), vi...), message...)
	h1 := sha256.Sum256(data)
	h2 := sha256.Sum256(h1[:])
	c := ecdsa.SignCompact(k, h2[:], false)
	c[0] = base + (c[0] - 27)
	return c
}

type vector struct {
	network, address, signature, scheme string
}

// valid returns, for each network, an address and its signature over message made in Go.
func valid(t testing.TB, message string) map[string]vector {
	t.Helper()
	k := newKey(t)
	evm := "0x" + hex.EncodeToString(ethSign(k, "Ethereum", message))
	sp := base64.StdEncoding.EncodeToString(bitcoinSign(k, message, 31))
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	return map[string]vector{
		"ETHEREUM": {"ETHEREUM", ethAddress(k.PubKey()), evm, ""},
		"BASE":     {"BASE", ethAddress(k.PubKey()), evm, ""},
		"POLYGON":  {"POLYGON", ethAddress(k.PubKey()), evm, ""},
		"PLASMA":   {"PLASMA", ethAddress(k.PubKey()), evm, ""},
		"TRON":     {"TRON", tronAddress(k.PubKey()), "0x" + hex.EncodeToString(ethSign(k, "TRON", message)), ""},
		"SOLANA":   {"SOLANA", base58.Encode(pub), base58.Encode(ed25519.Sign(priv, []byte(message))), ""},
		"SPARK":    {"SPARK", sparkAddress(t, "spark", k.PubKey().SerializeCompressed()), sp, ""},
	}
}

func check(t *testing.T, err, want error) {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Fatalf("Verify: %v, want nil", err)
		}
		return
	}
	if !errors.Is(err, want) {
		t.Fatalf("Verify: %v, want %v", err, want)
	}
}

func TestNetworks(t *testing.T) {
	got := walletsig.Networks()
	want := []string{"BASE", "ETHEREUM", "PLASMA", "POLYGON", "SOLANA", "SPARK", "TRON"}
	if !slices.Equal(got, want) || !slices.IsSorted(got) {
		t.Fatalf("Networks() = %v, want %v", got, want)
	}
	got[0] = "changed"
	if walletsig.Networks()[0] != "BASE" {
		t.Fatal("Networks shares its slice with callers")
	}
	for _, n := range want {
		if err := walletsig.Verify(n, "", msg, "", ""); errors.Is(err, walletsig.ErrUnsupported) || !errors.Is(err, walletsig.ErrMalformed) {
			t.Fatalf("Verify(%s) with empty inputs: %v, want ErrMalformed", n, err)
		}
	}
}

func TestVerify(t *testing.T) {
	good := valid(t, msg)
	other := valid(t, msg) // another key
	otherMsg := valid(t, "another message")
	// an address of another chain, one Verify cannot decode for network
	foreign := map[string]string{"ETHEREUM": "TRON", "BASE": "SOLANA", "POLYGON": "SPARK", "PLASMA": "TRON", "TRON": "SOLANA", "SOLANA": "TRON", "SPARK": "ETHEREUM"}
	for _, network := range walletsig.Networks() {
		v := good[network]
		t.Run(network, func(t *testing.T) {
			sig, addr := v.signature, v.address
			cases := []struct {
				name               string
				address, signature string
				message, scheme    string
				want               error
				skipSpark          bool
			}{
				{name: "valid", address: addr, signature: sig, message: msg},
				{name: "other message", address: addr, signature: sig, message: msg + "!", want: walletsig.ErrMismatch},
				{name: "signature of another message", address: addr, signature: otherMsg[network].signature, message: msg, want: walletsig.ErrMismatch},
				{name: "another key's address", address: other[network].address, signature: sig, message: msg, want: walletsig.ErrMismatch},
				{name: "another key's signature", address: addr, signature: other[network].signature, message: msg, want: walletsig.ErrMismatch},
				{name: "truncated", address: addr, signature: sig[:len(sig)-4], message: msg, want: walletsig.ErrMalformed},
				{name: "extended", address: addr, signature: sig + sig[len(sig)-4:], message: msg, want: walletsig.ErrMalformed},
				{name: "not the encoding", address: addr, signature: strings.Repeat("*", len(sig)), message: msg, want: walletsig.ErrMalformed},
				{name: "empty signature", address: addr, signature: "", message: msg, want: walletsig.ErrMalformed},
				{name: "huge signature", address: addr, signature: strings.Repeat(sig, 1000), message: msg, want: walletsig.ErrMalformed},
				{name: "empty address", address: "", signature: sig, message: msg, want: walletsig.ErrMalformed},
				{name: "huge address", address: strings.Repeat(addr, 1000), signature: sig, message: msg, want: walletsig.ErrMalformed},
				{name: "address of another chain", address: good[foreign[network]].address, signature: sig, message: msg, want: walletsig.ErrMalformed},
				{name: "huge message", address: addr, signature: sig, message: strings.Repeat("x", 1<<20), want: walletsig.ErrMalformed},
				{name: "scheme is ignored", address: addr, signature: sig, message: msg, scheme: "whatever", skipSpark: true},
			}
			for _, c := range cases {
				if c.skipSpark && network == "SPARK" {
					continue
				}
				t.Run(c.name, func(t *testing.T) {
					check(t, walletsig.Verify(network, c.address, c.message, c.signature, c.scheme), c.want)
				})
			}
		})
	}
	const utf = "Nonce: é 019542f5" // lengths are of UTF-8 bytes, not characters
	for n, v := range valid(t, utf) {
		if err := walletsig.Verify(n, v.address, utf, v.signature, ""); err != nil {
			t.Fatalf("%s, non-ASCII message: %v", n, err)
		}
	}
	for _, n := range []string{"", "ethereum", "BITCOIN", "SPARKS", "ETHEREUM ", strings.Repeat("X", 1<<16)} {
		v := good["ETHEREUM"]
		check(t, walletsig.Verify(n, v.address, msg, v.signature, ""), walletsig.ErrUnsupported)
	}
}

func TestVerifyEVM(t *testing.T) {
	k := newKey(t)
	addr := ethAddress(k.PubKey())
	raw := ethSign(k, "Ethereum", msg)
	hexSig := hex.EncodeToString(raw)
	with := func(f func(b []byte)) string {
		b := slices.Clone(raw)
		f(b)
		return "0x" + hex.EncodeToString(b)
	}
	n, _ := hex.DecodeString("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141") // group order
	// high-S twin of the signature: s' = N - s, with the other parity.
	var s secp256k1.ModNScalar
	s.SetByteSlice(raw[32:64])
	s.Negate()
	sb := s.Bytes()
	highS := with(func(b []byte) { copy(b[32:64], sb[:]); b[64] = 55 - b[64] })
	cases := []struct {
		name, address, signature string
		want                     error
	}{
		{"0x and lowercase", addr, "0x" + hexSig, nil},
		{"no 0x", addr, hexSig, nil},
		{"uppercase hex and address", "0x" + strings.ToUpper(addr[2:]), "0x" + strings.ToUpper(hexSig), nil},
		{"address without 0x", addr[2:], hexSig, nil},
		{"v 0/1", addr, with(func(b []byte) { b[64] -= 27 }), nil},
		{"high S is accepted as recovery does", addr, highS, nil},
		{"v flipped", addr, with(func(b []byte) { b[64] = 55 - b[64] }), walletsig.ErrMismatch},
		{"v 29", addr, with(func(b []byte) { b[64] = 29 }), walletsig.ErrMalformed},
		{"v 2", addr, with(func(b []byte) { b[64] = 2 }), walletsig.ErrMalformed},
		{"r zero", addr, with(func(b []byte) { clear(b[:32]) }), walletsig.ErrMalformed},
		{"s zero", addr, with(func(b []byte) { clear(b[32:64]) }), walletsig.ErrMalformed},
		{"s = N", addr, with(func(b []byte) { copy(b[32:64], n) }), walletsig.ErrMalformed},
		{"r = N", addr, with(func(b []byte) { copy(b[:32], n) }), walletsig.ErrMalformed},
		{"r not an x coordinate", addr, with(func(b []byte) { clear(b[:32]); b[31] = 5 }), walletsig.ErrMismatch},
		{"odd hex length", addr, hexSig + "0", walletsig.ErrMalformed},
		{"0x only", addr, "0x", walletsig.ErrMalformed},
		{"short address", addr[:40], hexSig, walletsig.ErrMalformed},
		{"address not hex", "0x" + strings.Repeat("g", 40), hexSig, walletsig.ErrMalformed},
		{"TRON signature", addr, "0x" + hex.EncodeToString(ethSign(k, "TRON", msg)), walletsig.ErrMismatch},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			check(t, walletsig.Verify("POLYGON", c.address, msg, c.signature, ""), c.want)
		})
	}
}

func TestVerifyTron(t *testing.T) {
	k := newKey(t)
	addr := tronAddress(k.PubKey())
	if !strings.HasPrefix(addr, "T") {
		t.Fatalf("TRON address %s does not start with T", addr)
	}
	sig := ethSign(k, "TRON", msg)
	raw, _ := base58.Decode(addr)
	badSum := slices.Clone(raw)
	badSum[24] ^= 1
	eth := slices.Clone(raw)
	eth[0] = 0x00
	cases := []struct {
		name, address, signature string
		want                     error
	}{
		{"v 27/28", addr, hex.EncodeToString(sig), nil},
		{"v 0/1", addr, hex.EncodeToString(append(sig[:64:64], sig[64]-27)), nil},
		{"Ethereum signature", addr, hex.EncodeToString(ethSign(k, "Ethereum", msg)), walletsig.ErrMismatch},
		{"bad checksum", base58.Encode(badSum), hex.EncodeToString(sig), walletsig.ErrMalformed},
		{"wrong version byte", base58.Encode(eth), hex.EncodeToString(sig), walletsig.ErrMalformed},
		{"hex address", "41" + hex.EncodeToString(ethAccount(k.PubKey())), hex.EncodeToString(sig), walletsig.ErrMalformed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			check(t, walletsig.Verify("TRON", c.address, msg, c.signature, ""), c.want)
		})
	}
}

func TestVerifySolana(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	sig := ed25519.Sign(priv, []byte(msg))
	cases := []struct {
		name, address, signature string
		want                     error
	}{
		{"valid", base58.Encode(pub), base58.Encode(sig), nil},
		{"flipped bit", base58.Encode(pub), base58.Encode(append(sig[:63:63], sig[63]^1)), walletsig.ErrMismatch},
		{"hex signature", base58.Encode(pub), hex.EncodeToString(sig), walletsig.ErrMalformed},
		{"base64 signature", base58.Encode(pub), base64.StdEncoding.EncodeToString(sig), walletsig.ErrMalformed},
		{"31-byte address", base58.Encode(pub[:31]), base58.Encode(sig), walletsig.ErrMalformed},
		{"zero key", base58.Encode(make([]byte, 32)), base58.Encode(sig), walletsig.ErrMismatch},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			check(t, walletsig.Verify("SOLANA", c.address, msg, c.signature, ""), c.want)
		})
	}
}

func TestVerifySpark(t *testing.T) {
	k := newKey(t)
	key := k.PubKey().SerializeCompressed()
	addr := sparkAddress(t, "spark", key)
	b64 := base64.StdEncoding.EncodeToString
	sig := bitcoinSign(k, msg, 31)
	long := strings.Repeat("é nonce ", 40) // over 252 bytes: a 3-byte varint length
	bech32Words, _ := bech32.ConvertBits(append([]byte{0x0a, 33}, key...), 8, 5, true)
	bech32Addr, _ := bech32.Encode("spark", bech32Words)
	notOnCurve := slices.Clone(key)
	notOnCurve[0] = 0x04
	cases := []struct {
		name, address, message, signature, scheme string
		want                                      error
	}{
		{"compressed P2PKH header", addr, msg, b64(sig), "", nil},
		{"bip137 named", addr, msg, b64(sig), "bip137", nil},
		{"electrum", addr, msg, b64(sig), "electrum", nil},
		{"uncompressed header", addr, msg, b64(bitcoinSign(k, msg, 27)), "", nil},
		{"P2SH-P2WPKH header", addr, msg, b64(bitcoinSign(k, msg, 35)), "", nil},
		{"P2WPKH header", addr, msg, b64(bitcoinSign(k, msg, 39)), "", nil},
		{"P2WPKH header, electrum", addr, msg, b64(bitcoinSign(k, msg, 39)), "electrum", nil},
		{"long message", addr, long, b64(bitcoinSign(k, long, 31)), "", nil},
		{"252-byte message", addr, long[:252], b64(bitcoinSign(k, long[:252], 31)), "", nil},
		{"unpadded base64", addr, msg, base64.RawStdEncoding.EncodeToString(sig), "", nil},
		{"uppercase address", strings.ToUpper(addr), msg, b64(sig), "", nil},
		{"legacy prefix sp", sparkAddress(t, "sp", key), msg, b64(sig), "", nil},
		{"regtest prefix", sparkAddress(t, "sparkrt", key), msg, b64(sig), "", nil},
		{"legacy regtest prefix", sparkAddress(t, "sprt", key), msg, b64(sig), "", nil},
		{"invoice fields are skipped", sparkAddress(t, "spark", key, 0x1a, 2, 0xaa, 0xbb), msg, b64(sig), "", nil},
		{"unknown scheme", addr, msg, b64(sig), "bip322", walletsig.ErrUnsupported},
		{"header 26", addr, msg, b64(append([]byte{26}, sig[1:]...)), "", walletsig.ErrMalformed},
		{"header 43", addr, msg, b64(append([]byte{43}, sig[1:]...)), "", walletsig.ErrMalformed},
		{"recovery id flipped", addr, msg, b64(append([]byte{63 - sig[0]}, sig[1:]...)), "", walletsig.ErrMismatch},
		{"64 bytes", addr, msg, b64(sig[1:]), "", walletsig.ErrMalformed},
		{"hex signature", addr, msg, hex.EncodeToString(sig), "", walletsig.ErrMalformed},
		{"bitcoin address", "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4", msg, b64(sig), "", walletsig.ErrMalformed},
		{"unknown prefix", sparkAddress(t, "sparkx", key), msg, b64(sig), "", walletsig.ErrMalformed},
		{"bech32 instead of bech32m", bech32Addr, msg, b64(sig), "", walletsig.ErrMalformed},
		{"bad checksum", addr[:len(addr)-1] + map[bool]string{true: "q", false: "p"}[addr[len(addr)-1] != 'q'], msg, b64(sig), "", walletsig.ErrMalformed},
		{"mixed case address", "Spark" + addr[5:], msg, b64(sig), "", walletsig.ErrMalformed},
		{"32-byte key", sparkAddress(t, "spark", key[1:]), msg, b64(sig), "", walletsig.ErrMalformed},
		{"key not on the curve", sparkAddress(t, "spark", notOnCurve), msg, b64(sig), "", walletsig.ErrMalformed},
		{"key field twice", sparkAddress(t, "spark", key, append([]byte{0x0a, 33}, key...)...), msg, b64(sig), "", walletsig.ErrMalformed},
		{"truncated protobuf", sparkAddress(t, "spark", key, 0x1a, 5, 1), msg, b64(sig), "", walletsig.ErrMalformed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			check(t, walletsig.Verify("SPARK", c.address, c.message, c.signature, c.scheme), c.want)
		})
	}
}

// Signatures made once by the wallets' libraries (testdata/interop/interop.mjs) with fixed
// keys, so the formats stay checked where Node is not installed; the Spark address is the
// one @buildonspark/spark-sdk 0.8.8's encodeSparkAddress gives for the key (MAINNET).
func TestLibraryVectors(t *testing.T) {
	vectors := []vector{
		// ethers 6.17.0 Wallet.signMessage, key 4c0883a6…362318
		{"ETHEREUM", "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23", "0x5186cc2d88755bed63a521f4e2f01f18231d427c997ae69c8de6ecd7f50e29dd0448d4d56b5e04f44c53b754ce3e6e875a6c687f864f9b2b221baeb2de568d421b", ""},
		// TronWeb 6.5.1 trx.signMessageV2, same key
		{"TRON", "TE2H9hWjzYdwzDFRJfx9BFhr4MmjH1CHaz", "0xb54b6d7c6934413c5afb12eb3eb6e1d2efa052ed4d44d08d850d08f0da57bf386bb0a9fa79175110a340749a65397a132cbfaecc079c3fe7972923194ebb6e531b", ""},
		// tweetnacl 1.0.3 sign.detached, seed 0707…07
		{"SOLANA", "GmaDrppBC7P5ARKV8g3djiwP89vz1jLK23V2GBjuAEGB", "2E2E8zKRXwgwPAcRMS9NDw667oRoxNpH4QgNHkNv2cDdG9S3pnyytKpeELuHYeaLjwPnohWoj7SVGhkfTU8ACgKK", ""},
		// bitcoinjs-message 2.2.0 sign, key 4c0883a6…362318: compressed, p2wpkh, uncompressed, p2sh(p2wpkh)
		{"SPARK", "spark1pgssyn3msxhecg35etgf6euuucp4a5feydruuexwgp04mnfky29zthnwjhwqcu", "IJiEHMCKyc8CmOWF4f80d3MFvVi41PnaPYfYIgi9iC3WEjxpQdLLgZFhBC5JIPYYVNhBaOY9L2B68n1RL1vtFqE=", ""},
		{"SPARK", "spark1pgssyn3msxhecg35etgf6euuucp4a5feydruuexwgp04mnfky29zthnwjhwqcu", "KJiEHMCKyc8CmOWF4f80d3MFvVi41PnaPYfYIgi9iC3WEjxpQdLLgZFhBC5JIPYYVNhBaOY9L2B68n1RL1vtFqE=", "electrum"},
		{"SPARK", "spark1pgssyn3msxhecg35etgf6euuucp4a5feydruuexwgp04mnfky29zthnwjhwqcu", "HJiEHMCKyc8CmOWF4f80d3MFvVi41PnaPYfYIgi9iC3WEjxpQdLLgZFhBC5JIPYYVNhBaOY9L2B68n1RL1vtFqE=", "bip137"},
		{"SPARK", "sparkrt1pgssyn3msxhecg35etgf6euuucp4a5feydruuexwgp04mnfky29zthnwq3qu5r", "JJiEHMCKyc8CmOWF4f80d3MFvVi41PnaPYfYIgi9iC3WEjxpQdLLgZFhBC5JIPYYVNhBaOY9L2B68n1RL1vtFqE=", ""},
	}
	for _, v := range vectors {
		if err := walletsig.Verify(v.network, v.address, msg, v.signature, v.scheme); err != nil {
			t.Errorf("%s %s: %v", v.network, v.address, err)
		}
		if err := walletsig.Verify(v.network, v.address, msg+" ", v.signature, v.scheme); !errors.Is(err, walletsig.ErrMismatch) {
			t.Errorf("%s %s, tampered message: %v, want ErrMismatch", v.network, v.address, err)
		}
	}
}

func FuzzVerify(f *testing.F) {
	for _, v := range valid(f, msg) {
		f.Add(v.network, v.address, msg, v.signature, v.scheme)
		f.Add(v.network, v.address, "", v.signature[:len(v.signature)/2], "electrum")
	}
	f.Add("SPARK", "sp1", "", "////", "bip137")
	f.Fuzz(func(t *testing.T, network, address, message, signature, scheme string) {
		err := walletsig.Verify(network, address, message, signature, scheme)
		if err != nil && !errors.Is(err, walletsig.ErrMalformed) && !errors.Is(err, walletsig.ErrMismatch) && !errors.Is(err, walletsig.ErrUnsupported) {
			t.Fatalf("Verify: %v wraps none of the sentinel errors", err)
		}
	})
}
