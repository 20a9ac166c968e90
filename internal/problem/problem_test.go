package problem

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"paycore/internal/catalog"
)

func TestWireRoundTrip(t *testing.T) {
	for _, err := range []error{
		FieldCode(catalog.AmountOutOfRange, "amount", "too big").With(map[string]any{"maxAmount": float64(5)}),
		Refuse(catalog.CustomerDeleted, "the customer is deleted"),
		NotFound(catalog.AccountNotFound, "internal account"),
	} {
		w, ok := ToWire(fmt.Errorf("wrapped: %w", err))
		if !ok {
			t.Fatalf("%v: not a domain error", err)
		}
		b, _ := json.Marshal(w)
		var back Wire
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		got := back.Err()
		if got.Error() != err.Error() || CodeOf(got) != CodeOf(err) {
			t.Errorf("round trip: %v (%s), want %v (%s)", got, CodeOf(got), err, CodeOf(err))
		}
		var fe, gfe *FieldError
		if errors.As(err, &fe) != errors.As(got, &gfe) || (fe != nil && (gfe.Field != fe.Field || gfe.Details["maxAmount"] != fe.Details["maxAmount"])) {
			t.Errorf("field error lost: %+v → %+v", fe, gfe)
		}
	}
	if _, ok := ToWire(errors.New("plain")); ok {
		t.Error("a plain error became a domain error")
	}
	if CodeOf(errors.New("plain")) != "" {
		t.Error("a plain error has a code")
	}
}

func TestCredentialExistsNamesEachType(t *testing.T) {
	for typ, want := range map[catalog.CredentialType]catalog.Code{
		catalog.CredentialEmailOTP: catalog.EmailOTPCredentialExists,
		catalog.CredentialPasskey:  catalog.PasskeyCredentialExists,
		catalog.CredentialOAuth:    catalog.OAuthCredentialExists,
	} {
		if got := catalog.CredentialExists(typ); got != want || string(got) != string(typ)+"_CREDENTIAL_ALREADY_EXISTS" {
			t.Errorf("%s: %s", typ, got)
		}
	}
}

func TestRetryAfterSeconds(t *testing.T) {
	for d, want := range map[time.Duration]int{0: 1, time.Millisecond: 1, time.Second: 1, 1500 * time.Millisecond: 2, time.Minute: 60} {
		if got := RetryAfterSeconds(d); got != want {
			t.Errorf("RetryAfterSeconds(%s) = %d, want %d", d, got, want)
		}
	}
	if r := RateLimited(1500*time.Millisecond, "wait %d", 2); r.Code != catalog.RateLimited || r.RetryAfter != 2 || r.Message != "wait 2" {
		t.Fatalf("%+v", r)
	}
}
