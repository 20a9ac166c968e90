package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"paycore/internal/catalog"
	"paycore/internal/infra/umaclient"
	"paycore/internal/problem"
	"paycore/internal/quote"
	"paycore/internal/rail"
	"paycore/internal/uma"
)

// The sending side of UMA: a quote to a receiver of another provider asks that provider,
// before the quote is priced, for the receiver's currencies (LNURLP) and then for an invoice
// (the pay request), both signed with the deployment's key for the platform's UMA domain
// and sent through the outbound-address guard.

// askElsewhere asks the provider of the quote's receiver elsewhere for the invoice the
// quote will pay (see quote.AskFor), at the moment now, and answers it checked: the
// receiver's answer signed by its provider, and an invoice that asks what the answer says,
// payable past the quote's execution margin. A failure of the provider, or an answer the
// service may not pay, is a refusal: nothing is created or held.
func (a *Activities) askElsewhere(ctx context.Context, in quote.Request, acc quote.Accounts, now time.Time) (*quote.Remote, error) {
	// Every request to the provider shares one deadline, within the create step's own
	// time: a provider that answers each request just within the guard's timeout is
	// refused (no answer in time) rather than timing the step out to be asked again.
	ctx, cancel := context.WithTimeout(ctx, askTimeout)
	defer cancel()
	address := in.Destination.UmaAddress
	_, domain, err := uma.SplitAddress(address)
	if err != nil {
		return nil, problem.FieldCode(catalog.InvalidUmaAddress, "destination.umaAddress", "%s is not a UMA address ($name@domain)", address)
	}
	target, _ := quote.PayoutTarget(in, acc)
	payer, payable := a.rails.InvoicePayer(target)
	if err := quote.CheckElsewhere(in, acc, payable); err != nil {
		return nil, err
	}
	listed, allowed, err := a.store.UmaProviderListed(ctx, domain)
	if err != nil {
		return nil, err
	}
	if err := uma.CheckCounterparty(domain, listed, allowed, a.umaAllowlistOnly); err != nil {
		return nil, problem.Refuse(catalog.CounterpartyNotAllowed, "%v", err).With(map[string]any{"field": "destination.umaAddress"})
	}
	keys, err := a.umaKeys(ctx, now)
	if err != nil {
		return nil, err
	}
	lnurlp, err := a.umaClient.Lnurlp(ctx, acc.Environment, keys.Signing, acc.UmaDomain, address, acc.Regulated)
	if err != nil {
		return nil, lnurlpFailed(address, err)
	}
	offered := make([]string, 0, len(lnurlp.Currencies))
	currencies := map[string]uma.Currency{}
	for _, c := range lnurlp.Currencies {
		offered = append(offered, c.Code)
		currencies[c.Code] = c
	}
	info := maps.Clone(acc.Sender)
	if info == nil {
		info = map[string]string{}
	}
	maps.Copy(info, in.SenderCustomerInfo)
	p := uma.Payer{Identifier: acc.SenderUma, KycStatus: "VERIFIED",
		UtxoCallback: uma.UtxoCallbackURL(acc.UmaDomain, in.TransactionID)}
	var required []string
	for key, f := range lnurlp.PayerData {
		name, known := uma.PayerFieldNames[key]
		if !known {
			continue
		}
		if f.Mandatory {
			required = append(required, name)
		}
		switch key {
		case "name":
			p.Name = info["FULL_NAME"]
		case "email":
			p.Email = info["EMAIL"]
		}
	}
	slices.Sort(required)
	ask, err := quote.AskFor(in, acc, offered, a.ratesFor(acc.Environment), a.pricing, now, a.rails.FeeReserve(target))
	if err != nil {
		return nil, err
	}
	if err := quote.CheckPayer(in, acc, ask.Currency, required); err != nil {
		return nil, err
	}
	receiverKeys, err := a.umaClient.ProviderKeys(ctx, acc.Environment, domain)
	if err != nil {
		return nil, payRequestFailed(address, err)
	}
	if lnurlp.Compliance.IsSubjectToTravelRule && acc.Regulated && len(info) > 0 {
		b, err := json.Marshal(info)
		if err != nil {
			return nil, fmt.Errorf("encode the travel-rule data: %w", err)
		}
		p.TravelRuleInfo = string(b)
	}
	amount := uma.Amount(fmt.Sprint(ask.Amount))
	if ask.InCurrency {
		amount = uma.Amount(fmt.Sprintf("%d.%s", ask.Amount, ask.Currency))
	}
	payee := map[string]uma.CounterpartyField{"identifier": {Mandatory: true}, "name": {Mandatory: false}, "compliance": {Mandatory: true}}
	req, err := uma.NewPayRequest(keys.Signing, receiverKeys.Encryption, amount, ask.Currency, p, payee, now)
	if err != nil {
		return nil, payRequestFailed(address, err)
	}
	resp, err := a.umaClient.PayRequest(ctx, acc.Environment, lnurlp.Callback, address, req)
	if err != nil {
		return nil, payRequestFailed(address, err)
	}
	inv, err := payer.ReadInvoice(ctx, resp.PR)
	var unpayable *rail.Unpayable
	if errors.As(err, &unpayable) {
		return nil, payRequestFailed(address, fmt.Errorf("%w: %v", uma.ErrInvoiceMismatch, err))
	}
	if err != nil {
		return nil, err
	}
	most := int64(math.MaxInt64 / 4)
	if !ask.InCurrency {
		most = ask.Amount
	}
	if err := resp.CheckInvoice(req, inv.AmountMsat, inv.ExpiresAt, now.Add(2*quote.InvoiceMargin), most); err != nil {
		return nil, payRequestFailed(address, err)
	}
	c := resp.Converted
	return &quote.Remote{Address: address, Domain: domain, Currency: c.CurrencyCode, Decimals: currencies[c.CurrencyCode].Decimals, Amount: c.Amount,
		Multiplier: c.Multiplier, Fee: c.Fee, Invoice: resp.PR, InvoiceMsat: inv.AmountMsat, ExpiresAt: inv.ExpiresAt, AnsweredAt: now,
		ReceiverName: resp.PayeeData.Name, UtxoCallback: resp.PayeeData.Compliance.UtxoCallback, PayerDomain: acc.UmaDomain, PayerFields: required}, nil
}

