package api

import (
	"context"
	"fmt"
	"net/http"

	"paycore/internal/uma"
)

// The deployment's UMA keys (UMAD-02), one set for every platform's domain: made on first
// use, sealed under the master key in the database, rotated by the operator
// (paycore uma rotate-keys), published at /.well-known/lnurlpubkey.

// umaPubKeyPath is where a provider publishes its keys.
const umaPubKeyPath = "/.well-known/lnurlpubkey"

// umaKeys is the deployment's current UMA key set, made and stored on first use, read from
// the database each time (a rotation by another process is seen at once) but unsealed only
// when it changed.
func (s *Server) umaKeys(ctx context.Context) (uma.KeySet, error) {
	now := s.now()
	sealed, err := s.store.UmaKeysCurrentOrNew(ctx, func() (uma.SealedKeySet, error) { return uma.NewSealedKeySet(s.Box, now) }, now)
	if err != nil {
		return uma.KeySet{}, err
	}
	ks, err := s.umaOpened.Open(sealed, s.Box)
	if err != nil {
		return uma.KeySet{}, fmt.Errorf("open the UMA keys: %w", err)
	}
	return ks, nil
}

// umaPubKeys is GET /.well-known/lnurlpubkey: the deployment's signing and encryption
// certificate chains, and until when they may be cached.
func (s *Server) umaPubKeys(w http.ResponseWriter, r *http.Request) {
	ks, err := s.umaKeys(r.Context())
	if err != nil {
		s.Logger.ErrorContext(r.Context(), "uma keys", "error", err)
		lnurlError(w, http.StatusServiceUnavailable, "the keys cannot be read now")
		return
	}
	w.Header().Set("Cache-Control", fmt.Sprintf("public, max-age=%d", int(uma.PublishedKeysTTL.Seconds())))
	writeJSON(w, http.StatusOK, ks.Published(s.now()))
}
