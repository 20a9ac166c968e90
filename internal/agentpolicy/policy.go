// Package agentpolicy holds the policy an agent acts under: its permissions, its default
// execution mode (AUTO or APPROVAL_REQUIRED), spending limits in one currency, account
// restrictions with per-account rules, and an approval threshold. It checks a policy as a
// platform sends it (POST /agents), merges a partial update into a stored one
// (PATCH /agents/{agentId}/policy) and keeps the usage windows (UTC day and month) the
// limits are counted in. It is pure: no HTTP, database or Temporal.
package agentpolicy

import (
	"fmt"
	"slices"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/money"
	"paycore/internal/problem"
)

// Permission is what an agent may do (AgentPermission).
type Permission string

// The agent permissions.
const (
	// ViewTransactions lets an agent list and read its customer's transactions and balances.
	ViewTransactions Permission = "VIEW_TRANSACTIONS"
	// CreateTransfers lets an agent make same-currency transfers in and out.
	CreateTransfers Permission = "CREATE_TRANSFERS"
	// CreateQuotes lets an agent create quotes.
	CreateQuotes Permission = "CREATE_QUOTES"
	// ExecuteQuotes lets an agent execute quotes.
	ExecuteQuotes Permission = "EXECUTE_QUOTES"
	// ManageExternalAccounts lets an agent list, read, create and delete its customer's
	// external accounts.
	ManageExternalAccounts Permission = "MANAGE_EXTERNAL_ACCOUNTS"
)

// Permissions lists every permission, in the order the API documents them.
var Permissions = []Permission{ViewTransactions, CreateTransfers, CreateQuotes, ExecuteQuotes, ManageExternalAccounts}

// ExecutionMode says whether an agent's money movements run at once or wait for the
// platform's approval (AgentExecutionMode).
type ExecutionMode string

// The execution modes.
const (
	// Auto executes an action within the limits at once.
	Auto ExecutionMode = "AUTO"
	// ApprovalRequired makes every action wait for the platform's approval.
	ApprovalRequired ExecutionMode = "APPROVAL_REQUIRED"
)

// ExecutionModes lists every execution mode.
var ExecutionModes = []ExecutionMode{Auto, ApprovalRequired}

// Size limits of a policy.
const (
	// MaxAccounts is the most account ids allowedAccountIds may list, and the most rules
	// accountRules may hold.
	MaxAccounts = 100
)

// Policy is an agent's policy as stored and shown (AgentPolicy). Every member is always
// present once checked: a nil limit is unlimited, a nil AllowedAccountIDs allows every
// account of the customer (shown as null), AccountRules is never nil.
type Policy struct {
	Permissions          []Permission        `json:"permissions"`
	DefaultExecutionMode ExecutionMode       `json:"defaultExecutionMode"`
	SpendingLimits       SpendingLimits      `json:"spendingLimits"`
	AccountRestrictions  AccountRestrictions `json:"accountRestrictions"`
	ApprovalThresholds   ApprovalThresholds  `json:"approvalThresholds"`
}

// SpendingLimits are amounts in the smallest unit of Currency (AgentSpendingLimits);
// spending in another currency is converted at the rate of the moment it is evaluated.
type SpendingLimits struct {
	Currency            string `json:"currency"`
	PerTransactionLimit int64  `json:"perTransactionLimit"`
	// DailyLimit and MonthlyLimit are nil when unlimited (shown as null).
	DailyLimit *int64 `json:"dailyLimit"`
	// DailyTransactionLimit caps the number of transactions per UTC day; nil (absent)
	// when unlimited.
	DailyTransactionLimit *int64 `json:"dailyTransactionLimit,omitempty"`
	MonthlyLimit          *int64 `json:"monthlyLimit"`
}

// AccountRestrictions limit the internal accounts an agent may use
// (AgentAccountRestrictions).
type AccountRestrictions struct {
	// AllowedAccountIDs are InternalAccount ids; nil allows every account of the customer.
	AllowedAccountIDs []string      `json:"allowedAccountIds"`
	AccountRules      []AccountRule `json:"accountRules"`
}

