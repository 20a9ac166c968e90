package workflows

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"paycore/activities"
	"paycore/internal/catalog"
	"paycore/internal/incoming"
	"paycore/internal/quote"
	"paycore/internal/sandbox"
	"paycore/internal/transfer"
)

// ledgerBook stands for a payment's transaction and its hold, as the mocked steps change
// them: what a workflow leaves behind when it ends.
type ledgerBook struct {
	status   catalog.TransactionStatus
	held     bool
	ended    sandbox.Outcome
	finishes int
	// refusing, when set, refuses every finish for good while it answers true.
	refusing func() bool
}

func (b *ledgerBook) final() bool {
	switch b.status {
	case catalog.TxCompleted, catalog.TxFailed, catalog.TxRejected, catalog.TxExpired:
		return true
	}
	return false
}

// settle is a finish step: a finished payment stays as it is; at atFinish it refuses a
// credit (COMPLETED) for good, as the ledger does when the receiving account was closed,
// and at atFirstFinish it refuses its first call whatever it settles. Settling ends the
// hold: captured by a completion, released by a failure.
func (b *ledgerBook) settle(out sandbox.Outcome, at failing) (catalog.TransactionStatus, error) {
	b.finishes++
	if b.final() {
		return b.status, nil
	}
	if at == atFinish && out.Status == catalog.TxCompleted || at == atFirstFinish && b.finishes == 1 || b.refusing != nil && b.refusing() {
		return "", closedForGood()
	}
	// Completed, the hold is captured; failed, it is released.
	b.status, b.ended, b.held = out.Status, out, false
	return b.status, nil
}

// closedForGood is the finish step's error when the ledger refuses to credit a closed
// account (activities.unsettled).
func closedForGood() error {
	return temporal.NewNonRetryableApplicationError("finish: post conversion: the internal account is closed", string(catalog.FailAccountClosed), nil)
}

// refusedForGood is any other step's refusal for good.
func refusedForGood() error {
	return temporal.NewNonRetryableApplicationError("refused for good", string(catalog.InvalidInput), nil)
}

// failing names the step a case refuses for good (always, as a closed account would).
type failing string

const (
	atNothing     failing = ""
	atMark        failing = "mark processing"
	atSubmit      failing = "submit"
	atFinish      failing = "finish"
	atFirstFinish failing = "first finish"
	atAskApproval failing = "ask approval"
)

// Every workflow that owns a payment, with a permanent refusal injected at each step that
// can refuse for good once the payment exists: the workflow never ends with the payment
// unfinished. It ends it (FAILED with its hold released, when it cannot credit) or it is
// still running. An agent's action pays through these same workflows (a transfer or the
// quote's execution) and owns no payment of its own.
func TestNoWorkflowEndsWithItsPaymentUnfinished(t *testing.T) {
	type run func(t *testing.T, env *testsuite.TestWorkflowEnvironment, b *ledgerBook, at failing)
	workflowsUnderTest := map[string]struct {
		run run
		at  []failing
	}{
		"transfer out":               {runTransferAt(transfer.Out), []failing{atNothing, atMark, atSubmit, atFinish, atFirstFinish}},
		"transfer in":                {runTransferAt(transfer.In), []failing{atNothing, atMark, atSubmit, atFinish, atFirstFinish}},
		"quote to an external rail":  {runQuoteAt(false), []failing{atNothing, atSubmit, atFinish}},
		"quote with a wrong deposit": {runMismatchedQuoteAt, []failing{atNothing, atFirstFinish}},
		"UMA between platforms":      {runCounterpartQuoteAt, []failing{atNothing, atAskApproval, atFinish}},
		"incoming UMA payment":       {runIncomingAt, []failing{atNothing, atAskApproval, atFinish}},
		"quote executed immediately": {runQuoteAt(true), []failing{atNothing, atFinish}},
	}
	for name, w := range workflowsUnderTest {
		for _, at := range w.at {
			t.Run(name+"/"+string(at), func(t *testing.T) {
				env := newEnv(t)
				env.SetStartTime(quoteStart)
				env.OnUpsertTypedSearchAttributes(mock.Anything).Return(nil)
				b := &ledgerBook{}
				w.run(t, env, b, at)
				if !env.IsWorkflowCompleted() {
					t.Fatal("the workflow did not run to its end")
				}
				if err := env.GetWorkflowError(); err != nil || !b.final() || b.held {
					t.Fatalf("the workflow ended (error %v) with its payment %q, hold kept %v", err, b.status, b.held)
				}
				if (at == atFinish || at == atFirstFinish) && (b.status != catalog.TxFailed || b.ended.Code != catalog.FailAccountClosed) {
					t.Fatalf("a payment that could not credit its receiver ended %s %+v", b.status, b.ended)
				}
			})
		}
	}
}

