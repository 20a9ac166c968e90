package money

// homeCurrency maps a country (ISO 3166-1 alpha-2) to the currency its residents hold.
var homeCurrency = map[string]string{
	"US": "USD", "EC": "USD", "SV": "USD", "PA": "USD", "PR": "USD", "MX": "MXN", "BR": "BRL", "GB": "GBP", "IN": "INR",
	"CA": "CAD", "DK": "DKK", "NG": "NGN", "KE": "KES", "PH": "PHP", "SG": "SGD", "HK": "HKD", "ID": "IDR", "MY": "MYR",
	"TH": "THB", "VN": "VND", "ZA": "ZAR", "CO": "COP", "GT": "GTQ", "JM": "JMD", "EG": "EGP", "GH": "GHS", "PK": "PKR",
	"BD": "BDT", "AE": "AED", "TZ": "TZS", "UG": "UGX", "RW": "RWF", "MW": "MWK", "ZM": "ZMW", "BW": "BWP", "HT": "HTG",
	"AR": "ARS", "CL": "CLP", "PE": "PEN", "JP": "JPY", "CN": "CNY", "KR": "KRW", "AU": "AUD", "NZ": "NZD", "CH": "CHF",
	"SE": "SEK", "NO": "NOK", "PL": "PLN", "CZ": "CZK", "HU": "HUF", "RO": "RON", "TR": "TRY", "IL": "ILS", "SA": "SAR",
	"QA": "QAR", "KW": "KWD", "IS": "ISK", "UA": "UAH", "MA": "MAD", "TN": "TND", "UY": "UYU", "PY": "PYG", "BO": "BOB",
	"DO": "DOP", "CR": "CRC", "HN": "HNL", "NI": "NIO", "LK": "LKR", "NP": "NPR", "TW": "TWD", "ET": "ETB",
	"AT": "EUR", "BE": "EUR", "CY": "EUR", "DE": "EUR", "EE": "EUR", "ES": "EUR", "FI": "EUR", "FR": "EUR", "GR": "EUR",
	"HR": "EUR", "IE": "EUR", "IT": "EUR", "LT": "EUR", "LU": "EUR", "LV": "EUR", "MT": "EUR", "NL": "EUR", "PT": "EUR",
	"SI": "EUR", "SK": "EUR", "BG": "EUR", "AD": "EUR", "MC": "EUR", "SM": "EUR", "VA": "EUR", "ME": "EUR",
	"BJ": "XOF", "BF": "XOF", "CI": "XOF", "GW": "XOF", "ML": "XOF", "NE": "XOF", "SN": "XOF", "TG": "XOF",
	"CM": "XAF", "CF": "XAF", "TD": "XAF", "CG": "XAF", "GQ": "XAF", "GA": "XAF",
}

// HomeCurrency returns the fiat currency of a country, when the catalogue knows it.
func HomeCurrency(country string) (string, bool) {
	c, ok := homeCurrency[country]
	return c, ok
}
