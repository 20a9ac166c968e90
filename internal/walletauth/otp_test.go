package walletauth

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/platformconfig"
	"paycore/internal/problem"
)

func TestOTPPolicyOf(t *testing.T) {
	def := OTPPolicyOf(platformconfig.Wallet{}, "noreply@service.example")
	if def != (OTPPolicy{Length: 6, TTL: 5 * time.Minute, AppName: "your wallet", From: "noreply@service.example"}) {
		t.Fatalf("defaults %+v", def)
	}
	got := OTPPolicyOf(platformconfig.Wallet{OtpLength: ptr(8), Alphanumeric: ptr(true), ExpirationSeconds: ptr(120),
		AppName: ptr("Acme"), SendFromEmailAddress: ptr("codes@acme.example")}, "noreply@service.example")
	if got != (OTPPolicy{Length: 8, Alphanumeric: true, TTL: 2 * time.Minute, AppName: "Acme", From: "codes@acme.example"}) {
		t.Fatalf("configured %+v", got)
	}
	// Lengths outside the bounds (saved before the minimum was raised, or too long) are clamped.
	for cfg, want := range map[int]int{4: 6, 6: 6, 12: 12, 40: 12} {
		if p := OTPPolicyOf(platformconfig.Wallet{OtpLength: ptr(cfg)}, ""); p.Length != want {
			t.Errorf("otpLength %d: length %d, want %d", cfg, p.Length, want)
		}
	}
}

func TestNewCodeAlphabets(t *testing.T) {
	for _, tc := range []struct {
		p       OTPPolicy
		allowed string
	}{
		{OTPPolicy{Length: 6}, "0123456789"},
		{OTPPolicy{Length: 10, Alphanumeric: true}, "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"},
	} {
		seen := map[rune]bool{}
		for range 200 {
			code, err := tc.p.NewCode()
			if err != nil {
				t.Fatal(err)
			}
			if len(code) != tc.p.Length {
				t.Fatalf("code %q has %d characters, want %d", code, len(code), tc.p.Length)
			}
			for _, c := range code {
				if !strings.ContainsRune(tc.allowed, c) {
					t.Fatalf("code %q has %q outside %q", code, c, tc.allowed)
				}
				seen[c] = true
			}
		}
		if len(seen) < len(tc.allowed)/2 {
			t.Fatalf("codes use only %d of %d characters", len(seen), len(tc.allowed))
		}
	}
}

func TestOTPMail(t *testing.T) {
	subject, body := OTPPolicy{AppName: "Acme", TTL: 10 * time.Minute}.Mail("123456")
	if subject != "Your Acme code" || body != "Your one-time code is 123456. It expires in 10 minutes." {
		t.Fatalf("mail %q / %q", subject, body)
	}
	// Lifetimes that are not whole minutes are worded exactly, never as 0 minutes or
	// rounded up.
	for secs, want := range map[int]string{30: "30 seconds", 60: "1 minute", 90: "1 minute 30 seconds", 300: "5 minutes",
		1: "1 second", 3630: "1 hour 30 seconds", 7800: "2 hours 10 minutes"} {
		_, body := OTPPolicy{AppName: "Acme", TTL: time.Duration(secs) * time.Second}.Mail("123456")
		if want := "Your one-time code is 123456. It expires in " + want + "."; body != want {
			t.Errorf("%d s: %q, want %q", secs, body, want)
		}
	}
}

func TestOTPHashIsPerCredential(t *testing.T) {
	a, b := uuid.New(), uuid.New()
	if string(OTPHash(a, "123456")) == string(OTPHash(b, "123456")) || string(OTPHash(a, "123456")) == string(OTPHash(a, "123457")) {
		t.Fatal("hash does not depend on credential and code")
	}
	if h, again := OTPHash(a, "123456"), OTPHash(a, "123456"); string(h) != string(again) {
		t.Fatal("hash is not deterministic")
	}
}

// locked is a wrong-code record locked until t0 + 90 s.
var locked = OTPFailures{Failures: 5, LockedUntil: t0.Add(90*time.Second + 300*time.Millisecond)}

