package account

import (
	"testing"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/problem"
	"paycore/internal/problem/problemtest"
)

// The refusals are answered byte for byte as before they moved here.
func TestRefusals(t *testing.T) {
	problemtest.Check(t,
		problemtest.Case{Name: "CustomerAccountExists", Err: CustomerAccountExists(), Want: problem.Wire{Code: catalog.Conflict, Message: "the customer already has an open account of this currency and type"}},
		problemtest.Case{Name: "PlatformAccountExists", Err: PlatformAccountExists(), Want: problem.Wire{Code: catalog.Conflict, Message: "the platform already has an account of this currency and type"}},
		problemtest.Case{Name: "NotFound", Err: NotFound(), Want: problem.Wire{Code: catalog.AccountNotFound, Message: "internal account not found"}},
		problemtest.Case{Name: "Closed", Err: Closed(), Want: problem.Wire{Code: catalog.InvalidInput, Message: "the internal account is CLOSED and can neither receive nor send money"}},
		problemtest.Case{Name: "BalanceTooLow", Err: BalanceTooLow(), Want: problem.Wire{Code: catalog.InsufficientFunds, Message: "the account's available balance is too low",
			Field: "amount"}},
		problemtest.Case{Name: "SignatureRequired", Err: SignatureRequired(), Want: problem.Wire{Code: catalog.WalletSignatureRequired,
			Message: "moving money out of an embedded wallet needs the customer's wallet signature"}},
	)
}

// An account closes only when it holds nothing, has nothing held and nothing on its way
// in; otherwise the refusal says everything that keeps it open, in words and in its
// details, as the API answered it when it built it itself.
func TestCheckClose(t *testing.T) {
	id := uuid.MustParse("0190a000-0000-7000-8000-0000000000a1")
	const account = "InternalAccount:0190a000-0000-7000-8000-0000000000a1"
	if err := CheckClose(Contents{AccountID: id, Currency: "USD"}); err != nil {
		t.Fatalf("an empty account: %v", err)
	}
	refused := func(c Contents, why string) problem.Wire {
		return problem.Wire{Code: catalog.AccountNotEmpty,
			Message: "the " + c.Currency + " account " + account + " cannot be closed: " + why + "; move the money out and let pending transfers finish first",
			Details: map[string]any{"accountId": account, "currency": c.Currency, "balance": c.Balance, "held": c.Held, "pendingIncomingTransactions": c.Incoming}}
	}
	var cases []problemtest.Case
	for name, c := range map[string]struct {
		contents Contents
		why      string
	}{
		"balance":    {Contents{Balance: 1500}, "it holds a balance of 1500 (smallest unit of USDC)"},
		"held":       {Contents{Balance: 1000, Held: 1000}, "it holds a balance of 1000 (smallest unit of USDC); 1000 of it is held by pending transfers out"},
		"incoming":   {Contents{Incoming: 1}, "1 incoming transaction to it is still pending"},
		"incomings":  {Contents{Incoming: 3}, "3 incoming transactions to it are still pending"},
		"everything": {Contents{Balance: 7, Held: 2, Incoming: 2}, "it holds a balance of 7 (smallest unit of USDC); 2 of it is held by pending transfers out; 2 incoming transactions to it are still pending"},
	} {
		c.contents.AccountID, c.contents.Currency = id, "USDC"
		cases = append(cases, problemtest.Case{Name: name, Err: CheckClose(c.contents), Want: refused(c.contents, c.why)})
	}
	problemtest.Check(t, cases...)
}
