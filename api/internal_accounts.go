package api

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/cursor"
	"paycore/internal/events"
	"paycore/internal/ids"
	"paycore/internal/instructions"
	"paycore/internal/money"
	"paycore/internal/sealbox"
)

// Internal account types.
const (
	TypeInternalFiat   = "INTERNAL_FIAT"
	TypeInternalCrypto = "INTERNAL_CRYPTO"
	TypeEmbeddedWallet = "EMBEDDED_WALLET"
)

var internalAccountTypes = []string{TypeInternalFiat, TypeInternalCrypto, TypeEmbeddedWallet}

// walletSealLabel is the sealbox label of embedded-wallet key material.
const walletSealLabel = "embedded-wallet-entropy"

// accountTypeFor picks the internal account type of a currency under a platform's config.
func accountTypeFor(currency string, walletsEnabled bool) string {
	switch {
	case money.IsFiat(currency):
		return TypeInternalFiat
	case walletsEnabled:
		return TypeEmbeddedWallet
	default:
		return TypeInternalCrypto
	}
}

// createInternalAccount opens a ledger account and its internal account with funding
// instructions unique to it. Embedded wallets get fresh key material sealed at rest.
func createInternalAccount(ctx context.Context, q *db.Queries, box *sealbox.Box, platformID uuid.UUID, customerID uuid.NullUUID, currency, typ string) (db.InternalAccount, error) {
	id := ids.New()
	if _, err := q.LedgerAccountCreate(ctx, db.LedgerAccountCreateParams{ID: id, PlatformID: platformID, Currency: currency, Kind: db.KindInternal}); err != nil {
		return db.InternalAccount{}, fmt.Errorf("create ledger account: %w", err)
	}
	var sealed []byte
	var private *bool
	if typ == TypeEmbeddedWallet {
		entropy := make([]byte, 32)
		_, _ = rand.Read(entropy)
		sealed = box.Seal(walletSealLabel, entropy)
		f := false
		private = &f
	}
	a, err := q.InternalAccountCreate(ctx, db.InternalAccountCreateParams{ID: id, PlatformID: platformID, CustomerID: customerID,
		Type: typ, Currency: currency, WalletSealed: sealed, PrivateEnabled: private})
	if err != nil {
		return db.InternalAccount{}, fmt.Errorf("create internal account: %w", err)
	}
	instr, _ := json.Marshal(instructions.For(instructions.Account{ID: ids.Format(ids.InternalAccount, id), Number: a.AccountNumber,
		Currency: currency, IsPlatform: !customerID.Valid}))
	if err := q.InternalAccountSetInstructions(ctx, db.InternalAccountSetInstructionsParams{ID: id, FundingInstructions: instr}); err != nil {
		return db.InternalAccount{}, fmt.Errorf("store funding instructions: %w", err)
	}
	a.FundingInstructions = instr
	return a, nil
}

// ensurePlatformAccounts opens the platform's own internal account for every supported
// currency that lacks one.
func ensurePlatformAccounts(ctx context.Context, q *db.Queries, box *sealbox.Box, p db.Platform) error {
	var cur []CurrencyConfig
	if err := json.Unmarshal(p.SupportedCurrencies, &cur); err != nil {
		return fmt.Errorf("decode supported currencies: %w", err)
	}
	existing, err := q.InternalAccountList(ctx, db.InternalAccountListParams{PlatformID: p.ID, PlatformOwned: true, RowLimit: 1000})
	if err != nil {
		return fmt.Errorf("list platform accounts: %w", err)
	}
	have := map[string]bool{}
	for _, a := range existing {
		have[a.InternalAccount.Currency] = true
	}
	for _, c := range cur {
		if have[c.CurrencyCode] {
			continue
		}
		typ := TypeInternalFiat
		if money.IsCrypto(c.CurrencyCode) {
			typ = TypeInternalCrypto
		}
		if _, err := createInternalAccount(ctx, q, box, p.ID, uuid.NullUUID{}, c.CurrencyCode, typ); err != nil {
			return err
		}
	}
	return nil
}