// AccountRule overrides the policy for one internal account (AgentAccountRule).
type AccountRule struct {
	AccountID string `json:"accountId"`
	// ExecutionMode is nil when the account follows defaultExecutionMode.
	ExecutionMode *ExecutionMode `json:"executionMode,omitempty"`
	// PerTransactionLimit is nil when the account inherits spendingLimits'.
	PerTransactionLimit *int64 `json:"perTransactionLimit"`
}

// ApprovalThresholds ask for approval above an amount, even in AUTO
// (AgentApprovalThresholds).
type ApprovalThresholds struct {
	// Currency is required when Amount is set.
	Currency string `json:"currency,omitempty"`
	// Amount is nil when there is no threshold (shown as null).
	Amount *int64 `json:"amount"`
}

// Allows reports whether the policy grants perm.
func (p Policy) Allows(perm Permission) bool { return slices.Contains(p.Permissions, perm) }

// Require refuses an agent whose policy lacks perm: 403 FORBIDDEN naming the permission in
// details.permission.
func (p Policy) Require(perm Permission) error {
	if p.Allows(perm) {
		return nil
	}
	return problem.Refuse(catalog.Forbidden, "the agent's policy does not grant %s; its platform can add it (PATCH /agents/{agentId}/policy)", perm).
		With(map[string]any{"permission": string(perm)})
}

// AccountRef is an internal account a policy names, with the field that names it.
type AccountRef struct {
	Field string
	ID    uuid.UUID
}

// AccountRefs lists every internal account the policy names (allowed accounts and rules),
// each with the dotted path of the field naming it under root ("policy" on create, "" on a
// policy update). The policy must have been checked (the ids are well formed).
func (p Policy) AccountRefs(root string) []AccountRef {
	var out []AccountRef
	for i, s := range p.AccountRestrictions.AllowedAccountIDs {
		if id, err := ids.Parse(ids.InternalAccount, s); err == nil {
			out = append(out, AccountRef{Field: path(root, fmt.Sprintf("accountRestrictions.allowedAccountIds[%d]", i)), ID: id})
		}
	}
	for i, r := range p.AccountRestrictions.AccountRules {
		if id, err := ids.Parse(ids.InternalAccount, r.AccountID); err == nil {
			out = append(out, AccountRef{Field: path(root, fmt.Sprintf("accountRestrictions.accountRules[%d].accountId", i)), ID: id})
		}
	}
	return out
}

// Check checks a complete policy; field errors name members under root. It is the one
// check of a policy: a created one, and a stored one after an update was merged into it.
func (p Policy) Check(root string) error {
	f := func(name string) string { return path(root, name) }
	for i, perm := range p.Permissions {
		if !slices.Contains(Permissions, perm) {
			return problem.Field(fmt.Sprintf("%s[%d]", f("permissions"), i), "%s[%d]: unknown permission %q (allowed: %s)",
				f("permissions"), i, perm, joined(Permissions))
		}
		if slices.Index(p.Permissions, perm) != i {
			return problem.Field(fmt.Sprintf("%s[%d]", f("permissions"), i), "%s[%d]: %s is listed twice", f("permissions"), i, perm)
		}
	}
	if !slices.Contains(ExecutionModes, p.DefaultExecutionMode) {
		return problem.Field(f("defaultExecutionMode"), "%s must be one of %s", f("defaultExecutionMode"), joined(ExecutionModes))
	}
	if err := p.SpendingLimits.check(f("spendingLimits")); err != nil {
		return err
	}
	if err := p.AccountRestrictions.check(f("accountRestrictions")); err != nil {
		return err
	}
	return p.ApprovalThresholds.check(f("approvalThresholds"))
}

