package api

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"unicode/utf8"

	"github.com/google/uuid"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/platformfee"
	"paycore/internal/quote"
	"paycore/internal/sandbox"
	"paycore/internal/walletauth"
	"paycore/workflows/start"
)

type quoteSourceBody struct {
	SourceType    *string `json:"sourceType"`
	AccountID     *string `json:"accountId"`
	CustomerID    *string `json:"customerId"`
	Currency      *string `json:"currency"`
	CryptoNetwork *string `json:"cryptoNetwork"`
}

type quoteDestinationBody struct {
	DestinationType *string `json:"destinationType"`
	AccountID       *string `json:"accountId"`
	PaymentRail     *string `json:"paymentRail"`
	UmaAddress      *string `json:"umaAddress"`
	Currency        *string `json:"currency"`
}

type quoteBody struct {
	LookupID              *string                    `json:"lookupId"`
	Source                *quoteSourceBody           `json:"source"`
	Destination           *quoteDestinationBody      `json:"destination"`
	LockedCurrencySide    *string                    `json:"lockedCurrencySide"`
	LockedCurrencyAmount  *int64                     `json:"lockedCurrencyAmount"`
	ImmediatelyExecute    *bool                      `json:"immediatelyExecute"`
	Description           *string                    `json:"description" blank:"ok"`
	PurposeOfPayment      *string                    `json:"purposeOfPayment"`
	RemittanceInformation *string                    `json:"remittanceInformation"`
	PlatformFeeOverride   *platformfee.OverrideInput `json:"platformFeeOverride"`
	SenderCustomerInfo    map[string]string          `json:"senderCustomerInfo"`
}

var errQuoteNotFound = errorOf(quote.NotFound())

// createQuote is POST /quotes: the quote's workflow prices and persists it (its create
// update) before this handler answers 201 with the Quote; the handler only decodes and
// checks the request's shape. A repeated Idempotency-Key answers the same quote.
func (s *Server) createQuote(w http.ResponseWriter, r *http.Request) error {
	req, err := s.quoteRequest(r)
	if err != nil {
		return err
	}
	// The payer, a search attribute of the quote's workflow: the customer a deposit is for,
	// or the source account's.
	req.CustomerID = req.Source.CustomerID
	if req.Source.Kind == quote.SourceAccount {
		owner, err := db.TransferOwnerGet(r.Context(), s.Pool, req.PlatformID, req.Source.AccountID)
		if err != nil {
			return err
		}
		req.CustomerID = owner.CustomerID
	}
	return s.startQuote(w, r, req)
}

// startQuote starts the quote's workflow and answers 201 with the Quote its create update
// committed, or with the quote an earlier request with the same Idempotency-Key created.
func (s *Server) startQuote(w http.ResponseWriter, r *http.Request, req quote.Request) error {
	created, err := s.start.Quote(r.Context(), req)
	if errors.Is(err, start.ErrPaymentExists) {
		q, err := db.QuoteGet(r.Context(), s.Pool, db.QuoteGetParams{PlatformID: req.PlatformID, ID: req.QuoteID})
		if isNoRows(err) {
			return errKeyRefused
		}
		if err != nil {
			return fmt.Errorf("read quote: %w", err)
		}
		writeJSON(w, http.StatusCreated, view.QuoteOf(db.QuoteWithTransaction(q)))
		return nil
	}
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusCreated, created)
	return nil
}

