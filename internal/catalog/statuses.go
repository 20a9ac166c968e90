package catalog

// TransactionStatus is the status of a transaction. Outgoing transactions only ever hold
// the outgoing ones (PENDING, EXPIRED, PROCESSING, COMPLETED, FAILED); a database
// constraint keeps them so.
type TransactionStatus string

// Transaction statuses.
const (
	TxCreated    TransactionStatus = "CREATED"
	TxPending    TransactionStatus = "PENDING"
	TxProcessing TransactionStatus = "PROCESSING"
	TxCompleted  TransactionStatus = "COMPLETED"
	TxRejected   TransactionStatus = "REJECTED"
	TxFailed     TransactionStatus = "FAILED"
	TxRefunded   TransactionStatus = "REFUNDED"
	TxExpired    TransactionStatus = "EXPIRED"
)

// TransactionStatuses are every transaction status, the values of the status filter.
var TransactionStatuses = []TransactionStatus{TxCreated, TxPending, TxProcessing, TxCompleted, TxRejected, TxFailed, TxRefunded, TxExpired}

// Names are the values of a typed enumeration as plain strings, e.g. for a query filter.
func Names[T ~string](values []T) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}

// TransactionType is the direction of a transaction seen from the platform.
type TransactionType string

// Transaction types.
const (
	Incoming TransactionType = "INCOMING"
	Outgoing TransactionType = "OUTGOING"
)

// Direction is what a transaction does to its internal account (direction): CREDIT puts
// money in, DEBIT takes it out.
type Direction string

// Directions of a transaction.
const (
	Credit Direction = "CREDIT"
	Debit  Direction = "DEBIT"
)

// Direction is the direction of transactions of type t: every INCOMING transaction here
// credits an internal account (a transfer in pulls money from outside into one), every
// OUTGOING one debits one.
func (t TransactionType) Direction() Direction {
	if t == Outgoing {
		return Debit
	}
	return Credit
}

// TransactionTypes are both directions, the values of the type filter.
var TransactionTypes = []TransactionType{Incoming, Outgoing}

// AccountStatus is the status of an internal account.
type AccountStatus string

// Internal account statuses.
const (
	AccountPending AccountStatus = "PENDING"
	AccountActive  AccountStatus = "ACTIVE"
	AccountClosed  AccountStatus = "CLOSED"
	AccountFrozen  AccountStatus = "FROZEN"
)

// ExternalAccountStatus is the status of an external account.
type ExternalAccountStatus string

// External account statuses.
const (
	ExternalPending     ExternalAccountStatus = "PENDING"
	ExternalActive      ExternalAccountStatus = "ACTIVE"
	ExternalUnderReview ExternalAccountStatus = "UNDER_REVIEW"
	ExternalInactive    ExternalAccountStatus = "INACTIVE"
	// ExternalPendingOwnership: a FIRST_PARTY self-custody wallet whose owner has not yet
	// proven control of it (internal/ownership); it receives payments up to the
	// unverified-wallet threshold only. ExternalUnverified: its last proof failed.
	ExternalPendingOwnership ExternalAccountStatus = "PENDING_OWNERSHIP_VERIFICATION"
	ExternalUnverified       ExternalAccountStatus = "UNVERIFIED"
)

// KycStatus is the verification status of a customer.
type KycStatus string

// KYC statuses.
const (
	KycUnverified KycStatus = "UNVERIFIED"
	KycPending    KycStatus = "PENDING"
	KycApproved   KycStatus = "APPROVED"
	KycRejected   KycStatus = "REJECTED"
	// KycHold: the customer is on hold until it provides what its verification asks for
	// (the errors of its verification, e.g. its due diligence).
	KycHold KycStatus = "HOLD"
)

// VerificationStatus is the status of a KYC/KYB verification.
type VerificationStatus string

// Verification statuses. A verification is open while it is RESOLVE_ERRORS (waiting for
// the missing data, re-submitted by the next POST /verifications), IN_PROGRESS or
// PENDING_MANUAL_REVIEW; APPROVED and REJECTED are final. READY_FOR_VERIFICATION is in
// the catalogue but never used: a complete submission goes IN_PROGRESS at once.
const (
	VerificationResolveErrors = VerificationStatus("RESOLVE_ERRORS")
	VerificationManualReview  = VerificationStatus("PENDING_MANUAL_REVIEW")
	VerificationInProgress    = VerificationStatus("IN_PROGRESS")
	VerificationApproved      = VerificationStatus("APPROVED")
	VerificationRejected      = VerificationStatus("REJECTED")
	VerificationReady         = VerificationStatus("READY_FOR_VERIFICATION")
)

