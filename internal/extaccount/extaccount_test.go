package extaccount

import (
	"bytes"
	"encoding/json"
	"math/big"
	"slices"
	"strings"
	"testing"

	"paycore/internal/banking"
)

const (
	indiv      = `{"beneficiaryType":"INDIVIDUAL","fullName":"Ada Lovelace"}`
	addr       = `{"line1":"1 Main St","city":"Berlin","postalCode":"10115","country":"DE"}`
	indivAddr  = `{"beneficiaryType":"INDIVIDUAL","fullName":"Ada Lovelace","address":` + addr + `}`
	biz        = `{"beneficiaryType":"BUSINESS","legalName":"Acme Ltd"}`
	indivEGP   = `{"beneficiaryType":"INDIVIDUAL","fullName":"Ada Lovelace","address":` + addr + `,"countryOfResidence":"EG","phoneNumber":"+201001234567"}`
	indivGTQ   = `{"beneficiaryType":"INDIVIDUAL","fullName":"Ada Lovelace","countryOfResidence":"GT","phoneNumber":"+50212345678"}`
	indivJMD   = `{"beneficiaryType":"INDIVIDUAL","fullName":"Ada Lovelace","address":` + addr + `,"phoneNumber":"+18765551234"}`
	solUSDC    = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
	evm        = "0x52908400098527886E0F7030069857D2E4169EE7"
	tronUSDT   = "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"
	sparkAddr  = "spark1pgssyuuuhnrrdjswal5c3s3rafw9w3y5dd4cjy3duxlf7hjzkp0rqx6dj6mrhu"
	invoice    = "lnbc2500u1pvjluezpp5qqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqqqsyqcyq5rqwzqfqypqdq5xysxxatsyp3k7enxv4jsxqzpuaztrnwngzn3kdzw5hydlzf03qdgm2hdq27cqv3agm2awhz5se903vruatfhq77w3ls4evs3ch9zw97j25emudupq63nyw24cg27h2rspfj9srp"
	offer      = "lno1qgsqvgnwgcg35z6ee2h3yczraddm72xrfua9uve2rlrm9deu7xyfzrc2qajx2enpw4k8g93pqtyh3ra7c64yq7rfmusu5qcs3ztd5ed75xaxlcqx4su3d8aw5yp"
	usdAccount = `{"accountType":"USD_ACCOUNT","accountNumber":"123456789002","routingNumber":"021000021","beneficiary":` + indiv + `}`
)

// acct builds an accountInfo object from its accountType, the other fields
// (a JSON object body without braces) and a beneficiary ("" for none).
func acct(accountType, fields, beneficiary string) string {
	s := `{"accountType":"` + accountType + `"`
	if fields != "" {
		s += "," + fields
	}
	if beneficiary != "" {
		s += `,"beneficiary":` + beneficiary
	}
	return s + "}"
}

type validCase struct {
	name       string
	currency   string
	raw        string
	rails      []string
	identifier string
	benName    string
}

