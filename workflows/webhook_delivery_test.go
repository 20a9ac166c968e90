package workflows

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"paycore/activities"
	"paycore/internal/catalog"
)

var retry = WebhookRetry{Initial: time.Second, MaxInterval: 30 * time.Minute, MaxAge: 7 * 24 * time.Hour}

func newEnv(t *testing.T) *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	env := s.NewTestWorkflowEnvironment()
	activities.Register(env, &activities.Activities{})
	return env
}

func TestWebhookDeliveredFirstTime(t *testing.T) {
	env := newEnv(t)
	var a *activities.Activities
	env.OnActivity(a.DeliverWebhook, mock.Anything, activities.DeliverInput{EventID: "Webhook:1"}).
		Return(activities.DeliveryOutcome{URL: "https://x", StatusCode: 200, Delivered: true}, nil).Once()
	env.ExecuteWorkflow(WebhookDelivery, WebhookDeliveryInput{EventID: "Webhook:1", Retry: retry})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var out WebhookDeliveryResult
	_ = env.GetWorkflowResult(&out)
	if !out.Delivered || out.StatusCode != 200 {
		t.Fatalf("result %+v", out)
	}
	env.AssertExpectations(t)
}

// Failures are retried by the retry policy with growing intervals until the receiver
// answers; the test environment skips the waits.
func TestWebhookRetriedWithBackoff(t *testing.T) {
	env := newEnv(t)
	var a *activities.Activities
	var calls []time.Time
	env.OnActivity(a.DeliverWebhook, mock.Anything, mock.Anything).Return(
		func(_ context.Context, _ activities.DeliverInput) (activities.DeliveryOutcome, error) {
			calls = append(calls, env.Now())
			if len(calls) < 5 {
				return activities.DeliveryOutcome{StatusCode: 500}, temporal.NewApplicationError("endpoint answered 500", activities.ErrDeliveryFailed)
			}
			return activities.DeliveryOutcome{StatusCode: 200, Delivered: true}, nil
		})
	env.ExecuteWorkflow(WebhookDelivery, WebhookDeliveryInput{EventID: "Webhook:2", Retry: retry})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 5 {
		t.Fatalf("want 5 attempts, got %d", len(calls))
	}
	for i := 2; i < len(calls); i++ {
		if calls[i].Sub(calls[i-1]) <= calls[i-1].Sub(calls[i-2]) {
			t.Fatalf("intervals do not grow: %v", calls)
		}
	}
}

// Backoff is capped at MaxInterval, and after MaxAge of failures the event is marked FAILED.
// (The production schedule, 30 minutes and 7 days, is the same code with other numbers;
// the unit-test environment caps unlimited retries at 10, so a shorter schedule is used.)
func TestWebhookGivesUpAfterMaxAge(t *testing.T) {
	env := newEnv(t)
	var a *activities.Activities
	var calls []time.Time
	var scheduleToClose time.Duration
	env.OnActivity(a.DeliverWebhook, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, _ activities.DeliverInput) (activities.DeliveryOutcome, error) {
			calls = append(calls, env.Now())
			scheduleToClose = activity.GetInfo(ctx).ScheduleToCloseTimeout
			return activities.DeliveryOutcome{StatusCode: 503}, temporal.NewApplicationError("503", activities.ErrDeliveryFailed)
		})
	env.OnActivity(a.MarkWebhookFinal, mock.Anything, "Webhook:3", catalog.WebhookFailed).Return(nil).Once()
	start := env.Now()
	short := WebhookRetry{Initial: time.Minute, MaxInterval: 5 * time.Minute, MaxAge: 20 * time.Minute}
	env.ExecuteWorkflow(WebhookDelivery, WebhookDeliveryInput{EventID: "Webhook:3", Retry: short})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	env.AssertExpectations(t)
	if scheduleToClose != short.MaxAge {
		t.Fatalf("ScheduleToCloseTimeout %s, want %s", scheduleToClose, short.MaxAge)
	}
	if len(calls) < 5 || len(calls) >= 10 {
		t.Fatalf("%d attempts", len(calls))
	}
	if span := calls[len(calls)-1].Sub(start); span > short.MaxAge {
		t.Fatalf("attempted after MaxAge: %s", span)
	}
	for i := 1; i < len(calls); i++ {
		if gap := calls[i].Sub(calls[i-1]); gap > short.MaxInterval {
			t.Fatalf("gap %s exceeds the cap", gap)
		}
	}
	if gap := calls[len(calls)-1].Sub(calls[len(calls)-2]); gap != short.MaxInterval {
		t.Fatalf("backoff did not reach the cap: last gap %s", gap)
	}
}

