package payment

import (
	"reflect"
	"testing"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/events"
	"paycore/internal/ids"
	"paycore/internal/quote"
	"paycore/internal/rail"
)

var (
	src = uuid.MustParse("00000000-0000-0000-0000-0000000000a1")
	dst = uuid.MustParse("00000000-0000-0000-0000-0000000000b2")
)

func out(id uuid.UUID) uuid.NullUUID { return uuid.NullUUID{UUID: id, Valid: true} }

// balanced fails unless every leg's postings sum to zero and no leg holds a negative
// amount on one account without posting it away (conservation per currency).
func balanced(t *testing.T, name string, p Plan) {
	t.Helper()
	for _, l := range p.Legs {
		var sum int64
		for _, m := range l.Moves {
			sum += m.Amount
		}
		if sum != 0 {
			t.Errorf("%s: leg %s sums to %d", name, l.Currency, sum)
		}
	}
}

func TestFinishTransfer(t *testing.T) {
	outgoing := Snapshot{ID: src, Type: catalog.Outgoing, Status: catalog.TxProcessing, Currency: "USD", Amount: 700, Source: out(src)}
	incoming := Snapshot{ID: dst, Type: catalog.Incoming, Status: catalog.TxProcessing, Currency: "USD", Amount: 700, Destination: out(dst)}
	completed := rail.Outcome{Status: catalog.TxCompleted}
	failed := rail.Outcome{Status: catalog.TxFailed, Code: catalog.FailRejectedByBank, Message: "no", FailureReason: "R"}
	cases := map[string]struct {
		s       Snapshot
		out     rail.Outcome
		ok      bool
		legs    []Leg
		status  *StatusChange
		wantErr bool
	}{
		"outgoing completed captures the hold": {s: outgoing, out: completed, ok: true,
			legs:   []Leg{{"USD", []Move{{Internal(src), -700, -700}, {System(Settlement), 700, 0}}}},
			status: &StatusChange{Event: catalog.TxEventComplete, To: catalog.TxCompleted, Settled: true, Webhook: events.OutgoingPaymentCompleted}},
		"outgoing failed releases the hold": {s: outgoing, out: failed, ok: true,
			legs:   []Leg{{"USD", []Move{{Internal(src), 0, -700}}}},
			status: &StatusChange{Event: catalog.TxEventFail, To: catalog.TxFailed, FailureReason: catalog.ReasonAccountCannotReceive, FailureDetail: "REJECTED_BY_BANK: no", Webhook: events.OutgoingPaymentFailed}},
		"incoming completed credits the account": {s: incoming, out: completed, ok: true,
			legs:   []Leg{{"USD", []Move{{System(Settlement), -700, 0}, {Internal(dst), 700, 0}}}},
			status: &StatusChange{Event: catalog.TxEventComplete, To: catalog.TxCompleted, Settled: true, Webhook: events.IncomingPaymentCompleted}},
		"outgoing paid through the node, with a route fee": {s: outgoing, out: rail.Outcome{Status: catalog.TxCompleted, Funds: Lightning, FeeMsat: 1_001}, ok: true,
			legs: []Leg{{"USD", []Move{{Internal(src), -700, -700}, {System(Lightning), 700, 0}}},
				{"USD", []Move{{System(Lightning), 2, 0}, {System(RailFees), -2, 0}}}},
			status: &StatusChange{Event: catalog.TxEventComplete, To: catalog.TxCompleted, Settled: true, Webhook: events.OutgoingPaymentCompleted}},
		"incoming received by the node": {s: incoming, out: rail.Outcome{Status: catalog.TxCompleted, Funds: Lightning}, ok: true,
			legs:   []Leg{{"USD", []Move{{System(Lightning), -700, 0}, {Internal(dst), 700, 0}}}},
			status: &StatusChange{Event: catalog.TxEventComplete, To: catalog.TxCompleted, Settled: true, Webhook: events.IncomingPaymentCompleted}},
		"incoming rejected moves nothing": {s: incoming, out: rail.Outcome{Status: catalog.TxRejected, Code: "X", Message: "m"}, ok: true,
			status: &StatusChange{Event: catalog.TxEventReject, To: catalog.TxRejected, FailureDetail: "X: m", Webhook: events.IncomingPaymentFailed}},
		"ended already":                {s: Snapshot{Type: catalog.Outgoing, Status: catalog.TxCompleted}, out: failed},
		"an outcome that ends nothing": {s: outgoing, out: rail.Outcome{Status: catalog.TxExpired}, wantErr: true},
	}
	for name, c := range cases {
		p, ok, err := c.s.FinishTransfer(c.out)
		if (err != nil) != c.wantErr || ok != c.ok {
			t.Errorf("%s: ok %v err %v", name, ok, err)
			continue
		}
		if !reflect.DeepEqual(p.Legs, c.legs) || !reflect.DeepEqual(p.Status, c.status) {
			t.Errorf("%s:\n legs %+v\n want %+v\n status %+v\n want %+v", name, p.Legs, c.legs, p.Status, c.status)
		}
		balanced(t, name, p)
	}
}

