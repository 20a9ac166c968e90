package agent

import (
	"errors"
	"net/netip"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/kit/secrets"
	"paycore/internal/problem"
)

var shown = regexp.MustCompile(`^AGENT-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$`)

func TestNewDeviceCode(t *testing.T) {
	seen := map[string]bool{}
	counts := map[rune]int{}
	for range 2000 {
		c := NewDeviceCode()
		if !shown.MatchString(c) {
			t.Fatalf("code %q is not AGENT-XXXX-XXXX-XXXX in Crockford base 32", c)
		}
		if seen[c] {
			t.Fatalf("code %q drawn twice", c)
		}
		seen[c] = true
		for _, r := range strings.ReplaceAll(strings.TrimPrefix(c, "AGENT-"), "-", "") {
			counts[r]++
		}
		if back, ok := ParseDeviceCode(c); !ok || back != c {
			t.Fatalf("ParseDeviceCode(%q) = %q, %v", c, back, ok)
		}
	}
	// Every symbol of the alphabet appears (the draw covers all 32), none outside it.
	if len(counts) != 32 {
		t.Fatalf("%d distinct symbols drawn, want 32: %v", len(counts), counts)
	}
	for _, r := range "ILOU" {
		if counts[r] > 0 {
			t.Fatalf("ambiguous symbol %c drawn", r)
		}
	}
	if CodeBits < 60 {
		t.Fatalf("codes carry %d bits", CodeBits)
	}
}

func TestParseDeviceCodeNormalises(t *testing.T) {
	const want = "AGENT-0123-4567-89AB"
	for _, in := range []string{
		want, "agent-0123-4567-89ab", "0123-4567-89AB", "012345 6789ab", "AGENT 0123 4567 89AB", " agent0123456789AB ",
		"O123-4567-89AB", "o1234567-89ab", "AGENT--0123--4567--89AB",
	} {
		if got, ok := ParseDeviceCode(in); !ok || got != want {
			t.Errorf("ParseDeviceCode(%q) = %q, %v; want %s", in, got, ok, want)
		}
	}
	if got, ok := ParseDeviceCode("AGENT-IL11-1111-1111"); !ok || got != "AGENT-1111-1111-1111" {
		t.Errorf("I and L are read as 1: %q, %v", got, ok)
	}
	for _, in := range []string{
		"", "AGENT", "AGENT-0123-4567-89A", "AGENT-0123-4567-89ABC", "AGENT-0123-4567-89AU", "AGENX-0123-4567-89AB",
		"0123-4567-89A!", "0123-4567-89Aé", "AGENT_0123_4567_89AB", strings.Repeat("0", 100), "0123\x004567-89AB",
	} {
		if got, ok := ParseDeviceCode(in); ok {
			t.Errorf("ParseDeviceCode(%q) accepted as %q", in, got)
		}
	}
}

func TestCodeHash(t *testing.T) {
	a, b := CodeHash("AGENT-0123-4567-89AB"), CodeHash("AGENT-0123-4567-89AC")
	if len(a) != 32 || string(a) == string(b) {
		t.Fatal("digests are not distinct SHA-256 digests")
	}
	n, _ := ParseDeviceCode("agent 0123 4567 89ab")
	if string(CodeHash(n)) != string(a) {
		t.Fatal("a code typed differently does not hash the same once parsed")
	}
	// Codes are counted by their first group, under a digest of it.
	if CodeKey("AGENT-0123-4567-89AB") != CodeKey("AGENT-0123-4567-89AC") || CodeKey("AGENT-0123-4567-89AB") == CodeKey("AGENT-0124-4567-89AB") ||
		strings.Contains(CodeKey("AGENT-0123-4567-89AB"), "0123") || CodeID("AGENT-0123-4567-89AB") != "0123" {
		t.Fatal("rate-limit keys of codes must be digests of their first group, not the code")
	}
}

