package api

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"go.temporal.io/sdk/temporal"

	"paycore/db"
	"paycore/internal/account"
	"paycore/internal/catalog"
	"paycore/internal/problem"
)

// TestErrorOfMapsDomainErrorsOnce checks the one mapping from domain errors to responses,
// including refusals that come back from a workflow update as application errors.
func TestErrorOfMapsDomainErrorsOnce(t *testing.T) {
	field := problem.FieldCode(catalog.AmountOutOfRange, "amount", "amount must be from 1 to 5 USD").With(map[string]any{"minAmount": 1})
	deleted := problem.Refuse(catalog.CustomerDeleted, "the accounts' customer is deleted")
	viaWorkflow := func(err error) error {
		w, _ := problem.ToWire(err)
		return fmt.Errorf("update: %w", temporal.NewNonRetryableApplicationError(w.Message, string(w.Code), nil, w))
	}
	cases := []struct {
		name   string
		err    error
		status int
		code   catalog.Code
		field  string
	}{
		{"field error", field, http.StatusBadRequest, catalog.AmountOutOfRange, "amount"},
		{"refusal", deleted, http.StatusGone, catalog.CustomerDeleted, ""},
		{"not found", problem.NotFound(catalog.AccountNotFound, "internal account"), http.StatusNotFound, catalog.AccountNotFound, ""},
		{"unlisted code is a 400", problem.Refuse(catalog.InsufficientFunds, "low"), http.StatusBadRequest, catalog.InsufficientFunds, ""},
		{"field error from a workflow", viaWorkflow(field), http.StatusBadRequest, catalog.AmountOutOfRange, "amount"},
		{"refusal from a workflow", viaWorkflow(deleted), http.StatusGone, catalog.CustomerDeleted, ""},
		{"refusal from db", fmt.Errorf("close USD account: %w", account.CheckClose(account.Contents{Currency: "USD", Balance: 5})), http.StatusConflict, catalog.AccountNotEmpty, ""},
		{"the ledger's closed account", fmt.Errorf("ledger account: %w", db.ErrAccountClosed), http.StatusBadRequest, catalog.InvalidInput, ""},
	}
	for _, tc := range cases {
		e := errorOf(tc.err)
		if e == nil {
			t.Fatalf("%s: not mapped", tc.name)
		}
		if e.Status != tc.status || e.Code != tc.code {
			t.Errorf("%s: %d %s, want %d %s", tc.name, e.Status, e.Code, tc.status, tc.code)
		}
		if got, _ := e.Details["field"].(string); got != tc.field {
			t.Errorf("%s: details.field %q, want %q", tc.name, got, tc.field)
		}
	}
	if e := errorOf(viaWorkflow(field)); e.Details["minAmount"] == nil {
		t.Errorf("details beside the field were lost: %v", e.Details)
	}
	for _, err := range []error{errors.New("boom"), temporal.NewApplicationError("db down", "SOMETHING")} {
		if e := errorOf(err); e != nil {
			t.Errorf("%v became %+v; internal errors must stay opaque", err, e)
		}
	}
}
