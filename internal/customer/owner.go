package customer

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/email"
	"paycore/internal/ids"
	"paycore/internal/problem"
)

// Owner roles (BeneficialOwnerRole) and identification types (IdentificationType).
var (
	OwnerRoles = []string{"UBO", "DIRECTOR", "COMPANY_OFFICER", "CONTROL_PERSON", "TRUSTEE", "GENERAL_PARTNER"}
	idTypes    = []string{"SSN", "ITIN", "EIN", "NON_US_TAX_ID"}
	phone      = regexp.MustCompile(`^\+[1-9]\d{1,14}$`)
)

// PersonalInfo is what a beneficial owner's KYC checks, as stored and shown.
type PersonalInfo struct {
	FirstName         string  `json:"firstName"`
	MiddleName        *string `json:"middleName,omitempty"`
	LastName          string  `json:"lastName"`
	BirthDate         string  `json:"birthDate"`
	Nationality       string  `json:"nationality"`
	Email             *string `json:"email,omitempty"`
	PhoneNumber       *string `json:"phoneNumber,omitempty"`
	Address           Address `json:"address"`
	IDType            string  `json:"idType"`
	Identifier        string  `json:"identifier"`
	CountryOfIssuance *string `json:"countryOfIssuance,omitempty"`
}

// PersonalInfoInput is the personal information in a request; in an update, the members
// given replace the stored ones.
type PersonalInfoInput struct {
	FirstName         *string       `json:"firstName"`
	MiddleName        *string       `json:"middleName"`
	LastName          *string       `json:"lastName"`
	BirthDate         *string       `json:"birthDate"`
	Nationality       *string       `json:"nationality"`
	Email             *string       `json:"email"`
	PhoneNumber       *string       `json:"phoneNumber"`
	Address           *AddressInput `json:"address"`
	IDType            *string       `json:"idType"`
	Identifier        *string       `json:"identifier"`
	CountryOfIssuance *string       `json:"countryOfIssuance"`
}

// OwnerInput is the create and update body of a beneficial owner.
type OwnerInput struct {
	CustomerID          *string            `json:"customerId"`
	Roles               *[]string          `json:"roles"`
	OwnershipPercentage *int               `json:"ownershipPercentage"`
	PersonalInfo        *PersonalInfoInput `json:"personalInfo"`
}

// Owner is a beneficial owner, director or officer of a business customer, as stored.
type Owner struct {
	ID                  uuid.UUID
	CustomerID          uuid.UUID
	Roles               []string
	OwnershipPercentage int
	PersonalInfo        PersonalInfo
	KycStatus           catalog.KycStatus
	// KycDecided is set once the owner's KYC decided; a decided PENDING is a manual review.
	KycDecided bool
}

// OwnerChange is a beneficial owner created (Create) or updated (OwnerID with Patch)
// through the verification workflow of the owner's business.
type OwnerChange struct {
	PlatformID uuid.UUID
	Create     *Owner      `json:",omitempty"`
	OwnerID    uuid.UUID   `json:",omitempty"`
	Patch      *OwnerInput `json:",omitempty"`
}

// OwnerNotFound is the refusal of an unknown beneficial owner (or another platform's).
func OwnerNotFound() error { return problem.NotFound(catalog.NotFound, "beneficial owner") }

// NewOwner checks a new beneficial owner; every member but personalInfo's optional ones is
// required. The owner's KYC starts at once, so it is created PENDING.
func NewOwner(in OwnerInput) (Owner, error) {
	if in.CustomerID == nil {
		return Owner{}, problem.Field("customerId", "customerId is required (the business customer)")
	}
	cid, err := ids.Parse(ids.Customer, *in.CustomerID)
	if err != nil {
		return Owner{}, problem.Field("customerId", "customerId must be a Customer id")
	}
	switch {
	case in.Roles == nil:
		return Owner{}, problem.Field("roles", "roles is required (one or more of %s)", strings.Join(OwnerRoles, ", "))
	case in.OwnershipPercentage == nil:
		return Owner{}, problem.Field("ownershipPercentage", "ownershipPercentage is required (0 to 100)")
	case in.PersonalInfo == nil:
		return Owner{}, problem.Field("personalInfo", "personalInfo is required")
	}
	o := Owner{ID: ids.New(), CustomerID: cid, KycStatus: catalog.KycPending}
	if o, err = applyOwner(o, in); err != nil {
		return Owner{}, err
	}
	p := in.PersonalInfo
	for _, f := range []named{{"personalInfo.firstName", p.FirstName}, {"personalInfo.lastName", p.LastName},
		{"personalInfo.birthDate", p.BirthDate}, {"personalInfo.nationality", p.Nationality},
		{"personalInfo.idType", p.IDType}, {"personalInfo.identifier", p.Identifier}} {
		if f.v == nil {
			return Owner{}, problem.Field(f.field, "%s is required", f.field)
		}
	}
	if p.Address == nil {
		return Owner{}, problem.Field("personalInfo.address", "personalInfo.address is required")
	}
	return o, nil
}

