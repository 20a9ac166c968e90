// Package email holds the one rule for e-mail addresses the service accepts.
package email

import "net/mail"

// MaxLength is the longest address accepted, in bytes.
const MaxLength = 255

// Plain reports whether s is a plain address (ana@example.com): no display name, no
// comments or angle brackets, at most MaxLength bytes.
func Plain(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && len(s) <= MaxLength
}
