package platformconfig

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"paycore/internal/catalog"
	"paycore/internal/problem"
)

func ptr[T any](v T) *T { return &v }

// usd is a valid currency patch; tweak changes it.
func usd(tweak func(*CurrencyPatch)) CurrencyPatch {
	c := CurrencyPatch{CurrencyCode: ptr("USD"), MinAmount: ptr[int64](1), MaxAmount: ptr[int64](10),
		EnabledTransactionTypes: &[]string{"INCOMING"}, RequiredCounterpartyFields: &[]CounterpartyField{}}
	if tweak != nil {
		tweak(&c)
	}
	return c
}

func currencies(cs ...CurrencyPatch) Patch { return Patch{SupportedCurrencies: &cs} }

func TestCheckPatchRefusals(t *testing.T) {
	raw := json.RawMessage(`"x"`)
	yes := true
	cases := map[string]struct {
		patch   Patch
		field   string
		message string
	}{
		"read-only id":         {Patch{ID: raw}, "id", "id is read-only"},
		"read-only createdAt":  {Patch{CreatedAt: raw}, "createdAt", "createdAt is read-only"},
		"read-only updatedAt":  {Patch{UpdatedAt: raw}, "updatedAt", "updatedAt is read-only"},
		"read-only disabledAt": {Patch{WebhookEndpointDisabledAt: raw}, "webhookEndpointDisabledAt", "webhookEndpointDisabledAt is read-only"},
		"read-only regulated":  {Patch{IsRegulatedFinancialInstitution: raw}, "isRegulatedFinancialInstitution", "only the service operator sets it"},
		"no currency code":     {currencies(usd(func(c *CurrencyPatch) { c.CurrencyCode = nil })), "supportedCurrencies[0].currencyCode", "is required"},
		"no min":               {currencies(usd(func(c *CurrencyPatch) { c.MinAmount = nil })), "supportedCurrencies[0].minAmount", "is required"},
		"no max":               {currencies(usd(func(c *CurrencyPatch) { c.MaxAmount = nil })), "supportedCurrencies[0].maxAmount", "is required"},
		"no types":             {currencies(usd(func(c *CurrencyPatch) { c.EnabledTransactionTypes = nil })), "supportedCurrencies[0].enabledTransactionTypes", "is required"},
		"no counterparty":      {currencies(usd(func(c *CurrencyPatch) { c.RequiredCounterpartyFields = nil })), "supportedCurrencies[0].requiredCounterpartyFields", "may be an empty array"},
		"unknown currency":     {currencies(usd(func(c *CurrencyPatch) { c.CurrencyCode = ptr("XYZ") })), "supportedCurrencies[0].currencyCode", `"XYZ" is not a supported`},
		"twice":                {currencies(usd(nil), usd(nil)), "supportedCurrencies[1].currencyCode", "currency USD is listed twice"},
		"negative":             {currencies(usd(func(c *CurrencyPatch) { c.MinAmount = ptr[int64](-1) })), "supportedCurrencies[0].minAmount", "must not be negative"},
		"min above max":        {currencies(usd(func(c *CurrencyPatch) { c.MinAmount = ptr[int64](11) })), "supportedCurrencies[0].minAmount", "(11) must not exceed maxAmount (10)"},
		"empty types":          {currencies(usd(func(c *CurrencyPatch) { c.EnabledTransactionTypes = &[]string{} })), "supportedCurrencies[0].enabledTransactionTypes", "must list INCOMING, OUTGOING or both"},
		"unknown type":         {currencies(usd(func(c *CurrencyPatch) { c.EnabledTransactionTypes = &[]string{"SIDEWAYS"} })), "supportedCurrencies[0].enabledTransactionTypes", `unknown transaction type "SIDEWAYS"`},
		"type twice":           {currencies(usd(func(c *CurrencyPatch) { c.EnabledTransactionTypes = &[]string{"INCOMING", "INCOMING"} })), "supportedCurrencies[0].enabledTransactionTypes", "lists INCOMING twice"},
		"unknown counterparty": {currencies(usd(func(c *CurrencyPatch) {
			c.RequiredCounterpartyFields = &[]CounterpartyField{{Name: "SHOE_SIZE", Mandatory: &yes}}
		})), "supportedCurrencies[0].requiredCounterpartyFields[0].name", `unknown field name "SHOE_SIZE"`},
		"counterparty no flag": {currencies(usd(func(c *CurrencyPatch) { c.RequiredCounterpartyFields = &[]CounterpartyField{{Name: "FULL_NAME"}} })), "supportedCurrencies[0].requiredCounterpartyFields[0].mandatory", "is required"},
		"counterparty twice": {currencies(usd(func(c *CurrencyPatch) {
			c.RequiredCounterpartyFields = &[]CounterpartyField{{"TAX_ID", &yes}, {"TAX_ID", &yes}}
		})), "supportedCurrencies[0].requiredCounterpartyFields", "lists TAX_ID twice"},
		"single-label domain":   {Patch{UmaDomain: ptr("localhost")}, "umaDomain", "umaDomain must be a fully qualified domain name"},
		"upper-case domain":     {Patch{UmaDomain: ptr("Pay.example.com")}, "umaDomain", `"Pay" is not a valid label`},
		"bad subdomain":         {Patch{ProxyUmaSubdomain: ptr("Has Spaces")}, "proxyUmaSubdomain", "must be a DNS label"},
		"empty app name":        {Patch{EmbeddedWalletConfig: &Wallet{AppName: ptr("")}}, "embeddedWalletConfig.appName", "1 to 255 characters"},
		"short otp":             {Patch{EmbeddedWalletConfig: &Wallet{OtpLength: ptr(3)}}, "embeddedWalletConfig.otpLength", "too easy to guess"},
		"long expiration":       {Patch{EmbeddedWalletConfig: &Wallet{ExpirationSeconds: ptr(86401)}}, "embeddedWalletConfig.expirationSeconds", "from 1 to 86400"},
		"bad sender":            {Patch{EmbeddedWalletConfig: &Wallet{SendFromEmailAddress: ptr("Ana <ana@example.com>")}}, "embeddedWalletConfig.sendFromEmailAddress", "plain e-mail address"},
		"bad reply-to":          {Patch{EmbeddedWalletConfig: &Wallet{ReplyToEmailAddress: ptr("nope")}}, "embeddedWalletConfig.replyToEmailAddress", "plain e-mail address"},
		"long sender name":      {Patch{EmbeddedWalletConfig: &Wallet{SendFromEmailSenderName: ptr(strings.Repeat("a", 256))}}, "embeddedWalletConfig.sendFromEmailSenderName", "at most 255"},
		"short session":         {Patch{EmbeddedWalletConfig: &Wallet{SessionExpirationSeconds: ptr(59)}}, "embeddedWalletConfig.sessionExpirationSeconds", "from 60 to 86400"},
		"bad rp id":             {Patch{EmbeddedWalletConfig: &Wallet{PasskeyRpID: ptr("wallet")}}, "embeddedWalletConfig.passkeyRpId", "must be a domain"},
		"no origins":            {Patch{EmbeddedWalletConfig: &Wallet{PasskeyOrigins: &[]string{}}}, "embeddedWalletConfig.passkeyOrigins", "1 to 10 origins"},
		"origin with path":      {Patch{EmbeddedWalletConfig: &Wallet{PasskeyOrigins: &[]string{"https://wallet.example.com/app"}}}, "embeddedWalletConfig.passkeyOrigins", "must hold origins"},
		"script logo":           {Patch{EmbeddedWalletConfig: &Wallet{LogoURL: ptr("javascript:alert(1)")}}, "embeddedWalletConfig.logoUrl", "absolute http(s) URL"},
		"read-only before rest": {Patch{ID: raw, UmaDomain: ptr("localhost")}, "id", "id is read-only"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := CheckPatch(tc.patch)
			var fe *problem.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a field error", err)
			}
			if fe.Field != tc.field || fe.Code != catalog.InvalidInput || !strings.Contains(fe.Message, tc.message) {
				t.Fatalf("got %s %q (%s), want %s containing %q", fe.Field, fe.Message, fe.Code, tc.field, tc.message)
			}
		})
	}
}

