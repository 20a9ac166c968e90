package main

import (
	"context"
	"testing"
	"time"

	"paycore/api"
	"paycore/db/view"
)

// platformUSD is the available balance of w's platform's own USD account.
func (w *world) platformUSD() int64 {
	w.t.Helper()
	var list api.List[view.InternalAccount]
	if r := w.c.Do("GET", "/platform/internal-accounts?currency=USD", nil); r.Status != 200 {
		w.t.Fatalf("platform accounts: %d %s", r.Status, r.Body)
	} else {
		r.Decode(w.t, &list)
	}
	if len(list.Data) != 1 {
		w.t.Fatalf("%d platform USD accounts", len(list.Data))
	}
	return list.Data[0].Balance.Amount
}

// executed executes quote q and waits for its transaction to end as wanted (with its
// refund's status, if refund is set).
func (w *world) executed(q view.Quote, status, refund string) view.Transaction {
	w.t.Helper()
	if r := w.c.Do("POST", "/quotes/"+q.ID+"/execute", nil); r.Status != 200 {
		w.t.Fatalf("execute: %d %s", r.Status, r.Body)
	}
	var tx view.Transaction
	eventually(w.t, 30*time.Second, q.TransactionID+" to end "+status, func() bool {
		tx = w.transaction(q.TransactionID)
		if refund != "" {
			return tx.Refund != nil && tx.Refund.Status == refund
		}
		return string(tx.Status) == status
	}, func() string { return string(tx.Status) })
	return tx
}