var validCases = []validCase{
	{"AED", "AED", acct("AED_ACCOUNT", `"iban":"AE070331234567890123456","swiftCode":"EBILAEAD"`, indivAddr), []string{"BANK_TRANSFER"}, "AE070331234567890123456", "Ada Lovelace"},
	{"BDT", "BDT", acct("BDT_ACCOUNT", `"accountNumber":"1234567890123","branchCode":"12345","swiftCode":"BBHOBDDH","phoneNumber":"+8801712345678"`, indiv), []string{"BANK_TRANSFER", "MOBILE_MONEY"}, "1234567890123", "Ada Lovelace"},
	{"BRL", "BRL", acct("BRL_ACCOUNT", `"pixKey":"ada@example.com","pixKeyType":"EMAIL","taxId":"12345678909"`, indiv), []string{"PIX"}, "ada@example.com", "Ada Lovelace"},
	{"BWP", "BWP", acct("BWP_ACCOUNT", `"phoneNumber":"+26771234567","provider":"Orange"`, indiv), []string{"MOBILE_MONEY"}, "+26771234567", "Ada Lovelace"},
	{"CAD", "CAD", acct("CAD_ACCOUNT", `"bankCode":"001","branchCode":"00011","accountNumber":"1234567"`, indiv), []string{"BANK_TRANSFER"}, "1234567", "Ada Lovelace"},
	{"COP", "COP", acct("COP_ACCOUNT", `"bankName":"Bancolombia","accountNumber":"12345678901","bankAccountType":"SAVINGS","phoneNumber":"+573001234567"`, indiv), []string{"BANK_TRANSFER", "MOBILE_MONEY"}, "12345678901", "Ada Lovelace"},
	{"CNY bank", "CNY", acct("CNY_ACCOUNT", `"paymentRails":["BANK_TRANSFER"],"accountNumber":"6222021234567890","bankName":"ICBC"`, biz), []string{"BANK_TRANSFER"}, "6222021234567890", "Acme Ltd"},
	{"CNY wallet", "CNY", acct("CNY_ACCOUNT", `"paymentRails":["MOBILE_MONEY"],"bankName":"AliPay","phoneNumber":"+8613800138000"`, indiv), []string{"MOBILE_MONEY"}, "+8613800138000", "Ada Lovelace"},
	{"DKK", "DKK", acct("DKK_ACCOUNT", `"iban":"DK5000400440116243"`, indiv), []string{"SEPA", "SEPA_INSTANT"}, "DK5000400440116243", "Ada Lovelace"},
	{"EGP", "EGP", acct("EGP_ACCOUNT", `"bankName":"National Bank of Egypt","accountNumber":"1234567890","iban":"EG380019000500000000263180002","swiftCode":"NBEGEGCX"`, indivEGP), []string{"BANK_TRANSFER"}, "1234567890", "Ada Lovelace"},
	{"EUR", "EUR", acct("EUR_ACCOUNT", `"iban":"DE89370400440532013000","swiftCode":"COBADEFFXXX"`, indivAddr), []string{"SEPA", "SEPA_INSTANT"}, "DE89370400440532013000", "Ada Lovelace"},
	{"GBP", "GBP", acct("GBP_ACCOUNT", `"sortCode":"601613","accountNumber":"31926819"`, indiv), []string{"FASTER_PAYMENTS"}, "31926819", "Ada Lovelace"},
	{"GHS", "GHS", acct("GHS_ACCOUNT", `"phoneNumber":"+233201234567"`, indiv), []string{"BANK_TRANSFER", "MOBILE_MONEY"}, "+233201234567", "Ada Lovelace"},
	{"GTQ", "GTQ", acct("GTQ_ACCOUNT", `"accountNumber":"0123456789","bankAccountType":"CHECKING"`, indivGTQ), []string{"BANK_TRANSFER"}, "0123456789", "Ada Lovelace"},
	{"HKD", "HKD", acct("HKD_ACCOUNT", `"bankName":"HSBC","accountNumber":"123456789001","swiftCode":"HSBCHKHHHKH"`, indiv), []string{"BANK_TRANSFER"}, "123456789001", "Ada Lovelace"},
	{"HTG", "HTG", acct("HTG_ACCOUNT", `"phoneNumber":"+50937123456"`, indiv), []string{"MOBILE_MONEY"}, "+50937123456", "Ada Lovelace"},
	{"IDR", "IDR", acct("IDR_ACCOUNT", `"bankName":"Bank Central Asia","accountNumber":"1234567890","swiftCode":"CENAIDJA","phoneNumber":"+6281234567890"`, indiv), []string{"BANK_TRANSFER"}, "1234567890", "Ada Lovelace"},
	{"INR", "INR", acct("INR_ACCOUNT", `"vpa":"ada.lovelace005@okbank"`, indiv), []string{"UPI"}, "ada.lovelace005@okbank", "Ada Lovelace"},
	{"INR NEFT", "INR", acct("INR_ACCOUNT", `"paymentRails":["NEFT","RTGS"],"accountNumber":"000111222333","ifsc":"HDFC0001234","rail":"NEFT","bankName":"HDFC Bank"`, indiv), []string{"NEFT", "RTGS"}, "000111222333", "Ada Lovelace"},
	{"INR all rails", "INR", acct("INR_ACCOUNT", `"paymentRails":["UPI","NEFT"],"vpa":"ada@okbank","accountNumber":"000111222333","ifsc":"HDFC0001234"`, indiv), []string{"UPI", "NEFT"}, "000111222333", "Ada Lovelace"},
	{"EGP by IBAN", "EGP", acct("EGP_ACCOUNT", `"paymentRails":["BANK_TRANSFER"],"bankName":"NBE","iban":"EG380019000500000000263180002"`, indivEGP), []string{"BANK_TRANSFER"}, "EG380019000500000000263180002", "Ada Lovelace"},
	{"EGP mobile", "EGP", acct("EGP_ACCOUNT", `"paymentRails":["MOBILE_MONEY"],"bankName":"Vodafone Cash","phoneNumber":"+201001234567"`, indivEGP), []string{"MOBILE_MONEY"}, "+201001234567", "Ada Lovelace"},
	{"USD wire via a correspondent", "USD", acct("USD_ACCOUNT", `"accountNumber":"123456789","routingNumber":"021000021","bankName":"Chase","intermediaryBankName":"JPMorgan Chase Bank","intermediaryRoutingNumber":"021000021","fiToFiInformation":"/BNF/Invoice 4471","paymentRails":["WIRE"]`, indiv), []string{"WIRE"}, "123456789", "Ada Lovelace"},
	{"JMD", "JMD", acct("JMD_ACCOUNT", `"accountNumber":"123456789","branchCode":"12345","bankAccountType":"SAVINGS"`, indivJMD), []string{"BANK_TRANSFER"}, "123456789", "Ada Lovelace"},
	{"KES", "KES", acct("KES_ACCOUNT", `"phoneNumber":"+254712345678","provider":"M-PESA"`, indiv), []string{"MOBILE_MONEY"}, "+254712345678", "Ada Lovelace"},
	{"MWK", "MWK", acct("MWK_ACCOUNT", `"phoneNumber":"+265991234567","provider":"Airtel"`, indiv), []string{"MOBILE_MONEY"}, "+265991234567", "Ada Lovelace"},
	{"MXN", "MXN", acct("MXN_ACCOUNT", `"clabeNumber":"032180000118359719"`, indiv), []string{"SPEI"}, "032180000118359719", "Ada Lovelace"},
	{"MYR", "MYR", acct("MYR_ACCOUNT", `"bankName":"Maybank","accountNumber":"512345678901","swiftCode":"MBBEMYKL"`, indiv), []string{"BANK_TRANSFER"}, "512345678901", "Ada Lovelace"},
	{"NGN", "NGN", acct("NGN_ACCOUNT", `"accountNumber":"0123456789","bankName":"GTBank"`, indiv), []string{"BANK_TRANSFER"}, "0123456789", "Ada Lovelace"},
	{"PHP", "PHP", acct("PHP_ACCOUNT", `"bankName":"BDO","accountNumber":"123456789012"`, indiv), []string{"BANK_TRANSFER"}, "123456789012", "Ada Lovelace"},
	{"PKR", "PKR", acct("PKR_ACCOUNT", `"iban":"PK36SCBL0000001123456702","bankName":"Standard Chartered"`, indiv), []string{"BANK_TRANSFER", "MOBILE_MONEY"}, "PK36SCBL0000001123456702", "Ada Lovelace"},
	{"RWF", "RWF", acct("RWF_ACCOUNT", `"phoneNumber":"+250781234567","provider":"MTN"`, indiv), []string{"MOBILE_MONEY"}, "+250781234567", "Ada Lovelace"},
	{"SGD", "SGD", acct("SGD_ACCOUNT", `"bankName":"DBS","accountNumber":"0123456789","swiftCode":"DBSSSGSG"`, indiv), []string{"PAYNOW", "FAST", "BANK_TRANSFER"}, "0123456789", "Ada Lovelace"},
	{"SLV", "USD", acct("SLV_ACCOUNT", `"bankName":"Banco Agricola","accountNumber":"1234567890","bankAccountType":"CHECKING"`, indiv), []string{"BANK_TRANSFER", "MOBILE_MONEY"}, "1234567890", "Ada Lovelace"},
	{"THB", "THB", acct("THB_ACCOUNT", `"bankName":"Kasikornbank","accountNumber":"1234567890","swiftCode":"KASITHBK"`, indiv), []string{"BANK_TRANSFER"}, "1234567890", "Ada Lovelace"},
	{"TZS", "TZS", acct("TZS_ACCOUNT", `"phoneNumber":"+255712345678","provider":"Vodacom"`, indiv), []string{"MOBILE_MONEY"}, "+255712345678", "Ada Lovelace"},
	{"UGX", "UGX", acct("UGX_ACCOUNT", `"phoneNumber":"+256712345678","provider":"MTN"`, indiv), []string{"MOBILE_MONEY"}, "+256712345678", "Ada Lovelace"},
	{"USD", "USD", usdAccount, []string{"ACH", "WIRE", "RTP", "FEDNOW"}, "123456789002", "Ada Lovelace"},
	{"VND", "VND", acct("VND_ACCOUNT", `"bankName":"Vietcombank","accountNumber":"0071000123456","swiftCode":"BFTVVNVX"`, indiv), []string{"BANK_TRANSFER"}, "0071000123456", "Ada Lovelace"},
	{"XAF", "XAF", acct("XAF_ACCOUNT", `"phoneNumber":"+237671234567","provider":"MTN","region":"CM"`, indiv), []string{"MOBILE_MONEY"}, "+237671234567", "Ada Lovelace"},
	{"XOF", "XOF", acct("XOF_ACCOUNT", `"phoneNumber":"+221771234567","provider":"Orange","region":"SN"`, indiv), []string{"MOBILE_MONEY"}, "+221771234567", "Ada Lovelace"},
	{"ZAR", "ZAR", acct("ZAR_ACCOUNT", `"accountNumber":"1234567890","bankName":"FNB"`, indiv), []string{"BANK_TRANSFER"}, "1234567890", "Ada Lovelace"},
	{"ZMW", "ZMW", acct("ZMW_ACCOUNT", `"phoneNumber":"+260971234567","provider":"Airtel"`, indiv), []string{"MOBILE_MONEY"}, "+260971234567", "Ada Lovelace"},
	{"SWIFT", "CHF", acct("SWIFT_ACCOUNT", `"country":"CH","swiftCode":"UBSWCHZH80A","bankName":"UBS","iban":"CH9300762011623852957"`, biz), []string{"SWIFT"}, "CH9300762011623852957", "Acme Ltd"},
	{"BASE", "USDC", acct("BASE_WALLET", `"address":"`+evm+`"`, ""), nil, evm, ""},
	{"ETHEREUM", "USDC", acct("ETHEREUM_WALLET", `"address":"`+evm+`"`, ""), nil, evm, ""},
	{"LIGHTNING", "BTC", acct("LIGHTNING", `"invoice":"`+invoice+`"`, ""), nil, invoice, ""},
	{"POLYGON", "USDC", acct("POLYGON_WALLET", `"address":"0xd8da6bf26964af9d7eed9e03e53415d37aa96045"`, ""), nil, "0xd8da6bf26964af9d7eed9e03e53415d37aa96045", ""},
	{"PLASMA", "USDT", acct("PLASMA_WALLET", `"address":"0xAbCDEF1234567890aBCdEf1234567890ABcDef12"`, ""), nil, "0xAbCDEF1234567890aBCdEf1234567890ABcDef12", ""},
	{"SOLANA", "USDT", acct("SOLANA_WALLET", `"address":"`+solUSDC+`"`, ""), nil, solUSDC, ""},
	{"SPARK", "BTC", acct("SPARK_WALLET", `"address":"`+sparkAddr+`"`, ""), nil, sparkAddr, ""},
	{"TRON", "USDT", acct("TRON_WALLET", `"address":"`+tronUSDT+`"`, ""), nil, tronUSDT, ""},

	// Further valid shapes.
	{"EUR business without address", "EUR", acct("EUR_ACCOUNT", `"iban":"FR1420041010050500013M02606"`, biz), []string{"SEPA", "SEPA_INSTANT"}, "FR1420041010050500013M02606", "Acme Ltd"},
	{"AED business without address", "AED", acct("AED_ACCOUNT", `"iban":"AE070331234567890123456"`, biz), []string{"BANK_TRANSFER"}, "AE070331234567890123456", "Acme Ltd"},
	{"EGP business minimal", "EGP", acct("EGP_ACCOUNT", `"bankName":"NBE","accountNumber":"42"`, biz), []string{"BANK_TRANSFER"}, "42", "Acme Ltd"},
	{"EUR with NL iban", "EUR", acct("EUR_ACCOUNT", `"iban":"NL91ABNA0417164300"`, indivAddr), []string{"SEPA", "SEPA_INSTANT"}, "NL91ABNA0417164300", "Ada Lovelace"},
	{"USD business full", "USD", acct("USD_ACCOUNT", `"accountNumber":"0001234","routingNumber":"011000015"`,
		`{"beneficiaryType":"BUSINESS","legalName":"Acme Inc.","registrationNumber":"REG-1","taxId":"12-3456789","email":"ap@acme.example","phoneNumber":"+14155550100","countryOfResidence":"US","address":{"line1":"1 Market St","line2":"Suite 5","city":"San Francisco","state":"CA","postalCode":"94105","country":"US"}}`),
		[]string{"ACH", "WIRE", "RTP", "FEDNOW"}, "0001234", "Acme Inc."},
	{"USD individual full", "USD", acct("USD_ACCOUNT", `"accountNumber":"12345678901234567","routingNumber":"091000019"`,
		`{"beneficiaryType":"INDIVIDUAL","fullName":"José Núñez","birthDate":"1990-01-31","nationality":"MX","email":"jose@example.com","phoneNumber":"+525512345678","countryOfResidence":"US","address":`+addr+`}`),
		[]string{"ACH", "WIRE", "RTP", "FEDNOW"}, "12345678901234567", "José Núñez"},
	{"CAD individual registrationNumber", "CAD", acct("CAD_ACCOUNT", `"bankCode":"003","branchCode":"12345","accountNumber":"123456789012"`, `{"beneficiaryType":"INDIVIDUAL","fullName":"Ada","registrationNumber":"SIN-1"}`), []string{"BANK_TRANSFER"}, "123456789012", "Ada"},
	{"COP individual document", "COP", acct("COP_ACCOUNT", `"phoneNumber":"+573001234567"`, `{"beneficiaryType":"INDIVIDUAL","fullName":"Ada","documentType":"CC","documentNumber":"1020304050"}`), []string{"BANK_TRANSFER", "MOBILE_MONEY"}, "+573001234567", "Ada"},
	{"PKR phone only", "PKR", acct("PKR_ACCOUNT", `"phoneNumber":"+923001234567"`, indiv), []string{"BANK_TRANSFER", "MOBILE_MONEY"}, "+923001234567", "Ada Lovelace"},
	{"PKR account before iban", "PKR", acct("PKR_ACCOUNT", `"iban":"PK36SCBL0000001123456702","accountNumber":"0001123456702"`, indiv), []string{"BANK_TRANSFER", "MOBILE_MONEY"}, "0001123456702", "Ada Lovelace"},
	{"SWIFT account number, USD", "USD", acct("SWIFT_ACCOUNT", `"country":"JP","swiftCode":"BOTKJPJT","bankName":"MUFG","accountNumber":"1234567"`, indiv), []string{"SWIFT"}, "1234567", "Ada Lovelace"},
	{"BRL random key", "BRL", acct("BRL_ACCOUNT", `"pixKey":"123e4567-e89b-12d3-a456-426614174000","pixKeyType":"RANDOM","taxId":"12345678000195"`, biz), []string{"PIX"}, "123e4567-e89b-12d3-a456-426614174000", "Acme Ltd"},
	{"IDR phone 12 digits", "IDR", acct("IDR_ACCOUNT", `"bankName":"BRI","accountNumber":"1","swiftCode":"BRINIDJA","phoneNumber":"+62812345678901"`, indiv), []string{"BANK_TRANSFER"}, "1", "Ada Lovelace"},
	{"XOF CI", "XOF", acct("XOF_ACCOUNT", `"phoneNumber":"+2250712345678","provider":"Wave","region":"CI"`, indiv), []string{"MOBILE_MONEY"}, "+2250712345678", "Ada Lovelace"},
	{"XAF CG", "XAF", acct("XAF_ACCOUNT", `"phoneNumber":"+242061234567","provider":"Airtel","region":"CG"`, indiv), []string{"MOBILE_MONEY"}, "+242061234567", "Ada Lovelace"},
	{"whitespace kept", "USD", "{ \"accountType\" : \"USD_ACCOUNT\" ,\n \"accountNumber\":\"123456789\", \"routingNumber\":\"021000021\",\"beneficiary\":{\"beneficiaryType\":\"INDIVIDUAL\",\"fullName\":\"  Ada  \"}}", []string{"ACH", "WIRE", "RTP", "FEDNOW"}, "123456789", "  Ada  "},
	{"optional plain string empty", "USD", acct("USD_ACCOUNT", `"accountNumber":"1234","routingNumber":"021000021"`, `{"beneficiaryType":"INDIVIDUAL","fullName":"Ada","birthDate":""}`), []string{"ACH", "WIRE", "RTP", "FEDNOW"}, "1234", "Ada"},
	{"LIGHTNING bolt12", "BTC", acct("LIGHTNING", `"bolt12":"`+offer+`"`, ""), nil, offer, ""},
	{"LIGHTNING address", "BTC", acct("LIGHTNING", `"lightningAddress":"alice005@ln.example"`, ""), nil, "alice005@ln.example", ""},
	{"LIGHTNING regtest invoice", "BTC", acct("LIGHTNING", `"invoice":"lnbcrt10u1pjqqqqq"`, ""), nil, "lnbcrt10u1pjqqqqq", ""},
	{"LIGHTNING testnet invoice", "BTC", acct("LIGHTNING", `"invoice":"lntb10u1pjqqqqq"`, ""), nil, "lntb10u1pjqqqqq", ""},
	{"SOLANA USDC system program", "USDC", acct("SOLANA_WALLET", `"address":"11111111111111111111111111111111"`, ""), nil, "11111111111111111111111111111111", ""},
	{"SOLANA wSOL mint", "USDC", acct("SOLANA_WALLET", `"address":"So11111111111111111111111111111111111111112"`, ""), nil, "So11111111111111111111111111111111111111112", ""},
	{"SPARK USDB sp prefix", "USDB", acct("SPARK_WALLET", `"address":"sp1qqqqqqqqqqqqqqqqqqqqqqq"`, ""), nil, "sp1qqqqqqqqqqqqqqqqqqqqqqq", ""},
	{"SPARK sparkrt", "BTC", acct("SPARK_WALLET", `"address":"sparkrt1pgssyuuuhnrrdjswal5c3s3rafw9w3y5"`, ""), nil, "sparkrt1pgssyuuuhnrrdjswal5c3s3rafw9w3y5", ""},
}

