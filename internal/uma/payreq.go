package uma

import (
	"github.com/google/uuid"

	"paycore/internal/ids"

	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// PayRequest is the sender's request for an invoice (UMAD-05), POSTed as JSON to the
// callback of the receiver's LNURLP response.
type PayRequest struct {
	// Convert is the receiving currency the receiver converts into.
	Convert string `json:"convert,omitempty"`
	// Amount is "<n>" millisatoshis, or "<n>.<CODE>" smallest units of the receiving
	// currency (Amounts reads it).
	Amount     Amount                       `json:"amount"`
	PayerData  PayerData                    `json:"payerData"`
	PayeeData  map[string]CounterpartyField `json:"payeeData,omitempty"`
	Comment    string                       `json:"comment,omitempty"`
	UmaVersion string                       `json:"umaVersion,omitempty"`
}

// Amount is a pay request's amount as the protocol writes it: a string, though senders
// built on LNURL also send a number.
type Amount string

// UnmarshalJSON takes a string or a number.
func (a *Amount) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*a = Amount(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return errors.New("uma: the amount is neither a string nor a number")
	}
	*a = Amount(n.String())
	return nil
}

// ErrInvalidAmount is an amount that is not "<n>" or "<n>.<CODE>" with n > 0.
var ErrInvalidAmount = errors.New("uma: the amount is invalid")

// Parse is the amount and its currency: "" for millisatoshis, else the currency code whose
// smallest units it counts.
func (a Amount) Parse() (amount int64, currency string, err error) {
	n, code, hasCode := strings.Cut(string(a), ".")
	amount, err = strconv.ParseInt(n, 10, 64)
	if err != nil || amount <= 0 || (hasCode && (code == "" || strings.Contains(code, "."))) {
		return 0, "", fmt.Errorf("%w: %q", ErrInvalidAmount, string(a))
	}
	return amount, code, nil
}

// PayerData is what the sender tells of the payer (LUD-18, with UMA's compliance data).
type PayerData struct {
	Identifier string           `json:"identifier,omitempty"`
	Name       string           `json:"name,omitempty"`
	Email      string           `json:"email,omitempty"`
	Compliance *PayerCompliance `json:"compliance,omitempty"`
}

// PayerCompliance is the sender's signed compliance data, with the payer's travel-rule
// data encrypted to the receiver's encryption key.
type PayerCompliance struct {
	Utxos                   []string `json:"utxos,omitempty"`
	NodePubKey              string   `json:"nodePubKey,omitempty"`
	KycStatus               string   `json:"kycStatus"`
	EncryptedTravelRuleInfo string   `json:"encryptedTravelRuleInfo,omitempty"`
	TravelRuleFormat        string   `json:"travelRuleFormat,omitempty"`
	Signature               string   `json:"signature"`
	SignatureNonce          string   `json:"signatureNonce"`
	SignatureTimestamp      int64    `json:"signatureTimestamp"`
	UtxoCallback            string   `json:"utxoCallback,omitempty"`
}

// ErrNotUma is a pay request or response without the compliance data UMA requires.
var ErrNotUma = errors.New("uma: compliance data is missing")

// SignablePayload is what the pay request's signature covers: payer|nonce|timestamp.
func (r PayRequest) SignablePayload() (string, error) {
	c := r.PayerData.Compliance
	if c == nil || r.PayerData.Identifier == "" {
		return "", ErrNotUma
	}
	return r.PayerData.Identifier + "|" + c.SignatureNonce + "|" + strconv.FormatInt(c.SignatureTimestamp, 10), nil
}

// Payer is who pays and what the sender says of them, for a pay request.
type Payer struct {
	Identifier string // the payer's UMA address
	Name       string
	Email      string
	KycStatus  string
	// TravelRuleInfo is the travel-rule data, encrypted to the receiver ("" none), in
	// TravelRuleFormat ("" free-form JSON).
	TravelRuleInfo   string
	TravelRuleFormat string
	NodePubKey       string
	UtxoCallback     string
}

// NewPayRequest is a pay request of amount (Amount's form) converted into convert, by the
// sender's signing key at now, its travel-rule data encrypted to the receiver's encryption
// key.
func NewPayRequest(key PrivateKey, receiverEncryption PublicKey, amount Amount, convert string, p Payer, payee map[string]CounterpartyField, now time.Time) (PayRequest, error) {
	c := &PayerCompliance{KycStatus: p.KycStatus, TravelRuleFormat: p.TravelRuleFormat, NodePubKey: p.NodePubKey, UtxoCallback: p.UtxoCallback,
		SignatureNonce: NewNonce(), SignatureTimestamp: now.Unix()}
	if p.TravelRuleInfo != "" {
		enc, err := receiverEncryption.Encrypt([]byte(p.TravelRuleInfo))
		if err != nil {
			return PayRequest{}, err
		}
		c.EncryptedTravelRuleInfo = hex.EncodeToString(enc)
	}
	r := PayRequest{Convert: convert, Amount: amount, PayeeData: payee, UmaVersion: Version,
		PayerData: PayerData{Identifier: p.Identifier, Name: p.Name, Email: p.Email, Compliance: c}}
	payload, _ := r.SignablePayload()
	c.Signature = key.Sign(payload)
	return r, nil
}