// quoteRequest decodes a quote request and checks its shape. The quote id comes from the
// Idempotency-Key when there is one.
func (s *Server) quoteRequest(r *http.Request) (quote.Request, error) {
	b, err := ReadJSON[quoteBody](r)
	if err != nil {
		return quote.Request{}, err
	}
	pid := callerPlatformID(r.Context())
	req := quote.Request{QuoteID: ids.New(), TransactionID: ids.New(), PlatformID: pid, Lifetime: s.Config.QuoteLifetime,
		SlowDelay: s.Config.QuoteSlowDelay, ReturnDelay: s.Config.QuoteReturnDelay, LateDepositWindow: s.Config.QuoteLateDeposits,
		ApprovalDeadline: s.Config.ApprovalDeadline}
	if key := r.Header.Get(headerIdempotencyKey); key != "" {
		key = scopedKey(r.Context(), key)
		req.QuoteID, req.TransactionID = keyedID(pid, "QUOTE", key), keyedID(pid, "QUOTE_TRANSACTION", key)
	}
	req.ExecutePath = r.URL.Path + "/" + ids.Format(ids.Quote, req.QuoteID) + "/execute"
	if req.Source, err = quoteSource(b.Source); err != nil {
		return req, err
	}
	if req.Destination, err = quoteDestination(b.Destination); err != nil {
		return req, err
	}
	switch {
	case b.LockedCurrencySide == nil:
		return req, invalidField("lockedCurrencySide", "lockedCurrencySide is required (SENDING or RECEIVING)")
	case *b.LockedCurrencySide != string(quote.Sending) && *b.LockedCurrencySide != string(quote.Receiving):
		return req, invalidField("lockedCurrencySide", "lockedCurrencySide must be SENDING or RECEIVING")
	case b.LockedCurrencyAmount == nil:
		return req, invalidField("lockedCurrencyAmount", "lockedCurrencyAmount is required (an integer in the smallest unit of the locked side's currency)")
	case *b.LockedCurrencyAmount <= 0 || *b.LockedCurrencyAmount > quote.MaxLockedAmount:
		return req, invalidField("lockedCurrencyAmount", "lockedCurrencyAmount must be from 1 to %d", int64(quote.MaxLockedAmount))
	case b.Description != nil && utf8.RuneCountInString(*b.Description) > 500:
		return req, invalidField("description", "description must be at most 500 characters")
	}
	if err := checkPurpose(b.PurposeOfPayment); err != nil {
		return req, err
	}
	if err := checkRemittance(b.RemittanceInformation); err != nil {
		return req, err
	}
	if req.PlatformFeeOverride, err = platformfee.CheckOverride(b.PlatformFeeOverride, "platformFeeOverride"); err != nil {
		return req, err
	}
	if b.LookupID != nil {
		id, err := ids.Parse(ids.Lookup, *b.LookupID)
		if err != nil {
			return req, invalidField("lookupId", "lookupId must be a Lookup id from GET /receiver/...")
		}
		req.Lookup = ids.Some(id)
	}
	for name, v := range b.SenderCustomerInfo {
		switch {
		case !slices.Contains(catalog.CustomerInfoFields(), name):
			return req, invalidField("senderCustomerInfo."+name, "senderCustomerInfo keys must be customer information field names (%v)", catalog.CustomerInfoFields())
		case utf8.RuneCountInString(v) > 255:
			return req, invalidField("senderCustomerInfo."+name, "senderCustomerInfo.%s must be at most 255 characters", name)
		}
	}
	req.LockedSide, req.LockedAmount = quote.Side(*b.LockedCurrencySide), *b.LockedCurrencyAmount
	req.ImmediatelyExecute = b.ImmediatelyExecute != nil && *b.ImmediatelyExecute
	req.SenderCustomerInfo = b.SenderCustomerInfo
	for dst, src := range map[*string]*string{&req.Description: b.Description, &req.PurposeOfPayment: b.PurposeOfPayment, &req.LookupID: b.LookupID,
		&req.RemittanceInformation: b.RemittanceInformation} {
		if src != nil {
			*dst = *src
		}
	}
	return req, nil
}

// quoteSource checks a quote's source.
func quoteSource(b *quoteSourceBody) (quote.Source, error) {
	var out quote.Source
	if b == nil {
		return out, invalidField("source", "source is required")
	}
	if b.SourceType == nil {
		return out, invalidField("source.sourceType", "source.sourceType is required (ACCOUNT or REALTIME_FUNDING)")
	}
	if b.Currency != nil && !currencyCode(*b.Currency) {
		return out, invalidField("source.currency", "source.currency must be a currency code such as USD")
	}
	if b.CustomerID != nil {
		id, err := ids.Parse(ids.Customer, *b.CustomerID)
		if err != nil {
			return out, invalidField("source.customerId", "source.customerId must be a Customer id")
		}
		out.CustomerID = ids.Some(id)
	}
	switch quote.SourceKind(*b.SourceType) {
	case quote.SourceAccount:
		if b.AccountID == nil {
			return out, invalidField("source.accountId", "source.accountId is required for an ACCOUNT source")
		}
		id, err := ids.Parse(ids.InternalAccount, *b.AccountID)
		if err != nil {
			return out, invalidField("source.accountId", "source.accountId must be an InternalAccount id")
		}
		out.Kind, out.AccountID = quote.SourceAccount, id
	case quote.SourceRealtimeFunding:
		if b.Currency == nil {
			return out, invalidField("source.currency", "source.currency is required for a REALTIME_FUNDING source")
		}
		out.Kind = quote.SourceRealtimeFunding
		if b.CryptoNetwork != nil {
			out.CryptoNetwork = *b.CryptoNetwork
		}
	default:
		return out, invalidField("source.sourceType", "source.sourceType must be ACCOUNT or REALTIME_FUNDING")
	}
	if b.Currency != nil {
		out.Currency = *b.Currency
	}
	return out, nil
}

