package banking

import (
	"strings"
	"testing"
)

// registryExamples are the example IBANs of the SWIFT IBAN registry, one per
// country in ibanLengths.
var registryExamples = []string{
	"AD1200012030200359100100",
	"AE070331234567890123456",
	"AL47212110090000000235698741",
	"AT611904300234573201",
	"AZ21NABZ00000000137010001944",
	"BA391290079401028494",
	"BE68539007547034",
	"BG80BNBG96611020345678",
	"BH67BMAG00001299123456",
	"BI4210000100010000332045181",
	"BR1800360305000010009795493C1",
	"BY13NBRB3600900000002Z00AB00",
	"CH9300762011623852957",
	"CR05015202001026284066",
	"CY17002001280000001200527600",
	"CZ6508000000192000145399",
	"DE89370400440532013000",
	"DJ2100010000000154000100186",
	"DK5000400440116243",
	"DO28BAGR00000001212453611324",
	"EE382200221020145685",
	"EG380019000500000000263180002",
	"ES9121000418450200051332",
	"FI2112345600000785",
	"FK88SC123456789012",
	"FO6264600001631634",
	"FR1420041010050500013M02606",
	"GB29NWBK60161331926819",
	"GE29NB0000000101904917",
	"GI75NWBK000000007099453",
	"GL8964710001000206",
	"GR1601101250000000012300695",
	"GT82TRAJ01020000001210029690",
	"HR1210010051863000160",
	"HU42117730161111101800000000",
	"IE29AIBK93115212345678",
	"IL620108000000099999999",
	"IQ98NBIQ850123456789012",
	"IS140159260076545510730339",
	"IT60X0542811101000000123456",
	"JO94CBJO0010000000000131000302",
	"KW81CBKU0000000000001234560101",
	"KZ86125KZT5004100100",
	"LB62099900000001001901229114",
	"LC55HEMM000100010012001200023015",
	"LI21088100002324013AA",
	"LT121000011101001000",
	"LU280019400644750000",
	"LV80BANK0000435195001",
	"LY83002048000020100120361",
	"MC5811222000010123456789030",
	"MD24AG000225100013104168",
	"ME25505000012345678951",
	"MK07250120000058984",
	"MN121234123456789123",
	"MR1300020001010000123456753",
	"MT84MALT011000012345MTLCAST001S",
	"MU17BOMM0101101030300200000MUR",
	"NI45BAPR00000013000003558124",
	"NL91ABNA0417164300",
	"NO9386011117947",
	"OM810180000001299123456",
	"PK36SCBL0000001123456702",
	"PL61109010140000071219812874",
	"PS92PALS000000000400123456702",
	"PT50000201231234567890154",
	"QA58DOHB00001234567890ABCDEFG",
	"RO49AAAA1B31007593840000",
	"RS35260005601001611379",
	"RU0304452522540817810538091310419",
	"SA0380000000608010167519",
	"SC18SSCB11010000000000001497USD",
	"SD2129010501234001",
	"SE4550000000058398257466",
	"SI56263300012039086",
	"SK3112000000198742637541",
	"SM86U0322509800000000270100",
	"SO211000001001000100141",
	"ST68000100010051845310112",
	"SV62CENR00000000000000700025",
	"TL380080012345678910157",
	"TN5910006035183598478831",
	"TR330006100519786457841326",
	"UA213223130000026007233566001",
	"VA59001123000012345678",
	"VG96VPVG0000012345678901",
	"XK051212012345678906",
	"YE15CBYE0001018861234567891234",
}

func TestIBANRegistryExamples(t *testing.T) {
	seen := map[string]bool{}
	for _, iban := range registryExamples {
		if err := IBANValid(iban); err != nil {
			t.Errorf("IBANValid(%q) = %v, want nil", iban, err)
		}
		seen[iban[:2]] = true
	}
	for cc := range ibanLengths {
		if !seen[cc] {
			t.Errorf("country %s has no registry example", cc)
		}
	}
	for _, cc := range strings.Fields("AD AE AT BE BG CH CY CZ DE DK EE EG ES FI FR GB GI GR HR HU IE IS IT LI LT LU LV MC MT NL NO PK PL PT RO SE SI SK SM TR") {
		if _, ok := IBANLength(cc); !ok {
			t.Errorf("IBANLength(%s) unknown", cc)
		}
	}
}

