package lightning

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"paycore/internal/catalog"
	"paycore/internal/rail"
)

// Paying a Lightning address (LUD-16) is LNURL-pay (LUD-06): the address names a pay
// request at https://<domain>/.well-known/lnurlp/<user>; its callback, asked for an
// amount, answers an invoice whose description hash commits to the pay request's metadata.

var lnUser = regexp.MustCompile(`^[a-z0-9._+-]{1,64}$`)

// AddressURL is the pay request's URL of a Lightning address, user@domain (a domain may
// carry a port).
func AddressURL(address string) (string, error) {
	user, domain, ok := strings.Cut(strings.ToLower(strings.TrimSpace(address)), "@")
	if !ok || !lnUser.MatchString(user) || domain == "" || strings.ContainsAny(domain, "/?#@ ") {
		return "", fmt.Errorf("%q is not a Lightning address (user@domain)", address)
	}
	u := url.URL{Scheme: "https", Host: domain, Path: "/.well-known/lnurlp/" + user}
	return u.String(), nil
}

// PayRequest is a Lightning address's pay request (LUD-06), amounts in millisatoshis.
type PayRequest struct {
	Callback    string `json:"callback"`
	MinSendable int64  `json:"minSendable"`
	MaxSendable int64  `json:"maxSendable"`
	Metadata    string `json:"metadata"`
	Tag         string `json:"tag"`
}

// lnurlError is the error answer of an LNURL service (LUD-06).
type lnurlError struct {
	Status string `json:"status"`
	Reason string `json:"reason"`
}

// ParsePayRequest reads and checks a pay request answer: a payRequest with an https
// callback, sendable amounts that make sense, and metadata that is a JSON array.
func ParsePayRequest(body []byte) (PayRequest, error) {
	var e lnurlError
	if json.Unmarshal(body, &e) == nil && strings.EqualFold(e.Status, "ERROR") {
		return PayRequest{}, fmt.Errorf("the Lightning address's service refused: %s", clip(e.Reason))
	}
	var p PayRequest
	if err := json.Unmarshal(body, &p); err != nil {
		return PayRequest{}, fmt.Errorf("the Lightning address's service answered no pay request (%v)", err)
	}
	if p.Tag != "payRequest" {
		return PayRequest{}, fmt.Errorf("the Lightning address's service answered a %q, not a payRequest", clip(p.Tag))
	}
	cb, err := url.Parse(p.Callback)
	if err != nil || cb.Scheme != "https" || cb.Host == "" || cb.User != nil {
		return PayRequest{}, fmt.Errorf("the pay request's callback %q is not an https URL", clip(p.Callback))
	}
	if p.MinSendable <= 0 || p.MaxSendable < p.MinSendable {
		return PayRequest{}, fmt.Errorf("the pay request's amounts (%d to %d msat) make no sense", p.MinSendable, p.MaxSendable)
	}
	var meta [][]any
	if err := json.Unmarshal([]byte(p.Metadata), &meta); err != nil {
		return PayRequest{}, fmt.Errorf("the pay request's metadata is not a JSON array of entries")
	}
	return p, nil
}

// CallbackURL is the callback asked for sats (in millisatoshis, the callback's own query
// kept), or why the pay request does not take that amount.
func (p PayRequest) CallbackURL(sats int64) (string, error) {
	msat := sats * 1000
	if msat < p.MinSendable || msat > p.MaxSendable {
		return "", fmt.Errorf("the Lightning address takes %d to %d msat, not %d", p.MinSendable, p.MaxSendable, msat)
	}
	u, err := url.Parse(p.Callback)
	if err != nil {
		return "", err
	}
	q := u.Query()
	q.Set("amount", fmt.Sprint(msat))
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// DescriptionHash is the description hash (hex) an invoice for the pay request must carry.
func (p PayRequest) DescriptionHash() string {
	h := sha256.Sum256([]byte(p.Metadata))
	return hex.EncodeToString(h[:])
}

// ParseInvoiceAnswer reads the callback's answer: the invoice (pr), or the service's refusal.
func ParseInvoiceAnswer(body []byte) (string, error) {
	var e lnurlError
	if json.Unmarshal(body, &e) == nil && strings.EqualFold(e.Status, "ERROR") {
		return "", fmt.Errorf("the Lightning address's service refused the amount: %s", clip(e.Reason))
	}
	var a struct {
		PR string `json:"pr"`
	}
	if err := json.Unmarshal(body, &a); err != nil || a.PR == "" {
		return "", fmt.Errorf("the Lightning address's service answered no invoice")
	}
	return a.PR, nil
}

// CheckAddressInvoice is whether the invoice the callback answered is the one asked for:
// for exactly sats, committing to the pay request's metadata.
func CheckAddressInvoice(p PayRequest, inv Invoice, descriptionHash string, sats int64) error {
	if inv.AmountMsat != sats*1000 {
		return fmt.Errorf("the Lightning address's invoice asks for %s sat, the payment is %d sat", msatString(inv.AmountMsat), sats)
	}
	if !strings.EqualFold(descriptionHash, p.DescriptionHash()) {
		return fmt.Errorf("the Lightning address's invoice does not commit to its pay request's metadata")
	}
	return nil
}

// AddressFailed is the outcome of a Lightning address that could not be paid: nothing was
// sent.
func AddressFailed(why error) rail.Outcome {
	return Refusal(catalog.FailLightningAddress, "the Lightning address could not be paid: "+why.Error())
}

// clip keeps a text from an outside service short.
func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
