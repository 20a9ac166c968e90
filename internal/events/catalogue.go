package events

// Described is an event type with one line of Markdown saying when it is sent and what its
// data is.
type Described struct {
	Type, Meaning string
}

// Catalogue lists every event type of Types, in its order, with its meaning.
func Catalogue() []Described {
	out := make([]Described, 0, len(Types))
	for _, t := range Types {
		out = append(out, Described{Type: t, Meaning: Meaning(t)})
	}
	return out
}

// Meaning says in one line of Markdown when an event of type t is sent and what its data
// is; "" for a type the service does not send.
func Meaning(t string) string {
	switch t {
	case Test:
		return "a test send (`POST /webhooks/test`, or a new `webhookEndpoint`); empty data"
	case InternalAccountBalanceUpdated:
		return "an internal account's balance changed; data: the InternalAccount"
	case InternalAccountStatusUpdated:
		return "an internal account's status changed; data: the InternalAccount"
	case ExternalAccountStatusUpdated:
		return "an external account's status changed: a wallet's ownership verification started again, succeeded (`ACTIVE`) or failed (`UNVERIFIED`); data: the ExternalAccount"
	case OutgoingPaymentPending:
		return "an outgoing payment was accepted and waits to be processed; data: the Transaction"
	case OutgoingPaymentProcessing:
		return "an outgoing payment was submitted to its rail; data: the Transaction"
	case OutgoingPaymentCompleted:
		return "an outgoing payment reached its destination; data: the Transaction"
	case OutgoingPaymentFailed:
		return "an outgoing payment failed (cause in `failureDetails`, `failureReason`); data: the Transaction"
	case OutgoingPaymentExpired:
		return "a quote expired before its payment was funded (`QUOTE_EXPIRED`); data: the Transaction"
	case OutgoingPaymentRefundPending:
		return "the refund of a failed outgoing payment was opened; data: the Transaction"
	case OutgoingPaymentRefundCompleted:
		return "the refund of a failed outgoing payment reached the sender; data: the Transaction"
	case OutgoingPaymentRefundFailed:
		return "the refund of a failed outgoing payment failed too; data: the Transaction"
	case IncomingPaymentPending:
		return "an incoming payment arrived and waits (for the platform's approval, or for its rail); data: the Transaction"
	case IncomingPaymentCompleted:
		return "an incoming payment was credited; data: the Transaction"
	case IncomingPaymentFailed:
		return "an incoming payment was rejected or failed; data: the Transaction"
	case IncomingPaymentRefundPending:
		return "the platform's refund of a completed incoming payment was opened (the amount held on its account); data: the Transaction"
	case IncomingPaymentRefundCompleted:
		return "the refund of an incoming payment reached the sender; the transaction is REFUNDED; data: the Transaction"
	case IncomingPaymentRefundFailed:
		return "the refund of an incoming payment failed; the money is back on its account; data: the Transaction"
	case CustomerStatus(false, "HOLD"):
		return "an individual customer was put on hold until it gives what its verification asks for; data: the Customer"
	case CustomerStatus(true, "HOLD"):
		return "a business customer was put on hold until it gives what its verification asks for; data: the Customer"
	case CustomerStatus(false, "APPROVED"), CustomerStatus(false, "REJECTED"), CustomerStatus(false, "PENDING"):
		return "an individual customer's KYC status became " + t[len("CUSTOMER_KYC_"):] + "; data: the Customer"
	case CustomerStatus(true, "APPROVED"), CustomerStatus(true, "REJECTED"), CustomerStatus(true, "PENDING"):
		return "a business customer's KYB status became " + t[len("CUSTOMER_KYB_"):] + "; data: the Customer"
	case Verification("APPROVED"), Verification("REJECTED"), Verification("RESOLVE_ERRORS"), Verification("IN_PROGRESS"),
		Verification("PENDING_MANUAL_REVIEW"), Verification("READY_FOR_VERIFICATION"):
		return "a verification's status became " + t[len("VERIFICATION_"):] + "; data: the Verification"
	case InvitationClaimed:
		return "an invitation of the platform was claimed; data: the Invitation"
	case BulkUploadCompleted:
		return "a bulk customer import job finished; data: the BulkCustomerImportJob"
	case BulkUploadFailed:
		return "a bulk customer import job failed; data: the BulkCustomerImportJob"
	case AgentActionPendingApproval:
		return "an agent's action waits for the platform's approval (`GET /agents/approvals`); data: the AgentAction"
	}
	return ""
}
