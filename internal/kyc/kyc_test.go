package kyc

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/customer"
	"paycore/internal/ids"
	"paycore/internal/problem"
)

func ptr[T any](v T) *T { return &v }

func person() customer.Record {
	born := time.Date(1990, 5, 17, 0, 0, 0, 0, time.UTC)
	return customer.Record{ID: uuid.New(), Type: catalog.Individual, Region: "US", FullName: ptr("Ana García"), BirthDate: &born,
		Nationality: ptr("US"), Address: &customer.Address{Line1: "1 Main St", PostalCode: "94105", Country: "US"}}
}

func business() customer.Record {
	return customer.Record{ID: uuid.New(), Type: catalog.Business, Region: "US",
		Address:      &customer.Address{Line1: "1 Main St", PostalCode: "94105", Country: "US"},
		BusinessInfo: &customer.BusinessInfo{LegalName: "Acme Inc.", RegistrationNumber: ptr("REG-123"), Country: ptr("US")}}
}

func owner(c customer.Record, last string, roles ...string) customer.Owner {
	return customer.Owner{ID: uuid.New(), CustomerID: c.ID, Roles: roles, OwnershipPercentage: 50, KycStatus: catalog.KycPending,
		PersonalInfo: customer.PersonalInfo{FirstName: "Bo", LastName: last}}
}

// types lists the errors as "type field resource" for comparison.
func types(errs []Error) []string {
	var out []string
	for _, e := range errs {
		s := e.Type
		if e.Field != nil {
			s += " " + *e.Field
		}
		out = append(out, s+" "+e.ResourceID)
	}
	return out
}

func TestCheckIndividual(t *testing.T) {
	c := person()
	c.BirthDate, c.Address = nil, nil
	cid := ids.Format(ids.Customer, c.ID)
	got := types(Check(Submission{Customer: c, Required: []string{"FULL_NAME", "EMAIL"}}))
	want := []string{
		"MISSING_FIELD customer.birthDate " + cid, "MISSING_FIELD customer.address.line1 " + cid,
		"MISSING_FIELD customer.address.postalCode " + cid, "MISSING_FIELD customer.address.country " + cid,
		"MISSING_FIELD customer.email " + cid, "MISSING_IDENTITY_DOCUMENT " + cid,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("errors\n got %v\nwant %v", got, want)
	}
	// Fixed: complete with an identity document. Outside the US a proof of address too.
	c = person()
	c.Email = ptr("ana@example.com")
	docs := []Document{{ID: uuid.New(), Holder: c.ID, Type: "PASSPORT"}, {ID: uuid.New(), Holder: uuid.New(), Type: "UTILITY_BILL"}}
	if errs := Check(Submission{Customer: c, Documents: docs, Required: []string{"EMAIL"}}); len(errs) != 0 {
		t.Fatalf("complete submission: %v", types(errs))
	}
	c.Region = "MX"
	errs := Check(Submission{Customer: c, Documents: docs})
	if len(errs) != 1 || errs[0].Type != MissingProofOfAddressDocument || !reflect.DeepEqual(errs[0].AcceptedDocumentTypes, ProofOfAddressDocuments) {
		t.Fatalf("another holder's proof of address does not count: %+v", errs)
	}
}

func TestCheckBusiness(t *testing.T) {
	c := business()
	c.BusinessInfo.RegistrationNumber = nil
	cid := ids.Format(ids.Customer, c.ID)
	o := owner(c, "Smith", "DIRECTOR")
	oid := ids.Format(ids.BeneficialOwner, o.ID)
	got := types(Check(Submission{Customer: c, Owners: []customer.Owner{o}, Required: []string{"TAX_ID"}}))
	want := []string{
		"MISSING_FIELD customer.businessInfo.registrationNumber " + cid, "MISSING_FIELD customer.businessInfo.taxId " + cid,
		"MISSING_LEGAL_PRESENCE_DOCUMENT " + cid, "MISSING_OWNERSHIP_STRUCTURE_DOCUMENT " + cid,
		"MISSING_BENEFICIAL_OWNER " + cid, "MISSING_IDENTITY_DOCUMENT " + oid,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("errors\n got %v\nwant %v", got, want)
	}
	c = business()
	c.BusinessInfo.EntityType = ptr("PARTNERSHIP")
	ubo := owner(c, "Smith", "UBO")
	docs := []Document{{Holder: c.ID, Type: "CERTIFICATE_OF_INCORPORATION"}, {Holder: c.ID, Type: "TRUST_AGREEMENT"}, {Holder: ubo.ID, Type: "NATIONAL_ID"}}
	if errs := Check(Submission{Customer: c, Owners: []customer.Owner{ubo}, Documents: docs}); len(errs) != 0 {
		t.Fatalf("a trust agreement shows both ownership and control: %v", types(errs))
	}
	c.BusinessInfo.EntityType = ptr("SOLE_PROPRIETORSHIP")
	if errs := Check(Submission{Customer: c, Documents: docs[:1]}); len(errs) != 0 {
		t.Fatalf("a sole proprietorship needs no owners or ownership documents: %v", types(errs))
	}
	// A listed company's owners are public record: its controller and legal presence do.
	c.BusinessInfo.EntityType = ptr("PUBLICLY_LISTED_COMPANY")
	withUBO := []Document{docs[0], docs[2]}
	if errs := Check(Submission{Customer: c, Owners: []customer.Owner{ubo}, Documents: withUBO}); len(errs) != 0 {
		t.Fatalf("a listed company: %v", types(errs))
	}
	// A trust, a foundation and a charity show who controls them in their governing documents.
	for _, entity := range []string{"TRUST", "PRIVATE_FOUNDATION", "CHARITY"} {
		c.BusinessInfo.EntityType = ptr(entity)
		got := types(Check(Submission{Customer: c, Owners: []customer.Owner{ubo}, Documents: withUBO}))
		if want := []string{"MISSING_OWNERSHIP_STRUCTURE_DOCUMENT " + ids.Format(ids.Customer, c.ID), "MISSING_CONTROL_STRUCTURE_DOCUMENT " + ids.Format(ids.Customer, c.ID)}; !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: %v, want %v", entity, got, want)
		}
	}
}

