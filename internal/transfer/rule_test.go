package transfer

import (
	"reflect"
	"testing"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/platformconfig"
	"paycore/internal/problem"
	"paycore/internal/rail"
	"paycore/internal/sandbox/sandboxrail"
)

var (
	holder   = uuid.NullUUID{UUID: uuid.MustParse("0190a000-0000-7000-8000-00000000000c"), Valid: true}
	stranger = uuid.NullUUID{UUID: uuid.MustParse("0190a000-0000-7000-8000-00000000000d"), Valid: true}
)

// accounts is a valid pair: an active USD fiat account with 1000 available and an active
// USD external account of the same customer, on a platform that moves 1 to 5000 USD both
// ways.
func accounts() Accounts {
	return Accounts{
		Internal: &InternalAccount{ID: uuid.New(), Type: catalog.InternalFiat, Status: catalog.AccountActive, Currency: "USD", CustomerID: holder, Available: 1000},
		External: &ExternalAccount{ID: uuid.New(), Status: catalog.ExternalActive, Currency: "USD", CustomerID: holder, Identifier: "123456789001"},
		Currencies: platformconfig.Currencies{{CurrencyCode: "USD", MinAmount: 1, MaxAmount: 5000,
			EnabledTransactionTypes: []string{string(catalog.Incoming), string(catalog.Outgoing)}}},
		Environment: catalog.Sandbox, CustomerKyc: catalog.KycApproved,
	}
}

func request(kind Kind, amount int64) Request {
	return Request{TransactionID: uuid.New(), Kind: kind, PlatformID: uuid.New(), Amount: amount}
}

// Every refusal of the rule, with its code, field, message and details as the API
// answers them.
func TestCheck(t *testing.T) {
	cases := []struct {
		name   string
		kind   Kind
		amount int64
		change func(*Accounts)
		want   *problem.Wire // nil: accepted
	}{
		{"out accepted", Out, 1000, nil, nil},
		{"in accepted beyond the balance", In, 5000, nil, nil},
		{"unknown internal account", Out, 10, func(a *Accounts) { a.Internal = nil },
			&problem.Wire{Code: catalog.AccountNotFound, Message: "internal account not found"}},
		{"both unknown: the internal one is named", In, 10, func(a *Accounts) { a.Internal, a.External = nil, nil },
			&problem.Wire{Code: catalog.AccountNotFound, Message: "internal account not found"}},
		{"unknown external account", Out, 10, func(a *Accounts) { a.External = nil },
			&problem.Wire{Code: catalog.ExternalAccountNotFound, Message: "external account not found"}},
		{"currency mismatch, out", Out, 10, func(a *Accounts) { a.External.Currency = "EUR" },
			&problem.Wire{Code: catalog.InvalidCurrency, Field: "destination.accountId", Message: "same-currency transfer: the internal account holds USD but the external account is in EUR"}},
		{"currency mismatch, in", In, 10, func(a *Accounts) { a.External.Currency = "EUR" },
			&problem.Wire{Code: catalog.InvalidCurrency, Field: "source.accountId", Message: "same-currency transfer: the internal account holds USD but the external account is in EUR"}},
		{"currency before owner", Out, 10, func(a *Accounts) { a.External.Currency, a.External.CustomerID = "EUR", stranger },
			&problem.Wire{Code: catalog.InvalidCurrency, Field: "destination.accountId", Message: "same-currency transfer: the internal account holds USD but the external account is in EUR"}},
		{"other owner", Out, 10, func(a *Accounts) { a.External.CustomerID = stranger },
			&problem.Wire{Code: catalog.InvalidInput, Field: "destination.accountId", Message: "the external account belongs to another owner than the internal account"}},
		{"platform account to a customer's external account", In, 10, func(a *Accounts) { a.Internal.CustomerID = uuid.NullUUID{} },
			&problem.Wire{Code: catalog.InvalidInput, Field: "source.accountId", Message: "the external account belongs to another owner than the internal account"}},
		{"closed internal account, in", In, 10, func(a *Accounts) { a.Internal.Status = catalog.AccountClosed },
			&problem.Wire{Code: catalog.InvalidInput, Field: "destination.accountId", Message: "the internal account is CLOSED"}},
		{"frozen internal account, out", Out, 10, func(a *Accounts) { a.Internal.Status = catalog.AccountFrozen },
			&problem.Wire{Code: catalog.InvalidInput, Field: "source.accountId", Message: "the internal account is FROZEN"}},
		{"inactive external account", Out, 10, func(a *Accounts) { a.External.Status = catalog.ExternalInactive },
			&problem.Wire{Code: catalog.InvalidInput, Field: "destination.accountId", Message: "the external account is INACTIVE"}},
		{"deleted customer", In, 10, func(a *Accounts) { a.CustomerDeleted = true },
			&problem.Wire{Code: catalog.CustomerDeleted, Message: "the accounts' customer is deleted"}},
		{"customer not verified", In, 10, func(a *Accounts) { a.CustomerKyc = catalog.KycPending },
			&problem.Wire{Code: catalog.UserNotReady, Message: "customer Customer:0190a000-0000-7000-8000-00000000000c cannot move money until its KYC/KYB status is APPROVED (it is PENDING): submit POST /verifications or send a KYC link",
				Details: map[string]any{"customerId": "Customer:0190a000-0000-7000-8000-00000000000c", "kycStatus": "PENDING"}}},
		{"the platform's own account needs no verification", In, 10, func(a *Accounts) {
			a.Internal.CustomerID, a.External.CustomerID, a.CustomerKyc = uuid.NullUUID{}, uuid.NullUUID{}, ""
		}, nil},
		{"unsupported currency", Out, 10, func(a *Accounts) { a.Currencies = nil },
			&problem.Wire{Code: catalog.InvalidInput, Message: "the platform does not support USD"}},
		{"direction not enabled", Out, 10, func(a *Accounts) { a.Currencies[0].EnabledTransactionTypes = []string{string(catalog.Incoming)} },
			&problem.Wire{Code: catalog.InvalidInput, Message: "OUTGOING transactions are not enabled for USD in the platform configuration"}},
		{"below the minimum", In, 10, func(a *Accounts) { a.Currencies[0].MinAmount = 100 },
			&problem.Wire{Code: catalog.AmountOutOfRange, Field: "amount", Message: "amount must be from 100 to 5000 USD (platform configuration)",
				Details: map[string]any{"minAmount": int64(100), "maxAmount": int64(5000)}}},
		{"above the maximum", Out, 5001, nil,
			&problem.Wire{Code: catalog.AmountOutOfRange, Field: "amount", Message: "amount must be from 1 to 5000 USD (platform configuration)",
				Details: map[string]any{"minAmount": int64(1), "maxAmount": int64(5000)}}},
		{"range before funds", Out, 5001, func(a *Accounts) { a.Internal.Available = 0 },
			&problem.Wire{Code: catalog.AmountOutOfRange, Field: "amount", Message: "amount must be from 1 to 5000 USD (platform configuration)",
				Details: map[string]any{"minAmount": int64(1), "maxAmount": int64(5000)}}},
		{"insufficient funds", Out, 1001, nil,
			&problem.Wire{Code: catalog.InsufficientFunds, Field: "amount", Message: "the account's available balance is below 1001"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := accounts()
			if tc.change != nil {
				tc.change(&a)
			}
			err := Check(request(tc.kind, tc.amount), a)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			got, ok := problem.ToWire(err)
			if !ok {
				t.Fatalf("error %v is no domain refusal", err)
			}
			if !reflect.DeepEqual(got, *tc.want) {
				t.Fatalf("refusal\n got %+v\nwant %+v", got, *tc.want)
			}
		})
	}
}

