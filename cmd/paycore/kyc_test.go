package main

import (
	"bytes"
	"context"
	"mime/multipart"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"

	"paycore/api"
	"paycore/api/apitest"
	"paycore/db"
	"paycore/db/view"
	"paycore/internal/ids"
	"paycore/internal/infra/config"
	"paycore/workflows"
)

// kycFast shortens the sandbox provider's review.
func kycFast(c *config.Config) { c.KycReviewDelay = 500 * time.Millisecond }

// unregulatedPlatform creates a sandbox platform whose customers the service verifies.
func (s *stack) unregulatedPlatform() (*apitest.Client, db.Platform) {
	s.t.Helper()
	p, tok, err := api.CreatePlatform(context.Background(), s.app.pool, s.app.box, api.PlatformParams{Name: "KYC", Sandbox: true})
	if err != nil {
		s.t.Fatal(err)
	}
	return &apitest.Client{T: s.t, BaseURL: s.baseURL, User: tok.Token.ID.String(), Password: tok.Secret}, p
}

// pngBytes is the smallest PNG a document upload accepts.
var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")

// upload uploads a PNG document of documentType for holder.
func upload(t *testing.T, c *apitest.Client, holder, documentType string) string {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range map[string]string{"documentType": documentType, "country": "US", "documentHolder": holder} {
		_ = mw.WriteField(k, v)
	}
	fw, _ := mw.CreateFormFile("file", "scan.png")
	_, _ = fw.Write(pngBytes)
	_ = mw.Close()
	r := c.Do("POST", "/documents", buf.Bytes(), "Content-Type", mw.FormDataContentType())
	if r.Status != 201 {
		t.Fatalf("upload %s for %s: %d %s", documentType, holder, r.Status, r.Body)
	}
	return r.JSON(t)["id"].(string)
}

// kycEvents lists the VERIFICATION_* and CUSTOMER_* webhook events of a customer, in
// order, each one's data checked against its schema.
func kycEvents(t *testing.T, s *stack, customerID string) []string {
	t.Helper()
	rows, err := s.app.pool.Query(context.Background(), `SELECT type, data FROM webhook_events
		WHERE (type LIKE 'VERIFICATION_%' AND data->>'customerId' = $1) OR (type LIKE 'CUSTOMER_%' AND data->>'id' = $1)
		ORDER BY created_at, id`, customerID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var typ string
		var data []byte
		_ = rows.Scan(&typ, &data)
		schema := "Verification"
		if strings.HasPrefix(typ, "CUSTOMER_") {
			schema = "Customer"
		}
		if errs := apitest.SchemaErrors(t, schema, data); len(errs) > 0 {
			t.Errorf("%s data does not match %s: %v", typ, schema, errs)
		}
		out = append(out, typ)
	}
	return out
}

// verification waits until the customer's verification reaches a final or review status.
func waitVerification(t *testing.T, c *apitest.Client, id string) view.Verification {
	t.Helper()
	var v view.Verification
	eventually(t, 30*time.Second, "verification "+id+" decided", func() bool {
		c.Do("GET", "/verifications/"+id, nil).Decode(t, &v)
		return v.VerificationStatus != "IN_PROGRESS"
	})
	return v
}