// VerificationStatuses are every verification status, the values of the status filter.
var VerificationStatuses = []VerificationStatus{VerificationResolveErrors, VerificationManualReview, VerificationInProgress,
	VerificationApproved, VerificationRejected, VerificationReady}

// WebhookEventStatus is the delivery status of a webhook event.
type WebhookEventStatus string

// Webhook event statuses.
const (
	WebhookPending       WebhookEventStatus = "PENDING"
	WebhookDelivered     WebhookEventStatus = "DELIVERED"
	WebhookFailed        WebhookEventStatus = "FAILED"
	WebhookUndeliverable WebhookEventStatus = "UNDELIVERABLE"
)

// WebhookEventStatuses are every webhook event status, the values of the status filter.
var WebhookEventStatuses = []WebhookEventStatus{WebhookPending, WebhookDelivered, WebhookFailed, WebhookUndeliverable}

// CredentialType is the kind of an embedded wallet's authentication credential.
type CredentialType string

// IsOTP reports whether credentials of type t sign in with a one-time code sent to their
// nickname (an e-mail address, a phone number).
func (t CredentialType) IsOTP() bool { return t == CredentialEmailOTP || t == CredentialSMSOTP }

// Credential types.
const (
	CredentialEmailOTP CredentialType = "EMAIL_OTP"
	CredentialSMSOTP   CredentialType = "SMS_OTP"
	CredentialOAuth    CredentialType = "OAUTH"
	CredentialPasskey  CredentialType = "PASSKEY"
)

// Environment is a platform's environment.
type Environment string

// Environments.
const (
	Sandbox    Environment = "SANDBOX"
	Production Environment = "PRODUCTION"
)

// AccountType is the type of an internal account.
type AccountType string

// Internal account types.
const (
	InternalFiat   AccountType = "INTERNAL_FIAT"
	InternalCrypto AccountType = "INTERNAL_CRYPTO"
	EmbeddedWallet AccountType = "EMBEDDED_WALLET"
)

// CustomerType is whether a customer is a person or a business.
type CustomerType string

// Customer types.
const (
	Individual CustomerType = "INDIVIDUAL"
	Business   CustomerType = "BUSINESS"
)

// BeneficiaryStatus is what beneficiary verification found of an external bank account.
type BeneficiaryStatus string

// Beneficiary verification statuses.
const (
	BeneficiaryMatched       BeneficiaryStatus = "MATCHED"
	BeneficiaryNotMatched    BeneficiaryStatus = "NOT_MATCHED"
	BeneficiaryPartialMatch  BeneficiaryStatus = "PARTIAL_MATCH"
	BeneficiaryPending       BeneficiaryStatus = "PENDING"
	BeneficiaryUnsupported   BeneficiaryStatus = "UNSUPPORTED"
	BeneficiaryCheckedByBank BeneficiaryStatus = "CHECKED_BY_RECEIVING_FI"
)

// InvitationStatus is the status of a UMA invitation.
type InvitationStatus string

// Invitation statuses: PENDING until it is claimed, cancelled by its platform, or expires.
const (
	InvPending   InvitationStatus = "PENDING"
	InvClaimed   InvitationStatus = "CLAIMED"
	InvExpired   InvitationStatus = "EXPIRED"
	InvCancelled InvitationStatus = "CANCELLED"
)

// BulkImportStatus is the status of a bulk customer import job.
type BulkImportStatus string

// Bulk import job statuses: staged and waiting for its first batch, importing, and done
// (COMPLETED when at least one row became a customer, FAILED when none did).
const (
	BulkPending    BulkImportStatus = "PENDING"
	BulkProcessing BulkImportStatus = "PROCESSING"
	BulkCompleted  BulkImportStatus = "COMPLETED"
	BulkFailed     BulkImportStatus = "FAILED"
)

// CustomerInfoFields is the CustomerInfoFieldName enum: the customer information a
// platform may ask for or send with a payment (requestedReceiverCustomerInfoFields,
// senderCustomerInfo).
func CustomerInfoFields() []string {
	return []string{"FULL_NAME", "BIRTH_DATE", "NATIONALITY", "PHONE_NUMBER", "EMAIL", "POSTAL_ADDRESS",
		"TAX_ID", "REGISTRATION_NUMBER", "USER_TYPE", "COUNTRY_OF_RESIDENCE", "ACCOUNT_IDENTIFIER", "FI_LEGAL_ENTITY_NAME",
		"FI_ADDRESS", "PURPOSE_OF_PAYMENT", "ULTIMATE_INSTITUTION_COUNTRY", "IDENTIFIER", "BUSINESS_TYPE", "COMPANY_LEGAL_NAME"}
}
