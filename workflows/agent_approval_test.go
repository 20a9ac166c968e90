package workflows

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"paycore/activities"
	"paycore/internal/agent"
	"paycore/internal/catalog"
	"paycore/internal/problem"
)

var (
	actStart = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	actID    = uuid.MustParse("0190a000-0000-7000-8000-0000000000c1")
	actReq   = agent.Request{ActionID: actID, WorkflowID: AgentActionWorkflowID(actID, ""), Type: agent.TransferOut, Amount: 1500,
		PlatformID: uuid.MustParse("0190a000-0000-7000-8000-0000000000c2"), AgentID: uuid.MustParse("0190a000-0000-7000-8000-0000000000c3"),
		InternalAccountID: uuid.MustParse("0190a000-0000-7000-8000-0000000000c4"),
		ExternalAccountID: uuid.NullUUID{UUID: uuid.MustParse("0190a000-0000-7000-8000-0000000000c5"), Valid: true}, ApprovalLifetime: 24 * time.Hour}
	actExpires = actStart.Add(24 * time.Hour)
)

// actStep is an ActionStep in status whose resource names that status.
func actStep(status agent.ActionStatus) activities.ActionStep {
	s := activities.ActionStep{Action: json.RawMessage(`{"id":"AgentAction:x","status":"` + string(status) + `"}`), Status: status}
	if status == agent.PendingApproval {
		s.ApprovalExpiresAt = actExpires
	}
	return s
}

// actUpdate is an update sent to the AgentAction workflow at a moment, and what it got.
type actUpdate struct {
	name     string
	at       time.Duration
	arg      any
	result   json.RawMessage
	err      error
	rejected bool // refused by the validator (or unknown), before running
	done     bool
	atEnd    time.Duration
}

// status is the status the answered resource names ("" without one).
func (u *actUpdate) status(t *testing.T) string {
	t.Helper()
	var v struct {
		Status string `json:"status"`
	}
	if len(u.result) > 0 {
		if err := json.Unmarshal(u.result, &v); err != nil {
			t.Fatalf("%s answered %s: %v", u.name, u.result, err)
		}
	}
	return v.Status
}

// runAction runs the AgentAction workflow with the create update at once, then the other
// updates at their moments, and returns the create update's answer.
func runAction(t *testing.T, env *testsuite.TestWorkflowEnvironment, updates ...*actUpdate) *actUpdate {
	t.Helper()
	env.SetStartTime(actStart)
	create := &actUpdate{name: UpdateCreate}
	for i, u := range append([]*actUpdate{create}, updates...) {
		env.RegisterDelayedCallback(func() {
			cb := &testsuite.TestUpdateCallback{OnAccept: func() {},
				OnReject: func(err error) { u.err, u.rejected, u.done, u.atEnd = err, true, true, env.Now().Sub(actStart) },
				OnComplete: func(res interface{}, err error) {
					u.err, u.done, u.atEnd = err, true, env.Now().Sub(actStart)
					switch r := res.(type) {
					case json.RawMessage:
						u.result = r
					case nil:
					default:
						t.Errorf("%s answered a %T", u.name, res)
					}
				}}
			args := []any{}
			if u.arg != nil {
				args = append(args, u.arg)
			}
			env.UpdateWorkflow(u.name, fmt.Sprintf("u%d", i), cb, args...)
		}, u.at)
	}
	env.ExecuteWorkflow(AgentAction, actReq)
	if !env.IsWorkflowCompleted() {
		t.Fatal("the workflow did not end")
	}
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow error: %v", err)
	}
	for _, u := range append([]*actUpdate{create}, updates...) {
		if !u.done {
			t.Fatalf("update %s at %s got no answer", u.name, u.at)
		}
	}
	return create
}

