package sandbox

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"

	"github.com/mr-tron/base58"

	"paycore/internal/rail"
)

// OnChain is the on-chain transaction the sandbox reports for a payment on network, the
// same for the same key (a payment's idempotency key at its rail): a hash shaped as the
// network writes them (0x and 64 hex digits on the EVM networks, 88 base58 characters on
// Solana, 64 hex digits elsewhere), settled nowhere. Nil for "" (no network).
func OnChain(network, key string) *rail.OnChain {
	if network == "" {
		return nil
	}
	sum := sha256.Sum256([]byte("sandbox-chain/" + network + "/" + key))
	hash := hex.EncodeToString(sum[:])
	switch network {
	case "ETHEREUM", "BASE", "POLYGON", "PLASMA":
		hash = "0x" + hash
	case "SOLANA":
		sig := sha512.Sum512([]byte("sandbox-chain/" + network + "/" + key))
		hash = base58.Encode(sig[:])
	}
	return &rail.OnChain{TransactionHash: hash, Network: network}
}
