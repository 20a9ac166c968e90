package api

import (
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/cursor"
	"paycore/internal/ids"
)

// Transaction statuses, the values of the status filter. Outgoing transactions only ever
// hold the outgoing ones (PENDING, EXPIRED, PROCESSING, COMPLETED, FAILED; a database
// constraint keeps them so), so the others select incoming transactions.
var transactionStatuses = []string{"CREATED", "PENDING", "PROCESSING", "COMPLETED", "REJECTED", "FAILED", "REFUNDED", "EXPIRED"}

var errTransactionNotFound = notFound("TRANSACTION_NOT_FOUND", "transaction")

func (s *Server) getTransaction(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "transactionId", ids.Transaction, errTransactionNotFound)
	if err != nil {
		return err
	}
	t, err := s.q.TransactionGet(r.Context(), db.TransactionGetParams{PlatformID: principalFrom(r.Context()).PlatformID, ID: id})
	if isNoRows(err) {
		return errTransactionNotFound
	}
	if err != nil {
		return fmt.Errorf("get transaction: %w", err)
	}
	writeJSON(w, http.StatusOK, view.TransactionOf(t))
	return nil
}

type txCursor struct {
	Created time.Time `json:"c"`
	ID      uuid.UUID `json:"id"`
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

func (s *Server) listTransactions(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r, "customerId", "platformCustomerId", "accountIdentifier", "senderAccountIdentifier", "receiverAccountIdentifier",
		"status", "type", "reference", "startDate", "endDate", "limit", "cursor", "sortOrder")
	pid := principalFrom(r.Context()).PlatformID
	p := db.TransactionListParams{PlatformID: pid, PlatformCustomerID: q.str("platformCustomerId"),
		AccountID: q.accountIdentifier("accountIdentifier"), SenderID: q.accountIdentifier("senderAccountIdentifier"),
		ReceiverID: q.accountIdentifier("receiverAccountIdentifier"), Status: q.enum("status", transactionStatuses...),
		Type: q.enum("type", "INCOMING", "OUTGOING"), Reference: q.str("reference"),
		StartDate: q.time("startDate"), EndDate: q.time("endDate")}
	if c := q.str("customerId"); c != nil {
		if id, err := ids.Parse(ids.Customer, *c); err == nil {
			p.CustomerID = uuid.NullUUID{UUID: id, Valid: true}
		} else if id, err := ids.Parse(ids.Platform, *c); err == nil && id == pid {
			p.PlatformOnly = true
		} else {
			q.fail(invalidField("customerId", "customerId must be a Customer id, or your Platform id for the platform's own transactions"))
		}
	}
	order := q.enum("sortOrder", "asc", "desc")
	p.Ascending = order != nil && *order == "asc"
	list := map[bool]string{true: "transactions-asc", false: "transactions-desc"}[p.Ascending]
	limit := q.limit()
	var pos txCursor
	if q.cursor(list, &pos) {
		p.AfterCreated = &pos.Created
		p.AfterID = uuid.NullUUID{UUID: pos.ID, Valid: true}
	}
	if q.err != nil {
		return q.err
	}
	p.RowLimit = limit + 1
	rows, err := s.q.TransactionList(r.Context(), p)
	if err != nil {
		return fmt.Errorf("list transactions: %w", err)
	}
	total, err := s.q.TransactionCount(r.Context(), db.TransactionCountParams{PlatformID: pid, PlatformOnly: p.PlatformOnly,
		CustomerID: p.CustomerID, PlatformCustomerID: p.PlatformCustomerID, AccountID: p.AccountID, SenderID: p.SenderID,
		ReceiverID: p.ReceiverID, Status: p.Status, Type: p.Type, Reference: p.Reference, StartDate: p.StartDate, EndDate: p.EndDate})
	if err != nil {
		return fmt.Errorf("count transactions: %w", err)
	}
	writeJSON(w, http.StatusOK, page(rows, limit, total, view.TransactionOf, func(t db.Transaction) string {
		return cursor.Encode(list, txCursor{Created: t.CreatedAt, ID: t.ID})
	}))
	return nil
}