func TestFinishQuote(t *testing.T) {
	conv := &Conversion{ReceivingCurrency: "EUR", ReceivingAmount: 900, Fees: 30}
	fromAccount := Snapshot{ID: src, Type: catalog.Outgoing, Status: catalog.TxProcessing, Currency: "USD", Amount: 1030, Source: out(src), Conversion: conv}
	toAccount := fromAccount
	toAccount.Destination = out(dst)
	deposit := Snapshot{ID: src, Type: catalog.Outgoing, Status: catalog.TxProcessing, Currency: "USD", Amount: 1030, Conversion: conv,
		Deposit: &Deposit{Received: true, Amount: 1030}}
	between := toAccount
	between.Counterpart, between.CounterpartStatus = out(dst), catalog.TxPending
	reserved := fromAccount // the quote reserved 12 for the network's fee
	reserved.Conversion = &Conversion{ReceivingCurrency: "EUR", ReceivingAmount: 900, Fees: 30, NetworkFee: 12}
	elsewhere := fromAccount
	elsewhere.Conversion = &Conversion{ReceivingCurrency: "MXN", ReceivingAmount: 900, Fees: 30, NetworkFee: 70}
	elsewhere.Sent = &Sent{Currency: "BTC", Amount: 7000}
	convertOut := []Leg{
		{"USD", []Move{{Internal(src), -1030, -1030}, {System(FX), 1000, 0}, {System(Fees), 30, 0}}},
		{"EUR", []Move{{System(FX), -900, 0}, {System(Settlement), 900, 0}}},
	}
	convertIn := []Leg{
		{"USD", []Move{{Internal(src), -1030, -1030}, {System(FX), 1000, 0}, {System(Fees), 30, 0}}},
		{"EUR", []Move{{System(FX), -900, 0}, {Internal(dst), 900, 0}}},
	}
	convertDeposit := []Leg{
		{"USD", []Move{{System(Deposits), -1030, -1030}, {System(FX), 1000, 0}, {System(Fees), 30, 0}}},
		{"EUR", []Move{{System(FX), -900, 0}, {System(Settlement), 900, 0}}},
	}
	cases := map[string]struct {
		s           Snapshot
		out         rail.Outcome
		legs        []Leg
		refunds     []RefundChange
		counterpart *StatusChange
	}{
		"completed to the outside": {s: fromAccount, out: rail.Outcome{Status: catalog.TxCompleted}, legs: convertOut},
		"completed to an account":  {s: toAccount, out: rail.Outcome{Status: catalog.TxCompleted}, legs: convertIn},
		"paid out through the node, with a route fee": {s: fromAccount, out: rail.Outcome{Status: catalog.TxCompleted, Funds: Lightning, FeeMsat: 3_000},
			legs: []Leg{convertOut[0], {"EUR", []Move{{System(FX), -900, 0}, {System(Lightning), 900, 0}}},
				{"EUR", []Move{{System(Lightning), 3, 0}, {System(RailFees), -3, 0}}}}},
		"paid out through the node, with a reserved network fee": {s: reserved, out: rail.Outcome{Status: catalog.TxCompleted, Funds: Lightning, FeeMsat: 3_000},
			legs: []Leg{convertOut[0], {"EUR", []Move{{System(FX), -912, 0}, {System(Lightning), 900, 0}, {System(RailFees), 12, 0}}},
				{"EUR", []Move{{System(Lightning), 3, 0}, {System(RailFees), -3, 0}}}}},
		"completed from a deposit": {s: deposit, out: rail.Outcome{Status: catalog.TxCompleted}, legs: convertDeposit},
		// A UMA receiver elsewhere got 900 MXN for 7000 sat its provider converted: the
		// ledger pays out the satoshis the invoice asked, never the receiver's pesos.
		"paid out in satoshis to a receiver elsewhere": {s: elsewhere, out: rail.Outcome{Status: catalog.TxCompleted, Funds: Lightning, FeeMsat: 1_500},
			legs: []Leg{convertOut[0], {"BTC", []Move{{System(FX), -7070, 0}, {System(Lightning), 7000, 0}, {System(RailFees), 70, 0}}},
				{"BTC", []Move{{System(Lightning), 2, 0}, {System(RailFees), -2, 0}}}}},
		"failed before the money left": {s: fromAccount, out: rail.Outcome{Status: catalog.TxFailed, Code: "X"},
			legs: []Leg{{"USD", []Move{{Internal(src), 0, -1030}}}}},
		"a deposit's failure gives it back": {s: deposit, out: rail.Outcome{Status: catalog.TxFailed, Code: "X"},
			legs: []Leg{{"USD", []Move{{System(Deposits), -1030, -1030}, {System(SandboxFunding), 1030, 0}}}}},
		"failed with a refund: the refund releases": {s: fromAccount, out: rail.Outcome{Status: catalog.TxFailed, Code: "X", Refund: "R"},
			refunds: []RefundChange{{Open: "R", Webhook: events.OutgoingPaymentRefundPending}}},
		"failed after the money left": {s: fromAccount, out: rail.Outcome{Status: catalog.TxFailed, Code: "X", PaidOut: true, Refund: "R"}, legs: convertOut,
			refunds: []RefundChange{{Open: "R", Webhook: events.OutgoingPaymentRefundPending}}},
		"between customers, completed": {s: between, out: rail.Outcome{Status: catalog.TxCompleted}, legs: convertIn,
			counterpart: &StatusChange{Event: catalog.TxEventComplete, To: catalog.TxCompleted, Settled: true, Webhook: events.IncomingPaymentCompleted}},
		"between customers, rejected by the receiver": {s: between,
			out:         rail.Outcome{Status: catalog.TxFailed, Code: "R", Message: "m", CounterpartStatus: catalog.TxRejected, CounterpartReason: "CR"},
			legs:        []Leg{{"USD", []Move{{Internal(src), 0, -1030}}}},
			counterpart: &StatusChange{Event: catalog.TxEventReject, To: catalog.TxRejected, FailureReason: "CR", FailureDetail: "R: m", Webhook: events.IncomingPaymentFailed}},
	}
	for name, c := range cases {
		p, ok, err := c.s.FinishQuote(c.out)
		if err != nil || !ok {
			t.Errorf("%s: ok %v err %v", name, ok, err)
			continue
		}
		if !reflect.DeepEqual(p.Legs, c.legs) || !reflect.DeepEqual(p.Refunds, c.refunds) || !reflect.DeepEqual(p.Counterpart, c.counterpart) {
			t.Errorf("%s:\n legs %+v\n want %+v\n refunds %+v counterpart %+v", name, p.Legs, c.legs, p.Refunds, p.Counterpart)
		}
		balanced(t, name, p)
	}
	if _, _, err := (Snapshot{Type: catalog.Outgoing, Status: catalog.TxProcessing, Deposit: &Deposit{}, Conversion: conv}).FinishQuote(rail.Outcome{Status: catalog.TxCompleted}); err == nil {
		t.Error("a deposit-funded payment with no deposit was settled")
	}
}

