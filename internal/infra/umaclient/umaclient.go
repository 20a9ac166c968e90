// Package umaclient is the service's side of the UMA protocol that talks to other providers
// over HTTP, always through the outbound-address guard: their published keys, fetched and
// cached for as long as they allow, and the LNURLP request of a payment's sender.
package umaclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"paycore/internal/catalog"
	"paycore/internal/infra/netguard"
	"paycore/internal/quote"
	"paycore/internal/uma"
)

// KeyCache keeps providers' key responses (db.Store).
type KeyCache interface {
	UmaProviderKeys(ctx context.Context, domain string, now time.Time) (json.RawMessage, time.Time, error)
	UmaProviderKeysPut(ctx context.Context, domain string, response json.RawMessage, now, expires time.Time) error
}

// Client talks to other providers.
type Client struct {
	Cache KeyCache
	// Nonces takes the nonces of the responses received, once.
	Nonces Nonces
	// HTTP is the guarded client for a platform environment's requests (production: public
	// addresses only), following no redirect.
	HTTP func(env catalog.Environment) *http.Client
	Now  func() time.Time
}

// maxAnswer is the largest answer of a provider read.
const maxAnswer = 64 << 10

// MaxKeyCache is the longest a provider's keys are kept, whatever it allows.
const MaxKeyCache = 24 * time.Hour

// ProviderKeys are the keys the provider of domain publishes, checked now: from the cache
// while they are fresh, else fetched from https://<domain>/.well-known/lnurlpubkey and
// cached until the provider's expirationTimestamp (at most MaxKeyCache; not at all when it
// gives none). uma.ErrKeysUnavailable when they cannot be fetched, ErrInvalidPubKeyResponse
// when the answer is not a key response, and the chains' own errors.
func (c *Client) ProviderKeys(ctx context.Context, env catalog.Environment, domain string) (uma.ProviderKeys, error) {
	now := c.Now()
	if raw, _, err := c.Cache.UmaProviderKeys(ctx, domain, now); err == nil {
		if keys, err := parseKeys(raw, now); err == nil {
			return keys, nil
		}
	}
	raw, err := netguard.Fetch(ctx, c.HTTP(env), uma.Scheme(domain)+"://"+domain+"/.well-known/lnurlpubkey", maxAnswer)
	if err != nil {
		return uma.ProviderKeys{}, fmt.Errorf("%w: %s: %v", uma.ErrKeysUnavailable, domain, err)
	}
	keys, err := parseKeys(raw, now)
	if err != nil {
		return uma.ProviderKeys{}, fmt.Errorf("keys of %s: %w", domain, err)
	}
	expires := keys.Expires
	if limit := now.Add(MaxKeyCache); expires.After(limit) {
		expires = limit
	}
	if expires.After(now) {
		if err := c.Cache.UmaProviderKeysPut(ctx, domain, raw, now, expires); err != nil {
			return uma.ProviderKeys{}, err
		}
	}
	return keys, nil
}

func parseKeys(raw json.RawMessage, now time.Time) (uma.ProviderKeys, error) {
	var p uma.PubKeyResponse
	if err := json.Unmarshal(raw, &p); err != nil {
		return uma.ProviderKeys{}, fmt.Errorf("%w: %v", uma.ErrInvalidPubKeyResponse, err)
	}
	return p.Keys(now)
}

// Nonces takes the nonces of signed messages received (db.Store).
type Nonces interface {
	UmaNonceTake(ctx context.Context, domain, nonce string, signedAt, now time.Time) error
}

// ErrLnurlpFailed is an LNURLP request that got no usable answer: the provider did not
// answer, answered another status, or answered something that is not an UMA response for
// the address (LNURLP_REQUEST_FAILED).
var ErrLnurlpFailed = errors.New("uma: the LNURLP request failed")

