package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/agent"
	"paycore/internal/agentpolicy"
	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/money"
	"paycore/internal/problem"
	"paycore/internal/quote"
	"paycore/internal/rail"
	"paycore/internal/transfer"
)

// Payments makes the payments agent actions execute, through the payments' own workflows
// (workflows/start implements it): the same rules and steps as a platform's requests.
type Payments interface {
	// Transfer starts (or joins) a transfer's workflow and waits for its create step: nil
	// when the transfer exists, or its refusal (a *problem error).
	Transfer(ctx context.Context, r transfer.Request) error
	// QuoteExecute executes a quote through its workflow: nil when executed by e (now or
	// before), the refusal otherwise (a *problem error), or ErrPaymentEnded when the
	// quote's workflow has ended.
	QuoteExecute(ctx context.Context, quoteID uuid.UUID, e quote.Execution) error
}

// ErrPaymentEnded reports that a payment's workflow ended before it could take the step:
// what happened is read from the database.
var ErrPaymentEnded = errors.New("the payment's workflow has ended")

// ActionStep is what an agent action's step answers: the AgentAction resource (JSON) as
// committed, its status (and failure reason), when a pending one expires, and the refusal
// of its execution when it was refused (the action is FAILED then).
type ActionStep struct {
	Action            json.RawMessage    `json:"action"`
	Status            agent.ActionStatus `json:"status"`
	FailureReason     string             `json:"failureReason,omitempty"`
	ApprovalExpiresAt time.Time          `json:"approvalExpiresAt,omitzero"`
	Refusal           *problem.Wire      `json:"refusal,omitempty"`
}

func actionStep(a db.AgentActionFull) (ActionStep, error) {
	res, err := json.Marshal(view.AgentActionOf(a))
	if err != nil {
		return ActionStep{}, fmt.Errorf("render agent action: %w", err)
	}
	out := ActionStep{Action: res, Status: a.Status, FailureReason: db.Deref(a.FailureReason)}
	if a.ApprovalExpiresAt != nil {
		out.ApprovalExpiresAt = *a.ApprovalExpiresAt
	}
	return out, nil
}

// SubmitAgentAction checks an agent's action against its policy and usage and writes it
// with its reservation (db.AgentActionSubmit): APPROVED to be executed at once, or
// PENDING_APPROVAL. Amounts in another currency than the policy's are converted at the
// mid-market rate of the moment (agentpolicy.ToPolicyCurrency). A refusal (permission,
// account, limit, quote or transfer rule, a transfer no configured rail serves) is a
// non-retryable application error.
func (a *Activities) SubmitAgentAction(ctx context.Context, in agent.Request) (ActionStep, error) {
	p, err := db.PlatformGet(ctx, a.pool, in.PlatformID)
	if err != nil {
		return ActionStep{}, fmt.Errorf("load platform: %w", err)
	}
	rates := a.ratesFor(p.Environment)
	now := a.now()
	judge := func(policy agentpolicy.Policy, u agentpolicy.Usage, amount int64, currency string, accountID uuid.UUID) (int64, agentpolicy.Decision, error) {
		if in.Type != agent.ExecuteQuote { // a transfer no configured rail serves is refused now, not once approved
			// Whether its external account's type is served is the transfer's own rule, when
			// it is made (transfer.CheckServed); here, whether any type is.
			if err := a.rails.Require(rail.Target{Environment: p.Environment, Platform: p.ID, Currency: currency, Kind: rail.ExternalAccount, AccountType: rail.Any}); err != nil {
				return 0, agentpolicy.Decision{}, err
			}
		}
		from, okf := money.Lookup(currency)
		to, okt := money.Lookup(policy.SpendingLimits.Currency)
		if !okf || !okt {
			return 0, agentpolicy.Decision{}, fmt.Errorf("convert %s to the policy currency %s: unknown currency", currency, policy.SpendingLimits.Currency)
		}
		reserved, err := agentpolicy.ToPolicyCurrency(rates, amount, from, to, now)
		if err != nil {
			return 0, agentpolicy.Decision{}, agentpolicy.Uncountable(err, currency, to.Code)
		}
		threshold, err := policy.Threshold(rates, now)
		if err != nil {
			return 0, agentpolicy.Decision{}, agentpolicy.Uncountable(err, policy.ApprovalThresholds.Currency, to.Code)
		}
		d, err := policy.Decide(u, now, agentpolicy.Action{Amount: reserved, AccountID: ids.Format(ids.InternalAccount, accountID), Threshold: threshold})
		return reserved, d, err
	}
	act, err := a.store.AgentActionSubmit(ctx, in, now, judge)
	if err != nil {
		return ActionStep{}, refusal(err)
	}
	return actionStep(act)
}

// DecideAgentAction applies the platform's decision to a pending action
// (db.AgentActionDecide): APPROVED, to be executed next, or REJECTED with its reservation
// given back. An action no longer pending is refused (409 AGENT_ACTION_NOT_PENDING).
func (a *Activities) DecideAgentAction(ctx context.Context, actionID uuid.UUID, d agent.Decision) (ActionStep, error) {
	act, err := db.AgentActionDecide(ctx, a.pool, actionID, d, a.now(), true)
	if err != nil {
		return ActionStep{}, refusal(err)
	}
	return actionStep(act)
}

