package quote

import (
	"time"

	"paycore/internal/catalog"
	"paycore/internal/problem"
)

// State is a quote as its transitions read it: the quote and its transaction as stored,
// under their locks. A quote is PENDING until an execution holds its money (ExecuteKey set,
// PROCESSING), a deposit arrives, or its timer expires it (EXPIRED); its payment then ends
// as the transaction's status says.
type State struct {
	Source    SourceKind
	Status    catalog.TransactionStatus // the transaction's status
	ExpiresAt time.Time
	// ExecuteKey is the key of the request that executed the quote ("" until then;
	// DepositKey for a deposit).
	ExecuteKey string
	// Deposited is set once a deposit arrived for a REALTIME_FUNDING quote (on time or
	// late), with its request's key and amount; Total is what the quote asks for.
	Deposited     bool
	DepositKey    string
	DepositAmount int64
	Total         int64
	// SentBack is set when the deposit came late and was sent back (refund TIMEOUT).
	SentBack bool
}

// Step is what a transition asks the caller to write.
type Step string

// Steps of the transitions.
const (
	// StepHold (Execute): hold the sending amount and mark the quote executed, PROCESSING.
	StepHold Step = "HOLD"
	// StepTake (Fund): take the deposit in, held for the payment, and mark the quote
	// executed, PROCESSING.
	StepTake Step = "TAKE"
	// StepSendBack (Fund): take the late deposit in and send it straight back; the quote
	// ends EXPIRED (if it was not yet) with the refund TIMEOUT.
	StepSendBack Step = "SEND_BACK"
	// StepExpire (Expire): the transaction goes PENDING → EXPIRED (QUOTE_EXPIRED).
	StepExpire Step = "EXPIRE"
	// StepPay (Expire): the quote was executed after all; its payment goes on.
	StepPay Step = "PAY"
	// StepRepeat: the same request again (its key); answer the quote as stored, write
	// nothing.
	StepRepeat Step = "REPEAT"
	// StepNone: nothing to do (the quote already ended).
	StepNone Step = "NONE"
)

// Expired reports whether a quote that expires at expiresAt has expired at now: the one
// place a quote's expiry is judged (its workflow's timer fires at expiresAt too).
func Expired(expiresAt, now time.Time) bool {
	return !now.Before(expiresAt)
}

// Executed reports whether the quote was executed (by a request or its deposit).
func (s State) Executed() bool { return s.ExecuteKey != "" }

// Refusals of the transitions (409 QUOTE_NOT_PENDING, or CONFLICT).
func errDepositExecutes() error {
	return problem.Refuse(catalog.Conflict,
		"a REALTIME_FUNDING quote is executed by its deposit (in the sandbox: POST /sandbox/send), not by this request")
}

func errExecutedByAnother() error {
	return problem.Refuse(catalog.QuoteNotPending, "the quote was already executed by another request")
}

func errNotPending(status catalog.TransactionStatus) error {
	return problem.Refuse(catalog.QuoteNotPending, "the quote is %s and can no longer be executed", status)
}

// ErrExpired refuses executing a quote past its expiry (409 QUOTE_NOT_PENDING). The
// quote's workflow refuses with it too once its timer has fired.
func ErrExpired() error {
	return problem.Refuse(catalog.QuoteNotPending, "the quote expired and can no longer be executed")
}

func errEnded() error {
	return problem.Refuse(catalog.QuoteNotPending, "the quote has ended and can no longer be executed")
}

// Execute is the execution of a quote by request key at now. open says whether the
// quote's workflow still runs (only it pays an executed quote): a quote whose workflow
// has ended answers a repeat but takes no new execution.
//
// A REALTIME_FUNDING quote is refused (CONFLICT: its deposit executes it); a quote this
// key executed is a repeat; one executed by another key, no longer PENDING, or expired is
// refused with QUOTE_NOT_PENDING; otherwise the quote is held.
func (s State) Execute(key string, now time.Time, open bool) (Step, error) {
	switch {
	case s.Source != SourceAccount:
		return "", errDepositExecutes()
	case s.Executed() && s.ExecuteKey == key:
		return StepRepeat, nil
	case s.Executed():
		return "", errExecutedByAnother()
	case s.Status != catalog.TxPending:
		return "", errNotPending(s.Status)
	case Expired(s.ExpiresAt, now):
		return "", ErrExpired()
	case !open:
		return "", errEnded()
	}
	return StepHold, nil
}

