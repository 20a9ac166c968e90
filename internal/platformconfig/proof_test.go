package platformconfig

import (
	"strings"
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/problem"
	"paycore/internal/problem/problemtest"
)

// A domain proves itself by publishing its token, white space around it allowed; anything
// else does not.
func TestCheckProof(t *testing.T) {
	token := NewProofToken()
	if !strings.HasPrefix(token, "uma-domain-proof=") || len(token) != len("uma-domain-proof=")+48 || token == NewProofToken() {
		t.Fatalf("token %q", token)
	}
	for body, ok := range map[string]bool{token: true, token + "\n": true, "  " + token + "\r\n": true, "": false, token[:20]: false,
		token + "x": false, "<html>" + token + "</html>": false} {
		if err := CheckProof([]byte(body), token); (err == nil) != ok {
			t.Errorf("%q: %v", body, err)
		}
	}
}

// The refusal of an unproven domain is answered byte for byte as the API answered it when
// it built it itself.
func TestDomainNotProven(t *testing.T) {
	problemtest.Check(t, problemtest.Case{Name: "DomainNotProven", Err: DomainNotProven("https://pay.example"+ProofPath, ErrProofMismatch),
		Want: problem.Wire{Code: catalog.UmaDomainNotProven, Message: "https://pay.example/.well-known/uma-domain-proof does not prove the domain: the domain does not publish its token",
			Details: map[string]any{"field": "umaDomain"}}})
}
