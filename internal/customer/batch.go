package customer

import (
	"strings"

	"github.com/google/uuid"
)

// Identifiers are a customer by what a new customer may not share with it: its id, its
// platformCustomerId (unique on its platform) and its umaAddress (unique on the
// deployment, without regard to case, a deleted customer's included).
type Identifiers struct {
	ID                 uuid.UUID
	PlatformID         uuid.UUID
	PlatformCustomerID string
	UmaAddress         string
}

// Identifier names the identifier of a new customer another customer holds.
type Identifier string

// The identifiers a new customer may find taken, named as the request names them.
const (
	PlatformCustomerIDHeld Identifier = "platformCustomerId"
	UmaAddressHeld         Identifier = "umaAddress"
)

// Clash is why a new customer cannot be opened: Holder already has its Identifier.
type Clash struct {
	Holder     Identifiers
	Identifier Identifier
}

// Err is the refusal of POST /customers for the clash: PLATFORM_CUSTOMER_ID_EXISTS
// (PlatformCustomerIDTaken) or UMA_ADDRESS_EXISTS (UmaAddressTaken).
func (c Clash) Err() error {
	if c.Identifier == PlatformCustomerIDHeld {
		return PlatformCustomerIDTaken()
	}
	return UmaAddressTaken()
}

// Verdict is the decision on one new customer of a batch (Admit).
type Verdict struct {
	// Exists is true when the new customer's own id is taken: the customer was opened
	// before (an earlier run of the same batch) and is not opened again.
	Exists bool
	// Clash, when not nil, refuses the new customer.
	Clash *Clash
}

// Opens reports whether the new customer is to be opened.
func (v Verdict) Opens() bool { return !v.Exists && v.Clash == nil }

// Refused reports whether a clash refuses the new customer.
func (v Verdict) Refused() bool { return v.Clash != nil }

// Admit decides which new customers of a batch of platform platformID are opened, holders
// being the stored customers that hold one of the batch's identifiers (its ids, its
// platformCustomerIds on the platform, its umaAddresses on the deployment). The batch is
// judged in its order, so it opens exactly what opening its customers one at a time
// would: a customer whose id is held exists already (Verdict.Exists); one whose
// platformCustomerId a customer of the platform holds, or else whose umaAddress (without
// regard to case) any customer holds, is refused with that customer (Verdict.Clash), a
// stored one or one opened by an earlier entry of the batch; every other one is opened,
// and holds its identifiers for the entries after it.
func Admit(platformID uuid.UUID, batch []Record, holders []Identifiers) []Verdict {
	h := newHeld(len(batch) + len(holders))
	for _, c := range holders {
		h.add(c)
	}
	out := make([]Verdict, len(batch))
	for i, r := range batch {
		want := Identifiers{ID: r.ID, PlatformID: platformID, PlatformCustomerID: r.PlatformCustomerID, UmaAddress: r.UmaAddress}
		out[i] = h.judge(want)
		if out[i].Opens() {
			h.add(want)
		}
	}
	return out
}

// held indexes the customers holding identifiers, by each identifier.
type held struct {
	byID   map[uuid.UUID]Identifiers
	byPCID map[platformCustomerID]Identifiers
	byUma  map[string]Identifiers
}

// platformCustomerID is a platformCustomerId on its platform.
type platformCustomerID struct {
	platformID uuid.UUID
	id         string
}

func newHeld(n int) *held {
	return &held{byID: make(map[uuid.UUID]Identifiers, n), byPCID: make(map[platformCustomerID]Identifiers, n),
		byUma: make(map[string]Identifiers, n)}
}

func (h *held) add(c Identifiers) {
	h.byID[c.ID] = c
	h.byPCID[platformCustomerID{c.PlatformID, c.PlatformCustomerID}] = c
	h.byUma[strings.ToLower(c.UmaAddress)] = c
}

// judge decides on want: its own id first, then its platformCustomerId, then its
// umaAddress.
func (h *held) judge(want Identifiers) Verdict {
	if _, ok := h.byID[want.ID]; ok {
		return Verdict{Exists: true}
	}
	if c, ok := h.byPCID[platformCustomerID{want.PlatformID, want.PlatformCustomerID}]; ok {
		return Verdict{Clash: &Clash{Holder: c, Identifier: PlatformCustomerIDHeld}}
	}
	if c, ok := h.byUma[strings.ToLower(want.UmaAddress)]; ok {
		return Verdict{Clash: &Clash{Holder: c, Identifier: UmaAddressHeld}}
	}
	return Verdict{}
}
