package kyc

// SandboxSuffixes are the last three characters SandboxOutcome treats specially; every
// other value is APPROVED.
func SandboxSuffixes() []string { return []string{"001", "002", "003"} }

// SandboxSubjects says which value's suffix decides each sandbox verification (see Decide
// and OwnerOutcome), in one line of Markdown.
const SandboxSubjects = "an individual's `fullName` decides its KYC, a business's `businessInfo.registrationNumber` its KYB " +
	"(once every beneficial owner is decided: a rejected owner rejects the business, one in review sends it to review), " +
	"and a beneficial owner's `personalInfo.lastName` its KYC"

// SandboxRule is one suffix of the sandbox's verification and the status it leads to.
type SandboxRule struct {
	Suffix string
	Status string
}

// SandboxRules lists SandboxOutcome suffix by suffix, the last rule being every other
// value ("any other").
func SandboxRules() []SandboxRule {
	var out []SandboxRule
	for _, s := range SandboxSuffixes() {
		out = append(out, SandboxRule{Suffix: s, Status: string(SandboxOutcome("Jo Example " + s))})
	}
	return append(out, SandboxRule{Suffix: "any other", Status: string(SandboxOutcome("Jo Example"))})
}
