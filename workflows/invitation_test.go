package workflows

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"paycore/activities"
	"paycore/internal/catalog"
	"paycore/internal/invitation"
)

var (
	invStart = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	invReq   = invitation.Request{Code: "7KQ2M9XD4HPRT1VW", PlatformID: uuid.MustParse("0190a000-0000-7000-8000-0000000000a1"),
		InviterUma: "$alice@pay.example.com", ExpiresAt: invStart.Add(48 * time.Hour), URL: "https://pay.example.com/invite/7KQ2M9XD4HPRT1VW"}
	invCreated = activities.CreatedInvitation{Resource: json.RawMessage(`{"code":"7KQ2M9XD4HPRT1VW","status":"PENDING"}`), ExpiresAt: invReq.ExpiresAt}
	invClaimed = json.RawMessage(`{"code":"7KQ2M9XD4HPRT1VW","status":"CLAIMED"}`)
)

// invUpdate is an update sent to the Invitation workflow at a moment, and what it got.
type invUpdate struct {
	name  string
	at    time.Duration
	arg   any
	err   error
	done  bool
	atEnd time.Duration // when its answer came
}

// runInvitation runs the Invitation workflow: the create update at once, then updates.
// It returns the workflow's steps (activities with when they ran).
func runInvitation(t *testing.T, env *testsuite.TestWorkflowEnvironment, updates []*invUpdate) {
	t.Helper()
	runInvitationOf(t, env, invReq, updates)
}

// runInvitationOf is runInvitation for the invitation req.
func runInvitationOf(t *testing.T, env *testsuite.TestWorkflowEnvironment, req invitation.Request, updates []*invUpdate) {
	t.Helper()
	env.SetStartTime(invStart)
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(UpdateCreate, "c", &testsuite.TestUpdateCallback{OnReject: func(err error) { t.Errorf("create rejected: %v", err) },
			OnAccept: func() {}, OnComplete: func(_ interface{}, err error) {
				if err != nil {
					t.Errorf("create: %v", err)
				}
			}})
	}, 0)
	for i, u := range updates {
		env.RegisterDelayedCallback(func() {
			cb := &testsuite.TestUpdateCallback{OnAccept: func() {},
				OnReject:   func(err error) { u.err, u.done, u.atEnd = err, true, env.Now().Sub(invStart) },
				OnComplete: func(_ interface{}, err error) { u.err, u.done, u.atEnd = err, true, env.Now().Sub(invStart) }}
			env.UpdateWorkflow(u.name, fmt.Sprintf("u%d", i), cb, u.arg)
		}, u.at)
	}
	env.ExecuteWorkflow(Invitation, req)
	if !env.IsWorkflowCompleted() {
		t.Fatal("the workflow did not end")
	}
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow error: %v", err)
	}
	for _, u := range updates {
		if !u.done {
			t.Fatalf("update %s at %s got no answer", u.name, u.at)
		}
	}
}

// An invitation nobody claims expires when its timer fires at expiresAt (48 hours, skipped),
// and its workflow ends there; a claim after that is rejected without running a step.
func TestInvitationExpiresOnItsTimer(t *testing.T) {
	env := newEnv(t)
	var a *activities.Activities
	var expiredAt time.Duration
	env.OnActivity(a.CreateInvitation, mock.Anything, invReq).Return(invCreated, nil).Once()
	env.OnActivity(a.ExpireInvitation, mock.Anything, invReq.Code).Return(catalog.InvExpired, nil).Once().
		Run(func(mock.Arguments) { expiredAt = env.Now().Sub(invStart) })
	runInvitation(t, env, nil)
	if expiredAt != 48*time.Hour {
		t.Fatalf("expired at %s, want 48h", expiredAt)
	}
	env.AssertExpectations(t)
}

// A claim before expiresAt ends the invitation at once: no expiry, and the workflow ends
// without waiting for its timer.
func TestInvitationClaimEndsIt(t *testing.T) {
	env := newEnv(t)
	var a *activities.Activities
	claim := invitation.Claim{PlatformID: uuid.MustParse("0190a000-0000-7000-8000-0000000000a2"), Environment: catalog.Sandbox,
		InviteeUma: "$bob@wallet.example.com", Key: "k1"}
	env.OnActivity(a.CreateInvitation, mock.Anything, invReq).Return(invCreated, nil).Once()
	env.OnActivity(a.ClaimInvitation, mock.Anything, invReq.Code, claim).Return(invClaimed, nil).Once()
	u := &invUpdate{name: UpdateClaim, at: time.Hour, arg: claim}
	runInvitation(t, env, []*invUpdate{u})
	if u.err != nil {
		t.Fatalf("claim: %v", u.err)
	}
	if env.Now().Sub(invStart) >= 48*time.Hour {
		t.Fatalf("the workflow waited for its timer after the claim (ended at %s)", env.Now().Sub(invStart))
	}
	env.AssertExpectations(t)
}

