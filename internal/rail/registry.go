package rail

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/problem"
)

// Any, as a route's currency or kind, stands for every value.
const Any = "*"

// DefaultRoutes is the routing used when PAYCORE_RAILS is not set: the sandbox rail
// serves every sandbox payment, and no rail serves production (none exists yet).
const DefaultRoutes = "SANDBOX:*:*=sandbox"

// Route says which rail serves the payments of an environment in a currency to a kind of
// destination and, for external accounts, optionally to one type of them. Currency and
// Kind may be Any; AccountType "" stands for every type. A route may name one platform of
// its environment (Platform): it serves that platform's payments only, before the routes
// of every platform (a sandbox platform that opts in to a real rail).
type Route struct {
	Environment catalog.Environment `json:"environment"`
	Platform    uuid.UUID           `json:"platform,omitzero"`
	Currency    string              `json:"currency"`
	Kind        Kind                `json:"kind"`
	AccountType string              `json:"accountType,omitempty"`
	Rail        string              `json:"rail"`
}

// String is the route as PAYCORE_RAILS writes it.
func (r Route) String() string {
	return r.key() + "=" + r.Rail
}

// key is the route's payments: ENVIRONMENT[/PLATFORM]:CURRENCY:KIND[:ACCOUNT_TYPE].
func (r Route) key() string {
	env := string(r.Environment)
	if r.Platform != uuid.Nil {
		env += "/" + r.Platform.String()
	}
	k := fmt.Sprintf("%s:%s:%s", env, r.Currency, r.Kind)
	if r.AccountType != "" {
		k += ":" + r.AccountType
	}
	return k
}

// target is the payments the route names, for a rail's capabilities.
func (r Route) target() Target {
	return Target{Environment: r.Environment, Currency: r.Currency, Kind: r.Kind, AccountType: r.AccountType}
}

var (
	currencyPattern    = regexp.MustCompile(`^[A-Z]{3,5}$`)
	accountTypePattern = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
	namePattern        = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)
)

