package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/catalog"
	"paycore/internal/customer"
	"paycore/internal/kyc"
)

// ChangedOwner is the BeneficialOwner resource as written, and whether its KYC (re)starts.
type ChangedOwner struct {
	Resource json.RawMessage
	OwnerID  uuid.UUID
	Review   bool
}

// ChangeOwner creates or updates a beneficial owner (see db.OwnerCreate, db.OwnerPatch).
func (a *Activities) ChangeOwner(ctx context.Context, ch customer.OwnerChange) (ChangedOwner, error) {
	var row db.BeneficialOwner
	var review bool
	var err error
	switch {
	case ch.Create != nil:
		row, err = db.OwnerCreate(ctx, a.pool, ch.PlatformID, *ch.Create)
		review = err == nil && row.KycDecidedAt == nil
	case ch.Patch != nil:
		in := *ch.Patch
		row, _, err = db.OwnerPatch(ctx, a.pool, ch.PlatformID, ch.OwnerID, func(cur customer.Owner) (customer.Owner, bool, error) {
			return customer.PatchOwner(cur, in)
		})
		// An owner whose KYC has not decided needs its review, also when this step is a
		// retry of one that committed the change (and so sees no change).
		review = err == nil && row.KycDecidedAt == nil
	default:
		return ChangedOwner{}, errors.New("an owner change names neither a new owner nor an update")
	}
	if err != nil {
		return ChangedOwner{}, refusal(err)
	}
	res, err := json.Marshal(view.BeneficialOwnerOf(row))
	if err != nil {
		return ChangedOwner{}, fmt.Errorf("render beneficial owner: %w", err)
	}
	return ChangedOwner{Resource: res, OwnerID: row.ID, Review: review}, nil
}

// ReviewOwner decides the KYC of a beneficial owner under review (kyc.OwnerOutcome).
func (a *Activities) ReviewOwner(ctx context.Context, ownerID uuid.UUID) (catalog.KycStatus, error) {
	return db.OwnerDecide(ctx, a.pool, ownerID, a.now(), kyc.OwnerOutcome)
}

// SubmittedVerification is the Verification resource a submission answers with, and
// whether it is now IN_PROGRESS (its review is then due).
type SubmittedVerification struct {
	Resource       json.RawMessage
	VerificationID uuid.UUID
	InProgress     bool
}

// SubmitVerification submits a customer for verification (see db.VerificationSubmit); the
// provider's required fields are those of the customer's currencies.
func (a *Activities) SubmitVerification(ctx context.Context, platformID, customerID uuid.UUID) (SubmittedVerification, error) {
	s, err := a.store.VerificationSubmit(ctx, platformID, customerID, a.now())
	if err != nil {
		return SubmittedVerification{}, refusal(err)
	}
	res, err := json.Marshal(view.VerificationOf(s.Verification))
	if err != nil {
		return SubmittedVerification{}, fmt.Errorf("render verification: %w", err)
	}
	return SubmittedVerification{Resource: res, VerificationID: s.Verification.ID, InProgress: s.InProgress}, nil
}

// ReviewedVerification is the status a review left a verification in. Undecided lists
// the beneficial owners whose KYC is still under review: the review waits for them.
type ReviewedVerification struct {
	Status    catalog.VerificationStatus
	Undecided []uuid.UUID
}

// ReviewVerification decides an IN_PROGRESS verification (see db.VerificationDecide).
func (a *Activities) ReviewVerification(ctx context.Context, verificationID uuid.UUID) (ReviewedVerification, error) {
	v, undecided, err := a.store.VerificationDecide(ctx, verificationID, kyc.Decide)
	if err != nil {
		return ReviewedVerification{}, err
	}
	return ReviewedVerification{Status: v.Status, Undecided: undecided}, nil
}

// ReviewVerificationManually records an operator's decision on a verification waiting in
// PENDING_MANUAL_REVIEW (db.VerificationReviewManually) and answers with the Verification
// resource; a verification not waiting for one is refused (409).
func (a *Activities) ReviewVerificationManually(ctx context.Context, m kyc.ManualReview) (json.RawMessage, error) {
	v, err := a.store.VerificationReviewManually(ctx, m)
	if err != nil {
		return nil, refusal(err)
	}
	res, err := json.Marshal(view.VerificationOf(v))
	if err != nil {
		return nil, fmt.Errorf("render verification: %w", err)
	}
	return res, nil
}
