package api

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/google/uuid"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/catalog"
	"paycore/internal/infra/umaclient"
	"paycore/internal/quote"
	"paycore/internal/uma"
)

// The sending side of UMA: a platform's customer pays a customer of another UMA provider.

// lookupRemoteUma answers GET /receiver/uma/{address} for an address of another provider:
// the LNURLP request to its provider, signed with the deployment's key for the platform's
// umaDomain, and its checked response's currencies (within the receiver's convertible
// ranges) and required payer data, stored as the lookup. An address whose provider does not
// answer as UMA is 400 INVALID_UMA_ADDRESS with details.failure LNURLP_FAILED; nothing is
// held.
func (s *Server) lookupRemoteUma(w http.ResponseWriter, r *http.Request, env catalog.Environment, address string, customer uuid.NullUUID) error {
	_, domain, err := uma.SplitAddress(address)
	if err != nil {
		return quote.NotUmaAddress(address, quote.FieldLookupUma)
	}
	if err := s.umaCounterpartyAllowed(r.Context(), domain); errors.Is(err, uma.ErrCounterpartyNotAllowed) {
		return quote.CounterpartyRefused(err, quote.FieldLookupUma)
	} else if err != nil {
		return err
	}
	p := principalFrom(r.Context())
	platform, err := db.PlatformGet(r.Context(), s.Pool, p.PlatformID)
	if err != nil {
		return fmt.Errorf("load platform: %w", err)
	}
	keys, err := s.umaKeys(r.Context())
	if err != nil {
		return err
	}
	resp, err := s.UMA.Lnurlp(r.Context(), env, keys.Signing, platform.UmaDomain, address, platform.IsRegulatedFinancialInstitution)
	if err != nil {
		return umaclient.LnurlpRefusal(address, quote.FieldLookupUma, err)
	}
	codes := make([]string, 0, len(resp.Currencies))
	ranges := map[string]uma.Convertible{}
	for _, c := range resp.Currencies {
		codes = append(codes, c.Code)
		ranges[c.Code] = c.Convertible
	}
	fields := []view.PayerField{}
	for key, f := range resp.PayerData {
		if name, ok := uma.PayerFieldNames[key]; ok {
			fields = append(fields, view.PayerField{Name: name, Mandatory: f.Mandatory})
		}
	}
	set, err := db.PlatformSettingsGet(r.Context(), s.Pool, p.PlatformID)
	if err != nil {
		return err
	}
	out, err := s.lookup(r.Context(), set, customer, codes, fields, db.ReceiverLookupCreateParams{ReceiverUma: &address})
	if err != nil {
		return err
	}
	for i, pref := range out.SupportedCurrencies {
		if rg, ok := ranges[pref.Currency.Code]; ok {
			out.SupportedCurrencies[i].Min, out.SupportedCurrencies[i].Max = max(pref.Min, rg.Min), min(pref.Max, rg.Max)
		}
	}
	out.ReceiverUmaAddress = address
	writeJSON(w, http.StatusOK, out)
	return nil
}
