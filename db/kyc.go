package db

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/internal/catalog"
	"paycore/internal/customer"
	"paycore/internal/document"
	"paycore/internal/events"
	"paycore/internal/ids"
	"paycore/internal/kit/sealbox"
	"paycore/internal/kyc"
	"paycore/internal/platformconfig"
)

// KycViews renders the resources of verification webhooks (db/view implements it).
type KycViews interface {
	Customer(c Customer) any
	Verification(v Verification) any
}

// OwnerRecord is a stored beneficial owner as the rules read it.
func OwnerRecord(o BeneficialOwner) (customer.Owner, error) {
	var pi customer.PersonalInfo
	if err := json.Unmarshal(o.PersonalInfo, &pi); err != nil {
		return customer.Owner{}, fmt.Errorf("beneficial owner %s: decode personal info: %w", o.ID, err)
	}
	return customer.Owner{ID: o.ID, CustomerID: o.CustomerID, Roles: o.Roles, OwnershipPercentage: int(o.OwnershipPercentage),
		PersonalInfo: pi, KycStatus: o.KycStatus, KycDecided: o.KycDecidedAt != nil}, nil
}

// ownersOf reads the owners of a customer as the rules read them.
func ownersOf(ctx context.Context, q *queries, platformID, customerID uuid.UUID) ([]BeneficialOwner, []customer.Owner, error) {
	rows, err := q.OwnersOfCustomer(ctx, OwnersOfCustomerParams{PlatformID: platformID, CustomerID: customerID})
	if err != nil {
		return nil, nil, fmt.Errorf("read beneficial owners: %w", err)
	}
	out := make([]customer.Owner, len(rows))
	for i, r := range rows {
		if out[i], err = OwnerRecord(r); err != nil {
			return nil, nil, err
		}
	}
	return rows, out, nil
}

// lockCustomer locks a customer of a platform for a change of its owners or its
// verification; an unknown one (or another platform's) is customer.NotFound.
func lockCustomer(ctx context.Context, q *queries, platformID, id uuid.UUID) (Customer, customer.Record, error) {
	c, err := q.CustomerGetForUpdate(ctx, CustomerGetForUpdateParams{PlatformID: platformID, ID: id})
	if IsNotFound(err) {
		return c, customer.Record{}, customer.NotFound()
	}
	if err != nil {
		return c, customer.Record{}, fmt.Errorf("lock customer: %w", err)
	}
	rec, err := CustomerRecord(c)
	return c, rec, err
}

// OwnerCreate stores checked new owner o of a business customer of a platform. Under the
// customer's lock, the owner is checked against the customer and its other owners (the
// ownership total), so concurrent creations cannot together pass 100 percent.
func OwnerCreate(ctx context.Context, pool *pgxpool.Pool, platformID uuid.UUID, o customer.Owner) (BeneficialOwner, error) {
	var out BeneficialOwner
	err := withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		if existing, err := q.OwnerGet(ctx, OwnerGetParams{PlatformID: platformID, ID: o.ID}); err == nil {
			out = existing // created by an earlier attempt
			return nil
		}
		_, c, err := lockCustomer(ctx, q, platformID, o.CustomerID)
		if err != nil {
			return err
		}
		_, others, err := ownersOf(ctx, q, platformID, o.CustomerID)
		if err != nil {
			return err
		}
		if err := customer.CheckOwnerOf(c, others, o); err != nil {
			return err
		}
		info, err := json.Marshal(o.PersonalInfo)
		if err != nil {
			return fmt.Errorf("encode personal info: %w", err)
		}
		out, err = q.OwnerCreate(ctx, OwnerCreateParams{ID: o.ID, PlatformID: platformID, CustomerID: o.CustomerID, Roles: o.Roles,
			OwnershipPercentage: int32(o.OwnershipPercentage), PersonalInfo: info, KycStatus: o.KycStatus})
		if err != nil {
			return fmt.Errorf("insert beneficial owner: %w", err)
		}
		return nil
	})
	return out, err
}

// ownerGetRecord reads a platform's beneficial owner; an unknown one (or another
// platform's) is customer.OwnerNotFound.
func ownerGetRecord(ctx context.Context, q *queries, platformID, id uuid.UUID) (BeneficialOwner, error) {
	o, err := q.OwnerGet(ctx, OwnerGetParams{PlatformID: platformID, ID: id})
	if IsNotFound(err) {
		return o, customer.OwnerNotFound()
	}
	if err != nil {
		return o, fmt.Errorf("get beneficial owner: %w", err)
	}
	return o, nil
}