// quoteDestination checks a quote's destination.
func quoteDestination(b *quoteDestinationBody) (quote.Destination, error) {
	var out quote.Destination
	switch {
	case b == nil:
		return out, invalidField("destination", "destination is required")
	case b.DestinationType == nil:
		return out, invalidField("destination.destinationType", "destination.destinationType is required (ACCOUNT or UMA_ADDRESS)")
	case b.Currency != nil && !currencyCode(*b.Currency):
		return out, invalidField("destination.currency", "destination.currency must be a currency code such as EUR")
	}
	if err := checkPaymentRail(b.PaymentRail); err != nil {
		return out, err
	}
	switch quote.DestinationKind(*b.DestinationType) {
	case quote.DestinationAccount:
		if b.AccountID == nil {
			return out, invalidField("destination.accountId", "destination.accountId is required for an ACCOUNT destination")
		}
		if id, err := ids.Parse(ids.ExternalAccount, *b.AccountID); err == nil {
			out.AccountID = id
		} else if id, err := ids.Parse(ids.InternalAccount, *b.AccountID); err == nil {
			out.AccountID, out.Internal = id, true
		} else {
			return out, invalidField("destination.accountId", "destination.accountId must be an ExternalAccount or InternalAccount id")
		}
		out.Kind = quote.DestinationAccount
	case quote.DestinationUMA:
		if b.UmaAddress == nil {
			return out, invalidField("destination.umaAddress", "destination.umaAddress is required for a UMA_ADDRESS destination")
		}
		out.Kind, out.UmaAddress = quote.DestinationUMA, *b.UmaAddress
	default:
		return out, invalidField("destination.destinationType", "destination.destinationType must be ACCOUNT or UMA_ADDRESS")
	}
	if b.Currency != nil {
		out.Currency = *b.Currency
	}
	if b.PaymentRail != nil {
		out.PaymentRail = *b.PaymentRail
	}
	return out, nil
}

// currencyCode reports whether s looks like a currency code: 3 to 5 upper-case letters.
func currencyCode(s string) bool {
	if len(s) < 3 || len(s) > 5 {
		return false
	}
	for _, c := range s {
		if c < 'A' || c > 'Z' {
			return false
		}
	}
	return true
}

// getQuote is GET /quotes/{quoteId}.
func (s *Server) getQuote(w http.ResponseWriter, r *http.Request) error {
	return serveOne(w, r, "quoteId", ids.Quote, errQuoteNotFound, func(ctx context.Context, pid, id uuid.UUID) (db.QuoteGetRow, error) {
		return db.QuoteGet(ctx, s.Pool, db.QuoteGetParams{PlatformID: pid, ID: id})
	}, func(q db.QuoteGetRow) view.Quote { return view.QuoteOf(db.QuoteWithTransaction(q)) })
}

// handleQuoteExecute is POST /quotes/{quoteId}/execute: the quote's workflow holds the
// sending amount (its execute update) before this handler answers 200 with the Quote, then
// pays. Money leaves an embedded wallet only with the customer's session signature: the
// first call answers 202 with a payloadToSign and the signed retry executes, or a signature
// made up front over the quote's own payloadToSign (its payment instructions) executes at
// once. Whether the quote may be executed is the quote's state machine's to say, under the
// quote's lock (db.QuoteExecute): its refusal is the answer (409 QUOTE_NOT_PENDING for a
// quote executed by another request, expired or ended); a repeated request (same
// Idempotency-Key) answers the quote.
func (s *Server) handleQuoteExecute(w http.ResponseWriter, r *http.Request) error {
	row, err := loadOne(r, "quoteId", ids.Quote, errQuoteNotFound, func(ctx context.Context, pid, id uuid.UUID) (db.QuoteGetRow, error) {
		return db.QuoteGet(ctx, s.Pool, db.QuoteGetParams{PlatformID: pid, ID: id})
	})
	if err != nil {
		return err
	}
	e := quote.Execution{Key: requestKey(r)}
	if row.PayloadToSign != "" && db.QuoteSnapshot(row.Quote, row.Transaction).AwaitsExecution(e.Key) { // an embedded-wallet source
		var used uuid.UUID
		sr := signedRequest{accountID: row.Quote.SourceAccountID.UUID, kind: walletauth.KindExecuteQuote, used: &used, upFront: row.Quote.SignedRequestID}
		if answered, err := s.requireSignature(w, r, sr); answered || err != nil {
			return err
		}
		e.WalletSignature = ids.Some(used)
	}
	res, err := s.quoteExecute(r.Context(), row.Quote.ID, e)
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, res)
	return nil
}

