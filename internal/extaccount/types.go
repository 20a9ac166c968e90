package extaccount

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"paycore/internal/banking"
	"paycore/internal/country"
)

// field is one string field of an object and its format check.
type field struct {
	name     string
	required bool
	// check returns "" when the (non-empty) value is acceptable, else what
	// is wrong with it. nil means any string.
	check func(string) string
}

// accountSpec describes one accountType variant (10.1).
type accountSpec struct {
	// currencies the account may hold; nil means any fiat currency.
	currencies []string
	// fields in the order they are validated (accountType and beneficiary
	// excluded).
	fields []field
	// rails returned as paymentRails; nil for wallets.
	rails  []string
	wallet bool
	// exactlyOne: exactly one of fields must be given (LIGHTNING).
	exactlyOne bool
	// chosenRails: the request must name the paymentRails it uses (any bank type may: a
	// non-empty subset of rails), and each chosen rail requires its fields (railFields) and,
	// where listed, a business beneficiary (businessRails); CNY_ACCOUNT.
	chosenRails   bool
	railFields    map[string][]string
	businessRails []string
	// defaultRails are the rails an account of the type takes when the request names
	// none (nil: all of rails); their fields are then required as when chosen.
	defaultRails []string
}

// Payment rails.
var (
	railsBank       = []string{"BANK_TRANSFER"}
	railsBankMobile = []string{"BANK_TRANSFER", "MOBILE_MONEY"}
	railsMobile     = []string{"MOBILE_MONEY"}
	railsSEPA       = []string{"SEPA", "SEPA_INSTANT"}
)

func req(name string, check func(string) string) field {
	return field{name: name, required: true, check: check}
}

func opt(name string, check func(string) string) field {
	return field{name: name, check: check}
}

func bank(ccy string, rails []string, fields ...field) *accountSpec {
	return &accountSpec{currencies: []string{ccy}, fields: fields, rails: rails}
}

func mobile(ccy string, phone func(string) string, extra ...field) *accountSpec {
	fields := append([]field{req("phoneNumber", phone), req("provider", length(1, 255))}, extra...)
	return bank(ccy, railsMobile, fields...)
}

func wallet(check func(string) string, currencies ...string) *accountSpec {
	return &accountSpec{currencies: currencies, fields: []field{req("address", check)}, wallet: true}
}

// walletNetworks is the crypto network each wallet account type's address lives on.
var walletNetworks = map[string]string{
	"BASE_WALLET": "BASE", "ETHEREUM_WALLET": "ETHEREUM", "POLYGON_WALLET": "POLYGON", "PLASMA_WALLET": "PLASMA",
	"SOLANA_WALLET": "SOLANA", "TRON_WALLET": "TRON", "SPARK_WALLET": "SPARK",
}

// Network is the crypto network of a wallet account type ("" for a bank account, and for
// LIGHTNING, whose payments leave no on-chain transaction).
func Network(accountType string) string { return walletNetworks[accountType] }