// A platform charges its own fee on cross-currency quotes sent in USD: configured in
// /config (merged by key, turned off with zeros), replaced per quote by
// platformFeeOverride, shown as platformFeesIncluded and platformFees, credited to the
// platform's own USD account when the money leaves and given back from it when the payment
// is returned; other currencies are NOT_IMPLEMENTED; the ledger stays balanced.
func TestPlatformFees(t *testing.T) {
	t.Parallel()
	s := newStack(t, quoteFast)
	w := fxWorld(t, s)
	w.fund(1_000_000)

	var cfg view.PlatformConfig
	w.c.Do("GET", "/config", nil).Decode(t, &cfg)
	if cfg.FeeConfigs == nil || len(cfg.FeeConfigs) != 0 {
		t.Fatalf("a new platform's fees: %+v", cfg.FeeConfigs)
	}
	fee := func(currency string, bps, fixed int64, fixedCurrency string) map[string]any {
		return map[string]any{"feeConfigs": []any{map[string]any{"feeType": "CROSS_CURRENCY_TRANSACTION", "sourceCurrency": currency,
			"variableFeeBps": bps, "fixedFee": map[string]any{"amount": fixed, "currency": fixedCurrency}}}}
	}
	for _, c := range []struct {
		body        map[string]any
		status      int
		code, field string
	}{
		{fee("EUR", 30, 50, "EUR"), 501, "NOT_IMPLEMENTED", "feeConfigs[0].sourceCurrency"},
		{fee("USD", 10_001, 50, "USD"), 400, "INVALID_INPUT", "feeConfigs[0].variableFeeBps"},
		{fee("USD", 30, 50, "EUR"), 400, "INVALID_INPUT", "feeConfigs[0].fixedFee.currency"},
		{fee("USD", 30, -1, "USD"), 400, "INVALID_INPUT", "feeConfigs[0].fixedFee.amount"},
	} {
		r := w.c.Do("PATCH", "/config", c.body)
		if r.Status != c.status || r.Code(t) != c.code || r.Field(t) != c.field {
			t.Fatalf("%v: %d %s", c.body, r.Status, r.Body)
		}
	}
	r := w.c.Do("PATCH", "/config", fee("USD", 30, 50, "USD"))
	if r.Status != 200 {
		t.Fatalf("configure: %d %s", r.Status, r.Body)
	}
	r.Decode(t, &cfg)
	if len(cfg.FeeConfigs) != 1 || cfg.FeeConfigs[0].VariableFeeBps != 30 || cfg.FeeConfigs[0].FixedFee.Amount != 50 {
		t.Fatalf("configured: %s", r.Body)
	}
	// A PATCH without feeConfigs leaves them.
	if r := w.c.Do("PATCH", "/config", map[string]any{"endUserTermsConsentRequired": false}); r.Status != 200 || len(r.JSON(t)["feeConfigs"].([]any)) != 1 {
		t.Fatalf("unrelated patch: %d %s", r.Status, r.Body)
	}

	// A completed payment pays the platform its fee: 50 cents and 30 bps of what is converted.
	platformBefore := w.platformUSD()
	q := w.newQuote(w.euroAccount("001"), 10_000)
	net := q.TotalSendingAmount - q.FeesIncluded
	if want := 50 + (net*30+9_999)/10_000; q.PlatformFeesIncluded != want || q.FeesIncluded <= want {
		t.Fatalf("quote: platformFeesIncluded %d of %d fees, want %d", q.PlatformFeesIncluded, q.FeesIncluded, want)
	}
	tx := w.executed(q, "COMPLETED", "")
	if tx.PlatformFees == nil || *tx.PlatformFees != q.PlatformFeesIncluded || *tx.Fees != q.FeesIncluded {
		t.Fatalf("transaction fees %v, platform fees %v", tx.Fees, tx.PlatformFees)
	}
	if got := w.platformUSD(); got != platformBefore+q.PlatformFeesIncluded {
		t.Fatalf("platform account %d, want %d + %d", got, platformBefore, q.PlatformFeesIncluded)
	}
	var feesAccount int64
	_ = s.app.pool.QueryRow(context.Background(), "SELECT coalesce(sum(balance), 0)::bigint FROM ledger_balances WHERE kind = 'FEES' AND platform_id = $1 AND currency = 'USD'", w.platform.ID).Scan(&feesAccount)
	if feesAccount != q.FeesIncluded-q.PlatformFeesIncluded {
		t.Fatalf("the service's fees account holds %d, want %d", feesAccount, q.FeesIncluded-q.PlatformFeesIncluded)
	}

	// An override replaces the configuration for one quote.
	r = w.quote(w.euroAccount("001"), "SENDING", 10_000, map[string]any{"platformFeeOverride": map[string]any{
		"platformFixedFee": map[string]any{"amount": 7, "currency": "USD"}, "platformVariableFeeBps": 0}})
	var over view.Quote
	if r.Status != 201 {
		t.Fatalf("override: %d %s", r.Status, r.Body)
	}
	r.Decode(t, &over)
	if over.PlatformFeesIncluded != 7 {
		t.Fatalf("override of 7: %d", over.PlatformFeesIncluded)
	}
	for _, c := range []struct {
		override    map[string]any
		status      int
		code, field string
	}{
		{map[string]any{"platformFixedFee": map[string]any{"amount": 7, "currency": "EUR"}, "platformVariableFeeBps": 0}, 501, "NOT_IMPLEMENTED", "platformFeeOverride.platformFixedFee.currency"},
		{map[string]any{"platformFixedFee": map[string]any{"amount": 7, "currency": "USD"}}, 400, "INVALID_INPUT", "platformFeeOverride.platformVariableFeeBps"},
	} {
		r := w.quote(w.euroAccount("001"), "SENDING", 10_000, map[string]any{"platformFeeOverride": c.override})
		if r.Status != c.status || r.Code(t) != c.code || r.Field(t) != c.field {
			t.Fatalf("%v: %d %s", c.override, r.Status, r.Body)
		}
	}

	// A returned payment (005) gives the sender everything back, the platform its fee too.
	platformBefore, before := w.platformUSD(), w.balance()
	q = w.newQuote(w.euroAccount("005"), 20_000)
	if q.PlatformFeesIncluded == 0 {
		t.Fatalf("no platform fee on %+v", q)
	}
	w.executed(q, "FAILED", "COMPLETED")
	if got := w.platformUSD(); got != platformBefore {
		t.Fatalf("after the return the platform account holds %d, want %d", got, platformBefore)
	}
	if got := w.balance(); got != before {
		t.Fatalf("after the return the sender holds %d, want %d", got, before)
	}

	// Turned off with zeros: the next quote pays the platform nothing.
	if r := w.c.Do("PATCH", "/config", fee("USD", 0, 0, "USD")); r.Status != 200 || len(r.JSON(t)["feeConfigs"].([]any)) != 0 {
		t.Fatalf("turn off: %d %s", r.Status, r.Body)
	}
	if q := w.newQuote(w.euroAccount("001"), 10_000); q.PlatformFeesIncluded != 0 {
		t.Fatalf("fee charged after it was turned off: %d", q.PlatformFeesIncluded)
	}
	checkLedger(t, s)
}
