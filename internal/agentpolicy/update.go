package agentpolicy

import (
	"encoding/json"
	"fmt"
	"slices"

	"paycore/internal/kit/strictjson"
	"paycore/internal/problem"
)

// Update is a policy as a platform sends it: the policy of POST /agents (AgentPolicy,
// whose required members New asks for) or the body of PATCH /agents/{agentId}/policy
// (AgentPolicyUpdateRequest, every member optional). Every member is kept raw
// (json.RawMessage) and decoded by Apply with the one request decoder, so that an absent
// member (unchanged) is told from an explicit null: null sets a nullable member (unlimited,
// every account, inherit, no threshold) and is refused, naming the field, for the others.
type Update struct {
	Permissions          json.RawMessage `json:"permissions"`
	DefaultExecutionMode json.RawMessage `json:"defaultExecutionMode"`
	SpendingLimits       json.RawMessage `json:"spendingLimits"`      // LimitsUpdate
	AccountRestrictions  json.RawMessage `json:"accountRestrictions"` // RestrictionsUpdate
	ApprovalThresholds   json.RawMessage `json:"approvalThresholds"`  // ThresholdsUpdate
}

// LimitsUpdate is spendingLimits as sent (AgentSpendingLimits, AgentSpendingLimitsUpdate).
// dailyLimit, monthlyLimit and dailyTransactionLimit may be null (unlimited); null is
// accepted for dailyTransactionLimit too, so that an update can lift it.
type LimitsUpdate struct {
	Currency              json.RawMessage `json:"currency"`
	PerTransactionLimit   json.RawMessage `json:"perTransactionLimit"`
	DailyLimit            json.RawMessage `json:"dailyLimit"`
	DailyTransactionLimit json.RawMessage `json:"dailyTransactionLimit"`
	MonthlyLimit          json.RawMessage `json:"monthlyLimit"`
}

// RestrictionsUpdate is accountRestrictions as sent: allowedAccountIds may be null (every
// account); accountRules replace the stored rules as a whole when given.
type RestrictionsUpdate struct {
	AllowedAccountIDs json.RawMessage `json:"allowedAccountIds"`
	AccountRules      json.RawMessage `json:"accountRules"` // []RuleInput
}

// RuleInput is one accountRules entry as sent; perTransactionLimit may be null (or absent)
// to inherit spendingLimits'.
type RuleInput struct {
	AccountID           json.RawMessage `json:"accountId"`
	ExecutionMode       json.RawMessage `json:"executionMode"`
	PerTransactionLimit json.RawMessage `json:"perTransactionLimit"`
}

// ThresholdsUpdate is approvalThresholds as sent; amount may be null (no threshold).
type ThresholdsUpdate struct {
	Currency json.RawMessage `json:"currency"`
	Amount   json.RawMessage `json:"amount"`
}

// New is the policy of a new agent: u must give permissions, defaultExecutionMode and
// spendingLimits with its currency and perTransactionLimit; everything else defaults to
// unlimited, every account, no rules and no threshold. Field errors name members under
// root ("policy").
func New(root string, u Update) (Policy, error) {
	f := func(name string) string { return path(root, name) }
	required := func(name string, raw json.RawMessage, hint string) error {
		if given(raw) {
			return nil
		}
		return problem.Field(f(name), "%s is required%s", f(name), hint)
	}
	if err := required("permissions", u.Permissions, " (it may be an empty array)"); err != nil {
		return Policy{}, err
	}
	if err := required("defaultExecutionMode", u.DefaultExecutionMode, ": "+joined(ExecutionModes)); err != nil {
		return Policy{}, err
	}
	if err := required("spendingLimits", u.SpendingLimits, ""); err != nil {
		return Policy{}, err
	}
	var l LimitsUpdate
	if err := decodeAt(f("spendingLimits"), u.SpendingLimits, &l); err != nil {
		return Policy{}, err
	}
	if err := required("spendingLimits.currency", l.Currency, ""); err != nil {
		return Policy{}, err
	}
	if err := required("spendingLimits.perTransactionLimit", l.PerTransactionLimit, ""); err != nil {
		return Policy{}, err
	}
	return Policy{AccountRestrictions: AccountRestrictions{AccountRules: []AccountRule{}}}.Apply(root, u)
}

