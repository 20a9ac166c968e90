package customer

import (
	"testing"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/ids"
)

func ownerInput(tweak func(*OwnerInput)) OwnerInput {
	in := OwnerInput{CustomerID: ptr(ids.Format(ids.Customer, uuid.New())), Roles: &[]string{"UBO", "DIRECTOR"}, OwnershipPercentage: ptr(60),
		PersonalInfo: &PersonalInfoInput{FirstName: ptr("Bo"), LastName: ptr("Smith"), BirthDate: ptr("1980-02-03"), Nationality: ptr("US"),
			Address: &AddressInput{Line1: ptr("1 Main St"), PostalCode: ptr("94105"), Country: ptr("US")}, IDType: ptr("SSN"), Identifier: ptr("123-45-6789"),
			PhoneNumber: ptr("+14155550123")}}
	if tweak != nil {
		tweak(&in)
	}
	return in
}

func TestNewOwnerRefusals(t *testing.T) {
	cases := map[string]struct {
		in             OwnerInput
		field, message string
	}{
		"no customer":   {ownerInput(func(in *OwnerInput) { in.CustomerID = nil }), "customerId", "customerId is required"},
		"bad customer":  {ownerInput(func(in *OwnerInput) { in.CustomerID = ptr("Quote:x") }), "customerId", "must be a Customer id"},
		"no roles":      {ownerInput(func(in *OwnerInput) { in.Roles = nil }), "roles", "roles is required"},
		"empty roles":   {ownerInput(func(in *OwnerInput) { in.Roles = &[]string{} }), "roles", "at least one"},
		"bad role":      {ownerInput(func(in *OwnerInput) { in.Roles = &[]string{"UBO", "KING"} }), "roles[1]", "must be one of UBO"},
		"role twice":    {ownerInput(func(in *OwnerInput) { in.Roles = &[]string{"UBO", "UBO"} }), "roles[1]", "listed twice"},
		"no share":      {ownerInput(func(in *OwnerInput) { in.OwnershipPercentage = nil }), "ownershipPercentage", "is required"},
		"share > 100":   {ownerInput(func(in *OwnerInput) { in.OwnershipPercentage = ptr(101) }), "ownershipPercentage", "0 to 100"},
		"share < 0":     {ownerInput(func(in *OwnerInput) { in.OwnershipPercentage = ptr(-1) }), "ownershipPercentage", "0 to 100"},
		"no info":       {ownerInput(func(in *OwnerInput) { in.PersonalInfo = nil }), "personalInfo", "is required"},
		"no last name":  {ownerInput(func(in *OwnerInput) { in.PersonalInfo.LastName = nil }), "personalInfo.lastName", "is required"},
		"no address":    {ownerInput(func(in *OwnerInput) { in.PersonalInfo.Address = nil }), "personalInfo.address", "is required"},
		"bad phone":     {ownerInput(func(in *OwnerInput) { in.PersonalInfo.PhoneNumber = ptr("4155550123") }), "personalInfo.phoneNumber", "E.164"},
		"bad id type":   {ownerInput(func(in *OwnerInput) { in.PersonalInfo.IDType = ptr("PASSPORT") }), "personalInfo.idType", "must be one of SSN"},
		"future birth":  {ownerInput(func(in *OwnerInput) { in.PersonalInfo.BirthDate = ptr("2999-01-01") }), "personalInfo.birthDate", "between 1900 and today"},
		"bad country":   {ownerInput(func(in *OwnerInput) { in.PersonalInfo.Nationality = ptr("USA") }), "personalInfo.nationality", "ISO 3166-1"},
		"bad email":     {ownerInput(func(in *OwnerInput) { in.PersonalInfo.Email = ptr("bo") }), "personalInfo.email", "plain e-mail"},
		"address field": {ownerInput(func(in *OwnerInput) { in.PersonalInfo.Address.PostalCode = nil }), "personalInfo.address.postalCode", "is required"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := NewOwner(tc.in)
			wantField(t, err, tc.field, tc.message)
		})
	}
}

func TestOwnerRules(t *testing.T) {
	o, err := NewOwner(ownerInput(nil))
	if err != nil {
		t.Fatal(err)
	}
	if o.KycStatus != catalog.KycPending || o.OwnershipPercentage != 60 || o.PersonalInfo.Address.Country != "US" || o.PersonalInfo.LastName != "Smith" {
		t.Fatalf("owner %+v", o)
	}
	// Roles or share only: no new KYC. New personal information: KYC again.
	o.KycStatus, o.KycDecided = catalog.KycApproved, true
	next, reverify, err := PatchOwner(o, OwnerInput{OwnershipPercentage: ptr(40)})
	if err != nil || reverify || next.OwnershipPercentage != 40 || next.KycStatus != catalog.KycApproved {
		t.Fatalf("share change: %+v %v %v", next, reverify, err)
	}
	next, reverify, err = PatchOwner(o, OwnerInput{PersonalInfo: &PersonalInfoInput{LastName: ptr("Jones")}})
	if err != nil || !reverify || next.KycStatus != catalog.KycPending || next.KycDecided || next.PersonalInfo.FirstName != "Bo" || next.PersonalInfo.LastName != "Jones" {
		t.Fatalf("name change: %+v %v %v", next, reverify, err)
	}
	if _, reverify, _ = PatchOwner(o, OwnerInput{PersonalInfo: &PersonalInfoInput{LastName: ptr("Smith")}}); reverify {
		t.Fatal("the same name sent again is no change")
	}
	_, _, err = PatchOwner(o, OwnerInput{CustomerID: ptr("Customer:x")})
	wantField(t, err, "customerId", "cannot be changed")

	biz := stored()
	biz.ID = o.CustomerID
	other := Owner{ID: uuid.New(), OwnershipPercentage: 40}
	if err := CheckOwnerOf(biz, []Owner{other, o}, o); err != nil {
		t.Fatalf("60 + 40: %v", err)
	}
	o.OwnershipPercentage = 61
	wantField(t, CheckOwnerOf(biz, []Owner{other, o}, o), "ownershipPercentage", "would make it 101")
	person := stored()
	person.Type = catalog.Individual
	wantField(t, CheckOwnerOf(person, nil, o), "customerId", "belong to BUSINESS customers")
}