// Lnurlp sends the LNURLP request for receiverAddress (UMAD-03), signed with key for the
// provider of senderDomain, and answers the receiver's response once checked (UMAD-04): in
// version 1, for that address, with currencies, its compliance data signed by the
// receiver's provider (its keys fetched as ProviderKeys does), timestamped in the window,
// and its nonce taken once.
func (c *Client) Lnurlp(ctx context.Context, env catalog.Environment, key uma.PrivateKey, senderDomain, receiverAddress string, travelRule bool) (uma.LnurlpResponse, error) {
	_, domain, err := uma.SplitAddress(receiverAddress)
	if err != nil {
		return uma.LnurlpResponse{}, err
	}
	now := c.Now()
	req := uma.NewLnurlpRequest(key, receiverAddress, senderDomain, travelRule, now)
	u, err := req.URL()
	if err != nil {
		return uma.LnurlpResponse{}, err
	}
	body, err := netguard.Fetch(ctx, c.HTTP(env), u, maxAnswer)
	if err != nil {
		return uma.LnurlpResponse{}, fmt.Errorf("%w: %v", ErrLnurlpFailed, err)
	}
	var resp uma.LnurlpResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		return uma.LnurlpResponse{}, fmt.Errorf("%w: %s answered something else than an LNURLP response", ErrLnurlpFailed, domain)
	}
	cmp := resp.Compliance
	switch {
	case resp.Tag != "payRequest" || cmp == nil:
		return uma.LnurlpResponse{}, fmt.Errorf("%w: %s answered no UMA response", ErrLnurlpFailed, domain)
	case !strings.EqualFold(cmp.ReceiverIdentifier, receiverAddress):
		return uma.LnurlpResponse{}, fmt.Errorf("%w: %s answered for %q", ErrLnurlpFailed, domain, cmp.ReceiverIdentifier)
	case len(resp.Currencies) == 0:
		return uma.LnurlpResponse{}, fmt.Errorf("%w: %s offers no currency", ErrLnurlpFailed, domain)
	}
	if _, err := uma.NegotiateVersion(resp.UmaVersion); err != nil {
		return uma.LnurlpResponse{}, err
	}
	if err := uma.CheckTimestamp(cmp.SignatureTimestamp, now); err != nil {
		return uma.LnurlpResponse{}, err
	}
	keys, err := c.ProviderKeys(ctx, env, domain)
	if err != nil {
		return uma.LnurlpResponse{}, err
	}
	if err := keys.Signing.Verify(cmp.SignablePayload(), cmp.Signature); err != nil {
		return uma.LnurlpResponse{}, err
	}
	if err := c.Nonces.UmaNonceTake(ctx, domain, cmp.SignatureNonce, time.Unix(cmp.SignatureTimestamp, 0), now); err != nil {
		return uma.LnurlpResponse{}, err
	}
	return resp, nil
}

// ErrPayRequestFailed is a pay request that got no usable answer: the provider did not
// answer, refused it (its code, when it gave one, is in the error's text), or answered
// something that is not an UMA pay request response (PAYREQ_REQUEST_FAILED).
var ErrPayRequestFailed = errors.New("uma: the pay request failed")