func runTransferAt(kind transfer.Kind) func(*testing.T, *testsuite.TestWorkflowEnvironment, *ledgerBook, failing) {
	return func(t *testing.T, env *testsuite.TestWorkflowEnvironment, b *ledgerBook, at failing) {
		in := req
		in.Kind = kind
		var a *activities.Activities
		env.OnActivity(a.CreateTransfer, mock.Anything, in).Return(func(context.Context, transfer.Request) (activities.CreatedTransfer, error) {
			b.status, b.held = catalog.TxPending, kind == transfer.Out
			return created, nil
		})
		env.OnActivity(a.MarkTransferProcessing, mock.Anything, in.TransactionID).Return(func(context.Context, uuid.UUID) (catalog.TransactionStatus, error) {
			if at == atMark {
				return "", refusedForGood()
			}
			b.status = catalog.TxProcessing
			return b.status, nil
		})
		env.OnActivity(a.SubmitTransfer, mock.Anything, in.TransactionID, created.Rail).Return(func(context.Context, uuid.UUID, transfer.Rail) (sandbox.Outcome, error) {
			if at == atSubmit {
				return sandbox.Outcome{}, refusedForGood()
			}
			return sandbox.Outcome{Status: catalog.TxCompleted}, nil
		})
		env.OnActivity(a.FinishTransfer, mock.Anything, in, mock.Anything).Return(func(_ context.Context, _ transfer.Request, out sandbox.Outcome) (catalog.TransactionStatus, error) {
			return b.settle(out, at)
		})
		env.RegisterDelayedCallback(func() {
			env.UpdateWorkflow(UpdateCreate, "c", &testsuite.TestUpdateCallback{OnReject: func(error) {}, OnAccept: func() {}, OnComplete: func(any, error) {}})
		}, 0)
		env.ExecuteWorkflow(Transfer, in)
	}
}

// quoteMocks mocks a quote's create step and its finish (which refuses a credit for good
// when at is atFinish).
func quoteMocks(env *testsuite.TestWorkflowEnvironment, b *ledgerBook, in quote.Request, created activities.CreatedQuote, at failing) {
	var a *activities.Activities
	env.OnActivity(a.CreateQuote, mock.Anything, in).Return(func(context.Context, quote.Request) (activities.CreatedQuote, error) {
		b.status = catalog.TxPending
		return created, nil
	})
	env.OnActivity(activities.ExecuteQuoteActivity, mock.Anything, in.QuoteID, mock.Anything).Return(func(context.Context, uuid.UUID, quote.Execution) (json.RawMessage, error) {
		b.status, b.held = catalog.TxProcessing, true
		return json.RawMessage(`{}`), nil
	})
	env.OnActivity(a.FinishQuote, mock.Anything, in.TransactionID, mock.Anything).Return(func(_ context.Context, _ uuid.UUID, out sandbox.Outcome) (catalog.TransactionStatus, error) {
		return b.settle(out, at)
	})
	env.OnActivity(a.RefundQuote, mock.Anything, in.TransactionID, mock.Anything).Return(nil).Maybe()
}

func runQuoteAt(immediately bool) func(*testing.T, *testsuite.TestWorkflowEnvironment, *ledgerBook, failing) {
	return func(t *testing.T, env *testsuite.TestWorkflowEnvironment, b *ledgerBook, at failing) {
		in := quoteReq
		in.ImmediatelyExecute = immediately
		quoteMocks(env, b, in, quoteCreated, at)
		var a *activities.Activities
		env.OnActivity(a.SubmitQuote, mock.Anything, quoteRail).Return(func(context.Context, quote.Rail) (sandbox.Outcome, error) {
			if at == atSubmit {
				return sandbox.Outcome{}, refusedForGood()
			}
			return sandbox.Outcome{Status: catalog.TxCompleted}, nil
		})
		executeAfter := time.Minute
		if immediately {
			executeAfter = -1
		}
		runQuote(t, env, in, executeAfter, "k")
	}
}

// A REALTIME_FUNDING quote whose deposit differs from its total is finished FAILED at
// once; here its expiry finds the deposit.
func runMismatchedQuoteAt(t *testing.T, env *testsuite.TestWorkflowEnvironment, b *ledgerBook, at failing) {
	quoteMocks(env, b, quoteReq, quoteCreated, at)
	var a *activities.Activities
	env.OnActivity(a.ExpireQuote, mock.Anything, quoteReq.QuoteID).Return(func(context.Context, uuid.UUID) (activities.QuoteState, error) {
		b.status, b.held = catalog.TxProcessing, true
		return activities.QuoteState{Executed: true, Mismatch: true}, nil
	})
	runQuote(t, env, quoteReq, -1, "")
}

