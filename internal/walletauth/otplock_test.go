package walletauth

import (
	"testing"
	"time"
)

var t0 = time.Date(2025, 10, 13, 12, 0, 0, 0, time.UTC)

// failN records n wrong codes, one every gap, starting at start.
func failN(s OTPFailures, start time.Time, n int, gap time.Duration) (OTPFailures, time.Time) {
	now := start
	for range n {
		s = s.Fail(now)
		now = now.Add(gap)
	}
	return s, now.Add(-gap)
}

func TestLockLadder(t *testing.T) {
	var s OTPFailures
	s, last := failN(s, t0, 4, time.Second)
	if d := s.LockedFor(last); d != 0 {
		t.Fatalf("locked after 4 wrong codes: %s", d)
	}
	now := last
	for i, want := range []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour} {
		if i > 0 {
			s, now = failN(s, now, 4, time.Second)
			if s.LockedFor(now) != 0 {
				t.Fatalf("step %d: locked before the 5th wrong code", i)
			}
		}
		now = now.Add(time.Second)
		s = s.Fail(now)
		got := s.LockedFor(now)
		if i < 3 && got != want {
			t.Fatalf("lock %d: %s, want %s", i+1, got, want)
		}
		if got < want {
			t.Fatalf("lock %d: %s shorter than %s", i+1, got, want)
		}
		now = s.LockedUntil
	}
	if s.Failures != 20 {
		t.Fatalf("failures %d", s.Failures)
	}
}

// Spread over days, the ladder stops growing at its last step.
func TestLockLadderCapsAtLastStep(t *testing.T) {
	s := OTPFailures{Failures: 40}
	now := t0
	s, now = failN(s, now, 5, time.Minute)
	if got := s.LockedFor(now); got != time.Hour {
		t.Fatalf("lock %s, want 1h", got)
	}
}

// At most DailyFailureCap wrong codes in any DailyWindow, however they are spaced.
func TestDailyCap(t *testing.T) {
	var s OTPFailures
	now := t0
	count := 0
	for now.Before(t0.Add(DailyWindow)) {
		if d := s.LockedFor(now); d > 0 {
			now = now.Add(d)
			continue
		}
		if now.Before(t0.Add(DailyWindow)) {
			s = s.Fail(now)
			count++
		}
		now = now.Add(10 * time.Second)
	}
	if count != DailyFailureCap {
		t.Fatalf("%d wrong codes accepted in 24 h, want %d", count, DailyFailureCap)
	}
	// The cap lock ends 24 h after the first failure of the window.
	var c OTPFailures
	c, last := failN(c, t0, DailyFailureCap, time.Second)
	if want := t0.Add(DailyWindow); !c.LockedUntil.Equal(want) {
		t.Fatalf("cap lock until %s, want %s (last failure %s)", c.LockedUntil, want, last)
	}
	if len(c.Recent) != DailyFailureCap {
		t.Fatalf("recent %d", len(c.Recent))
	}
}

// Old failures leave the window and do not count towards the cap.
func TestDailyWindowPrunes(t *testing.T) {
	s := OTPFailures{Failures: 3, Recent: []time.Time{t0.Add(-25 * time.Hour), t0.Add(-24 * time.Hour), t0.Add(-time.Hour)}}
	s = s.Fail(t0)
	if len(s.Recent) != 2 || !s.Recent[1].Equal(t0) {
		t.Fatalf("recent %v", s.Recent)
	}
}

func TestLockNeverShortens(t *testing.T) {
	long := t0.Add(10 * time.Hour)
	s := OTPFailures{Failures: 4, LockedUntil: long}
	s = s.Fail(t0)
	if !s.LockedUntil.Equal(long) {
		t.Fatalf("lock shortened to %s", s.LockedUntil)
	}
}