func (s *Server) listCustomerInternalAccounts(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r, "currency", "customerId", "type", "limit", "cursor")
	p := db.InternalAccountListParams{PlatformID: principalFrom(r.Context()).PlatformID, Currency: q.str("currency"),
		Type: q.enum("type", internalAccountTypes...)}
	p.CustomerID = q.customerID("customerId")
	limit := q.limit()
	p.AfterID = q.afterID("internal-accounts")
	if q.err != nil {
		return q.err
	}
	p.RowLimit = limit + 1
	rows, err := s.q.InternalAccountList(r.Context(), p)
	if err != nil {
		return fmt.Errorf("list internal accounts: %w", err)
	}
	total, err := s.q.InternalAccountCount(r.Context(), db.InternalAccountCountParams{PlatformID: p.PlatformID, CustomerID: p.CustomerID, Currency: p.Currency, Type: p.Type})
	if err != nil {
		return fmt.Errorf("count internal accounts: %w", err)
	}
	writeJSON(w, http.StatusOK, page(rows, limit, total, func(a db.InternalAccountListRow) view.InternalAccount {
		return view.InternalAccountOf(a.InternalAccount, a.Balance, a.Held)
	}, func(a db.InternalAccountListRow) string {
		return cursor.Encode("internal-accounts", idCursor{ID: a.InternalAccount.ID})
	}))
	return nil
}

func (s *Server) listPlatformInternalAccounts(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r, "currency", "type")
	p := db.InternalAccountListParams{PlatformID: principalFrom(r.Context()).PlatformID, PlatformOwned: true,
		Currency: q.str("currency"), Type: q.enum("type", internalAccountTypes...), RowLimit: 1000}
	if q.err != nil {
		return q.err
	}
	rows, err := s.q.InternalAccountList(r.Context(), p)
	if err != nil {
		return fmt.Errorf("list platform accounts: %w", err)
	}
	writeJSON(w, http.StatusOK, dataOf(rows, func(a db.InternalAccountListRow) view.InternalAccount {
		return view.InternalAccountOf(a.InternalAccount, a.Balance, a.Held)
	}))
	return nil
}

var errAccountNotFound = notFound("ACCOUNT_NOT_FOUND", "internal account")

// loadInternalAccount finds an account of the caller's platform.
func (s *Server) loadInternalAccount(r *http.Request, param string) (db.InternalAccountGetRow, error) {
	id, err := pathID(r, param, ids.InternalAccount, errAccountNotFound)
	if err != nil {
		return db.InternalAccountGetRow{}, err
	}
	a, err := s.q.InternalAccountGet(r.Context(), db.InternalAccountGetParams{PlatformID: principalFrom(r.Context()).PlatformID, ID: id})
	if isNoRows(err) {
		return a, errAccountNotFound
	}
	if err != nil {
		return a, fmt.Errorf("load internal account: %w", err)
	}
	return a, nil
}

type internalAccountPatch struct {
	PrivateEnabled *bool `json:"privateEnabled"`
}

// patchInternalAccount updates an internal account. The one updatable field,
// privateEnabled, belongs to embedded wallets, whose changes need a wallet session
// signature (the signed-retry pattern).
func (s *Server) patchInternalAccount(w http.ResponseWriter, r *http.Request) error {
	a, err := s.loadInternalAccount(r, "id")
	if err != nil {
		return err
	}
	body, err := ReadJSON[internalAccountPatch](r)
	if err != nil {
		return err
	}
	if body.PrivateEnabled == nil {
		return invalid("send at least one field to update (privateEnabled)")
	}
	if a.InternalAccount.Type != TypeEmbeddedWallet {
		return invalidField("privateEnabled", "privateEnabled applies only to EMBEDDED_WALLET accounts; this account is %s", a.InternalAccount.Type)
	}
	return s.updateWalletAccount(w, r, a, *body.PrivateEnabled)
}