// specs holds every accountType by name.
var specs = map[string]*accountSpec{
	"AED_ACCOUNT": bank("AED", railsBank, req("iban", ibanMatching(`^AE[0-9]{21}$`, "AE followed by 21 digits")), opt("swiftCode", swiftCode)),
	"BDT_ACCOUNT": bank("BDT", railsBankMobile, opt("accountNumber", accountNumber), opt("branchCode", digits(5, 5)), opt("swiftCode", swiftCode), opt("phoneNumber", phone)),
	"BRL_ACCOUNT": bank("BRL", []string{"PIX"}, req("pixKey", length(1, 77)), req("pixKeyType", enum("CPF", "CNPJ", "EMAIL", "PHONE", "RANDOM")), req("taxId", digits(11, 14))),
	"BWP_ACCOUNT": mobile("BWP", phonePrefix("+267", 8)),
	"CAD_ACCOUNT": bank("CAD", railsBank, req("bankCode", digits(3, 3)), req("branchCode", digits(5, 5)), req("accountNumber", digits(7, 12))),
	"COP_ACCOUNT": bank("COP", railsBankMobile, opt("bankName", length(1, 255)), opt("accountNumber", accountNumber), opt("bankAccountType", bankAccountType), opt("phoneNumber", phone)),
	"DKK_ACCOUNT": bank("DKK", railsSEPA, req("iban", ibanMatching(`^DK[0-9]{16}$`, "DK followed by 16 digits")), opt("swiftCode", swiftCode)),
	// EGP accounts are paid by bank transfer (an account number or an IBAN: the peer's
	// 2025-10-13 document asks for the first, its newer one for the second) or to a mobile
	// wallet (MOBILE_MONEY, phoneNumber); by bank transfer unless the request chooses.
	"EGP_ACCOUNT": {
		currencies: []string{"EGP"},
		fields: []field{req("bankName", length(1, 255)), opt("accountNumber", accountNumber), opt("iban", ibanMatching(`^EG[0-9]{27}$`, "EG followed by 27 digits")),
			opt("swiftCode", swiftCode), opt("phoneNumber", phone)},
		rails:        railsBankMobile,
		defaultRails: railsBank,
		railFields:   map[string][]string{"BANK_TRANSFER": {"accountNumber|iban"}, "MOBILE_MONEY": {"phoneNumber"}},
	},
	"EUR_ACCOUNT": bank("EUR", railsSEPA, req("iban", genericIBAN), opt("swiftCode", swiftCode)),
	"GBP_ACCOUNT": bank("GBP", []string{"FASTER_PAYMENTS"}, req("sortCode", digits(6, 6)), req("accountNumber", digits(8, 8))),
	"GHS_ACCOUNT": bank("GHS", railsBankMobile, opt("accountNumber", accountNumber), opt("phoneNumber", phone)),
	"GTQ_ACCOUNT": bank("GTQ", railsBank, req("accountNumber", accountNumber), req("bankAccountType", bankAccountType)),
	"HKD_ACCOUNT": bank("HKD", railsBank, req("bankName", length(1, 255)), req("accountNumber", accountNumber), req("swiftCode", swiftCode)),
	"HTG_ACCOUNT": bank("HTG", railsMobile, req("phoneNumber", phone)),
	"IDR_ACCOUNT": bank("IDR", railsBank, req("bankName", length(1, 255)), req("accountNumber", accountNumber), req("swiftCode", swiftCode), req("phoneNumber", phoneIDR)),
	// INR accounts are paid over UPI (a vpa) or by NEFT or RTGS (accountNumber and IFSC;
	// rail, which the peer's newer document adds, may name the one to route over); over
	// UPI unless the request chooses.
	"INR_ACCOUNT": {
		currencies: []string{"INR"},
		fields: []field{opt("vpa", vpa), opt("accountNumber", digits(9, 18)), opt("ifsc", ifsc), opt("rail", enum("NEFT", "RTGS")),
			opt("bankName", length(1, 255))},
		rails:        []string{"UPI", "NEFT", "RTGS"},
		defaultRails: []string{"UPI"},
		railFields:   map[string][]string{"UPI": {"vpa"}, "NEFT": {"accountNumber", "ifsc"}, "RTGS": {"accountNumber", "ifsc"}},
	},
	"JMD_ACCOUNT": bank("JMD", railsBank, req("accountNumber", accountNumber), req("branchCode", digits(5, 5)), req("bankAccountType", bankAccountType)),
	"KES_ACCOUNT": mobile("KES", phonePrefix("+254", 9)),
	"MWK_ACCOUNT": mobile("MWK", phonePrefix("+265", 9)),
	"MXN_ACCOUNT": bank("MXN", []string{"SPEI"}, req("clabeNumber", clabe)),
	"MYR_ACCOUNT": bank("MYR", railsBank, req("bankName", length(1, 255)), req("accountNumber", accountNumber), req("swiftCode", swiftCode)),
	"NGN_ACCOUNT": bank("NGN", railsBank, req("accountNumber", digits(10, 10)), req("bankName", length(1, 255))),
	"PHP_ACCOUNT": bank("PHP", railsBank, req("bankName", length(1, 255)), req("accountNumber", digits(8, 16))),
	"PKR_ACCOUNT": bank("PKR", railsBankMobile, opt("accountNumber", accountNumber), opt("iban", ibanMatching(`^PK[0-9]{2}[A-Z]{4}[0-9]{16}$`, "PK, 2 check digits, a 4-letter bank code and 16 digits")), opt("phoneNumber", phone), opt("bankName", length(1, 255))),
	"RWF_ACCOUNT": mobile("RWF", phonePrefix("+250", 9)),
	"SGD_ACCOUNT": bank("SGD", []string{"PAYNOW", "FAST", "BANK_TRANSFER"}, req("bankName", length(1, 255)), req("accountNumber", accountNumber), req("swiftCode", swiftCode)),
	// SLV is El Salvador (ISO 3166 alpha-3), not a currency: its accounts
	// hold US dollars, El Salvador's legal tender.
	"SLV_ACCOUNT": bank("USD", railsBankMobile, opt("bankName", length(1, 255)), opt("accountNumber", accountNumber), opt("bankAccountType", bankAccountType), opt("phoneNumber", phone)),
	"THB_ACCOUNT": bank("THB", railsBank, req("bankName", length(1, 255)), req("accountNumber", accountNumber), req("swiftCode", swiftCode)),
	"TZS_ACCOUNT": mobile("TZS", phonePrefix("+255", 9)),
	"UGX_ACCOUNT": mobile("UGX", phonePrefix("+256", 9)),
	"USD_ACCOUNT": bank("USD", []string{"ACH", "WIRE", "RTP", "FEDNOW"}, req("accountNumber", digits(4, 17)), req("routingNumber", routingNumber),
		opt("bankAccountType", bankAccountType), opt("bankName", length(1, 255)), opt("platformAccountId", length(1, 255)),
		// A wire's correspondent bank and bank-to-bank instructions (ignored on ACH, RTP, FEDNOW).
		opt("intermediaryBankName", length(1, 140)), opt("intermediaryRoutingNumber", routingNumber), opt("fiToFiInformation", length(1, 210))),
	"VND_ACCOUNT": bank("VND", railsBank, req("bankName", length(1, 255)), req("accountNumber", accountNumber), req("swiftCode", swiftCode)),
	"XAF_ACCOUNT": mobile("XAF", phone, req("region", enum("CM", "CG"))),
	"XOF_ACCOUNT": mobile("XOF", phone, req("region", enum("BJ", "CI", "SN", "TG"))),
	"ZAR_ACCOUNT": bank("ZAR", railsBank, req("accountNumber", digits(9, 13)), req("bankName", length(1, 255))),
	"ZMW_ACCOUNT": mobile("ZMW", phonePrefix("+260", 9)),
	// CNY accounts are paid by bank transfer (business to business only) or to an AliPay or
	// WeChat Pay wallet (MOBILE_MONEY, bankName naming the wallet): the request chooses.
	"CNY_ACCOUNT": {
		currencies:    []string{"CNY"},
		fields:        []field{opt("accountNumber", length(1, 34)), opt("bankName", length(1, 255)), opt("phoneNumber", phone)},
		rails:         railsBankMobile,
		chosenRails:   true,
		railFields:    map[string][]string{"BANK_TRANSFER": {"accountNumber", "bankName"}, "MOBILE_MONEY": {"bankName", "phoneNumber"}},
		businessRails: []string{"BANK_TRANSFER"},
	},
	"SWIFT_ACCOUNT": {
		currencies: nil, // any fiat currency
		fields: []field{
			req("country", countryCode), req("swiftCode", swiftCode), req("bankName", length(1, 255)),
			opt("accountNumber", accountNumber), opt("iban", genericIBAN),
		},
		rails: []string{"SWIFT"},
	},
	"BASE_WALLET":     wallet(evmAddress, "USDC"),
	"ETHEREUM_WALLET": wallet(evmAddress, "USDC"),
	"POLYGON_WALLET":  wallet(evmAddress, "USDC"),
	"PLASMA_WALLET":   wallet(evmAddress, "USDT"),
	"SOLANA_WALLET":   wallet(solanaAddress, "USDC", "USDT"),
	"TRON_WALLET":     wallet(tronAddress, "USDT"),
	"SPARK_WALLET":    wallet(sparkAddress, "BTC", "USDB"),
	"LIGHTNING": {
		currencies: []string{"BTC"},
		fields:     []field{opt("invoice", bolt11), opt("bolt12", bolt12), opt("lightningAddress", lightningAddress)},
		wallet:     true,
		exactlyOne: true,
	},
}