// Concurrent claims and a cancellation run one at a time (each step takes a minute of a
// slow database here, so their answers come a minute apart): the first step ends the
// invitation, the ones that waited run after it (and are refused by the database rule),
// and the invitation never expires.
func TestInvitationStepsRunOneAtATime(t *testing.T) {
	env := newEnv(t)
	var a *activities.Activities
	refused := temporal.NewNonRetryableApplicationError("the invitation has already been claimed", string(catalog.InvitationAlreadyClaimed), nil)
	env.OnActivity(a.CreateInvitation, mock.Anything, invReq).Return(invCreated, nil).Once()
	first := invitation.Claim{InviteeUma: "$bob@wallet.example.com", Key: "first"}
	second := invitation.Claim{InviteeUma: "$carol@wallet.example.com", Key: "second"}
	cancel := invitation.Cancel{PlatformID: invReq.PlatformID, Key: "cancel"}
	env.OnActivity(a.ClaimInvitation, mock.Anything, invReq.Code, first).After(time.Minute).Return(invClaimed, nil).Once()
	env.OnActivity(a.ClaimInvitation, mock.Anything, invReq.Code, second).After(time.Minute).Return(nil, refused).Once()
	env.OnActivity(a.CancelInvitation, mock.Anything, invReq.Code, cancel).After(time.Minute).Return(nil, refused).Once()
	us := []*invUpdate{{name: UpdateClaim, at: time.Minute, arg: first}, {name: UpdateClaim, at: time.Minute + time.Second, arg: second},
		{name: UpdateCancel, at: time.Minute + time.Second, arg: cancel}}
	runInvitation(t, env, us)
	if us[0].err != nil || us[1].err == nil || us[2].err == nil {
		t.Fatalf("claim %v, second claim %v, cancel %v: want only the first to succeed", us[0].err, us[1].err, us[2].err)
	}
	answered := []time.Duration{us[0].atEnd, us[1].atEnd, us[2].atEnd}
	slices.Sort(answered)
	if us[0].atEnd != 2*time.Minute || !slices.Equal(answered, []time.Duration{2 * time.Minute, 3 * time.Minute, 4 * time.Minute}) {
		t.Fatalf("answers at %v (the first at %s): the steps did not run one at a time", answered, us[0].atEnd)
	}
	env.AssertExpectations(t)
}

// A claim the rule refuses under the lock (an invitee who is not one of the claiming
// platform's customers) leaves the invitation pending: a later cancellation ends it, and
// it does not expire.
func TestInvitationRefusedClaimLeavesItPending(t *testing.T) {
	env := newEnv(t)
	var a *activities.Activities
	bad := invitation.Claim{InviteeUma: "$stranger@wallet.example.com", Key: "stranger"}
	cancel := invitation.Cancel{PlatformID: invReq.PlatformID, Key: "cancel"}
	refusal := temporal.NewNonRetryableApplicationError("not a customer", string(catalog.InvalidUmaAddress), nil)
	env.OnActivity(a.CreateInvitation, mock.Anything, invReq).Return(invCreated, nil).Once()
	env.OnActivity(a.ClaimInvitation, mock.Anything, invReq.Code, bad).Return(nil, refusal).Once()
	env.OnActivity(a.CancelInvitation, mock.Anything, invReq.Code, cancel).Return(json.RawMessage(`{"status":"CANCELLED"}`), nil).Once()
	us := []*invUpdate{{name: UpdateClaim, at: time.Hour, arg: bad}, {name: UpdateCancel, at: 3 * time.Hour, arg: cancel}}
	runInvitation(t, env, us)
	if us[0].err == nil || us[1].err != nil {
		t.Fatalf("refused claim %v, cancel %v", us[0].err, us[1].err)
	}
	if us[1].atEnd != 3*time.Hour {
		t.Fatalf("cancel answered at %s", us[1].atEnd)
	}
	env.AssertExpectations(t)
}

