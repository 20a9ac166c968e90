package api

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"paycore/db"
	"paycore/internal/catalog"
	"paycore/internal/platformconfig"
	"paycore/internal/uma"
)

// The receiving side of UMA (UMAD-03, UMAD-04): another provider's LNURLP request for a
// customer's UMA address at the root of its platform's UMA domain, answered in the
// protocol's formats (a refusal: {"status":"ERROR","reason":…,"code":…} with the code's
// status).

// umaRefuse answers err as the protocol's refusal.
func (s *Server) umaRefuse(w http.ResponseWriter, r *http.Request, err error) {
	e := uma.Refusal(err)
	if e.Status >= http.StatusInternalServerError {
		s.Logger.ErrorContext(r.Context(), "uma", "error", err)
	} else {
		s.Logger.InfoContext(r.Context(), "uma: refused", "code", e.Code, "error", err)
	}
	writeJSON(w, e.Status, e.Body())
}

// umaLnurlp answers an UMA LNURLP request req (parsing it found perr): the receiver, found
// by its address on the platform holding the request's host; the sender's signature
// verified with its published keys, its timestamp in the window and its nonce taken once;
// then the receiver's currencies and payer-data requirements with the deployment's signed
// compliance data, in the version negotiated.
func (s *Server) umaLnurlp(w http.ResponseWriter, r *http.Request, req uma.LnurlpRequest, perr error) {
	if perr != nil {
		s.umaRefuse(w, r, perr)
		return
	}
	ctx, now := r.Context(), s.now()
	version, err := uma.NegotiateVersion(req.UmaVersion)
	if err != nil {
		s.umaRefuse(w, r, err)
		return
	}
	user, _, _ := strings.Cut(req.ReceiverAddress, "@")
	rcv, address, err := s.umaReceiverOf(ctx, r.Host, user)
	if err != nil {
		s.umaRefuse(w, r, err)
		return
	}
	if _, proxied := uma.ProxySubdomain(r.Host, s.Config.UmaProxyDomain); proxied {
		// The platform's umaDomain proxied the request here: the sender asked for, and
		// signed, the address at that domain.
		_, domain, _ := strings.Cut(address, "@")
		req.ReceiverAddress = user + "@" + domain
	}
	if err := s.umaVerifySender(ctx, rcv.Environment, umaSigned{domain: req.VaspDomain, payload: req.SignablePayload(), signature: req.Signature,
		nonce: req.Nonce, timestamp: req.Timestamp}, now); err != nil {
		s.umaRefuse(w, r, err)
		return
	}
	currencies, err := s.umaCurrencies(rcv, now)
	if err != nil {
		s.umaRefuse(w, r, err)
		return
	}
	keys, err := s.umaKeys(ctx)
	if err != nil {
		s.umaRefuse(w, r, err)
		return
	}
	minSendable, maxSendable := uma.Sendable(currencies)
	writeJSON(w, http.StatusOK, uma.LnurlpResponse{Tag: "payRequest", UmaVersion: version,
		Callback:    uma.Scheme(r.Host) + "://" + r.Host + lightningAddressPath + user + "/callback",
		MinSendable: minSendable, MaxSendable: maxSendable, Metadata: uma.Metadata(req.ReceiverAddress), Currencies: currencies,
		PayerData: map[string]uma.CounterpartyField{"identifier": {Mandatory: true}, "name": {Mandatory: false}, "email": {Mandatory: false},
			"compliance": {Mandatory: true}},
		Compliance: uma.SignedCompliance(keys.Signing, req, uma.KycStatusOf(rcv.KycStatus), rcv.IsRegulatedFinancialInstitution, now)})
}

// umaReceiverOf is the customer holding the UMA address user@<host> ($name) on the platform
// whose proven UMA domain host is, with that address; uma.ErrUserNotFound when there is
// none.
func (s *Server) umaReceiverOf(ctx context.Context, host, user string) (db.UmaReceiverRow, string, error) {
	domain, served, err := s.domainServed(ctx, host)
	if err != nil {
		return db.UmaReceiverRow{}, "", err
	}
	address := strings.ToLower(user) + "@" + domain
	rcv, err := s.store.UmaReceiver(ctx, domain, address)
	switch {
	case !served || db.IsNotFound(err):
		return rcv, "", uma.ErrUserNotFound
	case err != nil:
		return rcv, "", err
	}
	return rcv, address, nil
}

// umaCurrencies are the currencies the receiver rcv is paid in over UMA at now (see
// uma.ReceivingCurrencies), each at bitcoin's mid-market price in it.
func (s *Server) umaCurrencies(rcv db.UmaReceiverRow, now time.Time) ([]uma.Currency, error) {
	supported, err := platformconfig.DecodeCurrencies(rcv.SupportedCurrencies)
	if err != nil {
		return nil, err
	}
	rates := s.rates(rcv.Environment == catalog.Sandbox)
	return uma.ReceivingCurrencies(rcv.Currencies, supported, func(code string) (decimal.Decimal, bool) {
		if code == "BTC" {
			return decimal.NewFromInt(1), true
		}
		p, _, err := rates.Mid("BTC", code, now)
		return p, err == nil
	}), nil
}

// umaCounterpartyAllowed refuses a provider the deployment does not transact with
// (uma.CheckCounterparty: blocked by the operator, or not listed under
// PAYCORE_UMA_ALLOWLIST_ONLY).
func (s *Server) umaCounterpartyAllowed(ctx context.Context, domain string) error {
	listed, allowed, err := s.store.UmaProviderListed(ctx, domain)
	if err != nil {
		return err
	}
	return uma.CheckCounterparty(domain, listed, allowed, s.Config.UmaAllowlistOnly)
}

// umaSigned is a message another provider signed: its domain (where its keys are
// published), what its signature covers, the signature, and its nonce and timestamp.
type umaSigned struct {
	domain, payload, signature, nonce string
	timestamp                         int64
}

// umaVerifySender checks a message m signed by the provider of m.domain (one the deployment
// transacts with): its timestamp in the window, its signature under the provider's published
// signing key (fetched through the guard for the receiving platform's environment, or from
// the cache), then its nonce, taken once (only after the signature verified, so that a
// forged message burns none).
func (s *Server) umaVerifySender(ctx context.Context, env catalog.Environment, m umaSigned, now time.Time) error {
	if err := uma.CheckTimestamp(m.timestamp, now); err != nil {
		return err
	}
	if !uma.ValidDomain(m.domain) {
		return errors.Join(uma.ErrMissingParameters, errors.New("vaspDomain is not a domain"))
	}
	if err := s.umaCounterpartyAllowed(ctx, m.domain); err != nil {
		return err
	}
	keys, err := s.UMA.ProviderKeys(ctx, env, m.domain)
	if err != nil {
		return err
	}
	if err := keys.Signing.Verify(m.payload, m.signature); err != nil {
		return err
	}
	return s.store.UmaNonceTake(ctx, m.domain, m.nonce, time.Unix(m.timestamp, 0), now)
}
