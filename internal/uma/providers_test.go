package uma

import (
	"errors"
	"os"
	"testing"
)

// The operator's provider list: the example list parses; each field that cannot be listed
// is refused with what is wrong, and a domain listed twice.
func TestParseProviders(t *testing.T) {
	b, err := os.ReadFile("../../api/testdata/uma-providers.json")
	if err != nil {
		t.Fatal(err)
	}
	list, err := ParseProviders(b)
	if err != nil || len(list) != 24 || list[0].Domain != "aurorapay.example" {
		t.Fatalf("%d providers, %v", len(list), err)
	}
	for name, in := range map[string]string{
		"not an array":     `{"name":"A","domain":"a.example"}`,
		"no name":          `[{"domain":"a.example"}]`,
		"not a domain":     `[{"name":"A","domain":"a example"}]`,
		"an http logo":     `[{"name":"A","domain":"a.example","logoUrl":"http://a.example/l.png"}]`,
		"a region":         `[{"name":"A","domain":"a.example","supportedRegions":["XX"]}]`,
		"a currency":       `[{"name":"A","domain":"a.example","supportedCurrencies":["ZZZ"]}]`,
		"a short LEI":      `[{"name":"A","domain":"a.example","lei":"549300"}]`,
		"an unknown field": `[{"name":"A","domain":"a.example","fee":1}]`,
		"twice":            `[{"name":"A","domain":"a.example"},{"name":"B","domain":"A.example"}]`,
	} {
		if _, err := ParseProviders([]byte(in)); !errors.Is(err, ErrInvalidProviders) {
			t.Errorf("%s: %v", name, err)
		}
	}
	ok, err := ParseProviders([]byte(`[{"name":"A","domain":"Pay.A.example"}]`))
	if err != nil || ok[0].Domain != "pay.a.example" || ok[0].SupportedRegions == nil || ok[0].AllowListStatus {
		t.Errorf("a minimal provider: %+v %v", ok, err)
	}
}