func (l SpendingLimits) check(root string) error {
	f := func(name string) string { return path(root, name) }
	if err := checkCurrency(f("currency"), l.Currency); err != nil {
		return err
	}
	for _, m := range []struct {
		name string
		v    *int64
	}{{"perTransactionLimit", &l.PerTransactionLimit}, {"dailyLimit", l.DailyLimit},
		{"dailyTransactionLimit", l.DailyTransactionLimit}, {"monthlyLimit", l.MonthlyLimit}} {
		if err := checkNonNegative(f(m.name), m.v); err != nil {
			return err
		}
	}
	return nil
}

func (r AccountRestrictions) check(root string) error {
	f := func(name string) string { return path(root, name) }
	if len(r.AllowedAccountIDs) > MaxAccounts {
		return problem.Field(f("allowedAccountIds"), "%s may list at most %d accounts", f("allowedAccountIds"), MaxAccounts)
	}
	for i, id := range r.AllowedAccountIDs {
		field := fmt.Sprintf("%s[%d]", f("allowedAccountIds"), i)
		if err := checkAccountID(field, id); err != nil {
			return err
		}
		if slices.Index(r.AllowedAccountIDs, id) != i {
			return problem.Field(field, "%s: %s is listed twice", field, id)
		}
	}
	if len(r.AccountRules) > MaxAccounts {
		return problem.Field(f("accountRules"), "%s may hold at most %d rules", f("accountRules"), MaxAccounts)
	}
	seen := map[string]bool{}
	for i, rule := range r.AccountRules {
		rf := func(name string) string { return fmt.Sprintf("%s[%d].%s", f("accountRules"), i, name) }
		if err := checkAccountID(rf("accountId"), rule.AccountID); err != nil {
			return err
		}
		if seen[rule.AccountID] {
			return problem.Field(rf("accountId"), "%s: %s already has a rule", rf("accountId"), rule.AccountID)
		}
		seen[rule.AccountID] = true
		if r.AllowedAccountIDs != nil && !slices.Contains(r.AllowedAccountIDs, rule.AccountID) {
			return problem.Field(rf("accountId"), "%s: %s is not in %s, so the agent cannot use it and a rule for it has no effect",
				rf("accountId"), rule.AccountID, f("allowedAccountIds"))
		}
		if rule.ExecutionMode != nil && !slices.Contains(ExecutionModes, *rule.ExecutionMode) {
			return problem.Field(rf("executionMode"), "%s must be one of %s", rf("executionMode"), joined(ExecutionModes))
		}
		if err := checkNonNegative(rf("perTransactionLimit"), rule.PerTransactionLimit); err != nil {
			return err
		}
	}
	return nil
}

func (t ApprovalThresholds) check(root string) error {
	f := func(name string) string { return path(root, name) }
	if err := checkNonNegative(f("amount"), t.Amount); err != nil {
		return err
	}
	if t.Currency == "" {
		if t.Amount != nil {
			return problem.Field(f("currency"), "%s is required when %s is set", f("currency"), f("amount"))
		}
		return nil
	}
	return checkCurrency(f("currency"), t.Currency)
}

func checkCurrency(field, code string) error {
	if _, ok := money.Lookup(code); !ok {
		return problem.FieldCode(catalog.InvalidCurrency, field, "%s: %q is not a supported ISO 4217 code or crypto ticker", field, code)
	}
	return nil
}

func checkNonNegative(field string, v *int64) error {
	if v != nil && *v < 0 {
		return problem.Field(field, "%s must not be negative (an amount in the smallest unit of the currency)", field)
	}
	return nil
}

func checkAccountID(field, s string) error {
	if _, err := ids.Parse(ids.InternalAccount, s); err != nil {
		return problem.Field(field, "%s must be an internal account id (InternalAccount:<uuid>), not %q", field, s)
	}
	return nil
}

// path joins a member name under root with a dot ("policy" + "permissions").
func path(root, name string) string {
	if root == "" {
		return name
	}
	return root + "." + name
}

func joined[T ~string](values []T) string {
	out := ""
	for i, v := range values {
		if i > 0 {
			out += ", "
		}
		out += string(v)
	}
	return out
}
