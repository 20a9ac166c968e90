package agent

import (
	"github.com/google/uuid"

	"paycore/internal/account"
	"paycore/internal/catalog"
	"paycore/internal/extaccount"
	"paycore/internal/ids"
	"paycore/internal/problem"
	"paycore/internal/quote"
)

// CheckQuote is the agent's rule for a quote it creates for customerID, before the quote
// rule prices it: the source is an internal account of the customer that is not an
// embedded wallet (money leaves one only with the customer's session signature, which an
// agent cannot give), the quote is not executed at creation (an execution is an action,
// under the policy), and a destination account is the customer's own (other people are
// paid by UMA address). An account that is not the customer's is 404, as for any other
// object an agent cannot see.
func CheckQuote(customerID uuid.UUID, r quote.Request, acc quote.Accounts) error {
	own := uuid.NullUUID{UUID: customerID, Valid: true}
	switch {
	case r.Source.Kind != quote.SourceAccount:
		return problem.Field("source.accountId", "an agent's quote is paid from an internal account of its customer (source.accountId)")
	case r.Source.CustomerID.Valid && r.Source.CustomerID.UUID != customerID:
		return problem.Field("source.customerId", "source.customerId must be the agent's customer (or omitted)")
	case r.ImmediatelyExecute:
		return problem.Field("immediatelyExecute", "an agent executes a quote with POST /agents/me/quotes/{quoteId}/execute, under its policy")
	case r.PlatformFeeOverride != nil:
		return problem.Field("platformFeeOverride", "the platform's fee is the platform's to set: an agent's quote pays the platform's configured fee")
	case acc.Source == nil || acc.Source.CustomerID != own:
		return account.NotFound()
	case acc.Source.Type == catalog.EmbeddedWallet:
		return WalletRefused(acc.Source.ID)
	case r.Destination.Kind == quote.DestinationAccount && (acc.Destination == nil || acc.Destination.CustomerID != own):
		if r.Destination.Internal {
			return problem.NotFound(catalog.AccountNotFound, "destination account")
		}
		return extaccount.NotFound()
	}
	return nil
}

// WalletRefused refuses money leaving the embedded wallet accountID on an agent's behalf:
// only the customer's session signature moves it, and an agent cannot give one (403
// FORBIDDEN naming the account).
func WalletRefused(accountID uuid.UUID) error {
	return problem.Refuse(catalog.Forbidden, "money leaves an embedded wallet only with the customer's session signature, which an agent cannot give").
		With(map[string]any{"accountId": ids.Format(ids.InternalAccount, accountID)})
}