// OwnerPatch applies a checked update of a platform's beneficial owner under its
// customer's lock: patch checks it against the stored owner (see customer.PatchOwner) and
// the ownership total is checked again. Reverify reports that the owner's KYC starts over.
func OwnerPatch(ctx context.Context, pool *pgxpool.Pool, platformID, id uuid.UUID,
	patch func(customer.Owner) (customer.Owner, bool, error)) (out BeneficialOwner, reverify bool, err error) {
	err = withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		row, err := ownerGetRecord(ctx, q, platformID, id)
		if err != nil {
			return err
		}
		_, c, err := lockCustomer(ctx, q, platformID, row.CustomerID)
		if err != nil {
			return err
		}
		_, owners, err := ownersOf(ctx, q, platformID, row.CustomerID)
		if err != nil {
			return err
		}
		var cur customer.Owner
		for _, o := range owners {
			if o.ID == id {
				cur = o
			}
		}
		next, again, err := patch(cur)
		if err != nil {
			return err
		}
		if err := customer.CheckOwnerOf(c, owners, next); err != nil {
			return err
		}
		info, err := json.Marshal(next.PersonalInfo)
		if err != nil {
			return fmt.Errorf("encode personal info: %w", err)
		}
		out, err = q.OwnerUpdate(ctx, OwnerUpdateParams{PlatformID: platformID, ID: id, Roles: next.Roles,
			OwnershipPercentage: int32(next.OwnershipPercentage), PersonalInfo: info, KycStatus: next.KycStatus, Reverify: again})
		if err != nil {
			return fmt.Errorf("update beneficial owner: %w", err)
		}
		reverify = again
		return nil
	})
	return out, reverify, err
}

// OwnerDecide records the KYC outcome of an owner under review, decided at now by outcome
// from the owner and its platform's environment. An owner already decided keeps its outcome.
func OwnerDecide(ctx context.Context, pool *pgxpool.Pool, id uuid.UUID, now time.Time,
	outcome func(customer.Owner, catalog.Environment) catalog.KycStatus) (catalog.KycStatus, error) {
	var status catalog.KycStatus
	err := withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		// Locked: an update of the owner's personal information (which starts its KYC
		// over) waits, so the outcome is always that of the data it was decided on.
		row, err := q.OwnerGetByIDForUpdate(ctx, id)
		if err != nil {
			return fmt.Errorf("lock beneficial owner: %w", err)
		}
		if row.KycDecidedAt != nil {
			status = row.KycStatus
			return nil
		}
		p, err := q.PlatformGet(ctx, row.PlatformID)
		if err != nil {
			return fmt.Errorf("load platform: %w", err)
		}
		o, err := OwnerRecord(row)
		if err != nil {
			return err
		}
		row, err = q.OwnerDecideKyc(ctx, OwnerDecideKycParams{ID: id, KycStatus: outcome(o, p.Environment), Now: now})
		if err != nil {
			return fmt.Errorf("record beneficial owner KYC: %w", err)
		}
		status = row.KycStatus
		return nil
	})
	return status, err
}

// Submitted is the answer to a verification request: the verification, and whether it is
// IN_PROGRESS and waits for its review.
type Submitted struct {
	Verification Verification
	InProgress   bool
}