// PayRequest sends req, the pay request of payer to receiverAddress (UMAD-05), to the
// callback the receiver's LNURLP response named, and answers the response once checked
// (UMAD-06): in version 1, with an invoice and the conversion, its compliance data signed
// by the receiver's provider for this payer and receiver (its keys fetched as ProviderKeys
// does), timestamped in the window, its nonce taken once. What the invoice itself asks is
// the caller's to check (uma.PayReqResponse.CheckInvoice) with the rail that reads it.
func (c *Client) PayRequest(ctx context.Context, env catalog.Environment, callback, receiverAddress string, req uma.PayRequest) (uma.PayReqResponse, error) {
	_, domain, err := uma.SplitAddress(receiverAddress)
	if err != nil {
		return uma.PayReqResponse{}, err
	}
	body, err := json.Marshal(req)
	if err != nil {
		return uma.PayReqResponse{}, fmt.Errorf("encode the pay request: %w", err)
	}
	answer, err := netguard.Post(ctx, c.HTTP(env), callback, body, maxAnswer)
	var se *netguard.StatusError
	if errors.As(err, &se) {
		var refusal struct{ Code, Reason string }
		if json.Unmarshal(se.Body, &refusal) == nil && refusal.Code != "" {
			theirs := &uma.Error{Code: refusal.Code, Status: se.Status, Reason: fmt.Sprintf("%.200s", refusal.Reason)}
			return uma.PayReqResponse{}, fmt.Errorf("%w: %s refused it: %w", ErrPayRequestFailed, domain, theirs)
		}
	}
	if err != nil {
		return uma.PayReqResponse{}, fmt.Errorf("%w: %v", ErrPayRequestFailed, err)
	}
	var resp uma.PayReqResponse
	if err := json.Unmarshal(answer, &resp); err != nil {
		return uma.PayReqResponse{}, fmt.Errorf("%w: %s answered something else than a pay request response", ErrPayRequestFailed, domain)
	}
	cmp := resp.PayeeData.Compliance
	switch {
	case strings.TrimSpace(resp.PR) == "":
		return uma.PayReqResponse{}, fmt.Errorf("%w: %s answered no invoice", ErrPayRequestFailed, domain)
	case cmp == nil || resp.Converted == nil:
		return uma.PayReqResponse{}, fmt.Errorf("%w: %s answered no UMA response (compliance data and conversion)", ErrPayRequestFailed, domain)
	}
	if resp.UmaVersion != "" { // the pay request named the version; an answer may omit it
		if _, err := uma.NegotiateVersion(resp.UmaVersion); err != nil {
			return uma.PayReqResponse{}, err
		}
	}
	now := c.Now()
	if err := uma.CheckTimestamp(cmp.SignatureTimestamp, now); err != nil {
		return uma.PayReqResponse{}, err
	}
	keys, err := c.ProviderKeys(ctx, env, domain)
	if err != nil {
		return uma.PayReqResponse{}, err
	}
	if err := keys.Signing.Verify(cmp.SignablePayload(req.PayerData.Identifier, receiverAddress), cmp.Signature); err != nil {
		return uma.PayReqResponse{}, err
	}
	if err := c.Nonces.UmaNonceTake(ctx, domain, cmp.SignatureNonce, time.Unix(cmp.SignatureTimestamp, 0), now); err != nil {
		return uma.PayReqResponse{}, err
	}
	return resp, nil
}

// Failure is how a failed exchange with another provider is told to the service's callers:
// details.failure (failure: LNURLP_FAILED, PAY_REQUEST_FAILED) and details.umaCode, the
// protocol's code of the cause where there is one. ok is false for the service's own
// failures (its database): neither coded by the protocol nor wrapping sentinel (the
// exchange's ErrLnurlpFailed or ErrPayRequestFailed), they are not the provider's.
func Failure(err, sentinel error, failure string) (details map[string]any, ok bool) {
	details = map[string]any{"failure": failure}
	if pe := uma.Refusal(err); pe.Code != "INTERNAL_ERROR" {
		details["umaCode"] = pe.Code
	} else if !errors.Is(err, sentinel) {
		return nil, false
	}
	return details, true
}

// LnurlpRefusal is the refusal of a request whose receiver's provider (of address) did not
// answer the LNURLP request as UMA requires (quote.LnurlpFailed, naming field; "" names
// none). The service's own failure (see Failure) is returned as it is, to be retried.
func LnurlpRefusal(address, field string, err error) error {
	failure, ok := Failure(err, ErrLnurlpFailed, "LNURLP_FAILED")
	if !ok {
		return err
	}
	return quote.LnurlpFailed(address, field, err, failure)
}

// PayRequestRefusal is the refusal of a payment whose receiver's provider (of address) did
// not answer its pay request with an invoice the service may pay (quote.PayRequestFailed,
// naming field; "" names none). The service's own failure is returned as it is.
func PayRequestRefusal(address, field string, err error) error {
	failure, ok := Failure(err, ErrPayRequestFailed, "PAY_REQUEST_FAILED")
	if !ok {
		return err
	}
	return quote.PayRequestFailed(address, field, err, failure)
}
