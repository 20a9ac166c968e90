package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"paycore/db"
	"paycore/internal/banking"
	"paycore/internal/cursor"
	"paycore/internal/extaccount"
	"paycore/internal/ids"
)

// ExternalAccount is an account outside the service that money moves to or from.
type ExternalAccount struct {
	ID                            string           `json:"id"`
	CustomerID                    string           `json:"customerId,omitempty"`
	Status                        string           `json:"status"`
	PlatformAccountID             *string          `json:"platformAccountId,omitempty"`
	Currency                      string           `json:"currency"`
	DefaultUmaDepositAccount      *bool            `json:"defaultUmaDepositAccount,omitempty"`
	BeneficiaryVerificationStatus *string          `json:"beneficiaryVerificationStatus,omitempty"`
	BeneficiaryVerifiedData       *BeneficiaryData `json:"beneficiaryVerifiedData,omitempty"`
	AccountInfo                   json.RawMessage  `json:"accountInfo"`
	CreatedAt                     time.Time        `json:"createdAt"`
	UpdatedAt                     time.Time        `json:"updatedAt"`
}

// BeneficiaryData is what beneficiary verification found.
type BeneficiaryData struct {
	FullName string `json:"fullName"`
}

func externalAccountOf(e db.ExternalAccount) ExternalAccount {
	out := ExternalAccount{ID: ids.Format(ids.ExternalAccount, e.ID), Status: e.Status, PlatformAccountID: e.PlatformAccountID,
		Currency: e.Currency, BeneficiaryVerificationStatus: e.BeneficiaryVerificationStatus, AccountInfo: e.AccountInfo,
		CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt}
	if e.CustomerID.Valid {
		out.CustomerID = ids.Format(ids.Customer, e.CustomerID.UUID)
		d := e.DefaultUmaDepositAccount
		out.DefaultUmaDepositAccount = &d
	}
	if e.BeneficiaryVerifiedName != nil {
		out.BeneficiaryVerifiedData = &BeneficiaryData{FullName: *e.BeneficiaryVerifiedName}
	}
	return out
}

type externalAccountBody struct {
	CustomerID               *string         `json:"customerId"`
	Currency                 *string         `json:"currency"`
	PlatformAccountID        *string         `json:"platformAccountId"`
	DefaultUmaDepositAccount *bool           `json:"defaultUmaDepositAccount"`
	AccountInfo              json.RawMessage `json:"accountInfo"`
}

// verifyBeneficiary checks the beneficiary name with the receiving bank. Sandbox platforms
// get the outcome of the identifier's magic suffix (102 NOT_MATCHED, 103 PARTIAL_MATCH,
// 104 PENDING, 105 invalid account, 106 UNSUPPORTED, 107 CHECKED_BY_RECEIVING_FI, else
// MATCHED); production platforms have no name-check service connected, so the receiving
// institution checks.
func verifyBeneficiary(sandboxPlatform bool, info extaccount.Info) (status, verifiedName *string, err error) {
	if info.IsWallet {
		return nil, nil, nil
	}
	s := func(v string) *string { return &v }
	if !sandboxPlatform {
		return s("CHECKED_BY_RECEIVING_FI"), nil, nil
	}
	switch banking.SandboxSuffix(info.Identifier) {
	case "102":
		return s("NOT_MATCHED"), nil, nil
	case "103":
		return s("PARTIAL_MATCH"), s(partialName(info.BeneficiaryName)), nil
	case "104":
		return s("PENDING"), nil, nil
	case "105":
		return nil, nil, &Error{Status: http.StatusBadRequest, Code: "INVALID_BANK_ACCOUNT", Details: map[string]any{"field": "accountInfo"},
			Message: "the receiving bank reports that this account does not exist or is invalid"}
	case "106":
		return s("UNSUPPORTED"), nil, nil
	case "107":
		return s("CHECKED_BY_RECEIVING_FI"), nil, nil
	}
	return s("MATCHED"), s(info.BeneficiaryName), nil
}

// partialName is how a bank's record differs in a partial match: initials for all but the
// last name.
func partialName(name string) string {
	parts := strings.Fields(name)
	for i := 0; i < len(parts)-1; i++ {
		parts[i] = parts[i][:1] + "."
	}
	return strings.Join(parts, " ")
}

func (s *Server) createCustomerExternalAccount(w http.ResponseWriter, r *http.Request) error {
	return s.createExternalAccount(w, r, false)
}

func (s *Server) createPlatformExternalAccount(w http.ResponseWriter, r *http.Request) error {
	return s.createExternalAccount(w, r, true)
}

