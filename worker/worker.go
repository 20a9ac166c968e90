// Package worker builds the Temporal worker (every workflow and activity registered on the
// one task queue) and the worker-side loops that feed it: the webhook outbox relay and the
// janitor.
package worker

import (
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
	w := sdkworker.New(c, o.TaskQueue, sdkworker.Options{
		MaxConcurrentWorkflowTaskPollers: o.Pollers,
		MaxConcurrentActivityTaskPollers: o.Pollers,
		WorkerStopTimeout:                o.StopTimeout,
	})
	for _, d := range workflows.All() {
		w.RegisterWorkflowWithOptions(d.Func, workflow.RegisterOptions{Name: d.Name})
	}
	w.RegisterActivity(acts)
	return w
}