// Format checks. Each returns "" when the value is acceptable.

// length accepts strings of min..max characters (Unicode code points).
func length(min, max int) func(string) string {
	return func(s string) string {
		if n := utf8.RuneCountInString(s); n < min || n > max {
			if min == max {
				return fmt.Sprintf("must be %d characters long", min)
			}
			return fmt.Sprintf("must be %d to %d characters long", min, max)
		}
		return ""
	}
}

// digits accepts min..max ASCII digits.
func digits(min, max int) func(string) string {
	return func(s string) string {
		ok := len(s) >= min && len(s) <= max
		for i := 0; ok && i < len(s); i++ {
			ok = s[i] >= '0' && s[i] <= '9'
		}
		if ok {
			return ""
		}
		if min == max {
			return fmt.Sprintf("must be %d digits", min)
		}
		return fmt.Sprintf("must be %d to %d digits", min, max)
	}
}

func enum(values ...string) func(string) string {
	return func(s string) string {
		if slices.Contains(values, s) {
			return ""
		}
		return "must be one of " + strings.Join(values, ", ")
	}
}

func matching(re *regexp.Regexp, what string) func(string) string {
	return func(s string) string {
		if re.MatchString(s) {
			return ""
		}
		return "must be " + what
	}
}

var (
	accountNumber   = length(1, 34)
	bankAccountType = enum("CHECKING", "SAVINGS")
	swiftCode       = matching(regexp.MustCompile(`^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$`),
		"a SWIFT/BIC code: 4-letter bank code, 2-letter country code, 2-character location and optional 3-character branch, upper case")
	phone    = matching(regexp.MustCompile(`^\+[0-9]{6,14}$`), "a phone number in international format: + followed by 6 to 14 digits")
	phoneIDR = matching(regexp.MustCompile(`^\+62[0-9]{9,12}$`), "an Indonesian phone number: +62 followed by 9 to 12 digits")
	vpaRE    = regexp.MustCompile(`^[a-zA-Z0-9.\-_]+@[a-zA-Z0-9]+$`)
	ifscRE   = regexp.MustCompile(`^[A-Z]{4}0[A-Z0-9]{6}$`)
	evmRE    = regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)
	tronRE   = regexp.MustCompile(`^T[1-9A-HJ-NP-Za-km-z]{33}$`)
	sparkRE  = regexp.MustCompile(`^(spark|sparkrt|sprt|sp)1[02-9ac-hj-np-z]{20,120}$`)
	lnUserRE = regexp.MustCompile(`^[a-zA-Z0-9._+-]+$`)
	dnsRE    = regexp.MustCompile(`^([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$`)
	bech32RE = regexp.MustCompile(`^[02-9ac-hj-np-z]+$`)
	lnDataRE = regexp.MustCompile(`^[a-z0-9]+$`)
)

