package api

import (
	"errors"
	"net/http"
	"slices"
	"unicode/utf8"

	"github.com/google/uuid"

	"paycore/db"
	"paycore/internal/banking"
	"paycore/internal/extaccount"
	"paycore/internal/ids"
	"paycore/internal/kit/strictjson"
	"paycore/internal/transfer"
	"paycore/workflows/start"
)

type accountRef struct {
	AccountID *string `json:"accountId"`
	// PaymentRail, on a transfer out's destination, is the rail the platform chooses.
	PaymentRail *string `json:"paymentRail"`
}

type transferBody struct {
	Source                *accountRef `json:"source"`
	Destination           *accountRef `json:"destination"`
	Amount                *int64      `json:"amount"`
	Description           *string     `json:"description" blank:"ok"`
	RemittanceInformation *string     `json:"remittanceInformation"`
	PurposeOfPayment      *string     `json:"purposeOfPayment"`
}

func (s *Server) transferOut(w http.ResponseWriter, r *http.Request) error {
	return s.transfer(w, r, transfer.Out)
}

func (s *Server) transferIn(w http.ResponseWriter, r *http.Request) error {
	return s.transfer(w, r, transfer.In)
}

// transfer hands a same-currency transfer to its workflow, whose create step applies the
// transfer rule and persists it before this handler answers with the Transaction: the
// handler only decodes and checks the request's shape. Money leaves a self-custodial
// wallet only with the customer's session signature: the first call answers 202 with
// payloadToSign, the signed retry creates the transfer (and the ledger refuses the debit
// unless that retry is bound to it).
func (s *Server) transfer(w http.ResponseWriter, r *http.Request, kind transfer.Kind) error {
	req, err := s.transferRequest(r, kind)
	if err != nil {
		return err
	}
	owner, err := db.TransferOwnerGet(r.Context(), s.Pool, req.PlatformID, req.InternalAccountID)
	if err != nil {
		return err
	}
	req.CustomerID = owner.CustomerID
	if transfer.NeedsSignature(kind, owner.Type) {
		var used uuid.UUID
		if answered, err := s.requireSignature(w, r, signedRequest{accountID: req.InternalAccountID, kind: string(transfer.Out), used: &used}); answered || err != nil {
			return err
		}
		req.WalletSignature = ids.Some(used)
	}
	return s.startTransfer(w, r, req)
}

// transferRequest decodes a transfer and checks its shape. The transaction id comes from
// the Idempotency-Key when there is one.
func (s *Server) transferRequest(r *http.Request, kind transfer.Kind) (transfer.Request, error) {
	b, err := ReadJSON[transferBody](r)
	if err != nil {
		return transfer.Request{}, err
	}
	switch {
	case b.Source == nil || b.Source.AccountID == nil:
		return transfer.Request{}, invalidField("source.accountId", "source.accountId is required")
	case b.Destination == nil || b.Destination.AccountID == nil:
		return transfer.Request{}, invalidField("destination.accountId", "destination.accountId is required")
	case b.Amount == nil:
		return transfer.Request{}, invalidField("amount", "amount is required (an integer in the smallest unit of the currency)")
	case *b.Amount <= 0:
		return transfer.Request{}, invalidField("amount", "amount must be a positive integer")
	case b.Description != nil && len(*b.Description) > 500:
		return transfer.Request{}, invalidField("description", "description must be at most 500 characters")
	}
	if err := transferExtras(b, kind); err != nil {
		return transfer.Request{}, err
	}
	internalRaw, externalRaw := *b.Source.AccountID, *b.Destination.AccountID
	if kind == transfer.In {
		internalRaw, externalRaw = externalRaw, internalRaw
	}
	pid := callerPlatformID(r.Context())
	req := transfer.Request{TransactionID: ids.New(), Kind: kind, PlatformID: pid, Amount: *b.Amount, SlowDelay: s.Config.SandboxSlowDelay}
	if key := r.Header.Get(headerIdempotencyKey); key != "" {
		req.TransactionID = keyedID(pid, string(kind), key)
	}
	if b.Description != nil {
		req.Description = *b.Description
	}
	req.PaymentRail, req.RemittanceInformation, req.PurposeOfPayment = db.Deref(b.Destination.PaymentRail), db.Deref(b.RemittanceInformation), db.Deref(b.PurposeOfPayment)
	if req.InternalAccountID, err = ids.Parse(ids.InternalAccount, internalRaw); err != nil {
		return req, invalidField(kind.InternalField(), "%s must be an InternalAccount id", kind.InternalField())
	}
	if req.ExternalAccountID, err = ids.Parse(ids.ExternalAccount, externalRaw); err != nil {
		return req, invalidField(kind.ExternalField(), "%s must be an ExternalAccount id", kind.ExternalField())
	}
	return req, nil
}

