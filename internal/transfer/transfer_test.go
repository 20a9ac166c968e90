package transfer

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/rail"
	"paycore/internal/sandbox"
	"paycore/internal/sandbox/sandboxrail"
)

// Requests recorded in workflow histories while every id was a string still decode: the
// same uuids, "" for an absent customer; the currency and rail they may carry are ignored.
func TestRequestDecodesRecordedInputs(t *testing.T) {
	recorded := `{"TransactionID":"01a2019e-67ae-77d5-9fd7-67d54e077adf","Kind":"TRANSFER_OUT","PlatformID":"01a2019e-65e0-7939-a3c8-bc82c4ab5c85",` +
		`"CustomerID":"","InternalAccountID":"01a2019e-65fb-7377-a1bb-7c7c45d0388f","ExternalAccountID":"01a2019e-67a4-7040-8b0a-eac8faf15c80",` +
		`"Currency":"USD","Amount":1000,"Description":"","WalletSignature":"01a2019e-6807-7633-a0d8-6a8c851171f3","SlowDelay":1000000000,` +
		`"Rail":{"ExternalIdentifier":"123456789001","Environment":"SANDBOX"}}`
	var r Request
	if err := json.Unmarshal([]byte(recorded), &r); err != nil {
		t.Fatal(err)
	}
	want := Request{TransactionID: uuid.MustParse("01a2019e-67ae-77d5-9fd7-67d54e077adf"), Kind: Out, PlatformID: uuid.MustParse("01a2019e-65e0-7939-a3c8-bc82c4ab5c85"),
		InternalAccountID: uuid.MustParse("01a2019e-65fb-7377-a1bb-7c7c45d0388f"), ExternalAccountID: uuid.MustParse("01a2019e-67a4-7040-8b0a-eac8faf15c80"),
		Amount: 1000, WalletSignature: ids.Some(uuid.MustParse("01a2019e-6807-7633-a0d8-6a8c851171f3")), SlowDelay: time.Second}
	if r != want {
		t.Fatalf("decoded %+v\nwant    %+v", r, want)
	}
}

// A request round-trips through JSON with its ids in their string form.
func TestRequestRoundTrip(t *testing.T) {
	r := Request{TransactionID: uuid.New(), Kind: In, PlatformID: uuid.New(), CustomerID: ids.Some(uuid.New()), InternalAccountID: uuid.New(),
		ExternalAccountID: uuid.New(), Amount: 5, Description: "rent"}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	if m["TransactionID"] != r.TransactionID.String() || m["CustomerID"] != r.CustomerID.UUID.String() {
		t.Fatalf("ids not in their string form: %s", b)
	}
	if _, ok := m["WalletSignature"]; ok {
		t.Fatalf("an absent signature is written: %s", b)
	}
	var back Request
	if err := json.Unmarshal(b, &back); err != nil || back != r {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
}

func TestFinal(t *testing.T) {
	rejected := sandbox.Outcome{Status: catalog.TxRejected, Code: catalog.FailRejectedByBank}
	for _, tc := range []struct {
		kind Kind
		in   sandbox.Outcome
		want catalog.TransactionStatus
	}{
		{Out, sandbox.Outcome{Status: catalog.TxCompleted}, catalog.TxCompleted},
		{In, sandbox.Outcome{Status: catalog.TxCompleted}, catalog.TxCompleted},
		{Out, rejected, catalog.TxFailed},
		{In, rejected, catalog.TxRejected},
		{Out, sandbox.Outcome{Status: catalog.TxFailed, Code: catalog.FailTimedOut}, catalog.TxFailed},
		{In, sandbox.Outcome{Status: catalog.TxExpired}, catalog.TxFailed},
	} {
		if got := tc.kind.Final(tc.in); got.Status != tc.want || got.Code != tc.in.Code {
			t.Errorf("%s %+v: %+v, want %s", tc.kind, tc.in, got, tc.want)
		}
	}
}

// A transfer at its rail: the sandbox rail answers as the external account's suffix
// selects; with no rail configured (production by default) it fails RAIL_UNAVAILABLE.
func TestRailOutcome(t *testing.T) {
	routes, err := rail.ParseRoutes(rail.DefaultRoutes)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := rail.NewRegistry(routes, sandboxrail.Rail{})
	if err != nil {
		t.Fatal(err)
	}
	submit := func(r Rail) rail.Outcome {
		out, err := reg.Submit(context.Background(), r.Instruction("key"), r.Unavailable(), false)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := submit(Rail{ExternalIdentifier: "123456789002", Environment: catalog.Production, Currency: "USD"}); got.Status != catalog.TxFailed || got.Code != catalog.FailRailUnavailable {
		t.Fatalf("production: %+v", got)
	}
	if got := submit(Rail{ExternalIdentifier: "123456789002", Environment: catalog.Sandbox, Currency: "USD"}); got.Code != catalog.FailInsufficientFunds {
		t.Fatalf("sandbox 002: %+v", got)
	}
	if got := submit(Rail{ExternalIdentifier: "123456789001", Environment: catalog.Sandbox}); got.Status != catalog.TxCompleted {
		t.Fatalf("sandbox 001 (a rail recorded without its currency): %+v", got)
	}
}

func TestKindFields(t *testing.T) {
	if Out.InternalField() != "source.accountId" || Out.ExternalField() != "destination.accountId" || Out.Type() != catalog.Outgoing {
		t.Fatal("transfer out fields")
	}
	if In.InternalField() != "destination.accountId" || In.ExternalField() != "source.accountId" || In.Type() != catalog.Incoming {
		t.Fatal("transfer in fields")
	}
}
