package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"

	"paycore/db"
	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/infra/config"
	"paycore/internal/kyc"
	"paycore/internal/operator"
	"paycore/internal/payment"
	"paycore/workflows"
	"paycore/workflows/start"
)

// The operator's runbook commands (docs/operations/runbook.md): find stuck payments (those whose
// workflow ended before them, and those waiting longer than a while), retry a payment's rail step, fail a payment with a reason, redeliver a webhook.
// Every action reaches the payment's (or the delivery's) workflow as an update or a start
// whose input names the operator, so the workflow's history shows who did what.

const paymentsUsage = `usage:
  paycore payments stuck [-older-than 15m] [-status PENDING,PROCESSING] [-limit 100]
  paycore payments retry -transaction Transaction:<uuid> -operator NAME [-reason TEXT]
  paycore payments fail  -transaction Transaction:<uuid> -operator NAME -reason TEXT
    (fails a payment waiting at its rail, or one whose workflow has ended)`

func paymentsCmd(ctx context.Context, cfg config.Config, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New(paymentsUsage)
	}
	switch args[0] {
	case "stuck":
		return paymentsStuck(ctx, cfg, args[1:], stdout)
	case "retry":
		return paymentsOperate(ctx, cfg, operator.RetryRail, args[1:], stdout)
	case "fail":
		return paymentsOperate(ctx, cfg, operator.Fail, args[1:], stdout)
	}
	return fmt.Errorf("unknown payments command %q\n%s", args[0], paymentsUsage)
}

// paymentsStuck lists the unfinished payments (PENDING, PROCESSING) that are stuck (see
// operator.Stuck): those whose workflow does not run, whatever their age, first, then
// those whose status has not changed for longer than -older-than, the longest waiting
// first; each with its workflow id and what Temporal says of that workflow.
func paymentsStuck(ctx context.Context, cfg config.Config, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("payments stuck", flag.ContinueOnError)
	older := fs.Duration("older-than", 15*time.Minute, "list payments whose workflow runs once their status has not changed for this long")
	statuses := fs.String("status", "PENDING,PROCESSING", "comma-separated statuses (PENDING, PROCESSING)")
	limit := fs.Int("limit", 100, "at most this many payments (1-10000)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var want []string
	for _, st := range strings.Split(*statuses, ",") {
		st = strings.ToUpper(strings.TrimSpace(st))
		if st != string(catalog.TxPending) && st != string(catalog.TxProcessing) {
			return fmt.Errorf("-status: %q is not a status payments wait in (PENDING, PROCESSING)", st)
		}
		want = append(want, st)
	}
	if *older < 0 || *limit < 1 || *limit > 10000 {
		return errors.New("-older-than must not be negative and -limit must be from 1 to 10000")
	}
	a, err := newApp(ctx, cfg, newLogger("warn"))
	if err != nil {
		return err
	}
	defer a.close()
	rows, err := db.TransactionsUnfinished(ctx, a.pool, db.TransactionsUnfinishedParams{Statuses: want, MaxRows: maxUnfinishedScan})
	if err != nil {
		return fmt.Errorf("list unfinished payments: %w", err)
	}
	var ended, waiting []map[string]any
	for _, r := range rows {
		id, hasWorkflow := workflows.PaymentWorkflowID(r.Kind, r.ID, r.QuoteID)
		if r.PayerQuoteID.Valid { // the receiving side: the paying quote's workflow finishes it
			id, hasWorkflow = workflows.QuoteWorkflowID(r.PayerQuoteID.UUID), true
		}
		wfStatus := ""
		if hasWorkflow {
			if wfStatus, err = workflowStatus(ctx, a, id); err != nil {
				return err
			}
		}
		since := time.Since(r.UpdatedAt)
		why := operator.Stuck(wfStatus, since, *older)
		if why == "" {
			continue
		}
		p := map[string]any{"transactionId": ids.Format(ids.Transaction, r.ID), "platformId": ids.Format(ids.Platform, r.PlatformID),
			"kind": r.Kind, "type": r.Type, "status": r.Status, "amount": r.Amount, "currency": r.Currency,
			"createdAt": r.CreatedAt, "statusSince": r.UpdatedAt, "waiting": since.Round(time.Second).String(), "stuck": why}
		if hasWorkflow {
			p["workflowId"], p["workflowStatus"] = id, wfStatus
		}
		if why == operator.StuckNoWorkflow {
			ended = append(ended, p)
		} else {
			waiting = append(waiting, p)
		}
	}
	out := append(ended, waiting...)
	if len(out) > *limit {
		out = out[:*limit]
	}
	if out == nil {
		out = []map[string]any{}
	}
	return printJSON(stdout, out)
}

// maxUnfinishedScan bounds the unfinished payments `payments stuck` asks Temporal about.
const maxUnfinishedScan = 10000

// workflowStatus is what Temporal says of a payment's workflow: RUNNING, the status it
// closed with, or NOT_FOUND.
func workflowStatus(ctx context.Context, a *app, id string) (string, error) {
	d, err := a.temporal.DescribeWorkflowExecution(ctx, id, "")
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return operator.WorkflowNotFound, nil
	}
	if err != nil {
		return "", fmt.Errorf("describe workflow %s: %w", id, err)
	}
	st := d.GetWorkflowExecutionInfo().GetStatus()
	return strings.TrimPrefix(enums.WorkflowExecutionStatus_name[int32(st)], "WORKFLOW_EXECUTION_STATUS_"), nil
}

