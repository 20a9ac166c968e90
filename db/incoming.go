package db

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/events"
	"paycore/internal/ids"
	"paycore/internal/incoming"
	"paycore/internal/platformconfig"
)

// IncomingCreated is an incoming payment as created: its transaction, the
// INCOMING_PAYMENT_PENDING event that asks the platform to approve it, and what the
// service knows of the receiver.
type IncomingCreated struct {
	Transaction Transaction
	EventID     uuid.UUID
	Receiver    map[string]string
}

// IncomingCreate creates a payment received over UMA in one database transaction: it
// reads what the sender's address is on this deployment and the receiving customer with
// its open account in the payment's currency and its platform's configuration, lets
// incoming.CheckCreate refuse them, then writes the PENDING INCOMING transaction and its
// INCOMING_PAYMENT_PENDING event, which the payment's workflow delivers itself as the
// approval request (the relay leaves it). Creating an existing payment again changes
// nothing.
func (s Store) IncomingCreate(ctx context.Context, r incoming.Request, now time.Time) (IncomingCreated, error) {
	var out IncomingCreated
	err := s.createOnce(ctx, func(q *queries) (bool, error) {
		t, found, err := earlierTransaction(ctx, q, r.TransactionID)
		if !found {
			return false, err
		}
		ev, err := q.WebhookEventFind(ctx, WebhookEventFindParams{PlatformID: t.PlatformID, Type: events.IncomingPaymentPending,
			TransactionRef: ids.Format(ids.Transaction, t.ID)})
		if err != nil {
			return false, fmt.Errorf("find approval event: %w", err)
		}
		out = IncomingCreated{Transaction: t, EventID: ev, Receiver: receiverInfo(t)}
		return true, nil
	}, func(q *queries) error {
		home, err := q.UmaAddressHome(ctx, UmaAddressHomeParams{Domain: r.Sender.Domain(), Address: r.Sender.Address})
		if err != nil {
			return fmt.Errorf("find the sender's platform: %w", err)
		}
		rc, receiver, err := incomingReceiverGet(ctx, q, r)
		if err != nil {
			return err
		}
		if err := incoming.CheckCreate(r, incoming.SenderHome{Held: home.Held, Customer: home.Customer}, receiver); err != nil {
			return err
		}
		info := map[string]string{}
		for k, v := range r.Sender.Information {
			info[k] = v
		}
		info["FULL_NAME"] = r.Sender.Name()
		counterparty, err := json.Marshal(info)
		if err != nil {
			return fmt.Errorf("encode counterparty: %w", err)
		}
		sender := r.Sender.Address
		params := TransactionCreateParams{ID: r.TransactionID, PlatformID: r.PlatformID, CustomerID: uuid.NullUUID{UUID: rc.ID, Valid: true},
			PlatformCustomerID: rc.PlatformCustomerID, Kind: incoming.Kind, Type: catalog.Incoming, Status: catalog.TxPending,
			SourceKind: string(catalog.EndpointUma), DestinationKind: string(catalog.EndpointInternal), DestinationAccountID: uuid.NullUUID{UUID: rc.AccountID, Valid: true},
			Currency: r.Currency, Amount: r.Amount, Reference: s.views.Reference(r.TransactionID), CounterpartyInformation: counterparty,
			SourceUmaAddress: &sender}
		if c := r.Collect; c != nil {
			// Collected in satoshis: what the payer sends, at the conversion the receiver
			// locked (serviceApiMultiplier: millisatoshis per smallest unit received).
			btc := "BTC"
			params.SentCurrency, params.SentAmount = &btc, &c.Sats
			if params.RateDetails, err = json.Marshal(map[string]any{"serviceApiMultiplier": c.Multiplier, "serviceApiFixedFee": 0,
				"serviceApiVariableFeeRate": 0, "serviceApiVariableFeeAmount": 0}); err != nil {
				return fmt.Errorf("encode rate details: %w", err)
			}
		}
		t, err := q.TransactionCreate(ctx, params)
		if err != nil {
			return fmt.Errorf("create transaction: %w", err)
		}
		if r.ForQuote.Valid {
			if err := q.TransactionLinkCounterpart(ctx, TransactionLinkCounterpartParams{ID: r.ForQuote.UUID, Counterpart: uuid.NullUUID{UUID: t.ID, Valid: true}}); err != nil {
				return fmt.Errorf("link counterpart: %w", err)
			}
		}
		ev, err := eventRecord(ctx, q, r.PlatformID, events.IncomingPaymentPending, s.views.IncomingPending(t, incoming.RequiredPayeeFields), &now)
		if err != nil {
			return err
		}
		known := map[string]string{}
		if rc.FullName != "" {
			known["FULL_NAME"] = rc.FullName
		}
		out = IncomingCreated{Transaction: t, EventID: ev.ID, Receiver: known}
		return nil
	})
	return out, err
}

// receiverInfo is what the service knows of an existing incoming payment's receiver.
func receiverInfo(t Transaction) map[string]string {
	var info map[string]string
	_ = json.Unmarshal(t.ReceiverCustomerInfo, &info) // absent until approved
	return info
}

// incomingReceiverGet reads the receiving customer r names, with its open account in r's
// currency and its platform's configuration, and what the create rule reads of them (nil:
// the platform has no such customer).
func incomingReceiverGet(ctx context.Context, q *queries, r incoming.Request) (IncomingReceiverRow, *incoming.Receiver, error) {
	rc, err := q.IncomingReceiver(ctx, IncomingReceiverParams{PlatformID: r.PlatformID, Currency: r.Currency, UmaAddress: r.ReceiverUma,
		CustomerID: r.ReceiverCustomer.UUID})
	if IsNotFound(err) {
		return rc, nil, nil
	}
	if err != nil {
		return rc, nil, fmt.Errorf("find receiver: %w", err)
	}
	cur, err := platformconfig.DecodeCurrencies(rc.SupportedCurrencies)
	if err != nil {
		return rc, nil, err
	}
	return rc, &incoming.Receiver{Deleted: rc.IsDeleted, HasAccount: rc.AccountID != uuid.Nil, AccountStatus: catalog.AccountStatus(rc.AccountStatus),
		Currencies: cur}, nil
}
