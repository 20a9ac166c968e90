// Package money is the currency catalogue of the payments API.
//
// Amounts are carried as int64 values in a currency's smallest unit (cents
// for USD, satoshis for BTC, ...); Currency.Decimals gives the exponent that
// relates that unit to the major unit. The catalogue covers the active ISO
// 4217 currencies (without fund, precious-metal, bond-market and test codes)
// plus a few crypto tickers. It is immutable data built once at package
// initialisation and is safe for concurrent use.
package money

import (
	"slices"
	"strconv"
	"strings"
)

// Kind says whether a currency is fiat (ISO 4217) or crypto (a ticker).
type Kind int

const (
	// Fiat is a government-issued currency identified by its ISO 4217 code.
	Fiat Kind = iota + 1
	// Crypto is a crypto asset identified by its ticker.
	Crypto
)

// Currency describes one currency. Decimals is the number of digits after
// the decimal point of the major unit, i.e. amounts are stored as int64 in
// units of 10^-Decimals. Kind is not serialized.
type Currency struct {
	Code     string `json:"code"`
	Name     string `json:"name"`
	Symbol   string `json:"symbol"`
	Decimals int    `json:"decimals"`
	Kind     Kind   `json:"-"`
}

// Lookup returns the currency for an upper-case code ("USD", "USDC");
// ok=false when unknown. Lookup is case-sensitive: "usd" is unknown.
func Lookup(code string) (Currency, bool) {
	c, ok := byCode[code]
	return c, ok
}

// IsFiat reports whether code is a known fiat (ISO 4217) currency.
func IsFiat(code string) bool {
	c, ok := byCode[code]
	return ok && c.Kind == Fiat
}

// IsCrypto reports whether code is a known crypto currency.
func IsCrypto(code string) bool {
	c, ok := byCode[code]
	return ok && c.Kind == Crypto
}

// All returns every known currency sorted by code (a fresh slice each call).
func All() []Currency {
	return slices.Clone(sorted)
}

var (
	// byCode indexes table by code.
	byCode = index(table)
	// sorted is table sorted by code; All hands out copies of it.
	sorted = sortByCode(table)
)

func index(cs []Currency) map[string]Currency {
	m := make(map[string]Currency, len(cs))
	for _, c := range cs {
		m[c.Code] = c
	}
	return m
}

func sortByCode(cs []Currency) []Currency {
	out := slices.Clone(cs)
	slices.SortFunc(out, func(a, b Currency) int { return strings.Compare(a.Code, b.Code) })
	return out
}