func TestCheckPatchAccepts(t *testing.T) {
	rp, localhost := "wallet.example.com", "localhost"
	for name, p := range map[string]Patch{
		"nothing":            {},
		"provider fields":    currencies(usd(func(c *CurrencyPatch) { c.ProviderRequiredCustomerFields = json.RawMessage(`["FULL_NAME"]`) })),
		"empty subdomain":    {ProxyUmaSubdomain: ptr("")},
		"domain":             {UmaDomain: ptr("pay.example.com")},
		"wallet":             {EmbeddedWalletConfig: &Wallet{OtpLength: ptr(6), PasskeyRpID: &rp, PasskeyOrigins: &[]string{"https://wallet.example.com"}}},
		"localhost rp":       {EmbeddedWalletConfig: &Wallet{PasskeyRpID: &localhost}},
		"endpoint unchecked": {WebhookEndpoint: ptr("ftp://checked.elsewhere")},
	} {
		if _, err := CheckPatch(p); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	ch, err := CheckPatch(currencies(usd(nil)))
	if err != nil {
		t.Fatal(err)
	}
	want := Currencies{{CurrencyCode: "USD", MinAmount: 1, MaxAmount: 10, EnabledTransactionTypes: []string{"INCOMING"}, RequiredCounterpartyFields: []CounterpartyField{}}}
	if !reflect.DeepEqual(ch.Currencies, want) {
		t.Fatalf("currencies %+v, want %+v", ch.Currencies, want)
	}
	if ch, _ := CheckPatch(Patch{}); ch.Currencies != nil || ch.Wallet != nil {
		t.Fatalf("an empty patch changes %+v", ch)
	}
}

func TestApplyWallet(t *testing.T) {
	stored := &Wallet{AppName: ptr("Old"), OtpLength: ptr(6)}
	if got := (Change{}).ApplyWallet(stored); got != stored {
		t.Fatalf("no wallet change replaced the stored config: %+v", got)
	}
	got := Change{Wallet: &Wallet{OtpLength: ptr(8), LogoURL: ptr("https://x.example/logo.png")}}.ApplyWallet(stored)
	if *got.AppName != "Old" || *got.OtpLength != 8 || *got.LogoURL != "https://x.example/logo.png" {
		t.Fatalf("merged %+v", got)
	}
	if *stored.OtpLength != 6 {
		t.Fatal("the stored config was modified")
	}
	if got := (Change{Wallet: &Wallet{AppName: ptr("New")}}).ApplyWallet(nil); got == nil || *got.AppName != "New" {
		t.Fatalf("first wallet config %+v", got)
	}
}

func TestApplyWebhook(t *testing.T) {
	disabled := time.Unix(1, 0)
	cases := []struct {
		name     string
		change   *string
		cur      Webhook
		want     Webhook
		announce bool
	}{
		{"untouched", nil, Webhook{Endpoint: "https://a", DisabledAt: &disabled}, Webhook{Endpoint: "https://a", DisabledAt: &disabled}, false},
		{"new endpoint", ptr("https://b"), Webhook{Endpoint: "https://a"}, Webhook{Endpoint: "https://b"}, true},
		{"same endpoint", ptr("https://a"), Webhook{Endpoint: "https://a"}, Webhook{Endpoint: "https://a"}, false},
		{"re-enabled", ptr("https://a"), Webhook{Endpoint: "https://a", DisabledAt: &disabled}, Webhook{Endpoint: "https://a"}, true},
		{"removed", ptr(""), Webhook{Endpoint: "https://a"}, Webhook{}, false},
	}
	for _, tc := range cases {
		got, announce := Change{WebhookEndpoint: tc.change}.ApplyWebhook(tc.cur)
		if !reflect.DeepEqual(got, tc.want) || announce != tc.announce {
			t.Errorf("%s: %+v %v, want %+v %v", tc.name, got, announce, tc.want, tc.announce)
		}
	}
}

func TestWebhookChecks(t *testing.T) {
	disabled := time.Unix(1, 0)
	for _, tc := range []struct {
		w            Webhook
		set, enabled bool
	}{{Webhook{}, false, false}, {Webhook{Endpoint: "https://a"}, true, true}, {Webhook{Endpoint: "https://a", DisabledAt: &disabled}, true, false}} {
		if err := tc.w.CheckSet(); (err == nil) != tc.set || (err != nil && problem.CodeOf(err) != catalog.WebhookEndpointNotSet) {
			t.Errorf("%+v CheckSet: %v", tc.w, err)
		}
		if err := tc.w.CheckEnabled(); (err == nil) != tc.enabled || (err != nil && problem.CodeOf(err) != catalog.WebhookEndpointNotSet) {
			t.Errorf("%+v CheckEnabled: %v", tc.w, err)
		}
	}
}