// transferExtras checks what a transfer out may carry besides its accounts and amount: the
// payment rail it must travel on (one of banking.PaymentRails; the external account must
// offer it, which its create step checks), and what travels with it to the beneficiary
// (remittanceInformation, at most 80 characters of text; purposeOfPayment, one of
// transfer.PurposesOfPayment). A transfer in is pulled over the sender's rail and carries
// none of them.
func transferExtras(b transferBody, kind transfer.Kind) error {
	switch {
	case b.Source.PaymentRail != nil:
		return invalidField("source.paymentRail", "source.paymentRail: a transfer's rail is named on its external account's side (destination.paymentRail, transfers out)")
	case kind == transfer.In && b.Destination.PaymentRail != nil:
		return invalidField("destination.paymentRail", "destination.paymentRail: the destination of a transfer in is an internal account")
	case kind == transfer.In && b.RemittanceInformation != nil:
		return invalidField("remittanceInformation", "remittanceInformation travels with a transfer out only")
	case kind == transfer.In && b.PurposeOfPayment != nil:
		return invalidField("purposeOfPayment", "purposeOfPayment travels with a transfer out only")
	}
	if err := checkRemittance(b.RemittanceInformation); err != nil {
		return err
	}
	if err := checkPaymentRail(b.Destination.PaymentRail); err != nil {
		return err
	}
	return checkPurpose(b.PurposeOfPayment)
}

// checkRemittance refuses a remittanceInformation (of a transfer out or a quote) that is not
// text of at most transfer.MaxRemittanceLength characters.
func checkRemittance(v *string) error {
	if v != nil && (!strictjson.ValidText(*v) || utf8.RuneCountInString(*v) > transfer.MaxRemittanceLength) {
		return invalidField("remittanceInformation", "remittanceInformation must be text of at most %d characters", transfer.MaxRemittanceLength)
	}
	return nil
}

// checkPaymentRail refuses a destination.paymentRail (of a transfer out or a quote) that is
// not a payment rail; whether the account offers it is the payment's rule.
func checkPaymentRail(rail *string) error {
	if rail != nil && !slices.Contains(banking.PaymentRails, *rail) {
		return invalidField(banking.RailField, "%s must be one of %v", banking.RailField, banking.PaymentRails)
	}
	return nil
}

// checkPurpose refuses a purposeOfPayment (of a transfer out or a quote) outside the
// peer's enumeration.
func checkPurpose(purpose *string) error {
	if purpose != nil && !slices.Contains(transfer.PurposesOfPayment, *purpose) {
		return invalidField("purposeOfPayment", "purposeOfPayment must be one of %v", transfer.PurposesOfPayment)
	}
	return nil
}

// startTransfer starts the transfer's workflow and answers with the Transaction its create
// update committed, or with the transaction an earlier request with the same
// Idempotency-Key created.
func (s *Server) startTransfer(w http.ResponseWriter, r *http.Request, req transfer.Request) error {
	created, err := s.start.Transfer(r.Context(), req)
	if errors.Is(err, start.ErrPaymentExists) {
		return s.serveTransaction(w, r.Context(), http.StatusCreated, req.PlatformID, req.TransactionID)
	}
	if err != nil {
		return err
	}
	// The update answers with the Transaction as it was committed.
	writeRaw(w, http.StatusCreated, created)
	return nil
}

// keyedID derives the transaction id from the Idempotency-Key, so a request repeated after
// a crash joins the same workflow instead of creating a second payment.
func keyedID(platformID uuid.UUID, kind, key string) uuid.UUID {
	return ids.Derive(platformID.String(), kind, key)
}

// errExternalNotFound is the 404 of an external account the caller's platform does not have.
var errExternalNotFound = errorOf(extaccount.NotFound())
