package api

import (
	"context"
	"fmt"
	"net/http"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/account"
	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/sandbox"

	"github.com/google/uuid"
)

var internalAccountTypes = []string{string(catalog.InternalFiat), string(catalog.InternalCrypto), string(catalog.EmbeddedWallet)}

// walletSealLabel is the sealbox label of embedded-wallet key material.
const walletSealLabel = account.WalletSealLabel

// listCustomerInternalAccounts is GET /customers/internal-accounts: the customers'
// accounts that are not closed, newest first.
func (s *Server) listCustomerInternalAccounts(w http.ResponseWriter, r *http.Request) error {
	return serveList(s, w, r, s.customerInternalAccountList(r.Context(), principalFrom(r.Context()).environment(), uuid.NullUUID{}))
}

// customerInternalAccountList is the list of the customers' internal accounts: of every
// customer of the platform (filtered by customerId), or only of own (an agent's customer,
// with no customerId parameter), rendered for the caller's environment env.
func (s *Server) customerInternalAccountList(ctx context.Context, env catalog.Environment, own uuid.NullUUID) listSpec[db.InternalAccountFilter, db.IDPos, db.InternalAccountWithBalance, view.InternalAccount] {
	name, params := "internal-accounts", []string{"currency", "customerId", "type", "limit", "cursor"}
	if own.Valid {
		name, params = "agent-internal-accounts", []string{"currency", "type", "limit", "cursor"}
	}
	return listSpec[db.InternalAccountFilter, db.IDPos, db.InternalAccountWithBalance, view.InternalAccount]{
		name: name, params: params,
		filter: func(q *query, pid uuid.UUID) db.InternalAccountFilter {
			f := db.InternalAccountFilter{PlatformID: pid, Currency: q.str("currency"), Type: q.enum("type", internalAccountTypes...), CustomerID: own}
			if !own.Valid {
				f.CustomerID = q.customerID("customerId")
			}
			return f
		},
		read: db.InternalAccountPage,
		pos:  idPos(func(a db.InternalAccountWithBalance) uuid.UUID { return a.ID }),
		view: func(a db.InternalAccountWithBalance) view.InternalAccount {
			return s.internalAccountView(ctx, env, a.InternalAccount, a.Balance, a.Held)
		},
	}
}

func (s *Server) listPlatformInternalAccounts(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r, "currency", "type")
	p := db.InternalAccountListParams{PlatformID: principalFrom(r.Context()).PlatformID, PlatformOwned: true,
		Currency: q.str("currency"), Type: q.enum("type", internalAccountTypes...), RowLimit: 1000}
	if q.err != nil {
		return q.err
	}
	rows, err := db.InternalAccountList(r.Context(), s.Pool, p)
	if err != nil {
		return fmt.Errorf("list platform accounts: %w", err)
	}
	env := principalFrom(r.Context()).environment()
	writeJSON(w, http.StatusOK, dataOf(rows, func(a db.InternalAccountListRow) view.InternalAccount {
		return s.internalAccountView(r.Context(), env, a.InternalAccount, a.Balance, a.Held)
	}))
	return nil
}

var errAccountNotFound = errorOf(account.NotFound())

// loadInternalAccount finds an account of the caller's platform.
func (s *Server) loadInternalAccount(r *http.Request, param string) (db.InternalAccountGetRow, error) {
	return loadOne(r, param, ids.InternalAccount, errAccountNotFound, func(ctx context.Context, pid, id uuid.UUID) (db.InternalAccountGetRow, error) {
		return db.InternalAccountGet(ctx, s.Pool, db.InternalAccountGetParams{PlatformID: pid, ID: id})
	})
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
	if err := account.CheckPrivatePatch(a.InternalAccount.Type, body.PrivateEnabled); err != nil {
		return err
	}
	return s.updateWalletAccount(w, r, a, *body.PrivateEnabled)
}

type fundRequest struct {
	Amount *int64 `json:"amount"`
}

// fundSandboxAccount credits an internal account at once from the platform's sandbox
// funding account: a completed incoming transaction and INTERNAL_ACCOUNT_BALANCE_UPDATED,
// in one database operation that applies the sandbox's funding rule under the account's
// lock.
func (s *Server) fundSandboxAccount(w http.ResponseWriter, r *http.Request) error {
	body, err := ReadJSON[fundRequest](r)
	if err != nil {
		return err
	}
	if body.Amount == nil {
		return invalidField("amount", "amount is required (an integer in the smallest unit of the account's currency)")
	}
	if err := sandbox.CheckFundingAmount(*body.Amount); err != nil {
		return err
	}
	id, err := pathID(r, "accountId", ids.InternalAccount, errAccountNotFound)
	if err != nil {
		return err
	}
	a, err := s.store.SandboxFund(r.Context(), principalFrom(r.Context()).PlatformID, id, *body.Amount, s.now(), sandbox.CheckFundingTarget)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.internalAccountView(r.Context(), principalFrom(r.Context()).environment(), a.InternalAccount, a.Balance, a.Held))
	return nil
}
