package walletauth

import (
	"errors"
	"strings"
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/problem"
)

// want describes an expected domain error; the zero value expects none.
type want struct {
	code   catalog.Code
	field  string // for a FieldError
	reason string // for a Refusal
	msg    string // a part of the message
}

// check compares err with w.
func check(t *testing.T, name string, err error, w want) {
	t.Helper()
	if w.code == "" {
		if err != nil {
			t.Fatalf("%s: unexpected error %v", name, err)
		}
		return
	}
	if err == nil {
		t.Fatalf("%s: no error, want %s", name, w.code)
	}
	var fe *problem.FieldError
	var rf *problem.Refusal
	switch {
	case errors.As(err, &fe):
		if fe.Code != w.code || fe.Field != w.field || !strings.Contains(fe.Message, w.msg) {
			t.Fatalf("%s: field error %s %q %q, want %s %q containing %q", name, fe.Code, fe.Field, fe.Message, w.code, w.field, w.msg)
		}
	case errors.As(err, &rf):
		if w.field != "" || rf.Code != w.code || rf.Reason != w.reason || !strings.Contains(rf.Message, w.msg) {
			t.Fatalf("%s: refusal %s reason %q %q, want %s reason %q containing %q", name, rf.Code, rf.Reason, rf.Message, w.code, w.reason, w.msg)
		}
	default:
		t.Fatalf("%s: %T %v is not a domain error", name, err, err)
	}
}

func ptr[T any](v T) *T { return &v }

// asRefusal is err as a Refusal, nil when it is none.
func asRefusal(err error) *problem.Refusal {
	var rf *problem.Refusal
	if errors.As(err, &rf) {
		return rf
	}
	return nil
}
