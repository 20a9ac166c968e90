// Package paylimits holds the deployment's payment limits per sending currency: the
// largest single payment (TRANSACTION_SIZE_LIMIT_EXCEEDED, 400) and the most a platform
// may send in a currency in one UTC day (DAILY_VOLUME_LIMIT_EXCEEDED, 429, until the
// next day). The operator configures them (PAYCORE_PAYMENT_LIMITS); a currency without
// an entry, or a limit of 0, is unlimited. A payment counts towards the day it is held on
// (a transfer out when it is created, a quote when it is executed), whether it then
// completes or not.
package paylimits

import (
	"encoding/json"
	"fmt"
	"time"

	"paycore/internal/catalog"
	"paycore/internal/money"
	"paycore/internal/problem"
)

// Limit is one sending currency's limits, in its minor units (0: none).
type Limit struct {
	MaxTransaction int64 `json:"maxTransaction,omitempty"`
	DailyVolume    int64 `json:"dailyVolume,omitempty"`
}

// Limits are the limits by sending currency code.
type Limits map[string]Limit

// Parse reads the operator's limits: a JSON object of currency code → {"maxTransaction",
// "dailyVolume"}, both optional non-negative integers of minor units.
func Parse(data []byte) (Limits, error) {
	var l Limits
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, fmt.Errorf("payment limits: a JSON object of currency code to {maxTransaction, dailyVolume} is expected: %w", err)
	}
	for code, v := range l {
		if _, ok := money.Lookup(code); !ok {
			return nil, fmt.Errorf("payment limits: unknown currency %q", code)
		}
		if v.MaxTransaction < 0 || v.DailyVolume < 0 {
			return nil, fmt.Errorf("payment limits: %s: limits must not be negative", code)
		}
	}
	return l, nil
}

// CheckSize refuses a payment of amount in currency above its largest single payment:
// TRANSACTION_SIZE_LIMIT_EXCEEDED on field, with the limit in the details.
func (l Limits) CheckSize(field, currency string, amount int64) error {
	limit := l[currency].MaxTransaction
	if limit == 0 || amount <= limit {
		return nil
	}
	return problem.FieldCode(catalog.TransactionSizeLimitExceeded, field, "%d %s is above the largest single payment this deployment makes in %s, %d",
		amount, currency, currency, limit).With(map[string]any{"limit": limit, "currency": currency})
}

// Daily reports whether currency has a daily volume limit.
func (l Limits) Daily(currency string) bool { return l[currency].DailyVolume > 0 }

// Day is the UTC day a payment held at now counts towards.
func Day(now time.Time) time.Time {
	return now.UTC().Truncate(24 * time.Hour)
}

// CheckDaily refuses a payment of amount in currency when the platform's volume of the
// day (used before it) would pass the daily limit: DAILY_VOLUME_LIMIT_EXCEEDED, to retry
// after the day ends (Retry-After), with the limit, what was used and what remains.
func (l Limits) CheckDaily(currency string, used, amount int64, now time.Time) error {
	limit := l[currency].DailyVolume
	if limit == 0 || (used <= limit && amount <= limit-used) {
		return nil
	}
	wait := Day(now).Add(24 * time.Hour).Sub(now)
	r := problem.Refuse(catalog.DailyVolumeLimitExceeded, "%d %s would take the platform's %s payments today past this deployment's daily limit of %d (%d used); try again tomorrow (UTC)",
		amount, currency, currency, limit, used).With(map[string]any{"limit": limit, "used": used, "remaining": max(0, limit-used), "currency": currency})
	r.RetryAfter = problem.RetryAfterSeconds(wait)
	return r
}
