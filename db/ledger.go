package db

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

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
// written, so the caller's transaction stays usable). A move that changes only a house
// account's balance takes no lock: it is appended (see postLeg).
func LedgerApply(ctx context.Context, d DBTX, txID uuid.UUID, currency string, moves []Move) error {
	q := newQueries(d)
	_, err := ledgerApplyAccounts(ctx, q, txID, currency, moves, nil)
	return err
}

// lockedAccount is an account a posting locked, as it is afterwards: its ledger row and,
// for an internal account, its internal_accounts row as read under the lock
// (InternalAccountPostingChecks), which its balance event renders.
type lockedAccount struct {
	LedgerAccount
	Internal *InternalAccount
}

// ledgerApplyAccounts is LedgerApply returning the locked accounts as they are afterwards.
// prelocked (nil: none) are ledger rows the caller has locked (LedgerAccountsLock) in this
// database transaction and not changed since: when they are every account the moves must
// lock, they are not locked again.
func ledgerApplyAccounts(ctx context.Context, q *queries, txID uuid.UUID, currency string, moves []Move, prelocked []LedgerAccount) (map[uuid.UUID]lockedAccount, error) {
	return ledgerApplyLegs(ctx, q, txID, []Leg{{Currency: currency, Moves: moves}}, prelocked)
}

// Leg is one currency's moves of a transaction that posts in several currencies (a
// conversion).
type Leg struct {
	Currency string
	Moves    []Move
}

// ledgerApplyLegs applies the legs of transaction txID, each balanced in its currency,
// after locking what every leg must lock at once in id order, so that conversions in
// opposite directions never deadlock. It returns the locked accounts afterwards: the
// internal accounts and those whose held part changed; a house account whose balance
// alone changed is neither locked nor returned. prelocked is as for ledgerApplyAccounts.
func ledgerApplyLegs(ctx context.Context, q *queries, txID uuid.UUID, legs []Leg, prelocked []LedgerAccount) (map[uuid.UUID]lockedAccount, error) {
	var all []Move
	for _, l := range legs {
		var sum int64
		for _, m := range l.Moves {
			sum += m.Amount
		}
		if sum != 0 {
			return nil, fmt.Errorf("unbalanced postings for %s in %s: sum %d", txID, l.Currency, sum)
		}
		all = append(all, l.Moves...)
	}
	locked, err := lockMoves(ctx, q, txID, all, prelocked)
	if err != nil {
		return nil, err
	}
	for _, l := range legs {
		if err := postLeg(ctx, q, txID, l, locked); err != nil {
			return nil, err
		}
	}
	return locked, nil
}

// lockMoves locks, in id order, the accounts moves must lock (LedgerAccountsLock: internal
// accounts and those whose held part changes; not again when prelocked are all of them,
// see ledgerApplyAccounts) and refuses the moves a locked internal account does not allow
// (postingAllowed), before anything is written.
func lockMoves(ctx context.Context, q *queries, txID uuid.UUID, moves []Move, prelocked []LedgerAccount) (map[uuid.UUID]lockedAccount, error) {
	rows, ok := prelockedMoves(moves, prelocked)
	if !ok {
		ids := make([]uuid.UUID, 0, len(moves))
		var held []uuid.UUID
		for _, m := range moves {
			ids = append(ids, m.Account)
			if m.Held != 0 {
				held = append(held, m.Account)
			}
		}
		var err error
		if rows, err = q.LedgerAccountsLock(ctx, LedgerAccountsLockParams{Ids: ids, HeldIds: held}); err != nil {
			return nil, fmt.Errorf("lock ledger accounts: %w", err)
		}
	}
	locked := make(map[uuid.UUID]lockedAccount, len(rows))
	lockedIDs := make([]uuid.UUID, 0, len(rows))
	for _, r := range rows {
		locked[r.ID] = lockedAccount{LedgerAccount: r}
		lockedIDs = append(lockedIDs, r.ID)
	}
	// Statuses are read after the locks are granted, in their own statement: an account
	// closed by a transaction that committed while this one waited is seen as CLOSED.
	checks, err := q.InternalAccountPostingChecks(ctx, InternalAccountPostingChecksParams{Ids: lockedIDs, TransactionID: uuid.NullUUID{UUID: txID, Valid: true}})
	if err != nil {
		return nil, fmt.Errorf("read internal account statuses: %w", err)
	}
	if err := postingAllowed(checks, moves); err != nil {
		return nil, err
	}
	for _, c := range checks {
		if a, ok := locked[c.InternalAccount.ID]; ok {
			a.Internal = &c.InternalAccount
			locked[c.InternalAccount.ID] = a
		}
	}
	return locked, nil
}