// AwaitsExecution reports whether executing the quote by key would hold its money, its
// expiry left to the execution itself: an embedded wallet's customer is asked to sign only
// then (a repeat or a refusal needs no signature).
func (s State) AwaitsExecution(key string) bool {
	step, err := s.Execute(key, time.Time{}, true)
	return err == nil && step == StepHold
}

// Funding is what a deposit does: its Step, whether it matches the quote's total (a
// deposit that does not fails the payment, FUNDING_AMOUNT_MISMATCH) and whether it came
// late (sent back).
type Funding struct {
	Step    Step
	Matches bool
	Late    bool
}

// Fund is deposit d for a quote at now; open as for Execute.
//
// A quote funded from an account is refused (INVALID_INPUT); the same deposit again (its
// key) is a repeat while the workflow runs; a second deposit, or any once the workflow has
// ended, is refused (CONFLICT). A deposit for a quote no longer
// PENDING or expired is sent back; otherwise it is taken and executes the quote.
func (s State) Fund(d Deposit, now time.Time, open bool) (Funding, error) {
	switch {
	case s.Source != SourceRealtimeFunding:
		return Funding{}, problem.Refuse(catalog.InvalidInput, "the quote is funded from an account, not by a deposit")
	case s.Deposited && s.DepositKey == d.Key && open:
		return Funding{Step: StepRepeat, Matches: s.DepositAmount == s.Total, Late: s.SentBack}, nil
	case s.Deposited:
		return Funding{}, problem.Refuse(catalog.Conflict, "the quote's deposit has already arrived")
	case !open:
		return Funding{}, problem.Refuse(catalog.QuoteNotPending, "the quote has ended and takes no deposit")
	case s.Status != catalog.TxPending || Expired(s.ExpiresAt, now):
		return Funding{Step: StepSendBack, Late: true}, nil
	}
	return Funding{Step: StepTake, Matches: d.Amount == s.Total}, nil
}

// CheckDepositRequest checks a deposit request (the sandbox's POST /sandbox/send) for a
// quote whose source is source and whose sending currency is quoteCurrency, before it
// reaches the quote: a quote funded from an account takes no deposit (INVALID_INPUT on
// quoteId), and the deposit's currency must be the quote's (INVALID_CURRENCY on
// currencyCode).
func CheckDepositRequest(source SourceKind, quoteCurrency, currency string) error {
	switch {
	case source != SourceRealtimeFunding:
		return problem.Field("quoteId", "the quote is funded from an account: execute it with POST /quotes/{quoteId}/execute")
	case currency != quoteCurrency:
		return problem.FieldCode(catalog.InvalidCurrency, "currencyCode", "the quote is funded in %s, not %s", quoteCurrency, currency)
	}
	return nil
}

// Expire is the quote's timer firing: a quote nobody executed or funded goes EXPIRED; one
// executed after all (an execution the workflow did not see) is paid; one that already
// ended (a late deposit expired it) stays as it is.
func (s State) Expire() Step {
	switch {
	case s.Executed():
		return StepPay
	case s.Deposited || s.Status != catalog.TxPending:
		return StepNone
	}
	return StepExpire
}

// Mismatch reports whether an executed quote's deposit differs from its total.
func (s State) Mismatch() bool { return s.Deposited && s.DepositAmount != s.Total }

// NotFound is the refusal of a quote the caller's platform does not have (another
// platform's included): 404 QUOTE_NOT_FOUND.
func NotFound() error { return problem.NotFound(catalog.QuoteNotFound, "quote") }
