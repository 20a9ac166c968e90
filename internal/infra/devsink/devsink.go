// Package devsink keeps what the development sinks (of mail, of text messages) were given:
// the latest messages in memory, readable by the development stack, and the hashed form of
// a recipient their logs use instead of the address.
package devsink

import (
	"crypto/sha256"
	"encoding/hex"
	"sync"
)

// Capacity is how many messages a Box keeps.
const Capacity = 100

// Box keeps the latest Capacity messages, safe for concurrent use.
type Box[M any] struct {
	mu  sync.Mutex
	box []M
}

// Keep adds m, dropping the oldest beyond Capacity.
func (b *Box[M]) Keep(m M) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.box = append(b.box, m)
	if len(b.box) > Capacity {
		b.box = b.box[len(b.box)-Capacity:]
	}
}

// Where returns the kept messages keep accepts (all, for nil), oldest first; never nil.
func (b *Box[M]) Where(keep func(M) bool) []M {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := []M{}
	for _, m := range b.box {
		if keep == nil || keep(m) {
			out = append(out, m)
		}
	}
	return out
}

// Recipient is how logs name an address or number: the first 12 hex digits of its SHA-256,
// enough to match a log line to a known recipient, not to read one.
func Recipient(to string) string {
	sum := sha256.Sum256([]byte(to))
	return "sha256:" + hex.EncodeToString(sum[:6])
}