// prelockedMoves returns prelocked when they are exactly the accounts moves must lock:
// every move's account is among them (an account LedgerAccountsLock would not have
// returned, a house account, is not), and the rows of those whose held part changes are
// among them too. Otherwise ok is false and the moves lock their accounts themselves.
func prelockedMoves(moves []Move, prelocked []LedgerAccount) (rows []LedgerAccount, ok bool) {
	if len(prelocked) == 0 {
		return nil, false
	}
	for _, m := range moves {
		if !slices.ContainsFunc(prelocked, func(a LedgerAccount) bool { return a.ID == m.Account }) {
			return nil, false
		}
	}
	for _, a := range prelocked {
		if !slices.ContainsFunc(moves, func(m Move) bool { return m.Account == a.ID }) {
			return nil, false
		}
	}
	return prelocked, true
}

// postLeg posts leg l of transaction txID: the moves on the house accounts that were not
// locked (an account lockMoves did not return) appended to ledger_house_postings in one
// statement that takes no lock on them, its ledger entries in one statement, and each
// locked account's balance and held part checked and updated. Every move on an
// internal account is among the locked ones, so the available balance of each is checked
// under its lock; a house account may go negative and needs no check.
func postLeg(ctx context.Context, q *queries, txID uuid.UUID, l Leg, locked map[uuid.UUID]lockedAccount) error {
	var entryAccounts, houseAccounts []uuid.UUID
	var entryAmounts, houseAmounts []int64
	for _, m := range l.Moves {
		if m.Amount != 0 {
			entryAccounts, entryAmounts = append(entryAccounts, m.Account), append(entryAmounts, m.Amount)
		}
		a, ok := locked[m.Account]
		if !ok && m.Held != 0 {
			return fmt.Errorf("ledger account %s: %w", m.Account, ErrNotFound)
		}
		if !ok {
			if m.Amount != 0 {
				houseAccounts, houseAmounts = append(houseAccounts, m.Account), append(houseAmounts, m.Amount)
			}
			continue
		}
		if a.Currency != l.Currency {
			return fmt.Errorf("ledger account %s holds %s, not %s", a.ID, a.Currency, l.Currency)
		}
		a.Balance += m.Amount
		a.Held += m.Held
		if a.Held < 0 {
			return fmt.Errorf("ledger account %s: releasing more than is held", a.ID)
		}
		if a.Kind == KindInternal && a.Balance-a.Held < 0 {
			return ErrInsufficientFunds
		}
		locked[m.Account] = a
	}
	if len(houseAccounts) > 0 {
		n, err := q.LedgerHousePost(ctx, LedgerHousePostParams{Currency: l.Currency, AccountIds: houseAccounts, Amounts: houseAmounts})
		if err != nil {
			return fmt.Errorf("append house postings: %w", err)
		}
		if n != int64(len(houseAccounts)) {
			return fmt.Errorf("post %s for %s: %d of the accounts %v are not house accounts in that currency: %w", l.Currency, txID, int64(len(houseAccounts))-n, houseAccounts, ErrNotFound)
		}
	}
	if len(entryAccounts) > 0 {
		if err := q.LedgerEntriesCreate(ctx, LedgerEntriesCreateParams{TransactionID: txID, Currency: l.Currency, AccountIds: entryAccounts, Amounts: entryAmounts}); err != nil {
			return fmt.Errorf("post ledger entries: %w", err)
		}
	}
	for _, m := range l.Moves {
		if _, ok := locked[m.Account]; !ok {
			continue
		}
		if err := q.LedgerAccountApply(ctx, LedgerAccountApplyParams{ID: m.Account, Delta: m.Amount, HeldDelta: m.Held}); err != nil {
			if ConstraintViolated(err, ConstraintAvailableNonNegative) {
				return ErrInsufficientFunds
			}
			return fmt.Errorf("apply ledger move: %w", err)
		}
	}
	return nil
}

