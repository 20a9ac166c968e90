package walletauth

import (
	"strings"
	"testing"

	"paycore/internal/catalog"
)

func TestNewCredentialCheck(t *testing.T) {
	email, oauth, passkey, smoke := catalog.CredentialEmailOTP, catalog.CredentialOAuth, catalog.CredentialPasskey, catalog.CredentialType("SMOKE_SIGNAL")
	sms := catalog.CredentialSMSOTP
	for name, tc := range map[string]struct {
		n    NewCredential
		want want
	}{
		"no type":              {NewCredential{}, want{code: catalog.InvalidInput, field: "type", msg: "type is required"}},
		"unknown type":         {NewCredential{Type: &smoke}, want{code: catalog.InvalidInput, field: "type", msg: "type must be EMAIL_OTP, SMS_OTP, OAUTH or PASSKEY"}},
		"sms":                  {NewCredential{Type: &sms, PhoneNumber: ptr("+4915112345678")}, want{}},
		"sms without number":   {NewCredential{Type: &sms}, want{code: catalog.InvalidInput, field: "phoneNumber", msg: "phoneNumber is required"}},
		"sms, not E.164":       {NewCredential{Type: &sms, PhoneNumber: ptr("015112345678")}, want{code: catalog.InvalidInput, field: "phoneNumber", msg: "E.164"}},
		"sms with email":       {NewCredential{Type: &sms, PhoneNumber: ptr("+4915112345678"), Email: ptr("a@b.example")}, want{code: catalog.InvalidInput, msg: "SMS_OTP credentials take accountId and phoneNumber only"}},
		"email with number":    {NewCredential{Type: &email, PhoneNumber: ptr("+4915112345678")}, want{code: catalog.InvalidInput, msg: "EMAIL_OTP credentials take"}},
		"email":                {NewCredential{Type: &email, Email: ptr("a@b.example")}, want{}},
		"email, customer's":    {NewCredential{Type: &email}, want{}},
		"email with token":     {NewCredential{Type: &email, OidcToken: ptr("x")}, want{code: catalog.InvalidInput, msg: "EMAIL_OTP credentials take accountId and email only"}},
		"email with nickname":  {NewCredential{Type: &email, Nickname: ptr("x")}, want{code: catalog.InvalidInput, msg: "EMAIL_OTP credentials take"}},
		"oauth":                {NewCredential{Type: &oauth, OidcToken: ptr("a.b.c")}, want{}},
		"oauth without token":  {NewCredential{Type: &oauth}, want{code: catalog.InvalidInput, field: "oidcToken", msg: "oidcToken is required"}},
		"oauth with email":     {NewCredential{Type: &oauth, OidcToken: ptr("a.b.c"), Email: ptr("a@b.example")}, want{code: catalog.InvalidInput, msg: "OAUTH credentials take accountId and oidcToken only"}},
		"oauth with challenge": {NewCredential{Type: &oauth, OidcToken: ptr("a.b.c"), Challenge: ptr("c")}, want{code: catalog.InvalidInput, msg: "OAUTH credentials take"}},
		"passkey":              {NewCredential{Type: &passkey, Nickname: ptr("Phone"), Challenge: ptr("c"), Attestation: true}, want{}},
		"passkey with email":   {NewCredential{Type: &passkey, Nickname: ptr("Phone"), Email: ptr("a@b.example"), Attestation: true}, want{code: catalog.InvalidInput, msg: "PASSKEY credentials take accountId, nickname, challenge and attestation only"}},
		"passkey, no nickname": {NewCredential{Type: &passkey, Attestation: true}, want{code: catalog.InvalidInput, field: "nickname", msg: "nickname is required (1 to 64 characters)"}},
		"passkey, blank name":  {NewCredential{Type: &passkey, Nickname: ptr("  "), Attestation: true}, want{code: catalog.InvalidInput, field: "nickname"}},
		"passkey, long name":   {NewCredential{Type: &passkey, Nickname: ptr(strings.Repeat("n", 65)), Attestation: true}, want{code: catalog.InvalidInput, field: "nickname"}},
		"passkey, 64 chars":    {NewCredential{Type: &passkey, Nickname: ptr(strings.Repeat("n", 64)), Attestation: true}, want{}},
		"passkey, no attest.":  {NewCredential{Type: &passkey, Nickname: ptr("Phone")}, want{code: catalog.InvalidInput, field: "attestation", msg: "attestation is required"}},
	} {
		check(t, name, tc.n.Check(), tc.want)
	}
}

func TestCredentialEmail(t *testing.T) {
	for name, tc := range map[string]struct {
		given, customers *string
		out              string
		want             want
	}{
		"given":               {ptr("ana@example.com"), ptr("other@example.com"), "ana@example.com", want{}},
		"customer's":          {nil, ptr("cust@example.com"), "cust@example.com", want{}},
		"none":                {nil, nil, "", want{code: catalog.InvalidInput, field: "email", msg: "the account's customer has no e-mail address"}},
		"not an address":      {ptr("nope"), nil, "", want{code: catalog.InvalidInput, field: "email", msg: "email must be a plain e-mail address"}},
		"with a display name": {ptr("Ana <ana@example.com>"), nil, "", want{code: catalog.InvalidInput, field: "email"}},
	} {
		got, err := CredentialEmail(tc.given, tc.customers)
		check(t, name, err, tc.want)
		if got != tc.out {
			t.Fatalf("%s: %q, want %q", name, got, tc.out)
		}
	}
}

