package api

import (
	"crypto/sha256"
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"paycore/db"
	"paycore/internal/infra/lnd"
	"paycore/internal/lightning"
	"paycore/internal/uma"
)

// Customers' Lightning addresses (LUD-16): a customer whose UMA address is
// $alice@pay.example, on the platform whose UMA domain that is, is paid in BTC at
// alice@pay.example, where the platform's BTC payments go through the deployment's
// Lightning node. The routes sit at the host's root, chosen by the request's Host, and
// answer in LNURL's own format ({"status":"ERROR","reason":…} on refusal).

// lightningAddressPath is the root of the pay requests (LUD-16).
const lightningAddressPath = "/.well-known/lnurlp/"

// lnurlError answers an LNURL refusal.
func lnurlError(w http.ResponseWriter, status int, reason string) {
	writeJSON(w, status, map[string]string{"status": "ERROR", "reason": reason})
}

// lightningAddressAccount is the account a Lightning address of the request's host
// receives into, with the user and domain; ok false when it answered the refusal itself.
func (s *Server) lightningAddressAccount(w http.ResponseWriter, r *http.Request) (row db.LightningAddressAccountRow, user, domain string, ok bool) {
	user = strings.ToLower(chi.URLParam(r, "user"))
	domain, served, err := s.domainServed(r.Context(), r.Host)
	if err == nil && !served {
		lnurlError(w, http.StatusNotFound, "no such Lightning address")
		return row, "", "", false
	}
	if err == nil {
		row, err = s.store.LightningAddressAccount(r.Context(), domain, lightning.UmaAddressOf(user, domain))
	}
	if err != nil {
		if !db.IsNotFound(err) {
			s.Logger.WarnContext(r.Context(), "lightning address", "error", err)
			lnurlError(w, http.StatusServiceUnavailable, "the service cannot answer now")
			return row, "", "", false
		}
		lnurlError(w, http.StatusNotFound, "no such Lightning address")
		return row, "", "", false
	}
	if !s.receivesOverLightning(row.Environment, row.PlatformID) {
		lnurlError(w, http.StatusNotFound, "no such Lightning address")
		return row, "", "", false
	}
	return row, user, domain, true
}

// payRequest is GET /.well-known/lnurlp/{user}: the Lightning address's pay request, or,
// with the UMA parameters, the UMA LNURLP response (umaLnurlp).
func (s *Server) payRequest(w http.ResponseWriter, r *http.Request) {
	if req, isUma, err := uma.ParseLnurlpRequest(r.Host, chi.URLParam(r, "user"), r.URL.Query()); isUma {
		s.umaLnurlp(w, r, req, err)
		return
	}
	_, user, domain, ok := s.lightningAddressAccount(w, r)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, lightning.AddressPayRequest("https://"+r.Host+lightningAddressPath+user+"/callback", user, domain))
}

// payRequestCallback is GET /.well-known/lnurlp/{user}/callback?amount=<msat>: an invoice
// of the deployment's node for the amount, committing to the pay request's metadata,
// recorded for the account so that paying it credits the account once.
func (s *Server) payRequestCallback(w http.ResponseWriter, r *http.Request) {
	row, user, domain, ok := s.lightningAddressAccount(w, r)
	if !ok {
		return
	}
	sats, err := lightning.ReceiveAmount(r.URL.Query().Get("amount"))
	if err != nil {
		lnurlError(w, http.StatusBadRequest, err.Error())
		return
	}
	now := s.now()
	open, err := s.store.LightningAddressInvoicesOpen(r.Context(), row.AccountID, now)
	if err != nil {
		s.Logger.WarnContext(r.Context(), "lightning address: count open invoices", "error", err)
		lnurlError(w, http.StatusServiceUnavailable, "no invoice can be made now")
		return
	}
	if open >= lightning.MaxOpenAddressInvoices {
		lnurlError(w, http.StatusTooManyRequests, "too many unpaid invoices for this address: pay one, or try again once they expire")
		return
	}
	meta := lightning.AddressPayRequest("", user, domain).Metadata
	hash := sha256.Sum256([]byte(meta))
	inv, err := s.Lightning.AddInvoice(r.Context(), lnd.NewInvoice{Sats: sats, DescriptionHash: hash[:], Expiry: lightning.AddressInvoiceExpiry})
	if err != nil {
		s.Logger.WarnContext(r.Context(), "lightning address: create an invoice", "error", err)
		lnurlError(w, http.StatusServiceUnavailable, "no invoice can be made now")
		return
	}
	if err := s.store.LightningInvoiceAdd(r.Context(), lightning.FundingInvoice{Hash: inv.RHash, PlatformID: row.PlatformID, AccountID: row.AccountID,
		PaymentRequest: inv.PaymentRequest, Amount: &sats, ExpiresAt: now.Add(lightning.AddressInvoiceExpiry), CreatedAt: now}); err != nil {
		s.Logger.WarnContext(r.Context(), "lightning address: record an invoice", "error", err)
		lnurlError(w, http.StatusServiceUnavailable, "no invoice can be made now")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"pr": inv.PaymentRequest, "routes": []any{}})
}
