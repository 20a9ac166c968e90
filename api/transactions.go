package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/payment"
	"paycore/internal/transfer"
	"paycore/workflows"
	"paycore/workflows/start"
)

// Transaction statuses, the values of the status filter. Outgoing transactions only ever
// hold the outgoing ones (PENDING, EXPIRED, PROCESSING, COMPLETED, FAILED; a database
// constraint keeps them so), so the others select incoming transactions.
var transactionStatuses = catalog.Names(catalog.TransactionStatuses)

var errTransactionNotFound = errorOf(transfer.TransactionNotFound())

func (s *Server) getTransaction(w http.ResponseWriter, r *http.Request) error {
	return s.serveTransactionOf(w, r, uuid.NullUUID{})
}

// serveTransactionOf is the GET of one transaction of the caller's platform, and when own
// is set (an agent's customer) only of that customer: any other is 404.
func (s *Server) serveTransactionOf(w http.ResponseWriter, r *http.Request, own uuid.NullUUID) error {
	return serveOne(w, r, "transactionId", ids.Transaction, errTransactionNotFound, func(ctx context.Context, pid, id uuid.UUID) (db.Transaction, error) {
		t, err := db.TransactionGet(ctx, s.Pool, db.TransactionGetParams{PlatformID: pid, ID: id})
		if err == nil && own.Valid && t.CustomerID != own {
			return t, errTransactionNotFound
		}
		return t, err
	}, view.TransactionOf)
}

// accountIdentifier parses an internal or external account id used as a filter.
func (q *query) accountIdentifier(name string) uuid.NullUUID {
	s := q.str(name)
	if s == nil {
		return uuid.NullUUID{}
	}
	for _, prefix := range []string{ids.InternalAccount, ids.ExternalAccount} {
		if id, err := ids.Parse(prefix, *s); err == nil {
			return uuid.NullUUID{UUID: id, Valid: true}
		}
	}
	q.fail(invalidField(name, "%s must be an InternalAccount or ExternalAccount id", name))
	return uuid.NullUUID{}
}

// listTransactions is GET /transactions: newest first unless sortOrder=asc.
func (s *Server) listTransactions(w http.ResponseWriter, r *http.Request) error {
	return serveList(s, w, r, transactionList(uuid.NullUUID{}))
}

// transactionList is the list of the platform's transactions or, when own is set (an
// agent's customer), of that customer's only, without the customerId and
// platformCustomerId filters.
func transactionList(own uuid.NullUUID) listSpec[db.TransactionFilter, db.TransactionPos, db.Transaction, view.Transaction] {
	name := "transactions"
	params := []string{"accountIdentifier", "senderAccountIdentifier", "receiverAccountIdentifier",
		"status", "type", "reference", "startDate", "endDate", "limit", "cursor", "sortOrder"}
	if own.Valid {
		name = "agent-transactions"
	} else {
		params = append([]string{"customerId", "platformCustomerId"}, params...)
	}
	return listSpec[db.TransactionFilter, db.TransactionPos, db.Transaction, view.Transaction]{
		name: name, sortable: true, params: params,
		filter: func(q *query, pid uuid.UUID) db.TransactionFilter {
			f := db.TransactionFilter{PlatformID: pid, CustomerID: own,
				AccountID: q.accountIdentifier("accountIdentifier"), SenderID: q.accountIdentifier("senderAccountIdentifier"),
				ReceiverID: q.accountIdentifier("receiverAccountIdentifier"), Status: q.enum("status", transactionStatuses...),
				Type: q.enum("type", catalog.Names(catalog.TransactionTypes)...), Reference: q.str("reference"),
				StartDate: q.time("startDate"), EndDate: q.time("endDate")}
			if own.Valid {
				return f
			}
			f.PlatformCustomerID = q.str("platformCustomerId")
			if c := q.str("customerId"); c != nil {
				if id, err := ids.Parse(ids.Customer, *c); err == nil {
					f.CustomerID = uuid.NullUUID{UUID: id, Valid: true}
				} else if id, err := ids.Parse(ids.Platform, *c); err == nil && id == pid {
					f.PlatformOnly = true
				} else {
					q.fail(invalidField("customerId", "customerId must be a Customer id, or your Platform id for the platform's own transactions"))
				}
			}
			return f
		},
		read: db.TransactionPage, pos: db.TransactionPosOf, view: view.TransactionOf,
	}
}

