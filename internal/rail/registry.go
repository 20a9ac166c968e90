package rail

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"paycore/internal/catalog"
	"paycore/internal/problem"
)

// Any, as a route's currency or kind, stands for every value.
const Any = "*"

// DefaultRoutes is the routing used when PAYCORE_RAILS is not set: the sandbox rail
// serves every sandbox payment, and no rail serves production (none exists yet).
const DefaultRoutes = "SANDBOX:*:*=sandbox"

// Route says which rail serves the payments of an environment in a currency to a kind of
// destination. Currency and Kind may be Any.
type Route struct {
	Environment catalog.Environment `json:"environment"`
	Currency    string              `json:"currency"`
	Kind        Kind                `json:"kind"`
	Rail        string              `json:"rail"`
}

// String is the route as PAYCORE_RAILS writes it.
func (r Route) String() string {
	return fmt.Sprintf("%s:%s:%s=%s", r.Environment, r.Currency, r.Kind, r.Rail)
}

var (
	currencyPattern = regexp.MustCompile(`^[A-Z]{3,5}$`)
	namePattern     = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)
)

// ParseRoutes reads PAYCORE_RAILS: routes separated by commas, each
// ENVIRONMENT:CURRENCY:KIND=RAIL, CURRENCY and KIND may be * (every value). An empty value
// configures no rail at all.
func ParseRoutes(s string) ([]Route, error) {
	var out []Route
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		key, name, ok := strings.Cut(item, "=")
		parts := strings.Split(key, ":")
		if !ok || len(parts) != 3 {
			return nil, fmt.Errorf("route %q is not ENVIRONMENT:CURRENCY:KIND=RAIL", item)
		}
		r := Route{Environment: catalog.Environment(strings.TrimSpace(parts[0])), Currency: strings.TrimSpace(parts[1]),
			Kind: Kind(strings.TrimSpace(parts[2])), Rail: strings.TrimSpace(name)}
		switch {
		case r.Environment != catalog.Sandbox && r.Environment != catalog.Production:
			return nil, fmt.Errorf("route %q: environment must be %s or %s", item, catalog.Sandbox, catalog.Production)
		case r.Currency != Any && !currencyPattern.MatchString(r.Currency):
			return nil, fmt.Errorf("route %q: currency must be a currency code or *", item)
		case r.Kind != Any && !slices.Contains(Kinds, r.Kind):
			return nil, fmt.Errorf("route %q: kind must be %s, %s or *", item, ExternalAccount, UMA)
		case !namePattern.MatchString(r.Rail):
			return nil, fmt.Errorf("route %q: rail name %q is not a lower-case name", item, r.Rail)
		}
		for _, o := range out {
			if o.Environment == r.Environment && o.Currency == r.Currency && o.Kind == r.Kind {
				return nil, fmt.Errorf("routes %q and %q serve the same payments", o, r)
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// Registry answers which rail serves a payment. It is built once from configuration and
// only read afterwards.
type Registry struct {
	routes []Route
	rails  map[string]Rail
}

// NewRegistry routes payments to the adapters by routes. Every route must name one of the
// adapters, and that adapter must declare it serves the route's environment, currency and
// kind (a simulated rail cannot be routed production payments).
func NewRegistry(routes []Route, adapters ...Rail) (*Registry, error) {
	known := make(map[string]Rail, len(adapters))
	for _, a := range adapters {
		known[a.Name()] = a
	}
	r := &Registry{routes: slices.Clone(routes), rails: map[string]Rail{}}
	for _, rt := range routes {
		a, ok := known[rt.Rail]
		if !ok {
			return nil, fmt.Errorf("route %s: no rail is named %q", rt, rt.Rail)
		}
		if !a.Capabilities().Serves(rt.Environment, rt.Currency, rt.Kind) {
			return nil, fmt.Errorf("route %s: rail %q does not serve these payments", rt, rt.Rail)
		}
		r.rails[rt.Rail] = a
	}
	return r, nil
}

// For is the rail that serves payments of env in currency to kind: the route naming the
// currency and the kind exactly wins over one naming either as *, the currency counting
// more than the kind. false when no configured rail serves them.
func (r *Registry) For(env catalog.Environment, currency string, kind Kind) (Rail, bool) {
	best, score := "", -1
	for _, rt := range r.routes {
		if rt.Environment != env || (rt.Currency != Any && rt.Currency != currency) || (rt.Kind != Any && rt.Kind != kind) {
			continue
		}
		s := 0
		if rt.Currency != Any {
			s += 2
		}
		if rt.Kind != Any {
			s++
		}
		if s > score && r.rails[rt.Rail].Capabilities().Serves(env, currency, kind) {
			best, score = rt.Rail, s
		}
	}
	if score < 0 {
		return nil, false
	}
	return r.rails[best], true
}

// Require is nil when a rail serves payments of env in currency to kind, else the
// refusal of such a payment when it is requested: RAIL_NOT_CONFIGURED, nothing created.
func (r *Registry) Require(env catalog.Environment, currency string, kind Kind) error {
	if _, ok := r.For(env, currency, kind); ok {
		return nil
	}
	return problem.Refuse(catalog.RailNotConfigured, "no payment rail is configured for %s payments in %s to %s", strings.ToLower(string(env)), currency, kindNoun(kind)).
		With(map[string]any{"environment": env, "currency": currency, "destinationKind": kind})
}

func kindNoun(k Kind) string {
	if k == UMA {
		return "a UMA address"
	}
	return "an external account"
}

// Routes are the configured routes, in configuration order.
func (r *Registry) Routes() []Route { return slices.Clone(r.routes) }

// Configured describes every configured rail, by name: what it serves and the routes to
// it.
func (r *Registry) Configured() []Configured {
	out := make([]Configured, 0, len(r.rails))
	for name, a := range r.rails {
		c := a.Capabilities()
		d := Configured{Name: name, Environments: slices.Clone(c.Environments), Currencies: append([]string{}, c.Currencies...),
			Kinds: slices.Clone(c.Kinds), Cancellable: c.Cancellable, SettlementSeconds: int64(c.Settlement / time.Second), Routes: []string{}}
		for _, rt := range r.routes {
			if rt.Rail == name {
				d.Routes = append(d.Routes, fmt.Sprintf("%s:%s:%s", rt.Environment, rt.Currency, rt.Kind))
			}
		}
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b Configured) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Configured is a configured rail as /readyz and `paycore rails list` show it: its
// capabilities and the routes (ENVIRONMENT:CURRENCY:KIND) to it.
type Configured struct {
	Name              string                `json:"name"`
	Environments      []catalog.Environment `json:"environments"`
	Currencies        []string              `json:"currencies"` // empty: every currency
	Kinds             []Kind                `json:"kinds"`
	Cancellable       bool                  `json:"cancellable"`
	SettlementSeconds int64                 `json:"settlementSeconds"`
	Routes            []string              `json:"routes"`
}

// Submit hands in to the rail that serves it (For) and reports how the payment ends;
// unavailable is the outcome when no configured rail serves it.
func (r *Registry) Submit(ctx context.Context, in Instruction, unavailable Outcome) (Outcome, error) {
	rl, ok := r.For(in.Environment, in.Currency, in.Kind)
	if !ok {
		return unavailable, nil
	}
	out, err := rl.Submit(ctx, in)
	if err != nil {
		return Outcome{}, fmt.Errorf("rail %s: submit %s: %w", rl.Name(), in.Key, err)
	}
	return out, nil
}