// Only money leaving an embedded wallet needs the customer's signature.
func TestNeedsSignature(t *testing.T) {
	for _, tc := range []struct {
		kind Kind
		typ  catalog.AccountType
		want bool
	}{
		{Out, catalog.EmbeddedWallet, true}, {In, catalog.EmbeddedWallet, false},
		{Out, catalog.InternalFiat, false}, {Out, catalog.InternalCrypto, false},
	} {
		if got := NeedsSignature(tc.kind, tc.typ); got != tc.want {
			t.Errorf("NeedsSignature(%s, %s) = %v", tc.kind, tc.typ, got)
		}
	}
}

func TestAccountsRail(t *testing.T) {
	platform := uuid.MustParse("0190a000-0000-7000-8000-0000000000f1")
	if r := accounts().Rail(platform); r != (Rail{ExternalIdentifier: "123456789001", Environment: catalog.Sandbox, Platform: platform, Currency: "USD"}) || !r.Known() ||
		r.Instruction("k").Platform != platform {
		t.Fatalf("rail %+v", r)
	}
}

// The rail rule: a transfer no configured rail serves is refused RAIL_NOT_CONFIGURED
// when it is requested; with the default routes that is every production transfer. It
// comes after the rules on the accounts and before the balance.
func TestCheckServed(t *testing.T) {
	routes, err := rail.ParseRoutes(rail.DefaultRoutes)
	if err != nil {
		t.Fatal(err)
	}
	defaults, err := rail.NewRegistry(routes, sandboxrail.Rail{})
	if err != nil {
		t.Fatal(err)
	}
	none, err := rail.NewRegistry(nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		env    catalog.Environment
		rails  Rails
		amount int64
		change func(*Accounts)
		want   catalog.Code
	}{
		"sandbox, default rails":               {catalog.Sandbox, defaults, 10, nil, ""},
		"production, default rails":            {catalog.Production, defaults, 10, nil, catalog.RailNotConfigured},
		"sandbox, no rail":                     {catalog.Sandbox, none, 10, nil, catalog.RailNotConfigured},
		"production, beyond the balance":       {catalog.Production, defaults, 2000, nil, catalog.RailNotConfigured},
		"sandbox, beyond the balance":          {catalog.Sandbox, defaults, 2000, nil, catalog.InsufficientFunds},
		"production, unknown external account": {catalog.Production, defaults, 10, func(a *Accounts) { a.External = nil }, catalog.ExternalAccountNotFound},
		"production, customer deleted":         {catalog.Production, defaults, 10, func(a *Accounts) { a.CustomerDeleted = true }, catalog.CustomerDeleted},
		"production, amount beyond the limits": {catalog.Production, defaults, -1, nil, catalog.AmountOutOfRange},
	} {
		a := accounts()
		a.Environment = tc.env
		if tc.change != nil {
			tc.change(&a)
		}
		r := Request{Kind: Out, Amount: tc.amount}
		if got := problem.CodeOf(CheckServed(r, a, tc.rails)); got != tc.want {
			t.Errorf("%s: %q, want %q", name, got, tc.want)
		}
	}
}
