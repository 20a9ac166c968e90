package sandbox

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// Every suffix an outcome function treats specially is listed, so the reference page's
// tables (built from the lists) name them all: every unlisted suffix gets the default.
func TestSuffixListsAreComplete(t *testing.T) {
	for i := 0; i < 1000; i++ {
		s := fmt.Sprintf("%03d", i)
		id := "1234567" + s
		if !slices.Contains(TransferSuffixes(), s) && TransferOutcome(id) != TransferOutcome("123456700") {
			t.Errorf("transfer suffix %s has its own outcome but is not in TransferSuffixes", s)
		}
		if !slices.Contains(QuoteSuffixes(), s) && QuoteOutcome(id) != QuoteOutcome("123456700") {
			t.Errorf("quote suffix %s has its own outcome but is not in QuoteSuffixes", s)
		}
		st, invalid := BeneficiaryCheck(id)
		dst, dinvalid := BeneficiaryCheck("123456700")
		if !slices.Contains(BeneficiarySuffixes(), s) && (st != dst || invalid != dinvalid) {
			t.Errorf("beneficiary suffix %s has its own result but is not in BeneficiarySuffixes", s)
		}
	}
	for _, s := range TransferSuffixes() {
		if TransferOutcome("1234567"+s) == TransferOutcome("123456700") {
			t.Errorf("listed transfer suffix %s has the default outcome", s)
		}
	}
	for _, s := range QuoteSuffixes() {
		if QuoteOutcome("1234567"+s) == QuoteOutcome("123456700") {
			t.Errorf("listed quote suffix %s has the default outcome", s)
		}
	}
}

func TestRulesDescribeOutcomes(t *testing.T) {
	transfer := TransferRules(30 * time.Second)
	if len(transfer) != len(TransferSuffixes())+1 || transfer[len(transfer)-1].Effect != "`COMPLETED`" {
		t.Fatalf("transfer rules: %+v", transfer)
	}
	for want, in := range map[string]string{
		"`FAILED` with `failureDetails.code` `INSUFFICIENT_FUNDS` (the bank reported insufficient funds)": transfer[0].Effect,
		"stays pending for 30 s, then `FAILED` with `failureDetails.code` `TIMED_OUT`":                    transfer[3].Effect,
	} {
		if !strings.HasPrefix(in, want) {
			t.Errorf("%q, want it to start with %q", in, want)
		}
	}
	quote := QuoteRules(6*time.Minute, 30*time.Second)
	byValue := map[string]string{}
	for _, r := range quote {
		byValue[r.Value] = r.Effect
	}
	for suffix, want := range map[string]string{
		"002": "`failureReason` `QUOTE_EXECUTION_FAILED`",
		"003": "stays pending for 6 min, then `COMPLETED`",
		"005": "`COMPLETED`, then after 30 s the receiving bank returns it: `FAILED` with `failureDetails.code` `RETURNED_BY_RECEIVING_BANK`",
		"006": "refunded (reason `USER_CANCELLATION`)",
		"007": "and the refund fails too",
	} {
		if !strings.Contains(byValue[suffix], want) {
			t.Errorf("quote %s: %q lacks %q", suffix, byValue[suffix], want)
		}
	}
	beneficiary := BeneficiaryRules()
	if len(beneficiary) != 7 || !strings.Contains(beneficiary[3].Effect, "does not exist") || beneficiary[6].Effect != "`verificationStatus` `MATCHED`" {
		t.Errorf("beneficiary rules: %+v", beneficiary)
	}
	if m := MagicRules(); len(m) != 4 || m[0].Value != "000000" {
		t.Errorf("magic rules: %+v", m)
	}
	if !strings.Contains(FundingRule(), "100000000000") {
		t.Errorf("funding rule: %s", FundingRule())
	}
}

// An identifier is ordinary unless some magic value of the sandbox names it: every suffix
// of every list, and the liveness check's "dead", in any case.
func TestOrdinary(t *testing.T) {
	for _, set := range [][]string{TransferSuffixes(), QuoteSuffixes(), BeneficiarySuffixes()} {
		for _, s := range set {
			if Ordinary("0x4a7c0000000000000000000000000000000" + s) {
				t.Errorf("an address ending in %s is ordinary", s)
			}
		}
	}
	for _, id := range []string{"0x71C7656EC7ab88b098defB751B7401B5f6d8DEAD", "0x71c7656ec7ab88b098defb751b7401b5f6d8dead"} {
		if Ordinary(id) {
			t.Errorf("%s is ordinary", id)
		}
	}
	for _, id := range []string{"0x71C7656EC7ab88b098defB751B7401B5f6d8976F", "000000000999", "$bob@pay.example"} {
		if !Ordinary(id) {
			t.Errorf("%s is not ordinary", id)
		}
	}
}