func TestRefund(t *testing.T) {
	conv := &Conversion{ReceivingCurrency: "EUR", ReceivingAmount: 900, Fees: 30}
	s := Snapshot{Type: catalog.Outgoing, Status: catalog.TxFailed, Currency: "USD", Amount: 1030, Source: out(src), Conversion: conv, RefundStatus: RefundPending}
	if _, ok, _ := (Snapshot{RefundStatus: RefundCompleted}).Refund(false, false); ok {
		t.Error("an ended refund ended again")
	}
	p, _, _ := s.Refund(false, true)
	if len(p.Legs) != 0 || p.Refunds[0].End != RefundFailed {
		t.Errorf("failed refund: %+v", p)
	}
	p, _, _ = s.Refund(false, false)
	if !reflect.DeepEqual(p.Legs, []Leg{{"USD", []Move{{Internal(src), 0, -1030}}}}) || p.Refunds[0].End != RefundCompleted {
		t.Errorf("refund of held money: %+v", p)
	}
	p, _, _ = s.Refund(true, false)
	want := []Leg{
		{"USD", []Move{{Internal(src), 1030, 0}, {System(FX), -1000, 0}, {System(Fees), -30, 0}}},
		{"EUR", []Move{{System(FX), 900, 0}, {System(Settlement), -900, 0}}},
	}
	if !reflect.DeepEqual(p.Legs, want) {
		t.Errorf("refund of paid-out money:\n %+v\n %+v", p.Legs, want)
	}
	balanced(t, "paid out", p)
	r := s
	r.Conversion = &Conversion{ReceivingCurrency: "EUR", ReceivingAmount: 900, Fees: 30, NetworkFee: 12}
	p, _, _ = r.Refund(true, false)
	want[1] = Leg{"EUR", []Move{{System(FX), 912, 0}, {System(Settlement), -900, 0}, {System(RailFees), -12, 0}}}
	if !reflect.DeepEqual(p.Legs, want) {
		t.Errorf("refund of paid-out money with a reserved network fee:\n %+v\n %+v", p.Legs, want)
	}
	balanced(t, "paid out, network fee", p)
	d := s
	d.Source, d.Deposit = uuid.NullUUID{}, &Deposit{Received: true, Amount: 1030}
	p, _, _ = d.Refund(true, false)
	if p.Legs[0].Moves[0].Account != System(SandboxFunding) {
		t.Errorf("a deposit's refund goes back to %+v", p.Legs[0].Moves[0].Account)
	}
	balanced(t, "deposit", p)
}