// table is the catalogue. Fiat decimals are the ISO 4217 minor-unit
// exponents; where a currency has no widely used symbol the code is used.
//
// Deliberately absent: funds, precious metals, bond-market units and test
// codes (BOV, CHE, CHW, CLF, COU, MXV, USN, UYI, UYW, XAD, XAG, XAU, XBA-XBD,
// XDR, XPD, XPT, XSU, XTS, XUA, XXX); withdrawn codes (ANG→XCG, BGN→EUR,
// CUC, HRK→EUR, MRO→MRU, SLL→SLE, STD→STN, VEF→VES, ZWL→ZWG); and ETH, whose
// 18 decimals do not fit int64 amounts comfortably.
var table = []Currency{
	// Fiat (ISO 4217).
	{"AED", "UAE Dirham", "د.إ", 2, Fiat},
	{"AFN", "Afghan Afghani", "؋", 2, Fiat},
	{"ALL", "Albanian Lek", "L", 2, Fiat},
	{"AMD", "Armenian Dram", "֏", 2, Fiat},
	{"AOA", "Angolan Kwanza", "Kz", 2, Fiat},
	{"ARS", "Argentine Peso", "$", 2, Fiat},
	{"AUD", "Australian Dollar", "A$", 2, Fiat},
	{"AWG", "Aruban Florin", "ƒ", 2, Fiat},
	{"AZN", "Azerbaijani Manat", "₼", 2, Fiat},
	{"BAM", "Bosnia and Herzegovina Convertible Mark", "KM", 2, Fiat},
	{"BBD", "Barbados Dollar", "Bds$", 2, Fiat},
	{"BDT", "Bangladeshi Taka", "৳", 2, Fiat},
	{"BHD", "Bahraini Dinar", "BD", 3, Fiat},
	{"BIF", "Burundian Franc", "FBu", 0, Fiat},
	{"BMD", "Bermudian Dollar", "BD$", 2, Fiat},
	{"BND", "Brunei Dollar", "B$", 2, Fiat},
	{"BOB", "Bolivian Boliviano", "Bs", 2, Fiat},
	{"BRL", "Brazilian Real", "R$", 2, Fiat},
	{"BSD", "Bahamian Dollar", "B$", 2, Fiat},
	{"BTN", "Bhutanese Ngultrum", "Nu.", 2, Fiat},
	{"BWP", "Botswana Pula", "P", 2, Fiat},
	{"BYN", "Belarusian Ruble", "Br", 2, Fiat},
	{"BZD", "Belize Dollar", "BZ$", 2, Fiat},
	{"CAD", "Canadian Dollar", "C$", 2, Fiat},
	{"CDF", "Congolese Franc", "FC", 2, Fiat},
	{"CHF", "Swiss Franc", "CHF", 2, Fiat},
	{"CLP", "Chilean Peso", "$", 0, Fiat},
	{"CNY", "Chinese Yuan Renminbi", "¥", 2, Fiat},
	{"COP", "Colombian Peso", "$", 2, Fiat},
	{"CRC", "Costa Rican Colón", "₡", 2, Fiat},
	{"CUP", "Cuban Peso", "$", 2, Fiat},
	{"CVE", "Cape Verdean Escudo", "Esc", 2, Fiat},
	{"CZK", "Czech Koruna", "Kč", 2, Fiat},
	{"DJF", "Djiboutian Franc", "Fdj", 0, Fiat},
	{"DKK", "Danish Krone", "kr", 2, Fiat},
	{"DOP", "Dominican Peso", "RD$", 2, Fiat},
	{"DZD", "Algerian Dinar", "DA", 2, Fiat},
	{"EGP", "Egyptian Pound", "E£", 2, Fiat},
	{"ERN", "Eritrean Nakfa", "Nfk", 2, Fiat},
	{"ETB", "Ethiopian Birr", "Br", 2, Fiat},
	{"EUR", "Euro", "€", 2, Fiat},
	{"FJD", "Fiji Dollar", "FJ$", 2, Fiat},
	{"FKP", "Falkland Islands Pound", "£", 2, Fiat},
	{"GBP", "Pound Sterling", "£", 2, Fiat},
	{"GEL", "Georgian Lari", "₾", 2, Fiat},
	{"GHS", "Ghanaian Cedi", "GH₵", 2, Fiat},
	{"GIP", "Gibraltar Pound", "£", 2, Fiat},
	{"GMD", "Gambian Dalasi", "D", 2, Fiat},
	{"GNF", "Guinean Franc", "FG", 0, Fiat},
	{"GTQ", "Guatemalan Quetzal", "Q", 2, Fiat},
	{"GYD", "Guyanese Dollar", "G$", 2, Fiat},
	{"HKD", "Hong Kong Dollar", "HK$", 2, Fiat},
	{"HNL", "Honduran Lempira", "L", 2, Fiat},
	{"HTG", "Haitian Gourde", "G", 2, Fiat},
	{"HUF", "Hungarian Forint", "Ft", 2, Fiat},
	{"IDR", "Indonesian Rupiah", "Rp", 2, Fiat},
	{"ILS", "Israeli New Shekel", "₪", 2, Fiat},
	{"INR", "Indian Rupee", "₹", 2, Fiat},
	{"IQD", "Iraqi Dinar", "IQD", 3, Fiat},
	{"IRR", "Iranian Rial", "﷼", 2, Fiat},
	{"ISK", "Icelandic Króna", "kr", 0, Fiat},
	{"JMD", "Jamaican Dollar", "J$", 2, Fiat},
	{"JOD", "Jordanian Dinar", "JD", 3, Fiat},
	{"JPY", "Japanese Yen", "¥", 0, Fiat},
	{"KES", "Kenyan Shilling", "KSh", 2, Fiat},
	{"KGS", "Kyrgyzstani Som", "сом", 2, Fiat},
	{"KHR", "Cambodian Riel", "៛", 2, Fiat},
	{"KMF", "Comorian Franc", "CF", 0, Fiat},
	{"KPW", "North Korean Won", "₩", 2, Fiat},
	{"KRW", "South Korean Won", "₩", 0, Fiat},
	{"KWD", "Kuwaiti Dinar", "KD", 3, Fiat},
	{"KYD", "Cayman Islands Dollar", "CI$", 2, Fiat},
	{"KZT", "Kazakhstani Tenge", "₸", 2, Fiat},
	{"LAK", "Lao Kip", "₭", 2, Fiat},
	{"LBP", "Lebanese Pound", "LL", 2, Fiat},
	{"LKR", "Sri Lankan Rupee", "Rs", 2, Fiat},
	{"LRD", "Liberian Dollar", "L$", 2, Fiat},
	{"LSL", "Lesotho Loti", "M", 2, Fiat},
	{"LYD", "Libyan Dinar", "LD", 3, Fiat},
	{"MAD", "Moroccan Dirham", "DH", 2, Fiat},
	{"MDL", "Moldovan Leu", "L", 2, Fiat},
	{"MGA", "Malagasy Ariary", "Ar", 2, Fiat},
	{"MKD", "Macedonian Denar", "ден", 2, Fiat},
	{"MMK", "Myanmar Kyat", "K", 2, Fiat},
	{"MNT", "Mongolian Tögrög", "₮", 2, Fiat},
	{"MOP", "Macanese Pataca", "MOP$", 2, Fiat},
	{"MRU", "Mauritanian Ouguiya", "UM", 2, Fiat},
	{"MUR", "Mauritian Rupee", "Rs", 2, Fiat},
	{"MVR", "Maldivian Rufiyaa", "Rf", 2, Fiat},
	{"MWK", "Malawian Kwacha", "MK", 2, Fiat},
	{"MXN", "Mexican Peso", "Mex$", 2, Fiat},
	{"MYR", "Malaysian Ringgit", "RM", 2, Fiat},
	{"MZN", "Mozambican Metical", "MT", 2, Fiat},
	{"NAD", "Namibian Dollar", "N$", 2, Fiat},
	{"NGN", "Nigerian Naira", "₦", 2, Fiat},
	{"NIO", "Nicaraguan Córdoba", "C$", 2, Fiat},
	{"NOK", "Norwegian Krone", "kr", 2, Fiat},
	{"NPR", "Nepalese Rupee", "Rs", 2, Fiat},
	{"NZD", "New Zealand Dollar", "NZ$", 2, Fiat},
	{"OMR", "Omani Rial", "OMR", 3, Fiat},
	{"PAB", "Panamanian Balboa", "B/.", 2, Fiat},
	{"PEN", "Peruvian Sol", "S/", 2, Fiat},
	{"PGK", "Papua New Guinean Kina", "K", 2, Fiat},
	{"PHP", "Philippine Peso", "₱", 2, Fiat},
	{"PKR", "Pakistani Rupee", "Rs", 2, Fiat},
	{"PLN", "Polish Złoty", "zł", 2, Fiat},
	{"PYG", "Paraguayan Guaraní", "₲", 0, Fiat},
	{"QAR", "Qatari Riyal", "QR", 2, Fiat},
	{"RON", "Romanian Leu", "lei", 2, Fiat},
	{"RSD", "Serbian Dinar", "din.", 2, Fiat},
	{"RUB", "Russian Ruble", "₽", 2, Fiat},
	{"RWF", "Rwandan Franc", "FRw", 0, Fiat},
	{"SAR", "Saudi Riyal", "SR", 2, Fiat},
	{"SBD", "Solomon Islands Dollar", "SI$", 2, Fiat},
	{"SCR", "Seychellois Rupee", "SRe", 2, Fiat},
	{"SDG", "Sudanese Pound", "SDG", 2, Fiat},
	{"SEK", "Swedish Krona", "kr", 2, Fiat},
	{"SGD", "Singapore Dollar", "S$", 2, Fiat},
	{"SHP", "Saint Helena Pound", "£", 2, Fiat},
	{"SLE", "Sierra Leonean Leone", "Le", 2, Fiat},
	{"SOS", "Somali Shilling", "Sh.So.", 2, Fiat},
	{"SRD", "Surinamese Dollar", "Sur$", 2, Fiat},
	{"SSP", "South Sudanese Pound", "SSP", 2, Fiat},
	{"STN", "São Tomé and Príncipe Dobra", "Db", 2, Fiat},
	{"SVC", "Salvadoran Colón", "₡", 2, Fiat},
	{"SYP", "Syrian Pound", "LS", 2, Fiat},
	{"SZL", "Swazi Lilangeni", "E", 2, Fiat},
	{"THB", "Thai Baht", "฿", 2, Fiat},
	{"TJS", "Tajikistani Somoni", "SM", 2, Fiat},
	{"TMT", "Turkmenistan Manat", "m", 2, Fiat},
	{"TND", "Tunisian Dinar", "DT", 3, Fiat},
	{"TOP", "Tongan Paʻanga", "T$", 2, Fiat},
	{"TRY", "Turkish Lira", "₺", 2, Fiat},
	{"TTD", "Trinidad and Tobago Dollar", "TT$", 2, Fiat},
	{"TWD", "New Taiwan Dollar", "NT$", 2, Fiat},
	{"TZS", "Tanzanian Shilling", "TSh", 2, Fiat},
	{"UAH", "Ukrainian Hryvnia", "₴", 2, Fiat},
	{"UGX", "Ugandan Shilling", "USh", 0, Fiat},
	{"USD", "US Dollar", "$", 2, Fiat},
	{"UYU", "Uruguayan Peso", "$U", 2, Fiat},
	{"UZS", "Uzbekistani Som", "UZS", 2, Fiat},
	{"VED", "Venezuelan Digital Bolívar", "Bs.D", 2, Fiat},
	{"VES", "Venezuelan Sovereign Bolívar", "Bs.S", 2, Fiat},
	{"VND", "Vietnamese Đồng", "₫", 0, Fiat},
	{"VUV", "Vanuatu Vatu", "VT", 0, Fiat},
	{"WST", "Samoan Tālā", "WS$", 2, Fiat},
	{"XAF", "Central African CFA Franc", "FCFA", 0, Fiat},
	{"XCD", "East Caribbean Dollar", "EC$", 2, Fiat},
	{"XCG", "Caribbean Guilder", "Cg", 2, Fiat},
	{"XOF", "West African CFA Franc", "CFA", 0, Fiat},
	{"XPF", "CFP Franc", "₣", 0, Fiat},
	{"YER", "Yemeni Rial", "YER", 2, Fiat},
	{"ZAR", "South African Rand", "R", 2, Fiat},
	{"ZMW", "Zambian Kwacha", "ZK", 2, Fiat},
	{"ZWG", "Zimbabwe Gold", "ZiG", 2, Fiat},

	// Crypto (tickers).
	{"BTC", "Bitcoin", "₿", 8, Crypto},
	{"SOL", "Solana", "SOL", 9, Crypto},
	{"USDB", "USDB", "USDB", 6, Crypto},
	{"USDC", "USD Coin", "USDC", 6, Crypto},
	{"USDT", "Tether USD", "USDT", 6, Crypto},
}

// Format writes an amount of minor units of c in major units with the currency's
// decimals and its code, for people: 1250 USD is "12.50 USD".
func (c Currency) Format(minor int64) string {
	sign, v := "", uint64(minor)
	if minor < 0 {
		sign, v = "-", uint64(-minor)
	}
	digits := strconv.FormatUint(v, 10)
	if c.Decimals > 0 {
		if len(digits) <= c.Decimals {
			digits = strings.Repeat("0", c.Decimals-len(digits)+1) + digits
		}
		digits = digits[:len(digits)-c.Decimals] + "." + digits[len(digits)-c.Decimals:]
	}
	return sign + digits + " " + c.Code
}