// VerificationSubmit submits customer id of a platform for verification, in one
// transaction under the customer's lock. A verification under review (IN_PROGRESS,
// PENDING_MANUAL_REVIEW) is answered as it is, and so is the last verification of a
// customer already APPROVED. Otherwise the submission (the customer, its owners, the
// documents of both and the customer fields the provider requires for the customer's
// currencies) is checked with kyc.Check: what it lacks makes the open
// verification (or a new one) RESOLVE_ERRORS; a complete submission makes it IN_PROGRESS
// and the customer PENDING, its documents marked submitted at now. Each outcome records
// its VERIFICATION_* (and CUSTOMER_*) webhook.
func (s Store) VerificationSubmit(ctx context.Context, platformID, id uuid.UUID, now time.Time) (Submitted, error) {
	var out Submitted
	err := withTx(ctx, s.pool, func(q *queries, _ pgx.Tx) error {
		_, c, err := lockCustomer(ctx, q, platformID, id)
		if err != nil {
			return err
		}
		if err := c.CheckNotDeleted(); err != nil {
			return err
		}
		standing := kyc.Standing{Customer: c.KycStatus}
		open, err := q.VerificationOpenOfCustomer(ctx, id)
		hasOpen := err == nil
		if err != nil && !IsNotFound(err) {
			return fmt.Errorf("read open verification: %w", err)
		}
		var last Verification
		if hasOpen {
			standing.Open = open.Status
		} else if c.KycStatus == catalog.KycApproved { // the only standing the latest one decides
			if last, err = q.VerificationLatestOfCustomer(ctx, id); err == nil {
				standing.Latest = last.Status
			} else if !IsNotFound(err) {
				return fmt.Errorf("read latest verification: %w", err)
			}
		}
		switch standing.Answer() {
		case kyc.AnswerOpen:
			out = Submitted{Verification: open, InProgress: standing.AwaitsReview()}
			return nil
		case kyc.AnswerLatest:
			out = Submitted{Verification: last}
			return nil
		}
		_, owners, err := ownersOf(ctx, q, platformID, id)
		if err != nil {
			return err
		}
		docs, err := kycDocuments(ctx, q, platformID, id)
		if err != nil {
			return err
		}
		required := platformconfig.ProviderCustomerFields(c.Currencies)
		problems := kyc.Check(kyc.Submission{Customer: c, Owners: owners, Documents: docs, Required: required})
		outcome := kyc.Submitted(problems)
		status := outcome.Status
		errs, err := json.Marshal(append([]kyc.Error{}, problems...))
		if err != nil {
			return fmt.Errorf("encode verification errors: %w", err)
		}
		if hasOpen {
			out.Verification, err = q.VerificationUpdate(ctx, VerificationUpdateParams{ID: open.ID, Status: status, Errors: errs})
		} else {
			out.Verification, err = q.VerificationCreate(ctx, VerificationCreateParams{ID: ids.New(), PlatformID: platformID, CustomerID: id,
				Status: status, Errors: errs})
		}
		if err != nil {
			return fmt.Errorf("write verification: %w", err)
		}
		if outcome.InProgress {
			out.InProgress = true
			if _, err := documentsMarkSubmitted(ctx, q, platformID, id, now); err != nil {
				return err
			}
		}
		if outcome.Customer != "" {
			if err := setCustomerKyc(ctx, q, c, outcome.Customer, s.views); err != nil {
				return err
			}
		}
		return recordVerification(ctx, q, out.Verification, s.views)
	})
	return out, err
}

// VerificationDecide records the review of an IN_PROGRESS verification: decide answers
// the decision from the customer, its owners and the platform's environment. The
// customer's status follows, with the webhooks of both. A verification no longer in
// progress is answered as it is. While an owner's KYC is under review nothing is decided:
// undecided lists those owners (the business's KYB waits for them).
func (s Store) VerificationDecide(ctx context.Context, id uuid.UUID,
	decide func(customer.Record, []customer.Owner, catalog.Environment) kyc.Decision) (out Verification, undecided []uuid.UUID, err error) {
	err = withTx(ctx, s.pool, func(q *queries, _ pgx.Tx) error {
		cur, err := q.VerificationGetByIDForUpdate(ctx, id)
		if err != nil {
			return fmt.Errorf("lock verification: %w", err)
		}
		out = cur
		if !kyc.Reviewable(cur.Status) {
			return nil
		}
		_, c, err := lockCustomer(ctx, q, cur.PlatformID, cur.CustomerID)
		if err != nil {
			return err
		}
		_, owners, err := ownersOf(ctx, q, cur.PlatformID, cur.CustomerID)
		if err != nil {
			return err
		}
		if undecided = kyc.Undecided(owners); len(undecided) > 0 {
			return nil
		}
		p, err := q.PlatformGet(ctx, cur.PlatformID)
		if err != nil {
			return fmt.Errorf("load platform: %w", err)
		}
		d := decide(c, owners, p.Environment)
		errs, err := json.Marshal(append([]kyc.Error{}, d.Errors...))
		if err != nil {
			return fmt.Errorf("encode verification errors: %w", err)
		}
		if out, err = q.VerificationUpdate(ctx, VerificationUpdateParams{ID: id, Status: d.Status, Errors: errs}); err != nil {
			return fmt.Errorf("record verification decision: %w", err)
		}
		if err := setCustomerKyc(ctx, q, c, d.Customer, s.views); err != nil {
			return err
		}
		return recordVerification(ctx, q, out, s.views)
	})
	return out, undecided, err
}