// TravelRuleInfo decrypts the payer's travel-rule data with the receiver's encryption key
// ("" when the sender sent none).
func (r PayRequest) TravelRuleInfo(key PrivateKey) (string, error) {
	c := r.PayerData.Compliance
	if c == nil || c.EncryptedTravelRuleInfo == "" {
		return "", nil
	}
	enc, err := hex.DecodeString(c.EncryptedTravelRuleInfo)
	if err != nil {
		return "", fmt.Errorf("%w: not hex", ErrDecrypt)
	}
	plain, err := key.Decrypt(enc)
	if err != nil {
		return "", err
	}
	return string(plain), nil
}

// PayReqResponse is the receiver's answer to a pay request (UMAD-06): the invoice, what the
// receiver will receive, and its signed compliance data.
type PayReqResponse struct {
	PR         string     `json:"pr"`
	Routes     []struct{} `json:"routes"`
	Converted  *Converted `json:"converted,omitempty"`
	PayeeData  PayeeData  `json:"payeeData"`
	Disposable *bool      `json:"disposable,omitempty"`
	UmaVersion string     `json:"umaVersion,omitempty"`
}

// Converted is what the receiver receives: Amount smallest units of CurrencyCode, at
// Multiplier millisatoshis each, after its Fee (millisatoshis):
// invoice = Amount × Multiplier + Fee.
type Converted struct {
	Amount       int64   `json:"amount"`
	CurrencyCode string  `json:"currencyCode"`
	Decimals     int     `json:"decimals"`
	Multiplier   float64 `json:"multiplier"`
	Fee          int64   `json:"fee"`
}

// PayeeData is what the receiver tells of the payee, with its compliance data.
type PayeeData struct {
	Identifier string           `json:"identifier,omitempty"`
	Name       string           `json:"name,omitempty"`
	Email      string           `json:"email,omitempty"`
	Compliance *PayeeCompliance `json:"compliance,omitempty"`
}

// PayeeCompliance is the receiver's signed compliance data.
type PayeeCompliance struct {
	NodePubKey         string   `json:"nodePubKey,omitempty"`
	Utxos              []string `json:"utxos"`
	UtxoCallback       string   `json:"utxoCallback,omitempty"`
	Signature          string   `json:"signature"`
	SignatureNonce     string   `json:"signatureNonce"`
	SignatureTimestamp int64    `json:"signatureTimestamp"`
}

// SignablePayload is what the response's signature covers: payer|payee|nonce|timestamp.
func (c PayeeCompliance) SignablePayload(payer, payee string) string {
	return payer + "|" + payee + "|" + c.SignatureNonce + "|" + strconv.FormatInt(c.SignatureTimestamp, 10)
}

// SignedPayeeCompliance is the receiver's compliance data for a payment from payer to
// payee, signed with its signing key at now.
func SignedPayeeCompliance(key PrivateKey, payer, payee, nodePubKey, utxoCallback string, now time.Time) *PayeeCompliance {
	c := &PayeeCompliance{NodePubKey: nodePubKey, Utxos: []string{}, UtxoCallback: utxoCallback, SignatureNonce: NewNonce(), SignatureTimestamp: now.Unix()}
	c.Signature = key.Sign(c.SignablePayload(payer, payee))
	return c
}

// PostTransactionCallback tells the other provider, once the payment settled, which of its
// channels carried it (UMAD-07), POSTed to its utxoCallback.
type PostTransactionCallback struct {
	Utxos              []UtxoWithAmount `json:"utxos"`
	VaspDomain         string           `json:"vaspDomain"`
	Signature          string           `json:"signature"`
	SignatureNonce     string           `json:"signatureNonce"`
	SignatureTimestamp int64            `json:"signatureTimestamp"`
}

// UtxoWithAmount is a channel's outpoint and what went through it.
type UtxoWithAmount struct {
	Utxo        string `json:"utxo"`
	AmountMsats int64  `json:"amountMsats"`
}

// SignablePayload is what the callback's signature covers: nonce|timestamp.
func (c PostTransactionCallback) SignablePayload() string {
	return c.SignatureNonce + "|" + strconv.FormatInt(c.SignatureTimestamp, 10)
}

// NewPostTransactionCallback is a callback from the provider of domain, signed at now.
func NewPostTransactionCallback(key PrivateKey, domain string, utxos []UtxoWithAmount, now time.Time) PostTransactionCallback {
	if utxos == nil {
		utxos = []UtxoWithAmount{}
	}
	c := PostTransactionCallback{Utxos: utxos, VaspDomain: domain, SignatureNonce: NewNonce(), SignatureTimestamp: now.Unix()}
	c.Signature = key.Sign(c.SignablePayload())
	return c
}

