// Package catalog is the one catalogue of the service's stable names: every error code the
// API answers with (and every business error type an activity returns, which is the same
// code), and the typed statuses of transactions, accounts, credentials and webhook events.
// A code or status is written here once and referred to by name everywhere else.
package catalog

// Code is a stable UPPER_SNAKE error code: the "code" of the error envelope and the type
// of a non-retryable application error returned by an activity.
type Code string

// Input and protocol errors.
const (
	InvalidInput     Code = "INVALID_INPUT"
	InvalidCurrency  Code = "INVALID_CURRENCY"
	AmountOutOfRange Code = "AMOUNT_OUT_OF_RANGE"
	InvalidBankAcct  Code = "INVALID_BANK_ACCOUNT"
	MethodNotAllowed Code = "METHOD_NOT_ALLOWED"
	PayloadTooLarge  Code = "PAYLOAD_TOO_LARGE"
	RateLimited      Code = "RATE_LIMITED"
	Internal         Code = "INTERNAL_ERROR"
	Unavailable      Code = "SERVICE_UNAVAILABLE"
	NotImplemented   Code = "NOT_IMPLEMENTED"
	SelfPayment      Code = "SELF_PAYMENT"
	// TransactionSizeLimitExceeded refuses a payment above the deployment's largest single
	// payment in its sending currency (paylimits); DailyVolumeLimitExceeded one that would
	// take the platform's payments of the day in that currency past the daily limit (429,
	// until the next UTC day).
	TransactionSizeLimitExceeded Code = "TRANSACTION_SIZE_LIMIT_EXCEEDED"
	DailyVolumeLimitExceeded     Code = "DAILY_VOLUME_LIMIT_EXCEEDED"
	// RailNotConfigured refuses a payment, when it is requested, that no configured
	// payment rail serves (its environment, currency and kind of destination; see
	// docs/rails.md): nothing is created.
	RailNotConfigured Code = "RAIL_NOT_CONFIGURED"
	// MissingMandatoryUserInfo refuses a quote without sender information the receiving
	// side requires.
	MissingMandatoryUserInfo Code = "MISSING_MANDATORY_USER_INFO"
	InvalidUmaAddress        Code = "INVALID_UMA_ADDRESS"
	// UmaSenderNotCustomer refuses an incoming payment from an address on a domain a
	// platform of this deployment holds that is not one of that platform's customers.
	UmaSenderNotCustomer Code = "UMA_SENDER_NOT_CUSTOMER"
	// UmaDomainNotProven refuses a proof of a platform's umaDomain that the domain does
	// not publish (platformconfig.ProofPath).
	UmaDomainNotProven Code = "UMA_DOMAIN_NOT_PROVEN"
	// CounterpartyNotAllowed refuses a payment with a UMA provider the deployment does not
	// transact with (blocked by the operator, or not listed when only listed ones are
	// allowed).
	CounterpartyNotAllowed Code = "COUNTERPARTY_NOT_ALLOWED"
	// PayreqRequestFailed refuses a quote to another UMA provider's receiver whose provider
	// did not answer its pay request with an invoice the service may pay (424): nothing is
	// created or held.
	PayreqRequestFailed Code = "PAYREQ_REQUEST_FAILED"
	// ExternalAccountVerificationRequired refuses a payment above the unverified-wallet
	// threshold to a wallet whose ownership is not verified (400).
	ExternalAccountVerificationRequired Code = "EXTERNAL_ACCOUNT_VERIFICATION_REQUIRED"
)

// Invitations: claiming or cancelling one that is no longer pending, and a platform that
// cannot issue them (all 400).
const (
	InvitationAlreadyClaimed Code = "INVITATION_ALREADY_CLAIMED"
	InvitationCancelled      Code = "INVITATION_CANCELLED"
	InvitationExpired        Code = "INVITATION_EXPIRED"
	InvitationsNotConfigured Code = "INVITATIONS_NOT_CONFIGURED"
)

// Authentication and authorisation.
const (
	Unauthorized Code = "UNAUTHORIZED"
	// The refusals of an embedded wallet's signed retry (401, reason "Invalid
	// Service-Wallet-Signature"): a Request-Id without its signature, a signature without
	// its Request-Id, a signature that does not parse, a retry that does not repeat the
	// challenged request, and a signature that does not verify (or names no challenge, or
	// is not an active session's).
	WalletSignatureMissing      Code = "WALLET_SIGNATURE_MISSING"
	RequestIDMissing            Code = "REQUEST_ID_MISSING"
	WalletSignatureMalformed    Code = "WALLET_SIGNATURE_MALFORMED"
	WalletSignatureBodyMismatch Code = "WALLET_SIGNATURE_BODY_MISMATCH"
	WalletSignatureInvalid      Code = "WALLET_SIGNATURE_INVALID"
	Forbidden                   Code = "FORBIDDEN"
	WalletSignatureRequired     Code = "WALLET_SIGNATURE_REQUIRED"
	// UserNotReady refuses moving money for a customer whose KYC/KYB is not APPROVED.
	UserNotReady Code = "USER_NOT_READY"
	// EndUserTermsNotAccepted refuses moving money for a customer who has not accepted the
	// End User Terms, where its platform requires it (403).
	EndUserTermsNotAccepted Code = "END_USER_TERMS_NOT_ACCEPTED"
	// EndUserTermsVersionNotFound refuses a consent to a version of the End User Terms the
	// deployment does not publish (400).
	EndUserTermsVersionNotFound Code = "END_USER_TERMS_VERSION_NOT_FOUND"
)