func TestIBANValid(t *testing.T) {
	tests := []struct {
		iban    string
		wantErr string // substring; "" means valid
	}{
		{"DE89370400440532013000", ""},
		{"GB29NWBK60161331926819", ""},
		{"FR1420041010050500013M02606", ""},
		{"NL91ABNA0417164300", ""},
		{"DK5000400440116243", ""},
		{"AE070331234567890123456", ""},
		{"EG380019000500000000263180002", ""},
		{"PK36SCBL0000001123456702", ""},
		{"DE88370400440532013000", "check digits do not match"},
		{"GB28NWBK60161331926819", "check digits do not match"},
		{"DE89370400440532013001", "check digits do not match"},
		{"NL91ABNA0417164301", "check digits do not match"},
		{"DE8937040044053201300", "22 characters long"},
		{"DE893704004405320130000", "22 characters long"},
		{"NL91ABNA041716430", "18 characters long"},
		{"DE89 3704 0044 0532 0130 00", "spaces"},
		{"de89370400440532013000", "upper case"},
		{"GB29nwbk60161331926819", "upper case"},
		{"DE89-370400440532013000", "only letters and digits"},
		{"ZZ89370400440532013000", "unknown"},
		{"US89370400440532013000", "unknown"},
		{"1E89370400440532013000", "country code"},
		{"DEX9370400440532013000", "check digits"},
		{"", "empty"},
		{"DE8", "too short"},
		{"DE", "too short"},
		{"DE00370400440532013000", "between 02 and 98"},
		{"DE99370400440532013000", "between 02 and 98"},
		{"DEÜ9370400440532013000", "only letters and digits"},
	}
	for _, tt := range tests {
		err := IBANValid(tt.iban)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("IBANValid(%q) = %v, want nil", tt.iban, err)
		case tt.wantErr != "" && err == nil:
			t.Errorf("IBANValid(%q) = nil, want error containing %q", tt.iban, tt.wantErr)
		case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
			t.Errorf("IBANValid(%q) = %q, want error containing %q", tt.iban, err, tt.wantErr)
		}
	}
}

func TestMakeIBAN(t *testing.T) {
	tests := []struct{ country, bban, want string }{
		{"DE", "370400440532013000", "DE89370400440532013000"},
		{"GB", "NWBK60161331926819", "GB29NWBK60161331926819"},
		{"FR", "20041010050500013M02606", "FR1420041010050500013M02606"},
		{"NL", "ABNA0417164300", "NL91ABNA0417164300"},
		{"DK", "00400440116243", "DK5000400440116243"},
		{"AE", "0331234567890123456", "AE070331234567890123456"},
		{"NO", "86011117947", "NO9386011117947"},
	}
	for _, tt := range tests {
		if got := MakeIBAN(tt.country, tt.bban); got != tt.want {
			t.Errorf("MakeIBAN(%q, %q) = %q, want %q", tt.country, tt.bban, got, tt.want)
		}
	}
	// Round trip: every registry example rebuilt from its parts.
	for _, iban := range registryExamples {
		got := MakeIBAN(iban[:2], iban[4:])
		if got != iban {
			t.Errorf("MakeIBAN(%q, %q) = %q, want %q", iban[:2], iban[4:], got, iban)
		}
		if err := IBANValid(got); err != nil {
			t.Errorf("IBANValid(MakeIBAN(...)) = %v", err)
		}
	}
	// Sandbox-style IBANs built with a chosen suffix stay valid.
	for _, suffix := range []string{"000", "002", "003", "004", "005", "102", "999"} {
		iban := MakeIBAN("DE", "370400440532013"+suffix)
		if err := IBANValid(iban); err != nil {
			t.Errorf("IBANValid(%q) = %v", iban, err)
		}
		if got := SandboxSuffix(iban); got != suffix {
			t.Errorf("SandboxSuffix(%q) = %q, want %q", iban, got, suffix)
		}
	}
}

