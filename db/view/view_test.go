package view

import (
	"testing"

	"github.com/google/uuid"

	"paycore/db"
	"paycore/internal/catalog"
)

// An account shows what can be spent as its balance and what is posted, held money
// included, as its total balance.
func TestInternalAccountBalances(t *testing.T) {
	a := InternalAccountOf(db.InternalAccount{ID: uuid.New(), Currency: "USD", Type: catalog.InternalFiat, Status: catalog.AccountActive}, 1_000, 300)
	if a.Balance.Amount != 700 || a.TotalBalance.Amount != 1_000 || a.TotalBalance.Currency.Code != "USD" {
		t.Fatalf("balance %+v, total %+v", a.Balance, a.TotalBalance)
	}
}

// Every transaction says what it does to its internal account: money in is a CREDIT, money
// out a DEBIT.
func TestTransactionDirection(t *testing.T) {
	for typ, want := range map[catalog.TransactionType]catalog.Direction{catalog.Incoming: catalog.Credit, catalog.Outgoing: catalog.Debit} {
		tx := TransactionOf(db.Transaction{ID: uuid.New(), Type: typ, Status: catalog.TxPending, Currency: "USD", Amount: 1})
		if tx.Direction != want {
			t.Errorf("%s: %s, want %s", typ, tx.Direction, want)
		}
	}
}
