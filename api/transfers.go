package api

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/ids"
	"paycore/internal/transfer"
	"paycore/workflows/start"
)

type accountRef struct {
	AccountID *string `json:"accountId"`
}

type transferBody struct {
	Source      *accountRef `json:"source"`
	Destination *accountRef `json:"destination"`
	Amount      *int64      `json:"amount"`
	Description *string     `json:"description" blank:"ok"`
}

func (s *Server) transferOut(w http.ResponseWriter, r *http.Request) error {
	return s.transfer(w, r, transfer.Out)
}

func (s *Server) transferIn(w http.ResponseWriter, r *http.Request) error {
	return s.transfer(w, r, transfer.In)
}

// transfer validates a same-currency transfer against the caller's accounts and the
// platform configuration, then hands it to its workflow, which persists it before this
// handler answers with the Transaction.
func (s *Server) transfer(w http.ResponseWriter, r *http.Request, kind string) error {
	b, err := ReadJSON[transferBody](r)
	if err != nil {
		return err
	}
	switch {
	case b.Source == nil || b.Source.AccountID == nil:
		return invalidField("source.accountId", "source.accountId is required")
	case b.Destination == nil || b.Destination.AccountID == nil:
		return invalidField("destination.accountId", "destination.accountId is required")
	case b.Amount == nil:
		return invalidField("amount", "amount is required (an integer in the smallest unit of the currency)")
	case *b.Amount <= 0:
		return invalidField("amount", "amount must be a positive integer")
	case b.Description != nil && len(*b.Description) > 500:
		return invalidField("description", "description must be at most 500 characters")
	}
	internalField, externalField := "source.accountId", "destination.accountId"
	internalRaw, externalRaw := *b.Source.AccountID, *b.Destination.AccountID
	if kind == transfer.In {
		internalField, externalField = externalField, internalField
		internalRaw, externalRaw = externalRaw, internalRaw
	}
	internalID, err := ids.Parse(ids.InternalAccount, internalRaw)
	if err != nil {
		return invalidField(internalField, "%s must be an InternalAccount id", internalField)
	}
	externalID, err := ids.Parse(ids.ExternalAccount, externalRaw)
	if err != nil {
		return invalidField(externalField, "%s must be an ExternalAccount id", externalField)
	}
	pr := principalFrom(r.Context())
	ctx := r.Context()
	tc, err := s.q.TransferContext(ctx, db.TransferContextParams{PlatformID: pr.PlatformID, InternalID: internalID, ExternalID: externalID})
	if isNoRows(err) {
		// Say which account is unknown.
		if _, err := s.q.InternalAccountGet(ctx, db.InternalAccountGetParams{PlatformID: pr.PlatformID, ID: internalID}); isNoRows(err) {
			return errAccountNotFound
		}
		return errExternalNotFound
	}
	if err != nil {
		return fmt.Errorf("load transfer accounts: %w", err)
	}
	if tc.InternalCurrency != tc.ExternalCurrency {
		return &Error{Status: http.StatusBadRequest, Code: "INVALID_CURRENCY", Details: map[string]any{"field": externalField},
			Message: fmt.Sprintf("same-currency transfer: the internal account holds %s but the external account is in %s", tc.InternalCurrency, tc.ExternalCurrency)}
	}
	if tc.InternalCustomerID != tc.ExternalCustomerID {
		return invalidField(externalField, "the external account belongs to another owner than the internal account")
	}
	if tc.InternalStatus != "ACTIVE" {
		return invalidField(internalField, "the internal account is %s", tc.InternalStatus)
	}
	if tc.ExternalStatus != "ACTIVE" {
		return invalidField(externalField, "the external account is %s", tc.ExternalStatus)
	}
	if tc.CustomerDeleted {
		return &Error{Status: http.StatusGone, Code: "CUSTOMER_DELETED", Message: "the accounts' customer is deleted"}
	}
	customerID := ""
	if tc.InternalCustomerID.Valid {
		customerID = tc.InternalCustomerID.UUID.String()
	}
	var cur []CurrencyConfig
	if err := json.Unmarshal(tc.SupportedCurrencies, &cur); err != nil {
		return fmt.Errorf("decode supported currencies: %w", err)
	}
	if err := checkAmountConfig(cur, tc.InternalCurrency, kind, *b.Amount); err != nil {
		return err
	}
	// Money leaves a self-custodial wallet only with the customer's session signature:
	// the first call answers 202 with payloadToSign, the signed retry creates the transfer
	// (and the ledger refuses the debit unless that retry is bound to it). A balance too
	// low is refused before the customer is asked to sign.
	var signature uuid.UUID
	if kind == transfer.Out && tc.InternalType == TypeEmbeddedWallet {
		if tc.InternalAvailable < *b.Amount {
			return &Error{Status: http.StatusBadRequest, Code: "INSUFFICIENT_FUNDS", Details: map[string]any{"field": "amount"},
				Message: fmt.Sprintf("the account's available balance is below %d", *b.Amount)}
		}
		ch, err := s.signedRetry(r, signedRequest{accountID: internalID, kind: transfer.Out, used: &signature})
		if err != nil {
			return err
		}
		if ch != nil {
			writeJSON(w, http.StatusAccepted, ch)
			return nil
		}
	}
	txID := ids.New()
	if key := r.Header.Get(headerIdempotencyKey); key != "" {
		txID = keyedID(pr.PlatformID, kind, key)
	}
	req := transfer.Request{TransactionID: txID.String(), Kind: kind, PlatformID: pr.PlatformID.String(), CustomerID: customerID,
		InternalAccountID: internalID.String(), ExternalAccountID: externalID.String(), Currency: tc.InternalCurrency, Amount: *b.Amount,
		SlowDelay: s.Config.SandboxSlowDelay}
	if b.Description != nil {
		req.Description = *b.Description
	}
	if signature != uuid.Nil {
		req.WalletSignature = signature.String()
	}
	created, err := s.start.Transfer(ctx, req)
	if errors.Is(err, start.ErrTransferExists) {
		t, err := s.q.TransactionGet(ctx, db.TransactionGetParams{PlatformID: pr.PlatformID, ID: txID})
		if isNoRows(err) {
			// The key's earlier transfer was refused and its stored answer has expired.
			return &Error{Status: http.StatusUnprocessableEntity, Code: CodeIdempotencyMismatch,
				Message: "this Idempotency-Key belongs to an earlier transfer request that was refused; use a new key"}
		}
		if err != nil {
			return fmt.Errorf("read transaction: %w", err)
		}
		writeJSON(w, http.StatusCreated, view.TransactionOf(t))
		return nil
	}
	if err != nil {
		return transferRefusal(err)
	}
	// The update answers with the Transaction as it was committed.
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_, _ = w.Write(append(created, '\n'))
	return nil
}