func TestOnePerAccount(t *testing.T) {
	has := []catalog.CredentialType{catalog.CredentialEmailOTP, catalog.CredentialOAuth, catalog.CredentialPasskey}
	check(t, "second EMAIL_OTP", CheckOnePerAccount(has, catalog.CredentialEmailOTP),
		want{code: catalog.EmailOTPCredentialExists, msg: "the account already has a EMAIL_OTP credential"})
	check(t, "second PASSKEY", CheckOnePerAccount(has, catalog.CredentialPasskey),
		want{code: catalog.PasskeyCredentialExists, msg: "the account already has a PASSKEY credential"})
	check(t, "second OAUTH", CheckOnePerAccount(has, catalog.CredentialOAuth), want{})
	check(t, "first EMAIL_OTP", CheckOnePerAccount([]catalog.CredentialType{catalog.CredentialPasskey}, catalog.CredentialEmailOTP), want{})
	if AddNeedsSignature(0) || !AddNeedsSignature(1) {
		t.Fatal("only credentials after the first need a signed retry")
	}
}

func TestCheckRevoke(t *testing.T) {
	check(t, "only one", CheckRevoke(1), want{code: catalog.InvalidInput, msg: "this is the account's only credential"})
	check(t, "two", CheckRevoke(2), want{})
}

func TestCheckChallenge(t *testing.T) {
	key := "04" + strings.Repeat("11", 64) // not on the curve
	for name, tc := range map[string]struct {
		typ  catalog.CredentialType
		key  *string
		want want
	}{
		"EMAIL_OTP":                 {catalog.CredentialEmailOTP, nil, want{}},
		"EMAIL_OTP, bad key":        {catalog.CredentialEmailOTP, &key, want{code: catalog.InvalidInput, field: "clientPublicKey"}},
		"OAUTH":                     {catalog.CredentialOAuth, nil, want{code: catalog.InvalidInput, msg: "OAUTH credentials need no challenge"}},
		"PASSKEY without key":       {catalog.CredentialPasskey, nil, want{code: catalog.InvalidInput, field: "clientPublicKey", msg: "required for PASSKEY challenges"}},
		"PASSKEY":                   {catalog.CredentialPasskey, ptr(testClientKey), want{}},
		"OAUTH with bad key (400s)": {catalog.CredentialOAuth, &key, want{code: catalog.InvalidInput, field: "clientPublicKey"}},
	} {
		check(t, name, CheckChallenge(tc.typ, tc.key), tc.want)
	}
}

func TestVerificationCheck(t *testing.T) {
	email, oauth, passkey, smoke := catalog.CredentialEmailOTP, catalog.CredentialOAuth, catalog.CredentialPasskey, catalog.CredentialType("X")
	for name, tc := range map[string]struct {
		v       Verification
		typ     catalog.CredentialType
		want    want
		wantKey bool
	}{
		"otp":                  {Verification{Otp: ptr("1"), ClientPublicKey: ptr(testClientKey)}, email, want{}, true},
		"otp, typed":           {Verification{Type: &email, Otp: ptr("1"), ClientPublicKey: ptr(testClientKey)}, email, want{}, true},
		"otp, other type":      {Verification{Type: &oauth, Otp: ptr("1"), ClientPublicKey: ptr(testClientKey)}, email, want{code: catalog.InvalidInput, field: "type", msg: "type is OAUTH but this credential is EMAIL_OTP"}, false},
		"unknown type":         {Verification{Type: &smoke}, email, want{code: catalog.InvalidInput, field: "type", msg: "(the credential's type, EMAIL_OTP)"}, false},
		"otp missing":          {Verification{ClientPublicKey: ptr(testClientKey)}, email, want{code: catalog.InvalidInput, field: "otp", msg: "otp is required"}, false},
		"key missing":          {Verification{Otp: ptr("1")}, email, want{code: catalog.InvalidInput, field: "clientPublicKey", msg: "clientPublicKey is required"}, false},
		"key malformed":        {Verification{Otp: ptr("1"), ClientPublicKey: ptr("04abc")}, email, want{code: catalog.InvalidInput, field: "clientPublicKey"}, false},
		"oauth":                {Verification{OidcToken: ptr("t"), ClientPublicKey: ptr(testClientKey)}, oauth, want{}, true},
		"oauth, token missing": {Verification{ClientPublicKey: ptr(testClientKey)}, oauth, want{code: catalog.InvalidInput, field: "oidcToken"}, false},
		"passkey":              {Verification{Assertion: true}, passkey, want{}, false},
		"passkey with key":     {Verification{Assertion: true, ClientPublicKey: ptr(testClientKey)}, passkey, want{code: catalog.InvalidInput, msg: "PASSKEY verification takes type and assertion only"}, false},
		"passkey, no assert.":  {Verification{}, passkey, want{code: catalog.InvalidInput, field: "assertion", msg: "assertion is required"}, false},
	} {
		key, err := tc.v.Check(tc.typ)
		check(t, name, err, tc.want)
		if (len(key) == 65) != tc.wantKey {
			t.Fatalf("%s: key %x", name, key)
		}
	}
}

func TestAccountRules(t *testing.T) {
	check(t, "wallet", CheckWalletAccount(catalog.EmbeddedWallet), want{})
	check(t, "fiat", CheckWalletAccount(catalog.InternalFiat), want{code: catalog.InvalidInput, field: "accountId", msg: "this account is INTERNAL_FIAT"})
	check(t, "export wallet", CheckExportable(catalog.EmbeddedWallet, true), want{})
	check(t, "export without key material", CheckExportable(catalog.EmbeddedWallet, false), want{code: catalog.InvalidInput, msg: "only EMBEDDED_WALLET"})
	check(t, "export fiat", CheckExportable(catalog.InternalFiat, true), want{code: catalog.InvalidInput, msg: "only EMBEDDED_WALLET"})
}