// A quote to the UMA address of a customer of another platform of this deployment: its
// child IncomingPayment workflow asks the receiving platform, then the quote's finish
// credits the receiver's account (the case: closed meanwhile).
func runCounterpartQuoteAt(t *testing.T, env *testsuite.TestWorkflowEnvironment, b *ledgerBook, at failing) {
	cp := &quote.Counterpart{TransactionID: uuid.MustParse("0190a000-0000-7000-8000-0000000000c1"), PlatformID: uuid.MustParse("0190a000-0000-7000-8000-0000000000c2"),
		CustomerID: uuid.MustParse("0190a000-0000-7000-8000-0000000000c3"), Currency: "EUR", Amount: 900, SenderUma: "$ada@one.example.com"}
	created := quoteCreated
	created.Rail = quote.Rail{Environment: catalog.Sandbox, Counterpart: cp}
	quoteMocks(env, b, quoteReq, created, at)
	env.RegisterWorkflow(IncomingPayment)
	var a *activities.Activities
	env.OnActivity(a.CreateIncoming, mock.Anything, mock.Anything).Return(incomingCreated, nil)
	env.OnActivity(a.AskApproval, mock.Anything, incomingCreated.EventID, incomingCreated.Receiver).Return(func(context.Context, uuid.UUID, map[string]string) (incoming.Decision, error) {
		if at == atAskApproval {
			return incoming.Decision{}, refusedForGood()
		}
		return incoming.Approve(nil), nil
	})
	runQuote(t, env, quoteReq, time.Minute, "k")
}

// A payment received over UMA from outside: its finish credits the receiver.
func runIncomingAt(t *testing.T, env *testsuite.TestWorkflowEnvironment, b *ledgerBook, at failing) {
	var a *activities.Activities
	env.OnActivity(a.CreateIncoming, mock.Anything, incomingReq).Return(func(context.Context, incoming.Request) (activities.CreatedIncoming, error) {
		b.status = catalog.TxPending
		return incomingCreated, nil
	})
	env.OnActivity(a.AskApproval, mock.Anything, incomingCreated.EventID, incomingCreated.Receiver).Return(func(context.Context, uuid.UUID, map[string]string) (incoming.Decision, error) {
		if at == atAskApproval {
			return incoming.Decision{}, refusedForGood()
		}
		return incoming.Approve(nil), nil
	})
	env.OnActivity(a.FinishIncoming, mock.Anything, incomingReq.TransactionID, mock.Anything, incomingCreated.Receiver).Return(
		func(_ context.Context, _ uuid.UUID, d incoming.Decision, _ map[string]string) (activities.FinishedIncoming, error) {
			status, err := b.settle(d.Outcome(), at)
			return activities.FinishedIncoming{Resource: json.RawMessage(`{}`), Status: status}, err
		})
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(UpdateCreate, "c", &testsuite.TestUpdateCallback{OnReject: func(error) {}, OnAccept: func() {}, OnComplete: func(any, error) {}})
	}, 0)
	env.ExecuteWorkflow(IncomingPayment, incomingReq)
}

// A payment whose failing is refused too is not left behind: its workflow keeps trying on
// a durable timer, and fails it once the ledger takes it.
func TestUnsettledPaymentKeepsTrying(t *testing.T) {
	env := newEnv(t)
	env.SetStartTime(quoteStart)
	env.OnUpsertTypedSearchAttributes(mock.Anything).Return(nil)
	refusing := true
	env.RegisterDelayedCallback(func() { refusing = false }, 3*time.Hour)
	b := &ledgerBook{refusing: func() bool { return refusing }}
	quoteMocks(env, b, quoteReq, quoteCreated, atFinish)
	var a *activities.Activities
	env.OnActivity(a.SubmitQuote, mock.Anything, quoteRail).Return(sandbox.Outcome{Status: catalog.TxCompleted}, nil)
	runQuote(t, env, quoteReq, time.Minute, "k")
	if b.status != catalog.TxFailed || b.held || b.ended.Code != catalog.FailAccountClosed || b.finishes < 5 {
		t.Fatalf("after %d refused finishes the payment is %s %+v, hold kept %v", b.finishes, b.status, b.ended, b.held)
	}
}
