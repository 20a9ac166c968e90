package activities

import (
	"errors"
	"fmt"
	"testing"

	"go.temporal.io/sdk/temporal"

	"paycore/db"
	"paycore/internal/catalog"
)

// The ledger's refusals, wrapped as db operations return them, become non-retryable
// refusals with their codes; other errors stay retryable.
func TestRefusalOfLedgerErrors(t *testing.T) {
	for err, code := range map[error]catalog.Code{
		fmt.Errorf("hold funds: %w", db.ErrInsufficientFunds):       catalog.InsufficientFunds,
		fmt.Errorf("hold funds: %w", db.ErrAccountClosed):           catalog.InvalidInput,
		fmt.Errorf("hold funds: %w", db.ErrWalletSignatureRequired): catalog.WalletSignatureRequired,
	} {
		var app *temporal.ApplicationError
		if got := refusal(err); !errors.As(got, &app) || !app.NonRetryable() || app.Type() != string(code) {
			t.Errorf("%v: %v", err, got)
		}
	}
	plain := errors.New("connection reset")
	if got := refusal(plain); got != plain {
		t.Errorf("a plain error became %v", got)
	}
}
