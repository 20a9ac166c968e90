package customer

import (
	"encoding/json"
	"slices"
	"strings"

	"paycore/internal/problem"
)

// Enhanced due diligence of individuals (the peer API's CustomerEdd): what the verification
// asks of a customer whose activity or exposure calls for more than identity (see
// kyc.DiligenceRequired).
var (
	sourceOfFundsCategories  = []string{"SALARY", "SELF_EMPLOYMENT_INCOME", "INVESTMENT_INCOME", "PENSION", "RENTAL_INCOME", "GIFT", "INHERITANCE", "LOAN", "SAVINGS", "SALE_OF_ASSETS", "OTHER"}
	sourceOfWealthCategories = []string{"SALARY", "BUSINESS_INCOME", "INVESTMENTS", "INHERITANCE", "PROPERTY_SALE", "GIFT", "RETIREMENT", "SAVINGS", "OTHER"}
	annualIncomeRanges       = []string{"UNDER_50K", "RANGE_50K_100K", "RANGE_100K_250K", "RANGE_250K_1M", "OVER_1M"}
	netWorthRanges           = []string{"UNDER_100K", "RANGE_100K_500K", "RANGE_500K_1M", "RANGE_1M_5M", "RANGE_5M_25M", "OVER_25M"}
	pepStatuses              = []string{"NONE", "DOMESTIC", "FOREIGN", "HIO", "FAMILY_OR_ASSOCIATE"}
)

// maxDescription bounds the free-text descriptions of due diligence, in bytes.
const maxDescription = 500

// DueDiligence is an individual's enhanced-due-diligence information, as stored and shown
// (top-level members of the customer).
type DueDiligence struct {
	SourceOfFundsCategories          []string `json:"sourceOfFundsCategories,omitempty"`
	SourceOfFundsOtherDescription    *string  `json:"sourceOfFundsOtherDescription,omitempty"`
	SourceOfWealthCategories         []string `json:"sourceOfWealthCategories,omitempty"`
	SourceOfWealthOtherDescription   *string  `json:"sourceOfWealthOtherDescription,omitempty"`
	PurposeOfAccount                 *string  `json:"purposeOfAccount,omitempty"`
	PurposeOfAccountOtherDescription *string  `json:"purposeOfAccountOtherDescription,omitempty"`
	ExpectedMonthlyTransactionCount  *string  `json:"expectedMonthlyTransactionCount,omitempty"`
	ExpectedMonthlyTransactionVolume *string  `json:"expectedMonthlyTransactionVolume,omitempty"`
	AnnualIncomeRange                *string  `json:"annualIncomeRange,omitempty"`
	NetWorthRange                    *string  `json:"netWorthRange,omitempty"`
	PepStatus                        *string  `json:"pepStatus,omitempty"`
}

// given reports whether in carries any due-diligence member.
func (in Input) givesDiligence() bool {
	return in.SourceOfFundsCategories != nil || in.SourceOfFundsOtherDescription != nil || in.SourceOfWealthCategories != nil ||
		in.SourceOfWealthOtherDescription != nil || in.PurposeOfAccount != nil || in.PurposeOfAccountOtherDescription != nil ||
		in.ExpectedMonthlyTransactionCount != nil || in.ExpectedMonthlyTransactionVolume != nil || in.AnnualIncomeRange != nil ||
		in.NetWorthRange != nil || in.PepStatus != nil
}

