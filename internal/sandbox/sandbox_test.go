package sandbox

import (
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/problem"
)

func TestTransferOutcome(t *testing.T) {
	for id, want := range map[string]Outcome{
		"123456789002":           {Status: "FAILED", Code: "INSUFFICIENT_FUNDS"},
		"DE89370400440532013003": {Status: "FAILED", Code: "ACCOUNT_CLOSED"},
		"000000000004":           {Status: "FAILED", Code: "REJECTED_BY_BANK"},
		"987654321005":           {Status: "FAILED", Code: "TIMED_OUT", Slow: true},
		"name005@upi":            {Status: "FAILED", Code: "TIMED_OUT", Slow: true},
		"123456789001":           {Status: "COMPLETED"},
		"123456789006":           {Status: "FAILED", Code: "COMPLIANCE_REJECTED"},
		"123456789007":           {Status: "FAILED", Code: "LIMIT_EXCEEDED"},
		"123456789008":           {Status: "COMPLETED", Slow: true},
		"123456789009":           {Status: "COMPLETED"},
	} {
		got := TransferOutcome(id)
		if got.Status != want.Status || got.Code != want.Code || got.Slow != want.Slow {
			t.Errorf("%s: %+v, want %+v", id, got, want)
		}
	}
}

func TestMagicOnlyInSandbox(t *testing.T) {
	for _, tc := range []struct {
		magic   Magic
		sandbox bool
		given   string
		want    bool
	}{
		{OTP, true, "000000", true},
		{OTP, false, "000000", false},
		{OTP, true, "000001", false},
		{PasskeySignature, true, "sandbox-valid-passkey-signature", true},
		{PasskeySignature, false, "sandbox-valid-passkey-signature", false},
		{OIDCToken, true, "sandbox-valid-oidc-token", true},
		{OIDCToken, false, "sandbox-valid-oidc-token", false},
		{WalletSignature, true, "sandbox-valid-signature", true},
		{WalletSignature, false, "sandbox-valid-signature", false},
		{WalletSignature, true, "sandbox-valid-passkey-signature", false},
	} {
		if got := tc.magic.Accepts(tc.sandbox, tc.given); got != tc.want {
			t.Errorf("%s.Accepts(sandbox=%v, %q) = %v, want %v", tc.magic, tc.sandbox, tc.given, got, tc.want)
		}
	}
}

func TestCheckFundingAmount(t *testing.T) {
	for _, amount := range []int64{1, 5000, MaxFunding} {
		if err := CheckFundingAmount(amount); err != nil {
			t.Errorf("%d refused: %v", amount, err)
		}
	}
	for _, amount := range []int64{0, -1, MaxFunding + 1} {
		w, ok := problem.ToWire(CheckFundingAmount(amount))
		if !ok || w.Code != catalog.InvalidInput || w.Field != "amount" || w.Message != "amount must be from 1 to 100000000000" {
			t.Errorf("%d: %+v", amount, w)
		}
	}
}

func TestCheckFundingTarget(t *testing.T) {
	for _, tc := range []struct {
		name   string
		target *FundingTarget
		want   *problem.Wire
	}{
		{"active", &FundingTarget{Status: catalog.AccountActive}, nil},
		{"unknown", nil, &problem.Wire{Code: catalog.AccountNotFound, Message: "internal account not found"}},
		{"closed", &FundingTarget{Status: catalog.AccountClosed}, &problem.Wire{Code: catalog.InvalidInput, Message: "the account is CLOSED and cannot receive funds"}},
		{"closed, deleted customer", &FundingTarget{Status: catalog.AccountClosed, CustomerDeleted: true},
			&problem.Wire{Code: catalog.InvalidInput, Message: "the account is CLOSED and cannot receive funds"}},
		{"deleted customer", &FundingTarget{Status: catalog.AccountActive, CustomerDeleted: true}, &problem.Wire{Code: catalog.CustomerDeleted, Message: "the account's customer is deleted"}},
	} {
		err := CheckFundingTarget(tc.target)
		if tc.want == nil {
			if err != nil {
				t.Errorf("%s: refused: %v", tc.name, err)
			}
			continue
		}
		if w, ok := problem.ToWire(err); !ok || w.Code != tc.want.Code || w.Message != tc.want.Message || w.Field != "" {
			t.Errorf("%s: %+v, want %+v", tc.name, w, *tc.want)
		}
	}
}
