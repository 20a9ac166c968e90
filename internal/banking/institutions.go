package banking

// Institution is a bank payouts reach (GET /discoveries): BankName is the value to send
// as bankName when creating an external account, DisplayName how to show it.
type Institution struct {
	BankName    string
	DisplayName string
	Country     string // ISO 3166-1 alpha-2
	Currency    string
}

// institutions is the seeded set, by country.
var institutions = []Institution{
	{"Bank of America, N.A.", "Bank of America", "US", "USD"},
	{"JPMorgan Chase Bank, N.A.", "Chase", "US", "USD"},
	{"Wells Fargo Bank, N.A.", "Wells Fargo", "US", "USD"},
	{"Citibank, N.A.", "Citi", "US", "USD"},
	{"BBVA México, S.A.", "BBVA México", "MX", "MXN"},
	{"Banco Santander México, S.A.", "Santander México", "MX", "MXN"},
	{"Banco Mercantil del Norte, S.A. (Banorte)", "Banorte", "MX", "MXN"},
	{"Itaú Unibanco S.A.", "Itaú", "BR", "BRL"},
	{"Banco do Brasil S.A.", "Banco do Brasil", "BR", "BRL"},
	{"Nu Pagamentos S.A.", "Nubank", "BR", "BRL"},
	{"Barclays Bank UK PLC", "Barclays", "GB", "GBP"},
	{"HSBC UK Bank plc", "HSBC UK", "GB", "GBP"},
	{"Deutsche Bank AG", "Deutsche Bank", "DE", "EUR"},
	{"BNP Paribas S.A.", "BNP Paribas", "FR", "EUR"},
	{"Banco Santander, S.A.", "Santander", "ES", "EUR"},
	{"Bancolombia S.A.", "Bancolombia", "CO", "COP"},
	{"Banco de Bogotá S.A.", "Banco de Bogotá", "CO", "COP"},
	{"Commercial International Bank (Egypt) S.A.E.", "CIB Egypt", "EG", "EGP"},
	{"National Bank of Egypt", "NBE", "EG", "EGP"},
	{"The Hongkong and Shanghai Banking Corporation Limited", "HSBC Hong Kong", "HK", "HKD"},
	{"Bank of China (Hong Kong) Limited", "BOCHK", "HK", "HKD"},
	{"PT Bank Central Asia Tbk", "BCA", "ID", "IDR"},
	{"PT Bank Mandiri (Persero) Tbk", "Bank Mandiri", "ID", "IDR"},
	{"State Bank of India", "SBI", "IN", "INR"},
	{"HDFC Bank Limited", "HDFC Bank", "IN", "INR"},
	{"Equity Bank Kenya Limited", "Equity Bank", "KE", "KES"},
	{"KCB Bank Kenya Limited", "KCB", "KE", "KES"},
	{"Malayan Banking Berhad", "Maybank", "MY", "MYR"},
	{"CIMB Bank Berhad", "CIMB", "MY", "MYR"},
	{"Access Bank Plc", "Access Bank", "NG", "NGN"},
	{"Guaranty Trust Bank Limited", "GTBank", "NG", "NGN"},
	{"Zenith Bank Plc", "Zenith Bank", "NG", "NGN"},
	{"BDO Unibank, Inc.", "BDO", "PH", "PHP"},
	{"Bank of the Philippine Islands", "BPI", "PH", "PHP"},
	{"Habib Bank Limited", "HBL", "PK", "PKR"},
	{"DBS Bank Ltd.", "DBS", "SG", "SGD"},
	{"Oversea-Chinese Banking Corporation Limited", "OCBC", "SG", "SGD"},
	{"Bangkok Bank Public Company Limited", "Bangkok Bank", "TH", "THB"},
	{"Kasikornbank Public Company Limited", "KBank", "TH", "THB"},
	{"Joint Stock Commercial Bank for Foreign Trade of Vietnam", "Vietcombank", "VN", "VND"},
	{"Vietnam Technological and Commercial Joint Stock Bank", "Techcombank", "VN", "VND"},
	{"Standard Bank of South Africa Limited", "Standard Bank", "ZA", "ZAR"},
	{"FirstRand Bank Limited", "FNB", "ZA", "ZAR"},
}

// Institutions are the seeded banks in country and currency ("" matches any), in the
// order of the set.
func Institutions(country, currency string) []Institution {
	var out []Institution
	for _, in := range institutions {
		if (country == "" || in.Country == country) && (currency == "" || in.Currency == currency) {
			out = append(out, in)
		}
	}
	return out
}