// Within AUTO the create update submits and executes the action at once and answers the
// executed action; the workflow ends there, without waiting for a decision.
func TestAgentActionAutoExecutesAtOnce(t *testing.T) {
	env := newEnv(t)
	var a *activities.Activities
	executed := false
	env.OnActivity(a.SubmitAgentAction, mock.Anything, actReq).Return(actStep(agent.Approved), nil).Once()
	env.OnActivity(a.ExecuteAgentAction, mock.Anything, actReq).Return(activities.ActionStep{
		Action: json.RawMessage(`{"id":"AgentAction:x","status":"APPROVED","transaction":{"id":"Transaction:t"}}`), Status: agent.Approved}, nil).
		Once().Run(func(mock.Arguments) { executed = true })
	// A decision sent after the creation finds no pending action to decide.
	decided := mockUnwanted(env, a.DecideAgentAction, actID, mock.Anything)
	decide := &actUpdate{name: UpdateDecide, at: 0, arg: agent.Decision{Approve: true}}
	create := runAction(t, env, decide)
	if create.err != nil || !executed {
		t.Fatalf("create: %v (executed %v)", create.err, executed)
	}
	if string(create.result) != `{"id":"AgentAction:x","status":"APPROVED","transaction":{"id":"Transaction:t"}}` {
		t.Fatalf("create answered %s, want the executed action", create.result)
	}
	if decide.err == nil || *decided {
		t.Fatalf("a decision on an AUTO action: %v (decided %v)", decide.err, *decided)
	}
	if env.Now().Sub(actStart) >= 24*time.Hour {
		t.Fatalf("the workflow waited (ended at %s)", env.Now().Sub(actStart))
	}
	env.AssertExpectations(t) // DecideAgentAction and ExpireAgentAction are not mocked
}

// An AUTO action whose execution is refused (the balance went too low): the create
// update fails with the refusal, its code as the error type and its wire form as details.
func TestAgentActionAutoRefusedExecution(t *testing.T) {
	env := newEnv(t)
	var a *activities.Activities
	refusal := problem.Wire{Code: catalog.InsufficientFunds, Message: "the account's available balance is below 1500", Field: "amount"}
	env.OnActivity(a.SubmitAgentAction, mock.Anything, actReq).Return(actStep(agent.Approved), nil).Once()
	failed := actStep(agent.Failed)
	failed.Refusal = &refusal
	env.OnActivity(a.ExecuteAgentAction, mock.Anything, actReq).Return(failed, nil).Once()
	create := runAction(t, env)
	var appErr *temporal.ApplicationError
	if !errors.As(create.err, &appErr) {
		t.Fatalf("create: %v (answered %s), want an application error", create.err, create.result)
	}
	if appErr.Type() != string(catalog.InsufficientFunds) || !appErr.NonRetryable() {
		t.Fatalf("error type %q (non-retryable %v), want %s", appErr.Type(), appErr.NonRetryable(), catalog.InsufficientFunds)
	}
	var w problem.Wire
	if err := appErr.Details(&w); err != nil {
		t.Fatalf("details: %v", err)
	}
	if w.Code != refusal.Code || w.Message != refusal.Message || w.Field != refusal.Field {
		t.Fatalf("details %+v, want %+v", w, refusal)
	}
	env.AssertExpectations(t)
}

// runPendingMocks mocks the submission of a pending action.
func runPendingMocks(env *testsuite.TestWorkflowEnvironment) {
	var a *activities.Activities
	env.OnActivity(a.SubmitAgentAction, mock.Anything, actReq).Return(actStep(agent.PendingApproval), nil).Once()
}

// A pending action waits for the platform: approval runs the decision, then the
// execution, and the decide update answers the executed action.
func TestAgentActionApprovedThenExecuted(t *testing.T) {
	env := newEnv(t)
	var a *activities.Activities
	var order []string
	approve := agent.Decision{Approve: true}
	runPendingMocks(env)
	env.OnActivity(a.DecideAgentAction, mock.Anything, actID, approve).Return(actStep(agent.Approved), nil).Once().
		Run(func(mock.Arguments) { order = append(order, "decide") })
	env.OnActivity(a.ExecuteAgentAction, mock.Anything, actReq).Return(activities.ActionStep{
		Action: json.RawMessage(`{"id":"AgentAction:x","status":"APPROVED","transaction":{"id":"Transaction:t"}}`), Status: agent.Approved}, nil).
		Once().Run(func(mock.Arguments) { order = append(order, "execute") })
	decide := &actUpdate{name: UpdateDecide, at: time.Hour, arg: approve}
	create := runAction(t, env, decide)
	if create.err != nil || create.status(t) != "PENDING_APPROVAL" {
		t.Fatalf("create: %v %s", create.err, create.result)
	}
	if decide.err != nil || string(decide.result) != `{"id":"AgentAction:x","status":"APPROVED","transaction":{"id":"Transaction:t"}}` {
		t.Fatalf("decide: %v, answered %s", decide.err, decide.result)
	}
	if fmt.Sprint(order) != "[decide execute]" {
		t.Fatalf("steps %v, want the decision then the execution", order)
	}
	if env.Now().Sub(actStart) >= 24*time.Hour {
		t.Fatalf("the workflow waited for the expiry after the decision (ended at %s)", env.Now().Sub(actStart))
	}
	env.AssertExpectations(t) // ExpireAgentAction is not mocked
}