// Apply merges u into p and checks the result: only the members u gives change, member by
// member inside spendingLimits, accountRestrictions and approvalThresholds; permissions and
// accountRules are replaced as a whole. An explicit null sets a nullable member to null
// (unlimited, every account, inherit, no threshold) and is refused for the others. Field
// errors name members under root. p itself is left unchanged.
func (p Policy) Apply(root string, u Update) (Policy, error) {
	f := func(name string) string { return path(root, name) }
	out := p.clone()
	rulesGiven := false
	if err := setValue(f("permissions"), u.Permissions, &out.Permissions); err != nil {
		return Policy{}, err
	}
	if err := setValue(f("defaultExecutionMode"), u.DefaultExecutionMode, &out.DefaultExecutionMode); err != nil {
		return Policy{}, err
	}
	if len(u.SpendingLimits) > 0 {
		var l LimitsUpdate
		if err := setValue(f("spendingLimits"), u.SpendingLimits, &l); err != nil {
			return Policy{}, err
		}
		lf := func(name string) string { return f("spendingLimits." + name) }
		if err := setValue(lf("currency"), l.Currency, &out.SpendingLimits.Currency); err != nil {
			return Policy{}, err
		}
		// The amounts are in the currency's smallest unit: another currency means other
		// amounts, so the update states them all (dailyLimit and monthlyLimit may be null).
		if p.SpendingLimits.Currency != "" && out.SpendingLimits.Currency != p.SpendingLimits.Currency {
			for _, m := range []struct {
				name string
				raw  json.RawMessage
			}{{"perTransactionLimit", l.PerTransactionLimit}, {"dailyLimit", l.DailyLimit}, {"monthlyLimit", l.MonthlyLimit}} {
				if len(m.raw) == 0 {
					return Policy{}, problem.Field(lf(m.name), "%s must be given with the new currency %s: the limits are amounts in its smallest unit",
						lf(m.name), out.SpendingLimits.Currency)
				}
			}
		}
		if err := setValue(lf("perTransactionLimit"), l.PerTransactionLimit, &out.SpendingLimits.PerTransactionLimit); err != nil {
			return Policy{}, err
		}
		for _, m := range []struct {
			name string
			raw  json.RawMessage
			dst  **int64
		}{{"dailyLimit", l.DailyLimit, &out.SpendingLimits.DailyLimit},
			{"dailyTransactionLimit", l.DailyTransactionLimit, &out.SpendingLimits.DailyTransactionLimit},
			{"monthlyLimit", l.MonthlyLimit, &out.SpendingLimits.MonthlyLimit}} {
			if err := setNullable(lf(m.name), m.raw, m.dst); err != nil {
				return Policy{}, err
			}
		}
	}
	if len(u.AccountRestrictions) > 0 {
		var r RestrictionsUpdate
		if err := setValue(f("accountRestrictions"), u.AccountRestrictions, &r); err != nil {
			return Policy{}, err
		}
		if err := setNullable(f("accountRestrictions.allowedAccountIds"), r.AllowedAccountIDs, &out.AccountRestrictions.AllowedAccountIDs); err != nil {
			return Policy{}, err
		}
		var rules []RuleInput
		if err := setValue(f("accountRestrictions.accountRules"), r.AccountRules, &rules); err != nil {
			return Policy{}, err
		}
		if given(r.AccountRules) {
			rulesGiven = true
			checked, err := rulesOf(f("accountRestrictions.accountRules"), rules)
			if err != nil {
				return Policy{}, err
			}
			out.AccountRestrictions.AccountRules = checked
		}
	}
	if len(u.ApprovalThresholds) > 0 {
		var t ThresholdsUpdate
		if err := setValue(f("approvalThresholds"), u.ApprovalThresholds, &t); err != nil {
			return Policy{}, err
		}
		if err := setValue(f("approvalThresholds.currency"), t.Currency, &out.ApprovalThresholds.Currency); err != nil {
			return Policy{}, err
		}
		if out.ApprovalThresholds.Currency != p.ApprovalThresholds.Currency && len(t.Amount) == 0 && p.ApprovalThresholds.Amount != nil {
			return Policy{}, problem.Field(f("approvalThresholds.amount"), "%s must be given with a new currency: it is an amount in its smallest unit",
				f("approvalThresholds.amount"))
		}
		if err := setNullable(f("approvalThresholds.amount"), t.Amount, &out.ApprovalThresholds.Amount); err != nil {
			return Policy{}, err
		}
	}
	if out.Permissions == nil {
		out.Permissions = []Permission{}
	}
	if err := out.Check(root); err != nil {
		return Policy{}, err
	}
	// An account rule's perTransactionLimit is in the limits' currency too: a new currency
	// restates the rules that carry one.
	if p.SpendingLimits.Currency != "" && out.SpendingLimits.Currency != p.SpendingLimits.Currency && !rulesGiven {
		for i, rule := range out.AccountRestrictions.AccountRules {
			if rule.PerTransactionLimit != nil {
				field := fmt.Sprintf("%s[%d].perTransactionLimit", f("accountRestrictions.accountRules"), i)
				return Policy{}, problem.Field(field, "%s is in %s: give accountRestrictions.accountRules again with the new currency %s",
					field, p.SpendingLimits.Currency, out.SpendingLimits.Currency)
			}
		}
	}
	return out, nil
}

