package workflows

import (
	"go.temporal.io/sdk/temporal"

	"paycore/internal/problem"
)

// coded is the error an update validator rejects with when a state machine refused the
// update: a non-retryable application error whose type is the refusal's stable code and
// whose details are its problem.Wire, which the API answers as it is (as a refusal of an
// activity, see activities/errors.go). A nil err stays nil; an error that is no refusal is
// returned as it is.
func coded(err error) error {
	if err == nil {
		return nil
	}
	w, ok := problem.ToWire(err)
	if !ok {
		return err
	}
	return temporal.NewNonRetryableApplicationError(w.Message, string(w.Code), nil, w)
}
