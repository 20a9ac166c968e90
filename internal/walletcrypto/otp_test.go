package walletcrypto_test

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"paycore/internal/walletcrypto"
)

// A sealed attempt opens to its code and key with its target only; malformed bundles and
// attempts without a compressed client key are refused with ErrBadOTPBundle.
func TestOTPBundle(t *testing.T) {
	target, err := walletcrypto.NewOTPTarget()
	if err != nil {
		t.Fatal(err)
	}
	_, key, _ := walletcrypto.NewSessionKey()
	sealed, err := walletcrypto.SealOTPBundle(target.PublicKey().Bytes(), "042042", hex.EncodeToString(key))
	if err != nil {
		t.Fatal(err)
	}
	code, got, err := walletcrypto.OpenOTPBundle(target, sealed)
	if err != nil || code != "042042" || !bytes.Equal(got, key) {
		t.Fatalf("opened %q %x %v", code, got, err)
	}
	uncompressed, _ := walletcrypto.Uncompressed(key)
	noCompressed, _ := walletcrypto.SealOTPBundle(target.PublicKey().Bytes(), "042042", hex.EncodeToString(uncompressed))
	for name, b := range map[string]string{
		"not JSON": "hello", "empty": "{}", "short": `{"encappedPublic":"04","ciphertext":"00"}`,
		"tampered":         strings.Replace(sealed, `"ciphertext":"`, `"ciphertext":"00`, 1),
		"huge":             strings.Repeat("a", 5000),
		"uncompressed key": noCompressed,
	} {
		if _, _, err := walletcrypto.OpenOTPBundle(target, b); err != walletcrypto.ErrBadOTPBundle {
			t.Errorf("%s: %v", name, err)
		}
	}
}