// serveTransaction answers a repeated payment request (its workflow already ended) with
// the transaction the first one made. None: the first was refused and its stored answer
// has expired, and since its id is spent the key stays refused.
func (s *Server) serveTransaction(w http.ResponseWriter, ctx context.Context, status int, pid, id uuid.UUID) error {
	t, err := db.TransactionGet(ctx, s.Pool, db.TransactionGetParams{PlatformID: pid, ID: id})
	if isNoRows(err) {
		return errKeyRefused
	}
	if err != nil {
		return fmt.Errorf("read transaction: %w", err)
	}
	writeJSON(w, status, view.TransactionOf(t))
	return nil
}

var errKeyRefused = refusal(catalog.IdempotencyKeyReused, "this Idempotency-Key belongs to an earlier request that was refused; use a new key", nil)

// workflowEnded reports whether a payment's workflow did not take an update because it
// ended (or ended before answering, or refused it by its validator, which no catalogue code
// names): the caller answers from the stored state instead.
func workflowEnded(err error) bool {
	var appErr *temporal.ApplicationError
	return errors.Is(err, start.ErrWorkflowClosed) || (errors.As(err, &appErr) && errorOf(err) == nil)
}

type cancelBody struct {
	Reason *string `json:"reason"`
}

// cancelTransaction is POST /transactions/{id}/cancel: the platform cancels one of its
// payments that has not left. The stored transaction's rule (payment.CheckCancel) refuses
// what can never be cancelled; the payment's workflow takes the cancellation while the
// payment waits at its rail and asks the rail, which decides; the answer is the
// transaction as it ended (FAILED, USER_CANCELLATION). Every refusal is 409
// TRANSACTION_NOT_CANCELLABLE.
func (s *Server) cancelTransaction(w http.ResponseWriter, r *http.Request) error {
	b, err := ReadJSON[cancelBody](r)
	if err != nil && r.ContentLength != 0 {
		return err
	}
	var c payment.Cancellation
	if b.Reason != nil {
		c.Reason = *b.Reason
	}
	if err := c.Check(); err != nil {
		return err
	}
	t, err := loadOne(r, "transactionId", ids.Transaction, errTransactionNotFound, func(ctx context.Context, pid, id uuid.UUID) (db.Transaction, error) {
		return db.TransactionGet(ctx, s.Pool, db.TransactionGetParams{PlatformID: pid, ID: id})
	})
	if err != nil {
		return err
	}
	if err := payment.CheckCancel(t.Kind, t.Type, t.Status); err != nil {
		return err
	}
	if _, err := s.start.CancelPayment(r.Context(), start.PaymentTarget{ID: t.ID, Kind: t.Kind, QuoteID: t.QuoteID}, c); err != nil {
		return err
	}
	return s.serveTransaction(w, r.Context(), http.StatusOK, t.PlatformID, t.ID)
}

// refundTransaction is POST /transactions/{id}/refund: the platform sends one of its
// completed incoming payments back to where it came from. The stored transaction's rule
// (payment.CheckRefund) refuses what can never be refunded; the refund's workflow opens it
// (the amount held on the account, refund PENDING) and its rail sends the money back; the
// answer is the transaction with its refund. Refusals: 409 TRANSACTION_NOT_REFUNDABLE,
// INSUFFICIENT_FUNDS when the account no longer has the amount.
func (s *Server) refundTransaction(w http.ResponseWriter, r *http.Request) error {
	if _, err := ReadJSON[struct{}](r); err != nil && r.ContentLength != 0 {
		return err
	}
	t, err := loadOne(r, "transactionId", ids.Transaction, errTransactionNotFound, func(ctx context.Context, pid, id uuid.UUID) (db.Transaction, error) {
		return db.TransactionGet(ctx, s.Pool, db.TransactionGetParams{PlatformID: pid, ID: id})
	})
	if err != nil {
		return err
	}
	if err := payment.CheckRefund(db.RefundableOf(t)); err != nil {
		return err
	}
	req := workflows.RefundRequest{TransactionID: t.ID, SlowDelay: s.Config.SandboxSlowDelay}
	if _, err := s.start.Refund(r.Context(), t.PlatformID, t.CustomerID, req); err != nil {
		return err
	}
	return s.serveTransaction(w, r.Context(), http.StatusOK, t.PlatformID, t.ID)
}
