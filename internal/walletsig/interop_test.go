package walletsig_test

import (
	"errors"
	"strings"
	"testing"

	"paycore/internal/walletsig"
	"paycore/internal/walletsig/jsinterop"
)

// Addresses and signatures made by the libraries wallets use (ethers, TronWeb, tweetnacl,
// bitcoinjs-message in each of its header modes) verify, and only for the exact message.
func TestInteropWithWalletLibraries(t *testing.T) {
	js := jsinterop.Start(t)
	messages := []string{
		msg,
		"Nonce: é 019542f5",
		"Line one\nLine two\r\n\tNonce: 🔑 0195",
		strings.Repeat("paycore ", 40), // 320 bytes: a 3-byte Bitcoin varint length
		"",
	}
	type signer struct{ network, op, mode, scheme string }
	signers := []signer{
		{"ETHEREUM", "evm", "", ""},
		{"BASE", "evm", "", ""},
		{"POLYGON", "evm", "", ""},
		{"PLASMA", "evm", "", ""},
		{"TRON", "tron", "", ""},
		{"SOLANA", "solana", "", ""},
		{"SPARK", "spark", "compressed", ""},
		{"SPARK", "spark", "compressed", "bip137"},
		{"SPARK", "spark", "uncompressed", "bip137"},
		{"SPARK", "spark", "p2wpkh", "bip137"},
		{"SPARK", "spark", "p2wpkh", "electrum"},
		{"SPARK", "spark", "p2sh-p2wpkh", ""},
		{"SPARK", "spark", "electrum", "electrum"},
		{"SPARK", "spark", "electrum", "bip137"},
	}
	// No subtests: the script's client fails the test it was started with.
	for _, s := range signers {
		for _, m := range messages {
			got := js.Sign(s.op, s.mode, m, "")
			if s.op == "spark" && !got.Verified {
				t.Fatalf("bitcoinjs-message does not verify its own %s signature of %q", s.mode, m)
			}
			if err := walletsig.Verify(s.network, got.Address, m, got.Signature, s.scheme); err != nil {
				t.Fatalf("%v: message %q, address %s, signature %s: %v", s, m, got.Address, got.Signature, err)
			}
			if err := walletsig.Verify(s.network, got.Address, m+".", got.Signature, s.scheme); !errors.Is(err, walletsig.ErrMismatch) {
				t.Fatalf("%v: tampered message %q, address %s: %v, want ErrMismatch", s, m+".", got.Address, err)
			}
			other := js.Sign(s.op, s.mode, m, "")
			if err := walletsig.Verify(s.network, other.Address, m, got.Signature, s.scheme); !errors.Is(err, walletsig.ErrMismatch) {
				t.Fatalf("%v: another wallet's address %s: %v, want ErrMismatch", s, other.Address, err)
			}
		}
	}
}