// Resources that do not exist (or belong to another platform).
const (
	NotFound                Code = "NOT_FOUND"
	TokenNotFound           Code = "TOKEN_NOT_FOUND"
	WebhookEventNotFound    Code = "WEBHOOK_EVENT_NOT_FOUND"
	AccountNotFound         Code = "ACCOUNT_NOT_FOUND"
	ExternalAccountNotFound Code = "EXTERNAL_ACCOUNT_NOT_FOUND"
	TransactionNotFound     Code = "TRANSACTION_NOT_FOUND"
	UserNotFound            Code = "USER_NOT_FOUND"
	CredentialNotFound      Code = "CREDENTIAL_NOT_FOUND"
	SessionNotFound         Code = "SESSION_NOT_FOUND"
	QuoteNotFound           Code = "QUOTE_NOT_FOUND"
	LookupNotFound          Code = "LOOKUP_REQUEST_NOT_FOUND"
	InvitationNotFound      Code = "INVITATION_NOT_FOUND"
	// DocumentNotFound: no such document; ReferenceNotFound: a resource a request refers
	// to (a document's documentHolder) does not exist.
	DocumentNotFound      Code = "DOCUMENT_NOT_FOUND"
	ReferenceNotFound     Code = "REFERENCE_NOT_FOUND"
	BulkUploadJobNotFound Code = "BULK_UPLOAD_JOB_NOT_FOUND"
)

// Conflicts with the current state.
const (
	Conflict                 Code = "CONFLICT"
	AccountNotEmpty          Code = "ACCOUNT_NOT_EMPTY"
	ExternalAccountExists    Code = "EXTERNAL_ACCOUNT_EXISTS"
	PlatformCustomerIDExists Code = "PLATFORM_CUSTOMER_ID_EXISTS"
	UmaAddressExists         Code = "UMA_ADDRESS_EXISTS"
	// UmaDomainTaken refuses a umaDomain another platform of the deployment holds (its
	// umaDomain, or its customers' addresses), or one the service reserves (409).
	UmaDomainTaken           Code = "UMA_DOMAIN_TAKEN"
	EmailOTPCredentialExists Code = "EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS"
	SMSOTPCredentialExists   Code = "SMS_OTP_CREDENTIAL_ALREADY_EXISTS"
	PasskeyCredentialExists  Code = "PASSKEY_CREDENTIAL_ALREADY_EXISTS"
	OAuthCredentialExists    Code = "OAUTH_CREDENTIAL_ALREADY_EXISTS"
	CustomerDeleted          Code = "CUSTOMER_DELETED"
	InsufficientFunds        Code = "INSUFFICIENT_FUNDS"
	AccountInactive          Code = "ACCOUNT_INACTIVE"
	IdempotencyKeyReused     Code = "IDEMPOTENCY_KEY_REUSED"
	IdempotencyInProgress    Code = "IDEMPOTENCY_REQUEST_IN_PROGRESS"
	// QuoteNotPending refuses executing a quote that was executed, expired or failed.
	QuoteNotPending Code = "QUOTE_NOT_PENDING"
	// TransactionNotPendingApproval refuses approving or rejecting a payment that is not
	// waiting for the platform's decision.
	TransactionNotPendingApproval Code = "TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL"
	// TransactionNotCancellable refuses cancelling a payment that has left, ended, is not
	// waiting at its rail, or whose rail cannot cancel it any more (409).
	TransactionNotCancellable Code = "TRANSACTION_NOT_CANCELLABLE"
	// TransactionNotRefundable refuses refunding a payment that is not a completed incoming
	// one, was refunded already, or whose money cannot go back through its rail (409).
	TransactionNotRefundable Code = "TRANSACTION_NOT_REFUNDABLE"
	// DocumentSubmitted refuses replacing or deleting a document that was submitted for
	// verification.
	DocumentSubmitted Code = "DOCUMENT_ALREADY_SUBMITTED"
	// DocumentLimitReached refuses a document over a cap: the documents a customer and its
	// owners hold, or the files one KYC link stores.
	DocumentLimitReached Code = "DOCUMENT_LIMIT_REACHED"
)