// VerificationReviewManually records an operator's decision on a verification waiting in
// PENDING_MANUAL_REVIEW (kyc.ManualReview.Decided refuses any other with 409), under its
// lock: the verification's status, the customer's that follows, and the webhooks of both.
func (s Store) VerificationReviewManually(ctx context.Context, m kyc.ManualReview) (Verification, error) {
	var out Verification
	err := withTx(ctx, s.pool, func(q *queries, _ pgx.Tx) error {
		cur, err := q.VerificationGetByIDForUpdate(ctx, m.VerificationID)
		if err != nil {
			return fmt.Errorf("lock verification: %w", err)
		}
		d, err := m.Decided(cur.CustomerID, cur.Status)
		if err != nil {
			return err
		}
		_, c, err := lockCustomer(ctx, q, cur.PlatformID, cur.CustomerID)
		if err != nil {
			return err
		}
		errs, err := json.Marshal(append([]kyc.Error{}, d.Errors...))
		if err != nil {
			return fmt.Errorf("encode verification errors: %w", err)
		}
		if out, err = q.VerificationUpdate(ctx, VerificationUpdateParams{ID: cur.ID, Status: d.Status, Errors: errs}); err != nil {
			return fmt.Errorf("record the manual review: %w", err)
		}
		if err := setCustomerKyc(ctx, q, c, d.Customer, s.views); err != nil {
			return err
		}
		return recordVerification(ctx, q, out, s.views)
	})
	return out, err
}

// setCustomerKyc moves customer c to status, with its CUSTOMER_KYC_* (individuals) or
// CUSTOMER_KYB_* (businesses) webhook; no change records nothing.
func setCustomerKyc(ctx context.Context, q *queries, c customer.Record, status catalog.KycStatus, v KycViews) error {
	if c.KycStatus == status {
		return nil
	}
	row, err := q.CustomerSetKycStatus(ctx, CustomerSetKycStatusParams{ID: c.ID, KycStatus: status})
	if err != nil {
		return fmt.Errorf("set customer KYC status: %w", err)
	}
	return customerStatusEvent(ctx, q, row, v)
}

// customerStatusEvent records the CUSTOMER_KYC_* (individuals) or CUSTOMER_KYB_*
// (businesses) webhook of customer row, whose status just changed; UNVERIFIED has none.
func customerStatusEvent(ctx context.Context, q *queries, row Customer, v KycViews) error {
	if row.KycStatus == catalog.KycUnverified {
		return nil
	}
	_, err := eventRecord(ctx, q, row.PlatformID, events.CustomerStatus(row.CustomerType == catalog.Business, string(row.KycStatus)), v.Customer(row), nil)
	return err
}

// recordVerification records the VERIFICATION_<status> webhook of verification r.
func recordVerification(ctx context.Context, q *queries, r Verification, v KycViews) error {
	_, err := eventRecord(ctx, q, r.PlatformID, events.Verification(string(r.Status)), v.Verification(r), nil)
	return err
}

// KycLinkSubject is what a hosted KYC link's page shows: the link, its customer with its
// owners and documents, the fields the provider requires, and the customer's latest
// verification (nil when none).
type KycLinkSubject struct {
	Link         KycLink
	Customer     customer.Record
	Owners       []customer.Owner
	Documents    []kyc.Document
	Required     []string
	Verification *Verification
}

// Problems is what the subject's submission lacks (kyc.Check).
func (s KycLinkSubject) Problems() []kyc.Error {
	return kyc.Check(kyc.Submission{Customer: s.Customer, Owners: s.Owners, Documents: s.Documents, Required: s.Required})
}

// KycLinkSubjectGet reads the subject of the link with token; an unknown token is
// ErrNotFound.
func KycLinkSubjectGet(ctx context.Context, d DBTX, token string) (KycLinkSubject, error) {
	q := newQueries(d)
	var s KycLinkSubject
	link, err := q.KycLinkByToken(ctx, kyc.TokenHash(token))
	if IsNotFound(err) {
		return s, ErrNotFound
	}
	if err != nil {
		return s, fmt.Errorf("read KYC link: %w", err)
	}
	s.Link = link
	if s.Customer, err = customerRecordGet(ctx, q, link.PlatformID, link.CustomerID); err != nil {
		return s, err
	}
	if _, s.Owners, err = ownersOf(ctx, q, link.PlatformID, link.CustomerID); err != nil {
		return s, err
	}
	if s.Documents, err = kycDocuments(ctx, q, link.PlatformID, link.CustomerID); err != nil {
		return s, err
	}
	s.Required = platformconfig.ProviderCustomerFields(s.Customer.Currencies)
	v, err := q.VerificationLatestOfCustomer(ctx, link.CustomerID)
	if err == nil {
		s.Verification = &v
	} else if !IsNotFound(err) {
		return s, fmt.Errorf("read verification: %w", err)
	}
	return s, nil
}

