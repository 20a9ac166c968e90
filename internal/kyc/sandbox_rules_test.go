package kyc

import (
	"fmt"
	"slices"
	"testing"
)

// Every suffix SandboxOutcome treats specially is listed (the reference page's table is
// built from the list), and the rules say what each leads to.
func TestSandboxRulesAreComplete(t *testing.T) {
	def := SandboxOutcome("Jo Example")
	for i := 0; i < 1000; i++ {
		s := fmt.Sprintf("%03d", i)
		if got := SandboxOutcome("Jo " + s); !slices.Contains(SandboxSuffixes(), s) && got != def {
			t.Errorf("suffix %s gives %s but is not in SandboxSuffixes", s, got)
		}
	}
	want := []SandboxRule{{"001", "PENDING"}, {"002", "REJECTED"}, {"003", "HOLD"}, {"any other", "APPROVED"}}
	if got := SandboxRules(); !slices.Equal(got, want) {
		t.Errorf("rules %+v, want %+v", got, want)
	}
}
