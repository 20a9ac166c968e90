package cursor

import (
	"encoding/base64"
	"testing"
)

type pos struct {
	ID   string `json:"id"`
	Name string `json:"n"`
}

func TestRoundTrip(t *testing.T) {
	c := Encode("tokens", pos{ID: "x", Name: "y"})
	var got pos
	if err := Decode("tokens", c, &got); err != nil || got.ID != "x" || got.Name != "y" {
		t.Fatalf("Decode = %+v, %v", got, err)
	}
	if err := Decode("events", c, &got); err == nil {
		t.Fatal("cursor accepted by another list")
	}
	for _, bad := range []string{"", "!!!", "e30", "bm90IGpzb24"} {
		if err := Decode("tokens", bad, &got); err == nil {
			t.Errorf("Decode(%q) accepted", bad)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(Encode("tokens", pos{ID: "a"}))
	f.Add("garbage")
	f.Fuzz(func(t *testing.T, s string) {
		var p pos
		_ = Decode("tokens", s, &p)
	})
}

func TestPageTotal(t *testing.T) {
	c := EncodePage("tokens", pos{ID: "x"}, 42)
	var got pos
	total, err := DecodePage("tokens", c, &got)
	if err != nil || total == nil || *total != 42 || got.ID != "x" {
		t.Fatalf("DecodePage = %+v, %v, %v", got, total, err)
	}
	if total, err := DecodePage("tokens", Encode("tokens", pos{ID: "x"}), &got); err != nil || total != nil {
		t.Fatalf("a cursor without a total: %v, %v", total, err)
	}
	if _, err := DecodePage("events", c, &got); err == nil {
		t.Fatal("cursor accepted by another list")
	}
	if _, err := DecodePage("tokens", EncodePage("tokens", pos{ID: "x"}, -1), &got); err == nil {
		t.Fatal("negative total accepted")
	}
}

// A cursor is only what Encode writes: a position with a NUL character, an unknown member
// or text that decoding would repair is refused.
func TestRefusesWhatEncodeNeverWrites(t *testing.T) {
	var got pos
	for _, raw := range []string{
		`{"l":"tokens","p":{"id":"a\u0000","n":"y"}}`,
		`{"l":"tokens","p":{"id":"x","n":"y","z":1}}`,
		"{\"l\":\"tokens\",\"p\":{\"id\":\"\xff\",\"n\":\"y\"}}",
		`{"l":"tokens","p":{"n":"y","id":"x"}}`,
		`{"l":"tokens","p":{"id":"x","n":"y"},"x":1}`,
	} {
		if err := Decode("tokens", base64.RawURLEncoding.EncodeToString([]byte(raw)), &got); err == nil {
			t.Errorf("Decode(%s) accepted", raw)
		}
	}
}