func TestParseValid(t *testing.T) {
	for _, tc := range validCases {
		t.Run(tc.name, func(t *testing.T) {
			info, fe := Parse(tc.currency, json.RawMessage(tc.raw))
			if fe != nil {
				t.Fatalf("Parse(%s, %s) = %v", tc.currency, tc.raw, fe)
			}
			var in map[string]any
			if err := json.Unmarshal([]byte(tc.raw), &in); err != nil {
				t.Fatal(err)
			}
			if info.AccountType != in["accountType"] {
				t.Errorf("AccountType = %q, want %q", info.AccountType, in["accountType"])
			}
			if !slices.Equal(info.PaymentRails, tc.rails) || (tc.rails == nil) != (info.PaymentRails == nil) {
				t.Errorf("PaymentRails = %#v, want %#v", info.PaymentRails, tc.rails)
			}
			if info.Identifier != tc.identifier {
				t.Errorf("Identifier = %q, want %q", info.Identifier, tc.identifier)
			}
			if info.BeneficiaryName != tc.benName {
				t.Errorf("BeneficiaryName = %q, want %q", info.BeneficiaryName, tc.benName)
			}
			wantWallet := strings.HasSuffix(info.AccountType, "_WALLET") || info.AccountType == "LIGHTNING"
			if info.IsWallet != wantWallet {
				t.Errorf("IsWallet = %v, want %v", info.IsWallet, wantWallet)
			}
			// Normalized = input + paymentRails (bank types only) + an individual's
			// countryOfResidence from its address where its type takes one.
			var norm map[string]any
			if err := json.Unmarshal(info.Normalized, &norm); err != nil {
				t.Fatalf("Normalized %s: %v", info.Normalized, err)
			}
			if tc.rails != nil {
				rails, _ := json.Marshal(norm["paymentRails"])
				want, _ := json.Marshal(tc.rails)
				if !bytes.Equal(rails, want) {
					t.Errorf("Normalized paymentRails = %s, want %s", rails, want)
				}
				in["paymentRails"] = norm["paymentRails"]
			} else if _, ok := norm["paymentRails"]; ok {
				t.Errorf("wallet Normalized has paymentRails: %s", info.Normalized)
			}
			if nb, _ := norm["beneficiary"].(map[string]any); nb != nil {
				ib, _ := in["beneficiary"].(map[string]any)
				if addr, _ := ib["address"].(map[string]any); ib["countryOfResidence"] == nil && nb["countryOfResidence"] != nil {
					if nb["countryOfResidence"] != addr["country"] {
						t.Errorf("countryOfResidence %v, want the address's %v", nb["countryOfResidence"], addr["country"])
					}
					ib["countryOfResidence"] = nb["countryOfResidence"]
				}
			}
			a, _ := json.Marshal(in)
			b, _ := json.Marshal(norm)
			if !bytes.Equal(a, b) {
				t.Errorf("Normalized = %s, want input plus rails %s", b, a)
			}
		})
	}
}

// Beneficiaries as both the peer's 2025-10-13 document and its newer one define them are
// accepted: an EUR individual with an address or with countryOfResidence, an EGP
// individual with its name alone, a wallet with or without its owner and custodian, a
// bank account with the paymentRails the client chose (kept as chosen) or without them.
func TestParseBothDocumentsBeneficiaries(t *testing.T) {
	iban := `"iban":"` + banking.MakeIBAN("DE", "370400440532013000") + `"`
	for _, tc := range []struct{ currency, raw string }{
		{"EUR", acct("EUR_ACCOUNT", iban, indivAddr)},
		{"EUR", acct("EUR_ACCOUNT", iban, `{"beneficiaryType":"INDIVIDUAL","fullName":"Ada","countryOfResidence":"DE"}`)},
		{"EGP", acct("EGP_ACCOUNT", `"bankName":"NBE","accountNumber":"1"`, indiv)},
		{"USDC", acct("BASE_WALLET", `"address":"`+evm+`"`, "")},
		{"USDC", acct("BASE_WALLET", `"address":"`+evm+`","vaspName":"Kraken"`, `{"beneficiaryType":"INDIVIDUAL","fullName":"Ada","countryOfResidence":"GB"}`)},
		{"BTC", acct("LIGHTNING", `"invoice":"`+invoice+`"`, biz)},
		{"USD", acct("USD_ACCOUNT", usdFields+`,"paymentRails":["WIRE","ACH"]`, indiv)},
	} {
		info, fe := Parse(tc.currency, json.RawMessage(tc.raw))
		if fe != nil {
			t.Errorf("Parse(%s) = %v", tc.raw, fe)
			continue
		}
		if strings.Contains(tc.raw, `"beneficiary"`) && info.BeneficiaryName == "" {
			t.Errorf("Parse(%s): no beneficiary name", tc.raw)
		}
		if strings.Contains(tc.raw, `"paymentRails"`) && strings.Join(info.PaymentRails, ",") != "WIRE,ACH" {
			t.Errorf("Parse(%s): rails %v", tc.raw, info.PaymentRails)
		}
	}
}

