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
	domain, served, err := s.domainServed(ctx, r.Host)
	if err != nil {
		s.umaRefuse(w, r, err)
		return
	}
	user, _, _ := strings.Cut(req.ReceiverAddress, "@")
	rcv, err := s.store.UmaReceiver(ctx, domain, strings.ToLower(user)+"@"+domain)
	switch {
	case !served || db.IsNotFound(err):
		s.umaRefuse(w, r, uma.ErrUserNotFound)
		return
	case err != nil:
		s.umaRefuse(w, r, err)
		return
	}
	if err := s.umaVerifySender(ctx, rcv.Environment, req, now); err != nil {
		s.umaRefuse(w, r, err)
		return
	}
	supported, err := platformconfig.DecodeCurrencies(rcv.SupportedCurrencies)
	if err != nil {
		s.umaRefuse(w, r, err)
		return
	}
	rates := s.rates(rcv.Environment == catalog.Sandbox)
	currencies := uma.ReceivingCurrencies(rcv.Currencies, supported, func(code string) (decimal.Decimal, bool) {
		p, _, err := rates.Mid("BTC", code, now)
		return p, err == nil
	})
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

// umaVerifySender checks a request signed by the provider of req.VaspDomain (one the
// deployment transacts with): its timestamp in the window, its signature under the provider's published signing key (fetched through
// the guard for the receiving platform's environment, or from the cache), then its nonce,
// taken once (only after the signature verified, so that a forged request burns none).
func (s *Server) umaVerifySender(ctx context.Context, env catalog.Environment, req uma.LnurlpRequest, now time.Time) error {
	if err := uma.CheckTimestamp(req.Timestamp, now); err != nil {
		return err
	}
	if !uma.ValidDomain(req.VaspDomain) {
		return errors.Join(uma.ErrMissingParameters, errors.New("vaspDomain is not a domain"))
	}
	if err := s.umaCounterpartyAllowed(ctx, req.VaspDomain); err != nil {
		return err
	}
	keys, err := s.UMA.ProviderKeys(ctx, env, req.VaspDomain)
	if err != nil {
		return err
	}
	if err := keys.Signing.Verify(req.SignablePayload(), req.Signature); err != nil {
		return err
	}
	return s.store.UmaNonceTake(ctx, req.VaspDomain, req.Nonce, time.Unix(req.Timestamp, 0), now)
}
