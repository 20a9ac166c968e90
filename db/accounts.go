package db

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
)

// Internal account statuses.
const (
	AccountActive = "ACTIVE"
	AccountClosed = "CLOSED"
)

// ErrAccountClosed is returned when a movement touches a CLOSED internal account: a closed
// account never receives, holds or sends money.
var ErrAccountClosed = errors.New("the internal account is closed")

// ErrAccountNotEmpty matches every *AccountNotEmptyError (errors.Is).
var ErrAccountNotEmpty = errors.New("the internal account is not empty")

// AccountNotEmptyError says why an internal account cannot be closed: it holds a balance,
// part of it is held by pending transfers out, or transactions that will credit it have
// not finished yet.
type AccountNotEmptyError struct {
	AccountID uuid.UUID
	Currency  string
	Balance   int64 // posted balance, in the currency's smallest unit
	Held      int64 // reserved by pending transfers out
	Incoming  int64 // transactions still on the way into the account
}

func (e *AccountNotEmptyError) Error() string {
	return fmt.Sprintf("internal account %s (%s) cannot be closed: %s", e.AccountID, e.Currency, e.Reason())
}

// Is makes errors.Is(err, ErrAccountNotEmpty) hold.
func (e *AccountNotEmptyError) Is(target error) bool { return target == ErrAccountNotEmpty }

// Reason lists, in words, everything that keeps the account open.
func (e *AccountNotEmptyError) Reason() string {
	var why []string
	if e.Balance != 0 {
		why = append(why, fmt.Sprintf("it holds a balance of %d (smallest unit of %s)", e.Balance, e.Currency))
	}
	if e.Held != 0 {
		why = append(why, fmt.Sprintf("%d of it is held by pending transfers out", e.Held))
	}
	if e.Incoming == 1 {
		why = append(why, "1 incoming transaction to it is still pending")
	} else if e.Incoming > 1 {
		why = append(why, fmt.Sprintf("%d incoming transactions to it are still pending", e.Incoming))
	}
	return strings.Join(why, "; ")
}

// InternalAccountLock locks an internal account's ledger row (FOR UPDATE, the lock every
// posting takes, see LedgerApply) and then reads the account with its status, balance and
// held amount. A status change happens only under the same lock (InternalAccountClose),
// so what the caller reads stays true until its transaction ends: an incoming transfer
// created after checking ACTIVE here cannot be overtaken by a close.
//
// The read is a separate statement on purpose: at READ COMMITTED a statement sees the
// data committed when it starts, so reading the status in the locking statement could
// return the status from before a close that committed while this one waited for the lock.
func InternalAccountLock(ctx context.Context, q *Queries, platformID, id uuid.UUID) (InternalAccountGetRow, error) {
	rows, err := q.LedgerAccountsLock(ctx, []uuid.UUID{id})
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

// InternalAccountClose closes an internal account inside the caller's transaction. It
// holds the account's ledger row lock while it checks and writes, so it is atomic with
// every posting and every creation of an incoming transfer: it refuses with an
// *AccountNotEmptyError while the account has a balance, a hold, or an incoming
// transaction that has not finished, and once it has closed the account the ledger refuses
// every movement on it (ErrAccountClosed). Closing a closed account changes nothing.
//
// A caller closing several accounts in one transaction closes them in id order (the
// ledger's lock order).
func InternalAccountClose(ctx context.Context, q *Queries, platformID, id uuid.UUID) error {
	a, err := InternalAccountLock(ctx, q, platformID, id)
	if err != nil {
		return err
	}
	if a.InternalAccount.Status == AccountClosed {
		return nil
	}
	incoming, err := q.TransactionOpenIncomingCount(ctx, id)
	if err != nil {
		return fmt.Errorf("count incoming transactions: %w", err)
	}
	if a.Balance != 0 || a.Held != 0 || incoming != 0 {
		return &AccountNotEmptyError{AccountID: id, Currency: a.InternalAccount.Currency, Balance: a.Balance, Held: a.Held, Incoming: incoming}
	}
	if err := q.InternalAccountSetStatus(ctx, InternalAccountSetStatusParams{ID: id, Status: AccountClosed}); err != nil {
		return fmt.Errorf("close internal account: %w", err)
	}
	return nil
}
