package workflows

import (
	"errors"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"

	"paycore/internal/catalog"
	"paycore/internal/payment"
	"paycore/internal/problem"
	"paycore/internal/sandbox"
)

var cancelIt = &payment.Cancellation{Reason: "requested after hours"}

// slowPayment are cancellable steps whose rail answers at once that the payment is slow:
// it waits slowDelay at its rail, then completes.
func slowPayment() *railSteps {
	return &railSteps{up: true, cancellable: true, fakeSteps: fakeSteps{status: catalog.TxProcessing,
		outcome: sandbox.Outcome{Status: catalog.TxCompleted, Slow: true}, final: catalog.TxCompleted}}
}

// notCancellable is the rail's refusal as the cancel activity returns it.
func notCancellable() error {
	w, _ := problem.ToWire(payment.NotCancellable("its rail cannot cancel it any more"))
	return temporal.NewNonRetryableApplicationError(w.Message, string(w.Code), nil, w)
}

// A payment waiting at its rail in the slow scenario is cancelled: the rail is asked, the
// wait ends at once and the payment is finished FAILED with USER_CANCELLATION carrying the
// platform's reason; the cancellation is answered with that status.
func TestCancelDuringSlowWait(t *testing.T) {
	steps := slowPayment()
	steps.final = catalog.TxFailed
	var started time.Time
	run := runOperator(t, steps, timedAction{at: 10 * time.Second, cancel: cancelIt, before: func() { started = steps.env.Now() }})
	f := steps.finished
	if len(run.answers) != 1 || run.answers[0] != "FAILED" || f.Status != catalog.TxFailed || f.Code != catalog.FailUserCancelled ||
		!strings.Contains(f.Message, cancelIt.Reason) {
		t.Fatalf("answers %v, finished %+v", run.answers, f)
	}
	if !steps.finishAt.Before(started.Add(slowDelay)) {
		t.Fatalf("finished %s after the cancellation, not before the slow wait would have ended", steps.finishAt.Sub(started))
	}
}

// A payment whose rail call is under way (the rail is down, the call retried) is cancelled
// there too: the call is abandoned once the rail confirmed the cancellation.
func TestCancelDuringRailCall(t *testing.T) {
	steps := slowPayment()
	steps.up, steps.final = false, catalog.TxFailed
	run := runOperator(t, steps, timedAction{at: 2 * time.Minute, cancel: cancelIt})
	if len(run.answers) != 1 || run.answers[0] != "FAILED" || steps.finished.Code != catalog.FailUserCancelled {
		t.Fatalf("answers %v, finished %+v", run.answers, steps.finished)
	}
}

// A rail that refuses the cancellation leaves the payment as it was: the cancellation is
// answered TRANSACTION_NOT_CANCELLABLE and the payment completes when its wait ends.
func TestCancelRefusedByTheRail(t *testing.T) {
	steps := slowPayment()
	steps.cancelAnswers = []error{notCancellable()}
	run := runOperator(t, steps, timedAction{at: 10 * time.Second, cancel: cancelIt})
	if len(run.answers) != 1 || !strings.Contains(run.answers[0], string(catalog.TransactionNotCancellable)) {
		t.Fatalf("answers %v", run.answers)
	}
	if steps.finished.Status != catalog.TxCompleted {
		t.Fatalf("finished %+v", steps.finished)
	}
}

// A rail that does not answer the cancellation within its 30 seconds leaves the payment as
// it was, the cancellation refused (the payment goes on).
func TestCancelUnansweredByTheRail(t *testing.T) {
	steps := slowPayment()
	for range 20 {
		steps.cancelAnswers = append(steps.cancelAnswers, errors.New("the rail is down"))
	}
	steps.outcome.Status = catalog.TxCompleted
	run := runOperator(t, steps, timedAction{at: time.Second, cancel: cancelIt})
	if len(run.answers) != 1 || !strings.Contains(run.answers[0], string(catalog.TransactionNotCancellable)) ||
		!strings.Contains(run.answers[0], "did not confirm") {
		t.Fatalf("answers %v", run.answers)
	}
	if steps.finished.Status != catalog.TxCompleted {
		t.Fatalf("finished %+v", steps.finished)
	}
}

// A payment that settles while its rail is being asked to cancel it (the slow wait ends
// between two attempts of the cancel call) ends as it settled, and the cancellation is
// refused.
func TestCancelRacingSettlement(t *testing.T) {
	steps := slowPayment()
	steps.cancelAnswers = []error{errors.New("busy"), errors.New("busy"), errors.New("busy")}
	run := runOperator(t, steps, timedAction{at: slowDelay - 2*time.Second, cancel: cancelIt})
	if len(run.answers) != 1 || !strings.Contains(run.answers[0], "settled before") {
		t.Fatalf("answers %v", run.answers)
	}
	if steps.finished.Status != catalog.TxCompleted {
		t.Fatalf("finished %+v", steps.finished)
	}
}

// Steps that cannot cancel at their rail, a second cancellation while the first asks the
// rail, and an operator's action meanwhile are refused before anything runs.
func TestCancelRefusedBeforeTheRail(t *testing.T) {
	plain := slowPayment()
	plain.cancellable = false
	run := runOperator(t, plain, timedAction{at: 10 * time.Second, cancel: cancelIt})
	if len(run.answers) != 1 || !strings.HasPrefix(run.answers[0], "rejected: ") || !strings.Contains(run.answers[0], "not waiting at its rail") {
		t.Fatalf("steps without a rail cancellation: answers %v", run.answers)
	}

	steps := slowPayment()
	steps.final = catalog.TxFailed
	steps.cancelAnswers = []error{errors.New("busy"), errors.New("busy")} // the first cancellation takes 3 s
	run = runOperator(t, steps,
		timedAction{at: 10 * time.Second, cancel: cancelIt},
		timedAction{at: 11 * time.Second, cancel: cancelIt},
		timedAction{at: 12 * time.Second, r: failIt})
	if len(run.answers) != 3 || !strings.HasPrefix(run.answers[0], "rejected: ") || !strings.HasPrefix(run.answers[1], "rejected: ") || run.answers[2] != "FAILED" {
		t.Fatalf("answers %v", run.answers)
	}
	if steps.finished.Code != catalog.FailUserCancelled {
		t.Fatalf("finished %+v", steps.finished)
	}
	tooLong := &payment.Cancellation{Reason: strings.Repeat("x", payment.MaxCancelReasonLength+1)}
	run = runOperator(t, slowPayment(), timedAction{at: 10 * time.Second, cancel: tooLong})
	if len(run.answers) != 1 || !strings.HasPrefix(run.answers[0], "rejected: ") {
		t.Fatalf("a reason too long: answers %v", run.answers)
	}
}
