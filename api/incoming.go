package api

import (
	"context"
	"errors"
	"net/http"

	"github.com/google/uuid"

	"paycore/db"
	"paycore/internal/ids"
	"paycore/internal/incoming"
	"paycore/internal/quote"
	"paycore/workflows/start"
)

type umaReceiveBody struct {
	SenderUmaAddress        *string `json:"senderUmaAddress"`
	ReceiverUmaAddress      *string `json:"receiverUmaAddress"`
	CustomerID              *string `json:"customerId"`
	ReceivingCurrencyCode   *string `json:"receivingCurrencyCode"`
	ReceivingCurrencyAmount *int64  `json:"receivingCurrencyAmount"`
}

// sandboxUmaReceive is POST /sandbox/uma/receive: it simulates a payment from one of the
// sandbox's UMA senders to a customer (by UMA address or id) and answers 200 with the
// INCOMING transaction once its workflow has persisted it; the workflow then asks the
// platform to approve it.
func (s *Server) sandboxUmaReceive(w http.ResponseWriter, r *http.Request) error {
	b, err := ReadJSON[umaReceiveBody](r)
	if err != nil {
		return err
	}
	switch {
	case b.SenderUmaAddress == nil:
		return invalidField("senderUmaAddress", "senderUmaAddress is required")
	case (b.ReceiverUmaAddress == nil) == (b.CustomerID == nil):
		return invalidField("receiverUmaAddress", "give receiverUmaAddress or customerId, one of them")
	case b.ReceivingCurrencyCode == nil || !currencyCode(*b.ReceivingCurrencyCode):
		return invalidField("receivingCurrencyCode", "receivingCurrencyCode must be a currency code such as USD")
	case b.ReceivingCurrencyAmount == nil || *b.ReceivingCurrencyAmount <= 0 || *b.ReceivingCurrencyAmount > quote.MaxLockedAmount:
		return invalidField("receivingCurrencyAmount", "receivingCurrencyAmount must be from 1 to %d", int64(quote.MaxLockedAmount))
	}
	sender, err := incoming.SandboxCounterparty("senderUmaAddress", *b.SenderUmaAddress)
	if err != nil {
		return err
	}
	pid := principalFrom(r.Context()).PlatformID
	req := incoming.Request{TransactionID: ids.New(), PlatformID: pid, Sender: sender, Currency: *b.ReceivingCurrencyCode,
		Amount: *b.ReceivingCurrencyAmount, ApprovalDeadline: s.Config.ApprovalDeadline, SlowDelay: s.Config.QuoteSlowDelay}
	if key := r.Header.Get(headerIdempotencyKey); key != "" {
		req.TransactionID = keyedID(pid, incoming.Kind, key)
	}
	if b.ReceiverUmaAddress != nil {
		req.ReceiverUma = *b.ReceiverUmaAddress
	} else {
		id, err := ids.Parse(ids.Customer, *b.CustomerID)
		if err != nil {
			return invalidField("customerId", "customerId must be a Customer id")
		}
		req.ReceiverCustomer, req.CustomerID = ids.Some(id), ids.Some(id)
	}
	created, err := s.start.IncomingPayment(r.Context(), req)
	if errors.Is(err, start.ErrPaymentExists) {
		return s.serveTransaction(w, r.Context(), http.StatusOK, pid, req.TransactionID)
	}
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, created)
	return nil
}

type approveBody struct {
	ReceiverCustomerInfo map[string]string `json:"receiverCustomerInfo"`
}

type rejectBody struct {
	Reason *string `json:"reason"`
}

// approveTransaction is POST /transactions/{id}/approve: the platform approves an
// incoming payment it answered 202 for, within the deadline.
func (s *Server) approveTransaction(w http.ResponseWriter, r *http.Request) error {
	b, err := ReadJSON[approveBody](r)
	if err != nil && r.ContentLength != 0 {
		return err
	}
	return s.decide(w, r, incoming.Approve(b.ReceiverCustomerInfo))
}

// rejectTransaction is POST /transactions/{id}/reject.
func (s *Server) rejectTransaction(w http.ResponseWriter, r *http.Request) error {
	b, err := ReadJSON[rejectBody](r)
	if err != nil && r.ContentLength != 0 {
		return err
	}
	reason := ""
	if b.Reason != nil {
		reason = *b.Reason
	}
	return s.decide(w, r, incoming.Reject(reason))
}

// decide hands the platform's decision on the caller's transaction to the payment's
// workflow and answers with the transaction as it ended; a payment not awaiting the
// decision is refused by its state machine (409 TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL).
func (s *Server) decide(w http.ResponseWriter, r *http.Request, d incoming.Decision) error {
	t, err := loadOne(r, "transactionId", ids.Transaction, errTransactionNotFound, func(ctx context.Context, pid, id uuid.UUID) (db.Transaction, error) {
		return db.TransactionGet(ctx, s.Pool, db.TransactionGetParams{PlatformID: pid, ID: id})
	})
	if err != nil {
		return err
	}
	res, err := s.start.Decide(r.Context(), start.IncomingTarget{ID: t.ID, Kind: t.Kind, Status: t.Status}, d)
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, res)
	return nil
}