// askTimeout bounds everything a quote asks a receiver's provider (its keys, the LNURLP
// request, the pay request): less than the quote's create step may take (15 s), so that a
// slow provider is a refusal, not a step retried.
const askTimeout = 12 * time.Second

// umaKeys are the deployment's UMA keys, made on first use, opened once while they stay the
// current set (uma.OpenedKeys).
func (a *Activities) umaKeys(ctx context.Context, now time.Time) (uma.KeySet, error) {
	sealed, err := a.store.UmaKeysCurrentOrNew(ctx, func() (uma.SealedKeySet, error) { return uma.NewSealedKeySet(a.box, now) }, now)
	if err != nil {
		return uma.KeySet{}, err
	}
	keys, err := a.umaOpened.Open(sealed, a.box)
	if err != nil {
		return uma.KeySet{}, fmt.Errorf("open the UMA keys: %w", err)
	}
	return keys, nil
}

// lnurlpFailed is the refusal of a quote whose receiver's provider did not answer the
// LNURLP request as UMA requires: INVALID_UMA_ADDRESS, failure LNURLP_FAILED, with the
// protocol's code of the cause where there is one. The service's own failures (its
// database) are returned as they are, to be retried.
func lnurlpFailed(address string, err error) error {
	details, ok := umaclient.Failure(err, umaclient.ErrLnurlpFailed, "LNURLP_FAILED")
	if !ok {
		return err
	}
	return problem.FieldCode(catalog.InvalidUmaAddress, "destination.umaAddress",
		"the UMA provider of %s did not answer the LNURLP request as UMA requires: %v", address, err).With(details)
}

// payRequestFailed is the refusal of a quote whose receiver's provider did not answer its
// pay request with an invoice the service may pay: 424 PAYREQ_REQUEST_FAILED, failure
// PAY_REQUEST_FAILED, with the protocol's code of the cause where there is one.
func payRequestFailed(address string, err error) error {
	details, ok := umaclient.Failure(err, umaclient.ErrPayRequestFailed, "PAY_REQUEST_FAILED")
	if !ok {
		return err
	}
	details["field"] = "destination.umaAddress"
	return problem.Refuse(catalog.PayreqRequestFailed,
		"the UMA provider of %s did not answer the pay request with an invoice this service may pay: %s", address, strings.TrimPrefix(err.Error(), "uma: ")).With(details)
}
