package apitoken

import (
	"reflect"
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/problem"
	"paycore/internal/problem/problemtest"
)

func TestCheckRevoke(t *testing.T) {
	last := problem.Wire{Code: catalog.InvalidInput, Message: "this is the platform's last API token; create another token before deleting it"}
	for _, tc := range []struct {
		active int64
		want   problem.Wire
	}{
		{0, last}, // no active token: nothing to keep, yet never the last one deleted
		{1, last},
		{2, problem.Wire{}},
		{10, problem.Wire{}},
	} {
		var got problem.Wire
		if err := CheckRevoke(tc.active); err != nil {
			var ok bool
			if got, ok = problem.ToWire(err); !ok {
				t.Fatalf("CheckRevoke(%d) = %v, want a refusal", tc.active, err)
			}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("CheckRevoke(%d) = %+v, want %+v", tc.active, got, tc.want)
		}
	}
}

func TestErrNotFound(t *testing.T) {
	w, _ := problem.ToWire(ErrNotFound())
	if want := (problem.Wire{Code: catalog.TokenNotFound, Message: "token not found"}); !reflect.DeepEqual(w, want) {
		t.Errorf("ErrNotFound() = %+v, want %+v", w, want)
	}
}

// A token creates tokens with the permissions it holds, not one more; the refusal names the
// first it lacks, as the API answered it when it built it itself.
func TestCheckMint(t *testing.T) {
	held := []string{"VIEW", "TRANSACT"}
	for _, ok := range [][]string{nil, {"VIEW"}, {"TRANSACT", "VIEW"}} {
		if err := CheckMint(held, ok); err != nil {
			t.Errorf("%v: %v", ok, err)
		}
	}
	problemtest.Check(t, problemtest.Case{Name: "lacks MANAGE", Err: CheckMint(held, []string{"VIEW", "MANAGE"}), Want: problem.Wire{Code: catalog.Forbidden,
		Message: "this API token lacks the MANAGE permission, so it cannot create a token that has it",
		Details: map[string]any{"field": "permissions", "permission": "MANAGE"}}})
}
