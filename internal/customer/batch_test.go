package customer

import (
	"fmt"
	"testing"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/problem"
	"paycore/internal/problem/problemtest"
)

// A batch is judged in its order, as if its customers were opened one at a time: a stored
// customer or an earlier entry holding the platformCustomerId (on the platform) or the
// umaAddress (anywhere, any case) refuses an entry, its own id means it exists already,
// and a refused entry holds nothing for the entries after it.
func TestAdmit(t *testing.T) {
	platform, other := uuid.New(), uuid.New()
	rec := func(pcid, uma string) Record {
		return Record{ID: uuid.New(), PlatformCustomerID: pcid, UmaAddress: uma}
	}
	storedHere := Identifiers{ID: uuid.New(), PlatformID: platform, PlatformCustomerID: "taken", UmaAddress: "$taken@pay.example"}
	storedElsewhere := Identifiers{ID: uuid.New(), PlatformID: other, PlatformCustomerID: "c-2", UmaAddress: "$far@pay.example"}
	again := rec("c-9", "$again@pay.example")
	openedBefore := Identifiers{ID: again.ID, PlatformID: platform, PlatformCustomerID: again.PlatformCustomerID, UmaAddress: again.UmaAddress}
	batch := []Record{
		rec("c-1", "$one@pay.example"),     // 0 opens
		rec("c-2", "$two@pay.example"),     // 1 opens: c-2 is another platform's
		rec("taken", "$three@pay.example"), // 2 a stored customer's platformCustomerId
		rec("c-4", "$TAKEN@pay.example"),   // 3 a stored customer's umaAddress, another case
		rec("c-1", "$five@pay.example"),    // 4 entry 0's platformCustomerId
		rec("c-6", "$One@pay.example"),     // 5 entry 0's umaAddress
		rec("c-7", "$three@pay.example"),   // 6 entry 2's umaAddress: entry 2 was refused, so it opens
		rec("c-7", "$seven@pay.example"),   // 7 entry 6's platformCustomerId
		rec("taken", "$one@pay.example"),   // 8 the platformCustomerId before the umaAddress
		again,                              // 9 its own id: opened before
		rec("c-10", "$far@pay.example"),    // 10 another platform's customer's umaAddress
	}
	holders := []Identifiers{storedElsewhere, storedHere, openedBefore}
	got := Admit(platform, batch, holders)
	entry := func(i int) Identifiers {
		return Identifiers{ID: batch[i].ID, PlatformID: platform, PlatformCustomerID: batch[i].PlatformCustomerID, UmaAddress: batch[i].UmaAddress}
	}
	want := []Verdict{
		{}, {},
		{Clash: &Clash{Holder: storedHere, Identifier: PlatformCustomerIDHeld}},
		{Clash: &Clash{Holder: storedHere, Identifier: UmaAddressHeld}},
		{Clash: &Clash{Holder: entry(0), Identifier: PlatformCustomerIDHeld}},
		{Clash: &Clash{Holder: entry(0), Identifier: UmaAddressHeld}},
		{},
		{Clash: &Clash{Holder: entry(6), Identifier: PlatformCustomerIDHeld}},
		{Clash: &Clash{Holder: storedHere, Identifier: PlatformCustomerIDHeld}},
		{Exists: true},
		{Clash: &Clash{Holder: storedElsewhere, Identifier: UmaAddressHeld}},
	}
	if len(got) != len(want) {
		t.Fatalf("%d verdicts for %d entries", len(got), len(batch))
	}
	for i := range want {
		if describe(got[i]) != describe(want[i]) {
			t.Errorf("entry %d: %s, want %s", i, describe(got[i]), describe(want[i]))
		}
	}
	for i, v := range got {
		if v.Opens() != (i == 0 || i == 1 || i == 6) {
			t.Errorf("entry %d opens: %t", i, v.Opens())
		}
	}
}

func describe(v Verdict) string {
	switch {
	case v.Exists:
		return "exists"
	case v.Clash != nil:
		return fmt.Sprintf("clash on %s with %+v", v.Clash.Identifier, v.Clash.Holder)
	}
	return "opens"
}

// The clash of POST /customers is its 409 refusal, as a constraint violation answered it.
func TestClashErr(t *testing.T) {
	problemtest.Check(t,
		problemtest.Case{Name: "platformCustomerId", Err: Clash{Identifier: PlatformCustomerIDHeld}.Err(),
			Want: problem.Wire{Code: catalog.PlatformCustomerIDExists, Message: "another customer of the platform already has this platformCustomerId"}},
		problemtest.Case{Name: "umaAddress", Err: Clash{Identifier: UmaAddressHeld}.Err(),
			Want: problem.Wire{Code: catalog.UmaAddressExists, Message: "another customer already has this umaAddress (addresses are unique on the deployment, a deleted customer's included)"}},
	)
}
