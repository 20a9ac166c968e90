package agentpolicy

import (
	"slices"
	"strings"

	"paycore/internal/catalog"
	"paycore/internal/problem"
)

// MovesMoney reports whether the permission lets an agent move money or add a payee:
// every permission but VIEW_TRANSACTIONS.
func (p Permission) MovesMoney() bool { return p != ViewTransactions }

// MovesMoney reports whether the policy grants a permission that moves money or adds a
// payee. Creating, connecting or resuming such an agent needs an API token with TRANSACT.
func (p Policy) MovesMoney() bool { return slices.ContainsFunc(p.Permissions, Permission.MovesMoney) }

// Widening lists the members of next that let the agent move more money, or with less
// oversight, than prev did (empty when next only narrows or keeps prev): a money
// permission added, AUTO where approval was required (by default or for an account), a
// spending limit raised or lifted (a new limits currency counts as raised), an account the
// agent could not use before, and an approval threshold raised, removed or moved to
// another currency. A policy without money permissions widens nothing: whatever else it
// says, its agent cannot move money.
func Widening(prev, next Policy) []string {
	if !next.MovesMoney() {
		return nil
	}
	var out []string
	add := func(member string, widens bool) {
		if widens {
			out = append(out, member)
		}
	}
	add("permissions", slices.ContainsFunc(next.Permissions, func(p Permission) bool { return p.MovesMoney() && !prev.Allows(p) }))
	pl, nl := prev.SpendingLimits, next.SpendingLimits
	newCurrency := pl.Currency != nl.Currency
	add("spendingLimits.currency", newCurrency)
	add("spendingLimits.dailyLimit", !newCurrency && raised(pl.DailyLimit, nl.DailyLimit))
	add("spendingLimits.dailyTransactionLimit", raised(pl.DailyTransactionLimit, nl.DailyTransactionLimit))
	add("spendingLimits.monthlyLimit", !newCurrency && raised(pl.MonthlyLimit, nl.MonthlyLimit))
	add("accountRestrictions.allowedAccountIds", prev.AccountRestrictions.AllowedAccountIDs != nil &&
		(next.AccountRestrictions.AllowedAccountIDs == nil ||
			slices.ContainsFunc(next.AccountRestrictions.AllowedAccountIDs, func(id string) bool {
				return !slices.Contains(prev.AccountRestrictions.AllowedAccountIDs, id)
			})))
	// Per account (and for the accounts without a rule, ""): the mode and per-transaction
	// limit Evaluate applies.
	var mode, perTx bool
	for _, acct := range ruleAccounts(prev, next) {
		pa, pt := prev.effective(acct)
		na, nt := next.effective(acct)
		mode = mode || (pa && !na)
		perTx = perTx || (!newCurrency && nt > pt)
	}
	add("executionMode", mode)
	add("spendingLimits.perTransactionLimit", perTx)
	pt, nt := prev.ApprovalThresholds, next.ApprovalThresholds
	add("approvalThresholds", pt.Amount != nil && (nt.Amount == nil || nt.Currency != pt.Currency || *nt.Amount > *pt.Amount))
	return out
}

// CheckChange refuses a change from prev to next that widens the policy (Widening) unless
// the caller's API token holds TRANSACT: 403 FORBIDDEN naming TRANSACT and the widened
// members in details.
func CheckChange(prev, next Policy, canTransact bool) error {
	if canTransact {
		return nil
	}
	if w := Widening(prev, next); len(w) > 0 {
		r := NeedsTransact("widening an agent's policy (%s)", strings.Join(w, ", "))
		r.Details["widens"] = w
		return r
	}
	return nil
}

// CheckMoneyAgent refuses to create, connect or resume an agent whose policy moves money
// unless the caller's API token holds TRANSACT (what names the act).
func CheckMoneyAgent(p Policy, canTransact bool, what string) error {
	if canTransact || !p.MovesMoney() {
		return nil
	}
	return NeedsTransact("%s whose policy can move money (any permission but %s)", what, ViewTransactions)
}

// CheckResume refuses to resume an agent (isPaused set to false) unless the caller's API
// token holds TRANSACT, whatever the agent's policy: pausing and renaming need no more
// than MANAGE.
func CheckResume(isPaused *bool, canTransact bool) error {
	if canTransact || isPaused == nil || *isPaused {
		return nil
	}
	return NeedsTransact("resuming an agent")
}

// NeedsTransact is the refusal of an act that can lead to money moving, asked by an API
// token without TRANSACT: 403 FORBIDDEN, details.permission naming TRANSACT as the
// router's permission refusals do.
func NeedsTransact(format string, args ...any) *problem.Refusal {
	r := problem.Refuse(catalog.Forbidden, format, args...)
	r.Message += " needs an API token with the TRANSACT permission"
	return r.With(map[string]any{"permission": "TRANSACT"})
}

// ruleAccounts are the accounts either policy has a rule for, and "" for every other one.
func ruleAccounts(prev, next Policy) []string {
	out := []string{""}
	for _, p := range []Policy{prev, next} {
		for _, r := range p.AccountRestrictions.AccountRules {
			if !slices.Contains(out, r.AccountID) {
				out = append(out, r.AccountID)
			}
		}
	}
	return out
}

// effective is whether an action on the account needs approval by its mode, and its
// per-transaction limit, as Evaluate decides them ("" is an account without a rule).
func (p Policy) effective(accountID string) (approval bool, perTx int64) {
	approval, perTx = p.DefaultExecutionMode == ApprovalRequired, p.SpendingLimits.PerTransactionLimit
	if i := slices.IndexFunc(p.AccountRestrictions.AccountRules, func(r AccountRule) bool { return r.AccountID == accountID }); i >= 0 {
		r := p.AccountRestrictions.AccountRules[i]
		if r.ExecutionMode != nil && *r.ExecutionMode == ApprovalRequired {
			approval = true
		}
		if r.PerTransactionLimit != nil {
			perTx = *r.PerTransactionLimit
		}
	}
	return approval, perTx
}

// raised reports whether a limit (nil: unlimited) went up or was lifted.
func raised(prev, next *int64) bool {
	return prev != nil && (next == nil || *next > *prev)
}
