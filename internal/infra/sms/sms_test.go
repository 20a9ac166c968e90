package sms

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
)

// The gateway gets the number and the body as JSON with the bearer token; a non-2xx answer
// is a failure.
func TestGateway(t *testing.T) {
	var got map[string]string
	var auth string
	status := http.StatusAccepted
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = r.Header.Get("Authorization")
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &got)
		w.WriteHeader(status)
	}))
	defer srv.Close()
	g := Gateway{URL: srv.URL, Token: "tok", Client: srv.Client()}
	if err := g.Send(context.Background(), Message{To: "+14155550123", Body: "code 123456"}); err != nil {
		t.Fatal(err)
	}
	if got["to"] != "+14155550123" || got["body"] != "code 123456" || auth != "Bearer tok" {
		t.Fatalf("%v %q", got, auth)
	}
	status = http.StatusBadGateway
	if err := g.Send(context.Background(), Message{To: "+14155550123", Body: "x"}); err == nil {
		t.Fatal("a 502 was taken for sent")
	}
}

// The sink keeps sandbox messages only, and refuses production ones.
func TestSink(t *testing.T) {
	s := NewSink(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err := s.Send(context.Background(), Message{To: "+1", Body: "a", Sandbox: true}); err != nil {
		t.Fatal(err)
	}
	if err := s.Send(context.Background(), Message{To: "+2", Body: "b"}); !errors.Is(err, ErrNoTransport) {
		t.Fatal(err)
	}
	if m := s.SandboxMessages(); len(m) != 1 || m[0].Body != "a" || m[0].SentAt.IsZero() {
		t.Fatal(m)
	}
}
