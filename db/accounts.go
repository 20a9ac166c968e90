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

// accountOpening is an internal account to open: its currency and type, and its
// customer (invalid for the platform's own accounts).
type accountOpening struct {
	customerID uuid.NullUUID
	account.Opening
}

// internalAccountsOpen opens internal accounts of a platform inside the caller's
// transaction, however many, in a fixed number of statements: their account numbers, then
// every account with its ledger account in one insert (accountsPrepare, accountsInsert). A
// customer's second open account of one currency and type is refused
// (account.CustomerAccountExists, the platform's own account.PlatformAccountExists) and
// nothing is opened.
func internalAccountsOpen(ctx context.Context, q *queries, box *sealbox.Box, platformID uuid.UUID, openings []accountOpening) error {
	rows, err := accountsPrepare(ctx, q, box, openings)
	if err != nil {
		return err
	}
	return accountsInsert(ctx, q, platformID, accountsParams(rows))
}

// accountRow is an internal account ready to be inserted: its id, account number, funding
// instructions unique to it, and for an embedded wallet fresh key material sealed.
type accountRow struct {
	id           uuid.UUID
	opening      accountOpening
	number       int64
	instructions json.RawMessage
	wallet       []byte
}

// accountsPrepare draws the account numbers of openings (one statement; q need not be on
// a transaction: numbers come from a sequence, and one drawn for an account never opened
// is a gap) and makes their rows.
func accountsPrepare(ctx context.Context, q *queries, box *sealbox.Box, openings []accountOpening) ([]accountRow, error) {
	if len(openings) == 0 {
		return nil, nil
	}
	numbers, err := q.AccountNumbersNext(ctx, int32(len(openings)))
	if err != nil {
		return nil, fmt.Errorf("draw account numbers: %w", err)
	}
	if len(numbers) != len(openings) {
		return nil, fmt.Errorf("drew %d account numbers for %d accounts", len(numbers), len(openings))
	}
	rows := make([]accountRow, len(openings))
	for i, o := range openings {
		id := ids.New()
		instr, err := json.Marshal(instructions.For(instructions.Account{ID: ids.Format(ids.InternalAccount, id), Number: numbers[i],
			Currency: o.Currency, IsPlatform: !o.customerID.Valid}))
		if err != nil {
			return nil, fmt.Errorf("encode funding instructions: %w", err)
		}
		rows[i] = accountRow{id: id, opening: o, number: numbers[i], instructions: instr}
		if o.Type == catalog.EmbeddedWallet {
			entropy := make([]byte, 32)
			_, _ = rand.Read(entropy)
			rows[i].wallet = box.Seal(account.WalletSealLabel, entropy)
		}
	}
	return rows, nil
}

// accountsParams are InternalAccountsOpen's parameters for prepared accounts (the
// platform's id and the ledger kind are set by accountsInsert).
func accountsParams(rows []accountRow) InternalAccountsOpenParams {
	var p InternalAccountsOpenParams
	for _, r := range rows {
		p.Ids, p.CustomerIds = append(p.Ids, r.id), append(p.CustomerIds, r.opening.customerID.UUID) // uuid.Nil: no customer
		p.Types, p.Currencies = append(p.Types, string(r.opening.Type)), append(p.Currencies, r.opening.Currency)
		p.AccountNumbers, p.FundingInstructions = append(p.AccountNumbers, r.number), append(p.FundingInstructions, r.instructions)
		p.PrivateEnabled, p.WalletsSealed = append(p.PrivateEnabled, false), append(p.WalletsSealed, r.wallet)
	}
	return p
}

// accountsInsert inserts prepared accounts of a platform (accountsParams), each with its
// ledger account, in one statement.
func accountsInsert(ctx context.Context, q *queries, platformID uuid.UUID, p InternalAccountsOpenParams) error {
	if len(p.Ids) == 0 {
		return nil
	}
	p.PlatformID, p.Kind = platformID, KindInternal
	if err := q.InternalAccountsOpen(ctx, p); err != nil {
		return MapConstraint(fmt.Errorf("open internal accounts: %w", err))
	}
	return nil
}

// platformAccountsEnsure opens, inside the caller's transaction, the platform's own
// account of every currency in currencies that has none yet.
func platformAccountsEnsure(ctx context.Context, q *queries, box *sealbox.Box, platformID uuid.UUID, currencies platformconfig.Currencies) error {
	have, err := q.InternalAccountCurrenciesOfPlatform(ctx, platformID)
	if err != nil {
		return fmt.Errorf("read platform accounts: %w", err)
	}
	var missing []accountOpening
	for _, c := range currencies {
		if !slices.Contains(have, c.CurrencyCode) {
			missing = append(missing, accountOpening{Opening: account.ForPlatform(c.CurrencyCode)})
		}
	}
	if err := internalAccountsOpen(ctx, q, box, platformID, missing); err != nil {
		return fmt.Errorf("open platform accounts: %w", err)
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
	var missing []accountOpening
	for _, o := range want {
		if !open[o.Currency] {
			missing = append(missing, accountOpening{customerID: owner, Opening: o})
		}
	}
	if err := internalAccountsOpen(ctx, q, box, platformID, missing); err != nil {
		return fmt.Errorf("open customer accounts: %w", err)
	}
	return nil
}
