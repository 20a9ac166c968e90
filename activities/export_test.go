package activities

import "time"

// ReachPrivateForProduction lets a's production deliveries connect to the test's loopback
// receivers. Everything else about the production client stays (opaque transport errors);
// only the connect-time address check is off. (A function, not a method: every method of
// Activities is registered as an activity.)
func ReachPrivateForProduction(a *Activities, timeout time.Duration) {
	a.public = webhookClient(true, true, timeout, a.tracer)
}
