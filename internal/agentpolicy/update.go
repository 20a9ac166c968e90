package agentpolicy

import (
	"encoding/json"
	"fmt"
	"slices"

	"paycore/internal/problem"
	"paycore/internal/strictjson"
)

// Update is a policy as a platform sends it: the policy of POST /agents (AgentPolicy,
// whose required members New asks for) or the body of PATCH /agents/{agentId}/policy
// (AgentPolicyUpdateRequest, every member optional). Pointers tell an absent member from a
// given one; the members that may be null are kept raw (json.RawMessage), so that an
// explicit null (unlimited, all accounts, no threshold) is told from an absent member
// (unchanged).
type Update struct {
	Permissions          *[]string           `json:"permissions"`
	DefaultExecutionMode *string             `json:"defaultExecutionMode"`
	SpendingLimits       *LimitsUpdate       `json:"spendingLimits"`
	AccountRestrictions  *RestrictionsUpdate `json:"accountRestrictions"`
	ApprovalThresholds   *ThresholdsUpdate   `json:"approvalThresholds"`
}

// LimitsUpdate is spendingLimits as sent (AgentSpendingLimits, AgentSpendingLimitsUpdate).
type LimitsUpdate struct {
	Currency            *string `json:"currency"`
	PerTransactionLimit *int64  `json:"perTransactionLimit"`
	// DailyLimit and MonthlyLimit: an integer, or null for unlimited.
	DailyLimit json.RawMessage `json:"dailyLimit"`
	// DailyTransactionLimit: an integer; null (unlimited) is accepted too, so that an
	// update can lift the limit.
	DailyTransactionLimit json.RawMessage `json:"dailyTransactionLimit"`
	MonthlyLimit          json.RawMessage `json:"monthlyLimit"`
}

// RestrictionsUpdate is accountRestrictions as sent.
type RestrictionsUpdate struct {
	// AllowedAccountIDs: an array of InternalAccount ids, or null for every account.
	AllowedAccountIDs json.RawMessage `json:"allowedAccountIds"`
	// AccountRules replace the stored rules as a whole when given.
	AccountRules *[]RuleInput `json:"accountRules"`
}

// RuleInput is one accountRules entry as sent.
type RuleInput struct {
	AccountID     *string `json:"accountId"`
	ExecutionMode *string `json:"executionMode"`
	// PerTransactionLimit: an integer, or null (or absent) to inherit spendingLimits'.
	PerTransactionLimit json.RawMessage `json:"perTransactionLimit"`
}

// ThresholdsUpdate is approvalThresholds as sent.
type ThresholdsUpdate struct {
	Currency *string `json:"currency"`
	// Amount: an integer, or null for no threshold.
	Amount json.RawMessage `json:"amount"`
}

// New is the policy of a new agent: u must give permissions, defaultExecutionMode and
// spendingLimits with its currency and perTransactionLimit; everything else defaults to
// unlimited, every account, no rules and no threshold. Field errors name members under
// root ("policy").
func New(root string, u Update) (Policy, error) {
	f := func(name string) string { return path(root, name) }
	switch {
	case u.Permissions == nil:
		return Policy{}, problem.Field(f("permissions"), "%s is required (it may be an empty array)", f("permissions"))
	case u.DefaultExecutionMode == nil:
		return Policy{}, problem.Field(f("defaultExecutionMode"), "%s is required: %s", f("defaultExecutionMode"), joined(ExecutionModes))
	case u.SpendingLimits == nil:
		return Policy{}, problem.Field(f("spendingLimits"), "%s is required", f("spendingLimits"))
	case u.SpendingLimits.Currency == nil:
		return Policy{}, problem.Field(f("spendingLimits.currency"), "%s is required", f("spendingLimits.currency"))
	case u.SpendingLimits.PerTransactionLimit == nil:
		return Policy{}, problem.Field(f("spendingLimits.perTransactionLimit"), "%s is required", f("spendingLimits.perTransactionLimit"))
	}
	return Policy{AccountRestrictions: AccountRestrictions{AccountRules: []AccountRule{}}}.Apply(root, u)
}