func TestParseCoversEveryType(t *testing.T) {
	types := AccountTypes()
	if len(types) != 46 {
		t.Errorf("AccountTypes() has %d entries, want 46", len(types))
	}
	covered := map[string]bool{}
	for _, tc := range validCases {
		var in struct{ AccountType string }
		_ = json.Unmarshal([]byte(tc.raw), &in)
		covered[in.AccountType] = true
	}
	for _, at := range types {
		if !covered[at] {
			t.Errorf("no valid example for %s", at)
		}
	}
}

func TestNormalizedExact(t *testing.T) {
	info, fe := Parse("USD", json.RawMessage(`{"routingNumber":"021000021","beneficiary":{"fullName":"Ada <Lovelace>","beneficiaryType":"INDIVIDUAL"},"accountNumber":"123456789002","accountType":"USD_ACCOUNT"}`))
	if fe != nil {
		t.Fatal(fe)
	}
	want := `{"accountNumber":"123456789002","accountType":"USD_ACCOUNT","beneficiary":{"beneficiaryType":"INDIVIDUAL","fullName":"Ada <Lovelace>"},"paymentRails":["ACH","WIRE","RTP","FEDNOW"],"routingNumber":"021000021"}`
	if string(info.Normalized) != want {
		t.Errorf("Normalized =\n%s\nwant\n%s", info.Normalized, want)
	}
	if got := banking.SandboxSuffix(info.Identifier); got != "002" {
		t.Errorf("SandboxSuffix(Identifier) = %q, want 002", got)
	}

	info, fe = Parse("USDC", json.RawMessage(acct("BASE_WALLET", `"address":"`+evm+`"`, "")))
	if fe != nil {
		t.Fatal(fe)
	}
	if want := `{"accountType":"BASE_WALLET","address":"` + evm + `"}`; string(info.Normalized) != want {
		t.Errorf("Normalized = %s, want %s", info.Normalized, want)
	}
}

func TestSandboxSuffixOfIdentifiers(t *testing.T) {
	tests := []struct{ currency, raw, suffix string }{
		{"USD", usdAccount, "002"},
		{"INR", acct("INR_ACCOUNT", `"vpa":"name005@upi"`, indiv), "005"},
		{"BTC", acct("LIGHTNING", `"lightningAddress":"alice005@ln.example"`, ""), "005"},
		{"KES", acct("KES_ACCOUNT", `"phoneNumber":"+254712345104","provider":"M-PESA"`, indiv), "104"},
		{"EUR", acct("EUR_ACCOUNT", `"iban":"`+banking.MakeIBAN("DE", "370400440532013003")+`"`, indivAddr), "003"},
	}
	for _, tt := range tests {
		info, fe := Parse(tt.currency, json.RawMessage(tt.raw))
		if fe != nil {
			t.Fatalf("Parse(%s) = %v", tt.raw, fe)
		}
		if got := banking.SandboxSuffix(info.Identifier); got != tt.suffix {
			t.Errorf("SandboxSuffix(%q) = %q, want %q", info.Identifier, got, tt.suffix)
		}
	}
	// A CLABE ending in a chosen suffix: the control digit is the last digit,
	// so pick the first 17 digits so that the suffix's last digit is the
	// control digit.
	for p := 0; p < 100; p++ {
		first := "0321800001183" + string(rune('0'+p/10)) + string(rune('0'+p%10)) + "00"
		c := banking.MakeCLABE(first)
		if strings.HasSuffix(c, "005") {
			info, fe := Parse("MXN", json.RawMessage(acct("MXN_ACCOUNT", `"clabeNumber":"`+c+`"`, indiv)))
			if fe != nil {
				t.Fatalf("Parse CLABE %s: %v", c, fe)
			}
			if got := banking.SandboxSuffix(info.Identifier); got != "005" {
				t.Errorf("SandboxSuffix = %q", got)
			}
			return
		}
	}
	t.Error("no CLABE ending in 005 found")
}

type invalidCase struct {
	name     string
	currency string
	raw      string
	field    string
	msg      string // substring of the message
}

var (
	longName  = strings.Repeat("a", 256)
	usdFields = `"accountNumber":"123456789","routingNumber":"021000021"`
)