func TestAccessToken(t *testing.T) {
	id := ids.New()
	tok, digest := NewAccessToken(id)
	if !strings.HasPrefix(tok, TokenPrefix) || len(tok) != tokenLen {
		t.Fatalf("token %q", tok)
	}
	gotID, secret, ok := ParseAccessToken(tok)
	if !ok || gotID != id || !TokenMatches(secret, digest) || len(secret) < 43 {
		t.Fatalf("ParseAccessToken(%q) = %v, %q, %v", tok, gotID, secret, ok)
	}
	if string(digest) != string(secrets.Digest(secret)) {
		t.Fatal("the stored digest is not the secret's SHA-256")
	}
	if strings.Contains(string(digest), secret) {
		t.Fatal("the digest holds the secret")
	}
	tok2, _ := NewAccessToken(id)
	if tok2 == tok {
		t.Fatal("two tokens are equal")
	}
	_, secret2, _ := ParseAccessToken(tok2)
	if TokenMatches(secret2, digest) {
		t.Fatal("another token's secret matched")
	}
	for _, bad := range []string{"", tok[:len(tok)-1], tok + "x", strings.Replace(tok, TokenPrefix, "pcagentx", 1),
		TokenPrefix + strings.ToUpper(tok[len(TokenPrefix):len(TokenPrefix)+32]) + tok[len(TokenPrefix)+32:],
		TokenPrefix + strings.Repeat("g", 32) + tok[len(TokenPrefix)+32:], strings.Replace(tok, "_", "-", 2)} {
		if _, _, ok := ParseAccessToken(bad); ok && bad != tok {
			t.Errorf("ParseAccessToken(%q) accepted", bad)
		}
	}
}

func code(err error) catalog.Code { return problem.CodeOf(err) }