func TestQuoteTriggers(t *testing.T) {
	s := Snapshot{Type: catalog.Outgoing, Status: catalog.TxPending, Currency: "USD", Amount: 500, Source: out(src)}
	sig := ids.Optional{UUID: dst, Valid: true}
	p, err := s.ExecuteQuote("k", sig, ids.Optional{})
	if err != nil || p.Hold == nil || p.Hold.Account != src || p.Hold.Amount != 500 || p.Hold.WalletSignature != sig ||
		p.Quote.ExecuteKey != "k" || p.Status.To != catalog.TxProcessing || p.Status.Webhook != events.OutgoingPaymentProcessing {
		t.Errorf("execute: %+v %v", p, err)
	}
	if _, err := (Snapshot{Status: catalog.TxExpired}).ExecuteQuote("k", sig, ids.Optional{}); err == nil {
		t.Error("an expired payment was executed")
	}

	onTime, err := s.FundQuote(quote.Deposit{Amount: 500, Key: "d"}, false)
	if err != nil || onTime.Quote.ExecuteKey != DepositKey || !onTime.Quote.Deposit || onTime.Status.To != catalog.TxProcessing ||
		!reflect.DeepEqual(onTime.Legs, []Leg{{"USD", []Move{{System(SandboxFunding), -500, 0}, {System(Deposits), 500, 500}}}}) {
		t.Errorf("deposit on time: %+v %v", onTime, err)
	}
	late, err := s.FundQuote(quote.Deposit{Amount: 500, Key: "d"}, true)
	if err != nil || late.Quote.ExecuteKey != "" || late.Status == nil || late.Status.To != catalog.TxExpired || len(late.Refunds) != 2 ||
		late.Refunds[0].Open == "" || late.Refunds[1].End != RefundCompleted {
		t.Errorf("late deposit: %+v %v", late, err)
	}
	balanced(t, "late", late)
	expired := s
	expired.Status = catalog.TxExpired
	if late, _ := expired.FundQuote(quote.Deposit{Amount: 500, Key: "d"}, true); late.Status != nil || len(late.Refunds) != 2 {
		t.Errorf("late deposit after the timer: %+v", late)
	}

	if c, ok := s.Expire(); !ok || c.To != catalog.TxExpired || c.FailureReason == "" || c.Webhook != events.OutgoingPaymentExpired {
		t.Errorf("expire: %+v", c)
	}
	if _, ok := expired.Expire(); ok {
		t.Error("expired twice")
	}
	if p, ok := s.MarkProcessing(); !ok || p.Status.Webhook != events.OutgoingPaymentProcessing {
		t.Errorf("processing: %+v", p)
	}
	in := Snapshot{Type: catalog.Incoming, Status: catalog.TxPending}
	if p, ok := in.MarkProcessing(); !ok || p.Status.Webhook != "" {
		t.Errorf("incoming processing: %+v", p)
	}
	if _, ok := expired.MarkProcessing(); ok {
		t.Error("an expired payment went to processing")
	}
}

