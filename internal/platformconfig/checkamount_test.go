package platformconfig

import (
	"encoding/json"
	"errors"
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/problem"
)

func TestCheckAmount(t *testing.T) {
	cur, err := DecodeCurrencies(json.RawMessage(`[{"currencyCode":"USD","minAmount":100,"maxAmount":5000,"enabledTransactionTypes":["OUTGOING"]}]`))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		currency string
		txType   catalog.TransactionType
		amount   int64
		code     catalog.Code
		field    string
	}{
		{"within range", "USD", catalog.Outgoing, 100, "", ""},
		{"upper bound", "USD", catalog.Outgoing, 5000, "", ""},
		{"below min", "USD", catalog.Outgoing, 99, catalog.AmountOutOfRange, "amount"},
		{"above max", "USD", catalog.Outgoing, 5001, catalog.AmountOutOfRange, "amount"},
		{"type not enabled", "USD", catalog.Incoming, 200, catalog.InvalidInput, ""},
		{"unsupported currency", "EUR", catalog.Outgoing, 200, catalog.InvalidInput, ""},
	}
	for _, tc := range cases {
		err := cur.CheckAmount(tc.currency, tc.txType, tc.amount)
		if got := problem.CodeOf(err); got != tc.code {
			t.Errorf("%s: code %q, want %q (%v)", tc.name, got, tc.code, err)
		}
		var fe *problem.FieldError
		if errors.As(err, &fe) != (tc.field != "") || (fe != nil && fe.Field != tc.field) {
			t.Errorf("%s: field error %+v, want field %q", tc.name, fe, tc.field)
		}
		if tc.code == catalog.AmountOutOfRange && (fe.Details["minAmount"] != int64(100) || fe.Details["maxAmount"] != int64(5000)) {
			t.Errorf("%s: details %v", tc.name, fe.Details)
		}
	}
}

func TestDecodersRefuseBadDocuments(t *testing.T) {
	if _, err := DecodeCurrencies(json.RawMessage(`{"currencyCode":"USD"}`)); err == nil {
		t.Error("a currencies document that is not a list decoded")
	}
	if _, err := DecodeWallet(json.RawMessage(`{"otpLength":"six"}`)); err == nil {
		t.Error("a wallet config with a wrong member type decoded")
	}
	w, err := DecodeWallet(json.RawMessage(`null`))
	if err != nil || w != nil {
		t.Errorf("null wallet config: %v, %v", w, err)
	}
	w, err = DecodeWallet(json.RawMessage(`{"otpLength":8}`))
	if err != nil || w == nil || *w.OtpLength != 8 {
		t.Errorf("wallet config: %+v, %v", w, err)
	}
}
