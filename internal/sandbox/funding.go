package sandbox

import (
	"paycore/internal/account"
	"paycore/internal/catalog"
	"paycore/internal/problem"
)

// MaxFunding bounds one sandbox funding, in the smallest unit of the account's currency.
const MaxFunding = 100_000_000_000

// How a sandbox funding is recorded: a completed incoming transaction of this kind (from a
// REALTIME_FUNDING source) with this description.
const (
	FundingKind        = "SANDBOX_FUNDING"
	FundingDescription = "Sandbox funding"
)

// CheckFundingAmount refuses an amount outside [1, MaxFunding].
func CheckFundingAmount(amount int64) error {
	if amount <= 0 || amount > MaxFunding {
		return problem.Field("amount", "amount must be from 1 to %d", int64(MaxFunding))
	}
	return nil
}

// FundingTarget is what the funding rule reads of the account to credit.
type FundingTarget struct {
	Status          catalog.AccountStatus
	CustomerDeleted bool
}

// CheckFundingTarget refuses an account that cannot be funded: one the platform does not
// have (nil), one that is not ACTIVE, or one whose customer is deleted.
func CheckFundingTarget(t *FundingTarget) error {
	switch {
	case t == nil:
		return account.NotFound()
	case t.Status != catalog.AccountActive:
		return problem.Refuse(catalog.InvalidInput, "the account is %s and cannot receive funds", t.Status)
	case t.CustomerDeleted:
		return problem.Refuse(catalog.CustomerDeleted, "the account's customer is deleted")
	}
	return nil
}
