package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestHealthcheck(t *testing.T) {
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(status) }))
	defer srv.Close()
	if err := run([]string{"healthcheck", srv.URL + "/readyz"}, io.Discard); err != nil {
		t.Fatalf("a 200 answer: %v", err)
	}
	status = http.StatusServiceUnavailable
	if err := run([]string{"healthcheck", srv.URL + "/readyz"}, io.Discard); err == nil {
		t.Fatal("a 503 answer passed the healthcheck")
	}
	srv.Close()
	if err := run([]string{"healthcheck", srv.URL + "/readyz"}, io.Discard); err == nil {
		t.Fatal("a closed port passed the healthcheck")
	}
}
