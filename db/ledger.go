package db

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"

	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/paylimits"
	"paycore/internal/payment"
)

// Ledger account kinds.
const (
	KindInternal       = "INTERNAL"
	KindSettlement     = payment.Settlement
	KindSandboxFunding = payment.SandboxFunding
)

// ErrWalletSignatureRequired is returned when a movement would take money out of an
// embedded wallet without a used signed retry bound to the transaction (see
// AuthorizeWalletDebit): money leaves a self-custodial wallet only with the customer's
// session signature, whatever path the movement takes.
var ErrWalletSignatureRequired = errors.New("moving money out of an embedded wallet needs the customer's wallet signature")

// ErrInsufficientFunds is returned when a movement would take an internal account's
// available balance (balance minus holds) below zero.
var ErrInsufficientFunds = errors.New("insufficient available balance")

// Move changes one ledger account: Amount is posted (a ledger entry; all Amounts of one
// transaction sum to zero) and Held changes the reserved part of the balance.
type Move struct {
	Account uuid.UUID
	Amount  int64
	Held    int64
}

// LedgerApply applies moves for transaction txID inside the caller's database transaction.
// Accounts are locked in id order (no deadlocks between concurrent movements), checked
// for currency, no internal account may end with a negative available balance, and no
// move may touch a CLOSED internal account (ErrAccountClosed, returned before anything is
// written, so the caller's transaction stays usable).
func LedgerApply(ctx context.Context, d DBTX, txID uuid.UUID, currency string, moves []Move) error {
	q := newQueries(d)
	_, err := ledgerApplyAccounts(ctx, q, txID, currency, moves)
	return err
}

// ledgerApplyAccounts is LedgerApply returning the accounts as they are afterwards.
func ledgerApplyAccounts(ctx context.Context, q *queries, txID uuid.UUID, currency string, moves []Move) (map[uuid.UUID]LedgerAccount, error) {
	var sum int64
	ids := make([]uuid.UUID, 0, len(moves))
	for _, m := range moves {
		sum += m.Amount
		ids = append(ids, m.Account)
	}
	if sum != 0 {
		return nil, fmt.Errorf("unbalanced postings for %s: sum %d", txID, sum)
	}
	rows, err := q.LedgerAccountsLock(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("lock ledger accounts: %w", err)
	}
	byID := make(map[uuid.UUID]LedgerAccount, len(rows))
	for _, r := range rows {
		byID[r.ID] = r
	}
	// Statuses are read after the locks are granted, in their own statement: an account
	// closed by a transaction that committed while this one waited is seen as CLOSED.
	checks, err := q.InternalAccountPostingChecks(ctx, InternalAccountPostingChecksParams{Ids: ids, TransactionID: uuid.NullUUID{UUID: txID, Valid: true}})
	if err != nil {
		return nil, fmt.Errorf("read internal account statuses: %w", err)
	}
	if err := postingAllowed(checks, moves); err != nil {
		return nil, err
	}
	for _, m := range moves {
		a, ok := byID[m.Account]
		if !ok {
			return nil, fmt.Errorf("ledger account %s: %w", m.Account, ErrNotFound)
		}
		if a.Currency != currency {
			return nil, fmt.Errorf("ledger account %s holds %s, not %s", a.ID, a.Currency, currency)
		}
		a.Balance += m.Amount
		a.Held += m.Held
		if a.Held < 0 {
			return nil, fmt.Errorf("ledger account %s: releasing more than is held", a.ID)
		}
		if a.Kind == KindInternal && a.Balance-a.Held < 0 {
			return nil, ErrInsufficientFunds
		}
		byID[m.Account] = a
	}
	for _, m := range moves {
		if m.Amount != 0 {
			if err := q.LedgerEntryCreate(ctx, LedgerEntryCreateParams{TransactionID: txID, AccountID: m.Account, Amount: m.Amount, Currency: currency}); err != nil {
				return nil, fmt.Errorf("post ledger entry: %w", err)
			}
		}
		if err := q.LedgerAccountApply(ctx, LedgerAccountApplyParams{ID: m.Account, Delta: m.Amount, HeldDelta: m.Held}); err != nil {
			if ConstraintViolated(err, ConstraintAvailableNonNegative) {
				return nil, ErrInsufficientFunds
			}
			return nil, fmt.Errorf("apply ledger move: %w", err)
		}
	}
	return byID, nil
}

// Leg is one currency's moves of a transaction that posts in several currencies (a
// conversion).
type Leg struct {
	Currency string
	Moves    []Move
}

// ledgerApplyLegs applies the legs of transaction txID, each like LedgerApply (balanced in
// its currency), after locking every account of every leg at once in id order, so that
// conversions in opposite directions never deadlock. It returns the accounts afterwards.
func ledgerApplyLegs(ctx context.Context, q *queries, txID uuid.UUID, legs []Leg) (map[uuid.UUID]LedgerAccount, error) {
	var all []uuid.UUID
	for _, l := range legs {
		for _, m := range l.Moves {
			all = append(all, m.Account)
		}
	}
	if _, err := q.LedgerAccountsLock(ctx, all); err != nil {
		return nil, fmt.Errorf("lock ledger accounts: %w", err)
	}
	out := make(map[uuid.UUID]LedgerAccount, len(all))
	for _, l := range legs {
		after, err := ledgerApplyAccounts(ctx, q, txID, l.Currency, l.Moves)
		if err != nil {
			return nil, err
		}
		for id, a := range after {
			out[id] = a
		}
	}
	return out, nil
}