// checkAmountConfig applies the platform's currency configuration.
func checkAmountConfig(cur []CurrencyConfig, currency, kind string, amount int64) error {
	txType := "OUTGOING"
	if kind == transfer.In {
		txType = "INCOMING"
	}
	for _, c := range cur {
		if c.CurrencyCode != currency {
			continue
		}
		if !slices.Contains(c.EnabledTransactionTypes, txType) {
			return invalid("%s transactions are not enabled for %s in the platform configuration", txType, currency)
		}
		if amount < c.MinAmount || amount > c.MaxAmount {
			return &Error{Status: http.StatusBadRequest, Code: "AMOUNT_OUT_OF_RANGE", Details: map[string]any{"field": "amount", "minAmount": c.MinAmount, "maxAmount": c.MaxAmount},
				Message: fmt.Sprintf("amount must be from %d to %d %s (platform configuration)", c.MinAmount, c.MaxAmount, currency)}
		}
		return nil
	}
	return invalid("the platform does not support %s", currency)
}

// keyedID derives the transaction id from the Idempotency-Key, so a request repeated after
// a crash joins the same workflow instead of creating a second payment.
func keyedID(platformID uuid.UUID, kind, key string) uuid.UUID {
	sum := sha256.Sum256([]byte(platformID.String() + "\x00" + kind + "\x00" + key))
	var id uuid.UUID
	copy(id[:], sum[:16])
	id[6] = (id[6] & 0x0f) | 0x80 // version 8: custom
	id[8] = (id[8] & 0x3f) | 0x80 // RFC 4122 variant
	return id
}

func transferRefusal(err error) error {
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) {
		return err
	}
	switch appErr.Type() {
	case transfer.ErrInsufficientFunds:
		return &Error{Status: http.StatusBadRequest, Code: "INSUFFICIENT_FUNDS", Message: appErr.Message()}
	case transfer.ErrAccountInactive:
		return invalid("%s", appErr.Message())
	case transfer.ErrWalletSignatureRequired:
		return &Error{Status: http.StatusForbidden, Code: "WALLET_SIGNATURE_REQUIRED", Message: appErr.Message()}
	case transfer.ErrCustomerDeleted:
		return &Error{Status: http.StatusGone, Code: "CUSTOMER_DELETED", Message: appErr.Message()}
	}
	return err
}

var errExternalNotFound = notFound("EXTERNAL_ACCOUNT_NOT_FOUND", "external account")