func phonePrefix(prefix string, n int) func(string) string {
	re := regexp.MustCompile(`^` + regexp.QuoteMeta(prefix) + fmt.Sprintf(`[0-9]{%d}$`, n))
	return matching(re, fmt.Sprintf("a phone number of the form %s followed by %d digits", prefix, n))
}

func countryCode(s string) string {
	if country.Valid(s) {
		return ""
	}
	return "must be an ISO 3166-1 alpha-2 country code in upper case (e.g. US)"
}

func email(s string) string {
	at := strings.IndexByte(s, '@')
	if at <= 0 || at == len(s)-1 || strings.Count(s, "@") != 1 {
		return "must be an email address (name@domain)"
	}
	return ""
}

// ibanMatching checks the country-specific pattern, then the IBAN itself.
func ibanMatching(pattern, what string) func(string) string {
	re := regexp.MustCompile(pattern)
	return func(s string) string {
		if !re.MatchString(s) {
			return "must be an IBAN of the form " + what
		}
		if err := banking.IBANValid(s); err != nil {
			return "is not a valid IBAN: " + err.Error()
		}
		return ""
	}
}

var genericIBANRE = regexp.MustCompile(`^[A-Z]{2}[0-9]{2}[A-Za-z0-9]{11,30}$`)

func genericIBAN(s string) string {
	if !genericIBANRE.MatchString(s) {
		return "must be an IBAN: 2-letter country code, 2 check digits and 11 to 30 letters or digits, without spaces"
	}
	if err := banking.IBANValid(s); err != nil {
		return "is not a valid IBAN: " + err.Error()
	}
	return ""
}

