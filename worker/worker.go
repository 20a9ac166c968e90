// Package worker builds the Temporal worker (every workflow and activity registered on the
// one task queue) and the worker-side loops that feed it: the webhook outbox relay and the
// janitor.
package worker

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"paycore/activities"
	"paycore/workflows"
)

// Options tunes the worker.
type Options struct {
	// Pollers is the number of workflow and of activity task pollers. With the defaults (2)
	// throughput on a small machine falls several times; 8–16 suits the dev server.
	Pollers int
	// TaskQueue defaults to workflows.TaskQueue.
	TaskQueue string
	// StopTimeout is how long in-flight activities get to finish on shutdown.
	StopTimeout time.Duration
	// BuildID, when set, makes the worker a versioned one: build BuildID of the worker
	// deployment Deployment (Worker Deployment Versioning), each workflow registered with
	// its versioning behavior (workflows.Definition).
	BuildID    string
	Deployment string
}

// New registers every workflow and activity on a worker for the task queue.
func New(c client.Client, acts *activities.Activities, o Options) sdkworker.Worker {
	if o.Pollers <= 0 {
		o.Pollers = 16
	}
	if o.StopTimeout <= 0 {
		o.StopTimeout = 20 * time.Second
	}
	if o.TaskQueue == "" {
		o.TaskQueue = workflows.TaskQueue
	}
	opts := sdkworker.Options{
		MaxConcurrentWorkflowTaskPollers: o.Pollers,
		MaxConcurrentActivityTaskPollers: o.Pollers,
		WorkerStopTimeout:                o.StopTimeout,
	}
	if o.BuildID != "" {
		opts.DeploymentOptions = sdkworker.DeploymentOptions{UseVersioning: true,
			Version: sdkworker.WorkerDeploymentVersion{DeploymentName: o.Deployment, BuildID: o.BuildID}}
	}
	w := sdkworker.New(c, o.TaskQueue, opts)
	for _, d := range workflows.All() {
		ro := workflow.RegisterOptions{Name: d.Name}
		if o.BuildID != "" {
			ro.VersioningBehavior = d.Behavior
		}
		w.RegisterWorkflowWithOptions(d.Func, ro)
	}
	activities.Register(w, acts)
	return w
}

// Promote makes build buildID of the worker deployment the current version, so that new
// workflows (and those that auto-upgrade) go to it, once a worker of that build polls. It
// retries until then, or until ctx ends.
func Promote(ctx context.Context, c client.Client, deployment, buildID string, log *slog.Logger) error {
	h := c.WorkerDeploymentClient().GetHandle(deployment)
	for {
		_, err := h.SetCurrentVersion(ctx, client.WorkerDeploymentSetCurrentVersionOptions{BuildID: buildID})
		if err == nil {
			log.Info("worker build is the deployment's current version", "deployment", deployment, "build_id", buildID)
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("promote %s build %s: %w", deployment, buildID, err)
		case <-time.After(500 * time.Millisecond):
		}
	}
}
