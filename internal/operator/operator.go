// Package operator holds the rules of the actions an operator takes on a payment that is
// stuck at its rail (paycore payments retry|fail): who may ask what, and what failing a
// payment by hand means. It is pure: the actions reach the payment's workflow as a
// Temporal update, so its history shows who did what and why.
package operator

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"paycore/internal/catalog"
	"paycore/internal/problem"
	"paycore/internal/sandbox"
)

// Action is what an operator asks of a payment waiting at its rail.
type Action string

// The actions.
const (
	// RetryRail submits the payment to its rail again now, instead of waiting for the next
	// attempt of the rail call (or for the end of the rail's slow scenario).
	RetryRail Action = "RETRY_RAIL"
	// Fail ends the payment FAILED (FAILED_BY_OPERATOR with the reason), its hold released.
	Fail Action = "FAIL"
)

// MaxReasonLength bounds a reason, in characters.
const MaxReasonLength = 500

// Request is an operator's action on one payment, as it is recorded in the payment's
// workflow history.
type Request struct {
	Action   Action `json:"action"`
	Operator string `json:"operator"`
	Reason   string `json:"reason,omitempty"`
}

// Check refuses (INVALID_INPUT) a request that does not say who asks (operator), or that
// fails a payment without saying why.
func (r Request) Check() error {
	switch {
	case r.Action != RetryRail && r.Action != Fail:
		return problem.Refuse(catalog.InvalidInput, "unknown operator action %q (want %s or %s)", r.Action, RetryRail, Fail)
	case strings.TrimSpace(r.Operator) == "":
		return problem.Refuse(catalog.InvalidInput, "an operator action names the operator who takes it")
	case r.Action == Fail && strings.TrimSpace(r.Reason) == "":
		return problem.Refuse(catalog.InvalidInput, "failing a payment by hand needs a reason")
	case !utf8.ValidString(r.Reason) || utf8.RuneCountInString(r.Reason) > MaxReasonLength:
		return problem.Refuse(catalog.InvalidInput, "the reason must be at most %d characters", MaxReasonLength)
	}
	return nil
}

// NotAtRail refuses (CONFLICT) an operator action on a payment that does not wait at its
// rail: not there yet, finished, or one whose rail step cannot be interrupted now.
func NotAtRail() error {
	return problem.Refuse(catalog.Conflict, "the payment is not waiting at its rail")
}

// FailOutcome is how a payment failed by an operator ends: FAILED with failureDetails
// FAILED_BY_OPERATOR naming the operator and the reason (its hold is then released like any
// failed payment's).
func FailOutcome(r Request) sandbox.Outcome {
	return sandbox.Outcome{Status: catalog.TxFailed, Code: catalog.FailByOperator,
		Message: fmt.Sprintf("failed by operator %s: %s", r.Operator, r.Reason)}
}

// WorkflowRunning and WorkflowNotFound are what Temporal says of a payment's workflow when
// it runs and when it has no such workflow (never started, or its history is past the
// namespace's retention); a closed workflow is named by the status it closed with
// (COMPLETED, FAILED, TERMINATED, CANCELED, TIMED_OUT, CONTINUED_AS_NEW).
const (
	WorkflowRunning  = "RUNNING"
	WorkflowNotFound = "NOT_FOUND"
)

// Why a payment is listed as stuck.
const (
	// StuckNoWorkflow: the payment is unfinished and its workflow does not run, so nothing
	// will ever finish it, whatever its age.
	StuckNoWorkflow = "WORKFLOW_NOT_RUNNING"
	// StuckWaiting: its workflow runs, but its status has not changed for longer than asked.
	StuckWaiting = "WAITING"
)

// Stuck says why an unfinished payment (PENDING or PROCESSING) is stuck, "" when it is not:
// its workflow is not running (workflowStatus anything but RUNNING) whatever its age, or its
// status has not changed for longer than olderThan. workflowStatus is "" for a payment no
// workflow runs (sandbox funding): its age alone decides.
func Stuck(workflowStatus string, waiting, olderThan time.Duration) string {
	switch {
	case workflowStatus != "" && workflowStatus != WorkflowRunning:
		return StuckNoWorkflow
	case waiting > olderThan:
		return StuckWaiting
	}
	return ""
}