func TestCheckBearer(t *testing.T) {
	tok, _ := NewAccessToken(uuid.New())
	_, wrong, _ := ParseAccessToken(tok)
	secret := "s"
	digest := secrets.Digest(secret)
	for _, c := range []struct {
		name   string
		s      BearerState
		secret string
		want   catalog.Code
	}{
		{"live", BearerState{Found: true, Digest: digest}, secret, ""},
		{"unknown or deleted", BearerState{}, secret, catalog.Unauthorized},
		{"wrong secret", BearerState{Found: true, Digest: digest}, wrong, catalog.Unauthorized},
		{"wrong secret of a paused agent", BearerState{Found: true, Digest: digest, Paused: true}, wrong, catalog.Unauthorized},
		{"paused", BearerState{Found: true, Digest: digest, Paused: true}, secret, catalog.Forbidden},
		{"customer deleted", BearerState{Found: true, Digest: digest, CustomerGone: true}, secret, catalog.Forbidden},
	} {
		if got := code(CheckBearer(c.s, c.secret)); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	if err := CheckBearer(BearerState{Found: true, Digest: digest, Paused: true}, secret); !strings.Contains(err.Error(), "paused") {
		t.Errorf("the paused refusal does not say so: %v", err)
	}
}

func TestCheckName(t *testing.T) {
	if CheckName("name", "Budget bot") != nil || CheckName("name", strings.Repeat("é", 255)) != nil {
		t.Fatal("a good name refused")
	}
	for _, n := range []string{"", strings.Repeat("a", 256)} {
		var fe *problem.FieldError
		if err := CheckName("name", n); !errors.As(err, &fe) || fe.Field != "name" {
			t.Errorf("CheckName(%d chars) = %v", len(n), err)
		}
	}
}

func TestCheckRegenerate(t *testing.T) {
	if CheckRegenerate(false) != nil {
		t.Fatal("a code refused for an agent not yet connected")
	}
	if got := code(CheckRegenerate(true)); got != catalog.AgentConnected {
		t.Fatalf("a connected agent: %q", got)
	}
}

func TestCheckRedeem(t *testing.T) {
	now := time.Date(2025, 10, 13, 12, 0, 0, 0, time.UTC)
	live := CodeState{Found: true, ExpiresAt: now.Add(time.Minute)}
	for _, c := range []struct {
		name string
		s    CodeState
		want catalog.Code
	}{
		{"live", live, ""},
		{"unknown", CodeState{}, catalog.DeviceCodeNotFound},
		{"redeemed", CodeState{Found: true, Redeemed: true, ExpiresAt: now.Add(time.Minute)}, catalog.DeviceCodeRedeemed},
		{"redeemed and expired", CodeState{Found: true, Redeemed: true, ExpiresAt: now.Add(-time.Minute)}, catalog.DeviceCodeRedeemed},
		{"agent connected otherwise", CodeState{Found: true, AgentConnected: true, ExpiresAt: now.Add(time.Minute)}, catalog.DeviceCodeRedeemed},
		{"replaced", CodeState{Found: true, Replaced: true, ExpiresAt: now.Add(time.Minute)}, catalog.DeviceCodeExpired},
		{"expired", CodeState{Found: true, ExpiresAt: now.Add(-time.Nanosecond)}, catalog.DeviceCodeExpired},
		{"expiring this instant", CodeState{Found: true, ExpiresAt: now}, catalog.DeviceCodeExpired},
	} {
		if got := code(CheckRedeem(c.s, now)); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestLimitCheck(t *testing.T) {
	now := time.Date(2025, 10, 13, 12, 0, 0, 0, time.UTC)
	l := Limit{Attempts: 3, Window: 15 * time.Minute}
	for n := 1; n <= 3; n++ {
		if err := l.Check(Counted{Attempts: n, WindowEnds: now.Add(time.Minute)}, now, "from this address"); err != nil {
			t.Fatalf("attempt %d refused: %v", n, err)
		}
	}
	err := l.Check(Counted{Attempts: 4, WindowEnds: now.Add(90*time.Second + time.Millisecond)}, now, "from this address")
	var r *problem.Refusal
	if !errors.As(err, &r) || r.Code != catalog.RateLimited || r.RetryAfter != 91 || !strings.Contains(r.Message, "from this address") {
		t.Fatalf("over the limit: %+v", err)
	}
	err = l.Check(Counted{Attempts: 9, WindowEnds: now.Add(-time.Second)}, now, "of this code")
	if !errors.As(err, &r) || r.RetryAfter != 1 {
		t.Fatalf("a window ending now still asks for at least a second: %+v", err)
	}
	d := DefaultRedeemLimits()
	if d.PerAddress.Attempts != 10 || d.PerCode.Attempts != 5 || d.PerAddress.Window != 15*time.Minute {
		t.Fatalf("defaults %+v", d)
	}
}

func TestAddressKey(t *testing.T) {
	a := AddressKey(netip.MustParseAddr("2001:db8::1"))
	b := AddressKey(netip.MustParseAddr("2001:db8::ffff:1"))
	c := AddressKey(netip.MustParseAddr("2001:db8:0:1::1"))
	if a != b || a == c {
		t.Fatalf("IPv6 keys by /64: %s %s %s", a, b, c)
	}
	if AddressKey(netip.MustParseAddr("192.0.2.1")) == AddressKey(netip.MustParseAddr("192.0.2.2")) {
		t.Fatal("two IPv4 addresses share a key")
	}
}

func FuzzParseDeviceCode(f *testing.F) {
	for _, s := range []string{"AGENT-0123-4567-89AB", "agent 0123 4567 89ab", "O1IL-0000-ZZZZ", "", "AGENT", "é", "AGENT-0123-4567-89AU"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		code, ok := ParseDeviceCode(s)
		if !ok {
			return
		}
		if !shown.MatchString(code) {
			t.Fatalf("ParseDeviceCode(%q) = %q, not in the shown form", s, code)
		}
		if again, ok := ParseDeviceCode(code); !ok || again != code {
			t.Fatalf("the shown form %q does not parse to itself: %q %v", code, again, ok)
		}
	})
}

func FuzzParseAccessToken(f *testing.F) {
	tok, _ := NewAccessToken(uuid.MustParse("01a20647-2e4e-7204-a744-65e759be241e"))
	f.Add(tok)
	f.Add("pcagent_")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		id, secret, ok := ParseAccessToken(s)
		if !ok {
			return
		}
		if rebuilt := TokenPrefix + strings.ReplaceAll(id.String(), "-", "") + "_" + secret; rebuilt != s {
			t.Fatalf("ParseAccessToken(%q) accepted what it does not rebuild: %q", s, rebuilt)
		}
	})
}

// An agent is created only for a live customer the platform has.
func TestCheckCustomer(t *testing.T) {
	id := uuid.MustParse("0190a000-0000-7000-8000-000000000004")
	for _, tt := range []struct {
		name           string
		found, deleted bool
		code           catalog.Code
	}{
		{"live customer", true, false, ""},
		{"deleted customer", true, true, catalog.CustomerDeleted},
		{"unknown customer", false, false, catalog.UserNotFound},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckCustomer(tt.found, tt.deleted, id)
			if tt.code == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			w, ok := problem.ToWire(err)
			if !ok || w.Code != tt.code {
				t.Fatalf("got %v, want %s", err, tt.code)
			}
		})
	}
}