var invalidCases = []invalidCase{
	// Shape of accountInfo.
	{"not JSON", "USD", `{"accountType":`, "accountInfo", "valid JSON"},
	{"array", "USD", `[]`, "accountInfo", "must be an object"},
	{"null", "USD", `null`, "accountInfo", "must be an object"},
	{"string", "USD", `"USD_ACCOUNT"`, "accountInfo", "must be an object"},
	{"empty input", "USD", ``, "accountInfo", "valid JSON"},
	{"two objects", "USD", usdAccount + ` {}`, "accountInfo", "valid JSON"},
	{"duplicate key", "USD", `{"accountType":"USD_ACCOUNT","accountType":"EUR_ACCOUNT"}`, "accountInfo.accountType", "more than once"},
	{"missing accountType", "USD", `{"accountNumber":"123456789"}`, "accountInfo.accountType", "is required"},
	{"empty accountType", "USD", `{"accountType":""}`, "accountInfo.accountType", "is required"},
	{"accountType number", "USD", `{"accountType":1}`, "accountInfo.accountType", "must be a string"},
	{"unknown accountType", "CHF", `{"accountType":"CHF_ACCOUNT"}`, "accountInfo.accountType", "unknown account type \"CHF_ACCOUNT\""},
	{"lower-case accountType", "USD", acct("usd_account", usdFields, indiv), "accountInfo.accountType", "unknown account type"},

	// Currency.
	{"currency mismatch", "USD", acct("EUR_ACCOUNT", `"iban":"DE89370400440532013000"`, indivAddr), "currency", "EUR_ACCOUNT accounts hold EUR, not USD"},
	{"currency unknown", "XYZ", usdAccount, "currency", "unknown currency"},
	{"currency lower case", "usd", usdAccount, "currency", "unknown currency"},
	{"currency empty", "", usdAccount, "currency", "is required"},
	{"SWIFT crypto", "USDC", acct("SWIFT_ACCOUNT", `"country":"CH","swiftCode":"UBSWCHZH","bankName":"UBS","accountNumber":"1"`, biz), "currency", "fiat"},
	{"SLV in SVC", "SVC", acct("SLV_ACCOUNT", `"accountNumber":"1"`, indiv), "currency", "SLV_ACCOUNT accounts hold USD, not SVC"},
	{"BASE USDT", "USDT", acct("BASE_WALLET", `"address":"`+evm+`"`, ""), "currency", "BASE_WALLET accounts hold USDC, not USDT"},
	{"SOLANA BTC", "BTC", acct("SOLANA_WALLET", `"address":"`+solUSDC+`"`, ""), "currency", "USDC or USDT, not BTC"},
	{"TRON USDC", "USDC", acct("TRON_WALLET", `"address":"`+tronUSDT+`"`, ""), "currency", "USDT"},
	{"SPARK USDC", "USDC", acct("SPARK_WALLET", `"address":"`+sparkAddr+`"`, ""), "currency", "BTC or USDB"},
	{"LIGHTNING USD", "USD", acct("LIGHTNING", `"invoice":"`+invoice+`"`, ""), "currency", "BTC"},
	{"wallet in fiat", "USD", acct("ETHEREUM_WALLET", `"address":"`+evm+`"`, ""), "currency", "USDC"},

	// Unknown fields and wrong types.
	{"unknown field", "USD", acct("USD_ACCOUNT", usdFields+`,"iban":"DE89370400440532013000"`, indiv), "accountInfo.iban", "unknown field"},
	{"unknown beneficiary field", "USD", acct("USD_ACCOUNT", usdFields, `{"beneficiaryType":"INDIVIDUAL","fullName":"Ada","nickname":"A"}`), "accountInfo.beneficiary.nickname", "unknown field"},
	{"unknown address field", "USD", acct("USD_ACCOUNT", usdFields, `{"beneficiaryType":"INDIVIDUAL","fullName":"Ada","address":{"line1":"x","postalCode":"1","country":"US","zip":"1"}}`), "accountInfo.beneficiary.address.zip", "unknown field"},
	{"wallet unknown field", "USDC", acct("BASE_WALLET", `"address":"`+evm+`","memo":"x"`, ""), "accountInfo.memo", "unknown field"},
	{"registrationNumber on USD individual", "USD", acct("USD_ACCOUNT", usdFields, `{"beneficiaryType":"INDIVIDUAL","fullName":"Ada","registrationNumber":"1"}`), "accountInfo.beneficiary.registrationNumber", "unknown field"},
	{"documentType outside COP", "USD", acct("USD_ACCOUNT", usdFields, `{"beneficiaryType":"INDIVIDUAL","fullName":"Ada","documentType":"CC"}`), "accountInfo.beneficiary.documentType", "unknown field"},
	{"fullName on business", "USD", acct("USD_ACCOUNT", usdFields, `{"beneficiaryType":"BUSINESS","legalName":"Acme","fullName":"Ada"}`), "accountInfo.beneficiary.fullName", "unknown field"},
	{"accountNumber number", "USD", acct("USD_ACCOUNT", `"accountNumber":123456789,"routingNumber":"021000021"`, indiv), "accountInfo.accountNumber", "must be a string"},
	{"accountNumber null", "USD", acct("USD_ACCOUNT", `"accountNumber":null,"routingNumber":"021000021"`, indiv), "accountInfo.accountNumber", "must be a string"},
	{"fullName bool", "USD", acct("USD_ACCOUNT", usdFields, `{"beneficiaryType":"INDIVIDUAL","fullName":true}`), "accountInfo.beneficiary.fullName", "must be a string"},
	{"postalCode number", "USD", acct("USD_ACCOUNT", usdFields, `{"beneficiaryType":"INDIVIDUAL","fullName":"Ada","address":{"line1":"x","postalCode":94105,"country":"US"}}`), "accountInfo.beneficiary.address.postalCode", "must be a string"},
	{"beneficiary string", "USD", acct("USD_ACCOUNT", usdFields, `"Ada"`), "accountInfo.beneficiary", "must be an object"},
	{"address string", "USD", acct("USD_ACCOUNT", usdFields, `{"beneficiaryType":"INDIVIDUAL","fullName":"Ada","address":"1 Main St"}`), "accountInfo.beneficiary.address", "must be an object"},
	{"beneficiary duplicate key", "USD", acct("USD_ACCOUNT", usdFields, `{"beneficiaryType":"INDIVIDUAL","fullName":"Ada","fullName":"Bob"}`), "accountInfo.beneficiary.fullName", "more than once"},

	// Required fields.
	{"USD missing routingNumber", "USD", acct("USD_ACCOUNT", `"accountNumber":"123456789"`, indiv), "accountInfo.routingNumber", "is required"},
	{"USD empty accountNumber", "USD", acct("USD_ACCOUNT", `"accountNumber":"","routingNumber":"021000021"`, indiv), "accountInfo.accountNumber", "is required"},
	{"EUR missing iban", "EUR", acct("EUR_ACCOUNT", `"swiftCode":"COBADEFF"`, indivAddr), "accountInfo.iban", "is required"},
	{"BRL missing taxId", "BRL", acct("BRL_ACCOUNT", `"pixKey":"k","pixKeyType":"RANDOM"`, indiv), "accountInfo.taxId", "is required"},
	{"KES missing provider", "KES", acct("KES_ACCOUNT", `"phoneNumber":"+254712345678"`, indiv), "accountInfo.provider", "is required"},
	{"KES empty provider", "KES", acct("KES_ACCOUNT", `"phoneNumber":"+254712345678","provider":""`, indiv), "accountInfo.provider", "is required"},
	{"XOF missing region", "XOF", acct("XOF_ACCOUNT", `"phoneNumber":"+221771234567","provider":"Orange"`, indiv), "accountInfo.region", "is required"},
	{"HKD missing swiftCode", "HKD", acct("HKD_ACCOUNT", `"bankName":"HSBC","accountNumber":"1"`, indiv), "accountInfo.swiftCode", "is required"},
	{"IDR missing phoneNumber", "IDR", acct("IDR_ACCOUNT", `"bankName":"BCA","accountNumber":"1","swiftCode":"CENAIDJA"`, indiv), "accountInfo.phoneNumber", "is required"},
	{"JMD missing branchCode", "JMD", acct("JMD_ACCOUNT", `"accountNumber":"1","bankAccountType":"SAVINGS"`, indivJMD), "accountInfo.branchCode", "is required"},
	{"wallet missing address", "USDC", acct("ETHEREUM_WALLET", "", ""), "accountInfo.address", "is required"},
	{"BDT no identifier", "BDT", acct("BDT_ACCOUNT", `"branchCode":"12345"`, indiv), "accountInfo", "one of accountNumber or phoneNumber is required"},
	{"GHS no identifier", "GHS", acct("GHS_ACCOUNT", "", indiv), "accountInfo", "one of accountNumber or phoneNumber is required"},
	{"PKR no identifier", "PKR", acct("PKR_ACCOUNT", `"bankName":"HBL"`, indiv), "accountInfo", "one of accountNumber, iban or phoneNumber is required"},
	{"SWIFT neither accountNumber nor iban", "EUR", acct("SWIFT_ACCOUNT", `"country":"CH","swiftCode":"UBSWCHZH","bankName":"UBS"`, biz), "accountInfo", "one of accountNumber or iban is required"},
	{"optional empty string", "COP", acct("COP_ACCOUNT", `"accountNumber":"1","bankName":""`, indiv), "accountInfo.bankName", "must not be empty"},

	// Formats and checksums.
	{"routing pattern", "USD", acct("USD_ACCOUNT", `"accountNumber":"123456789","routingNumber":"02100002"`, indiv), "accountInfo.routingNumber", "must be 9 digits"},
	{"routing checksum", "USD", acct("USD_ACCOUNT", `"accountNumber":"123456789","routingNumber":"123456789"`, indiv), "accountInfo.routingNumber", "check digit is wrong"},
	{"USD accountNumber letters", "USD", acct("USD_ACCOUNT", `"accountNumber":"12345A789","routingNumber":"021000021"`, indiv), "accountInfo.accountNumber", "4 to 17 digits"},
	{"USD accountNumber short", "USD", acct("USD_ACCOUNT", `"accountNumber":"123","routingNumber":"021000021"`, indiv), "accountInfo.accountNumber", "4 to 17 digits"},
	{"USD accountNumber long", "USD", acct("USD_ACCOUNT", `"accountNumber":"123456789012345678","routingNumber":"021000021"`, indiv), "accountInfo.accountNumber", "4 to 17 digits"},
	{"generic accountNumber too long", "HKD", acct("HKD_ACCOUNT", `"bankName":"HSBC","accountNumber":"12345678901234567890123456789012345","swiftCode":"HSBCHKHH"`, indiv), "accountInfo.accountNumber", "1 to 34"},
	{"EUR iban check digits", "EUR", acct("EUR_ACCOUNT", `"iban":"DE88370400440532013000"`, indivAddr), "accountInfo.iban", "IBAN check digits do not match"},
	{"EUR iban lower case", "EUR", acct("EUR_ACCOUNT", `"iban":"GB29nwbk60161331926819"`, indivAddr), "accountInfo.iban", "upper case"},
	{"EUR iban wrong length", "EUR", acct("EUR_ACCOUNT", `"iban":"DE8937040044053201300"`, indivAddr), "accountInfo.iban", "22 characters"},
	{"EUR iban spaces", "EUR", acct("EUR_ACCOUNT", `"iban":"DE89 3704 0044 0532 0130 00"`, indivAddr), "accountInfo.iban", "must be an IBAN"},
	{"EUR iban unknown country", "EUR", acct("EUR_ACCOUNT", `"iban":"US89370400440532013000"`, indivAddr), "accountInfo.iban", "unknown"},
	{"DKK iban of DE", "DKK", acct("DKK_ACCOUNT", `"iban":"DE89370400440532013000"`, indiv), "accountInfo.iban", "DK followed by 16 digits"},
	{"DKK iban checksum", "DKK", acct("DKK_ACCOUNT", `"iban":"DK5000400440116244"`, indiv), "accountInfo.iban", "do not match"},
	{"AED iban pattern", "AED", acct("AED_ACCOUNT", `"iban":"AE07033123456789012345"`, indivAddr), "accountInfo.iban", "AE followed by 21 digits"},
	{"EGP iban checksum", "EGP", acct("EGP_ACCOUNT", `"bankName":"NBE","accountNumber":"1","iban":"EG380019000500000000263180003"`, biz), "accountInfo.iban", "do not match"},
	{"PKR iban pattern", "PKR", acct("PKR_ACCOUNT", `"iban":"PK3612340000001123456702"`, indiv), "accountInfo.iban", "4-letter bank code"},
	{"swiftCode short", "EUR", acct("EUR_ACCOUNT", `"iban":"DE89370400440532013000","swiftCode":"COBADEF"`, indivAddr), "accountInfo.swiftCode", "SWIFT/BIC"},
	{"swiftCode lower", "HKD", acct("HKD_ACCOUNT", `"bankName":"HSBC","accountNumber":"1","swiftCode":"hsbchkhh"`, indiv), "accountInfo.swiftCode", "SWIFT/BIC"},
	{"CLABE checksum", "MXN", acct("MXN_ACCOUNT", `"clabeNumber":"032180000118359718"`, indiv), "accountInfo.clabeNumber", "CLABE control digit is wrong"},
	{"CLABE length", "MXN", acct("MXN_ACCOUNT", `"clabeNumber":"03218000011835971"`, indiv), "accountInfo.clabeNumber", "18 digits"},
	{"GBP sortCode", "GBP", acct("GBP_ACCOUNT", `"sortCode":"60-16-13","accountNumber":"31926819"`, indiv), "accountInfo.sortCode", "6 digits"},
	{"GBP accountNumber", "GBP", acct("GBP_ACCOUNT", `"sortCode":"601613","accountNumber":"3192681"`, indiv), "accountInfo.accountNumber", "8 digits"},
	{"BRL pixKeyType", "BRL", acct("BRL_ACCOUNT", `"pixKey":"k","pixKeyType":"IBAN","taxId":"12345678909"`, indiv), "accountInfo.pixKeyType", "CPF, CNPJ, EMAIL, PHONE, RANDOM"},
	{"BRL taxId", "BRL", acct("BRL_ACCOUNT", `"pixKey":"k","pixKeyType":"CPF","taxId":"123.456.789-09"`, indiv), "accountInfo.taxId", "11 to 14 digits"},
	{"BRL pixKey long", "BRL", acct("BRL_ACCOUNT", `"pixKey":"`+strings.Repeat("k", 78)+`","pixKeyType":"RANDOM","taxId":"12345678909"`, indiv), "accountInfo.pixKey", "1 to 77"},
	{"INR vpa", "INR", acct("INR_ACCOUNT", `"vpa":"name@bank.com"`, indiv), "accountInfo.vpa", "UPI"},
	{"INR vpa no at", "INR", acct("INR_ACCOUNT", `"vpa":"name"`, indiv), "accountInfo.vpa", "UPI"},
	{"CAD bankCode", "CAD", acct("CAD_ACCOUNT", `"bankCode":"0001","branchCode":"00011","accountNumber":"1234567"`, indiv), "accountInfo.bankCode", "3 digits"},
	{"CAD branchCode", "CAD", acct("CAD_ACCOUNT", `"bankCode":"001","branchCode":"0001","accountNumber":"1234567"`, indiv), "accountInfo.branchCode", "5 digits"},
	{"CAD accountNumber", "CAD", acct("CAD_ACCOUNT", `"bankCode":"001","branchCode":"00011","accountNumber":"123456"`, indiv), "accountInfo.accountNumber", "7 to 12 digits"},
	{"NGN accountNumber", "NGN", acct("NGN_ACCOUNT", `"accountNumber":"012345678","bankName":"GTBank"`, indiv), "accountInfo.accountNumber", "10 digits"},
	{"PHP accountNumber", "PHP", acct("PHP_ACCOUNT", `"bankName":"BDO","accountNumber":"1234567"`, indiv), "accountInfo.accountNumber", "8 to 16 digits"},
	{"ZAR accountNumber", "ZAR", acct("ZAR_ACCOUNT", `"accountNumber":"12345678901234","bankName":"FNB"`, indiv), "accountInfo.accountNumber", "9 to 13 digits"},
	{"BDT branchCode", "BDT", acct("BDT_ACCOUNT", `"accountNumber":"1","branchCode":"1234"`, indiv), "accountInfo.branchCode", "5 digits"},
	{"KES phone prefix", "KES", acct("KES_ACCOUNT", `"phoneNumber":"+255712345678","provider":"M-PESA"`, indiv), "accountInfo.phoneNumber", "+254 followed by 9 digits"},
	{"KES phone length", "KES", acct("KES_ACCOUNT", `"phoneNumber":"+25471234567","provider":"M-PESA"`, indiv), "accountInfo.phoneNumber", "+254"},
	{"RWF phone prefix", "RWF", acct("RWF_ACCOUNT", `"phoneNumber":"+254781234567","provider":"MTN"`, indiv), "accountInfo.phoneNumber", "+250"},
	{"TZS phone prefix", "TZS", acct("TZS_ACCOUNT", `"phoneNumber":"+254712345678","provider":"Vodacom"`, indiv), "accountInfo.phoneNumber", "+255"},
	{"ZMW phone prefix", "ZMW", acct("ZMW_ACCOUNT", `"phoneNumber":"+265971234567","provider":"Airtel"`, indiv), "accountInfo.phoneNumber", "+260"},
	{"UGX phone prefix", "UGX", acct("UGX_ACCOUNT", `"phoneNumber":"+255712345678","provider":"MTN"`, indiv), "accountInfo.phoneNumber", "+256"},
	{"MWK phone prefix", "MWK", acct("MWK_ACCOUNT", `"phoneNumber":"+260991234567","provider":"Airtel"`, indiv), "accountInfo.phoneNumber", "+265"},
	{"BWP phone length", "BWP", acct("BWP_ACCOUNT", `"phoneNumber":"+267712345678","provider":"Orange"`, indiv), "accountInfo.phoneNumber", "+267 followed by 8 digits"},
	{"IDR phone", "IDR", acct("IDR_ACCOUNT", `"bankName":"BCA","accountNumber":"1","swiftCode":"CENAIDJA","phoneNumber":"+6381234567890"`, indiv), "accountInfo.phoneNumber", "+62"},
	{"HTG phone no plus", "HTG", acct("HTG_ACCOUNT", `"phoneNumber":"50937123456"`, indiv), "accountInfo.phoneNumber", "international format"},
	{"generic phone too short", "GHS", acct("GHS_ACCOUNT", `"phoneNumber":"+23320"`, indiv), "accountInfo.phoneNumber", "international format"},
	{"provider too long", "KES", acct("KES_ACCOUNT", `"phoneNumber":"+254712345678","provider":"`+longName+`"`, indiv), "accountInfo.provider", "1 to 255"},
	{"bankName too long", "NGN", acct("NGN_ACCOUNT", `"accountNumber":"0123456789","bankName":"`+longName+`"`, indiv), "accountInfo.bankName", "1 to 255"},
	{"XOF region", "XOF", acct("XOF_ACCOUNT", `"phoneNumber":"+221771234567","provider":"Orange","region":"CM"`, indiv), "accountInfo.region", "BJ, CI, SN, TG"},
	{"XAF region", "XAF", acct("XAF_ACCOUNT", `"phoneNumber":"+237671234567","provider":"MTN","region":"SN"`, indiv), "accountInfo.region", "CM, CG"},
	{"bankAccountType", "GTQ", acct("GTQ_ACCOUNT", `"accountNumber":"1","bankAccountType":"CURRENT"`, indivGTQ), "accountInfo.bankAccountType", "CHECKING, SAVINGS"},
	{"SWIFT country unknown", "EUR", acct("SWIFT_ACCOUNT", `"country":"XX","swiftCode":"UBSWCHZH","bankName":"UBS","accountNumber":"1"`, biz), "accountInfo.country", "country code"},
	{"SWIFT country lower", "EUR", acct("SWIFT_ACCOUNT", `"country":"ch","swiftCode":"UBSWCHZH","bankName":"UBS","accountNumber":"1"`, biz), "accountInfo.country", "country code"},
	{"SWIFT iban bad", "EUR", acct("SWIFT_ACCOUNT", `"country":"CH","swiftCode":"UBSWCHZH","bankName":"UBS","iban":"CH9300762011623852958"`, biz), "accountInfo.iban", "do not match"},

	// Wallets.
	{"LIGHTNING two identifiers", "BTC", acct("LIGHTNING", `"invoice":"`+invoice+`","lightningAddress":"alice@ln.example"`, ""), "accountInfo.lightningAddress", "only one of invoice, bolt12 or lightningAddress"},
	{"LIGHTNING none", "BTC", acct("LIGHTNING", "", ""), "accountInfo", "one of invoice, bolt12 or lightningAddress is required"},
	{"LIGHTNING invoice upper case", "BTC", acct("LIGHTNING", `"invoice":"`+strings.ToUpper(invoice)+`"`, ""), "accountInfo.invoice", "BOLT11"},
	{"LIGHTNING invoice prefix", "BTC", acct("LIGHTNING", `"invoice":"lnxx2500u1pvjluez"`, ""), "accountInfo.invoice", "lnbc, lntb or lnbcrt"},
	{"LIGHTNING bolt12", "BTC", acct("LIGHTNING", `"bolt12":"lni1qqqq"`, ""), "accountInfo.bolt12", "lno1"},
	{"LIGHTNING address", "BTC", acct("LIGHTNING", `"lightningAddress":"alice"`, ""), "accountInfo.lightningAddress", "user@domain"},
	{"LIGHTNING address two ats", "BTC", acct("LIGHTNING", `"lightningAddress":"a@b@ln.example"`, ""), "accountInfo.lightningAddress", "user@domain"},
	{"LIGHTNING empty identifier", "BTC", acct("LIGHTNING", `"invoice":""`, ""), "accountInfo.invoice", "must not be empty"},
	{"Solana bad char", "USDC", acct("SOLANA_WALLET", `"address":"0PjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"`, ""), "accountInfo.address", "Solana"},
	{"Solana 31 bytes", "USDC", acct("SOLANA_WALLET", `"address":"7DgMXtkS6Hwx6gRuPW2HhmcSJCLK9Fqv8rMVL5uZLQ"`, ""), "accountInfo.address", "32 bytes"},
	{"Solana 33 bytes", "USDC", acct("SOLANA_WALLET", `"address":"369arKT5crNpQfroTwkt6L9LKQGcV8bczrHzmWsGdLifp"`, ""), "accountInfo.address", "32 bytes"},
	{"Solana EVM address", "USDC", acct("SOLANA_WALLET", `"address":"`+evm+`"`, ""), "accountInfo.address", "Solana"},
	{"ETH short", "USDC", acct("ETHEREUM_WALLET", `"address":"`+evm[:41]+`"`, ""), "accountInfo.address", "40 hex digits"},
	{"ETH no 0x", "USDC", acct("POLYGON_WALLET", `"address":"`+evm[2:]+`"`, ""), "accountInfo.address", "0x"},
	{"TRON bad", "USDT", acct("TRON_WALLET", `"address":"TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj60"`, ""), "accountInfo.address", "TRON"},
	{"SPARK bad charset", "BTC", acct("SPARK_WALLET", `"address":"spark1bbbbbbbbbbbbbbbbbbbbbbbbb"`, ""), "accountInfo.address", "Spark"},
	{"SPARK short", "BTC", acct("SPARK_WALLET", `"address":"spark1qqqq"`, ""), "accountInfo.address", "Spark"},
	{"SPARK upper", "BTC", acct("SPARK_WALLET", `"address":"`+strings.ToUpper(sparkAddr)+`"`, ""), "accountInfo.address", "Spark"},

	// Beneficiary.
	{"missing beneficiary", "USD", acct("USD_ACCOUNT", usdFields, ""), "accountInfo.beneficiary", "is required"},
	{"beneficiary null", "USD", acct("USD_ACCOUNT", usdFields, "null"), "accountInfo.beneficiary", "must be an object"},
	{"CNY without paymentRails", "CNY", acct("CNY_ACCOUNT", `"accountNumber":"1","bankName":"ICBC"`, biz), "accountInfo.paymentRails", "is required"},
	{"CNY with an unknown rail", "CNY", acct("CNY_ACCOUNT", `"paymentRails":["SWIFT"],"accountNumber":"1","bankName":"ICBC"`, biz), "accountInfo.paymentRails", "at most once"},
	{"CNY with a rail twice", "CNY", acct("CNY_ACCOUNT", `"paymentRails":["BANK_TRANSFER","BANK_TRANSFER"],"accountNumber":"1","bankName":"ICBC"`, biz), "accountInfo.paymentRails", "at most once"},
	{"CNY wallet without its phone", "CNY", acct("CNY_ACCOUNT", `"paymentRails":["MOBILE_MONEY"],"bankName":"AliPay"`, indiv), "accountInfo.phoneNumber", "MOBILE_MONEY"},
	{"CNY bank transfer to a person", "CNY", acct("CNY_ACCOUNT", `"paymentRails":["BANK_TRANSFER"],"accountNumber":"1","bankName":"ICBC"`, indiv), "accountInfo.beneficiary.beneficiaryType", "BUSINESS"},
	{"INR NEFT without IFSC", "INR", acct("INR_ACCOUNT", `"paymentRails":["NEFT"],"accountNumber":"000111222333"`, indiv), "accountInfo.ifsc", "NEFT"},
	{"INR bad IFSC", "INR", acct("INR_ACCOUNT", `"paymentRails":["RTGS"],"accountNumber":"000111222333","ifsc":"HDFC1001234"`, indiv), "accountInfo.ifsc", "IFSC"},
	{"INR without a vpa", "INR", acct("INR_ACCOUNT", `"accountNumber":"000111222333","ifsc":"HDFC0001234"`, indiv), "accountInfo.vpa", "UPI"},
	{"EGP bank transfer without account", "EGP", acct("EGP_ACCOUNT", `"bankName":"NBE"`, indivEGP), "accountInfo.accountNumber", "or iban"},
	{"EGP mobile without phone", "EGP", acct("EGP_ACCOUNT", `"paymentRails":["MOBILE_MONEY"],"bankName":"Vodafone Cash"`, indivEGP), "accountInfo.phoneNumber", "MOBILE_MONEY"},
	{"USD bad intermediary routing", "USD", acct("USD_ACCOUNT", usdFields+`,"intermediaryRoutingNumber":"021000022"`, indiv), "accountInfo.intermediaryRoutingNumber", "ABA"},
	{"a rail the type lacks", "USD", acct("USD_ACCOUNT", `"paymentRails":["SEPA"],`+usdFields, indiv), "accountInfo.paymentRails", "at most once"},
	{"no rail", "USD", acct("USD_ACCOUNT", `"paymentRails":[],`+usdFields, indiv), "accountInfo.paymentRails", "non-empty"},
	{"rails on a wallet", "USDC", acct("BASE_WALLET", `"paymentRails":["ACH"],"address":"`+evm+`"`, ""), "accountInfo.paymentRails", "unknown field"},
	{"wallet owner without countryOfResidence", "USDC", acct("BASE_WALLET", `"address":"`+evm+`"`, indiv), "accountInfo.beneficiary.countryOfResidence", "is required"},
	{"wallet owner with an address", "USDC", acct("BASE_WALLET", `"address":"`+evm+`"`, `{"beneficiaryType":"INDIVIDUAL","fullName":"Ada","countryOfResidence":"GB","address":`+addr+`}`), "accountInfo.beneficiary.address", "unknown field"},
	{"empty vaspName", "USDC", acct("BASE_WALLET", `"address":"`+evm+`","vaspName":""`, ""), "accountInfo.vaspName", ""},
	{"EUR individual with neither address nor countryOfResidence", "EUR", acct("EUR_ACCOUNT", `"iban":"`+banking.MakeIBAN("DE", "370400440532013000")+`"`, indiv), "accountInfo.beneficiary.address", "one of"},
	{"missing beneficiaryType", "USD", acct("USD_ACCOUNT", usdFields, `{"fullName":"Ada"}`), "accountInfo.beneficiary.beneficiaryType", "is required"},
	{"bad beneficiaryType", "USD", acct("USD_ACCOUNT", usdFields, `{"beneficiaryType":"PERSON","fullName":"Ada"}`), "accountInfo.beneficiary.beneficiaryType", "INDIVIDUAL or BUSINESS"},
	{"missing fullName", "USD", acct("USD_ACCOUNT", usdFields, `{"beneficiaryType":"INDIVIDUAL"}`), "accountInfo.beneficiary.fullName", "is required"},
	{"empty fullName", "USD", acct("USD_ACCOUNT", usdFields, `{"beneficiaryType":"INDIVIDUAL","fullName":""}`), "accountInfo.beneficiary.fullName", "is required"},
	{"fullName too long", "USD", acct("USD_ACCOUNT", usdFields, `{"beneficiaryType":"INDIVIDUAL","fullName":"`+longName+`"}`), "accountInfo.beneficiary.fullName", "1 to 255"},
	{"missing legalName", "USD", acct("USD_ACCOUNT", usdFields, `{"beneficiaryType":"BUSINESS","taxId":"1"}`), "accountInfo.beneficiary.legalName", "is required"},
	{"EUR individual without address", "EUR", acct("EUR_ACCOUNT", `"iban":"DE89370400440532013000"`, indiv), "accountInfo.beneficiary.address", "is required"},
	{"AED individual without address", "AED", acct("AED_ACCOUNT", `"iban":"AE070331234567890123456"`, indiv), "accountInfo.beneficiary.address", "is required"},
	{"GTQ individual without phoneNumber", "GTQ", acct("GTQ_ACCOUNT", `"accountNumber":"1","bankAccountType":"SAVINGS"`, `{"beneficiaryType":"INDIVIDUAL","fullName":"Ada","countryOfResidence":"GT"}`), "accountInfo.beneficiary.phoneNumber", "is required"},
	{"GTQ individual empty phoneNumber", "GTQ", acct("GTQ_ACCOUNT", `"accountNumber":"1","bankAccountType":"SAVINGS"`, `{"beneficiaryType":"INDIVIDUAL","fullName":"Ada","countryOfResidence":"GT","phoneNumber":""}`), "accountInfo.beneficiary.phoneNumber", "is required"},
	{"JMD individual without address", "JMD", acct("JMD_ACCOUNT", `"accountNumber":"1","branchCode":"12345","bankAccountType":"SAVINGS"`, `{"beneficiaryType":"INDIVIDUAL","fullName":"Ada","phoneNumber":"+18765551234"}`), "accountInfo.beneficiary.address", "is required"},
	{"address missing postalCode", "EUR", acct("EUR_ACCOUNT", `"iban":"DE89370400440532013000"`, `{"beneficiaryType":"INDIVIDUAL","fullName":"Ada","address":{"line1":"x","country":"DE"}}`), "accountInfo.beneficiary.address.postalCode", "is required"},
	{"address missing line1", "EUR", acct("EUR_ACCOUNT", `"iban":"DE89370400440532013000"`, `{"beneficiaryType":"INDIVIDUAL","fullName":"Ada","address":{"postalCode":"1","country":"DE"}}`), "accountInfo.beneficiary.address.line1", "is required"},
	{"address missing country", "EUR", acct("EUR_ACCOUNT", `"iban":"DE89370400440532013000"`, `{"beneficiaryType":"INDIVIDUAL","fullName":"Ada","address":{"line1":"x","postalCode":"1"}}`), "accountInfo.beneficiary.address.country", "is required"},
	{"address bad country", "EUR", acct("EUR_ACCOUNT", `"iban":"DE89370400440532013000"`, `{"beneficiaryType":"INDIVIDUAL","fullName":"Ada","address":{"line1":"x","postalCode":"1","country":"Germany"}}`), "accountInfo.beneficiary.address.country", "country code"},
	{"address postalCode too long", "EUR", acct("EUR_ACCOUNT", `"iban":"DE89370400440532013000"`, `{"beneficiaryType":"INDIVIDUAL","fullName":"Ada","address":{"line1":"x","postalCode":"123456789012345678901","country":"DE"}}`), "accountInfo.beneficiary.address.postalCode", "1 to 20"},
	{"business address incomplete", "USD", acct("USD_ACCOUNT", usdFields, `{"beneficiaryType":"BUSINESS","legalName":"Acme","address":{"line1":"x","country":"US"}}`), "accountInfo.beneficiary.address.postalCode", "is required"},
	{"nationality invalid", "USD", acct("USD_ACCOUNT", usdFields, `{"beneficiaryType":"INDIVIDUAL","fullName":"Ada","nationality":"USA"}`), "accountInfo.beneficiary.nationality", "country code"},
	{"countryOfResidence invalid", "USD", acct("USD_ACCOUNT", usdFields, `{"beneficiaryType":"BUSINESS","legalName":"Acme","countryOfResidence":"UK"}`), "accountInfo.beneficiary.countryOfResidence", "country code"},
	{"email two ats", "USD", acct("USD_ACCOUNT", usdFields, `{"beneficiaryType":"INDIVIDUAL","fullName":"Ada","email":"a@b@c"}`), "accountInfo.beneficiary.email", "email"},
	{"email empty local part", "USD", acct("USD_ACCOUNT", usdFields, `{"beneficiaryType":"BUSINESS","legalName":"Acme","email":"@acme.example"}`), "accountInfo.beneficiary.email", "email"},
	{"email no at", "USD", acct("USD_ACCOUNT", usdFields, `{"beneficiaryType":"INDIVIDUAL","fullName":"Ada","email":"ada"}`), "accountInfo.beneficiary.email", "email"},
	{"COP documentType", "COP", acct("COP_ACCOUNT", `"accountNumber":"1"`, `{"beneficiaryType":"INDIVIDUAL","fullName":"Ada","documentType":"DNI"}`), "accountInfo.beneficiary.documentType", "CC, CE, TI, NIT, PP"},
	{"COP documentNumber long", "COP", acct("COP_ACCOUNT", `"accountNumber":"1"`, `{"beneficiaryType":"INDIVIDUAL","fullName":"Ada","documentNumber":"`+strings.Repeat("1", 51)+`"}`), "accountInfo.beneficiary.documentNumber", "1 to 50"},
	{"COP document on business", "COP", acct("COP_ACCOUNT", `"accountNumber":"1"`, `{"beneficiaryType":"BUSINESS","legalName":"Acme","documentType":"NIT"}`), "accountInfo.beneficiary.documentType", "unknown field"},
}

