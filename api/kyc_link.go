package api

import (
	"bytes"
	"io"
	"net/http"
	"time"

	"paycore/db"
	"paycore/internal/ids"
	"paycore/internal/kyc"
)

// kycLinkResponse is the KycLinkResponse of POST /customers/{customerId}/kyc-link.
type kycLinkResponse struct {
	KycURL    string    `json:"kycUrl"`
	ExpiresAt time.Time `json:"expiresAt"`
	Provider  string    `json:"provider"`
}

// createKycLink is POST /customers/{customerId}/kyc-link: a new single-use link to the
// hosted verification page; earlier links stay usable until they expire and the
// customer's status does not change.
func (s *Server) createKycLink(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "customerId", ids.Customer, errCustomerNotFound)
	if err != nil {
		return err
	}
	in, err := readOptionalJSON[kyc.LinkRequest](r)
	if err != nil {
		return err
	}
	if in.RedirectURI != nil {
		if err := kyc.CheckRedirect(*in.RedirectURI); err != nil {
			return err
		}
	}
	pid := principalFrom(r.Context()).PlatformID
	c, err := db.CustomerRecordGet(r.Context(), s.Pool, pid, id)
	if err != nil {
		return err
	}
	if err := c.CheckNotDeleted(); err != nil {
		return err
	}
	token, hash := kyc.NewToken()
	link, err := db.KycLinkCreate(r.Context(), s.Pool, db.KycLinkCreateParams{ID: ids.New(), PlatformID: pid, CustomerID: id, TokenHash: hash,
		RedirectUri: in.RedirectURI, ExpiresAt: s.now().Add(s.Config.KycLinkLifetime).Truncate(time.Millisecond)})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, kycLinkResponse{KycURL: s.Config.PublicBaseURL + kycPagePath + token, ExpiresAt: link.ExpiresAt, Provider: kyc.Provider})
	return nil
}

// readOptionalJSON is ReadJSON for a body that may be left out: no body reads as the zero
// T.
func readOptionalJSON[T any](r *http.Request) (T, error) {
	var v T
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return v, bodyReadError(err)
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return v, nil
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return ReadJSON[T](r)
}