func TestCheckReissue(t *testing.T) {
	for name, tc := range map[string]struct {
		pending *PendingOTP
		fails   OTPFailures
		want    want
		retry   int
	}{
		"first code":    {nil, OTPFailures{}, want{}, 0},
		"old code":      {&PendingOTP{SentAt: t0.Add(-31 * time.Second)}, OTPFailures{}, want{}, 0},
		"recent code":   {&PendingOTP{SentAt: t0.Add(-10 * time.Second)}, OTPFailures{}, want{code: catalog.RateLimited, msg: "a code was sent moments ago; retry after 20 seconds"}, 20},
		"locked":        {nil, locked, want{code: catalog.RateLimited, msg: "the credential is locked for 2 minutes"}, 91},
		"lock has gone": {nil, OTPFailures{Failures: 5, LockedUntil: t0.Add(-time.Second)}, want{}, 0},
	} {
		err := CheckReissue(tc.pending, tc.fails, t0)
		check(t, name, err, tc.want)
		var rf *problem.Refusal
		if errors.As(err, &rf) && rf.RetryAfter != tc.retry {
			t.Fatalf("%s: Retry-After %d, want %d", name, rf.RetryAfter, tc.retry)
		}
	}
	var rf *problem.Refusal
	if !errors.As(CheckReissue(nil, locked, t0), &rf) || rf.Details["lockedUntil"] != "2025-10-13T12:01:31Z" {
		t.Fatalf("lock details %+v", rf)
	}
}

func TestCheckOTP(t *testing.T) {
	cred := uuid.New()
	good := &PendingOTP{Hash: OTPHash(cred, "246810"), ExpiresAt: t0.Add(time.Minute)}
	for name, tc := range map[string]struct {
		pending *PendingOTP
		fails   OTPFailures
		code    string
		want    want
		wrong   bool
	}{
		"right code":   {good, OTPFailures{}, "246810", want{}, false},
		"wrong code":   {good, OTPFailures{}, "246811", want{code: catalog.Unauthorized, reason: "Invalid OTP code", msg: "the code is wrong"}, true},
		"none pending": {nil, OTPFailures{}, "246810", want{code: catalog.Unauthorized, reason: "Invalid OTP code", msg: "no code is pending for this credential"}, false},
		"spent code": {&PendingOTP{Hash: good.Hash, ExpiresAt: good.ExpiresAt, Attempts: 5}, OTPFailures{}, "246810",
			want{code: catalog.Unauthorized, reason: "Invalid OTP code", msg: "this code had 5 wrong attempts"}, false},
		"expired": {&PendingOTP{Hash: good.Hash, ExpiresAt: t0.Add(-time.Second)}, OTPFailures{}, "246810",
			want{code: catalog.Unauthorized, reason: "Invalid OTP code", msg: "the code has expired"}, false},
		"locked, right code": {good, locked, "246810", want{code: catalog.RateLimited, msg: "too many wrong codes"}, false},
		"another credential's code": {&PendingOTP{Hash: OTPHash(uuid.New(), "246810"), ExpiresAt: good.ExpiresAt}, OTPFailures{}, "246810",
			want{code: catalog.Unauthorized, reason: "Invalid OTP code", msg: "the code is wrong"}, true},
	} {
		v := CheckOTP(cred, tc.pending, tc.fails, tc.code, t0)
		check(t, name, v.Err, tc.want)
		if v.Wrong != tc.wrong {
			t.Fatalf("%s: wrong %v, want %v", name, v.Wrong, tc.wrong)
		}
		if tc.wrong && v.Failures.Failures != tc.fails.Failures+1 {
			t.Fatalf("%s: failures %d, want %d", name, v.Failures.Failures, tc.fails.Failures+1)
		}
	}
	// The wrong code that locks says so, with Retry-After.
	v := CheckOTP(cred, good, OTPFailures{Failures: 4}, "000001", t0)
	var rf *problem.Refusal
	if !errors.As(v.Err, &rf) || rf.RetryAfter != 60 || rf.Message != "the code is wrong; after 5 wrong codes the credential is locked for 1 minute (Retry-After)" {
		t.Fatalf("locking wrong code: %+v", rf)
	}
	if v.Failures.LockedFor(t0) != time.Minute {
		t.Fatalf("lock %s", v.Failures.LockedFor(t0))
	}
}

func TestWaitText(t *testing.T) {
	for secs, want := range map[int]string{1: "1 second", 45: "45 seconds", 60: "1 minute", 61: "2 minutes", 300: "5 minutes",
		3600: "1 hour", 7800: "2 hours 10 minutes", 3660: "1 hour 1 minute"} {
		if got := WaitText(secs); got != want {
			t.Errorf("WaitText(%d) = %q, want %q", secs, got, want)
		}
	}
}
