package workflows

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"paycore/activities"
	"paycore/internal/catalog"
	"paycore/internal/customer"
	"paycore/internal/ids"
	"paycore/internal/kyc"
)

// The updates of a customer's verification workflow: UpdateSubmit submits the customer
// for verification and answers with the Verification; UpdateOwner creates or updates one
// of its beneficial owners (a customer.OwnerChange) and answers with the
// BeneficialOwner.
const (
	UpdateSubmit = "submit"
	UpdateOwner  = "owner"
	// UpdateReview carries an operator's decision on a verification waiting in
	// PENDING_MANUAL_REVIEW (a kyc.ManualReview); it answers with the Verification.
	UpdateReview = "review"
)

// VerificationInput starts a customer's verification workflow. ReviewDelay is how long
// the sandbox provider takes to review a customer or an owner (a durable timer).
type VerificationInput struct {
	PlatformID  uuid.UUID
	CustomerID  uuid.UUID
	ReviewDelay time.Duration
}

// CustomerVerificationWorkflowID is the id of a customer's verification workflow: one
// runs per customer at a time, so its submissions and its owners' reviews are serialised.
func CustomerVerificationWorkflowID(customerID uuid.UUID) string {
	return "customer-verification/" + ids.Format(ids.Customer, customerID)
}

// OwnerKycWorkflowID is the id of the KYC of one beneficial owner (a child of its
// business's verification workflow).
func OwnerKycWorkflowID(ownerID uuid.UUID) string {
	return "beneficial-owner-kyc/" + ids.Format(ids.BeneficialOwner, ownerID)
}

// VerificationSearchAttributes are the attributes a customer's verification workflow
// starts with, so an operator finds it by platform or customer.
func VerificationSearchAttributes(in VerificationInput) temporal.SearchAttributes {
	return temporal.NewSearchAttributes(
		AttrPlatformID.ValueSet(ids.Format(ids.Platform, in.PlatformID)),
		AttrCustomerID.ValueSet(ids.Format(ids.Customer, in.CustomerID)))
}

// CustomerVerification is the verification of one customer: KYC of an individual, KYB of
// a business and the KYC of the business's beneficial owners.
//
// The API starts it (or joins the run under way) with Update-with-Start. An UpdateOwner
// writes a new or changed owner; an owner whose KYC (re)starts gets a child OwnerKyc
// workflow. An UpdateSubmit checks the customer's submission: incomplete, the
// verification is RESOLVE_ERRORS and nothing more happens until the next submission;
// complete, it is IN_PROGRESS, and once every owner's KYC has decided and the review
// delay has passed, the review decides it. The workflow ends when nothing is left to
// review; the next request starts a new run.
func CustomerVerification(ctx workflow.Context, in VerificationInput) error {
	var (
		updates  int // updates taken
		inFlight int
		queued   []uuid.UUID // owners whose KYC is due
		running  = map[uuid.UUID]bool{}
		pending  []uuid.UUID // verifications IN_PROGRESS
		changed  bool
	)
	var a *activities.Activities
	submit := func(ctx workflow.Context) (json.RawMessage, error) {
		updates++
		inFlight++
		defer func() { inFlight--; changed = true }()
		s, err := result[activities.SubmittedVerification](ctx,
			workflow.ExecuteLocalActivity(LocalStep(ctx), a.SubmitVerification, in.PlatformID, in.CustomerID))
		if err != nil {
			return nil, err
		}
		if s.InProgress && !slices.Contains(pending, s.VerificationID) {
			pending = append(pending, s.VerificationID)
		}
		return s.Resource, nil
	}
	owner := func(ctx workflow.Context, ch customer.OwnerChange) (json.RawMessage, error) {
		updates++
		inFlight++
		defer func() { inFlight--; changed = true }()
		o, err := result[activities.ChangedOwner](ctx, workflow.ExecuteLocalActivity(LocalStep(ctx), a.ChangeOwner, ch))
		if err != nil {
			return nil, err
		}
		if o.Review && !slices.Contains(queued, o.OwnerID) {
			queued = append(queued, o.OwnerID)
		}
		return o.Resource, nil
	}
	if err := workflow.SetUpdateHandler(ctx, UpdateSubmit, submit); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandler(ctx, UpdateOwner, owner); err != nil {
		return err
	}
	review := func(ctx workflow.Context, m kyc.ManualReview) (json.RawMessage, error) {
		updates++
		inFlight++
		defer func() { inFlight--; changed = true }()
		return result[json.RawMessage](ctx, workflow.ExecuteLocalActivity(LocalStep(ctx), a.ReviewVerificationManually, m))
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateReview, review, workflow.UpdateHandlerOptions{
		Validator: func(_ workflow.Context, m kyc.ManualReview) error { return coded(m.Check()) }}); err != nil {
		return err
	}
	// A run is started by the update it carries (Update-with-Start); it waits for it.
	if _, err := workflow.AwaitWithTimeout(ctx, time.Minute, func() bool { return updates > 0 }); err != nil {
		return err
	}
	for {
		// Start the KYC of each owner queued; one whose KYC still runs waits for it.
		var later []uuid.UUID
		for _, id := range queued {
			if running[id] {
				later = append(later, id)
				continue
			}
			running[id] = true
			child := workflow.ExecuteChildWorkflow(workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
				WorkflowID: OwnerKycWorkflowID(id)}), OwnerKyc, OwnerKycInput{OwnerID: id, ReviewDelay: in.ReviewDelay})
			workflow.Go(ctx, func(ctx workflow.Context) {
				_ = child.Get(ctx, nil) // the owner's outcome is in the database
				delete(running, id)
				changed = true
			})
		}
		queued = later
		if len(pending) > 0 && len(running) == 0 && len(queued) == 0 {
			// The provider's review takes ReviewDelay; an owner added meanwhile is
			// reviewed first.
			if ok, err := workflow.AwaitWithTimeout(ctx, in.ReviewDelay, func() bool { return len(queued) > 0 }); err != nil || ok {
				if err != nil {
					return err
				}
				continue
			}
			r, err := result[activities.ReviewedVerification](ctx,
				workflow.ExecuteActivity(DatabaseStep(ctx), a.ReviewVerification, pending[0]))
			if err != nil {
				return err
			}
			if len(r.Undecided) == 0 {
				pending = pending[1:]
			}
			// An owner still under review without its KYC running (its change was
			// written but not queued) is queued again.
			for _, id := range r.Undecided {
				if !running[id] && !slices.Contains(queued, id) {
					queued = append(queued, id)
				}
			}
			continue
		}
		if len(pending) == 0 && len(running) == 0 && len(queued) == 0 && inFlight == 0 {
			return nil
		}
		changed = false
		if err := workflow.Await(ctx, func() bool { return changed }); err != nil {
			return err
		}
	}
}

// OwnerKycInput starts the KYC of a beneficial owner.
type OwnerKycInput struct {
	OwnerID     uuid.UUID
	ReviewDelay time.Duration
}

// OwnerKyc is the KYC of one beneficial owner: the provider reviews the owner for
// ReviewDelay, then decides (kyc.OwnerOutcome). It returns the owner's KYC status.
func OwnerKyc(ctx workflow.Context, in OwnerKycInput) (catalog.KycStatus, error) {
	if err := workflow.Sleep(ctx, in.ReviewDelay); err != nil {
		return "", err
	}
	var a *activities.Activities
	return result[catalog.KycStatus](ctx, workflow.ExecuteActivity(DatabaseStep(ctx), a.ReviewOwner, in.OwnerID))
}
