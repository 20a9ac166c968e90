package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"paycore/db"
	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/incoming"
	"paycore/internal/uma"
)

// The receiving side of a UMA payment (UMAD-05, UMAD-06): another provider's pay request
// for a customer's UMA address, POSTed to the callback its LNURLP response named. The
// payment is the incoming payment's workflow: created PENDING with what the sender says of
// its payer (its travel-rule data decrypted), approved by the platform as every incoming
// payment is (its INCOMING_PAYMENT_PENDING webhook, within the approval deadline), then
// collected by an invoice of the deployment's Lightning node at the conversion locked here;
// paying the invoice completes it, once.

// maxPayRequest bounds a pay request's body.
const maxPayRequest = 64 << 10

// umaPayRequest is POST /.well-known/lnurlp/{user}/callback: the sender's signature, nonce
// and timestamp checked as for its LNURLP request, the amount converted into the currency
// asked (uma.Convert), then the payment started and, once approved, answered with its
// invoice, the conversion and the deployment's signed compliance data. Every refusal is the
// protocol's code and status.
func (s *Server) umaPayRequest(w http.ResponseWriter, r *http.Request) {
	ctx, now := r.Context(), s.now()
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxPayRequest))
	if err != nil {
		s.umaRefuse(w, r, fmt.Errorf("%w: %v", uma.ErrParsePayRequest, err))
		return
	}
	var req uma.PayRequest
	var raw struct {
		PayerData json.RawMessage `json:"payerData"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		s.umaRefuse(w, r, fmt.Errorf("%w: %v", uma.ErrParsePayRequest, err))
		return
	}
	_ = json.Unmarshal(body, &raw) // read above
	version := uma.Version
	if req.UmaVersion != "" {
		if version, err = uma.NegotiateVersion(req.UmaVersion); err != nil {
			s.umaRefuse(w, r, err)
			return
		}
	}
	payload, err := req.SignablePayload()
	if err != nil {
		s.umaRefuse(w, r, err)
		return
	}
	payer, c := req.PayerData.Identifier, req.PayerData.Compliance
	_, senderDomain, err := uma.SplitAddress(payer)
	if err != nil {
		s.umaRefuse(w, r, fmt.Errorf("%w: the payer's identifier %q is not a UMA address", uma.ErrParsePayRequest, payer))
		return
	}
	rcv, address, err := s.umaReceiverOf(ctx, r.Host, chi.URLParam(r, "user"))
	if err != nil {
		s.umaRefuse(w, r, err)
		return
	}
	if err := s.umaVerifySender(ctx, rcv.Environment, umaSigned{domain: senderDomain, payload: payload, signature: c.Signature,
		nonce: c.SignatureNonce, timestamp: c.SignatureTimestamp}, now); err != nil {
		s.umaRefuse(w, r, err)
		return
	}
	if !s.receivesOverLightning(rcv.Environment, rcv.PlatformID) {
		s.umaRefuse(w, r, fmt.Errorf("%w: the receiver's platform receives no payments over Lightning", uma.ErrUserNotReady))
		return
	}
	currencies, err := s.umaCurrencies(rcv, now)
	if err != nil {
		s.umaRefuse(w, r, err)
		return
	}
	received, err := uma.Convert(req.Amount, req.Convert, currencies)
	if err == nil {
		err = uma.CheckPayeeData(req.PayeeData)
	}
	if err != nil {
		s.umaRefuse(w, r, err)
		return
	}
	travelRule, err := s.umaTravelRuleInfo(r, req)
	if err != nil {
		s.umaRefuse(w, r, err)
		return
	}
	in := incoming.Request{TransactionID: ids.New(), PlatformID: rcv.PlatformID, ReceiverUma: address,
		CustomerID: ids.Some(rcv.CustomerID), Currency: received.Converted.CurrencyCode, Amount: received.Amount,
		Sender: incoming.Counterparty{Address: payer, Currency: received.Converted.CurrencyCode, DisplayName: req.PayerData.Name,
			Information: uma.PayerInformation(req.PayerData, travelRule)},
		ApprovalDeadline: s.Config.ApprovalDeadline,
		Collect: &incoming.Collection{Environment: rcv.Environment, Sats: received.InvoiceSats, Multiplier: received.Converted.Multiplier,
			Description: uma.Metadata(address) + string(compact(raw.PayerData)), Expiry: s.Config.UmaInvoiceExpiry,
			Domain: address[strings.LastIndexByte(address, '@')+1:], SenderCallback: c.UtxoCallback}}
	if _, err := s.start.IncomingPayment(ctx, in); err != nil {
		s.umaRefuse(w, r, umaPaymentRefusal(err))
		return
	}
	collecting, err := s.start.Collection(ctx, in.TransactionID)
	if err != nil {
		s.umaRefuse(w, r, umaPaymentRefusal(err))
		return
	}
	keys, err := s.umaKeys(ctx)
	if err != nil {
		s.umaRefuse(w, r, err)
		return
	}
	payee := in.ReceiverUma
	compliance := uma.SignedPayeeCompliance(keys.Signing, payer, payee, s.lightningNodePubKey(r), uma.UtxoCallbackURL(r.Host, in.TransactionID), now)
	writeJSON(w, http.StatusOK, uma.PayReqResponse{PR: collecting.Request.Request, Routes: []struct{}{}, Converted: &received.Converted, UmaVersion: version,
		PayeeData: uma.PayeeDataFor(req.PayeeData, payee, collecting.Payee(), compliance)})
}

// compact is JSON without insignificant space (the payer data as the invoice's description
// hash commits to it, after the metadata); nil stays nil.
func compact(b json.RawMessage) []byte {
	var out bytes.Buffer
	if len(b) == 0 || json.Compact(&out, b) != nil {
		return nil
	}
	return out.Bytes()
}

// umaTravelRuleInfo is the pay request's travel-rule data decrypted with the deployment's
// encryption key it was encrypted to: the current one or one retired within the time
// senders may still hold it (uma.PublishedKeysTTL, twice).
func (s *Server) umaTravelRuleInfo(r *http.Request, req uma.PayRequest) (string, error) {
	if req.PayerData.Compliance.EncryptedTravelRuleInfo == "" {
		return "", nil
	}
	sets, err := s.store.UmaKeysDecrypting(r.Context(), s.now().Add(-2*uma.PublishedKeysTTL))
	if err != nil {
		return "", err
	}
	err = uma.ErrDecrypt
	for i, sealed := range sets {
		open := sealed.Open
		if i == 0 { // the current set, newest first: opened once while it stays current
			open = func(b uma.Sealer) (uma.KeySet, error) { return s.umaOpened.Open(sealed, b) }
		}
		ks, oerr := open(s.Box)
		if oerr != nil {
			return "", fmt.Errorf("open the UMA keys: %w", oerr)
		}
		var info string
		if info, err = req.TravelRuleInfo(ks.Encryption); err == nil {
			return info, nil
		}
	}
	return "", err
}

// umaPaymentRefusal is the protocol's refusal of a pay request whose payment was refused
// when created (its receiver gone, its amount outside the platform's limits) or by its
// platform (rejected, not decided in time, or its invoice not made); the service's own
// failures stay what they are.
func umaPaymentRefusal(err error) error {
	e := errorOf(err)
	switch {
	case e == nil || e.Status >= http.StatusInternalServerError:
		return err
	case e.Code == catalog.UserNotFound || e.Code == catalog.CustomerDeleted:
		return fmt.Errorf("%w: %s", uma.ErrUserNotFound, e.Message)
	case e.Code == catalog.AmountOutOfRange:
		return fmt.Errorf("%w: %s", uma.ErrInvalidAmount, e.Message)
	}
	return fmt.Errorf("%w: %s", uma.ErrSenderNotAccepted, e.Message)
}

// lightningNodePubKey is the deployment's node's public key, which the payee's compliance
// data names ("" when the node cannot tell now: the field is optional). The node is asked
// once; its key does not change.
func (s *Server) lightningNodePubKey(r *http.Request) string {
	if s.Lightning == nil {
		return ""
	}
	if k := s.nodeKey.Load(); k != nil {
		return *k
	}
	info, err := s.Lightning.Info(r.Context())
	if err != nil || info.IdentityPubkey == "" {
		return ""
	}
	key := info.IdentityPubkey
	s.nodeKey.Store(&key)
	return key
}

// umaUtxoCallback is POST /uma/utxo-callback/{transactionId}: the other provider's
// post-transaction callback (UMAD-07) for a payment it made to a customer of the platform
// whose proven domain the host is, or received from one (uma.CheckCallbackTarget), signed
// with its published key
// (nonce once, timestamp in the window). The channels it reports are kept, the first
// callback only; the answer is 200 {} (or the protocol's refusal).
func (s *Server) umaUtxoCallback(w http.ResponseWriter, r *http.Request) {
	ctx, now := r.Context(), s.now()
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxPayRequest))
	var cb uma.PostTransactionCallback
	if err == nil {
		err = json.Unmarshal(body, &cb)
	}
	if err != nil {
		s.umaRefuse(w, r, fmt.Errorf("%w: %v", uma.ErrParseUtxoCallback, err))
		return
	}
	id, err := ids.Parse(ids.Transaction, chi.URLParam(r, "transactionId"))
	if err != nil {
		s.umaRefuse(w, r, uma.ErrRequestNotFound)
		return
	}
	domain, served, err := s.domainServed(ctx, r.Host)
	if err != nil {
		s.umaRefuse(w, r, err)
		return
	}
	if !served {
		domain = ""
	}
	t, err := s.store.UmaUtxoCallbackTarget(ctx, id)
	if db.IsNotFound(err) {
		err = uma.ErrRequestNotFound
	} else if err == nil {
		counterparty := db.Deref(t.SourceUmaAddress) // a payment received from another provider's sender
		if t.SentElsewhere {
			counterparty = db.Deref(t.DestinationUmaAddress) // one sent to another provider's receiver
		}
		err = uma.CheckCallbackTarget(domain, t.UmaDomain, counterparty, cb.VaspDomain, t.Kind == incoming.Kind || t.SentElsewhere)
	}
	if err == nil {
		err = s.umaVerifySender(ctx, t.Environment, umaSigned{domain: cb.VaspDomain, payload: cb.SignablePayload(), signature: cb.Signature,
			nonce: cb.SignatureNonce, timestamp: cb.SignatureTimestamp}, now)
	}
	if err == nil {
		err = s.store.UmaUtxoCallbackPut(ctx, id, cb.VaspDomain, cb.Utxos, now)
	}
	if err != nil {
		s.umaRefuse(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{})
}