func TestParseInvalid(t *testing.T) {
	if len(invalidCases) < 40 {
		t.Fatalf("only %d invalid cases", len(invalidCases))
	}
	for _, tc := range invalidCases {
		t.Run(tc.name, func(t *testing.T) {
			info, fe := Parse(tc.currency, json.RawMessage(tc.raw))
			if fe == nil {
				t.Fatalf("Parse(%s, %s) = %+v, want error on %s", tc.currency, tc.raw, info, tc.field)
			}
			if fe.Field != tc.field || !strings.Contains(fe.Message, tc.msg) {
				t.Errorf("Parse(%s, %s) = %q, want field %q with message containing %q", tc.currency, tc.raw, fe.Error(), tc.field, tc.msg)
			}
			if fe.Error() != fe.Field+": "+fe.Message {
				t.Errorf("Error() = %q", fe.Error())
			}
			if info.AccountType != "" || info.Normalized != nil {
				t.Errorf("Info not zero on error: %+v", info)
			}
		})
	}
}

// TestRailsAreCopies checks that callers cannot corrupt the rail tables.
func TestRailsAreCopies(t *testing.T) {
	info, fe := Parse("USD", json.RawMessage(usdAccount))
	if fe != nil {
		t.Fatal(fe)
	}
	info.PaymentRails[0] = "X"
	info2, _ := Parse("USD", json.RawMessage(usdAccount))
	if info2.PaymentRails[0] != "ACH" {
		t.Errorf("PaymentRails shared: %v", info2.PaymentRails)
	}
}

