// Package events names the webhook event types and the envelope the service sends.
package events

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"paycore/internal/ids"
)

// Event types, in the spec's underscore form.
const (
	Test                          = "TEST"
	InternalAccountBalanceUpdated = "INTERNAL_ACCOUNT_BALANCE_UPDATED"
	InternalAccountStatusUpdated  = "INTERNAL_ACCOUNT_STATUS_UPDATED"
	// ExternalAccountStatusUpdated: an external account's status changed (its ownership
	// verification began again, succeeded or failed).
	ExternalAccountStatusUpdated = "EXTERNAL_ACCOUNT_STATUS_UPDATED"
	OutgoingPaymentPending       = "OUTGOING_PAYMENT_PENDING"
	OutgoingPaymentProcessing    = "OUTGOING_PAYMENT_PROCESSING"
	OutgoingPaymentCompleted     = "OUTGOING_PAYMENT_COMPLETED"
	OutgoingPaymentFailed        = "OUTGOING_PAYMENT_FAILED"
	OutgoingPaymentExpired       = "OUTGOING_PAYMENT_EXPIRED"
	// The refund of a failed outgoing payment: opened, then completed or failed.
	OutgoingPaymentRefundPending   = "OUTGOING_PAYMENT_REFUND_PENDING"
	OutgoingPaymentRefundCompleted = "OUTGOING_PAYMENT_REFUND_COMPLETED"
	OutgoingPaymentRefundFailed    = "OUTGOING_PAYMENT_REFUND_FAILED"
	IncomingPaymentPending         = "INCOMING_PAYMENT_PENDING"
	IncomingPaymentCompleted       = "INCOMING_PAYMENT_COMPLETED"
	IncomingPaymentFailed          = "INCOMING_PAYMENT_FAILED"
	// The refund of a completed incoming payment its platform sends back: opened, then
	// completed (the transaction is REFUNDED) or failed (the money is back on the account).
	IncomingPaymentRefundPending   = "INCOMING_PAYMENT_REFUND_PENDING"
	IncomingPaymentRefundCompleted = "INCOMING_PAYMENT_REFUND_COMPLETED"
	IncomingPaymentRefundFailed    = "INCOMING_PAYMENT_REFUND_FAILED"
	InvitationClaimed              = "INVITATION_CLAIMED"
	// The end of a bulk customer import job (its data is the BulkCustomerImportJob).
	BulkUploadCompleted = "BULK_UPLOAD_COMPLETED"
	BulkUploadFailed    = "BULK_UPLOAD_FAILED"
	// An agent's action waits for the platform's approval (its data is the AgentAction).
	AgentActionPendingApproval = "AGENT_ACTION_PENDING_APPROVAL"
)

// CustomerStatus is the CUSTOMER_* event of a customer whose verification status became
// status: CUSTOMER_KYB_<status> for a business, CUSTOMER_KYC_<status> for an individual.
func CustomerStatus(business bool, status string) string {
	if business {
		return "CUSTOMER_KYB_" + status
	}
	return "CUSTOMER_KYC_" + status
}

// Verification is the VERIFICATION_<status> event of a verification that became status.
func Verification(status string) string { return "VERIFICATION_" + status }

// Types lists every known event type, for validating filters.
var Types = []string{
	Test, InternalAccountBalanceUpdated, InternalAccountStatusUpdated, ExternalAccountStatusUpdated,
	OutgoingPaymentPending, OutgoingPaymentProcessing, OutgoingPaymentCompleted, OutgoingPaymentFailed,
	OutgoingPaymentExpired, OutgoingPaymentRefundPending, OutgoingPaymentRefundCompleted, OutgoingPaymentRefundFailed,
	IncomingPaymentPending, IncomingPaymentCompleted, IncomingPaymentFailed,
	IncomingPaymentRefundPending, IncomingPaymentRefundCompleted, IncomingPaymentRefundFailed,
	"CUSTOMER_KYC_APPROVED", "CUSTOMER_KYC_REJECTED", "CUSTOMER_KYC_PENDING",
	"CUSTOMER_KYB_APPROVED", "CUSTOMER_KYB_REJECTED", "CUSTOMER_KYB_PENDING", "CUSTOMER_KYC_HOLD", "CUSTOMER_KYB_HOLD",
	"VERIFICATION_APPROVED", "VERIFICATION_REJECTED", "VERIFICATION_RESOLVE_ERRORS", "VERIFICATION_IN_PROGRESS",
	"VERIFICATION_PENDING_MANUAL_REVIEW", "VERIFICATION_READY_FOR_VERIFICATION",
	InvitationClaimed, BulkUploadCompleted, BulkUploadFailed, AgentActionPendingApproval,
}

// StreamEvent is the data of one event of the event stream (GET /webhooks/events/stream):
// the body a webhook delivery of the event carries, byte for byte (its Envelope, with the
// event's creation time as timestamp), and the service's X-Service-Signature of those bytes.
type StreamEvent struct {
	Body             string `json:"body"`
	ServiceSignature string `json:"serviceSignature"`
}

// Body is the JSON body of a webhook of the event id of type typ, stamped at: its Envelope,
// byte for byte what a delivery POSTs and what its signatures cover.
func Body(id uuid.UUID, typ string, at time.Time, data json.RawMessage) ([]byte, error) {
	b, err := json.Marshal(Envelope{ID: ids.Format(ids.Webhook, id), Type: typ, Timestamp: at, Data: data})
	if err != nil {
		return nil, fmt.Errorf("encode event: %w", err)
	}
	return b, nil
}

// Envelope is the JSON body of every webhook.
type Envelope struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Timestamp time.Time       `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
}