// paymentsOperate sends an operator's action to the payment's workflow and prints the
// payment's status once it took effect.
func paymentsOperate(ctx context.Context, cfg config.Config, action operator.Action, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("payments "+strings.ToLower(string(action)), flag.ContinueOnError)
	txArg := fs.String("transaction", "", "the payment (Transaction:<uuid>)")
	who := fs.String("operator", "", "who takes the action (recorded in the workflow's history)")
	reason := fs.String("reason", "", "why (required to fail a payment)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	txID, err := ids.Parse(ids.Transaction, *txArg)
	if err != nil {
		return fmt.Errorf("-transaction: %w", err)
	}
	r := operator.Request{Action: action, Operator: *who, Reason: *reason}
	if err := r.Check(); err != nil {
		return err
	}
	a, err := newApp(ctx, cfg, newLogger("warn"))
	if err != nil {
		return err
	}
	defer a.close()
	t, err := db.TransactionGetByID(ctx, a.pool, txID)
	if db.IsNotFound(err) {
		return fmt.Errorf("no transaction %s", *txArg)
	}
	if err != nil {
		return fmt.Errorf("read transaction: %w", err)
	}
	workflowID, ok := workflows.PaymentWorkflowID(t.Kind, t.ID, t.QuoteID)
	refunding := t.Type == catalog.Incoming && db.Deref(t.RefundStatus) == payment.RefundPending
	if refunding { // the platform's refund of a completed payment waits at its rail
		workflowID, ok = workflows.RefundWorkflowID(t.ID), true
	}
	if !ok || (t.Status != catalog.TxPending && t.Status != catalog.TxProcessing && !refunding) {
		return fmt.Errorf("transaction %s is %s %s: only a payment waiting at its rail can be retried or failed", *txArg, t.Status, t.Kind)
	}
	payer, err := db.TransactionPayerOf(ctx, a.pool, uuid.NullUUID{UUID: t.ID, Valid: true})
	if err == nil {
		return fmt.Errorf("transaction %s is the receiving side of %s, whose workflow ends both: act on that one", *txArg, ids.Format(ids.Transaction, payer.ID))
	}
	if !db.IsNotFound(err) {
		return fmt.Errorf("read paying transaction: %w", err)
	}
	starter := start.Starter{Client: a.temporal, TaskQueue: cfg.TaskQueue}
	status, err := starter.OperatePayment(ctx, workflowID, r)
	if errors.Is(err, start.ErrWorkflowClosed) && action == operator.Fail && !refunding {
		// Nothing will finish the payment: a workflow of its own fails it (its history
		// names the operator).
		workflowID = workflows.EndPaymentWorkflowID(t.ID)
		status, err = starter.EndPayment(ctx, workflows.EndPaymentRequest{TransactionID: t.ID, Kind: t.Kind, Request: r})
	}
	if errors.Is(err, start.ErrWorkflowClosed) {
		return fmt.Errorf("the workflow of %s (%s) has ended: fail it (payments fail), or retry a payment whose workflow runs", *txArg, workflowID)
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", strings.ToLower(string(action)), workflowID, err)
	}
	return printJSON(stdout, map[string]any{"transactionId": *txArg, "workflowId": workflowID, "action": action, "operator": *who, "status": status})
}

const webhooksUsage = `usage:
  paycore webhooks redeliver -event Webhook:<uuid> -operator NAME`

// webhooksCmd is `paycore webhooks redeliver`: a new delivery run of an event, whose input
// names the operator.
func webhooksCmd(ctx context.Context, cfg config.Config, args []string, stdout io.Writer) error {
	if len(args) == 0 || args[0] != "redeliver" {
		return errors.New(webhooksUsage)
	}
	fs := flag.NewFlagSet("webhooks redeliver", flag.ContinueOnError)
	eventArg := fs.String("event", "", "the event (Webhook:<uuid>)")
	who := fs.String("operator", "", "who asks (recorded in the delivery workflow's input)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	eventID, err := ids.Parse(ids.Webhook, *eventArg)
	if err != nil {
		return fmt.Errorf("-event: %w", err)
	}
	if strings.TrimSpace(*who) == "" {
		return errors.New("-operator: say who asks for the redelivery")
	}
	a, err := newApp(ctx, cfg, newLogger("warn"))
	if err != nil {
		return err
	}
	defer a.close()
	ev, err := db.WebhookEventGet(ctx, a.pool, eventID)
	if db.IsNotFound(err) {
		return fmt.Errorf("no webhook event %s", *eventArg)
	}
	if err != nil {
		return fmt.Errorf("read webhook event: %w", err)
	}
	retry := workflows.WebhookRetry{Initial: cfg.WebhookRetryStart, MaxInterval: cfg.WebhookRetryMax, MaxAge: cfg.WebhookRetryAge}
	starter := start.Starter{Client: a.temporal, TaskQueue: cfg.TaskQueue}
	if err := starter.WebhookRedelivery(ctx, *eventArg, ev.PlatformID, ev.Type, retry, ev.Status != catalog.WebhookPending, *who); err != nil {
		return err
	}
	return printJSON(stdout, map[string]any{"eventId": *eventArg, "workflowId": workflows.WebhookDeliveryWorkflowID(*eventArg), "operator": *who, "redelivering": true})
}

const verificationsUsage = `usage:
  paycore verifications review -verification Verification:<uuid> -decision APPROVED|REJECTED -operator NAME [-reason TEXT]`

// verificationsCmd is `paycore verifications review`: an operator's decision on a
// verification waiting in PENDING_MANUAL_REVIEW, sent to the customer's verification
// workflow (its history shows who decided and why), which records it with the webhooks.
func verificationsCmd(ctx context.Context, cfg config.Config, args []string, stdout io.Writer) error {
	if len(args) == 0 || args[0] != "review" {
		return errors.New(verificationsUsage)
	}
	fs := flag.NewFlagSet("verifications review", flag.ContinueOnError)
	vArg := fs.String("verification", "", "the verification (Verification:<uuid>)")
	decision := fs.String("decision", "", "APPROVED or REJECTED")
	who := fs.String("operator", "", "who decides (recorded in the workflow's history)")
	reason := fs.String("reason", "", "why (required to reject; shown in the verification's errors)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	vID, err := ids.Parse(ids.Verification, *vArg)
	if err != nil {
		return fmt.Errorf("-verification: %w", err)
	}
	m := kyc.ManualReview{VerificationID: vID, Status: catalog.VerificationStatus(strings.ToUpper(*decision)), Operator: *who, Reason: *reason}
	if err := m.Check(); err != nil {
		return err
	}
	a, err := newApp(ctx, cfg, newLogger("warn"))
	if err != nil {
		return err
	}
	defer a.close()
	v, err := db.VerificationGetByID(ctx, a.pool, vID)
	if db.IsNotFound(err) {
		return fmt.Errorf("no verification %s", *vArg)
	}
	if err != nil {
		return fmt.Errorf("read verification: %w", err)
	}
	in := workflows.VerificationInput{PlatformID: v.PlatformID, CustomerID: v.CustomerID, ReviewDelay: cfg.KycReviewDelay}
	res, err := start.Starter{Client: a.temporal, TaskQueue: cfg.TaskQueue}.Verification(ctx, in, workflows.UpdateReview, m)
	if err != nil {
		return fmt.Errorf("review %s: %w", *vArg, err)
	}
	_, err = stdout.Write(append(res, '\n'))
	return err
}
