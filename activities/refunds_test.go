package activities_test

import (
	"context"
	"testing"

	"paycore/db"
	"paycore/internal/catalog"
	"paycore/internal/rail"
	"paycore/internal/transfer"
)

// A refund takes money out of the account the payment credited: out of an embedded wallet
// only the customer's signature moves money, so its refund is refused and nothing is
// held or opened. The same payment in an ordinary account opens its refund.
func TestRefundOfEmbeddedWalletMoneyIsRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t, false)
	ctx := context.Background()
	a := f.fundedAccount(t, 0)
	in := request(transfer.In, a, f.external(t, a, "001"), 700)
	if _, err := f.acts.CreateTransfer(ctx, in); err != nil {
		t.Fatal(err)
	}
	if _, err := f.acts.MarkTransferProcessing(ctx, in.TransactionID); err != nil {
		t.Fatal(err)
	}
	if st, err := f.acts.FinishTransfer(ctx, in, rail.Outcome{Status: catalog.TxCompleted}); err != nil || st != catalog.TxCompleted {
		t.Fatalf("finish: %s %v", st, err)
	}
	if _, err := f.pool.Exec(ctx, "UPDATE internal_accounts SET type = 'EMBEDDED_WALLET' WHERE id = $1", a.id); err != nil {
		t.Fatal(err)
	}
	typ, w := refusalOf(func() error { _, err := f.acts.OpenIncomingRefund(ctx, in.TransactionID); return err }())
	if typ != string(catalog.TransactionNotRefundable) || w.Code != catalog.TransactionNotRefundable {
		t.Fatalf("refund out of an embedded wallet: %s %+v", typ, w)
	}
	tx, err := db.TransactionGetByID(ctx, f.pool, in.TransactionID)
	if _, held, _ := f.ledger(t, a.id); err != nil || tx.RefundStatus != nil || held != 0 {
		t.Fatalf("a refused refund wrote: refund %v, held %d, %v", tx.RefundStatus, held, err)
	}

	if _, err := f.pool.Exec(ctx, "UPDATE internal_accounts SET type = 'INTERNAL_FIAT' WHERE id = $1", a.id); err != nil {
		t.Fatal(err)
	}
	opened, err := f.acts.OpenIncomingRefund(ctx, in.TransactionID)
	if err != nil || opened.Instruction.Amount != 700 || opened.Instruction.Key != in.TransactionID.String()+"/refund" {
		t.Fatalf("refund: %+v %v", opened, err)
	}
	// The step run again (its worker died before the workflow recorded it) answers the
	// refund it opened, holding nothing more.
	again, err := f.acts.OpenIncomingRefund(ctx, in.TransactionID)
	if _, held, _ := f.ledger(t, a.id); err != nil || again.Instruction != opened.Instruction || held != 700 {
		t.Fatalf("the step run again: %+v, held %d, %v", again, held, err)
	}
}
