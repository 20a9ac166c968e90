package platformconfig

import (
	"strings"
	"testing"
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