// ParseRoutes reads PAYCORE_RAILS: routes separated by commas, each
// ENVIRONMENT:CURRENCY:KIND=RAIL or ENVIRONMENT:CURRENCY:EXTERNAL_ACCOUNT:ACCOUNT_TYPE=RAIL
// (external accounts of one type, e.g. PRODUCTION:BTC:EXTERNAL_ACCOUNT:LIGHTNING=lnd);
// CURRENCY, KIND and ACCOUNT_TYPE may be * (every value). ENVIRONMENT/PLATFORM_ID names one
// platform of the environment (its id, with or without the Platform: prefix), e.g.
// SANDBOX/0190…:BTC:EXTERNAL_ACCOUNT:LIGHTNING=lightning. An empty value configures no rail
// at all.
func ParseRoutes(s string) ([]Route, error) {
	var out []Route
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		key, name, ok := strings.Cut(item, "=")
		parts := strings.Split(strings.Replace(key, "/Platform:", "/", 1), ":")
		if !ok || len(parts) < 3 || len(parts) > 4 {
			return nil, fmt.Errorf("route %q is not ENVIRONMENT:CURRENCY:KIND[:ACCOUNT_TYPE]=RAIL", item)
		}
		env, platform, named := strings.Cut(strings.TrimSpace(parts[0]), "/")
		r := Route{Environment: catalog.Environment(env), Currency: strings.TrimSpace(parts[1]),
			Kind: Kind(strings.TrimSpace(parts[2])), Rail: strings.TrimSpace(name)}
		if named {
			id, err := uuid.Parse(platform)
			if err != nil || id == uuid.Nil {
				return nil, fmt.Errorf("route %q: %q is not a platform id", item, platform)
			}
			r.Platform = id
		}
		if len(parts) == 4 && strings.TrimSpace(parts[3]) != Any {
			r.AccountType = strings.TrimSpace(parts[3])
		}
		switch {
		case r.Environment != catalog.Sandbox && r.Environment != catalog.Production:
			return nil, fmt.Errorf("route %q: environment must be %s or %s", item, catalog.Sandbox, catalog.Production)
		case r.Currency != Any && !currencyPattern.MatchString(r.Currency):
			return nil, fmt.Errorf("route %q: currency must be a currency code or *", item)
		case r.Kind != Any && !slices.Contains(Kinds, r.Kind):
			return nil, fmt.Errorf("route %q: kind must be %s, %s or *", item, ExternalAccount, UMA)
		case r.AccountType != "" && r.Kind != ExternalAccount:
			return nil, fmt.Errorf("route %q: an account type routes %s payments only", item, ExternalAccount)
		case r.AccountType != "" && !accountTypePattern.MatchString(r.AccountType):
			return nil, fmt.Errorf("route %q: account type must be an upper-case type name or *", item)
		case !namePattern.MatchString(r.Rail):
			return nil, fmt.Errorf("route %q: rail name %q is not a lower-case name", item, r.Rail)
		}
		for _, o := range out {
			if o.key() == r.key() {
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
// adapters, and that adapter must declare it serves the route's environment, currency,
// kind and account type (a simulated rail cannot be routed production payments).
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
		if !a.Capabilities().Serves(rt.target()) {
			return nil, fmt.Errorf("route %s: rail %q does not serve these payments", rt, rt.Rail)
		}
		r.rails[rt.Rail] = a
	}
	return r, nil
}

// For is the rail that serves payments to t: of the routes that match, the most precise
// wins, a named currency counting more than a named account type, which counts more than
// a named kind. t's account type "" (not known) matches the routes for every type only;
// Any matches every route (some type of external account is served). false when no
// configured rail serves them.
func (r *Registry) For(t Target) (Rail, bool) {
	best, score := "", -1
	for _, rt := range r.routes {
		if rt.Environment != t.Environment || (rt.Currency != Any && rt.Currency != t.Currency) || (rt.Kind != Any && rt.Kind != t.Kind) ||
			(rt.AccountType != "" && t.AccountType != Any && rt.AccountType != t.AccountType) ||
			(rt.Platform != uuid.Nil && rt.Platform != t.Platform) {
			continue
		}
		s := 0
		if rt.Platform != uuid.Nil {
			s += 8
		}
		if rt.Currency != Any {
			s += 4
		}
		if rt.AccountType != "" {
			s += 2
		}
		if rt.Kind != Any {
			s++
		}
		if s > score && r.rails[rt.Rail].Capabilities().Serves(t) {
			best, score = rt.Rail, s
		}
	}
	if score < 0 {
		return nil, false
	}
	return r.rails[best], true
}

// Cancel asks the rail that serves in to cancel it (Rail.Cancel): ErrNotCancellable when
// no rail serves it any more or its rail never cancels a payment.
func (r *Registry) Cancel(ctx context.Context, in Instruction) error {
	rl, ok := r.For(in.Target())
	if !ok || !rl.Capabilities().Cancellable {
		return ErrNotCancellable
	}
	if err := rl.Cancel(ctx, in); err != nil {
		return fmt.Errorf("rail %s: cancel %s: %w", rl.Name(), in.Key, err)
	}
	return nil
}

// Require is nil when a rail serves payments to t, else the refusal of such a payment when
// it is requested: RAIL_NOT_CONFIGURED, nothing created.
func (r *Registry) Require(t Target) error {
	if _, ok := r.For(t); ok {
		return nil
	}
	details := map[string]any{"environment": t.Environment, "currency": t.Currency, "destinationKind": t.Kind}
	to := kindNoun(t.Kind)
	if t.AccountType != "" {
		details["accountType"] = t.AccountType
		to += " of type " + t.AccountType
	}
	return problem.Refuse(catalog.RailNotConfigured, "no payment rail is configured for %s payments in %s to %s", strings.ToLower(string(t.Environment)), t.Currency, to).
		With(details)
}

// FeeReserve is the network fee reservation of the rail that serves payments to t (see
// FeeReserver), nil when that rail's network charges nothing on top, or no rail serves t.
func (r *Registry) FeeReserve(t Target) func(amount int64) int64 {
	rl, ok := r.For(t)
	if !ok {
		return nil
	}
	if fr, ok := rl.(FeeReserver); ok {
		return fr.FeeReserve
	}
	return nil
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
			Kinds: slices.Clone(c.Kinds), AccountTypes: append([]string{}, c.AccountTypes...), Cancellable: c.Cancellable,
			SettlementSeconds: int64(c.Settlement / time.Second), Routes: []string{}}
		for _, rt := range r.routes {
			if rt.Rail == name {
				d.Routes = append(d.Routes, rt.key())
			}
		}
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b Configured) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Configured is a configured rail as /readyz and `paycore rails list` show it: its
// capabilities and the routes (ENVIRONMENT:CURRENCY:KIND[:ACCOUNT_TYPE]) to it.
type Configured struct {
	Name              string                `json:"name"`
	Environments      []catalog.Environment `json:"environments"`
	Currencies        []string              `json:"currencies"` // empty: every currency
	Kinds             []Kind                `json:"kinds"`
	AccountTypes      []string              `json:"accountTypes"` // empty: every external account type
	Cancellable       bool                  `json:"cancellable"`
	SettlementSeconds int64                 `json:"settlementSeconds"`
	Routes            []string              `json:"routes"`
}

// Submit hands in to the rail that serves it (For) and reports how the payment ends;
// unavailable is the outcome when no configured rail serves it. When resumed (an earlier
// attempt may have handed it in before it was lost: a crash, a timeout), the rail is first
// asked what became of the payment under its key (Rail.Track), and it is handed in again
// only when the rail knows no payment under that key.
func (r *Registry) Submit(ctx context.Context, in Instruction, unavailable Outcome, resumed bool) (Outcome, error) {
	rl, ok := r.For(in.Target())
	if !ok {
		return unavailable, nil
	}
	if resumed {
		out, err := rl.Track(ctx, in.Key)
		if err == nil {
			return out, nil
		}
		if !errors.Is(err, ErrNotFound) {
			return Outcome{}, fmt.Errorf("rail %s: track %s: %w", rl.Name(), in.Key, err)
		}
	}
	out, err := rl.Submit(ctx, in)
	if err != nil {
		return Outcome{}, fmt.Errorf("rail %s: submit %s: %w", rl.Name(), in.Key, err)
	}
	return out, nil
}

// Refundable reports whether the rail that serves payments to t can send a completed
// incoming payment back there (Capabilities.Refunds).
func (r *Registry) Refundable(t Target) bool {
	rl, ok := r.For(t)
	return ok && rl.Capabilities().Refunds
}
