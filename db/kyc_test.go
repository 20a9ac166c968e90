package db_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"paycore/db"
	"paycore/db/dbtest"
	"paycore/db/view"
	"paycore/internal/catalog"
	"paycore/internal/customer"
	"paycore/internal/document"
	"paycore/internal/ids"
	"paycore/internal/kyc"
	"paycore/internal/platformconfig"
	"paycore/internal/problem"
)

// newBusinessRecord creates a business customer of platform s's settings.
func newBusinessRecord(t *testing.T, s platformconfig.Settings) customer.New {
	t.Helper()
	typ, region, legal, reg := "BUSINESS", "US", "Acme", "REG-100"
	n, err := customer.Create(customer.Input{CustomerType: &typ, Region: &region, BusinessInfo: &customer.BusinessInfoInput{LegalName: &legal, RegistrationNumber: &reg}}, s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func ownerOf(t *testing.T, customerID string, last string, share int) customer.Owner {
	t.Helper()
	first, born, nat, idType, ident, line, postal, country := "Bo", "1980-02-03", "US", "SSN", "1", "1 Main St", "94105", "US"
	roles := []string{"UBO"}
	o, err := customer.NewOwner(customer.OwnerInput{CustomerID: &customerID, Roles: &roles, OwnershipPercentage: &share,
		PersonalInfo: &customer.PersonalInfoInput{FirstName: &first, LastName: &last, BirthDate: &born, Nationality: &nat, IDType: &idType, Identifier: &ident,
			Address: &customer.AddressInput{Line1: &line, PostalCode: &postal, Country: &country}}})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// Ten owners of 20 percent created at once: exactly five fit, whatever the order, because
// each creation checks the total under the business's lock.
func TestOwnersNeverPassAHundredPercent(t *testing.T) {
	pool, _ := dbtest.NewPool(t)
	box := newBox(t)
	ctx := context.Background()
	p, s := provision(t, pool, box)
	biz, err := db.CustomerOpen(ctx, pool, box, p.ID, newBusinessRecord(t, s))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 10)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = db.OwnerCreate(ctx, pool, p.ID, ownerOf(t, ids.Format(ids.Customer, biz.ID), "Smith", 20))
		}()
	}
	wg.Wait()
	ok, refused := 0, 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case problem.CodeOf(err) == catalog.InvalidInput:
			refused++
		default:
			t.Fatalf("unexpected: %v", err)
		}
	}
	if ok != 5 || refused != 5 || count(t, pool, "SELECT sum(ownership_percentage) FROM beneficial_owners WHERE customer_id = $1", biz.ID) != 100 {
		t.Fatalf("%d created, %d refused", ok, refused)
	}
	// Another platform's business is not found.
	other, _ := provision(t, pool, box)
	if _, err := db.OwnerCreate(ctx, pool, other.ID, ownerOf(t, ids.Format(ids.Customer, biz.ID), "Smith", 0)); problem.CodeOf(err) != catalog.UserNotFound {
		t.Fatalf("another platform's business: %v", err)
	}
}