func TestReturn(t *testing.T) {
	s := Snapshot{Type: catalog.Outgoing, Status: catalog.TxCompleted}
	p, ok, err := s.Return(rail.Outcome{Status: catalog.TxFailed, Code: "RETURNED", Message: "m", Refund: "RETURN"})
	if err != nil || !ok || p.Status.Event != catalog.TxEventReturn || p.Status.Webhook != events.OutgoingPaymentFailed || p.Refunds[0].Open != "RETURN" {
		t.Errorf("return: %+v %v %v", p, ok, err)
	}
	s.Status = catalog.TxFailed
	if _, ok, _ := s.Return(rail.Outcome{Status: catalog.TxFailed}); ok {
		t.Error("returned twice")
	}
}

// A finish the ledger refused for a closed account is decided again: an incoming payment
// fails ACCOUNT_CLOSED crediting nothing, with the receiver's details; an outgoing one's
// refusal stands. A refund of paid-out money fails; one of held money's refusal stands.
func TestRefusedByAClosedAccount(t *testing.T) {
	in := Snapshot{Type: catalog.Incoming, Status: catalog.TxPending, Currency: "USD", Amount: 700, Destination: out(dst)}
	who := map[string]string{"FULL_NAME": "Ada"}
	p, ok, err := in.FinishIncoming(rail.Outcome{Status: catalog.TxCompleted}, who)
	if err != nil || !ok || !reflect.DeepEqual(p.ReceiverInfo, who) || len(p.Legs) != 1 {
		t.Errorf("approved: %+v %v %v", p, ok, err)
	}
	p, ok, err = in.CreditRefused(rail.Outcome{Status: catalog.TxCompleted}, who)
	if err != nil || !ok || len(p.Legs) != 0 || p.Status.To != catalog.TxFailed || p.Status.FailureDetail[:len(catalog.FailAccountClosed)] != string(catalog.FailAccountClosed) ||
		!reflect.DeepEqual(p.ReceiverInfo, who) {
		t.Errorf("incoming to a closed account: %+v %v %v", p, ok, err)
	}
	if _, ok, _ := (Snapshot{Type: catalog.Outgoing, Status: catalog.TxProcessing}).CreditRefused(rail.Outcome{}, nil); ok {
		t.Error("an outgoing payment's refusal was decided again")
	}
	refund := Snapshot{Type: catalog.Outgoing, Status: catalog.TxFailed, Currency: "USD", Amount: 10, Source: out(src), RefundStatus: RefundPending,
		Conversion: &Conversion{ReceivingCurrency: "EUR", ReceivingAmount: 9, Fees: 1}}
	if p, ok, _ := refund.RefundRefused(true); !ok || len(p.Legs) != 0 || p.Refunds[0].End != RefundFailed {
		t.Errorf("paid-out refund to a closed source: %+v", p)
	}
	if _, ok, _ := refund.RefundRefused(false); ok {
		t.Error("a held refund's refusal was decided again")
	}
}

