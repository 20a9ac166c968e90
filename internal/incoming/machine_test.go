package incoming

import (
	"encoding/json"
	"testing"

	"paycore/internal/catalog"
	"paycore/internal/platformconfig"
	"paycore/internal/problem"
)

var allStages = []Stage{StageCreated, StageAsking, StageAwaiting, StageDecided, StageFinished}

// A call is taken only while the platform's 202 is being awaited, held while it is being
// asked, and refused with the catalogue's code in every other stage.
func TestCall(t *testing.T) {
	cases := map[Stage]struct {
		next Stage
		wait bool
		code catalog.Code
	}{
		StageCreated:  {StageCreated, false, catalog.TransactionNotPendingApproval},
		StageAsking:   {StageAsking, true, ""},
		StageAwaiting: {StageDecided, false, ""},
		StageDecided:  {StageDecided, false, catalog.TransactionNotPendingApproval},
		StageFinished: {StageFinished, false, catalog.TransactionNotPendingApproval},
	}
	for _, s := range allStages {
		next, wait, err := Call(s)
		want := cases[s]
		if next != want.next || wait != want.wait || problem.CodeOf(err) != want.code {
			t.Errorf("%s: %s %v %v; want %+v", s, next, wait, err, want)
		}
	}
}

// The deadline decides only a payment still awaiting a call: it fails, timed out.
func TestTimeout(t *testing.T) {
	for _, s := range allStages {
		next, d, ok := Timeout(s)
		if s == StageAwaiting {
			if !ok || next != StageDecided || d.Status != catalog.TxFailed || d.Reason != ReasonTimedOut || d.Code != catalog.FailTimedOut {
				t.Errorf("%s: %s %+v %v", s, next, d, ok)
			}
		} else if ok || next != s || d.Status != "" || d.Approved {
			t.Errorf("%s: %s %+v %v", s, next, d, ok)
		}
	}
}

// A 202 leaves the payment awaiting a call; every other answer decides it.
func TestAnswered(t *testing.T) {
	cases := map[string]struct {
		d    Decision
		want Stage
	}{
		"202":        {Decision{Pending: true}, StageAwaiting},
		"approved":   {Approve(nil), StageDecided},
		"rejected":   {Reject("no"), StageDecided},
		"failed":     {WebhookError("down"), StageDecided},
		"compliance": {ComplianceFailure(), StageDecided},
	}
	for name, tc := range cases {
		if got := Answered(tc.d); got != tc.want {
			t.Errorf("%s: %s, want %s", name, got, tc.want)
		}
	}
}

// A stored transaction may await a call only as a PENDING incoming UMA payment.
func TestCheckCall(t *testing.T) {
	for _, kind := range []string{Kind, "TRANSFER_IN", "TRANSFER_OUT", "QUOTE"} {
		for _, s := range catalog.TransactionStatuses {
			err := CheckCall(kind, s)
			want := catalog.TransactionNotPendingApproval
			if kind == Kind && s == catalog.TxPending {
				want = ""
			}
			if problem.CodeOf(err) != want {
				t.Errorf("%s %s: %v", kind, s, err)
			}
		}
	}
}

// The decision's outcome ends the transaction by the status table: approved COMPLETE,
// rejected REJECT, every failure FAIL; each is allowed from PENDING, the status of a
// payment awaiting its decision.
func TestDecisionEndsThroughTheTable(t *testing.T) {
	cases := map[string]struct {
		d     Decision
		event catalog.TransactionEvent
	}{
		"approved":   {Approve(map[string]string{"FULL_NAME": "Ada"}), catalog.TxEventComplete},
		"rejected":   {Reject("no"), catalog.TxEventReject},
		"timed out":  {TimedOut(), catalog.TxEventFail},
		"webhook":    {WebhookError("down"), catalog.TxEventFail},
		"compliance": {ComplianceFailure(), catalog.TxEventFail},
		"payee":      {ApproveWith(nil, nil), catalog.TxEventFail},
		"unsettled":  {Unsettled(catalog.FailAccountClosed), catalog.TxEventFail},
	}
	for name, tc := range cases {
		out := tc.d.Outcome()
		e, ok := catalog.TransactionEndEvent(out.Status)
		if !ok || e != tc.event {
			t.Errorf("%s: %s ends by %q", name, out.Status, e)
			continue
		}
		if to, err := catalog.TransactionChange(catalog.TxPending, e); err != nil || to != out.Status {
			t.Errorf("%s: PENDING on %s: %s %v", name, e, to, err)
		}
	}
}

// The create rule refuses, in order, a sender speaking for another's address, a missing
// or deleted receiver, one without an ACTIVE account in the currency, and an amount the
// platform does not take.
func TestCheckCreate(t *testing.T) {
	cur, err := platformconfig.DecodeCurrencies(json.RawMessage(`[{"currencyCode":"USD","minAmount":100,"maxAmount":5000,"enabledTransactionTypes":["INCOMING"]}]`))
	if err != nil {
		t.Fatal(err)
	}
	r := Request{Sender: Counterparty{Address: "$bob@other.example"}, Currency: "USD", Amount: 500}
	ok := Receiver{HasAccount: true, AccountStatus: catalog.AccountActive, Currencies: cur}
	with := func(f func(*Receiver)) *Receiver { rc := ok; f(&rc); return &rc }
	cases := map[string]struct {
		r     Request
		home  SenderHome
		rc    *Receiver
		code  catalog.Code
		field string
	}{
		"accepted":             {r, SenderHome{}, &ok, "", ""},
		"sender a customer":    {r, SenderHome{Held: true, Customer: true}, &ok, "", ""},
		"sender not customer":  {r, SenderHome{Held: true}, nil, catalog.UmaSenderNotCustomer, ""},
		"no receiver":          {r, SenderHome{}, nil, catalog.UserNotFound, ""},
		"receiver deleted":     {r, SenderHome{}, with(func(rc *Receiver) { rc.Deleted, rc.HasAccount = true, false }), catalog.CustomerDeleted, ""},
		"no account":           {r, SenderHome{}, with(func(rc *Receiver) { rc.HasAccount = false }), catalog.InvalidCurrency, "receivingCurrencyCode"},
		"account frozen":       {r, SenderHome{}, with(func(rc *Receiver) { rc.AccountStatus = catalog.AccountFrozen }), catalog.InvalidInput, "receivingCurrencyCode"},
		"amount out of range":  {Request{Sender: r.Sender, Currency: "USD", Amount: 9000}, SenderHome{}, &ok, catalog.AmountOutOfRange, ""},
		"currency not enabled": {Request{Sender: r.Sender, Currency: "EUR", Amount: 500}, SenderHome{}, &ok, catalog.InvalidInput, ""},
	}
	for name, tc := range cases {
		err := CheckCreate(tc.r, tc.home, tc.rc)
		if problem.CodeOf(err) != tc.code {
			t.Errorf("%s: %v, want %s", name, err, tc.code)
		}
		if tc.field != "" {
			if fe, isField := err.(*problem.FieldError); !isField || fe.Field != tc.field {
				t.Errorf("%s: %v is not about %s", name, err, tc.field)
			}
		}
	}
}
