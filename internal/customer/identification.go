package customer

import (
	"regexp"
	"strconv"

	"paycore/internal/problem"
)

// Identification is an individual's tax identification (the newer peer document's idType,
// identifier and countryOfIssuance). The identifier is write-only: it is stored sealed and
// never shown.
type Identification struct {
	IDType  string `json:"idType"`
	Country string `json:"countryOfIssuance"`
	// Number is the identifier given by the request being checked, to be sealed; "" when
	// the stored one stands (a Record read back never holds it).
	Number string `json:"-"`
}

// Identification types an individual may give: the US tax numbers of a US account holder.
const (
	IDTypeSSN  = "SSN"
	IDTypeITIN = "ITIN"
)

// idNumberRE is the shape of an SSN or an ITIN: ###-##-####.
var idNumberRE = regexp.MustCompile(`^([0-9]{3})-([0-9]{2})-([0-9]{4})$`)

// checkIdentification checks, into c, the identification members of in and returns the
// identification to store (prev when in gives none). idType and identifier come together;
// countryOfIssuance, US by default, only with them and only US (SSN and ITIN are US-issued).
// EIN and NON_US_TAX_ID, which the peer lists, identify no individual it onboards.
func checkIdentification(c *problem.Collect, in Input, prev *Identification) *Identification {
	if in.IDType == nil && in.Identifier == nil && in.CountryOfIssuance == nil {
		return prev
	}
	switch {
	case in.IDType == nil:
		c.Add(problem.Field("idType", "idType is required with identifier or countryOfIssuance: SSN or ITIN"))
		return nil
	case in.Identifier == nil:
		c.Add(problem.Field("identifier", "identifier is required with idType"))
		return nil
	}
	out := Identification{IDType: *in.IDType, Country: "US", Number: *in.Identifier}
	ok := true
	switch out.IDType {
	case IDTypeSSN, IDTypeITIN:
	case "EIN", "NON_US_TAX_ID":
		ok = c.Add(problem.Field("idType", "idType %s is not accepted for an individual: give an SSN or an ITIN", out.IDType))
	default:
		ok = c.Add(problem.Field("idType", "idType must be SSN or ITIN"))
	}
	if in.CountryOfIssuance != nil && *in.CountryOfIssuance != "US" {
		ok = c.Add(problem.Field("countryOfIssuance", "countryOfIssuance must be US: an SSN or ITIN is issued by the US"))
	}
	if ok && !validIDNumber(out.IDType, out.Number) {
		ok = c.Add(problem.Field("identifier", "identifier is not a valid %s: ###-##-#### with a valid area, group and serial", out.IDType))
	}
	if !ok {
		return nil
	}
	return &out
}

// validIDNumber reports whether n is a number the IRS or the SSA issues as an ITIN or
// SSN: an SSN's area is not 000, 666 or 900–999, its group not 00, its serial not 0000;
// an ITIN's area starts with 9 and its group is 50–65, 70–88, 90–92 or 94–99.
func validIDNumber(idType, n string) bool {
	m := idNumberRE.FindStringSubmatch(n)
	if m == nil {
		return false
	}
	area, _ := strconv.Atoi(m[1])
	group, _ := strconv.Atoi(m[2])
	serial, _ := strconv.Atoi(m[3])
	if idType == IDTypeITIN {
		return area >= 900 && (group >= 50 && group <= 65 || group >= 70 && group <= 88 || group >= 90 && group <= 92 || group >= 94)
	}
	return area != 0 && area != 666 && area < 900 && group != 0 && serial != 0
}
