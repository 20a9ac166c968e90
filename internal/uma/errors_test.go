package uma

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"paycore/internal/catalog"
	"paycore/internal/money"
	"paycore/internal/platformconfig"
)

// Each refusal carries the protocol's code and status; an error it has no code for is an
// internal error that says nothing of itself.
func TestRefusal(t *testing.T) {
	for err, want := range map[error]string{
		fmt.Errorf("x: %w", ErrBadSignature):           "INVALID_SIGNATURE 401",
		fmt.Errorf("x: %w", ErrNonceUsed):              "INVALID_NONCE 400",
		fmt.Errorf("x: %w", ErrCertChainExpired):       "CERT_CHAIN_EXPIRED 400",
		fmt.Errorf("x: %w", ErrKeysUnavailable):        "COUNTERPARTY_PUBKEY_FETCH_ERROR 424",
		&UnsupportedVersionError{Version: "2.0"}:       "UNSUPPORTED_UMA_VERSION 412",
		ErrUserNotFound:                                "USER_NOT_FOUND 404",
		errors.New("the database is down at 10.0.0.3"): "INTERNAL_ERROR 500",
	} {
		e := Refusal(err)
		if got := fmt.Sprintf("%s %d", e.Code, e.Status); got != want {
			t.Errorf("%v: %s, want %s", err, got, want)
		}
		if e.Code == "INTERNAL_ERROR" && e.Reason != "an unexpected error occurred" {
			t.Errorf("an internal error shows %q", e.Reason)
		}
	}
	for _, tc := range []struct {
		listed, allowed, only, ok bool
	}{{false, false, false, true}, {true, true, false, true}, {true, false, false, false}, {false, false, true, false}, {true, true, true, true}, {true, false, true, false}} {
		err := CheckCounterparty("p.example", tc.listed, tc.allowed, tc.only)
		if (err == nil) != tc.ok || (err != nil && Refusal(err).Code != "COUNTERPARTY_NOT_ALLOWED") {
			t.Errorf("listed %v allowed %v allowlist-only %v: %v", tc.listed, tc.allowed, tc.only, err)
		}
	}
	if b := Refusal(&UnsupportedVersionError{Version: "2.0"}).Body(); fmt.Sprint(b["supportedMajorVersions"]) != "[1]" {
		t.Errorf("412 body %v", b)
	}
	now := time.Unix(1_800_000_000, 0)
	for ts, ok := range map[int64]bool{now.Unix(): true, now.Add(-59 * time.Minute).Unix(): true, now.Add(-61 * time.Minute).Unix(): false,
		now.Add(4 * time.Minute).Unix(): true, now.Add(6 * time.Minute).Unix(): false} {
		if err := CheckTimestamp(ts, now); (err == nil) != ok {
			t.Errorf("timestamp %d: %v", ts-now.Unix(), err)
		}
	}
}

// A receiver is offered in the currencies of its open accounts that its platform takes in,
// at the price of bitcoin in each, within the platform's limits.
func TestReceivingCurrencies(t *testing.T) {
	supported := platformconfig.Currencies{
		{CurrencyCode: "USD", MinAmount: 100, MaxAmount: 1_000_000, EnabledTransactionTypes: []string{"INCOMING", "OUTGOING"}},
		{CurrencyCode: "EUR", MinAmount: 1, MaxAmount: 5, EnabledTransactionTypes: []string{"OUTGOING"}},
		{CurrencyCode: "MXN", MinAmount: 1, MaxAmount: 10, EnabledTransactionTypes: []string{"INCOMING"}},
	}
	price := func(code string) (decimal.Decimal, bool) {
		if code == "USD" {
			return decimal.NewFromInt(100_000), true
		}
		return decimal.Decimal{}, false
	}
	got := ReceivingCurrencies([]string{"USD", "EUR", "MXN", "BRL"}, supported, price)
	if len(got) != 1 || got[0].Code != "USD" || got[0].Multiplier != 10_000 || got[0].Decimals != 2 || got[0].Convertible != (Convertible{100, 1_000_000}) {
		t.Fatalf("currencies %+v", got)
	}
	if lo, hi := Sendable(got); lo != 1000 || hi != 10_000_000_000 {
		t.Errorf("sendable %d..%d", lo, hi)
	}
	if btc, _ := money.Lookup("BTC"); Multiplier(btc, decimal.NewFromInt(1)) != 1000 {
		t.Errorf("BTC's multiplier is %v, want 1000 msats a satoshi", Multiplier(btc, decimal.NewFromInt(1)))
	}
	for s, want := range map[catalog.KycStatus]string{catalog.KycApproved: KycVerified, catalog.KycPending: KycPending, catalog.KycRejected: KycNotVerified, "": KycUnknown} {
		if got := KycStatusOf(s); got != want {
			t.Errorf("%s: %s", s, got)
		}
	}
}

// protocolStatuses are the HTTP statuses the protocol's error catalogue (schemas/errors of
// the UMA protocol repository) gives the codes this service answers.
var protocolStatuses = map[string]int{
	"COUNTERPARTY_PUBKEY_FETCH_ERROR": 424, "INVALID_PUBKEY_FORMAT": 400, "CERT_CHAIN_INVALID": 400, "CERT_CHAIN_EXPIRED": 400,
	"INVALID_SIGNATURE": 401, "INVALID_TIMESTAMP": 400, "INVALID_NONCE": 400, "INTERNAL_ERROR": 500,
	"MISSING_REQUIRED_UMA_PARAMETERS": 400, "UNSUPPORTED_UMA_VERSION": 412, "PARSE_LNURLP_REQUEST_ERROR": 400,
	"USER_NOT_FOUND": 404, "USER_NOT_READY": 403, "REQUEST_NOT_FOUND": 404, "PARSE_PAYREQ_REQUEST_ERROR": 400,
	"AMOUNT_OUT_OF_RANGE": 400, "INVALID_CURRENCY": 400, "SENDER_NOT_ACCEPTED": 400, "MISSING_MANDATORY_PAYER_DATA": 400,
	"UNRECOGNIZED_MANDATORY_PAYEE_DATA_KEY": 501, "PARSE_UTXO_CALLBACK_ERROR": 400, "COUNTERPARTY_NOT_ALLOWED": 403,
	"INVALID_INVOICE": 400, "INVALID_INPUT": 400,
}

// Every refusal the service answers in the protocol's format has the code and status the
// protocol's catalogue gives it.
func TestRefusalsFollowTheProtocolCatalogue(t *testing.T) {
	for _, err := range []error{ErrBadSignature, ErrCertChainExpired, ErrCertChainInvalid, ErrMissingParameters, ErrNotUma,
		ErrInvalidAddress, ErrInvalidTimestamp, ErrNonceUsed, ErrKeysUnavailable, ErrInvalidPubKeyResponse, ErrUserNotFound,
		ErrCounterpartyNotAllowed, ErrInvalidAmount, ErrDecrypt, ErrInvoiceMismatch, ErrInvalidCurrency, ErrSenderNotAccepted,
		ErrMissingPayerData, ErrParsePayRequest, ErrUserNotReady, ErrParseUtxoCallback, ErrRequestNotFound, ErrUnrecognizedPayeeKey,
		&UnsupportedVersionError{Version: "2.0"}, errors.New("anything else")} {
		e := Refusal(fmt.Errorf("x: %w", err))
		want, ok := protocolStatuses[e.Code]
		if !ok || e.Status != want {
			t.Errorf("%v: %s %d; the protocol's catalogue: %d (listed %v)", err, e.Code, e.Status, want, ok)
		}
	}
}