type fundRequest struct {
	Amount *int64 `json:"amount"`
}

// maxSandboxFunding bounds one sandbox funding.
const maxSandboxFunding = 100_000_000_000

// fundSandboxAccount credits an internal account at once from the platform's sandbox
// funding account, records the movement as a completed incoming transaction and emits
// INTERNAL_ACCOUNT_BALANCE_UPDATED, all in one database transaction.
func (s *Server) fundSandboxAccount(w http.ResponseWriter, r *http.Request) error {
	body, err := ReadJSON[fundRequest](r)
	if err != nil {
		return err
	}
	if body.Amount == nil {
		return invalidField("amount", "amount is required (an integer in the smallest unit of the account's currency)")
	}
	if *body.Amount <= 0 || *body.Amount > maxSandboxFunding {
		return invalidField("amount", "amount must be from 1 to %d", int64(maxSandboxFunding))
	}
	a, err := s.loadInternalAccount(r, "accountId")
	if err != nil {
		return err
	}
	if a.InternalAccount.Status != "ACTIVE" {
		return invalid("the account is %s and cannot receive funds", a.InternalAccount.Status)
	}
	pid := principalFrom(r.Context()).PlatformID
	var out view.InternalAccount
	err = db.WithTx(r.Context(), s.Pool, func(q *db.Queries, _ pgx.Tx) error {
		platformCustomerID := ""
		if a.InternalAccount.CustomerID.Valid {
			c, err := q.CustomerGet(r.Context(), db.CustomerGetParams{PlatformID: pid, ID: a.InternalAccount.CustomerID.UUID})
			if err != nil {
				return err
			}
			if c.IsDeleted {
				return &Error{Status: http.StatusGone, Code: "CUSTOMER_DELETED", Message: "the account's customer is deleted"}
			}
			platformCustomerID = c.PlatformCustomerID
		}
		src, err := db.LedgerSystemAccount(r.Context(), q, pid, a.InternalAccount.Currency, db.KindSandboxFunding)
		if err != nil {
			return err
		}
		txID := ids.New()
		// The ledger re-checks under its locks: an account closed since the check above
		// receives nothing.
		err = db.LedgerApply(r.Context(), q, txID, a.InternalAccount.Currency, []db.Move{
			{Account: src.ID, Amount: -*body.Amount}, {Account: a.InternalAccount.ID, Amount: *body.Amount},
		})
		if errors.Is(err, db.ErrAccountClosed) {
			return invalid("the account is CLOSED and cannot receive funds")
		}
		if err != nil {
			return err
		}
		now := time.Now()
		if _, err := q.TransactionCreate(r.Context(), db.TransactionCreateParams{
			ID: txID, PlatformID: pid, CustomerID: a.InternalAccount.CustomerID, PlatformCustomerID: platformCustomerID, Kind: "SANDBOX_FUNDING", Type: "INCOMING", Status: "COMPLETED",
			SourceKind: "REALTIME_FUNDING", DestinationKind: "INTERNAL", DestinationAccountID: a.InternalAccount.ID,
			Currency: a.InternalAccount.Currency, Amount: *body.Amount, Reference: view.TransactionReference(txID), SettledAt: &now,
			Description: strPtr("Sandbox funding"),
		}); err != nil {
			return fmt.Errorf("record funding transaction: %w", err)
		}
		fresh, err := q.InternalAccountGet(r.Context(), db.InternalAccountGetParams{PlatformID: pid, ID: a.InternalAccount.ID})
		if err != nil {
			return err
		}
		out = view.InternalAccountOf(fresh.InternalAccount, fresh.Balance, fresh.Held)
		_, err = db.EventRecord(r.Context(), q, pid, events.InternalAccountBalanceUpdated, out, false)
		return err
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func strPtr(s string) *string { return &s }
