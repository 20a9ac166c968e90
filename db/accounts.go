package db

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/google/uuid"

	"paycore/internal/account"
	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/instructions"
	"paycore/internal/kit/sealbox"
	"paycore/internal/platformconfig"
)

// ErrAccountClosed is returned when a movement touches a CLOSED internal account: a closed
// account never receives, holds or sends money.
var ErrAccountClosed = errors.New("the internal account is closed")

// internalAccountLock locks an internal account's ledger row (FOR NO KEY UPDATE, the lock every
// posting takes, see LedgerApply) and then reads the account with its status, balance and
// held amount. A status change happens only under the same lock (InternalAccountClose),
// so what the caller reads stays true until its transaction ends: an incoming transfer
// created after checking ACTIVE here cannot be overtaken by a close.
//
// The read is a separate statement on purpose: at READ COMMITTED a statement sees the
// data committed when it starts, so reading the status in the locking statement could
// return the status from before a close that committed while this one waited for the lock.
func internalAccountLock(ctx context.Context, q *queries, platformID, id uuid.UUID) (InternalAccountGetRow, error) {
	rows, err := q.LedgerAccountsLock(ctx, LedgerAccountsLockParams{Ids: []uuid.UUID{id}})
	if err != nil {
		return InternalAccountGetRow{}, fmt.Errorf("lock ledger account: %w", err)
	}
	if len(rows) == 0 {
		return InternalAccountGetRow{}, fmt.Errorf("internal account %s: %w", id, ErrNotFound)
	}
	a, err := q.InternalAccountGet(ctx, InternalAccountGetParams{PlatformID: platformID, ID: id})
	if IsNotFound(err) {
		return InternalAccountGetRow{}, fmt.Errorf("internal account %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return InternalAccountGetRow{}, fmt.Errorf("load internal account: %w", err)
	}
	return a, nil
}

// internalAccountClose closes an internal account inside the caller's transaction. It
// holds the account's ledger row lock while it checks and writes, so it is atomic with
// every posting and every creation of an incoming transfer: it refuses with the rule's
// refusal (account.CheckClose, ACCOUNT_NOT_EMPTY) while the account has a balance, a hold,
// or an incoming transaction that has not finished, and once it has closed the account the
// ledger refuses every movement on it (ErrAccountClosed). Closing a closed account changes
// nothing.
//
// A caller closing several accounts in one transaction closes them in id order (the
// ledger's lock order).
func internalAccountClose(ctx context.Context, q *queries, platformID, id uuid.UUID) error {
	a, err := internalAccountLock(ctx, q, platformID, id)
	if err != nil {
		return err
	}
	if a.InternalAccount.Status == catalog.AccountClosed {
		return nil
	}
	incoming, err := q.TransactionOpenIncomingCount(ctx, uuid.NullUUID{UUID: id, Valid: true})
	if err != nil {
		return fmt.Errorf("count incoming transactions: %w", err)
	}
	if err := account.CheckClose(account.Contents{AccountID: id, Currency: a.InternalAccount.Currency, Balance: a.Balance, Held: a.Held, Incoming: incoming}); err != nil {
		return err
	}
	if err := q.InternalAccountSetStatus(ctx, InternalAccountSetStatusParams{ID: id, Status: catalog.AccountClosed}); err != nil {
		return fmt.Errorf("close internal account: %w", err)
	}
	return nil
}

// internalAccountOpen opens an internal account inside the caller's transaction: its
// ledger account, then the account itself with funding instructions unique to it. An
// embedded wallet gets fresh key material, sealed with box. customerID is invalid for the
// platform's own accounts.
func internalAccountOpen(ctx context.Context, q *queries, box *sealbox.Box, platformID uuid.UUID, customerID uuid.NullUUID, o account.Opening) (InternalAccount, error) {
	id := ids.New()
	if _, err := q.LedgerAccountCreate(ctx, LedgerAccountCreateParams{ID: id, PlatformID: platformID, Currency: o.Currency, Kind: KindInternal}); err != nil {
		return InternalAccount{}, fmt.Errorf("create ledger account: %w", err)
	}
	var sealed []byte
	var private *bool
	if o.Type == catalog.EmbeddedWallet {
		entropy := make([]byte, 32)
		_, _ = rand.Read(entropy)
		sealed = box.Seal(account.WalletSealLabel, entropy)
		private = new(bool)
	}
	a, err := q.InternalAccountCreate(ctx, InternalAccountCreateParams{ID: id, PlatformID: platformID, CustomerID: customerID,
		Type: o.Type, Currency: o.Currency, WalletSealed: sealed, PrivateEnabled: private})
	if err != nil {
		return InternalAccount{}, MapConstraint(fmt.Errorf("create internal account: %w", err))
	}
	instr, err := json.Marshal(instructions.For(instructions.Account{ID: ids.Format(ids.InternalAccount, id), Number: a.AccountNumber,
		Currency: o.Currency, IsPlatform: !customerID.Valid}))
	if err != nil {
		return InternalAccount{}, fmt.Errorf("encode funding instructions: %w", err)
	}
	if err := q.InternalAccountSetInstructions(ctx, InternalAccountSetInstructionsParams{ID: id, FundingInstructions: instr}); err != nil {
		return InternalAccount{}, fmt.Errorf("store funding instructions: %w", err)
	}
	a.FundingInstructions = instr
	return a, nil
}

// platformAccountsEnsure opens, inside the caller's transaction, the platform's own
// account of every currency in currencies that has none yet.
func platformAccountsEnsure(ctx context.Context, q *queries, box *sealbox.Box, platformID uuid.UUID, currencies platformconfig.Currencies) error {
	have, err := q.InternalAccountCurrenciesOfPlatform(ctx, platformID)
	if err != nil {
		return fmt.Errorf("read platform accounts: %w", err)
	}
	for _, c := range currencies {
		if slices.Contains(have, c.CurrencyCode) {
			continue
		}
		if _, err := internalAccountOpen(ctx, q, box, platformID, uuid.NullUUID{}, account.ForPlatform(c.CurrencyCode)); err != nil {
			return fmt.Errorf("open platform %s account: %w", c.CurrencyCode, err)
		}
	}
	return nil
}

// customerAccountsReplace makes, inside the caller's transaction, the open accounts of a
// customer those of want: accounts of other currencies are closed (InternalAccountClose
// refuses one that holds money, has money held or has money on its way in, and the
// caller's transaction then writes nothing), in id order, the ledger's lock order; then
// the currencies without an open account get one.
func customerAccountsReplace(ctx context.Context, q *queries, box *sealbox.Box, platformID, customerID uuid.UUID, want []account.Opening) error {
	owner := uuid.NullUUID{UUID: customerID, Valid: true}
	accounts, err := q.InternalAccountsOfCustomer(ctx, owner)
	if err != nil {
		return fmt.Errorf("read customer accounts: %w", err)
	}
	open := map[string]bool{}
	for _, a := range accounts {
		cur := a.InternalAccount.Currency
		open[cur] = true
		if slices.ContainsFunc(want, func(o account.Opening) bool { return o.Currency == cur }) {
			continue
		}
		if err := internalAccountClose(ctx, q, platformID, a.InternalAccount.ID); err != nil {
			return fmt.Errorf("close %s account: %w", cur, err)
		}
	}
	for _, o := range want {
		if open[o.Currency] {
			continue
		}
		if _, err := internalAccountOpen(ctx, q, box, platformID, owner, o); err != nil {
			return fmt.Errorf("open %s account: %w", o.Currency, err)
		}
	}
	return nil
}
