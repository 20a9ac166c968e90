package paylimits

import (
	"errors"
	"testing"
	"time"

	"paycore/internal/catalog"
	"paycore/internal/problem"
)

func TestParse(t *testing.T) {
	l, err := Parse([]byte(`{"USD": {"maxTransaction": 100000, "dailyVolume": 500000}, "EUR": {"dailyVolume": 1}}`))
	if err != nil || l["USD"].MaxTransaction != 100000 || l["EUR"].DailyVolume != 1 || l["EUR"].MaxTransaction != 0 {
		t.Fatal(l, err)
	}
	for _, bad := range []string{`[]`, `{"XXX": {}}`, `{"USD": {"dailyVolume": -1}}`, `{"USD": {"maxTransaction": "1"}}`} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestCheckSize(t *testing.T) {
	l := Limits{"USD": {MaxTransaction: 1_000}}
	if l.CheckSize("amount", "USD", 1_000) != nil || l.CheckSize("amount", "EUR", 1_000_000) != nil {
		t.Fatal("refused within the limit or without one")
	}
	var fe *problem.FieldError
	if err := l.CheckSize("amount", "USD", 1_001); !errors.As(err, &fe) || fe.Code != catalog.TransactionSizeLimitExceeded || fe.Field != "amount" || fe.Details["limit"] != int64(1_000) {
		t.Fatalf("above: %v", err)
	}
}

func TestCheckDaily(t *testing.T) {
	now := time.Date(2026, 11, 28, 23, 59, 30, 0, time.UTC)
	l := Limits{"USD": {DailyVolume: 1_000}}
	if !l.Daily("USD") || l.Daily("EUR") {
		t.Fatal("Daily")
	}
	if l.CheckDaily("USD", 400, 600, now) != nil || l.CheckDaily("EUR", 1<<40, 1, now) != nil {
		t.Fatal("refused up to the limit")
	}
	var r *problem.Refusal
	if err := l.CheckDaily("USD", 400, 601, now); !errors.As(err, &r) || r.Code != catalog.DailyVolumeLimitExceeded || r.RetryAfter != 30 ||
		r.Details["remaining"] != int64(600) || r.Details["used"] != int64(400) {
		t.Fatalf("past the limit: %v %+v", err, r)
	}
	if !Day(now).Equal(time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)) {
		t.Fatal(Day(now))
	}
}