func TestProductionScheduleReachesTheActivity(t *testing.T) {
	env := newEnv(t)
	var a *activities.Activities
	var info activity.Info
	env.OnActivity(a.DeliverWebhook, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, _ activities.DeliverInput) (activities.DeliveryOutcome, error) {
			info = activity.GetInfo(ctx)
			return activities.DeliveryOutcome{StatusCode: 200, Delivered: true}, nil
		})
	env.ExecuteWorkflow(WebhookDelivery, WebhookDeliveryInput{EventID: "Webhook:6", Retry: retry})
	if info.ScheduleToCloseTimeout != 7*24*time.Hour {
		t.Fatalf("ScheduleToCloseTimeout %s, want 168h", info.ScheduleToCloseTimeout)
	}
}

func TestWebhookGoneIsNotRetried(t *testing.T) {
	env := newEnv(t)
	var a *activities.Activities
	env.OnActivity(a.DeliverWebhook, mock.Anything, mock.Anything).
		Return(activities.DeliveryOutcome{StatusCode: 410}, temporal.NewNonRetryableApplicationError("gone", activities.ErrEndpointGone, nil)).Once()
	env.OnActivity(a.MarkWebhookFinal, mock.Anything, "Webhook:4", catalog.WebhookUndeliverable).Return(nil).Once()
	env.ExecuteWorkflow(WebhookDelivery, WebhookDeliveryInput{EventID: "Webhook:4", Retry: retry})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	env.AssertExpectations(t)
}

func TestWebhookOnceMakesOneAttempt(t *testing.T) {
	env := newEnv(t)
	var a *activities.Activities
	env.OnActivity(a.DeliverWebhook, mock.Anything, activities.DeliverInput{EventID: "Webhook:5", Once: true}).
		Return(activities.DeliveryOutcome{}, errors.New("connection refused")).Once()
	env.OnActivity(a.MarkWebhookFinal, mock.Anything, "Webhook:5", catalog.WebhookFailed).Return(nil).Once()
	env.ExecuteWorkflow(WebhookDelivery, WebhookDeliveryInput{EventID: "Webhook:5", Once: true})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var out WebhookDeliveryResult
	_ = env.GetWorkflowResult(&out)
	if out.Error == "" || out.Delivered {
		t.Fatalf("result %+v", out)
	}
	env.AssertExpectations(t)
}

// A redelivery reopens its event before the first attempt, inside the new run, so the
// reopening cannot be overwritten by the final mark of an earlier run.
func TestWebhookRedeliveryReopensFirst(t *testing.T) {
	env := newEnv(t)
	var a *activities.Activities
	var order []string
	env.OnActivity(a.ReopenWebhookEvent, mock.Anything, "Webhook:6").Return(
		func(context.Context, string) error { order = append(order, "reopen"); return nil }).Once()
	env.OnActivity(a.DeliverWebhook, mock.Anything, activities.DeliverInput{EventID: "Webhook:6"}).Return(
		func(context.Context, activities.DeliverInput) (activities.DeliveryOutcome, error) {
			order = append(order, "deliver")
			return activities.DeliveryOutcome{StatusCode: 200, Delivered: true}, nil
		}).Once()
	env.ExecuteWorkflow(WebhookDelivery, WebhookDeliveryInput{EventID: "Webhook:6", Retry: retry, Redeliver: true})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if len(order) != 2 || order[0] != "reopen" || order[1] != "deliver" {
		t.Fatalf("activity order %v, want [reopen deliver]", order)
	}
	env.AssertExpectations(t)
}