// Webhooks and outbound deliveries.
const (
	WebhookEndpointNotSet     Code = "WEBHOOK_ENDPOINT_NOT_SET"
	WebhookDeliveryError      Code = "WEBHOOK_DELIVERY_ERROR"
	WebhookDeliveryInProgress Code = "WEBHOOK_DELIVERY_IN_PROGRESS"
	EmailDeliveryFailed       Code = "EMAIL_DELIVERY_FAILED"
	SMSDeliveryFailed         Code = "SMS_DELIVERY_FAILED"
)

// Failure codes of payments: the cause written into a failed transaction's failureDetails.
const (
	FailInsufficientFunds Code = "INSUFFICIENT_FUNDS"
	FailAccountClosed     Code = "ACCOUNT_CLOSED"
	FailRejectedByBank    Code = "REJECTED_BY_BANK"
	FailTimedOut          Code = "TIMED_OUT"
	// FailByOperator: an operator failed the payment by hand while it waited at its rail
	// (paycore payments fail), saying why.
	FailByOperator      Code = "FAILED_BY_OPERATOR"
	FailRailUnavailable Code = "RAIL_UNAVAILABLE"
	// Quote execution failures (the sandbox's quote scenarios).
	FailQuoteExecution      Code = "QUOTE_EXECUTION_FAILED"
	FailCounterparty        Code = "COUNTERPARTY_DELIVERY_FAILED"
	FailReturnedByBank      Code = "RETURNED_BY_RECEIVING_BANK"
	FailUserCancelled       Code = "USER_CANCELLATION"
	FailPayoutRefundFailure Code = "PAYOUT_AND_REFUND_FAILED"
	FailQuoteExpired        Code = "QUOTE_EXPIRED"
	FailFundingMismatch     Code = "FUNDING_AMOUNT_MISMATCH"
	// Lightning payouts: the invoice refused before any attempt, or why the network did
	// not deliver the payment.
	FailInvoiceInvalid        Code = "INVOICE_INVALID"
	FailInvoiceExpired        Code = "INVOICE_EXPIRED"
	FailInvoiceAmount         Code = "INVOICE_AMOUNT_MISMATCH"
	FailNoRoute               Code = "NO_ROUTE"
	FailInsufficientLiquidity Code = "INSUFFICIENT_LIQUIDITY"
	FailRecipientRefused      Code = "RECIPIENT_REFUSED"
	FailLightning             Code = "LIGHTNING_PAYMENT_FAILED"
	FailLightningAddress      Code = "LIGHTNING_ADDRESS_FAILED"
	// FailPayRequest is the failure reason of a payment to another UMA provider's receiver
	// whose invoice (the pay request's answer) is refused before anything is sent.
	FailPayRequest Code = "PAY_REQUEST_FAILED"
	// Incoming payments: the receiving platform's refusal, the sender's failed compliance
	// check, missing receiver details.
	FailRejectedByPlatform Code = "REJECTED_BY_PLATFORM"
	FailCompliance         Code = "COMPLIANCE_CHECK_FAILED"
	FailMissingPayeeData   Code = "MISSING_MANDATORY_PAYEE_DATA"
)

// CredentialExists is the conflict code of a second credential of one type.
func CredentialExists(t CredentialType) Code {
	switch t {
	case CredentialEmailOTP:
		return EmailOTPCredentialExists
	case CredentialSMSOTP:
		return SMSOTPCredentialExists
	case CredentialPasskey:
		return PasskeyCredentialExists
	}
	return OAuthCredentialExists
}

// Agents and their device codes.
const (
	// AgentNotFound: no such agent on the platform (or it was deleted).
	AgentNotFound Code = "AGENT_NOT_FOUND"
	// DeviceCodeNotFound: no live agent has such a device code (404).
	DeviceCodeNotFound Code = "DEVICE_CODE_NOT_FOUND"
	// DeviceCodeRedeemed refuses redeeming a device code a second time (400).
	DeviceCodeRedeemed Code = "DEVICE_CODE_ALREADY_REDEEMED"
	// DeviceCodeExpired refuses redeeming a device code past its expiry, or one a newer
	// code replaced (400).
	DeviceCodeExpired Code = "DEVICE_CODE_EXPIRED"
	// AgentConnected refuses a new device code for an agent that is connected (409).
	AgentConnected Code = "AGENT_ALREADY_CONNECTED"
	// AgentActionNotFound: no such action of the agent on the platform (404).
	AgentActionNotFound Code = "AGENT_ACTION_NOT_FOUND"
	// AgentActionNotPending refuses approving or rejecting an action that is no longer
	// waiting for a decision: decided already, or its approval expired (409).
	AgentActionNotPending Code = "AGENT_ACTION_NOT_PENDING"
	// VelocityLimitExceeded refuses an action that would pass a spending limit: a
	// per-transaction, daily, daily transaction count or monthly limit (403).
	VelocityLimitExceeded Code = "VELOCITY_LIMIT_EXCEEDED"
)
