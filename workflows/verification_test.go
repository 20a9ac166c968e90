package workflows

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/testsuite"

	"paycore/activities"
	"paycore/internal/catalog"
	"paycore/internal/customer"
)

var (
	verifyIn = VerificationInput{PlatformID: uuid.MustParse("0190a000-0000-7000-8000-0000000000a1"),
		CustomerID: uuid.MustParse("0190a000-0000-7000-8000-0000000000a2"), ReviewDelay: time.Minute}
	ownerOne       = uuid.MustParse("0190a000-0000-7000-8000-0000000000a3")
	ownerTwo       = uuid.MustParse("0190a000-0000-7000-8000-0000000000a4")
	verificationID = uuid.MustParse("0190a000-0000-7000-8000-0000000000a5")
)

// verificationRun records when each review ran, relative to the start.
type verificationRun struct {
	env   *testsuite.TestWorkflowEnvironment
	start time.Time
	steps []string
}

func (r *verificationRun) record(what string) func(mock.Arguments) {
	return func(args mock.Arguments) {
		if id, ok := args.Get(1).(uuid.UUID); ok && what == "owner" {
			what = "owner " + id.String()[len(id.String())-2:]
		}
		r.steps = append(r.steps, what+"@"+r.env.Now().Sub(r.start).String())
	}
}

func newVerificationEnv(t *testing.T) (*testsuite.TestWorkflowEnvironment, *verificationRun) {
	env := newEnv(t)
	env.RegisterWorkflow(OwnerKyc)
	env.SetStartTime(quoteStart)
	return env, &verificationRun{env: env, start: quoteStart}
}

// update sends an update after delay and fails the test if it is refused.
func update(t *testing.T, env *testsuite.TestWorkflowEnvironment, delay time.Duration, name string, args ...any) {
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(name, name+delay.String(), &testsuite.TestUpdateCallback{
			OnReject: func(err error) { t.Errorf("%s rejected: %v", name, err) }, OnAccept: func() {},
			OnComplete: func(_ any, err error) {
				if err != nil {
					t.Errorf("%s: %v", name, err)
				}
			}}, args...)
	}, delay)
}

// A business's KYB waits for its owner's KYC: the owner added first is reviewed after the
// review delay, and only then, after its own delay, the business.
func TestBusinessVerificationWaitsForItsOwners(t *testing.T) {
	env, run := newVerificationEnv(t)
	var a *activities.Activities
	create := customer.OwnerChange{PlatformID: verifyIn.PlatformID, Create: &customer.Owner{ID: ownerOne, CustomerID: verifyIn.CustomerID}}
	env.OnActivity(a.ChangeOwner, mock.Anything, create).Return(activities.ChangedOwner{Resource: json.RawMessage(`{}`), OwnerID: ownerOne, Review: true}, nil).Once()
	env.OnActivity(a.SubmitVerification, mock.Anything, verifyIn.PlatformID, verifyIn.CustomerID).
		Return(activities.SubmittedVerification{Resource: json.RawMessage(`{}`), VerificationID: verificationID, InProgress: true}, nil).Once()
	env.OnActivity(a.ReviewOwner, mock.Anything, ownerOne).Return(catalog.KycApproved, nil).Once().Run(run.record("owner"))
	env.OnActivity(a.ReviewVerification, mock.Anything, verificationID).
		Return(activities.ReviewedVerification{Status: catalog.VerificationApproved}, nil).Once().Run(run.record("business"))
	update(t, env, 0, UpdateOwner, create)
	update(t, env, 10*time.Second, UpdateSubmit)
	env.ExecuteWorkflow(CustomerVerification, verifyIn)
	if err := env.GetWorkflowError(); err != nil || !env.IsWorkflowCompleted() {
		t.Fatalf("workflow: %v", err)
	}
	if want := []string{"owner a3@1m0s", "business@2m0s"}; !slices.Equal(run.steps, want) {
		t.Fatalf("steps %v, want %v", run.steps, want)
	}
	env.AssertExpectations(t)
}

// A review that finds an owner still undecided whose KYC is not running (its change was
// written but never queued) starts that owner's KYC and reviews again after it.
func TestVerificationReviewsAnOwnerItFindsUndecided(t *testing.T) {
	env, run := newVerificationEnv(t)
	var a *activities.Activities
	env.OnActivity(a.SubmitVerification, mock.Anything, verifyIn.PlatformID, verifyIn.CustomerID).
		Return(activities.SubmittedVerification{Resource: json.RawMessage(`{}`), VerificationID: verificationID, InProgress: true}, nil).Once()
	env.OnActivity(a.ReviewVerification, mock.Anything, verificationID).
		Return(activities.ReviewedVerification{Undecided: []uuid.UUID{ownerTwo}}, nil).Once().Run(run.record("waiting"))
	env.OnActivity(a.ReviewOwner, mock.Anything, ownerTwo).Return(catalog.KycRejected, nil).Once().Run(run.record("owner"))
	env.OnActivity(a.ReviewVerification, mock.Anything, verificationID).
		Return(activities.ReviewedVerification{Status: catalog.VerificationRejected}, nil).Once().Run(run.record("business"))
	update(t, env, 0, UpdateSubmit)
	env.ExecuteWorkflow(CustomerVerification, verifyIn)
	if err := env.GetWorkflowError(); err != nil || !env.IsWorkflowCompleted() {
		t.Fatalf("workflow: %v", err)
	}
	if want := []string{"waiting@1m0s", "owner a4@2m0s", "business@3m0s"}; !slices.Equal(run.steps, want) {
		t.Fatalf("steps %v, want %v", run.steps, want)
	}
	env.AssertExpectations(t)
}

// An incomplete submission (RESOLVE_ERRORS) is answered and nothing is reviewed: the run
// ends and the next submission starts a new one.
func TestIncompleteVerificationEndsTheRun(t *testing.T) {
	env, _ := newVerificationEnv(t)
	var a *activities.Activities
	env.OnActivity(a.SubmitVerification, mock.Anything, verifyIn.PlatformID, verifyIn.CustomerID).
		Return(activities.SubmittedVerification{Resource: json.RawMessage(`{}`), VerificationID: verificationID}, nil).Once()
	update(t, env, 0, UpdateSubmit)
	env.ExecuteWorkflow(CustomerVerification, verifyIn)
	if err := env.GetWorkflowError(); err != nil || !env.IsWorkflowCompleted() {
		t.Fatalf("workflow: %v", err)
	}
	if env.Now().Sub(quoteStart) >= time.Minute {
		t.Fatalf("the run waited for a review: ended at %v", env.Now().Sub(quoteStart))
	}
	env.AssertExpectations(t)
}