func routingNumber(s string) string {
	if msg := digits(9, 9)(s); msg != "" {
		return msg
	}
	if err := banking.ABAValid(s); err != nil {
		return "is not a valid ABA routing number: " + err.Error()
	}
	return ""
}

func clabe(s string) string {
	if msg := digits(18, 18)(s); msg != "" {
		return msg
	}
	if err := banking.CLABEValid(s); err != nil {
		return "is not a valid CLABE: " + err.Error()
	}
	return ""
}

func vpa(s string) string {
	if n := len(s); n < 3 || n > 255 || !vpaRE.MatchString(s) {
		return "must be a UPI virtual payment address (name@bank), 3 to 255 characters"
	}
	return ""
}

// ifsc checks an Indian Financial System Code: 4 letters (the bank), 0, 6 letters or
// digits (the branch).
func ifsc(s string) string {
	if ifscRE.MatchString(s) {
		return ""
	}
	return "must be an IFSC: 4 letters, 0, then 6 letters or digits (HDFC0001234)"
}

func evmAddress(s string) string {
	if evmRE.MatchString(s) {
		return ""
	}
	return "must be an EVM address: 0x followed by 40 hex digits"
}

func tronAddress(s string) string {
	if tronRE.MatchString(s) {
		return ""
	}
	return "must be a TRON address: T followed by 33 base58 characters"
}

func sparkAddress(s string) string {
	if sparkRE.MatchString(s) {
		return ""
	}
	return "must be a Spark address: spark1, sparkrt1, sprt1 or sp1 followed by 20 to 120 lower-case bech32m characters"
}

func solanaAddress(s string) string {
	if b, ok := base58Decode(s); ok && len(b) == 32 {
		return ""
	}
	return "must be a Solana address: base58 encoding of 32 bytes"
}

func bolt11(s string) string {
	for _, p := range []string{"lnbcrt", "lnbc", "lntb"} {
		if rest, ok := strings.CutPrefix(s, p); ok && lnDataRE.MatchString(rest) {
			return ""
		}
	}
	return "must be a lower-case BOLT11 invoice starting with lnbc, lntb or lnbcrt"
}

func bolt12(s string) string {
	if rest, ok := strings.CutPrefix(s, "lno1"); ok && bech32RE.MatchString(rest) {
		return ""
	}
	return "must be a lower-case BOLT12 offer starting with lno1"
}

func lightningAddress(s string) string {
	user, domain, ok := strings.Cut(s, "@")
	if ok && len(s) <= 255 && lnUserRE.MatchString(user) && dnsRE.MatchString(domain) {
		return ""
	}
	return "must be a lightning address (user@domain)"
}

// base58Alphabet is the Bitcoin base58 alphabet.
const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// base58Index maps an ASCII byte to its base58 digit, -1 when not in the
// alphabet.
var base58Index = func() [256]int8 {
	var t [256]int8
	for i := range t {
		t[i] = -1
	}
	for i := 0; i < len(base58Alphabet); i++ {
		t[base58Alphabet[i]] = int8(i)
	}
	return t
}()

// base58Decode decodes a Bitcoin-alphabet base58 string (no checksum). Each
// leading '1' stands for a zero byte. Inputs longer than 128 characters are
// refused to bound the quadratic work.
func base58Decode(s string) ([]byte, bool) {
	if s == "" || len(s) > 128 {
		return nil, false
	}
	zeros := 0
	for zeros < len(s) && s[zeros] == '1' {
		zeros++
	}
	// Big-endian base-256 accumulator of the value of s[zeros:].
	var num []byte
	for i := zeros; i < len(s); i++ {
		d := base58Index[s[i]]
		if d < 0 {
			return nil, false
		}
		carry := int(d)
		for j := len(num) - 1; j >= 0; j-- {
			carry += int(num[j]) * 58
			num[j] = byte(carry)
			carry >>= 8
		}
		for carry > 0 {
			num = append([]byte{byte(carry)}, num...)
			carry >>= 8
		}
	}
	return append(make([]byte, zeros), num...), true
}