// An individual on an unregulated platform: cannot attest its KYC, cannot move money
// before verification, gets RESOLVE_ERRORS until its documents are there, then is
// approved by the sandbox provider and moves money.
func TestIndividualVerification(t *testing.T) {
	t.Parallel()
	s := newStack(t, kycFast)
	c, _ := s.unregulatedPlatform()
	if r := c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "region": "US", "kycStatus": "APPROVED"}); r.Status != 400 {
		t.Fatalf("an unregulated platform attesting KYC: %d %s", r.Status, r.Body)
	}
	var cust api.Customer
	c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "region": "US", "fullName": "Ana García",
		"currencies": []string{"USD"}}).Decode(t, &cust)
	w := &world{t: t, s: s, c: c, customer: cust.ID}
	var accts api.List[view.InternalAccount]
	c.Do("GET", "/customers/internal-accounts?customerId="+cust.ID, nil).Decode(t, &accts)
	w.account = accts.Data[0].ID
	w.fund(10_000)
	ext := w.external("001")
	transfer := func() *apitest.Response {
		return c.Do("POST", "/transfer-out", map[string]any{"source": map[string]any{"accountId": w.account},
			"destination": map[string]any{"accountId": ext}, "amount": 100})
	}
	if r := transfer(); r.Status != 403 || r.Code(t) != "USER_NOT_READY" {
		t.Fatalf("an unverified customer's transfer: %d %s", r.Status, r.Body)
	}

	var v view.Verification
	c.Do("POST", "/verifications", map[string]any{"customerId": cust.ID}).Decode(t, &v)
	var missing []string
	for _, e := range v.Errors {
		f := ""
		if e.Field != nil {
			f = " " + *e.Field
		}
		missing = append(missing, e.Type+f)
	}
	want := []string{"MISSING_FIELD customer.birthDate", "MISSING_FIELD customer.nationality", "MISSING_FIELD customer.address.line1",
		"MISSING_FIELD customer.address.postalCode", "MISSING_FIELD customer.address.country", "MISSING_IDENTITY_DOCUMENT"}
	if v.VerificationStatus != "RESOLVE_ERRORS" || !slices.Equal(missing, want) {
		t.Fatalf("first submission: %s %v", v.VerificationStatus, missing)
	}
	// Fixed, and submitted again: the same verification goes IN_PROGRESS, then APPROVED.
	c.Do("PATCH", "/customers/"+cust.ID, map[string]any{"customerType": "INDIVIDUAL", "birthDate": "1990-05-17", "nationality": "US",
		"address": map[string]any{"line1": "1 Main St", "postalCode": "94105", "country": "US"}})
	upload(t, c, cust.ID, "PASSPORT")
	var again view.Verification
	c.Do("POST", "/verifications", map[string]any{"customerId": cust.ID}).Decode(t, &again)
	if again.ID != v.ID || again.VerificationStatus != "IN_PROGRESS" || len(again.Errors) != 0 {
		t.Fatalf("re-submission: %+v", again)
	}
	if v := waitVerification(t, c, v.ID); v.VerificationStatus != "APPROVED" {
		t.Fatalf("decided %+v", v)
	}
	var after api.Customer
	c.Do("GET", "/customers/"+cust.ID, nil).Decode(t, &after)
	if after.KycStatus == nil || *after.KycStatus != "APPROVED" {
		t.Fatalf("customer after approval: %+v", after.KycStatus)
	}
	if got, want := kycEvents(t, s, cust.ID), []string{"VERIFICATION_RESOLVE_ERRORS", "CUSTOMER_KYC_PENDING", "VERIFICATION_IN_PROGRESS",
		"CUSTOMER_KYC_APPROVED", "VERIFICATION_APPROVED"}; !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	if r := transfer(); r.Status != 201 {
		t.Fatalf("a verified customer's transfer: %d %s", r.Status, r.Body)
	}
	// Asked again, the approved verification is answered as it is; the document it took
	// can no longer be deleted.
	var third view.Verification
	c.Do("POST", "/verifications", map[string]any{"customerId": cust.ID}).Decode(t, &third)
	if third.ID != v.ID || third.VerificationStatus != "APPROVED" {
		t.Fatalf("verifying an approved customer again: %+v", third)
	}
	var list api.List[view.Verification]
	c.Do("GET", "/verifications?customerId="+cust.ID+"&verificationStatus=APPROVED", nil).Decode(t, &list)
	if len(list.Data) != 1 || list.Data[0].ID != v.ID {
		t.Fatalf("list %+v", list.Data)
	}
	other, _ := s.unregulatedPlatform()
	if r := other.Do("GET", "/verifications/"+v.ID, nil); r.Status != 404 {
		t.Fatalf("another platform's verification: %d", r.Status)
	}
}

