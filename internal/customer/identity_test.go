package customer

import (
	"testing"
	"time"

	"paycore/internal/catalog"
)

func TestIdentityChanged(t *testing.T) {
	born := time.Date(1990, 5, 17, 0, 0, 0, 0, time.UTC)
	home := &Address{Line1: "1 Main St", PostalCode: "94105", Country: "US", City: ptr("SF")}
	ana := Record{Type: catalog.Individual, KycStatus: catalog.KycApproved, FullName: ptr("Ana García"), BirthDate: &born,
		Nationality: ptr("US"), Address: home, Email: ptr("ana@example.com"), UmaAddress: "$ana@pay.example", Currencies: []string{"USD"}}
	acme := Record{Type: catalog.Business, KycStatus: catalog.KycApproved, Address: home, BusinessInfo: &BusinessInfo{
		LegalName: "Acme Inc", RegistrationNumber: ptr("R-1"), Country: ptr("US"), IncorporatedOn: ptr("2001-02-03"),
		EntityType: ptr("LLC"), TaxID: ptr("12-3456789"), DoingBusinessAs: ptr("Acme"), PurposeOfAccount: ptr("OTHER")}}
	with := func(r Record, f func(*Record)) Record {
		if r.BusinessInfo != nil {
			b := *r.BusinessInfo
			r.BusinessInfo = &b
		}
		f(&r)
		return r
	}
	biz := func(f func(*BusinessInfo)) Record { return with(acme, func(r *Record) { f(r.BusinessInfo) }) }
	for _, tc := range []struct {
		name      string
		cur, next Record
		changed   bool
	}{
		{"nothing", ana, ana, false},
		{"same values in new pointers", ana, with(ana, func(r *Record) {
			same := born.In(time.FixedZone("x", 3600))
			r.FullName, r.Nationality, r.BirthDate = ptr("Ana García"), ptr("US"), &same
			a := *home
			r.Address = &a
		}), false},
		{"e-mail", ana, with(ana, func(r *Record) { r.Email = ptr("ana@new.example") }), false},
		{"UMA address", ana, with(ana, func(r *Record) { r.UmaAddress = "$x@pay.example" }), false},
		{"currencies", ana, with(ana, func(r *Record) { r.Currencies = []string{"USD", "EUR"} }), false},
		{"full name", ana, with(ana, func(r *Record) { r.FullName = ptr("Mallory") }), true},
		{"full name set", with(ana, func(r *Record) { r.FullName = nil }), ana, true},
		{"birth date", ana, with(ana, func(r *Record) { d := born.AddDate(0, 0, 1); r.BirthDate = &d }), true},
		{"nationality", ana, with(ana, func(r *Record) { r.Nationality = ptr("MX") }), true},
		{"address line", ana, with(ana, func(r *Record) {
			r.Address = &Address{Line1: "2 Main St", PostalCode: "94105", Country: "US", City: ptr("SF")}
		}), true},
		{"address city", ana, with(ana, func(r *Record) { r.Address = &Address{Line1: "1 Main St", PostalCode: "94105", Country: "US"} }), true},
		{"business: trade name and profile", acme, biz(func(b *BusinessInfo) { b.DoingBusinessAs, b.PurposeOfAccount = ptr("Acme2"), ptr("P2P_TRANSFERS") }), false},
		{"business: e-mail", acme, with(acme, func(r *Record) { r.Email = ptr("ops@acme.example") }), false},
		{"business: legal name", acme, biz(func(b *BusinessInfo) { b.LegalName = "Other Corp" }), true},
		{"business: registration number", acme, biz(func(b *BusinessInfo) { b.RegistrationNumber = ptr("R-2") }), true},
		{"business: country", acme, biz(func(b *BusinessInfo) { b.Country = ptr("MX") }), true},
		{"business: incorporation date", acme, biz(func(b *BusinessInfo) { b.IncorporatedOn = ptr("2001-02-04") }), true},
		{"business: entity type", acme, biz(func(b *BusinessInfo) { b.EntityType = ptr("CORPORATION") }), true},
		{"business: tax id", acme, biz(func(b *BusinessInfo) { b.TaxID = nil }), true},
		{"business: registered address", acme, with(acme, func(r *Record) { r.Address = nil }), true},
	} {
		if got := IdentityChanged(tc.cur, tc.next); got != tc.changed {
			t.Errorf("%s: IdentityChanged = %v, want %v", tc.name, got, tc.changed)
		}
	}
}

func TestReverification(t *testing.T) {
	rec := func(status catalog.KycStatus, name string) Record {
		return Record{Type: catalog.Individual, KycStatus: status, FullName: ptr(name)}
	}
	for _, tc := range []struct {
		name      string
		cur, next Record
		want      catalog.KycStatus
		reverify  bool
	}{
		{"approved, identity kept", rec(catalog.KycApproved, "Ana"), rec(catalog.KycApproved, "Ana"), catalog.KycApproved, false},
		{"approved, identity changed", rec(catalog.KycApproved, "Ana"), rec(catalog.KycApproved, "Mallory"), catalog.KycPending, true},
		{"approved, identity changed, another status asked", rec(catalog.KycApproved, "Ana"), rec(catalog.KycRejected, "Mallory"), catalog.KycRejected, false},
		{"not yet approved, identity changed", rec(catalog.KycUnverified, "Ana"), rec(catalog.KycUnverified, "Mallory"), catalog.KycUnverified, false},
		{"pending, attested with the new identity", rec(catalog.KycPending, "Ana"), rec(catalog.KycApproved, "Mallory"), catalog.KycApproved, false},
	} {
		got, again := Reverification(tc.cur, tc.next)
		if got != tc.want || again != tc.reverify {
			t.Errorf("%s: Reverification = %s %v, want %s %v", tc.name, got, again, tc.want, tc.reverify)
		}
	}
}
