package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"paycore/internal/catalog"
	"paycore/internal/infra/umaclient"
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
		return nil, quote.NotUmaAddress(address, "destination.umaAddress")
	}
	target, _ := quote.PayoutTarget(in, acc)
	payer, payable := a.rails.InvoicePayer(target)
	if err := quote.CheckElsewhere(in, acc, payable); err != nil {
		return nil, err
	}
	lnurlp, keys, err := a.umaLnurlp(ctx, acc.Environment, acc.UmaDomain, acc.Regulated, address, "destination.umaAddress", now)
	if err != nil {
		return nil, err
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
	required := payerFields(lnurlp, info, &p)
	ask, err := quote.AskFor(in, acc, offered, a.ratesFor(acc.Environment), a.pricing, now, a.rails.FeeReserve(target))
	if err != nil {
		return nil, err
	}
	if err := quote.CheckPayer(in, acc, ask.Currency, required); err != nil {
		return nil, err
	}
	amount := uma.Amount(fmt.Sprint(ask.Amount))
	if ask.InCurrency {
		amount = uma.Amount(fmt.Sprintf("%d.%s", ask.Amount, ask.Currency))
	}
	most := int64(math.MaxInt64 / 4)
	if !ask.InCurrency {
		most = ask.Amount
	}
	resp, inv, err := a.umaInvoice(ctx, umaAsk{env: acc.Environment, address: address, domain: domain, field: "destination.umaAddress",
		regulated: acc.Regulated, lnurlp: lnurlp, keys: keys, payer: p, info: info, amount: amount, convert: ask.Currency,
		invoices: payer, maxMsats: most}, now)
	if err != nil {
		return nil, err
	}
	c := resp.Converted
	return &quote.Remote{Address: address, Domain: domain, Currency: c.CurrencyCode, Decimals: currencies[c.CurrencyCode].Decimals, Amount: c.Amount,
		Multiplier: c.Multiplier, Fee: c.Fee, Invoice: resp.PR, InvoiceMsat: inv.AmountMsat, ExpiresAt: inv.ExpiresAt, AnsweredAt: now,
		ReceiverName: resp.PayeeData.Name, UtxoCallback: resp.PayeeData.Compliance.UtxoCallback, PayerDomain: acc.UmaDomain, PayerFields: required}, nil
}

// umaLnurlp is the first half of a payment to the UMA address of another provider (of
// domain-less address), at now: the provider must not be blocked (the allowlist), and its
// answer to the LNURLP request, signed with the deployment's key for payerDomain, is
// returned with the deployment's keys. A refusal names field ("" for none): the address
// blocked (COUNTERPARTY_NOT_ALLOWED) or its provider's failure (LNURLP_FAILED).
func (a *Activities) umaLnurlp(ctx context.Context, env catalog.Environment, payerDomain string, regulated bool, address, field string, now time.Time) (uma.LnurlpResponse, uma.KeySet, error) {
	_, domain, err := uma.SplitAddress(address)
	if err != nil {
		return uma.LnurlpResponse{}, uma.KeySet{}, quote.NotUmaAddress(address, field)
	}
	listed, allowed, err := a.store.UmaProviderListed(ctx, domain)
	if err != nil {
		return uma.LnurlpResponse{}, uma.KeySet{}, err
	}
	if err := uma.CheckCounterparty(domain, listed, allowed, a.umaAllowlistOnly); err != nil {
		return uma.LnurlpResponse{}, uma.KeySet{}, quote.CounterpartyRefused(err, field)
	}
	keys, err := a.umaKeys(ctx, now)
	if err != nil {
		return uma.LnurlpResponse{}, uma.KeySet{}, err
	}
	lnurlp, err := a.umaClient.Lnurlp(ctx, env, keys.Signing, payerDomain, address, regulated)
	if err != nil {
		return uma.LnurlpResponse{}, uma.KeySet{}, umaclient.LnurlpRefusal(address, field, err)
	}
	return lnurlp, keys, nil
}

// payerFields fills p with what the receiver's provider asks of the payer (its name,
// e-mail) from info, and answers the payer fields it requires (uma.PayerFieldNames).
func payerFields(lnurlp uma.LnurlpResponse, info map[string]string, p *uma.Payer) []string {
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
	return required
}

// umaAsk is the second half of a payment to the UMA address of another provider: the pay
// request, for amount converted into convert, from payer, whose travel-rule data is info.
type umaAsk struct {
	env       catalog.Environment
	address   string
	domain    string
	field     string // the field a refusal names, "" for none
	regulated bool
	lnurlp    uma.LnurlpResponse
	keys      uma.KeySet
	payer     uma.Payer
	info      map[string]string
	amount    uma.Amount
	convert   string
	// invoices reads the invoice; maxMsats is the most it may ask.
	invoices rail.InvoicePayer
	maxMsats int64
}

// umaInvoice sends the pay request of r to the receiver's provider, at now, and answers its
// response with the invoice checked: it asks what the response says, at most r.maxMsats,
// payable past the quote's execution margin. A failure of the provider, or an invoice the
// service may not pay, is a refusal (PAYREQ_REQUEST_FAILED, failure PAY_REQUEST_FAILED).
func (a *Activities) umaInvoice(ctx context.Context, r umaAsk, now time.Time) (uma.PayReqResponse, rail.Invoice, error) {
	receiverKeys, err := a.umaClient.ProviderKeys(ctx, r.env, r.domain)
	if err != nil {
		return uma.PayReqResponse{}, rail.Invoice{}, umaclient.PayRequestRefusal(r.address, r.field, err)
	}
	p := r.payer
	if r.lnurlp.Compliance.IsSubjectToTravelRule && r.regulated && len(r.info) > 0 {
		b, err := json.Marshal(r.info)
		if err != nil {
			return uma.PayReqResponse{}, rail.Invoice{}, fmt.Errorf("encode the travel-rule data: %w", err)
		}
		p.TravelRuleInfo = string(b)
	}
	payee := map[string]uma.CounterpartyField{"identifier": {Mandatory: true}, "name": {Mandatory: false}, "compliance": {Mandatory: true}}
	req, err := uma.NewPayRequest(r.keys.Signing, receiverKeys.Encryption, r.amount, r.convert, p, payee, now)
	if err != nil {
		return uma.PayReqResponse{}, rail.Invoice{}, umaclient.PayRequestRefusal(r.address, r.field, err)
	}
	resp, err := a.umaClient.PayRequest(ctx, r.env, r.lnurlp.Callback, r.address, req)
	if err != nil {
		return uma.PayReqResponse{}, rail.Invoice{}, umaclient.PayRequestRefusal(r.address, r.field, err)
	}
	inv, err := r.invoices.ReadInvoice(ctx, resp.PR)
	var unpayable *rail.Unpayable
	if errors.As(err, &unpayable) {
		return uma.PayReqResponse{}, rail.Invoice{}, umaclient.PayRequestRefusal(r.address, r.field, fmt.Errorf("%w: %v", uma.ErrInvoiceMismatch, err))
	}
	if err != nil {
		return uma.PayReqResponse{}, rail.Invoice{}, err
	}
	if err := resp.CheckInvoice(req, inv.AmountMsat, inv.ExpiresAt, now.Add(2*quote.InvoiceMargin), r.maxMsats); err != nil {
		return uma.PayReqResponse{}, rail.Invoice{}, umaclient.PayRequestRefusal(r.address, r.field, err)
	}
	return resp, inv, nil
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