// newBusiness creates a business customer of registration number reg with its
// legal-presence and ownership documents.
func newBusiness(t *testing.T, c *apitest.Client, reg string) string {
	t.Helper()
	r := c.Do("POST", "/customers", map[string]any{"customerType": "BUSINESS", "region": "US", "currencies": []string{"USD"},
		"address":      map[string]any{"line1": "1 Market St", "postalCode": "94105", "country": "US"},
		"businessInfo": map[string]any{"legalName": "Acme " + reg, "registrationNumber": reg, "country": "US"}})
	if r.Status != 201 {
		t.Fatalf("business: %d %s", r.Status, r.Body)
	}
	id := r.JSON(t)["id"].(string)
	upload(t, c, id, "CERTIFICATE_OF_INCORPORATION")
	upload(t, c, id, "SHAREHOLDER_REGISTER")
	return id
}

// addOwner adds a UBO with share percent and last name to business, with an identity
// document.
func addOwner(t *testing.T, c *apitest.Client, business, last string, share int) view.BeneficialOwner {
	t.Helper()
	r := c.Do("POST", "/beneficial-owners", ownerBody(business, last, share))
	if r.Status != 201 {
		t.Fatalf("owner %s: %d %s", last, r.Status, r.Body)
	}
	var o view.BeneficialOwner
	r.Decode(t, &o)
	upload(t, c, o.ID, "PASSPORT")
	return o
}

func ownerBody(business, last string, share int) map[string]any {
	return map[string]any{"customerId": business, "roles": []string{"UBO"}, "ownershipPercentage": share,
		"personalInfo": map[string]any{"firstName": "Bo", "lastName": last, "birthDate": "1980-02-03", "nationality": "US",
			"address": map[string]any{"line1": "2 Main St", "postalCode": "94105", "country": "US"}, "idType": "SSN", "identifier": "123-45-6789"}}
}

// KYB by the registration number's suffix, owners' KYC by their last name's, and a
// business whose owner is rejected is rejected.
func TestBusinessVerificationSandboxOutcomes(t *testing.T) {
	t.Parallel()
	s := newStack(t, kycFast)
	c, _ := s.unregulatedPlatform()
	cases := []struct {
		reg, last, owner, status, kyb string
	}{
		{"REG-100", "Smith", "APPROVED", "APPROVED", "APPROVED"},
		{"REG-001", "Smith", "APPROVED", "PENDING_MANUAL_REVIEW", "PENDING"},
		{"REG-002", "Smith", "APPROVED", "REJECTED", "REJECTED"},
		{"REG-100", "Smith002", "REJECTED", "REJECTED", "REJECTED"},
		{"REG-100", "Smith001", "PENDING", "PENDING_MANUAL_REVIEW", "PENDING"},
	}
	for _, tc := range cases {
		t.Run(tc.reg+"/"+tc.last, func(t *testing.T) {
			t.Parallel()
			biz := newBusiness(t, c, tc.reg)
			o := addOwner(t, c, biz, tc.last, 100)
			if o.KycStatus != "PENDING" {
				t.Fatalf("a new owner enters KYC at once: %s", o.KycStatus)
			}
			var v view.Verification
			c.Do("POST", "/verifications", map[string]any{"customerId": biz}).Decode(t, &v)
			if v.VerificationStatus != "IN_PROGRESS" {
				t.Fatalf("submission: %+v", v)
			}
			if v = waitVerification(t, c, v.ID); string(v.VerificationStatus) != tc.status {
				t.Fatalf("verification %s, want %s (%+v)", v.VerificationStatus, tc.status, v.Errors)
			}
			// The business's KYB decided after its owner's KYC did.
			var waited bool
			if err := s.app.pool.QueryRow(context.Background(), `SELECT o.kyc_decided_at <= v.updated_at FROM beneficial_owners o, verifications v
				WHERE o.id = $1 AND v.id = $2`, strings.TrimPrefix(o.ID, "BeneficialOwner:"), strings.TrimPrefix(v.ID, "Verification:")).Scan(&waited); err != nil || !waited {
				t.Fatalf("the KYB did not wait for the owner: %v %v", waited, err)
			}
			var got view.BeneficialOwner
			c.Do("GET", "/beneficial-owners/"+o.ID, nil).Decode(t, &got)
			var cust api.Customer
			c.Do("GET", "/customers/"+biz, nil).Decode(t, &cust)
			if string(got.KycStatus) != tc.owner || cust.KybStatus == nil || string(*cust.KybStatus) != tc.kyb {
				t.Fatalf("owner %s (want %s), kyb %v (want %s)", got.KycStatus, tc.owner, cust.KybStatus, tc.kyb)
			}
		})
	}
}

