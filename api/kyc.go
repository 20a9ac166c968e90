package api

import (
	"context"
	"net/http"

	"github.com/google/uuid"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/catalog"
	"paycore/internal/customer"
	"paycore/internal/ids"
	"paycore/internal/kyc"
	"paycore/workflows"
)

var (
	errOwnerNotFound        = errorOf(customer.OwnerNotFound())
	errVerificationNotFound = errorOf(kyc.VerificationNotFound())
)

// verification is the input of a customer's verification workflow.
func (s *Server) verification(platformID, customerID uuid.UUID) workflows.VerificationInput {
	return workflows.VerificationInput{PlatformID: platformID, CustomerID: customerID, ReviewDelay: s.Config.KycReviewDelay}
}

// knownCustomer refuses a customer the caller's platform does not have before a workflow
// is started for it (the workflow's step checks it again under lock).
func (s *Server) knownCustomer(ctx context.Context, platformID, id uuid.UUID) error {
	_, err := db.CustomerRecordGet(ctx, s.Pool, platformID, id)
	return err
}

// createBeneficialOwner is POST /beneficial-owners: the owner is written by the business's
// verification workflow, which starts the owner's KYC.
func (s *Server) createBeneficialOwner(w http.ResponseWriter, r *http.Request) error {
	in, err := ReadJSON[customer.OwnerInput](r)
	if err != nil {
		return err
	}
	o, err := customer.NewOwner(in)
	if err != nil {
		return err
	}
	pid := principalFrom(r.Context()).PlatformID
	if err := s.knownCustomer(r.Context(), pid, o.CustomerID); err != nil {
		return err
	}
	out, err := s.start.Verification(r.Context(), s.verification(pid, o.CustomerID), workflows.UpdateOwner,
		customer.OwnerChange{PlatformID: pid, Create: &o})
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusCreated, out)
	return nil
}

// patchBeneficialOwner is PATCH /beneficial-owners/{beneficialOwnerId}; new personal
// information sends the owner through KYC again.
func (s *Server) patchBeneficialOwner(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "beneficialOwnerId", ids.BeneficialOwner, errOwnerNotFound)
	if err != nil {
		return err
	}
	in, err := ReadJSON[customer.OwnerInput](r)
	if err != nil {
		return err
	}
	pid := principalFrom(r.Context()).PlatformID
	cur, err := db.OwnerGetRecord(r.Context(), s.Pool, pid, id)
	if err != nil {
		return err
	}
	rec, err := db.OwnerRecord(cur)
	if err != nil {
		return err
	}
	if _, _, err := customer.PatchOwner(rec, in); err != nil {
		return err
	}
	out, err := s.start.Verification(r.Context(), s.verification(pid, cur.CustomerID), workflows.UpdateOwner,
		customer.OwnerChange{PlatformID: pid, OwnerID: id, Patch: &in})
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, out)
	return nil
}

func (s *Server) getBeneficialOwner(w http.ResponseWriter, r *http.Request) error {
	return serveOne(w, r, "beneficialOwnerId", ids.BeneficialOwner, errOwnerNotFound, func(ctx context.Context, pid, id uuid.UUID) (db.BeneficialOwner, error) {
		return db.OwnerGet(ctx, s.Pool, db.OwnerGetParams{PlatformID: pid, ID: id})
	}, view.BeneficialOwnerOf)
}

// listBeneficialOwners is GET /beneficial-owners?customerId= (required).
func (s *Server) listBeneficialOwners(w http.ResponseWriter, r *http.Request) error {
	return serveList(s, w, r, listSpec[db.OwnerFilter, db.IDPos, db.BeneficialOwner, view.BeneficialOwner]{
		name: "beneficial-owners", params: []string{"customerId", "limit", "cursor"},
		filter: func(q *query, pid uuid.UUID) db.OwnerFilter {
			c := q.customerID("customerId")
			if !c.Valid && q.str("customerId") == nil {
				q.fail(invalidField("customerId", "customerId is required (the business customer)"))
			}
			return db.OwnerFilter{PlatformID: pid, CustomerID: c.UUID}
		},
		read: db.OwnerPage, pos: idPos(func(o db.BeneficialOwner) uuid.UUID { return o.ID }), view: view.BeneficialOwnerOf,
	})
}

type verificationBody struct {
	CustomerID *string `json:"customerId"`
}

// createVerification is POST /verifications: the customer's verification workflow checks
// the submission and, complete, reviews it. It answers 200 with the Verification.
func (s *Server) createVerification(w http.ResponseWriter, r *http.Request) error {
	b, err := ReadJSON[verificationBody](r)
	if err != nil {
		return err
	}
	if b.CustomerID == nil {
		return invalidField("customerId", "customerId is required")
	}
	cid, err := ids.Parse(ids.Customer, *b.CustomerID)
	if err != nil {
		return invalidField("customerId", "customerId must be a Customer id (Customer:<uuid>)")
	}
	pid := principalFrom(r.Context()).PlatformID
	if err := s.knownCustomer(r.Context(), pid, cid); err != nil {
		return err
	}
	out, err := s.start.Verification(r.Context(), s.verification(pid, cid), workflows.UpdateSubmit, nil)
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, out)
	return nil
}

func (s *Server) getVerification(w http.ResponseWriter, r *http.Request) error {
	return serveOne(w, r, "verificationId", ids.Verification, errVerificationNotFound, func(ctx context.Context, pid, id uuid.UUID) (db.Verification, error) {
		return db.VerificationGet(ctx, s.Pool, db.VerificationGetParams{PlatformID: pid, ID: id})
	}, view.VerificationOf)
}

// listVerifications is GET /verifications, newest first.
func (s *Server) listVerifications(w http.ResponseWriter, r *http.Request) error {
	return serveList(s, w, r, listSpec[db.VerificationFilter, db.IDPos, db.Verification, view.Verification]{
		name: "verifications", params: []string{"customerId", "verificationStatus", "limit", "cursor"},
		filter: func(q *query, pid uuid.UUID) db.VerificationFilter {
			return db.VerificationFilter{PlatformID: pid, CustomerID: q.customerID("customerId"),
				Status: q.enum("verificationStatus", catalog.Names(catalog.VerificationStatuses)...)}
		},
		read: db.VerificationPage, pos: idPos(func(v db.Verification) uuid.UUID { return v.ID }), view: view.VerificationOf,
	})
}
