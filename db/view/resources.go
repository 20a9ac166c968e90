package view

import (
	"github.com/google/uuid"

	"paycore/db"
)

// Resources presents rows for the db operations (db.Views): the resources their webhook
// events carry, rendered as the API renders them, and a transaction's reference.
type Resources struct{}

var _ db.Views = Resources{}

// Transaction renders a transaction.
func (Resources) Transaction(t db.Transaction) any { return TransactionOf(t) }

// InternalAccount renders an internal account with its ledger balance and held amount.
func (Resources) InternalAccount(a db.InternalAccount, balance, held int64) any {
	return InternalAccountOf(a, balance, held)
}

// ExternalAccount renders an external account.
func (Resources) ExternalAccount(e db.ExternalAccount) any { return ExternalAccountOf(e) }

// Reference is a transaction's reconciliation reference.
func (Resources) Reference(transactionID uuid.UUID) string {
	return TransactionReference(transactionID)
}

// IncomingPending renders the INCOMING_PAYMENT_PENDING event of a payment awaiting the
// platform's approval: the transaction with the receiver's details the sender asks for.
func (Resources) IncomingPending(t db.Transaction, fields []string) any {
	type field struct {
		Name      string `json:"name"`
		Mandatory bool   `json:"mandatory"`
	}
	out := struct {
		Transaction
		RequestedReceiverCustomerInfoFields []field `json:"requestedReceiverCustomerInfoFields"`
	}{Transaction: TransactionOf(t), RequestedReceiverCustomerInfoFields: []field{}}
	for _, f := range fields {
		out.RequestedReceiverCustomerInfoFields = append(out.RequestedReceiverCustomerInfoFields, field{Name: f, Mandatory: true})
	}
	return out
}