// quoteExecute executes a quote through its workflow (start.QuoteExecute), which pays it.
// A quote whose workflow has ended takes no execution: db.QuoteExecute answers in its
// place, under the quote's lock, with the repeat of the request that executed it or the
// state machine's refusal, and holds nothing.
func (s *Server) quoteExecute(ctx context.Context, quoteID uuid.UUID, e quote.Execution) (json.RawMessage, error) {
	res, err := s.start.QuoteExecute(ctx, quoteID, e)
	if !workflowEnded(err) {
		return res, err
	}
	q, err := s.store.QuoteExecute(ctx, quoteID, e, s.now(), false)
	if err != nil {
		return nil, err
	}
	return renderJSON(view.QuoteOf(q))
}

// quoteFund sends a deposit to a REALTIME_FUNDING quote's workflow (start.FundQuote). A
// quote whose workflow has ended takes no deposit: db.QuoteFund answers in its place with
// the state machine's refusal.
func (s *Server) quoteFund(ctx context.Context, quoteID uuid.UUID, d quote.Deposit) (json.RawMessage, error) {
	res, err := s.start.FundQuote(ctx, quoteID, d)
	if !workflowEnded(err) {
		return res, err
	}
	f, err := s.store.QuoteFund(ctx, quoteID, d, s.now(), false)
	if err != nil {
		return nil, err
	}
	return renderJSON(view.TransactionOf(f.Transaction))
}

// renderJSON encodes a resource.
func renderJSON(v any) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	return b, nil
}

// requestKey identifies an execute or deposit request: derived from its Idempotency-Key (a repeat
// is the same request), random without one.
func requestKey(r *http.Request) string {
	key := r.Header.Get(headerIdempotencyKey)
	if key == "" {
		return "request:" + ids.New().String()
	}
	sum := sha256.Sum256([]byte(principalFrom(r.Context()).PlatformID.String() + "\x00" + key))
	return "key:" + hex.EncodeToString(sum[:])
}

type sandboxSendBody struct {
	QuoteID        *string `json:"quoteId"`
	CurrencyCode   *string `json:"currencyCode"`
	CurrencyAmount *int64  `json:"currencyAmount"`
	Amount         *int64  `json:"amount"`
}

// sandboxSend is POST /sandbox/send: it simulates the deposit that funds a
// REALTIME_FUNDING quote (currencyAmount, or amount, defaults to the quote's total) and
// answers with the OUTGOING transaction once the quote's workflow has recorded it. The
// payment then proceeds; a deposit that differs from the total fails it
// (FUNDING_AMOUNT_MISMATCH) and is refunded; one after the quote expired is sent back
// (refund TIMEOUT).
func (s *Server) sandboxSend(w http.ResponseWriter, r *http.Request) error {
	b, err := ReadJSON[sandboxSendBody](r)
	if err != nil {
		return err
	}
	switch {
	case b.QuoteID == nil:
		return invalidField("quoteId", "quoteId is required")
	case b.CurrencyCode == nil:
		return invalidField("currencyCode", "currencyCode is required")
	case b.CurrencyAmount != nil && b.Amount != nil:
		return invalidField("amount", "give currencyAmount or amount, not both")
	}
	amount := b.CurrencyAmount
	if amount == nil {
		amount = b.Amount
	}
	if amount != nil && (*amount <= 0 || *amount > quote.MaxLockedAmount) {
		return invalidField("currencyAmount", "currencyAmount must be from 1 to %d", int64(quote.MaxLockedAmount))
	}
	id, err := ids.Parse(ids.Quote, *b.QuoteID)
	if err != nil {
		return invalidField("quoteId", "quoteId must be a Quote id")
	}
	pid := principalFrom(r.Context()).PlatformID
	row, err := db.QuoteGet(r.Context(), s.Pool, db.QuoteGetParams{PlatformID: pid, ID: id})
	if isNoRows(err) {
		return errQuoteNotFound
	}
	if err != nil {
		return fmt.Errorf("read quote: %w", err)
	}
	if err := quote.CheckDepositRequest(quote.SourceKind(row.Quote.SourceKind), row.Transaction.Currency, *b.CurrencyCode); err != nil {
		return err
	}
	deposit := row.Transaction.Amount
	if amount != nil {
		deposit = *amount
	}
	d := quote.Deposit{Key: requestKey(r), Amount: deposit}
	if o, ok := quote.SandboxOriginator(row.Transaction.Currency, row.Transaction.Reference, id); ok {
		d.Originator = &o
	}
	if row.Quote.CryptoNetwork != nil { // a crypto deposit: its transaction on the network
		d.OnChain = sandbox.OnChain(*row.Quote.CryptoNetwork, "deposit/"+id.String()+"/"+d.Key)
	}
	res, err := s.quoteFund(r.Context(), id, d)
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, res)
	return nil
}