// holdFunds holds an outgoing payment's amount on its internal account (a transfer out's,
// an executed quote's), first binding the wallet signature, if any, to the transaction.
func holdFunds(ctx context.Context, q *queries, h holdRequest, v Views) error {
	if h.WalletSignature.Valid {
		// An unusable signature binds nothing; the hold below then refuses the debit.
		err := authorizeWalletDebit(ctx, q, h.WalletSignature.UUID, h.Account, h.TransactionID, h.SignatureKind)
		if err != nil && !errors.Is(err, ErrWalletSignatureRequired) {
			return err
		}
	}
	if err := h.Limits.CheckSize("amount", h.Currency, h.Amount); err != nil {
		return err
	}
	after, err := ledgerHold(ctx, q, h.TransactionID, h.Currency, h.Account, h.Amount)
	if err != nil {
		return fmt.Errorf("hold funds: %w", err)
	}
	if h.Limits.Daily(h.Currency) {
		total, err := q.PlatformDailyVolumeAdd(ctx, PlatformDailyVolumeAddParams{PlatformID: h.PlatformID, Currency: h.Currency,
			Day: pgtype.Date{Time: paylimits.Day(h.Now), Valid: true}, Amount: h.Amount})
		if err != nil {
			return fmt.Errorf("count the day's volume: %w", err)
		}
		if err := h.Limits.CheckDaily(h.Currency, total-h.Amount, h.Amount, h.Now); err != nil {
			return err
		}
	}
	return recordBalance(ctx, q, v, h.PlatformID, after)
}

// holdRequest is money an outgoing payment holds on an internal account: for an embedded wallet
// with the used signed retry (of SignatureKind) that authorises it, if any.
type holdRequest struct {
	TransactionID, PlatformID, Account uuid.UUID
	Currency                           string
	Amount                             int64
	WalletSignature                    ids.Optional
	SignatureKind                      string
	// Limits are the payment limits the hold counts towards at Now (nil: none, as for a
	// refund of money received).
	Limits paylimits.Limits
	Now    time.Time
}

// ledgerHold reserves amount of an internal account's available balance for transaction
// txID and returns the account afterwards. It refuses like LedgerApply: ErrInsufficientFunds,
// ErrAccountClosed, or ErrWalletSignatureRequired for an embedded wallet no signed retry
// authorised the transaction for.
func ledgerHold(ctx context.Context, q *queries, txID uuid.UUID, currency string, account uuid.UUID, amount int64) (LedgerAccount, error) {
	after, err := ledgerApplyAccounts(ctx, q, txID, currency, []Move{{Account: account, Held: amount}})
	return after[account], err
}

// ledgerPost moves amount from one account to another with no hold involved, e.g. a credit
// of an internal account from a system account. It returns the destination afterwards.
func ledgerPost(ctx context.Context, q *queries, txID uuid.UUID, currency string, from, to uuid.UUID, amount int64) (LedgerAccount, error) {
	after, err := ledgerApplyAccounts(ctx, q, txID, currency, []Move{{Account: from, Amount: -amount}, {Account: to, Amount: amount}})
	return after[to], err
}

// ledgerSystemAccount returns (creating on first use) a platform's system account of kind
// in currency.
func ledgerSystemAccount(ctx context.Context, q *queries, platformID uuid.UUID, currency, kind string) (LedgerAccount, error) {
	if a, err := q.LedgerSystemAccountGet(ctx, LedgerSystemAccountGetParams{PlatformID: platformID, Currency: currency, Kind: kind}); err == nil {
		return a, nil
	} else if !IsNotFound(err) {
		return LedgerAccount{}, fmt.Errorf("load %s account: %w", kind, err)
	}
	if err := q.LedgerSystemAccountEnsure(ctx, LedgerSystemAccountEnsureParams{ID: uuid.Must(uuid.NewV7()), PlatformID: platformID, Currency: currency, Kind: kind}); err != nil {
		return LedgerAccount{}, fmt.Errorf("ensure %s account: %w", kind, err)
	}
	a, err := q.LedgerSystemAccountGet(ctx, LedgerSystemAccountGetParams{PlatformID: platformID, Currency: currency, Kind: kind})
	if err != nil {
		return LedgerAccount{}, fmt.Errorf("load %s account: %w", kind, err)
	}
	return a, nil
}

// postingAllowed refuses moves on CLOSED internal accounts, and moves that lower an
// embedded wallet's available balance (a hold or a direct debit; capturing an authorised
// hold does not lower it) unless the wallet's signed retry is bound to the transaction.
func postingAllowed(checks []InternalAccountPostingChecksRow, moves []Move) error {
	unsigned := map[uuid.UUID]bool{}
	for _, c := range checks {
		if c.Status == catalog.AccountClosed {
			return fmt.Errorf("ledger account %s: %w", c.ID, ErrAccountClosed)
		}
		unsigned[c.ID] = c.WalletUnsigned
	}
	for _, m := range moves {
		if m.Amount-m.Held < 0 && unsigned[m.Account] {
			return fmt.Errorf("account %s: %w", m.Account, ErrWalletSignatureRequired)
		}
	}
	return nil
}

// authorizeWalletDebit binds the used signed retry signedRequestID, of kind, on the
// embedded wallet accountID to transaction txID, which lets the ledger debit the wallet
// for that transaction (and only for it). It fails with ErrWalletSignatureRequired when
// the retry does not exist, is unused, is of another kind or account, or already
// authorised another transaction.
func authorizeWalletDebit(ctx context.Context, q *queries, signedRequestID, accountID, txID uuid.UUID, kind string) error {
	n, err := q.SignedRequestBindTransaction(ctx, SignedRequestBindTransactionParams{ID: signedRequestID, AccountID: accountID, Kind: kind, TransactionID: uuid.NullUUID{UUID: txID, Valid: true}})
	if err != nil {
		return fmt.Errorf("bind wallet signature: %w", err)
	}
	if n == 0 {
		return ErrWalletSignatureRequired
	}
	return nil
}