func (s *Server) createExternalAccount(w http.ResponseWriter, r *http.Request, platformOwned bool) error {
	b, err := ReadJSON[externalAccountBody](r)
	if err != nil {
		return err
	}
	if platformOwned && b.CustomerID != nil {
		return invalidField("customerId", "platform external accounts have no customerId; use /customers/external-accounts")
	}
	if platformOwned && b.DefaultUmaDepositAccount != nil {
		return invalidField("defaultUmaDepositAccount", "defaultUmaDepositAccount applies to customer external accounts")
	}
	if b.CustomerID == nil {
		// Without a customer the account is the platform's own, as on /platform/external-accounts.
		if b.DefaultUmaDepositAccount != nil {
			return invalidField("defaultUmaDepositAccount", "defaultUmaDepositAccount applies to customer external accounts (give customerId)")
		}
		platformOwned = true
	}
	if b.Currency == nil {
		return invalidField("currency", "currency is required")
	}
	if len(b.AccountInfo) == 0 || string(b.AccountInfo) == "null" {
		return invalidField("accountInfo", "accountInfo is required")
	}
	if err := textField("platformAccountId", b.PlatformAccountID, 255); err != nil {
		return err
	}
	info, fe := extaccount.Parse(*b.Currency, b.AccountInfo)
	if fe != nil {
		return invalidField(fe.Field, "%s: %s", fe.Field, fe.Message)
	}
	pr := principalFrom(r.Context())
	var customerID uuid.NullUUID
	if !platformOwned {
		id, err := ids.Parse(ids.Customer, *b.CustomerID)
		if err != nil {
			return invalidField("customerId", "customerId must be a Customer id (Customer:<uuid>)")
		}
		c, err := s.q.CustomerGet(r.Context(), db.CustomerGetParams{PlatformID: pr.PlatformID, ID: id})
		if isNoRows(err) {
			return errCustomerNotFound
		}
		if err != nil {
			return err
		}
		if c.IsDeleted {
			return &Error{Status: http.StatusGone, Code: "CUSTOMER_DELETED", Message: "the customer is deleted"}
		}
		customerID = uuid.NullUUID{UUID: id, Valid: true}
	}
	status, verified, err := verifyBeneficiary(pr.Sandbox, info)
	if err != nil {
		return err
	}
	isDefault := b.DefaultUmaDepositAccount != nil && *b.DefaultUmaDepositAccount
	var out db.ExternalAccount
	err = db.WithTx(r.Context(), s.Pool, func(q *db.Queries, _ pgx.Tx) error {
		if isDefault {
			if err := q.ExternalAccountClearDefault(r.Context(), customerID); err != nil {
				return err
			}
		}
		var err error
		out, err = q.ExternalAccountCreate(r.Context(), db.ExternalAccountCreateParams{ID: ids.New(), PlatformID: pr.PlatformID, CustomerID: customerID,
			Currency: *b.Currency, AccountType: info.AccountType, AccountInfo: info.Normalized, Identifier: info.Identifier,
			PlatformAccountID: b.PlatformAccountID, DefaultUmaDepositAccount: isDefault, BeneficiaryVerificationStatus: status, BeneficiaryVerifiedName: verified})
		if db.IsUniqueViolation(err) {
			return &Error{Status: http.StatusConflict, Code: "EXTERNAL_ACCOUNT_EXISTS", Message: "this account is already registered for the same owner"}
		}
		return err
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, externalAccountOf(out))
	return nil
}

func (s *Server) listCustomerExternalAccounts(w http.ResponseWriter, r *http.Request) error {
	return s.listExternalAccounts(w, r, false)
}

func (s *Server) listPlatformExternalAccounts(w http.ResponseWriter, r *http.Request) error {
	return s.listExternalAccounts(w, r, true)
}

func (s *Server) listExternalAccounts(w http.ResponseWriter, r *http.Request, platformOwned bool) error {
	allowed := []string{"currency", "limit", "cursor"}
	if !platformOwned {
		allowed = append(allowed, "customerId")
	}
	q := newQuery(r, allowed...)
	p := db.ExternalAccountListParams{PlatformID: principalFrom(r.Context()).PlatformID, PlatformOwned: platformOwned, Currency: q.str("currency")}
	p.CustomerID = q.customerID("customerId")
	limit := q.limit()
	p.AfterID = q.afterID("external-accounts")
	if q.err != nil {
		return q.err
	}
	p.RowLimit = limit + 1
	rows, err := s.q.ExternalAccountList(r.Context(), p)
	if err != nil {
		return fmt.Errorf("list external accounts: %w", err)
	}
	total, err := s.q.ExternalAccountCount(r.Context(), db.ExternalAccountCountParams{PlatformID: p.PlatformID, PlatformOwned: platformOwned,
		CustomerID: p.CustomerID, Currency: p.Currency})
	if err != nil {
		return fmt.Errorf("count external accounts: %w", err)
	}
	writeJSON(w, http.StatusOK, page(rows, limit, total, externalAccountOf, func(e db.ExternalAccount) string {
		return cursor.Encode("external-accounts", idCursor{ID: e.ID})
	}))
	return nil
}

func (s *Server) getExternalAccount(platformOwned bool) http.HandlerFunc {
	return handler(func(w http.ResponseWriter, r *http.Request) error {
		id, err := pathID(r, "externalAccountId", ids.ExternalAccount, errExternalNotFound)
		if err != nil {
			return err
		}
		e, err := s.q.ExternalAccountGet(r.Context(), db.ExternalAccountGetParams{PlatformID: principalFrom(r.Context()).PlatformID, ID: id})
		if isNoRows(err) || (err == nil && e.CustomerID.Valid == platformOwned) {
			return errExternalNotFound
		}
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, externalAccountOf(e))
		return nil
	})
}

func (s *Server) deleteExternalAccount(platformOwned bool) http.HandlerFunc {
	return handler(func(w http.ResponseWriter, r *http.Request) error {
		id, err := pathID(r, "externalAccountId", ids.ExternalAccount, errExternalNotFound)
		if err != nil {
			return err
		}
		n, err := s.q.ExternalAccountDelete(r.Context(), db.ExternalAccountDeleteParams{PlatformID: principalFrom(r.Context()).PlatformID, ID: id, PlatformOwned: platformOwned})
		if err != nil {
			return err
		}
		if n == 0 {
			return errExternalNotFound
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	})
}
