package uma_test

import (
	"encoding/hex"
	"encoding/json"
	"net/url"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"paycore/internal/infra/nodescript"
	"paycore/internal/uma"
)

// sdk starts the official UMA JavaScript SDK's interop script.
func sdk(t *testing.T) *nodescript.Script {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return nodescript.Start(t, filepath.Join(filepath.Dir(file), "testdata", "interop"), "interop.mjs", "umainterop")
}

// provider is a provider's keys and the lnurlpubkey response that publishes them.
type provider struct {
	signing, encryption uma.PrivateKey
	pubKeys             string
}

func newProvider(t *testing.T, domain string) provider {
	t.Helper()
	now := time.Now()
	p := provider{}
	var err error
	if p.signing, err = uma.NewPrivateKey(); err != nil {
		t.Fatal(err)
	}
	if p.encryption, err = uma.NewPrivateKey(); err != nil {
		t.Fatal(err)
	}
	chain := func(k uma.PrivateKey) []string {
		der, err := uma.SelfSigned(k, domain, 1, now.Add(-time.Hour), now.Add(24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		return []string{hex.EncodeToString(der)}
	}
	b, err := json.Marshal(uma.PubKeyResponse{SigningCertChain: chain(p.signing), EncryptionCertChain: chain(p.encryption),
		ExpirationTimestamp: now.Add(time.Hour).Unix()})
	if err != nil {
		t.Fatal(err)
	}
	p.pubKeys = string(b)
	return p
}

// The SDK reads the keys the service publishes: its certificates, built without
// crypto/x509 (which knows no secp256k1), parse in Node (OpenSSL) to the same keys.
func TestInteropPublishedKeys(t *testing.T) {
	js, p := sdk(t), newProvider(t, "vasp1.example")
	var got struct{ Signing, Encryption string }
	js.Call(map[string]string{"op": "keys", "pubKeys": p.pubKeys}, &got)
	if got.Signing != hex.EncodeToString(p.signing.Public().Uncompressed()) || got.Encryption != hex.EncodeToString(p.encryption.Public().Uncompressed()) {
		t.Fatalf("the SDK read other keys: %+v", got)
	}
	var published uma.PubKeyResponse
	if err := json.Unmarshal([]byte(p.pubKeys), &published); err != nil {
		t.Fatal(err)
	}
	keys, err := published.Keys(time.Now())
	if err != nil || !keys.Signing.Equal(p.signing.Public()) || !keys.Encryption.Equal(p.encryption.Public()) {
		t.Fatalf("the service reads its own keys back: %v", err)
	}
}

// Travel-rule data encrypted by either side decrypts on the other.
func TestInteropEncryption(t *testing.T) {
	js := sdk(t)
	k, err := uma.NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	const plain = `{"originator":{"name":"Ada Lovelace"}}`
	var enc struct{ Payload string }
	js.Call(map[string]string{"op": "encrypt", "publicKey": hex.EncodeToString(k.Public().Uncompressed()), "plaintext": plain}, &enc)
	payload, err := hex.DecodeString(enc.Payload)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := k.Decrypt(payload); err != nil || string(got) != plain {
		t.Fatalf("the SDK's payload decrypted to %q, %v", got, err)
	}
	mine, err := k.Public().Encrypt([]byte(plain))
	if err != nil {
		t.Fatal(err)
	}
	var dec struct{ Plaintext string }
	js.Call(map[string]string{"op": "decrypt", "privateKey": hex.EncodeToString(k.Bytes()), "payload": hex.EncodeToString(mine)}, &dec)
	if dec.Plaintext != plain {
		t.Fatalf("the SDK decrypted the service's payload to %q", dec.Plaintext)
	}
}

// The LNURLP request and response (UMAD-03, UMAD-04) pass both ways: the SDK verifies the
// service's signed request and response, the service verifies the SDK's, and each refuses
// the other's signature under a third provider's keys.
func TestInteropLnurlp(t *testing.T) {
	js := sdk(t)
	sender, receiver, stranger := newProvider(t, "vasp1.example"), newProvider(t, "vasp2.example"), newProvider(t, "vasp3.example")
	now := time.Now()

	// The service sends; the SDK receives.
	req := uma.NewLnurlpRequest(sender.signing, "$bob@vasp2.example", "vasp1.example", true, now)
	u, err := req.URL()
	if err != nil {
		t.Fatal(err)
	}
	var verified struct {
		Receiver string
		Valid    bool
	}
	js.Call(map[string]string{"op": "verifyLnurlpRequest", "url": u, "pubKeys": sender.pubKeys}, &verified)
	if !verified.Valid || verified.Receiver != "$bob@vasp2.example" {
		t.Fatalf("the SDK on the service's request: %+v", verified)
	}
	js.Call(map[string]string{"op": "verifyLnurlpRequest", "url": u, "pubKeys": stranger.pubKeys}, &verified)
	if verified.Valid {
		t.Fatal("the SDK verified the request with another provider's keys")
	}
	var answer struct{ JSON string }
	js.Call(map[string]string{"op": "lnurlpResponse", "url": u, "privateKey": hex.EncodeToString(receiver.signing.Bytes()),
		"callback": "https://vasp2.example/.well-known/lnurlp/$bob/callback", "metadata": `[["text/plain","Pay $bob"]]`}, &answer)
	var resp uma.LnurlpResponse
	if err := json.Unmarshal([]byte(answer.JSON), &resp); err != nil {
		t.Fatal(err)
	}
	if resp.Compliance == nil || resp.UmaVersion != uma.Version || resp.Compliance.ReceiverIdentifier != "$bob@vasp2.example" ||
		len(resp.Currencies) != 1 || resp.Currencies[0].Convertible.Max != 1_000_000 || !resp.PayerData["compliance"].Mandatory {
		t.Fatalf("the SDK's response as the service reads it: %s", answer.JSON)
	}
	if err := receiver.signing.Public().Verify(resp.Compliance.SignablePayload(), resp.Compliance.Signature); err != nil {
		t.Fatalf("the service on the SDK's response: %v", err)
	}
	if err := stranger.signing.Public().Verify(resp.Compliance.SignablePayload(), resp.Compliance.Signature); err == nil {
		t.Fatal("the service verified the SDK's response with another provider's key")
	}

	// The SDK sends; the service receives.
	var signed struct{ URL string }
	js.Call(map[string]string{"op": "lnurlpRequest", "privateKey": hex.EncodeToString(sender.signing.Bytes()), "receiver": "$alice@vasp2.example",
		"sender": "vasp1.example"}, &signed)
	parsed, err := url.Parse(signed.URL)
	if err != nil {
		t.Fatal(err)
	}
	got, isUma, err := uma.ParseLnurlpRequest(parsed.Host, path.Base(parsed.Path), parsed.Query())
	if err != nil || !isUma || got.ReceiverAddress != "$alice@vasp2.example" || got.VaspDomain != "vasp1.example" || !got.IsSubjectToTravelRule {
		t.Fatalf("the service on the SDK's request %s: %+v %v %v", signed.URL, got, isUma, err)
	}
	if err := sender.signing.Public().Verify(got.SignablePayload(), got.Signature); err != nil {
		t.Fatalf("the service on the SDK's request's signature: %v", err)
	}
	if v, err := uma.NegotiateVersion(got.UmaVersion); err != nil || v != uma.Version {
		t.Fatalf("version %q negotiated to %q, %v", got.UmaVersion, v, err)
	}
	mine := uma.LnurlpResponse{Tag: "payRequest", Callback: "https://vasp2.example/.well-known/lnurlp/$alice/callback", MinSendable: 1_000,
		MaxSendable: 10_000_000_000, Metadata: `[["text/plain","Pay $alice"]]`, UmaVersion: uma.Version,
		Currencies: []uma.Currency{{Code: "USD", Name: "US Dollars", Symbol: "$", Multiplier: 1_000.5, Decimals: 2, Convertible: uma.Convertible{Min: 1, Max: 100_000}}},
		PayerData:  map[string]uma.CounterpartyField{"identifier": {Mandatory: true}, "compliance": {Mandatory: true}},
		Compliance: uma.SignedCompliance(receiver.signing, got, uma.KycVerified, true, now)}
	b, err := json.Marshal(mine)
	if err != nil {
		t.Fatal(err)
	}
	var ok struct{ Valid bool }
	js.Call(map[string]string{"op": "verifyLnurlpResponse", "json": string(b), "pubKeys": receiver.pubKeys}, &ok)
	if !ok.Valid {
		t.Fatalf("the SDK refused the service's response: %s", b)
	}
	js.Call(map[string]string{"op": "verifyLnurlpResponse", "json": string(b), "pubKeys": stranger.pubKeys}, &ok)
	if ok.Valid {
		t.Fatal("the SDK verified the service's response with another provider's keys")
	}
	if !strings.HasPrefix(u, "https://vasp2.example/.well-known/lnurlp/$bob?") {
		t.Fatalf("request URL %s", u)
	}
}

// The pay request, its response and the post-transaction callback (UMAD-05 to UMAD-07)
// pass both ways, travel-rule data included: each side verifies the other's signatures and
// decrypts what was encrypted to it, and refuses a signature under a third provider's keys.
func TestInteropPayRequest(t *testing.T) {
	js := sdk(t)
	sender, receiver, stranger := newProvider(t, "vasp1.example"), newProvider(t, "vasp2.example"), newProvider(t, "vasp3.example")
	const payer, payee, trInfo = "$alice@vasp1.example", "$bob@vasp2.example", `{"originator":{"name":"Alice Sender","country":"US"}}`
	now := time.Now()

	// The SDK sends 1,000 centavos; the service receives.
	var signed struct{ JSON string }
	js.Call(map[string]any{"op": "payRequest", "privateKey": hex.EncodeToString(sender.signing.Bytes()), "receiverKeys": receiver.pubKeys,
		"amount": 1000, "inReceiving": true, "currency": "MXN", "payer": payer, "trInfo": trInfo}, &signed)
	var req uma.PayRequest
	if err := json.Unmarshal([]byte(signed.JSON), &req); err != nil {
		t.Fatal(err)
	}
	amount, currency, err := req.Amount.Parse()
	if err != nil || amount != 1000 || currency != "MXN" || req.Convert != "MXN" || req.PayerData.Identifier != payer || req.PayerData.Compliance == nil ||
		req.PayerData.Compliance.KycStatus != uma.KycVerified || !req.PayeeData["identifier"].Mandatory {
		t.Fatalf("the SDK's pay request as the service reads it (%d %s %v): %s", amount, currency, err, signed.JSON)
	}
	payload, err := req.SignablePayload()
	if err != nil {
		t.Fatal(err)
	}
	if err := sender.signing.Public().Verify(payload, req.PayerData.Compliance.Signature); err != nil {
		t.Fatalf("the service on the SDK's pay request: %v", err)
	}
	if got, err := req.TravelRuleInfo(receiver.encryption); err != nil || got != trInfo {
		t.Fatalf("the SDK's travel-rule data decrypted to %q, %v", got, err)
	}
	if _, err := req.TravelRuleInfo(stranger.encryption); err == nil {
		t.Fatal("another provider's key decrypted the travel-rule data")
	}
	// The service answers; the SDK verifies.
	mine := uma.PayReqResponse{PR: "lnbcrt565020n1example", Routes: []struct{}{}, UmaVersion: uma.Version,
		Converted: &uma.Converted{Amount: 1000, CurrencyCode: "MXN", Decimals: 2, Multiplier: 56.5, Fee: 2000},
		PayeeData: uma.PayeeData{Identifier: payee, Name: "Bob Receiver", Compliance: uma.SignedPayeeCompliance(receiver.signing, payer, payee, "", "", now)}}
	b, err := json.Marshal(mine)
	if err != nil {
		t.Fatal(err)
	}
	var ok struct{ Valid bool }
	js.Call(map[string]string{"op": "verifyPayReqResponse", "json": string(b), "payer": payer, "payee": payee, "pubKeys": receiver.pubKeys}, &ok)
	if !ok.Valid {
		t.Fatalf("the SDK refused the service's pay request response: %s", b)
	}
	js.Call(map[string]string{"op": "verifyPayReqResponse", "json": string(b), "payer": payer, "payee": payee, "pubKeys": stranger.pubKeys}, &ok)
	if ok.Valid {
		t.Fatal("the SDK verified the service's response with another provider's keys")
	}

	// The service sends 150,000 msats; the SDK receives and answers.
	mineReq, err := uma.NewPayRequest(sender.signing, receiver.encryption.Public(), "150000", "MXN",
		uma.Payer{Identifier: payer, Name: "Alice Sender", KycStatus: uma.KycVerified, TravelRuleInfo: trInfo, UtxoCallback: "https://vasp1.example/cb"},
		map[string]uma.CounterpartyField{"identifier": {Mandatory: true}}, now)
	if err != nil {
		t.Fatal(err)
	}
	b, err = json.Marshal(mineReq)
	if err != nil {
		t.Fatal(err)
	}
	var checked struct {
		Valid                     bool
		Amount                    int64
		Currency, Convert, TrInfo string
	}
	js.Call(map[string]string{"op": "verifyPayRequest", "json": string(b), "pubKeys": sender.pubKeys, "privateKey": hex.EncodeToString(receiver.encryption.Bytes())}, &checked)
	if !checked.Valid || checked.Amount != 150_000 || checked.Currency != "" || checked.Convert != "MXN" || checked.TrInfo != trInfo {
		t.Fatalf("the SDK on the service's pay request: %+v", checked)
	}
	js.Call(map[string]string{"op": "verifyPayRequest", "json": string(b), "pubKeys": stranger.pubKeys, "privateKey": hex.EncodeToString(receiver.encryption.Bytes())}, &checked)
	if checked.Valid {
		t.Fatal("the SDK verified the service's pay request with another provider's keys")
	}
	var answered struct {
		JSON  string
		Msats int64
	}
	js.Call(map[string]string{"op": "payReqResponse", "request": string(b), "privateKey": hex.EncodeToString(receiver.signing.Bytes()),
		"invoice": "lnbcrt1500n1example", "payee": payee}, &answered)
	var resp uma.PayReqResponse
	if err := json.Unmarshal([]byte(answered.JSON), &resp); err != nil {
		t.Fatal(err)
	}
	if answered.Msats != 150_000 || resp.PR != "lnbcrt1500n1example" || resp.Converted == nil || resp.Converted.CurrencyCode != "MXN" ||
		resp.Converted.Fee != 2000 || resp.Converted.Amount != 2619 || resp.PayeeData.Compliance == nil || resp.PayeeData.Identifier != payee {
		t.Fatalf("the SDK's response as the service reads it (invoice of %d msat): %s", answered.Msats, answered.JSON)
	}
	if err := receiver.signing.Public().Verify(resp.PayeeData.Compliance.SignablePayload(payer, payee), resp.PayeeData.Compliance.Signature); err != nil {
		t.Fatalf("the service on the SDK's response: %v", err)
	}
	soon := now.Add(10 * time.Minute)
	if err := resp.CheckInvoice(mineReq, answered.Msats, now.Add(time.Hour), soon, 1_000_000); err != nil {
		t.Fatalf("the SDK's invoice for the service's msat request: %v", err)
	}
	// Asked in the receiving currency: the SDK's invoice is the amount at its rate plus its fee.
	inMXN, err := uma.NewPayRequest(sender.signing, receiver.encryption.Public(), "1000.MXN", "MXN", uma.Payer{Identifier: payer, KycStatus: uma.KycVerified}, nil, now)
	if err != nil {
		t.Fatal(err)
	}
	b, err = json.Marshal(inMXN)
	if err != nil {
		t.Fatal(err)
	}
	js.Call(map[string]string{"op": "payReqResponse", "request": string(b), "privateKey": hex.EncodeToString(receiver.signing.Bytes()),
		"invoice": "lnbcrt585n1example", "payee": payee}, &answered)
	var mxn uma.PayReqResponse
	if err := json.Unmarshal([]byte(answered.JSON), &mxn); err != nil {
		t.Fatal(err)
	}
	if err := mxn.CheckInvoice(inMXN, answered.Msats, now.Add(time.Hour), soon, 1_000_000); err != nil || answered.Msats != 58_500 {
		t.Fatalf("the SDK's invoice of %d msat for 1000 MXN: %v", answered.Msats, err)
	}
	if err := mxn.CheckInvoice(inMXN, answered.Msats+1_000, now.Add(time.Hour), soon, 1_000_000); err == nil {
		t.Fatal("an invoice for more than the response states was accepted")
	}

	// Post-transaction callbacks, both ways.
	js.Call(map[string]string{"op": "postTxCallback", "privateKey": hex.EncodeToString(receiver.signing.Bytes()), "domain": "vasp2.example"}, &signed)
	var cb uma.PostTransactionCallback
	if err := json.Unmarshal([]byte(signed.JSON), &cb); err != nil || cb.VaspDomain != "vasp2.example" || len(cb.Utxos) != 1 || cb.Utxos[0].AmountMsats != 1000 {
		t.Fatalf("the SDK's callback: %s (%v)", signed.JSON, err)
	}
	if err := receiver.signing.Public().Verify(cb.SignablePayload(), cb.Signature); err != nil {
		t.Fatalf("the service on the SDK's callback: %v", err)
	}
	b, err = json.Marshal(uma.NewPostTransactionCallback(sender.signing, "vasp1.example", nil, now))
	if err != nil {
		t.Fatal(err)
	}
	js.Call(map[string]string{"op": "verifyPostTxCallback", "json": string(b), "pubKeys": sender.pubKeys}, &ok)
	if !ok.Valid {
		t.Fatalf("the SDK refused the service's callback: %s", b)
	}
}
