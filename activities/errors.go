package activities

import (
	"errors"

	"go.temporal.io/sdk/temporal"

	"paycore/db"
	"paycore/internal/account"
	"paycore/internal/catalog"
	"paycore/internal/problem"
)

// Application error types of the activities. A refusal decided by a domain rule or a db
// operation has its catalogue code as type (see refusal); these are the activities' own.
const (
	// DeliverWebhook.
	ErrDeliveryFailed = "WEBHOOK_DELIVERY_FAILED"  // retryable: non-2xx answer or network error
	ErrEndpointGone   = "WEBHOOK_ENDPOINT_GONE"    // 410: the endpoint is disabled, no more retries
	ErrNoEndpoint     = "WEBHOOK_ENDPOINT_NOT_SET" // no (enabled) endpoint configured
	ErrEventClosed    = "WEBHOOK_EVENT_CLOSED"     // the event is no longer pending
)

// refusal turns the refusal of a domain rule (a *problem.FieldError or *problem.Refusal)
// or of a db operation into a non-retryable application error whose type is the refusal's
// catalogue code and whose details are its problem.Wire, so the API answers it exactly as
// if it had decided it itself. Any other error is returned as it is, to be retried.
//
// The ledger's own refusals count too: the rule checked under the same lock normally
// refuses first, and retrying a refused ledger move could never succeed.
func refusal(err error) error {
	switch {
	case errors.Is(err, db.ErrWalletSignatureRequired):
		err = account.SignatureRequired()
	case errors.Is(err, db.ErrInsufficientFunds):
		err = account.BalanceTooLow()
	case errors.Is(err, db.ErrAccountClosed):
		err = account.Closed()
	}
	w, ok := problem.ToWire(err)
	if !ok {
		return err
	}
	return temporal.NewNonRetryableApplicationError(w.Message, string(w.Code), nil, w)
}

// unsettled classifies an error of a finish step, which settles a payment with its
// outcome: the ledger's refusal to move the money for good (an account to credit was
// closed meanwhile, funds the payment counted on are gone) is a non-retryable application
// error whose type is the payment failure code, for the workflow to end the payment FAILED
// with its hold released (see workflows.Payment). Any other error is returned as it is, to
// be retried.
func unsettled(err error) error {
	var code catalog.Code
	switch {
	case errors.Is(err, db.ErrAccountClosed):
		code = catalog.FailAccountClosed
	case errors.Is(err, db.ErrInsufficientFunds):
		code = catalog.FailInsufficientFunds
	default:
		return err
	}
	return temporal.NewNonRetryableApplicationError(err.Error(), string(code), err)
}