func TestCLABEValid(t *testing.T) {
	tests := []struct {
		clabe   string
		wantErr string
	}{
		{"032180000118359719", ""},
		{"002010077777777771", ""},
		{"032180000118359718", "control digit is wrong"},
		{"032180000118359729", "control digit is wrong"},
		{"132180000118359719", "control digit is wrong"},
		{"03218000011835971", "18 digits"},
		{"0321800001183597190", "18 digits"},
		{"", "18 digits"},
		{"03218000011835971A", "only digits"},
		{"0321 8000011835971", "only digits"},
	}
	for _, tt := range tests {
		err := CLABEValid(tt.clabe)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("CLABEValid(%q) = %v, want nil", tt.clabe, err)
		case tt.wantErr != "" && err == nil:
			t.Errorf("CLABEValid(%q) = nil, want error containing %q", tt.clabe, tt.wantErr)
		case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
			t.Errorf("CLABEValid(%q) = %q, want error containing %q", tt.clabe, err, tt.wantErr)
		}
	}
}

func TestCLABEOneDigitChange(t *testing.T) {
	valid := "032180000118359719"
	for i := range len(valid) {
		for d := byte('0'); d <= '9'; d++ {
			if d == valid[i] {
				continue
			}
			b := []byte(valid)
			b[i] = d
			// Weight 1 positions with d*1 mod 10 always change the sum, as do
			// weights 3 and 7 (coprime to 10): every single-digit change is caught.
			if err := CLABEValid(string(b)); err == nil {
				t.Errorf("CLABEValid(%q) = nil after changing digit %d", b, i)
			}
		}
	}
}

func TestMakeCLABE(t *testing.T) {
	if got := MakeCLABE("03218000011835971"); got != "032180000118359719" {
		t.Errorf("MakeCLABE = %q, want 032180000118359719", got)
	}
	for _, first17 := range []string{"00000000000000000", "12345678901234567", "99999999999999999", "01418012345678900", "64618000000000200"} {
		c := MakeCLABE(first17)
		if len(c) != 18 || c[:17] != first17 {
			t.Errorf("MakeCLABE(%q) = %q", first17, c)
		}
		if err := CLABEValid(c); err != nil {
			t.Errorf("CLABEValid(MakeCLABE(%q)) = %v", first17, err)
		}
	}
}

func TestABAValid(t *testing.T) {
	tests := []struct {
		routing string
		wantErr string
	}{
		{"021000021", ""},
		{"011000015", ""},
		{"011401533", ""},
		{"091000019", ""},
		{"123456789", "check digit is wrong"},
		{"021000022", "check digit is wrong"},
		{"02100002", "9 digits"},
		{"0210000210", "9 digits"},
		{"", "9 digits"},
		{"02100002A", "only digits"},
	}
	for _, tt := range tests {
		err := ABAValid(tt.routing)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("ABAValid(%q) = %v, want nil", tt.routing, err)
		case tt.wantErr != "" && err == nil:
			t.Errorf("ABAValid(%q) = nil, want error containing %q", tt.routing, tt.wantErr)
		case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
			t.Errorf("ABAValid(%q) = %q, want error containing %q", tt.routing, err, tt.wantErr)
		}
	}
}

func TestMakeABA(t *testing.T) {
	tests := []struct{ first8, want string }{
		{"02100002", "021000021"},
		{"01100001", "011000015"},
		{"12345678", "123456780"},
	}
	for _, tt := range tests {
		got := MakeABA(tt.first8)
		if got != tt.want {
			t.Errorf("MakeABA(%q) = %q, want %q", tt.first8, got, tt.want)
		}
		if err := ABAValid(got); err != nil {
			t.Errorf("ABAValid(MakeABA(%q)) = %v", tt.first8, err)
		}
	}
}

func TestSandboxSuffix(t *testing.T) {
	tests := []struct{ in, want string }{
		{"123456789002", "002"},
		{"name005@upi", "005"},
		{"alice005@ln.example", "005"},
		{"ab", ""},
		{"", ""},
		{"abc", "abc"},
		{"ab@bank", ""},
		{"@bank", ""},
		{"x@y@z123", "x@y"},
		{"+254712345104", "104"},
		{"DE89370400440532013000", "000"},
		{"lnbc1500n1pdjk2x3", "2x3"},
		{"0x52908400098527886E0F7030069857D2E4169EE7", "EE7"},
		{"été", "été"},
		{"ab€", "ab€"},
	}
	for _, tt := range tests {
		if got := SandboxSuffix(tt.in); got != tt.want {
			t.Errorf("SandboxSuffix(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
