package strictjson

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

type ref struct {
	AccountID *string `json:"accountId"`
}

type body struct {
	Source      *ref            `json:"source"`
	Amount      *int64          `json:"amount"`
	Description *string         `json:"description" blank:"ok"`
	Currencies  []string        `json:"currencies"`
	Info        json.RawMessage `json:"info"`
	Flag        *bool           `json:"flag"`
}

func TestDecodeRefuses(t *testing.T) {
	cases := []struct {
		name, in, field, msg string
	}{
		{"empty", ``, "", "required"},
		{"malformed", `{"amount": 5,`, "", "malformed JSON"},
		{"two values", `{} {}`, "", "exactly one JSON value"},
		{"not an object", `"hello"`, "", "must be an object"},
		{"null body", ` null `, "", "must be a JSON object, not null"},
		{"case folded name", `{"AMOUNT": 5}`, "AMOUNT", `unknown field "AMOUNT"`},
		{"unknown field", `{"amount": 5, "extra": 1}`, "extra", `unknown field "extra"`},
		{"duplicate", `{"amount": 5, "amount": 6}`, "amount", `duplicate field "amount"`},
		{"nested duplicate", `{"source": {"accountId": "a", "accountId": "b"}}`, "source.accountId", "duplicate"},
		{"nul value", `{"source": {"accountId": "a\u0000b"}}`, "source.accountId", "NUL"},
		{"nul in array", `{"currencies": ["USD", "E\u0000"]}`, "currencies[1]", "NUL"},
		{"nul in name", `{"source": {"a\u0000": 1}}`, "source", "NUL"},
		{"nul in raw", `{"info": {"x": "\u0000"}}`, "info.x", "NUL"},
		{"invalid utf8", "{\"description\": \"\xff\xfe\"}", "description", "invalid UTF-8"},
		{"wrong type", `{"amount": "5"}`, "amount", "must be an integer"},
		{"float for int", `{"amount": 5.5}`, "amount", "integer"},
		{"overflow", `{"amount": 99999999999999999999}`, "amount", "integer"},
		{"wrong nested type", `{"source": []}`, "source", "must be an object"},
		{"blank", `{"source": {"accountId": "   "}}`, "source.accountId", "must not be blank"},
		{"empty string", `{"currencies": [""]}`, "currencies[0]", "must not be blank"},
		{"bool as string", `{"flag": "true"}`, "flag", "must be a boolean"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var b body
			err := Decode([]byte(tc.in), &b)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Decode(%s) = %v, want an *Error", tc.in, err)
			}
			if e.Field != tc.field || !strings.Contains(e.Message, tc.msg) {
				t.Fatalf("Decode(%s) = field %q message %q; want field %q message containing %q", tc.in, e.Field, e.Message, tc.field, tc.msg)
			}
			if strings.Contains(e.Message, "jsontext") || strings.Contains(e.Message, "json:") {
				t.Fatalf("message leaks library text: %q", e.Message)
			}
		})
	}
}

func TestDecodeAccepts(t *testing.T) {
	var b body
	in := `{"source": {"accountId": "InternalAccount:1"}, "amount": 500, "description": "", "currencies": ["USD"], "info": {"k": "v"}, "flag": false}`
	if err := Decode([]byte(in), &b); err != nil {
		t.Fatal(err)
	}
	if *b.Source.AccountID != "InternalAccount:1" || *b.Amount != 500 || *b.Description != "" || b.Currencies[0] != "USD" || string(b.Info) != `{"k": "v"}` || *b.Flag {
		t.Fatalf("decoded %+v", b)
	}
}

func TestValidText(t *testing.T) {
	for s, want := range map[string]bool{"abc": true, "é": true, "a\x00": false, "\xff": false, "": true} {
		if ValidText(s) != want {
			t.Errorf("ValidText(%q) = %v", s, !want)
		}
	}
}

// FuzzDecode: arbitrary bytes never panic; whatever is accepted holds no NUL and only
// declared fields.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{}`, `{"amount":1}`, `{"source":{"accountId":"x"}}`, `{"currencies":["a","b"]}`, `{"AMOUNT":1}`, "{\"description\":\"\xff\"}", `{"a":1,"a":2}`, `[`, `{"info":{"\u0000":1}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var b body
		if err := Decode(data, &b); err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if b.Source != nil && b.Source.AccountID != nil && !ValidText(*b.Source.AccountID) {
			t.Fatalf("accepted invalid text %q", *b.Source.AccountID)
		}
		if strings.ContainsRune(string(b.Info), 0) {
			t.Fatalf("accepted NUL in raw member")
		}
	})
}

// A member decoded in a second step is named by its full path, in the field and in the
// message.
func TestDecodeAtNamesTheFullPath(t *testing.T) {
	cases := map[string]string{
		`{"accountId": "a\u0000"}`:          "assertion.accountId",
		`{"accountId": 5}`:                  "assertion.accountId",
		`{"accountId": " "}`:                "assertion.accountId",
		`{"accountId": "a", "x": 1}`:        "assertion.x",
		`[]`:                                "assertion",
		`{"accountId":"a","accountId":"b"}`: "assertion.accountId",
	}
	for in, field := range cases {
		var r ref
		var e *Error
		if err := DecodeAt("assertion", []byte(in), &r); !errors.As(err, &e) || e.Field != field {
			t.Errorf("DecodeAt(%s) = %v, want field %s", in, err, field)
			continue
		}
		if !strings.Contains(e.Message, field) && !strings.Contains(e.Message, strings.TrimPrefix(field, "assertion.")) {
			t.Errorf("DecodeAt(%s): message %q does not name %s", in, e.Message, field)
		}
	}
}
