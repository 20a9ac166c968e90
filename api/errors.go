package api

import (
	"errors"
	"net/http"

	"go.temporal.io/sdk/temporal"

	"paycore/db"
	"paycore/internal/account"
	"paycore/internal/catalog"
	"paycore/internal/problem"
)

// statusOf is the HTTP status of each refusal code; codes not listed are 400. It is the
// one place a domain code becomes a status.
var statusOf = map[catalog.Code]int{
	catalog.Unauthorized:                  http.StatusUnauthorized,
	catalog.WalletSignatureMissing:        http.StatusUnauthorized,
	catalog.RequestIDMissing:              http.StatusUnauthorized,
	catalog.WalletSignatureMalformed:      http.StatusUnauthorized,
	catalog.WalletSignatureBodyMismatch:   http.StatusUnauthorized,
	catalog.WalletSignatureInvalid:        http.StatusUnauthorized,
	catalog.Forbidden:                     http.StatusForbidden,
	catalog.WalletSignatureRequired:       http.StatusForbidden,
	catalog.UserNotReady:                  http.StatusForbidden,
	catalog.EndUserTermsNotAccepted:       http.StatusForbidden,
	catalog.NotFound:                      http.StatusNotFound,
	catalog.TokenNotFound:                 http.StatusNotFound,
	catalog.WebhookEventNotFound:          http.StatusNotFound,
	catalog.AccountNotFound:               http.StatusNotFound,
	catalog.ExternalAccountNotFound:       http.StatusNotFound,
	catalog.TransactionNotFound:           http.StatusNotFound,
	catalog.UserNotFound:                  http.StatusNotFound,
	catalog.CredentialNotFound:            http.StatusNotFound,
	catalog.SessionNotFound:               http.StatusNotFound,
	catalog.QuoteNotFound:                 http.StatusNotFound,
	catalog.LookupNotFound:                http.StatusNotFound,
	catalog.InvitationNotFound:            http.StatusNotFound,
	catalog.DocumentNotFound:              http.StatusNotFound,
	catalog.ReferenceNotFound:             http.StatusNotFound,
	catalog.DocumentSubmitted:             http.StatusConflict,
	catalog.DocumentLimitReached:          http.StatusConflict,
	catalog.BulkUploadJobNotFound:         http.StatusNotFound,
	catalog.QuoteNotPending:               http.StatusConflict,
	catalog.TransactionNotPendingApproval: http.StatusConflict,
	catalog.TransactionNotCancellable:     http.StatusConflict,
	catalog.TransactionNotRefundable:      http.StatusConflict,
	catalog.NotImplemented:                http.StatusNotImplemented,
	catalog.MethodNotAllowed:              http.StatusMethodNotAllowed,
	catalog.Conflict:                      http.StatusConflict,
	catalog.AccountNotEmpty:               http.StatusConflict,
	catalog.ExternalAccountExists:         http.StatusConflict,
	catalog.PlatformCustomerIDExists:      http.StatusConflict,
	catalog.UmaAddressExists:              http.StatusConflict,
	catalog.UmaDomainTaken:                http.StatusConflict,
	catalog.CounterpartyNotAllowed:        http.StatusForbidden,
	catalog.PayreqRequestFailed:           http.StatusFailedDependency,
	catalog.IdempotencyInProgress:         http.StatusConflict,
	catalog.WebhookDeliveryInProgress:     http.StatusConflict,
	catalog.CustomerDeleted:               http.StatusGone,
	catalog.PayloadTooLarge:               http.StatusRequestEntityTooLarge,
	catalog.IdempotencyKeyReused:          http.StatusUnprocessableEntity,
	catalog.RateLimited:                   http.StatusTooManyRequests,
	catalog.DailyVolumeLimitExceeded:      http.StatusTooManyRequests,
	catalog.Internal:                      http.StatusInternalServerError,
	catalog.EmailDeliveryFailed:           http.StatusBadGateway,
	catalog.SMSDeliveryFailed:             http.StatusBadGateway,
	catalog.Unavailable:                   http.StatusServiceUnavailable,
	catalog.AgentNotFound:                 http.StatusNotFound,
	catalog.DeviceCodeNotFound:            http.StatusNotFound,
	catalog.AgentConnected:                http.StatusConflict,
	catalog.AgentActionNotFound:           http.StatusNotFound,
	catalog.AgentActionNotPending:         http.StatusConflict,
	catalog.VelocityLimitExceeded:         http.StatusForbidden,
}

// refusal builds the API error of a code with its status from statusOf.
func refusal(code catalog.Code, message string, details map[string]any) *Error {
	status, ok := statusOf[code]
	if !ok {
		status = http.StatusBadRequest
	}
	return &Error{Status: status, Code: code, Message: message, Details: details}
}

// retryAfter sets the Retry-After seconds of e and returns it.
func retryAfter(e *Error, seconds int) *Error {
	e.RetryAfter = seconds
	return e
}

// errorOf maps any error a handler returns to its API error: an *Error as it is, the typed
// errors of the domain packages (problem.FieldError, problem.Refusal, which db operations
// return too), the ledger's refusal of a closed account (as the account package words it),
// and the business errors of workflow updates (an application error whose type is a
// catalogue code). nil means an internal error.
func errorOf(err error) *Error {
	var e *Error
	var fe *problem.FieldError
	var rf *problem.Refusal
	var appErr *temporal.ApplicationError
	switch {
	case errors.As(err, &e):
		return e
	case errors.As(err, &fe):
		details := map[string]any{"field": fe.Field}
		for k, v := range fe.Details {
			details[k] = v
		}
		details[problem.ErrorsKey] = problem.Entries(fe) // every invalid field, the first being "field"
		code, status := fe.Code, http.StatusBadRequest
		if code == "" {
			code = catalog.InvalidInput
		}
		if code == catalog.NotImplemented { // a field naming what the service does not do yet
			status = http.StatusNotImplemented
		}
		return &Error{Status: status, Code: code, Message: fe.Message, Details: details}
	case errors.As(err, &rf):
		e := refusal(rf.Code, rf.Message, rf.Details)
		e.Reason, e.RetryAfter = rf.Reason, rf.RetryAfter
		return e
	case errors.Is(err, db.ErrAccountClosed):
		return errorOf(account.Closed())
	case errors.As(err, &appErr):
		var w problem.Wire
		if appErr.HasDetails() && appErr.Details(&w) == nil && w.Code != "" {
			return errorOf(w.Err())
		}
	}
	return nil
}