// A rejection ends the action REJECTED: the decision runs, nothing is executed.
func TestAgentActionRejected(t *testing.T) {
	env := newEnv(t)
	var a *activities.Activities
	reject := agent.Decision{Reason: "not this week"}
	runPendingMocks(env)
	env.OnActivity(a.DecideAgentAction, mock.Anything, actID, reject).Return(actStep(agent.Rejected), nil).Once()
	executed := mockUnwanted(env, a.ExecuteAgentAction, actReq)
	decide := &actUpdate{name: UpdateDecide, at: time.Hour, arg: reject}
	runAction(t, env, decide)
	if decide.err != nil || decide.status(t) != "REJECTED" {
		t.Fatalf("reject: %v, answered %s", decide.err, decide.result)
	}
	if *executed {
		t.Fatal("a rejected action was executed")
	}
	env.AssertExpectations(t)
}

// mockUnwanted mocks a step a test wants never to run, and reports whether it ran.
func mockUnwanted(env *testsuite.TestWorkflowEnvironment, step any, args ...any) *bool {
	ran := new(bool)
	env.OnActivity(step, append([]any{mock.Anything}, args...)...).Return(actStep(agent.Approved), nil).Maybe().
		Run(func(mock.Arguments) { *ran = true })
	return ran
}

// Nobody decides: at approvalExpiresAt (24 hours, skipped) the expiry runs, and a
// decision after it is rejected by the validator without running a step.
func TestAgentActionExpires(t *testing.T) {
	env := newEnv(t)
	var a *activities.Activities
	var expiredAt time.Duration
	runPendingMocks(env)
	// The expiry's step takes a minute (a slow database): a decision sent while it runs,
	// after the timer fired, is refused by the validator.
	env.OnActivity(a.ExpireAgentAction, mock.Anything, actID).After(time.Minute).Return(actStep(agent.Failed), nil).Once().
		Run(func(mock.Arguments) { expiredAt = env.Now().Sub(actStart) })
	decided := mockUnwanted(env, a.DecideAgentAction, actID, mock.Anything)
	executed := mockUnwanted(env, a.ExecuteAgentAction, actReq)
	late := &actUpdate{name: UpdateDecide, at: 24*time.Hour + time.Second, arg: agent.Decision{Approve: true}}
	runAction(t, env, late)
	if expiredAt != 24*time.Hour+time.Minute { // the step's answer, a minute after the timer
		t.Fatalf("expired at %s, want 24h (and a minute)", expiredAt)
	}
	if late.err == nil || !late.rejected {
		t.Fatalf("a decision after the expiry: %v (rejected %v)", late.err, late.rejected)
	}
	// The validator's refusal is the state machine's, coded: the API answers it as it is.
	if w := refusedWith(t, late.err, catalog.AgentActionNotPending); w.Details["status"] != "FAILED" || w.Details["failureReason"] != agent.FailureApprovalExpired {
		t.Fatalf("a decision after the expiry: details %v", w.Details)
	}
	if *decided || *executed {
		t.Fatalf("after the expiry: decided %v, executed %v", *decided, *executed)
	}
	env.AssertExpectations(t)
}

// Two decisions: the first decides (its step takes a minute), the second, sent while the
// first runs, is rejected by the validator; only one decision step runs.
func TestAgentActionSecondDecisionRejected(t *testing.T) {
	env := newEnv(t)
	var a *activities.Activities
	reject := agent.Decision{Reason: "no"}
	runPendingMocks(env)
	env.OnActivity(a.DecideAgentAction, mock.Anything, actID, reject).After(time.Minute).Return(actStep(agent.Rejected), nil).Once()
	first := &actUpdate{name: UpdateDecide, at: time.Hour, arg: reject}
	during := &actUpdate{name: UpdateDecide, at: time.Hour + time.Second, arg: agent.Decision{Approve: true}}
	executed := mockUnwanted(env, a.ExecuteAgentAction, actReq)
	runAction(t, env, first, during)
	if first.err != nil || first.status(t) != "REJECTED" {
		t.Fatalf("first decision: %v %s", first.err, first.result)
	}
	if during.err == nil || !during.rejected {
		t.Fatalf("a second decision while the first ran: %v (rejected %v)", during.err, during.rejected)
	}
	if w := refusedWith(t, during.err, catalog.AgentActionNotPending); w.Details["status"] != "PENDING_APPROVAL" {
		t.Fatalf("a second decision while the first ran: details %v", w.Details)
	}
	if *executed {
		t.Fatal("the second decision (an approval) executed the rejected action")
	}
	env.AssertExpectations(t)
}

