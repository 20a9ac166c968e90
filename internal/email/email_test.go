package email

import (
	"strings"
	"testing"
)

func TestPlain(t *testing.T) {
	for _, s := range []string{"ana@example.com", "a.b+c@sub.example.org"} {
		if !Plain(s) {
			t.Errorf("%q refused", s)
		}
	}
	long := strings.Repeat("a", 250) + "@x.com"
	for _, s := range []string{"", "ana", "Ana <ana@example.com>", "ana@example.com (work)", " ana@example.com", long} {
		if Plain(s) {
			t.Errorf("%q accepted", s)
		}
	}
}
