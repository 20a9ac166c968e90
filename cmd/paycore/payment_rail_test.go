package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/ids"
)

// A transfer out travels on the external account's first rail unless the platform names
// another it offers; the transaction says which, how it was chosen and when it is expected
// to settle, and the remittance information and purpose travel with it. A rail the account
// does not offer, and malformed extras, are refused before anything is written.
func TestTransferOutPaymentRail(t *testing.T) {
	t.Parallel()
	s := newStack(t, fast)
	w := fxWorld(t, s)
	w.fund(10_000)
	ext := w.external("001") // a USD account paid over ACH, WIRE, RTP and FEDNOW
	send := func(extra map[string]any, dest map[string]any) (view.Transaction, int, string) {
		t.Helper()
		d := map[string]any{"accountId": ext}
		for k, v := range dest {
			d[k] = v
		}
		body := map[string]any{"source": map[string]any{"accountId": w.account}, "destination": d, "amount": 100}
		for k, v := range extra {
			body[k] = v
		}
		r := w.c.Do("POST", "/transfer-out", body)
		var tx view.Transaction
		if r.Status == 201 {
			r.Decode(t, &tx)
			return tx, r.Status, ""
		}
		return tx, r.Status, string(r.Body)
	}
	near := func(at *time.Time, want time.Time) bool {
		return at != nil && at.Sub(want).Abs() < time.Minute
	}

	auto, status, body := send(nil, nil)
	if status != 201 || db.Deref(auto.PaymentRail) != "ACH" || db.Deref(auto.RailSelectionMode) != "AUTO" || auto.SettlementTimelineSeconds == nil ||
		*auto.SettlementTimelineSeconds != 86_400 || !near(auto.ExpectedSettlementAt, auto.CreatedAt.Add(24*time.Hour)) {
		t.Fatalf("default rail: %d %s %+v", status, body, auto)
	}
	wire, status, body := send(map[string]any{"remittanceInformation": "INV-2026-0042", "purposeOfPayment": "SALARY_PAYMENT"}, map[string]any{"paymentRail": "WIRE"})
	if status != 201 || db.Deref(wire.PaymentRail) != "WIRE" || db.Deref(wire.RailSelectionMode) != "MANUAL" || *wire.SettlementTimelineSeconds != 14_400 ||
		!near(wire.ExpectedSettlementAt, wire.CreatedAt.Add(4*time.Hour)) {
		t.Fatalf("wire: %d %s %+v", status, body, wire)
	}
	var remittance, purpose string
	if err := s.app.pool.QueryRow(context.Background(), "SELECT remittance_information, purpose_of_payment FROM transactions WHERE reference = $1",
		wire.ReconciliationInstructions.Reference).Scan(&remittance, &purpose); err != nil || remittance != "INV-2026-0042" || purpose != "SALARY_PAYMENT" {
		t.Fatalf("stored extras: %q %q %v", remittance, purpose, err)
	}
	instant, status, body := send(nil, map[string]any{"paymentRail": "RTP"})
	if status != 201 || db.Deref(instant.PaymentRail) != "RTP" || *instant.SettlementTimelineSeconds != 0 || instant.ExpectedSettlementAt != nil {
		t.Fatalf("instant rail: %d %s %+v", status, body, instant)
	}

	before := w.balance()
	for _, tc := range []struct {
		extra, dest map[string]any
		field       string
	}{
		{nil, map[string]any{"paymentRail": "SEPA"}, "destination.paymentRail"},
		{nil, map[string]any{"paymentRail": "CARRIER_PIGEON"}, "destination.paymentRail"},
		{map[string]any{"remittanceInformation": strings.Repeat("x", 81)}, nil, "remittanceInformation"},
		{map[string]any{"purposeOfPayment": "BRIBE"}, nil, "purposeOfPayment"},
	} {
		if _, status, body := send(tc.extra, tc.dest); status != 400 || !strings.Contains(body, `"field":"`+tc.field+`"`) {
			t.Errorf("%v %v: %d %s", tc.extra, tc.dest, status, body)
		}
	}
	// A quote's payout to a bank account chooses its rail the same way.
	eur := w.euroAccount("001") // paid over SEPA and SEPA_INSTANT
	for _, tc := range []struct {
		rail, want, mode string
		seconds          int64
	}{{"", "SEPA", "AUTO", 86_400}, {"SEPA_INSTANT", "SEPA_INSTANT", "MANUAL", 0}} {
		dest := map[string]any{"destinationType": "ACCOUNT", "accountId": eur}
		if tc.rail != "" {
			dest["paymentRail"] = tc.rail
		}
		r := w.quote(eur, "SENDING", 1_000, map[string]any{"destination": dest})
		if r.Status != 201 {
			t.Fatalf("quote %q: %d %s", tc.rail, r.Status, r.Body)
		}
		tx := w.transaction(r.JSON(t)["transactionId"].(string))
		if db.Deref(tx.PaymentRail) != tc.want || db.Deref(tx.RailSelectionMode) != tc.mode || db.Deref(tx.SettlementTimelineSeconds) != tc.seconds ||
			(tc.seconds == 0) != (tx.ExpectedSettlementAt == nil) {
			t.Fatalf("quote %q: %+v", tc.rail, tx)
		}
	}
	// What travels with a quote's payout is kept with its transaction; too long is refused.
	r := w.quote(eur, "SENDING", 1_000, map[string]any{"remittanceInformation": "INV-Q-9", "purposeOfPayment": "EDUCATION"})
	if r.Status != 201 {
		t.Fatalf("quote with remittance: %d %s", r.Status, r.Body)
	}
	txID, _ := ids.Parse(ids.Transaction, r.JSON(t)["transactionId"].(string))
	if err := s.app.pool.QueryRow(context.Background(), "SELECT remittance_information, purpose_of_payment FROM transactions WHERE id = $1", txID).Scan(&remittance, &purpose); err != nil || remittance != "INV-Q-9" || purpose != "EDUCATION" {
		t.Fatalf("the quote's extras: %q %q %v", remittance, purpose, err)
	}
	if r := w.quote(eur, "SENDING", 1_000, map[string]any{"remittanceInformation": strings.Repeat("x", 81)}); r.Status != 400 || r.Field(t) != "remittanceInformation" {
		t.Fatalf("81 characters of remittance: %d %s", r.Status, r.Body)
	}
	if r := w.quote(eur, "SENDING", 1_000, map[string]any{"destination": map[string]any{"destinationType": "ACCOUNT", "accountId": eur, "paymentRail": "ACH"}}); r.Status != 400 ||
		!strings.Contains(string(r.Body), `"field":"destination.paymentRail"`) {
		t.Fatalf("quote over a rail the account lacks: %d %s", r.Status, r.Body)
	}

	r = w.c.Do("POST", "/transfer-in", map[string]any{"source": map[string]any{"accountId": ext}, "destination": map[string]any{"accountId": w.account},
		"amount": 100, "remittanceInformation": "x"})
	if r.Status != 400 {
		t.Errorf("transfer in with remittance: %d %s", r.Status, r.Body)
	}
	if w.balance() != before {
		t.Fatalf("a refused transfer moved money: %d, want %d", w.balance(), before)
	}
}
