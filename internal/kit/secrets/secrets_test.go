package secrets

import "testing"

func TestNewAndMatch(t *testing.T) {
	s, d := New()
	if len(s) < 43 {
		t.Fatalf("secret too short: %d chars", len(s))
	}
	if !Matches(s, d) {
		t.Fatal("secret does not match its own digest")
	}
	if Matches(s+"x", d) || Matches("", d) {
		t.Fatal("wrong secret matched")
	}
	s2, _ := New()
	if s2 == s {
		t.Fatal("two secrets are equal")
	}
}