// A claim under way when the timer fires decides first: it claims, and the expiry does
// not run.
func TestInvitationClaimInFlightAtExpiry(t *testing.T) {
	env := newEnv(t)
	var a *activities.Activities
	claim := invitation.Claim{InviteeUma: "$bob@wallet.example.com", Key: "k"}
	env.OnActivity(a.CreateInvitation, mock.Anything, invReq).Return(invCreated, nil).Once()
	// The claim's step takes a minute (a slow database) across expiresAt.
	env.OnActivity(a.ClaimInvitation, mock.Anything, invReq.Code, claim).After(time.Minute).Return(invClaimed, nil).Once()
	u := &invUpdate{name: UpdateClaim, at: 48*time.Hour - 30*time.Second, arg: claim}
	runInvitation(t, env, []*invUpdate{u})
	if u.err != nil {
		t.Fatalf("claim: %v", u.err)
	}
	env.AssertExpectations(t) // ExpireInvitation is not mocked: it would fail the workflow
}

// The validators apply the invitation's state machine to what the workflow knows and
// reject with its coded refusal, without running a step: a claim for the inviter's own
// address, a claim from another environment (404), a cancellation by another platform,
// and, once the invitation ended (while a step that waited still runs), a claim or
// cancellation with the code of how it ended. The claim that ended it, repeated (the same
// key), is taken: its step answers the invitation as claimed.
func TestInvitationValidatorsRefuseCoded(t *testing.T) {
	env := newEnv(t)
	var a *activities.Activities
	req := invReq
	req.Environment = catalog.Sandbox
	env.OnActivity(a.CreateInvitation, mock.Anything, req).Return(invCreated, nil).Once()
	claim := invitation.Claim{PlatformID: uuid.New(), Environment: catalog.Sandbox, InviteeUma: "$bob@wallet.example.com", Key: "k1"}
	second := invitation.Claim{PlatformID: uuid.New(), Environment: catalog.Sandbox, InviteeUma: "$dan@wallet.example.com", Key: "k2"}
	refused := temporal.NewNonRetryableApplicationError("the invitation has already been claimed", string(catalog.InvitationAlreadyClaimed), nil)
	env.OnActivity(a.ClaimInvitation, mock.Anything, req.Code, claim).After(time.Minute).Return(invClaimed, nil).Twice()
	env.OnActivity(a.ClaimInvitation, mock.Anything, req.Code, second).After(time.Minute).Return(nil, refused).Once()
	us := []*invUpdate{
		{name: UpdateClaim, at: time.Hour, arg: invitation.Claim{PlatformID: claim.PlatformID, Environment: catalog.Sandbox, InviteeUma: req.InviterUma, Key: "own"}},
		{name: UpdateClaim, at: time.Hour, arg: invitation.Claim{PlatformID: uuid.New(), Environment: catalog.Production, InviteeUma: "$bob@wallet.example.com", Key: "foreign"}},
		{name: UpdateCancel, at: time.Hour, arg: invitation.Cancel{PlatformID: uuid.New(), Environment: catalog.Sandbox, Key: "stranger"}},
		{name: UpdateClaim, at: 2 * time.Hour, arg: claim},
		{name: UpdateClaim, at: 2*time.Hour + time.Second, arg: second}, // waits for the first, runs after it ended
		{name: UpdateClaim, at: 2*time.Hour + 90*time.Second, arg: invitation.Claim{PlatformID: uuid.New(), Environment: catalog.Sandbox, InviteeUma: "$carol@wallet.example.com", Key: "late"}},
		{name: UpdateCancel, at: 2*time.Hour + 90*time.Second, arg: invitation.Cancel{PlatformID: req.PlatformID, Environment: catalog.Sandbox, Key: "late-cancel"}},
		{name: UpdateClaim, at: 2*time.Hour + 90*time.Second, arg: claim}, // the first claim, repeated
	}
	runInvitationOf(t, env, req, us)
	if us[7].err != nil {
		t.Fatalf("the claim that ended the invitation, repeated: %v", us[7].err)
	}
	refusedWith(t, us[0].err, catalog.InvalidUmaAddress)
	refusedWith(t, us[1].err, catalog.InvitationNotFound)
	refusedWith(t, us[2].err, catalog.Forbidden)
	if us[3].err != nil || us[4].err == nil {
		t.Fatalf("claim %v, second claim %v", us[3].err, us[4].err)
	}
	refusedWith(t, us[5].err, catalog.InvitationAlreadyClaimed)
	refusedWith(t, us[6].err, catalog.InvitationAlreadyClaimed)
	env.AssertExpectations(t) // no other claim or cancellation step ran
}