// holdFunds holds an outgoing payment's amount on its internal account (a transfer out's,
// an executed quote's), first binding the wallet signature, if any, to the transaction,
// and adds the account's balance event to o.
func holdFunds(ctx context.Context, q *queries, o *outbox, h holdRequest, v Views) error {
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
	after, err := ledgerHold(ctx, q, h.TransactionID, h.Currency, h.Account, h.Amount, h.Locked)
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
	return recordBalance(ctx, q, o, v, h.PlatformID, after)
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
	// Locked (nil: none) is the account's ledger row, when the caller has locked it in this
	// database transaction (see ledgerApplyAccounts's prelocked).
	Locked []LedgerAccount
}

// ledgerHold reserves amount of an internal account's available balance for transaction
// txID and returns the account afterwards. It refuses like LedgerApply: ErrInsufficientFunds,
// ErrAccountClosed, or ErrWalletSignatureRequired for an embedded wallet no signed retry
// authorised the transaction for. prelocked is as for ledgerApplyAccounts.
func ledgerHold(ctx context.Context, q *queries, txID uuid.UUID, currency string, account uuid.UUID, amount int64, prelocked []LedgerAccount) (lockedAccount, error) {
	after, err := ledgerApplyAccounts(ctx, q, txID, currency, []Move{{Account: account, Held: amount}}, prelocked)
	return after[account], err
}

// ledgerPost moves amount from one account to another with no hold involved, e.g. a credit
// of an internal account from a system account. It returns the destination afterwards.
func ledgerPost(ctx context.Context, q *queries, txID uuid.UUID, currency string, from, to uuid.UUID, amount int64) (lockedAccount, error) {
	after, err := ledgerApplyAccounts(ctx, q, txID, currency, []Move{{Account: from, Amount: -amount}, {Account: to, Amount: amount}}, nil)
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
		if c.InternalAccount.Status == catalog.AccountClosed {
			return fmt.Errorf("ledger account %s: %w", c.InternalAccount.ID, ErrAccountClosed)
		}
		unsigned[c.InternalAccount.ID] = c.WalletUnsigned
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

// LedgerHouseRollUp folds the postings appended to house accounts (migration 0057) into
// their balances, each account in its own short transaction (one row lock at a time, so it
// never deadlocks with a posting), and returns how many postings it folded. A house
// account's balance, read through ledger_balances, is the same before and after in every
// snapshot. Postings committed while it runs are left for the next run; two runs at once
// fold each posting once (the second finds the rows deleted).
func LedgerHouseRollUp(ctx context.Context, pool *pgxpool.Pool) (int64, error) {
	accounts, err := newQueries(pool).LedgerHouseAccountsPending(ctx)
	if err != nil {
		return 0, fmt.Errorf("find house accounts to roll up: %w", err)
	}
	var folded int64
	for _, id := range accounts {
		n, err := newQueries(pool).LedgerHouseRollUp(ctx, id)
		if err != nil {
			return folded, fmt.Errorf("roll up house account %s: %w", id, err)
		}
		folded += n
	}
	return folded, nil
}
