package walletauth

import (
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/problem"
	"paycore/internal/problem/problemtest"
)

// The not-found refusals are answered byte for byte as the API answered them.
func TestNotFoundRefusals(t *testing.T) {
	problemtest.Check(t,
		problemtest.Case{Name: "CredentialNotFound", Err: CredentialNotFound(), Want: problem.Wire{Code: catalog.CredentialNotFound, Message: "credential not found"}},
		problemtest.Case{Name: "SessionNotFound", Err: SessionNotFound(), Want: problem.Wire{Code: catalog.SessionNotFound, Message: "session not found"}},
	)
}

// The refusals of a one-time code that did not leave are answered byte for byte as the API
// answered them when it built them itself.
func TestCodeNotSentRefusals(t *testing.T) {
	problemtest.Check(t,
		problemtest.Case{Name: "NoSMSGateway", Err: NoSMSGateway(), Want: problem.Wire{Code: catalog.SMSDeliveryFailed,
			Message: "this deployment has no SMS gateway for production platforms (PAYCORE_SMS_URL is not set): the one-time code was not sent"}},
		problemtest.Case{Name: "SMSNotSent", Err: SMSNotSent(), Want: problem.Wire{Code: catalog.SMSDeliveryFailed,
			Message: "the one-time code could not be sent by text message; try the challenge again"}},
		problemtest.Case{Name: "NoMailTransport", Err: NoMailTransport(), Want: problem.Wire{Code: catalog.EmailDeliveryFailed,
			Message: "this deployment has no mail transport for production platforms (PAYCORE_SMTP_HOST is not set): the one-time code was not sent"}},
		problemtest.Case{Name: "MailNotSent", Err: MailNotSent(), Want: problem.Wire{Code: catalog.EmailDeliveryFailed,
			Message: "the one-time code could not be e-mailed; try the challenge again"}},
	)
}
