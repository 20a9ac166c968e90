package lightning

import "time"

// Baseline is where reconciling the ledger with a node starts from: the node's funds and
// what the ledger's LIGHTNING accounts said at one moment.
type Baseline struct {
	NodeSats   int64     `json:"nodeSats"`
	LedgerSats int64     `json:"ledgerSats"`
	RecordedAt time.Time `json:"recordedAt"`
}

// Reconciliation is what comparing a node's funds with the ledger found.
type Reconciliation struct {
	// NodeSats is what the node holds now: its side of its channels (settled, in flight
	// and opening) and its on-chain wallet.
	NodeSats int64 `json:"nodeSats"`
	// LedgerSats is what the LIGHTNING accounts say now: what left the node less what
	// came in, since the ledger began.
	LedgerSats int64    `json:"ledgerSats"`
	Baseline   Baseline `json:"baseline"`
	// ExpectedNodeSats is what the node should hold by the ledger: the baseline's funds
	// less what the ledger posted since.
	ExpectedNodeSats int64 `json:"expectedNodeSats"`
	// DifferenceSats is NodeSats less ExpectedNodeSats: above zero the node holds money the
	// ledger does not account for, below zero the ledger counts money the node lacks.
	DifferenceSats int64 `json:"differenceSats"`
	// RoundingSats is how much difference route fees explain: the ledger rounds each up to
	// the satoshi, so the node may hold up to one more per fee posted since the baseline.
	RoundingSats int64 `json:"roundingSats"`
	// Agree is whether the difference is nothing but that rounding.
	Agree bool `json:"agree"`
	// UnappliedSats is what the ledger holds of what the node received for accounts closed
	// after their invoices were created (the UNAPPLIED accounts): accounted for, waiting for
	// an operator to return it to its payers.
	UnappliedSats int64 `json:"unappliedSats"`
}

// Reconcile compares the node's funds now with what the ledger says now, from the
// baseline; feesSince is how many route fees the ledger posted since it.
func Reconcile(b Baseline, nodeSats, ledgerSats, feesSince int64) Reconciliation {
	expected := b.NodeSats - (ledgerSats - b.LedgerSats)
	diff := nodeSats - expected
	return Reconciliation{NodeSats: nodeSats, LedgerSats: ledgerSats, Baseline: b, ExpectedNodeSats: expected,
		DifferenceSats: diff, RoundingSats: feesSince, Agree: diff >= 0 && diff <= feesSince}
}