// An approval whose execution is refused (the quote expired meanwhile) answers the
// FAILED action, not an error: the decision was taken.
func TestAgentActionApprovedExecutionRefused(t *testing.T) {
	env := newEnv(t)
	var a *activities.Activities
	approve := agent.Decision{Approve: true}
	runPendingMocks(env)
	env.OnActivity(a.DecideAgentAction, mock.Anything, actID, approve).Return(actStep(agent.Approved), nil).Once()
	failed := actStep(agent.Failed)
	failed.Refusal = &problem.Wire{Code: catalog.QuoteNotPending, Message: "the quote expired"}
	env.OnActivity(a.ExecuteAgentAction, mock.Anything, actReq).Return(failed, nil).Once()
	decide := &actUpdate{name: UpdateDecide, at: time.Hour, arg: approve}
	runAction(t, env, decide)
	if decide.err != nil || decide.status(t) != "FAILED" {
		t.Fatalf("decide: %v, answered %s", decide.err, decide.result)
	}
	env.AssertExpectations(t)
}

// A pending action whose approvalExpiresAt has already passed when the workflow gets to
// wait (a lifetime shorter than the submission took) expires at once.
func TestAgentActionAlreadyExpired(t *testing.T) {
	env := newEnv(t)
	var a *activities.Activities
	past := actStep(agent.PendingApproval)
	past.ApprovalExpiresAt = actStart.Add(-time.Second)
	env.OnActivity(a.SubmitAgentAction, mock.Anything, actReq).Return(past, nil).Once()
	var expiredAt time.Duration = -1
	env.OnActivity(a.ExpireAgentAction, mock.Anything, actID).Return(actStep(agent.Failed), nil).Once().
		Run(func(mock.Arguments) { expiredAt = env.Now().Sub(actStart) })
	create := runAction(t, env)
	if create.err != nil || create.status(t) != "PENDING_APPROVAL" {
		t.Fatalf("create: %v %s", create.err, create.result)
	}
	if expiredAt != 0 {
		t.Fatalf("expired at %s, want at once", expiredAt)
	}
	env.AssertExpectations(t)
}

// A decision the action's state machine refuses under its lock (the database's clock had
// reached approvalExpiresAt a moment before the workflow's timer) leaves the action pending:
// the workflow does not end there but still expires it at approvalExpiresAt, so no
// PENDING_APPROVAL action is left without a workflow. A decision after that refusal and
// before the expiry is still taken to the action.
func TestAgentActionRefusedDecisionStillExpires(t *testing.T) {
	env := newEnv(t)
	var a *activities.Activities
	approve := agent.Decision{Approve: true}
	runPendingMocks(env)
	refused := temporal.NewNonRetryableApplicationError("the action is FAILED", string(catalog.AgentActionNotPending), nil,
		problem.Wire{Code: catalog.AgentActionNotPending, Message: "the action is FAILED", Details: map[string]any{"status": "FAILED"}})
	env.OnActivity(a.DecideAgentAction, mock.Anything, actID, approve).Return(activities.ActionStep{}, refused).Twice()
	var expiredAt time.Duration = -1
	env.OnActivity(a.ExpireAgentAction, mock.Anything, actID).Return(actStep(agent.Failed), nil).Once().
		Run(func(mock.Arguments) { expiredAt = env.Now().Sub(actStart) })
	executed := mockUnwanted(env, a.ExecuteAgentAction, actReq)
	first := &actUpdate{name: UpdateDecide, at: 24*time.Hour - time.Second, arg: approve}
	again := &actUpdate{name: UpdateDecide, at: 24*time.Hour - time.Second/2, arg: approve}
	runAction(t, env, first, again)
	for _, u := range []*actUpdate{first, again} {
		if u.rejected {
			t.Fatalf("a decision before the expiry was rejected by the validator: %v", u.err)
		}
		refusedWith(t, u.err, catalog.AgentActionNotPending)
	}
	if expiredAt != 24*time.Hour {
		t.Fatalf("expired at %s, want at approvalExpiresAt (24h)", expiredAt)
	}
	if *executed {
		t.Fatal("a refused decision executed the action")
	}
	env.AssertExpectations(t)
}

// refusedWith checks that err is a non-retryable application error whose type is code and
// whose details are the refusal's wire form, and returns that.
func refusedWith(t *testing.T, err error, code catalog.Code) problem.Wire {
	t.Helper()
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || appErr.Type() != string(code) {
		t.Fatalf("%v: want an application error of type %s", err, code)
	}
	var w problem.Wire
	if derr := appErr.Details(&w); derr != nil || w.Code != code {
		t.Fatalf("details %+v (%v), want the %s refusal", w, derr, code)
	}
	return w
}
