package events

import "testing"

// Every event type has a meaning, so the reference page's catalogue (built from
// Catalogue) describes each; an unknown type has none.
func TestCatalogueDescribesEveryType(t *testing.T) {
	c := Catalogue()
	if len(c) != len(Types) {
		t.Fatalf("%d entries for %d types", len(c), len(Types))
	}
	seen := map[string]bool{}
	for i, d := range c {
		if d.Type != Types[i] || d.Meaning == "" {
			t.Errorf("entry %d: %+v", i, d)
		}
		if seen[d.Type] {
			t.Errorf("%s listed twice", d.Type)
		}
		seen[d.Type] = true
	}
	if Meaning("NO_SUCH_EVENT") != "" {
		t.Error("an unknown type has a meaning")
	}
}