// PatchOwner checks an update of owner cur: only the members given change, personalInfo
// member by member. Reverify is set when the personal information changed, which sends
// the owner through KYC again.
func PatchOwner(cur Owner, in OwnerInput) (next Owner, reverify bool, err error) {
	if in.CustomerID != nil {
		return cur, false, problem.Field("customerId", "customerId cannot be changed; create the owner on the other customer")
	}
	if next, err = applyOwner(cur, in); err != nil {
		return cur, false, err
	}
	if in.PersonalInfo != nil && !reflect.DeepEqual(next.PersonalInfo, cur.PersonalInfo) {
		next.KycStatus, next.KycDecided, reverify = catalog.KycPending, false, true
	}
	return next, reverify, nil
}

// applyOwner checks the members in gives and applies them over o.
func applyOwner(o Owner, in OwnerInput) (Owner, error) {
	if in.Roles != nil {
		roles := *in.Roles
		if len(roles) == 0 {
			return o, problem.Field("roles", "roles must name at least one of %s", strings.Join(OwnerRoles, ", "))
		}
		for i, r := range roles {
			field := fmt.Sprintf("roles[%d]", i)
			if err := enumField(field, &r, OwnerRoles); err != nil {
				return o, err
			}
			if slices.Contains(roles[:i], r) {
				return o, problem.Field(field, "role %s is listed twice", r)
			}
		}
		o.Roles = roles
	}
	if in.OwnershipPercentage != nil {
		if p := *in.OwnershipPercentage; p < 0 || p > 100 {
			return o, problem.Field("ownershipPercentage", "ownershipPercentage must be an integer from 0 to 100")
		}
		o.OwnershipPercentage = *in.OwnershipPercentage
	}
	if in.PersonalInfo != nil {
		pi, err := applyPersonalInfo(o.PersonalInfo, in.PersonalInfo)
		if err != nil {
			return o, err
		}
		o.PersonalInfo = pi
	}
	return o, nil
}

func applyPersonalInfo(pi PersonalInfo, in *PersonalInfoInput) (PersonalInfo, error) {
	const p = "personalInfo."
	if err := textFields(255, named{p + "firstName", in.FirstName}, named{p + "middleName", in.MiddleName},
		named{p + "lastName", in.LastName}, named{p + "identifier", in.Identifier}); err != nil {
		return pi, err
	}
	if err := countryField(p+"nationality", in.Nationality); err != nil {
		return pi, err
	}
	if err := countryField(p+"countryOfIssuance", in.CountryOfIssuance); err != nil {
		return pi, err
	}
	if err := enumField(p+"idType", in.IDType, idTypes); err != nil {
		return pi, err
	}
	if _, err := dateField(p+"birthDate", in.BirthDate, true); err != nil {
		return pi, err
	}
	if in.PhoneNumber != nil && !phone.MatchString(*in.PhoneNumber) {
		return pi, problem.Field(p+"phoneNumber", "personalInfo.phoneNumber must be in E.164 form such as +14155550123")
	}
	if in.Email != nil && !email.Plain(*in.Email) {
		return pi, problem.Field(p+"email", "personalInfo.email must be a plain e-mail address such as ana@example.com")
	}
	if in.Address != nil {
		a, err := checkAddress(p+"address", in.Address)
		if err != nil {
			return pi, err
		}
		pi.Address = *a
	}
	for _, m := range []struct {
		dst *string
		v   *string
	}{{&pi.FirstName, in.FirstName}, {&pi.LastName, in.LastName}, {&pi.BirthDate, in.BirthDate},
		{&pi.Nationality, in.Nationality}, {&pi.IDType, in.IDType}, {&pi.Identifier, in.Identifier}} {
		if m.v != nil {
			*m.dst = *m.v
		}
	}
	set(&pi.MiddleName, in.MiddleName)
	set(&pi.Email, in.Email)
	set(&pi.PhoneNumber, in.PhoneNumber)
	set(&pi.CountryOfIssuance, in.CountryOfIssuance)
	return pi, nil
}

// CheckOwnerOf refuses an owner of customer c (owners of a business only) whose
// ownership would take the business's owners over 100 percent; others are the other
// owners of c.
func CheckOwnerOf(c Record, others []Owner, o Owner) error {
	if err := c.CheckNotDeleted(); err != nil {
		return err
	}
	if c.Type != catalog.Business {
		return problem.Field("customerId", "beneficial owners belong to BUSINESS customers; %s is an INDIVIDUAL", ids.Format(ids.Customer, c.ID))
	}
	total := o.OwnershipPercentage
	for _, x := range others {
		if x.ID != o.ID {
			total += x.OwnershipPercentage
		}
	}
	if total > 100 {
		return problem.Field("ownershipPercentage", "the owners of a business hold at most 100 percent together; this owner would make it %d", total).
			With(map[string]any{"total": total})
	}
	return nil
}