func rulesOf(field string, in []RuleInput) ([]AccountRule, error) {
	out := make([]AccountRule, 0, len(in))
	for i, r := range in {
		rf := func(name string) string { return fmt.Sprintf("%s[%d].%s", field, i, name) }
		if !given(r.AccountID) {
			return nil, problem.Field(rf("accountId"), "%s is required", rf("accountId"))
		}
		var rule AccountRule
		if err := setValue(rf("accountId"), r.AccountID, &rule.AccountID); err != nil {
			return nil, err
		}
		if len(r.ExecutionMode) > 0 {
			var m ExecutionMode
			if err := setValue(rf("executionMode"), r.ExecutionMode, &m); err != nil {
				return nil, err
			}
			rule.ExecutionMode = &m
		}
		if err := setNullable(rf("perTransactionLimit"), r.PerTransactionLimit, &rule.PerTransactionLimit); err != nil {
			return nil, err
		}
		out = append(out, rule)
	}
	return out, nil
}

// given reports whether a member was sent with a value other than null.
func given(raw json.RawMessage) bool { return len(raw) > 0 && !isNull(raw) }

func isNull(raw json.RawMessage) bool { return string(raw) == "null" }

// setValue applies a member that may not be null: absent leaves *dst, null is refused, a
// value is decoded into *dst with the one request decoder (a wrong type is refused naming
// field).
func setValue[T any](field string, raw json.RawMessage, dst *T) error {
	switch {
	case len(raw) == 0:
		return nil
	case isNull(raw):
		return problem.Field(field, "%s must not be null", field)
	}
	var v T
	if err := decodeAt(field, raw, &v); err != nil {
		return err
	}
	*dst = v
	return nil
}

// decodeAt decodes raw (the member at field) into v with the one request decoder.
func decodeAt(field string, raw json.RawMessage, v any) error {
	if err := strictjson.DecodeAt(field, raw, v); err != nil {
		return problem.Field(fieldOf(err, field), "%s", err.Error())
	}
	return nil
}

// setNullable applies a nullable member as sent: absent (no bytes) leaves *dst, null sets
// it to its zero value (nil), anything else is decoded into it with the one request
// decoder (a wrong type is refused naming field).
func setNullable[T any](field string, raw json.RawMessage, dst *T) error {
	switch {
	case len(raw) == 0:
		return nil
	case isNull(raw):
		var zero T
		*dst = zero
		return nil
	}
	var v T
	if err := decodeAt(field, raw, &v); err != nil {
		return err
	}
	*dst = v
	return nil
}

// fieldOf is the field a decoding refusal names, field when it names none.
func fieldOf(err error, field string) string {
	if e, ok := err.(*strictjson.Error); ok && e.Field != "" {
		return e.Field
	}
	return field
}

// clone is a deep copy of p, so that merging never changes the policy it starts from.
func (p Policy) clone() Policy {
	out := p
	out.Permissions = slices.Clone(p.Permissions)
	out.SpendingLimits.DailyLimit = clonePtr(p.SpendingLimits.DailyLimit)
	out.SpendingLimits.DailyTransactionLimit = clonePtr(p.SpendingLimits.DailyTransactionLimit)
	out.SpendingLimits.MonthlyLimit = clonePtr(p.SpendingLimits.MonthlyLimit)
	out.AccountRestrictions.AllowedAccountIDs = slices.Clone(p.AccountRestrictions.AllowedAccountIDs)
	out.AccountRestrictions.AccountRules = make([]AccountRule, 0, len(p.AccountRestrictions.AccountRules))
	for _, r := range p.AccountRestrictions.AccountRules {
		r.ExecutionMode = clonePtr(r.ExecutionMode)
		r.PerTransactionLimit = clonePtr(r.PerTransactionLimit)
		out.AccountRestrictions.AccountRules = append(out.AccountRestrictions.AccountRules, r)
	}
	out.ApprovalThresholds.Amount = clonePtr(p.ApprovalThresholds.Amount)
	return out
}

func clonePtr[T any](v *T) *T {
	if v == nil {
		return nil
	}
	c := *v
	return &c
}

// Decode reads a stored policy (the JSON Policy marshals to).
func Decode(stored []byte) (Policy, error) {
	var p Policy
	if err := json.Unmarshal(stored, &p); err != nil {
		return Policy{}, fmt.Errorf("decode agent policy: %w", err)
	}
	if p.AccountRestrictions.AccountRules == nil {
		p.AccountRestrictions.AccountRules = []AccountRule{}
	}
	if p.Permissions == nil {
		p.Permissions = []Permission{}
	}
	return p, nil
}

// Encode is the stored (and shown) form of a checked policy.
func (p Policy) Encode() []byte {
	if p.Permissions == nil {
		p.Permissions = []Permission{}
	}
	if p.AccountRestrictions.AccountRules == nil {
		p.AccountRestrictions.AccountRules = []AccountRule{}
	}
	b, err := json.Marshal(p)
	if err != nil {
		panic("agentpolicy: a policy always encodes: " + err.Error()) // plain data
	}
	return b
}