// ExpireAgentAction ends a pending action nobody decided before its approval expired:
// FAILED (APPROVAL_EXPIRED), its reservation given back. An action decided meanwhile is
// left as it is.
func (a *Activities) ExpireAgentAction(ctx context.Context, actionID uuid.UUID) (ActionStep, error) {
	act, err := db.AgentActionFail(ctx, a.pool, actionID, agent.FailureApprovalExpired, a.now(), agent.PendingApproval)
	if err != nil {
		return ActionStep{}, err
	}
	return actionStep(act)
}

// ExecuteAgentAction executes an approved action through the payment's own workflow: it
// starts the transfer (its transaction id derived from the action's) or executes the
// quote, with the agent recorded on the transaction. A refused execution (the balance is
// too low, the quote expired) ends the action FAILED with the refusal's code as reason and
// its reservation given back; the answer then carries the refusal. So does an agent paused
// or deleted since the action was approved (AGENT_PAUSED, AGENT_DELETED). Executing an
// action that is not APPROVED, or whose payment exists, answers the action as it is.
func (a *Activities) ExecuteAgentAction(ctx context.Context, in agent.Request) (ActionStep, error) {
	act, err := db.AgentActionRead(ctx, a.pool, in.ActionID)
	if err != nil {
		return ActionStep{}, err
	}
	if act.Status != agent.Approved || act.Transaction != nil {
		return actionStep(act) // decided otherwise, or executed by an earlier attempt
	}
	if reason, err := a.agentGone(ctx, act); err != nil || reason != "" {
		if err != nil {
			return ActionStep{}, err
		}
		w, _ := problem.ToWire(agent.GoneBeforeExecution())
		return a.failAction(ctx, in.ActionID, reason, w)
	}
	refused := a.executeAction(ctx, in, act)
	var w problem.Wire
	switch {
	case refused == nil:
	case asRefusal(refused, &w):
		return a.failAction(ctx, in.ActionID, string(w.Code), w)
	default:
		return ActionStep{}, refused // retried
	}
	if act, err = db.AgentActionRead(ctx, a.pool, in.ActionID); err != nil {
		return ActionStep{}, err
	}
	return actionStep(act)
}

// failAction ends an approved action FAILED with reason, its reservation given back, and
// answers it with the refusal w.
func (a *Activities) failAction(ctx context.Context, actionID uuid.UUID, reason string, w problem.Wire) (ActionStep, error) {
	act, err := db.AgentActionFail(ctx, a.pool, actionID, reason, a.now(), agent.Approved)
	if err != nil {
		return ActionStep{}, err
	}
	out, err := actionStep(act)
	out.Refusal = &w
	return out, err
}

// agentGone is why an approved action's agent may no longer act (AGENT_PAUSED,
// AGENT_DELETED: paused or deleted since the action was approved), "" when it may.
func (a *Activities) agentGone(ctx context.Context, act db.AgentActionFull) (string, error) {
	actor, err := db.AgentActionActor(ctx, a.pool, act.AgentID)
	if err != nil {
		return "", err
	}
	return actor.Gone(), nil
}

// executeAction makes the action's payment: nil when it exists, a refusal, or a transient
// error to retry.
func (a *Activities) executeAction(ctx context.Context, in agent.Request, act db.AgentActionFull) error {
	if act.Type == agent.ExecuteQuote {
		key := "agent-action:" + act.ID.String()
		e := quote.Execution{Key: key, AgentID: ids.Some(act.AgentID)}
		err := a.payments.QuoteExecute(ctx, act.QuoteID.UUID, e)
		if !errors.Is(err, ErrPaymentEnded) {
			// nil: this action executed the quote (now, or an earlier attempt of this step);
			// otherwise the quote's state machine refused it.
			return err
		}
		// The quote's workflow has ended: its state machine answers from the stored quote
		// (a repeat of this action's execution, or its refusal), holding nothing.
		_, err = a.store.QuoteExecute(ctx, act.QuoteID.UUID, e, a.now(), false)
		return err
	}
	kind := transfer.Out
	if act.Type == agent.TransferIn {
		kind = transfer.In
	}
	r := transfer.Request{TransactionID: act.TransactionID, Kind: kind, PlatformID: act.PlatformID, CustomerID: ids.Some(act.CustomerID),
		InternalAccountID: act.InternalAccountID, ExternalAccountID: act.ExternalAccountID.UUID, Amount: act.Amount,
		AgentID: ids.Some(act.AgentID), SlowDelay: in.SlowDelay, PaymentRail: in.PaymentRail, RemittanceInformation: in.RemittanceInformation,
		PurposeOfPayment: in.PurposeOfPayment}
	if act.Description != nil {
		r.Description = *act.Description
	}
	err := a.payments.Transfer(ctx, r)
	if !errors.Is(err, ErrPaymentEnded) {
		return err
	}
	// The transfer's workflow ended before this step saw its answer: it exists, or it was
	// refused.
	if _, err := db.TransactionGetByID(ctx, a.pool, act.TransactionID); err == nil {
		return nil
	} else if !db.IsNotFound(err) {
		return fmt.Errorf("read transaction: %w", err)
	}
	return agent.TransferRefused()
}

// asRefusal reports whether err is a refusal of a domain rule, and puts its wire form in w.
func asRefusal(err error, w *problem.Wire) bool {
	wire, ok := problem.ToWire(err)
	if ok {
		if wire.Code == "" {
			wire.Code = catalog.InvalidInput
		}
		*w = wire
	}
	return ok
}
