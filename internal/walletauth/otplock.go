// Package walletauth holds the pure rules of embedded-wallet authentication.
package walletauth

import (
	"slices"
	"time"

	"paycore/internal/platformconfig"
)

// One-time code policy of EMAIL_OTP credentials.
const (
	// MinOTPLength is the shortest one-time code the service issues (the platform
	// configuration's bound, platformconfig.MinOTPLength).
	MinOTPLength = platformconfig.MinOTPLength
	// MaxOTPLength is the longest configurable code.
	MaxOTPLength = platformconfig.MaxOTPLength
	// FailuresPerLock wrong codes in a row (across re-issued codes) lock the credential.
	FailuresPerLock = 5
	// DailyFailureCap is the most wrong codes a credential accepts in any DailyWindow;
	// reaching it locks the credential until the oldest of them is DailyWindow old.
	DailyFailureCap = 20
	// DailyWindow is the window of DailyFailureCap.
	DailyWindow = 24 * time.Hour
)

// LockSteps are the lock durations after the 1st, 2nd, 3rd … run of FailuresPerLock wrong
// codes; the last step repeats.
var LockSteps = []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour}

// OTPFailures is the wrong-code record of one credential. It outlives the codes: issuing a
// new code does not reset it, only a correct code does (by discarding it).
type OTPFailures struct {
	// Failures counts wrong codes since the last correct one.
	Failures int
	// Recent holds the times of the wrong codes of the last DailyWindow, oldest first,
	// at most DailyFailureCap of them.
	Recent []time.Time
	// LockedUntil is the end of the current (or last) lock; zero when never locked.
	LockedUntil time.Time
}

// LockedFor is how long the credential stays locked at now; zero when it is not locked.
func (s OTPFailures) LockedFor(now time.Time) time.Duration {
	if d := s.LockedUntil.Sub(now); d > 0 {
		return d
	}
	return 0
}

// Fail records a wrong code at now. Every FailuresPerLock-th wrong code in a row locks
// the credential for the next of LockSteps; the DailyFailureCap-th wrong code within
// DailyWindow locks it until the oldest of them leaves the window. A lock never shortens
// one already in force.
func (s OTPFailures) Fail(now time.Time) OTPFailures {
	s.Failures++
	recent := make([]time.Time, 0, len(s.Recent)+1)
	for _, t := range s.Recent {
		if now.Sub(t) < DailyWindow {
			recent = append(recent, t)
		}
	}
	recent = append(recent, now)
	slices.SortFunc(recent, func(a, b time.Time) int { return a.Compare(b) })
	if n := len(recent); n > DailyFailureCap {
		recent = recent[n-DailyFailureCap:]
	}
	s.Recent = recent
	var until time.Time
	if s.Failures%FailuresPerLock == 0 {
		step := min(s.Failures/FailuresPerLock, len(LockSteps)) - 1
		until = now.Add(LockSteps[step])
	}
	if len(recent) >= DailyFailureCap {
		if end := recent[0].Add(DailyWindow); end.After(until) {
			until = end
		}
	}
	if until.After(s.LockedUntil) {
		s.LockedUntil = until
	}
	return s
}
