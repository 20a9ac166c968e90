package ids

import (
	"encoding/json"
	"testing"
)

func TestOptionalJSON(t *testing.T) {
	id := New()
	for _, tc := range []struct {
		in   Optional
		want string
	}{{Some(id), `"` + id.String() + `"`}, {Optional{}, `""`}} {
		b, err := json.Marshal(tc.in)
		if err != nil || string(b) != tc.want {
			t.Fatalf("marshal %+v: %s %v", tc.in, b, err)
		}
		var back Optional
		if err := json.Unmarshal(b, &back); err != nil || back != tc.in {
			t.Fatalf("unmarshal %s: %+v %v", b, back, err)
		}
	}
	var o Optional
	if err := json.Unmarshal([]byte(`"not-a-uuid"`), &o); err == nil {
		t.Fatal("a malformed uuid decoded")
	}
}