// Owners: only of businesses, at most 100 percent together, listed per customer, and
// another platform's are 404.
func TestBeneficialOwners(t *testing.T) {
	t.Parallel()
	s := newStack(t, kycFast)
	c, _ := s.unregulatedPlatform()
	biz := newBusiness(t, c, "REG-100")
	first := addOwner(t, c, biz, "Smith", 60)
	if r := c.Do("POST", "/beneficial-owners", ownerBody(biz, "Jones", 41)); r.Status != 400 || r.JSON(t)["details"].(map[string]any)["field"] != "ownershipPercentage" {
		t.Fatalf("owners over 100 percent: %d %s", r.Status, r.Body)
	}
	second := c.Do("POST", "/beneficial-owners", ownerBody(biz, "Jones", 40))
	if second.Status != 201 {
		t.Fatalf("second owner: %d %s", second.Status, second.Body)
	}
	if r := c.Do("PATCH", "/beneficial-owners/"+first.ID, map[string]any{"ownershipPercentage": 61}); r.Status != 400 {
		t.Fatalf("a share raised over the total: %d %s", r.Status, r.Body)
	}
	var patched view.BeneficialOwner
	c.Do("PATCH", "/beneficial-owners/"+first.ID, map[string]any{"roles": []string{"UBO", "DIRECTOR"}, "personalInfo": map[string]any{"middleName": "Q"}}).Decode(t, &patched)
	if !slices.Equal(patched.Roles, []string{"UBO", "DIRECTOR"}) || patched.PersonalInfo.MiddleName == nil || patched.PersonalInfo.LastName != "Smith" {
		t.Fatalf("patched %+v", patched)
	}
	var person api.Customer
	c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "region": "US"}).Decode(t, &person)
	if r := c.Do("POST", "/beneficial-owners", ownerBody(person.ID, "Smith", 10)); r.Status != 400 {
		t.Fatalf("an individual's owner: %d %s", r.Status, r.Body)
	}
	var list api.List[view.BeneficialOwner]
	c.Do("GET", "/beneficial-owners?customerId="+biz, nil).Decode(t, &list)
	if len(list.Data) != 2 || list.TotalCount != 2 {
		t.Fatalf("owners %+v", list)
	}
	var shown api.Customer
	c.Do("GET", "/customers/"+biz, nil).Decode(t, &shown)
	if len(shown.BeneficialOwners) != 2 || shown.BeneficialOwners[0].ID != first.ID {
		t.Fatalf("the business shows its owners: %+v", shown.BeneficialOwners)
	}
	if r := c.Do("GET", "/beneficial-owners", nil); r.Status != 400 {
		t.Fatalf("a list without customerId: %d", r.Status)
	}
	eventually(t, 30*time.Second, "owners reviewed", func() bool {
		var o view.BeneficialOwner
		c.Do("GET", "/beneficial-owners/"+first.ID, nil).Decode(t, &o)
		return o.KycStatus == "APPROVED"
	})

	other, _ := s.unregulatedPlatform()
	for _, r := range []*apitest.Response{
		other.Do("GET", "/beneficial-owners/"+first.ID, nil),
		other.Do("PATCH", "/beneficial-owners/"+first.ID, map[string]any{"ownershipPercentage": 1}),
		other.Do("POST", "/beneficial-owners", ownerBody(biz, "Smith", 1)),
		other.Do("POST", "/verifications", map[string]any{"customerId": biz}),
	} {
		if r.Status != 404 {
			t.Fatalf("another platform's owner or customer: %d %s", r.Status, r.Body)
		}
	}
	if r := other.Do("GET", "/beneficial-owners?customerId="+biz, nil); r.Status != 404 || r.Code(t) != "USER_NOT_FOUND" {
		t.Fatalf("another platform's business's owners: %d %s", r.Status, r.Body)
	}
}