// KycPageDocument is a document file the hosted page stored, with its checked fields.
type KycPageDocument struct {
	Fields document.Fields
	File   DocumentFile
}

// KycPageWrite writes one submission of the hosted page of the link with token, in one
// transaction under the link's lock: the link must still take a submission
// (kyc.StateOf: not used, not expired, the customer's verification neither under review
// nor approved), and is spent by it, so two submissions never both pass; then the
// customer's answers (patch, when any) and the documents are written. A submission that
// turns out incomplete gives the link back (KycLinkReopen).
// Each document replaces its slot (the holder's documents of its type without a side):
// the replaced rows are deleted here and their blob keys returned, for the caller to
// delete once this has committed. The link's stored files (limits.LinkDocuments, replaced
// ones counted) and the customer's documents (limits.CustomerDocuments) are capped. The
// link's state is judged at now.
func (s Store) KycPageWrite(ctx context.Context, box *sealbox.Box, token string, patch *CustomerPatchParams, docs []KycPageDocument,
	limits KycPageLimits, now time.Time) (link KycLink, replaced []string, err error) {
	err = withTx(ctx, s.pool, func(q *queries, _ pgx.Tx) error {
		replaced = nil
		var err error
		if link, err = q.KycLinkByTokenForUpdate(ctx, kyc.TokenHash(token)); err != nil {
			return fmt.Errorf("lock KYC link: %w", err)
		}
		latest := catalog.VerificationStatus("")
		if v, err := q.VerificationLatestOfCustomer(ctx, link.CustomerID); err == nil {
			latest = v.Status
		} else if !IsNotFound(err) {
			return fmt.Errorf("read verification: %w", err)
		}
		cust, err := customerRecordGet(ctx, q, link.PlatformID, link.CustomerID)
		if err != nil {
			return err
		}
		if st := kyc.StateOf(link.ExpiresAt, link.UsedAt, latest, cust.KycStatus, now); st != kyc.LinkUsable {
			return kyc.LinkClosed(st)
		}
		if _, err := q.KycLinkUse(ctx, KycLinkUseParams{ID: link.ID, Now: now}); err != nil {
			return fmt.Errorf("spend KYC link: %w", err)
		}
		if patch != nil {
			if _, err := customerPatchTx(ctx, q, box, *patch, s.views); err != nil {
				return err
			}
		}
		if len(docs) == 0 {
			return nil
		}
		stored, err := q.KycLinkAddDocuments(ctx, KycLinkAddDocumentsParams{ID: link.ID, Stored: int32(len(docs))})
		if err != nil {
			return fmt.Errorf("count the link's documents: %w", err)
		}
		if err := document.CheckLinkCount(int(stored), limits.LinkDocuments); err != nil {
			return err
		}
		for _, d := range docs {
			if d.Fields.Holder == nil {
				return fmt.Errorf("KYC page document: no holder")
			}
			slot, err := q.DocumentsOfSlot(ctx, DocumentsOfSlotParams{PlatformID: link.PlatformID, HolderID: d.Fields.Holder.ID, DocumentType: string(d.Fields.Type)})
			if err != nil {
				return fmt.Errorf("read the document's slot: %w", err)
			}
			for _, old := range slot {
				if err := q.DocumentDelete(ctx, DocumentDeleteParams{PlatformID: link.PlatformID, ID: old.ID}); err != nil {
					return fmt.Errorf("replace document: %w", err)
				}
				replaced = append(replaced, old.BlobKey)
			}
			if _, err := documentCreate(ctx, q, link.PlatformID, ids.New(), d.Fields, d.File); err != nil {
				return err
			}
		}
		return documentsWithin(ctx, q, link.PlatformID, link.CustomerID, limits.CustomerDocuments)
	})
	return link, replaced, err
}

// KycPageLimits cap what one submission of the hosted page may store: the files of its link
// over all submissions, and the documents of the customer and its owners.
type KycPageLimits struct {
	LinkDocuments, CustomerDocuments int
}
