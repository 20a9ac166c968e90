package start

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"
)

// CountStarts returns a client interceptor that counts workflow starts by workflow type
// and result ("ok" or "error") on counter.
func CountStarts(counter *prometheus.CounterVec) interceptor.ClientInterceptor {
	return &countStarts{counter: counter}
}

type countStarts struct {
	interceptor.ClientInterceptorBase
	counter *prometheus.CounterVec
}

func (c *countStarts) InterceptClient(next interceptor.ClientOutboundInterceptor) interceptor.ClientOutboundInterceptor {
	return &countStartsOutbound{ClientOutboundInterceptorBase: interceptor.ClientOutboundInterceptorBase{Next: next}, counter: c.counter}
}

type countStartsOutbound struct {
	interceptor.ClientOutboundInterceptorBase
	counter *prometheus.CounterVec
}

func (c *countStartsOutbound) ExecuteWorkflow(ctx context.Context, in *interceptor.ClientExecuteWorkflowInput) (client.WorkflowRun, error) {
	run, err := c.Next.ExecuteWorkflow(ctx, in)
	result := "ok"
	if err != nil {
		result = "error"
	}
	c.counter.WithLabelValues(in.WorkflowType, result).Inc()
	return run, err
}