// A payment a rail collected in another currency (a UMA payment received in USD, paid in
// satoshis by an invoice of the deployment's node) takes what the rail received from its
// funds to FX, and FX pays the locked amount to the destination; in the same currency, FX
// keeps what was paid above the amount. One whose account was closed since holds what was
// received on UNAPPLIED, crediting nothing; one that failed unpaid moves nothing.
func TestCollectedIncoming(t *testing.T) {
	usd := Snapshot{Type: catalog.Incoming, Status: catalog.TxPending, Currency: "USD", Amount: 1000, Destination: out(dst), Sent: &Sent{Currency: "BTC", Amount: 10_005}}
	btc := Snapshot{Type: catalog.Incoming, Status: catalog.TxPending, Currency: "BTC", Amount: 600, Destination: out(dst), Sent: &Sent{Currency: "BTC", Amount: 600}}
	paid := func(sats int64) rail.Outcome {
		return rail.Outcome{Status: catalog.TxCompleted, Funds: Lightning, Collected: sats}
	}
	for name, tc := range map[string]struct {
		s    Snapshot
		out  rail.Outcome
		want []Leg
	}{
		"converted": {usd, paid(10_005), []Leg{
			{Currency: "BTC", Moves: []Move{{Account: System(Lightning), Amount: -10_005}, {Account: System(FX), Amount: 10_005}}},
			{Currency: "USD", Moves: []Move{{Account: System(FX), Amount: -1000}, {Account: Internal(dst), Amount: 1000}}}}},
		"converted, overpaid": {usd, paid(11_000), []Leg{
			{Currency: "BTC", Moves: []Move{{Account: System(Lightning), Amount: -11_000}, {Account: System(FX), Amount: 11_000}}},
			{Currency: "USD", Moves: []Move{{Account: System(FX), Amount: -1000}, {Account: Internal(dst), Amount: 1000}}}}},
		"in bitcoin": {btc, paid(600), []Leg{{Currency: "BTC", Moves: []Move{{Account: System(Lightning), Amount: -600}, {Account: Internal(dst), Amount: 600}}}}},
		"in bitcoin, overpaid": {btc, paid(650), []Leg{{Currency: "BTC", Moves: []Move{{Account: System(Lightning), Amount: -650}, {Account: Internal(dst), Amount: 600},
			{Account: System(FX), Amount: 50}}}}},
		"unpaid": {usd, rail.Outcome{Status: catalog.TxFailed, Code: catalog.FailQuoteExpired, FailureReason: "QUOTE_EXPIRED"}, nil},
	} {
		p, ok, err := tc.s.FinishIncoming(tc.out, nil)
		if err != nil || !ok || !reflect.DeepEqual(p.Legs, tc.want) {
			t.Errorf("%s: %+v %v %v, want legs %+v", name, p.Legs, ok, err, tc.want)
		}
		balanced(t, name, p)
	}
	p, ok, err := usd.CreditRefused(paid(10_005), nil)
	want := []Leg{{Currency: "BTC", Moves: []Move{{Account: System(Lightning), Amount: -10_005}, {Account: System(Unapplied), Amount: 10_005}}}}
	if err != nil || !ok || p.Status.To != catalog.TxFailed || !reflect.DeepEqual(p.Legs, want) {
		t.Errorf("collected for a closed account: %+v %v %v", p, ok, err)
	}
}

// A platform's fee is paid to its own account with the conversion, out of the fees; a
// refund of paid-out money takes it back from the platform as far as its account has it,
// the deployment's fees account advancing the rest.
func TestPlatformFeeLegs(t *testing.T) {
	platform := uuid.MustParse("00000000-0000-0000-0000-0000000000c3")
	s := Snapshot{Type: catalog.Outgoing, Status: catalog.TxProcessing, Currency: "USD", Amount: 1030, Source: out(src),
		Conversion: &Conversion{ReceivingCurrency: "EUR", ReceivingAmount: 900, Fees: 30, PlatformFees: 20, PlatformAccount: platform}}
	p, _, err := s.FinishQuote(rail.Outcome{Status: catalog.TxCompleted})
	if err != nil {
		t.Fatal(err)
	}
	want := []Leg{
		{"USD", []Move{{Internal(src), -1030, -1030}, {System(FX), 1000, 0}, {System(Fees), 10, 0}, {Internal(platform), 20, 0}}},
		{"EUR", []Move{{System(FX), -900, 0}, {System(Settlement), 900, 0}}},
	}
	if !reflect.DeepEqual(p.Legs, want) {
		t.Fatalf("completed:\n %+v\n %+v", p.Legs, want)
	}
	balanced(t, "completed", p)
	failed := s
	failed.Status, failed.RefundStatus = catalog.TxFailed, RefundPending
	for _, c := range []struct {
		available     int64
		fees, account int64
	}{{100, -10, -20}, {20, -10, -20}, {5, -25, -5}, {0, -30, 0}, {-3, -30, 0}} {
		f := failed
		conv := *s.Conversion
		conv.PlatformAvailable = c.available
		f.Conversion = &conv
		p, _, err := f.Refund(true, false)
		if err != nil {
			t.Fatal(err)
		}
		want := []Move{{Internal(src), 1030, 0}, {System(FX), -1000, 0}, {System(Fees), c.fees, 0}}
		if c.account != 0 {
			want = append(want, Move{Internal(platform), c.account, 0})
		}
		if !reflect.DeepEqual(p.Legs[0].Moves, want) {
			t.Errorf("refund with %d available:\n %+v\n %+v", c.available, p.Legs[0].Moves, want)
		}
		balanced(t, "refund", p)
	}
	// Money never paid out pays no fee: the hold is released whole.
	p, _, _ = s.FinishQuote(rail.Outcome{Status: catalog.TxFailed, Code: "X"})
	if !reflect.DeepEqual(p.Legs, []Leg{{"USD", []Move{{Internal(src), 0, -1030}}}}) {
		t.Fatalf("failed before the money left: %+v", p.Legs)
	}
}
