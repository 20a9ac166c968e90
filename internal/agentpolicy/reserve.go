package agentpolicy

import (
	"slices"
	"time"

	"github.com/google/uuid"

	"paycore/internal/ids"
	"paycore/internal/problem"
)

// CheckAmount refuses a negative amount to reserve in, or release from, an agent's usage.
func CheckAmount(amount int64) error {
	if amount < 0 {
		return problem.Field("amount", "amount must not be negative")
	}
	return nil
}

// Reserve decides a reservation of one transaction of amount (in the smallest unit of the
// limits' currency) on u, the agent's usage as stored: u is taken as it stands at now in
// l.Currency, and the transaction is added when the daily transaction count, the daily
// amount and the monthly amount of l all still hold (CheckWindows) and the amounts can
// still count it. It returns the usage to store, or the refusal with u as it stands at now.
func (l Limits) Reserve(u Usage, now time.Time, amount int64) (Usage, error) {
	if err := CheckAmount(amount); err != nil {
		return u, err
	}
	u = u.At(now).In(l.Currency, now)
	if err := l.CheckWindows(u, amount); err != nil {
		return u, err
	}
	if amount > 1<<63-1-max(u.DailySpend, u.MonthlySpend) {
		return u, problem.Field("amount", "amount %d is too large to count", amount)
	}
	return u.Add(now, amount), nil
}

// NewAccountRefs are the internal accounts p names under root (AccountRefs) that stored,
// the accounts the agent's policy named before, does not: the ones a policy change must
// check.
func (p Policy) NewAccountRefs(root string, stored ...AccountRef) []AccountRef {
	var out []AccountRef
	for _, r := range p.AccountRefs(root) {
		if !slices.ContainsFunc(stored, func(k AccountRef) bool { return k.ID == r.ID }) {
			out = append(out, r)
		}
	}
	return out
}

// CheckAccounts refuses the first of refs that is not an open internal account of the
// agent's customer customerID (open holds the ids of those that are), naming the policy
// field that names it.
func CheckAccounts(customerID uuid.UUID, refs []AccountRef, open map[uuid.UUID]bool) error {
	for _, r := range refs {
		if !open[r.ID] {
			return problem.Field(r.Field, "%s: %s is not an open internal account of the agent's customer %s",
				r.Field, ids.Format(ids.InternalAccount, r.ID), ids.Format(ids.Customer, customerID))
		}
	}
	return nil
}