// ErrInvoiceMismatch is an invoice the sender must not pay: it does not carry what the pay
// request's response says, asks for more than the sender may pay, or expires too soon
// (INVALID_INVOICE). No signature covers the invoice's amount, so the sender checks it.
var ErrInvoiceMismatch = errors.New("uma: the invoice does not match the pay request's response")

// CheckInvoice is the sending side's check of the invoice of a response to req before
// paying it: for invoiceMsats, expiring at expiresAt, when the sender may pay at most
// maxMsats and needs the invoice payable until payableUntil. The response must convert into
// the currency asked; an amount asked in that currency must be delivered whole
// (converted.amount) and the invoice must be that amount at the response's multiplier plus
// its fee, to the millisatoshi after rounding; an amount asked in millisatoshis must be the
// invoice's.
func (r PayReqResponse) CheckInvoice(req PayRequest, invoiceMsats int64, expiresAt, payableUntil time.Time, maxMsats int64) error {
	amount, currency, err := req.Amount.Parse()
	if err != nil {
		return err
	}
	c := r.Converted
	switch {
	case c == nil || c.CurrencyCode != req.Convert:
		return fmt.Errorf("%w: it converts into %v, not %s", ErrInvoiceMismatch, currencyOf(c), req.Convert)
	case invoiceMsats <= 0:
		return fmt.Errorf("%w: the invoice names no amount", ErrInvoiceMismatch)
	case invoiceMsats > maxMsats:
		return fmt.Errorf("%w: the invoice asks %d msat, more than the %d the payment may spend", ErrInvoiceMismatch, invoiceMsats, maxMsats)
	case !expiresAt.After(payableUntil):
		return fmt.Errorf("%w: the invoice expires at %s, before %s", ErrInvoiceMismatch, expiresAt.UTC().Format(time.RFC3339), payableUntil.UTC().Format(time.RFC3339))
	case currency == "" && invoiceMsats != amount:
		return fmt.Errorf("%w: the invoice asks %d msat, not the %d sent", ErrInvoiceMismatch, invoiceMsats, amount)
	case currency != "" && c.Amount != amount:
		return fmt.Errorf("%w: the receiver gets %d, not the %d asked", ErrInvoiceMismatch, c.Amount, amount)
	case currency != "":
		want := math.Round(float64(c.Amount)*c.Multiplier) + float64(c.Fee)
		if math.Abs(float64(invoiceMsats)-want) > 1 {
			return fmt.Errorf("%w: the invoice asks %d msat, not %d × %v + %d", ErrInvoiceMismatch, invoiceMsats, c.Amount, c.Multiplier, c.Fee)
		}
	}
	return nil
}

func currencyOf(c *Converted) string {
	if c == nil {
		return "nothing"
	}
	return c.CurrencyCode
}

// More refusals of a post-transaction callback (UMAD-07).
var (
	// ErrParseUtxoCallback: the callback cannot be read (PARSE_UTXO_CALLBACK_ERROR).
	ErrParseUtxoCallback = errors.New("uma: the post-transaction callback cannot be read")
	// ErrRequestNotFound: the callback names no payment of its sender here (REQUEST_NOT_FOUND).
	ErrRequestNotFound = errors.New("uma: no such payment")
)

// CheckCallbackTarget is the rule of whose post-transaction callback a payment over UMA
// takes: one sent to its platform's domain (domain, the proven domain the callback was sent
// to; "" none) by the provider of its counterparty's address (vaspDomain), the counterparty
// being the sender of a payment received over UMA or the receiver of one sent to another
// provider (overUma: the payment is either). Any other is ErrRequestNotFound, so that no
// provider learns of another's payments.
func CheckCallbackTarget(domain, platformDomain, counterparty, vaspDomain string, overUma bool) error {
	_, theirs, err := SplitAddress(counterparty)
	if !overUma || err != nil || domain == "" || !strings.EqualFold(domain, platformDomain) || !strings.EqualFold(theirs, vaspDomain) {
		return ErrRequestNotFound
	}
	return nil
}

// UtxoCallbackPath is the root of the post-transaction callbacks the deployment names in
// its pay requests and their answers (utxoCallback), one per payment.
const UtxoCallbackPath = "/uma/utxo-callback/"

// UtxoCallbackURL is the post-transaction callback of payment id at the deployment's
// domain host.
func UtxoCallbackURL(host string, id uuid.UUID) string {
	return Scheme(host) + "://" + host + UtxoCallbackPath + ids.Format(ids.Transaction, id)
}

// PayerFieldNames are the payer data an LNURLP response may require (LUD-18's keys), by
// the name the service's senderCustomerInfo gives them.
var PayerFieldNames = map[string]string{"name": "FULL_NAME", "email": "EMAIL"}