// A business's submission, reviewed in the database: RESOLVE_ERRORS while documents are
// missing; once complete IN_PROGRESS (the business PENDING, its documents frozen); the
// review names the owner still under review and decides nothing; after the owner's KYC it
// approves, with the webhooks of each step.
func TestVerificationSubmitAndDecide(t *testing.T) {
	pool, _ := dbtest.NewPool(t)
	store := db.NewStore(pool, view.Resources{})
	box := newBox(t)
	ctx := context.Background()
	q := db.New(pool)
	p, s := provision(t, pool, box)
	n := newBusinessRecord(t, s)
	n.Record.Address = &customer.Address{Line1: "1 Main St", PostalCode: "94105", Country: "US"}
	country := "US"
	n.Record.BusinessInfo.Country = &country
	biz, err := db.CustomerOpen(ctx, pool, box, p.ID, n)
	if err != nil {
		t.Fatal(err)
	}
	owner, err := db.OwnerCreate(ctx, pool, p.ID, ownerOf(t, ids.Format(ids.Customer, biz.ID), "Smith", 100))
	if err != nil {
		t.Fatal(err)
	}
	first, err := store.VerificationSubmit(ctx, p.ID, biz.ID, time.Now())
	if err != nil || first.InProgress || first.Verification.Status != catalog.VerificationResolveErrors {
		t.Fatalf("first submission %+v %v", first, err)
	}
	for _, d := range []struct {
		holder document.Holder
		typ    string
	}{{document.Holder{Kind: document.HolderCustomer, ID: biz.ID}, "CERTIFICATE_OF_INCORPORATION"},
		{document.Holder{Kind: document.HolderCustomer, ID: biz.ID}, "SHAREHOLDER_REGISTER"},
		{document.Holder{Kind: document.HolderBeneficialOwner, ID: owner.ID}, "PASSPORT"}} {
		h := d.holder
		if _, err := db.DocumentCreate(ctx, q, p.ID, ids.New(), document.Fields{Type: document.Type(d.typ), Country: "US", Holder: &h}, docFile()); err != nil {
			t.Fatal(err)
		}
	}
	second, err := store.VerificationSubmit(ctx, p.ID, biz.ID, time.Now())
	if err != nil || !second.InProgress || second.Verification.ID != first.Verification.ID {
		t.Fatalf("re-submission %+v %v", second, err)
	}
	if count(t, pool, "SELECT count(*) FROM documents WHERE customer_id = $1 AND submitted_at IS NOT NULL", biz.ID) != 3 ||
		count(t, pool, "SELECT count(*) FROM customers WHERE id = $1 AND kyc_status = 'PENDING'", biz.ID) != 1 {
		t.Fatal("a submission in progress freezes the documents and makes the business PENDING")
	}
	_, undecided, err := store.VerificationDecide(ctx, second.Verification.ID, kyc.Decide)
	if err != nil || len(undecided) != 1 || undecided[0] != owner.ID {
		t.Fatalf("decided before the owner: %v %v", undecided, err)
	}
	if st, err := db.OwnerDecide(ctx, pool, owner.ID, time.Now(), kyc.OwnerOutcome); err != nil || st != catalog.KycApproved {
		t.Fatalf("owner %s %v", st, err)
	}
	v, undecided, err := store.VerificationDecide(ctx, second.Verification.ID, kyc.Decide)
	if err != nil || len(undecided) != 0 || v.Status != catalog.VerificationApproved {
		t.Fatalf("decision %+v %v %v", v, undecided, err)
	}
	// Decided again (a retried step), nothing changes.
	if again, _, err := store.VerificationDecide(ctx, v.ID, kyc.Decide); err != nil || !again.UpdatedAt.Equal(v.UpdatedAt) {
		t.Fatalf("a repeated decision: %+v %v", again, err)
	}
	if got := count(t, pool, `SELECT count(*) FROM webhook_events WHERE platform_id = $1 AND type IN
		('VERIFICATION_RESOLVE_ERRORS', 'VERIFICATION_IN_PROGRESS', 'VERIFICATION_APPROVED', 'CUSTOMER_KYB_PENDING', 'CUSTOMER_KYB_APPROVED')`, p.ID); got != 5 {
		t.Fatalf("%d events", got)
	}
	// Its list is counted by list_counts, exactly.
	if n := countDrift(t, pool, "verifications"); n != 0 {
		t.Fatalf("%d verification count keys differ from the rows", n)
	}
	approved := string(catalog.VerificationApproved)
	for _, f := range []db.VerificationFilter{{PlatformID: p.ID}, {PlatformID: p.ID, Status: &approved}} {
		page, err := db.VerificationPage(ctx, pool, f, db.Page[db.IDPos]{Limit: 10})
		if err != nil || page.Total != 1 || len(page.Rows) != 1 {
			t.Fatalf("list %+v: %+v %v", f, page, err)
		}
	}
	pending := string(catalog.VerificationInProgress)
	if page, err := db.VerificationPage(ctx, pool, db.VerificationFilter{PlatformID: p.ID, Status: &pending}, db.Page[db.IDPos]{Limit: 10}); err != nil || page.Total != 0 {
		t.Fatalf("no verification is in progress any more: %+v %v", page, err)
	}
}
