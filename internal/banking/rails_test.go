package banking

import (
	"errors"
	"testing"
	"time"

	"paycore/internal/problem"
)

// Every payment rail has a settlement timeline; the requested rail must be one the account
// offers, the first offered one is chosen otherwise, and an account without rails has none.
func TestChooseRail(t *testing.T) {
	for _, r := range PaymentRails {
		if _, ok := settlement[r]; !ok {
			t.Errorf("%s has no settlement timeline", r)
		}
	}
	offered := []string{"ACH", "WIRE", "RTP"}
	sent := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		requested string
		offered   []string
		want      RailChoice
		at        *time.Time
		bad       bool
	}{
		{"", offered, RailChoice{"ACH", RailAuto, 24 * time.Hour}, ptr(sent.Add(24 * time.Hour)), false},
		{"WIRE", offered, RailChoice{"WIRE", RailManual, 4 * time.Hour}, ptr(sent.Add(4 * time.Hour)), false},
		{"RTP", offered, RailChoice{"RTP", RailManual, 0}, nil, false},
		{"SEPA", offered, RailChoice{}, nil, true},
		{"", nil, RailChoice{}, nil, false},
		{"ACH", nil, RailChoice{}, nil, true},
	} {
		got, err := ChooseRail(tc.requested, tc.offered)
		var fe *problem.FieldError
		if (err != nil) != tc.bad || got != tc.want || (err != nil && (!errors.As(err, &fe) || fe.Field != RailField)) {
			t.Errorf("%q of %v: %+v %v", tc.requested, tc.offered, got, err)
		}
		if at := got.ExpectedAt(sent); (at == nil) != (tc.at == nil) || (at != nil && !at.Equal(*tc.at)) {
			t.Errorf("%q of %v: expected at %v, want %v", tc.requested, tc.offered, at, tc.at)
		}
	}
}

func ptr[T any](v T) *T { return &v }