// refBase58 decodes with math/big, as a reference for base58Decode.
func refBase58(s string) ([]byte, bool) {
	n := new(big.Int)
	zeros := 0
	for zeros < len(s) && s[zeros] == '1' {
		zeros++
	}
	for i := 0; i < len(s); i++ {
		d := strings.IndexByte(base58Alphabet, s[i])
		if d < 0 {
			return nil, false
		}
		n.Mul(n, big.NewInt(58))
		n.Add(n, big.NewInt(int64(d)))
	}
	return append(make([]byte, zeros), n.Bytes()...), true
}

func TestBase58Decode(t *testing.T) {
	for _, s := range []string{
		"1", "11", "2", "z", "21", "1z", solUSDC, "11111111111111111111111111111111",
		"So11111111111111111111111111111111111111112", "JEKNVnkbo3jma5nREBBJCDoXFVeKkD56V3xKrvRmWxFG",
		"3mJr7AoUXx2Wqd", "0", "O", "I", "l", "abc!", "",
	} {
		got, ok := base58Decode(s)
		want, wok := refBase58(s)
		if s == "" {
			wok = false
		}
		if ok != wok || (ok && !bytes.Equal(got, want)) {
			t.Errorf("base58Decode(%q) = %x, %v; want %x, %v", s, got, ok, want, wok)
		}
	}
	if got, ok := base58Decode("3mJr7AoUXx2Wqd"); !ok || string(got) != "1234598760" {
		t.Errorf("base58Decode(3mJr7AoUXx2Wqd) = %q, %v", got, ok)
	}
	if _, ok := base58Decode(strings.Repeat("z", 129)); ok {
		t.Error("overlong input accepted")
	}
}

