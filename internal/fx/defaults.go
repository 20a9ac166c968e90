package fx

// defaultUnitsPerUSD is the built-in rate table: how many units (major) of each currency
// one US dollar buys, roughly as markets quoted them. Every currency of the catalogue
// (internal/money) has an entry (a test checks it); an operator replaces any of them with
// PAYCORE_FX_RATES_FILE. Pegged currencies carry their peg.
var defaultUnitsPerUSD = map[string]string{
	"AED": "3.6725", "AFN": "70.5", "ALL": "92.5", "AMD": "387", "AOA": "912", "ARS": "1020", "AUD": "1.53",
	"AWG": "1.79", "AZN": "1.7", "BAM": "1.8", "BBD": "2", "BDT": "119.5", "BHD": "0.376", "BIF": "2900",
	"BMD": "1", "BND": "1.34", "BOB": "6.91", "BRL": "5.6", "BSD": "1", "BTN": "84.5", "BWP": "13.6",
	"BYN": "3.27", "BZD": "2", "CAD": "1.38", "CDF": "2850", "CHF": "0.88", "CLP": "950", "CNY": "7.2",
	"COP": "4150", "CRC": "510", "CUP": "24", "CVE": "101.5", "CZK": "23.3", "DJF": "177.7", "DKK": "6.87",
	"DOP": "60.5", "DZD": "134", "EGP": "49.2", "ERN": "15", "ETB": "122", "EUR": "0.92", "FJD": "2.27",
	"FKP": "0.78", "GBP": "0.78", "GEL": "2.72", "GHS": "15.8", "GIP": "0.78", "GMD": "70", "GNF": "8620",
	"GTQ": "7.73", "GYD": "209", "HKD": "7.78", "HNL": "25.2", "HTG": "131.5", "HUF": "368", "IDR": "15800",
	"ILS": "3.72", "INR": "84.5", "IQD": "1310", "IRR": "42000", "ISK": "137", "JMD": "158", "JOD": "0.709",
	"JPY": "150", "KES": "129", "KGS": "86.5", "KHR": "4050", "KMF": "452", "KPW": "900", "KRW": "1380",
	"KWD": "0.307", "KYD": "0.833", "KZT": "495", "LAK": "21900", "LBP": "89500", "LKR": "292", "LRD": "190",
	"LSL": "18", "LYD": "4.85", "MAD": "9.9", "MDL": "18.1", "MGA": "4650", "MKD": "56.6", "MMK": "2100",
	"MNT": "3400", "MOP": "8.01", "MRU": "39.8", "MUR": "46.5", "MVR": "15.4", "MWK": "1735", "MXN": "20.1",
	"MYR": "4.45", "MZN": "63.9", "NAD": "18", "NGN": "1650", "NIO": "36.8", "NOK": "10.9", "NPR": "135",
	"NZD": "1.69", "OMR": "0.385", "PAB": "1", "PEN": "3.77", "PGK": "3.98", "PHP": "58.5", "PKR": "278",
	"PLN": "4.02", "PYG": "7800", "QAR": "3.64", "RON": "4.58", "RSD": "107.8", "RUB": "97", "RWF": "1370",
	"SAR": "3.75", "SBD": "8.4", "SCR": "13.7", "SDG": "601", "SEK": "10.6", "SGD": "1.34", "SHP": "0.78",
	"SLE": "22.7", "SOS": "571", "SRD": "34.5", "SSP": "3900", "STN": "22.5", "SVC": "8.75", "SYP": "13000",
	"SZL": "18", "THB": "34.5", "TJS": "10.65", "TMT": "3.5", "TND": "3.12", "TOP": "2.37", "TRY": "34.4",
	"TTD": "6.79", "TWD": "32.4", "TZS": "2690", "UAH": "41.3", "UGX": "3680", "USD": "1", "UYU": "41.8",
	"UZS": "12800", "VED": "46", "VES": "46", "VND": "25300", "VUV": "119", "WST": "2.75", "XAF": "603",
	"XCD": "2.7", "XCG": "1.79", "XOF": "603", "XPF": "109.7", "YER": "250", "ZAR": "18", "ZMW": "27",
	"ZWG": "26.5",
	// Crypto: the stable coins at par, the others at a market level.
	"BTC": "0.0000105", "SOL": "0.0065", "USDB": "1", "USDC": "1", "USDT": "1",
}

// stable are the currencies the sandbox never moves: the base and the coins pegged to it.
var stable = map[string]bool{"USD": true, "USDB": true, "USDC": true, "USDT": true}
