package incoming

import (
	"paycore/internal/catalog"
	"paycore/internal/platformconfig"
	"paycore/internal/problem"
)

// Receiver is what the create rule reads of the receiving customer the request names, with
// its open account in the payment's currency and its platform's configuration.
type Receiver struct {
	Deleted bool
	// HasAccount is set when the customer has an open account in the payment's currency;
	// AccountStatus is that account's status.
	HasAccount    bool
	AccountStatus catalog.AccountStatus
	Currencies    platformconfig.Currencies
}

// CheckCreate is the rule of a new incoming payment: nil when r may be created, else the
// refusal with its catalogue code. The create step applies it under the database
// transaction that writes the payment; home is what it read of the sender's address and
// rc the receiving customer (nil: the platform has none by that UMA address or id). In
// order: the sender may pay from its address (CheckSender), the receiver exists, is not
// deleted and has an ACTIVE account in the currency, and the platform takes the currency
// INCOMING with the amount within its limits.
func CheckCreate(r Request, home SenderHome, rc *Receiver) error {
	if err := CheckSender(r.Sender, home); err != nil {
		return err
	}
	switch {
	case rc == nil:
		return problem.NotFound(catalog.UserNotFound, "receiving customer")
	case rc.Deleted:
		return problem.Refuse(catalog.CustomerDeleted, "the receiving customer is deleted")
	case !rc.HasAccount:
		return problem.FieldCode(catalog.InvalidCurrency, "receivingCurrencyCode", "the receiving customer has no %s account", r.Currency)
	case rc.AccountStatus != catalog.AccountActive:
		return problem.Field("receivingCurrencyCode", "the receiving customer's %s account is %s", r.Currency, rc.AccountStatus)
	}
	return rc.Currencies.CheckAmount(r.Currency, catalog.Incoming, r.Amount)
}

// Stage is where an incoming payment stands between its creation and its finish: its
// transaction is PENDING throughout, and its finish moves it through the transaction
// status table (catalog.TransactionTransitions) by its decision's Outcome: COMPLETE when
// approved, REJECT when rejected, FAIL otherwise.
//
//	Created --ask--> Asking --Answered(202)--> Awaiting --Call / Timeout--> Decided --finish--> Finished
//	Created --sandbox sender decides--> Decided;  Asking --Answered(other)--> Decided
//	Decided(approved, from another provider) --collect--> Collecting --Collected--> Decided
type Stage int

// The stages of an incoming payment.
const (
	// StageCreated: created, the platform not asked yet (a sandbox sender's wait).
	StageCreated Stage = iota
	// StageAsking: the INCOMING_PAYMENT_PENDING webhook asks the platform.
	StageAsking
	// StageAwaiting: the platform answered 202; an approve or reject call decides, until
	// the approval deadline.
	StageAwaiting
	// StageDecided: decided (the webhook's answer, a call, the deadline, a sandbox
	// sender), being finished.
	StageDecided
	// StageFinished: the finish ended the transaction (or, for the counterpart of a
	// payment between customers of this deployment, handed the decision to the quote).
	StageFinished
	// StageCollecting: approved, the payment from another UMA provider waits for its payer
	// to pay the payment request (Collects); its collection decides it again (Collected).
	StageCollecting
)

var stageNames = [...]string{"CREATED", "ASKING", "AWAITING", "DECIDED", "FINISHED", "COLLECTING"}

func (s Stage) String() string {
	if s < 0 || int(s) >= len(stageNames) {
		return "UNKNOWN"
	}
	return stageNames[s]
}

// Answered is the stage the platform's answer to the approval webhook (or a decision made
// without asking it) leaves a payment in: Awaiting after a 202, Decided otherwise.
func Answered(d Decision) Stage {
	if d.Pending {
		return StageAwaiting
	}
	return StageDecided
}

// Call is the rule of the platform's approve or reject call on a payment in stage s: taken
// while Awaiting (the payment is then Decided); held while Asking (wait: the answer may be
// a 202; apply Call again once it came); refused in any other stage with
// TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL.
func Call(s Stage) (next Stage, wait bool, err error) {
	switch s {
	case StageAwaiting:
		return StageDecided, false, nil
	case StageAsking:
		return s, true, nil
	}
	return s, false, problem.Refuse(catalog.TransactionNotPendingApproval, "the payment is not waiting for the platform's approval")
}

// Timeout is the approval deadline passing in stage s: a payment still Awaiting is
// Decided, failed with PAYMENT_APPROVAL_TIMED_OUT (ok); in any other stage the deadline
// changes nothing.
func Timeout(s Stage) (next Stage, d Decision, ok bool) {
	if s != StageAwaiting {
		return s, Decision{}, false
	}
	return StageDecided, TimedOut(), true
}

// CheckCall is the rule of an approve or reject call on a stored transaction of kind and
// status, before it reaches the payment's workflow: only a PENDING incoming UMA payment
// may be awaiting the platform's decision; any other is refused with
// TRANSACTION_NOT_PENDING_PLATFORM_APPROVAL. The workflow then applies Call to its stage.
func CheckCall(kind string, status catalog.TransactionStatus) error {
	if kind != Kind || status != catalog.TxPending {
		return NotPendingApproval()
	}
	return nil
}

// NotPendingApproval is the refusal of a call on a payment that is not awaiting the
// platform's decision as the stored transaction (or a workflow that ended) shows it.
func NotPendingApproval() error {
	return problem.Refuse(catalog.TransactionNotPendingApproval,
		"the transaction is not waiting for the platform's approval (decided, timed out, or not an incoming payment awaiting approval)")
}
