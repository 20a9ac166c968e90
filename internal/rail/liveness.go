package rail

import "context"

// LivenessChecker is implemented by rails whose provider checks, by a hosted liveness
// check, that the owner of an external account they pay is the person the platform says
// (external account ownership, method LIVENESS). The owner takes the check on the
// provider's page; the verdict is asked once the check had its time.
type LivenessChecker interface {
	// LivenessPasses is the provider's verdict on the owner of the account at address.
	LivenessPasses(ctx context.Context, address string) (bool, error)
}

// LivenessChecker is the rail that serves payments to t (an external account) when its
// provider checks owners' liveness, false otherwise: then no liveness check is offered for
// such accounts.
func (r *Registry) LivenessChecker(t Target) (LivenessChecker, bool) {
	return capability[LivenessChecker](r, t)
}