func FuzzBase58(f *testing.F) {
	f.Add(solUSDC)
	f.Add("111z")
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := base58Decode(s)
		if len(s) == 0 || len(s) > 128 {
			if ok {
				t.Fatalf("accepted %q", s)
			}
			return
		}
		want, wok := refBase58(s)
		if ok != wok || (ok && !bytes.Equal(got, want)) {
			t.Fatalf("base58Decode(%q) = %x, %v; want %x, %v", s, got, ok, want, wok)
		}
	})
}

func FuzzParse(f *testing.F) {
	for _, tc := range validCases {
		f.Add(tc.currency, []byte(tc.raw))
	}
	for _, tc := range invalidCases {
		f.Add(tc.currency, []byte(tc.raw))
	}
	f.Fuzz(func(t *testing.T, currency string, raw []byte) {
		info, fe := Parse(currency, json.RawMessage(raw))
		if fe != nil {
			if fe.Field == "" || fe.Message == "" {
				t.Fatalf("empty FieldError %#v", fe)
			}
			return
		}
		if _, ok := specs[info.AccountType]; !ok {
			t.Fatalf("accepted unknown type %q", info.AccountType)
		}
		if info.Identifier == "" {
			t.Fatal("accepted without identifier")
		}
		if !info.IsWallet && (info.BeneficiaryName == "" || len(info.PaymentRails) == 0) {
			t.Fatalf("bank account without beneficiary or rails: %+v", info)
		}
		// Normalized, its paymentRails included, parses again to the same result.
		var m map[string]json.RawMessage
		if err := json.Unmarshal(info.Normalized, &m); err != nil {
			t.Fatalf("Normalized not an object: %v", err)
		}
		again, _ := json.Marshal(m)
		info2, fe := Parse(currency, again)
		if fe != nil {
			t.Fatalf("re-parse of %s: %v", again, fe)
		}
		if !bytes.Equal(info2.Normalized, info.Normalized) || info2.Identifier != info.Identifier {
			t.Fatalf("re-parse differs: %s vs %s", info2.Normalized, info.Normalized)
		}
	})
}

// An individual given by address only is shown with the countryOfResidence the newer peer
// document requires: its address's country; one given is kept.
func TestCountryOfResidenceFromAddress(t *testing.T) {
	for _, c := range []struct{ beneficiary, want string }{
		{`{"beneficiaryType":"INDIVIDUAL","fullName":"Ada","address":{"line1":"1 Rue","postalCode":"75001","country":"FR"}}`, "FR"},
		{`{"beneficiaryType":"INDIVIDUAL","fullName":"Ada","countryOfResidence":"BE","address":{"line1":"1 Rue","postalCode":"75001","country":"FR"}}`, "BE"},
	} {
		info, fe := Parse("EUR", json.RawMessage(`{"accountType":"EUR_ACCOUNT","iban":"NL91ABNA0417164300","beneficiary":`+c.beneficiary+`}`))
		if fe != nil {
			t.Fatal(fe)
		}
		var out struct {
			Beneficiary struct{ CountryOfResidence string }
		}
		_ = json.Unmarshal(info.Normalized, &out)
		if out.Beneficiary.CountryOfResidence != c.want {
			t.Errorf("%s: countryOfResidence %q, want %q", c.beneficiary, out.Beneficiary.CountryOfResidence, c.want)
		}
	}
}