func TestSandboxOutcome(t *testing.T) {
	for v, want := range map[string]catalog.KycStatus{"REG001": catalog.KycPending, "Smith002": catalog.KycRejected,
		"REG003": catalog.KycHold, "REG004": catalog.KycApproved, "01": catalog.KycApproved, "": catalog.KycApproved} {
		if got := SandboxOutcome(v); got != want {
			t.Errorf("%q: %s, want %s", v, got, want)
		}
	}
}

func TestDecide(t *testing.T) {
	c := business()
	cases := []struct {
		name   string
		reg    string
		owners []customer.Owner
		env    catalog.Environment
		status catalog.VerificationStatus
		kyb    catalog.KycStatus
	}{
		{"approved", "REG-123", nil, catalog.Sandbox, catalog.VerificationApproved, catalog.KycApproved},
		{"001", "REG-001", nil, catalog.Sandbox, catalog.VerificationManualReview, catalog.KycPending},
		{"002", "REG-002", nil, catalog.Sandbox, catalog.VerificationRejected, catalog.KycRejected},
		{"owner rejected", "REG-123", []customer.Owner{{ID: uuid.New(), KycStatus: catalog.KycRejected}}, catalog.Sandbox, catalog.VerificationRejected, catalog.KycRejected},
		{"owner in review", "REG-123", []customer.Owner{{ID: uuid.New(), KycStatus: catalog.KycPending}}, catalog.Sandbox, catalog.VerificationManualReview, catalog.KycPending},
		{"production", "REG-123", nil, catalog.Production, catalog.VerificationManualReview, catalog.KycPending},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c.BusinessInfo.RegistrationNumber = &tc.reg
			d := Decide(c, tc.owners, tc.env)
			if d.Status != tc.status || d.Customer != tc.kyb || (tc.status == catalog.VerificationRejected) != (len(d.Errors) > 0) {
				t.Fatalf("decision %+v", d)
			}
		})
	}
	p := person()
	p.FullName = ptr("Ana 002")
	if d := Decide(p, nil, catalog.Sandbox); d.Status != catalog.VerificationRejected {
		t.Fatalf("an individual by full name: %+v", d)
	}
}

func TestOwnersDecided(t *testing.T) {
	if !OwnersDecided(nil) || OwnersDecided([]customer.Owner{{KycDecided: true}, {}}) || !OwnersDecided([]customer.Owner{{KycDecided: true}}) {
		t.Fatal("OwnersDecided")
	}
}

func TestReady(t *testing.T) {
	id := uuid.New()
	if err := Ready(id, catalog.KycApproved); err != nil {
		t.Fatal(err)
	}
	var r *problem.Refusal
	if err := Ready(id, catalog.KycPending); !errors.As(err, &r) || r.Code != catalog.UserNotReady || r.Details["kycStatus"] != "PENDING" {
		t.Fatalf("not ready: %v", err)
	}
}

func TestLinks(t *testing.T) {
	for _, ok := range []string{"https://app.example.com/done?x=1", "http://localhost:3000/back", "http://127.0.0.1/x"} {
		if err := CheckRedirect(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"http://app.example.com/", "javascript:alert(1)", "/relative", "https://user:pw@x.example/", "ftp://x.example"} {
		if err := CheckRedirect(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	a, ha := NewToken()
	b, _ := NewToken()
	if a == b || len(a) != 43 || string(ha) != string(TokenHash(a)) {
		t.Fatalf("tokens %q %q", a, b)
	}
	now, later := time.Now(), time.Now().Add(time.Minute)
	for _, tc := range []struct {
		expires time.Time
		used    *time.Time
		latest  catalog.VerificationStatus
		current catalog.KycStatus
		want    LinkState
	}{
		{later, nil, "", catalog.KycUnverified, LinkUsable}, {later, nil, catalog.VerificationResolveErrors, catalog.KycPending, LinkUsable},
		{later, nil, catalog.VerificationRejected, catalog.KycRejected, LinkUsable},
		{now, nil, "", catalog.KycUnverified, LinkExpired}, {later, &now, "", catalog.KycUnverified, LinkUsed},
		{later, nil, catalog.VerificationInProgress, catalog.KycPending, LinkSubmitted}, {later, nil, catalog.VerificationManualReview, catalog.KycPending, LinkSubmitted},
		{later, nil, catalog.VerificationApproved, catalog.KycApproved, LinkSubmitted},
		// An identity change sent the customer back: the approval was of the old identity.
		{later, nil, catalog.VerificationApproved, catalog.KycPending, LinkUsable},
	} {
		if got := StateOf(tc.expires, tc.used, tc.latest, tc.current, now); got != tc.want {
			t.Errorf("%+v: %d", tc, got)
		}
	}
	if problem.CodeOf(LinkClosed(LinkUsed)) != catalog.Conflict {
		t.Fatal("LinkClosed")
	}
}