// TestRecordHistoriesVerification records the histories of a business's verification
// (its owner's KYC a child) that the replay test guards.
func TestRecordHistoriesVerification(t *testing.T) {
	dir := os.Getenv("PAYCORE_RECORD_HISTORIES")
	if dir == "" {
		t.Skip("set PAYCORE_RECORD_HISTORIES to a directory to record workflow histories")
	}
	s := newStack(t, kycFast)
	c, _ := s.unregulatedPlatform()
	biz := newBusiness(t, c, "REG-100")
	o := addOwner(t, c, biz, "Smith", 100)
	var v view.Verification
	c.Do("POST", "/verifications", map[string]any{"customerId": biz}).Decode(t, &v)
	waitVerification(t, c, v.ID)
	bizID, _ := ids.Parse(ids.Customer, biz)
	ownerID, _ := ids.Parse(ids.BeneficialOwner, o.ID)
	for name, id := range map[string]string{"verification_business_approved": workflows.CustomerVerificationWorkflowID(bizID),
		"verification_owner_kyc": workflows.OwnerKycWorkflowID(ownerID)} {
		eventually(t, 30*time.Second, "the workflow to end", func() bool {
			d, err := s.app.temporal.DescribeWorkflowExecution(context.Background(), id, "")
			return err == nil && d.WorkflowExecutionInfo.Status == enums.WORKFLOW_EXECUTION_STATUS_COMPLETED
		})
		recordHistory(t, s, dir, name, id)
	}
}

// A regulated platform attests its customers' KYC: a customer it says is PENDING cannot
// move money, and can once the platform says APPROVED; the service verifies nothing.
func TestRegulatedPlatformAttestsKyc(t *testing.T) {
	t.Parallel()
	s := newStack(t, kycFast)
	c, _ := s.platform(true) // the test platforms are regulated
	var cust api.Customer
	c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "region": "US", "kycStatus": "PENDING", "currencies": []string{"USD"}}).Decode(t, &cust)
	w := &world{t: t, s: s, c: c, customer: cust.ID}
	var accts api.List[view.InternalAccount]
	c.Do("GET", "/customers/internal-accounts?customerId="+cust.ID, nil).Decode(t, &accts)
	w.account = accts.Data[0].ID
	w.fund(1_000)
	ext := w.external("001")
	if r := w.transferOut(ext, 100); r.Status != 403 || r.Code(t) != "USER_NOT_READY" {
		t.Fatalf("an attested PENDING customer's transfer: %d %s", r.Status, r.Body)
	}
	if r := c.Do("PATCH", "/customers/"+cust.ID, map[string]any{"customerType": "INDIVIDUAL", "kycStatus": "APPROVED"}); r.Status != 200 {
		t.Fatalf("attest APPROVED: %d %s", r.Status, r.Body)
	}
	if r := w.transferOut(ext, 100); r.Status != 201 {
		t.Fatalf("an attested APPROVED customer's transfer: %d %s", r.Status, r.Body)
	}
}