// Apply merges u into p and checks the result: only the members u gives change, member by
// member inside spendingLimits, accountRestrictions and approvalThresholds; permissions and
// accountRules are replaced as a whole. An explicit null sets a nullable member to null
// (unlimited, every account, inherit, no threshold). Field errors name members under root.
// p itself is left unchanged.
func (p Policy) Apply(root string, u Update) (Policy, error) {
	f := func(name string) string { return path(root, name) }
	out := p.clone()
	if u.Permissions != nil {
		out.Permissions = make([]Permission, 0, len(*u.Permissions))
		for _, s := range *u.Permissions {
			out.Permissions = append(out.Permissions, Permission(s))
		}
	}
	if u.DefaultExecutionMode != nil {
		out.DefaultExecutionMode = ExecutionMode(*u.DefaultExecutionMode)
	}
	if l := u.SpendingLimits; l != nil {
		if l.Currency != nil {
			out.SpendingLimits.Currency = *l.Currency
		}
		if l.PerTransactionLimit != nil {
			out.SpendingLimits.PerTransactionLimit = *l.PerTransactionLimit
		}
		for _, m := range []struct {
			name string
			raw  json.RawMessage
			dst  **int64
		}{{"dailyLimit", l.DailyLimit, &out.SpendingLimits.DailyLimit},
			{"dailyTransactionLimit", l.DailyTransactionLimit, &out.SpendingLimits.DailyTransactionLimit},
			{"monthlyLimit", l.MonthlyLimit, &out.SpendingLimits.MonthlyLimit}} {
			if err := setNullable(f("spendingLimits."+m.name), m.raw, m.dst); err != nil {
				return Policy{}, err
			}
		}
	}
	if r := u.AccountRestrictions; r != nil {
		if err := setNullable(f("accountRestrictions.allowedAccountIds"), r.AllowedAccountIDs, &out.AccountRestrictions.AllowedAccountIDs); err != nil {
			return Policy{}, err
		}
		if r.AccountRules != nil {
			rules, err := rulesOf(f("accountRestrictions.accountRules"), *r.AccountRules)
			if err != nil {
				return Policy{}, err
			}
			out.AccountRestrictions.AccountRules = rules
		}
	}
	if t := u.ApprovalThresholds; t != nil {
		if t.Currency != nil {
			out.ApprovalThresholds.Currency = *t.Currency
		}
		if err := setNullable(f("approvalThresholds.amount"), t.Amount, &out.ApprovalThresholds.Amount); err != nil {
			return Policy{}, err
		}
	}
	if err := out.Check(root); err != nil {
		return Policy{}, err
	}
	return out, nil
}

func rulesOf(field string, in []RuleInput) ([]AccountRule, error) {
	out := make([]AccountRule, 0, len(in))
	for i, r := range in {
		rf := func(name string) string { return fmt.Sprintf("%s[%d].%s", field, i, name) }
		if r.AccountID == nil {
			return nil, problem.Field(rf("accountId"), "%s is required", rf("accountId"))
		}
		rule := AccountRule{AccountID: *r.AccountID}
		if r.ExecutionMode != nil {
			m := ExecutionMode(*r.ExecutionMode)
			rule.ExecutionMode = &m
		}
		if err := setNullable(rf("perTransactionLimit"), r.PerTransactionLimit, &rule.PerTransactionLimit); err != nil {
			return nil, err
		}
		out = append(out, rule)
	}
	return out, nil
}

// setNullable applies a nullable member as sent: absent (no bytes) leaves *dst, null sets
// it to its zero value (nil), anything else is decoded into it with the one request
// decoder (a wrong type is refused naming field).
func setNullable[T any](field string, raw json.RawMessage, dst *T) error {
	switch {
	case len(raw) == 0:
		return nil
	case string(raw) == "null":
		var zero T
		*dst = zero
		return nil
	}
	var v T
	if err := strictjson.DecodeAt(field, raw, &v); err != nil {
		return problem.Field(fieldOf(err, field), "%s", err.Error())
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
