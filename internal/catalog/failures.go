package catalog

// Failure reasons (failureReason) of transactions: the peer API's enumerations, one per
// type. A payment's failureDetails.code says precisely what happened; its failureReason is
// the coarser, enumerated cause integrators switch on (FailureReason).
const (
	// Outgoing payments.
	ReasonQuoteExpired         = "QUOTE_EXPIRED"
	ReasonQuoteRateUnavailable = "QUOTE_RATE_UNAVAILABLE"
	ReasonQuoteExecutionFailed = "QUOTE_EXECUTION_FAILED"
	ReasonFundingMismatch      = "FUNDING_AMOUNT_MISMATCH"
	ReasonPayoutReturned       = "PAYOUT_RETURNED"
	ReasonLimitExceeded        = "LIMIT_EXCEEDED"
	ReasonAccountCannotReceive = "ACCOUNT_CANNOT_RECEIVE"
	ReasonAccountInvalid       = "ACCOUNT_INVALID"
	ReasonComplianceRejected   = "COMPLIANCE_REJECTED" // incoming payments too
	// ReasonLightningFailed is deprecated by the peer (QUOTE_EXECUTION_FAILED supersedes
	// it): rails may still give it; FailureReason never stores it.
	ReasonLightningFailed    = "LIGHTNING_PAYMENT_FAILED"
	ReasonCounterpartyFailed = "COUNTERPARTY_POST_TX_FAILED"

	// Incoming payments.
	ReasonLnurlpFailed         = "LNURLP_FAILED"
	ReasonPayRequestFailed     = "PAY_REQUEST_FAILED"
	ReasonApprovalWebhookError = "PAYMENT_APPROVAL_WEBHOOK_ERROR"
	ReasonApprovalTimedOut     = "PAYMENT_APPROVAL_TIMED_OUT"
	ReasonOfframpFailed        = "OFFRAMP_FAILED"
	ReasonMissingPayeeData     = "MISSING_MANDATORY_PAYEE_DATA"
	ReasonCollectionFailed     = "COLLECTION_FAILED"
)

// OutgoingFailureReasons are the failure reasons an outgoing transaction may carry.
var OutgoingFailureReasons = []string{ReasonQuoteExpired, ReasonQuoteRateUnavailable, ReasonQuoteExecutionFailed, ReasonFundingMismatch,
	ReasonPayoutReturned, ReasonLimitExceeded, ReasonAccountCannotReceive, ReasonAccountInvalid, ReasonComplianceRejected,
	ReasonLightningFailed, ReasonCounterpartyFailed}

// IncomingFailureReasons are the failure reasons an incoming transaction may carry.
var IncomingFailureReasons = []string{ReasonLnurlpFailed, ReasonPayRequestFailed, ReasonApprovalWebhookError, ReasonApprovalTimedOut,
	ReasonOfframpFailed, ReasonMissingPayeeData, ReasonQuoteExpired, ReasonQuoteExecutionFailed, ReasonComplianceRejected,
	ReasonCollectionFailed}

// Pending reasons (pendingReason): why a payment waiting at its rail is not settled yet, as
// its rail says.
const (
	PendingCounterpartyDeclaration = "COUNTERPARTY_DECLARATION_REQUIRED"
	PendingWalletVerification      = "WALLET_VERIFICATION_REQUIRED"
	PendingCounterpartyInformation = "COUNTERPARTY_INFORMATION_REQUIRED"
	PendingComplianceReview        = "COMPLIANCE_REVIEW"
)

// PendingReasons are every pending reason.
var PendingReasons = []string{PendingCounterpartyDeclaration, PendingWalletVerification, PendingCounterpartyInformation, PendingComplianceReview}

// Failure codes (failureDetails.code) whose cause the peer API names by a failure reason
// of its own: a rail (or the sandbox) that knows the payout partner's granular refusal
// reports it with these.
const (
	FailLimitExceeded        Code = "LIMIT_EXCEEDED"
	FailAccountCannotReceive Code = "ACCOUNT_CANNOT_RECEIVE"
	FailAccountInvalid       Code = "ACCOUNT_INVALID"
	FailComplianceRejected   Code = "COMPLIANCE_REJECTED"
	FailRateUnavailable      Code = "QUOTE_RATE_UNAVAILABLE"
)

// outgoingByCode are the granular reasons of an outgoing payment's failure codes.
var outgoingByCode = map[Code]string{
	FailAccountClosed:        ReasonAccountInvalid,
	FailAccountInvalid:       ReasonAccountInvalid,
	FailRejectedByBank:       ReasonAccountCannotReceive,
	FailRecipientRefused:     ReasonAccountCannotReceive,
	FailAccountCannotReceive: ReasonAccountCannotReceive,
	FailReturnedByBank:       ReasonPayoutReturned,
	FailCompliance:           ReasonComplianceRejected,
	FailComplianceRejected:   ReasonComplianceRejected,
	FailLimitExceeded:        ReasonLimitExceeded,
	FailRateUnavailable:      ReasonQuoteRateUnavailable,
}

// incomingByCode are the reasons of an incoming payment's failure codes when the payment
// gives none of its own (a transfer in: the money could not be collected).
var incomingByCode = map[Code]string{
	FailComplianceRejected:   ReasonComplianceRejected,
	FailInsufficientFunds:    ReasonCollectionFailed,
	FailAccountClosed:        ReasonCollectionFailed,
	FailAccountInvalid:       ReasonCollectionFailed,
	FailAccountCannotReceive: ReasonCollectionFailed,
	FailRejectedByBank:       ReasonCollectionFailed,
	FailTimedOut:             ReasonCollectionFailed,
	FailLimitExceeded:        ReasonCollectionFailed,
	FailRailUnavailable:      ReasonCollectionFailed,
}

// FailureReason is the failureReason a failed transaction of type typ stores, from its
// failure code and the reason its outcome gives ("" for none):
//   - outgoing: the granular payout reason its code names (ACCOUNT_INVALID, PAYOUT_RETURNED,
//     COMPLIANCE_REJECTED, …) wins over the coarser one given, as the peer returns it "when
//     available"; a given reason the peer deprecated or keeps for incoming payments
//     (LIGHTNING_PAYMENT_FAILED, PAY_REQUEST_FAILED) is QUOTE_EXECUTION_FAILED, which
//     supersedes it;
//   - incoming: the reason given (a payment received over UMA says why), else the one its
//     code names (COLLECTION_FAILED for money a transfer in could not collect).
//
// A code it does not know and no reason given is "": failureDetails alone says why (a
// cancellation, an operator's failure).
func FailureReason(typ TransactionType, code Code, given string) string {
	if typ == Outgoing {
		if r, ok := outgoingByCode[code]; ok {
			return r
		}
		if given == ReasonLightningFailed || given == ReasonPayRequestFailed {
			return ReasonQuoteExecutionFailed
		}
		return given
	}
	if given != "" {
		return given
	}
	return incomingByCode[code]
}