// diligenceFields are the names of the due-diligence members of a request, for refusing
// them on a business (which gives its own in businessInfo).
func (in Input) diligenceFields() []string {
	var out []string
	for name, given := range map[string]bool{
		"sourceOfFundsCategories": in.SourceOfFundsCategories != nil, "sourceOfFundsOtherDescription": in.SourceOfFundsOtherDescription != nil,
		"sourceOfWealthCategories": in.SourceOfWealthCategories != nil, "sourceOfWealthOtherDescription": in.SourceOfWealthOtherDescription != nil,
		"purposeOfAccount": in.PurposeOfAccount != nil, "purposeOfAccountOtherDescription": in.PurposeOfAccountOtherDescription != nil,
		"expectedMonthlyTransactionCount": in.ExpectedMonthlyTransactionCount != nil, "expectedMonthlyTransactionVolume": in.ExpectedMonthlyTransactionVolume != nil,
		"annualIncomeRange": in.AnnualIncomeRange != nil, "netWorthRange": in.NetWorthRange != nil, "pepStatus": in.PepStatus != nil,
	} {
		if given {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// checkDiligence checks, into c, the due-diligence members in gives and returns them merged
// over prev (the stored ones of an update; nil for a new customer): each list of known
// categories without repeats, each enum known, each description text, and a description
// given wherever OTHER is chosen. Nil when none is given and none was stored.
func checkDiligence(c *problem.Collect, in Input, prev *DueDiligence) *DueDiligence {
	if !in.givesDiligence() {
		return prev
	}
	out := DueDiligence{}
	if prev != nil {
		out = *prev
	}
	for _, l := range []struct {
		field  string
		v      *[]string
		dst    *[]string
		values []string
	}{{"sourceOfFundsCategories", in.SourceOfFundsCategories, &out.SourceOfFundsCategories, sourceOfFundsCategories},
		{"sourceOfWealthCategories", in.SourceOfWealthCategories, &out.SourceOfWealthCategories, sourceOfWealthCategories}} {
		if l.v == nil {
			continue
		}
		if checkCategories(c, l.field, *l.v, l.values) {
			*l.dst = *l.v
		}
	}
	for _, e := range []struct {
		field  string
		v      *string
		dst    **string
		values []string
	}{{"purposeOfAccount", in.PurposeOfAccount, &out.PurposeOfAccount, purposes},
		{"expectedMonthlyTransactionCount", in.ExpectedMonthlyTransactionCount, &out.ExpectedMonthlyTransactionCount, txCounts},
		{"expectedMonthlyTransactionVolume", in.ExpectedMonthlyTransactionVolume, &out.ExpectedMonthlyTransactionVolume, txVolumes},
		{"annualIncomeRange", in.AnnualIncomeRange, &out.AnnualIncomeRange, annualIncomeRanges},
		{"netWorthRange", in.NetWorthRange, &out.NetWorthRange, netWorthRanges},
		{"pepStatus", in.PepStatus, &out.PepStatus, pepStatuses}} {
		if e.v != nil && c.Add(enumField(e.field, e.v, e.values)) {
			*e.dst = e.v
		}
	}
	for _, d := range []struct {
		field string
		v     *string
		dst   **string
	}{{"sourceOfFundsOtherDescription", in.SourceOfFundsOtherDescription, &out.SourceOfFundsOtherDescription},
		{"sourceOfWealthOtherDescription", in.SourceOfWealthOtherDescription, &out.SourceOfWealthOtherDescription},
		{"purposeOfAccountOtherDescription", in.PurposeOfAccountOtherDescription, &out.PurposeOfAccountOtherDescription}} {
		if d.v != nil && c.Add(textField(d.field, d.v, maxDescription)) {
			*d.dst = d.v
		}
	}
	describeOther(c, "",
		otherChoice{"sourceOfFundsCategories", "sourceOfFundsOtherDescription", slices.Contains(out.SourceOfFundsCategories, "OTHER"), out.SourceOfFundsOtherDescription},
		otherChoice{"sourceOfWealthCategories", "sourceOfWealthOtherDescription", slices.Contains(out.SourceOfWealthCategories, "OTHER"), out.SourceOfWealthOtherDescription},
		otherChoice{"purposeOfAccount", "purposeOfAccountOtherDescription", out.PurposeOfAccount != nil && *out.PurposeOfAccount == "OTHER", out.PurposeOfAccountOtherDescription})
	return &out
}

// otherChoice is a choice of OTHER (other) in field, which describedBy describes.
type otherChoice struct {
	field, describedBy string
	other              bool
	description        *string
}

// describeOther adds, into c, the description each OTHER choice asks for (its members
// under prefix), unless c already refused that description; false when one is missing.
func describeOther(c *problem.Collect, prefix string, choices ...otherChoice) bool {
	ok := true
	for _, o := range choices {
		if o.other && o.description == nil && !c.Has(prefix+o.describedBy) {
			ok = c.Add(problem.Field(prefix+o.describedBy, "%s%s is required when %s%s is OTHER", prefix, o.describedBy, prefix, o.field)) && ok
		}
	}
	return ok
}

// checkCategories checks a list of categories into c: each one of values, none twice, at
// least one.
func checkCategories(c *problem.Collect, field string, list, values []string) bool {
	if len(list) == 0 {
		return c.Add(problem.Field(field, "%s must list at least one of %s", field, strings.Join(values, ", ")))
	}
	ok := true
	for i, v := range list {
		switch {
		case !slices.Contains(values, v):
			ok = c.Add(problem.Field(field, "%s[%d] must be one of %s", field, i, strings.Join(values, ", "))) && ok
		case slices.Index(list, v) != i:
			ok = c.Add(problem.Field(field, "%s lists %s twice", field, v)) && ok
		}
	}
	return ok
}

// DecodeDueDiligence is the one decoder of stored due diligence; nil when there is none.
func DecodeDueDiligence(raw json.RawMessage) (*DueDiligence, error) {
	return decode[DueDiligence](raw, "due diligence")
}
