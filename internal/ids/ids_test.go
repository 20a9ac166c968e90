package ids

import (
	"testing"
)

func TestRoundTrip(t *testing.T) {
	id := New()
	s := Format(Token, id)
	got, err := Parse(Token, s)
	if err != nil || got != id {
		t.Fatalf("Parse(%q) = %v, %v", s, got, err)
	}
}

func TestParseRejects(t *testing.T) {
	id := New()
	for _, s := range []string{
		"", "Token:", Format(Customer, id), id.String(), "Token:not-a-uuid",
		"Token:" + id.String() + "x", "token:" + id.String(), "Token:{" + id.String()[:34] + "}",
	} {
		if _, err := Parse(Token, s); err == nil {
			t.Errorf("Parse(%q) accepted", s)
		}
	}
}

func TestNewIsTimeOrdered(t *testing.T) {
	prev := New()
	for range 1000 {
		next := New()
		if next.String() <= prev.String() {
			t.Fatalf("ids not increasing: %s then %s", prev, next)
		}
		prev = next
	}
}

func FuzzParse(f *testing.F) {
	f.Add("Token:0190a000-0000-7000-8000-000000000001")
	f.Add("Token:")
	f.Fuzz(func(t *testing.T, s string) {
		id, err := Parse(Token, s)
		if err == nil && Format(Token, id) != s && Format(Token, id) != "Token:"+s[6:] {
			t.Fatalf("accepted %q but formats as %q", s, Format(Token, id))
		}
	})
}
