package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"time"

	"paycore/db"
)

// Idempotency headers.
const (
	headerIdempotencyKey = "Idempotency-Key"
	headerReplayed       = "Idempotent-Replayed"
	// idempotencyLease is how long a RUNNING claim is honoured without renewal before a
	// repeat may take it over: its owner renews it every idempotencyRenew while it runs,
	// so only a crashed owner's claim lapses.
	idempotencyLease = 10 * time.Second
	idempotencyRenew = 3 * time.Second
	maxKeyLength     = 255
)

// idempotent makes a POST safe to repeat with the same Idempotency-Key: the first
// response (status, content type, body) is stored per platform and key and replayed
// byte for byte to repeats; a repeat with a different request is 422; a repeat that
// arrives while the first is still running waits for it up to IdempotencyWait, then gets
// 409. Concurrent duplicates execute once: the key row is claimed with one INSERT.
// 5xx answers are not stored, so the request can be retried.
func (s *Server) idempotent(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get(headerIdempotencyKey)
		if key == "" {
			next.ServeHTTP(w, r)
			return
		}
		if len(key) > maxKeyLength {
			writeError(w, r, invalidField(headerIdempotencyKey, "Idempotency-Key must be at most %d characters", maxKeyLength))
			return
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			writeError(w, r, bodyReadError(err))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h := sha256.New()
		h.Write([]byte(r.Method + " " + r.URL.Path + "\n"))
		h.Write(body)
		hash := h.Sum(nil)
		p := principalFrom(r.Context())
		ctx := r.Context()
		deadline := time.Now().Add(s.Config.IdempotencyWait)
		for wait := 10 * time.Millisecond; ; wait = min(wait*2, 250*time.Millisecond) {
			_, err := s.q.IdempotencyClaim(ctx, db.IdempotencyClaimParams{
				PlatformID: p.PlatformID, Key: key, RequestHash: hash,
				TtlSeconds: s.Config.IdempotencyTTL.Seconds(), LeaseSeconds: idempotencyLease.Seconds(),
			})
			if err == nil {
				s.runAndStore(w, r, next, key)
				return
			}
			if !isNoRows(err) {
				writeError(w, r, err)
				return
			}
			row, err := s.q.IdempotencyGet(ctx, db.IdempotencyGetParams{PlatformID: p.PlatformID, Key: key})
			if isNoRows(err) {
				continue // released after a 5xx: claim again
			}
			if err != nil {
				writeError(w, r, err)
				return
			}
			if !bytes.Equal(row.RequestHash, hash) {
				writeError(w, r, &Error{Status: http.StatusUnprocessableEntity, Code: CodeIdempotencyMismatch,
					Message: "this Idempotency-Key was used with a different request; use a new key for a new request"})
				return
			}
			if row.State == "DONE" {
				replay(w, row)
				return
			}
			if time.Now().After(deadline) {
				writeError(w, r, &Error{Status: http.StatusConflict, Code: CodeIdempotencyBusy, RetryAfter: 1,
					Message: "a request with this Idempotency-Key is still being processed; retry later"})
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
		}
	})
}

func (s *Server) runAndStore(w http.ResponseWriter, r *http.Request, next http.Handler, key string) {
	rec := &recorder{header: http.Header{}}
	p := principalFrom(r.Context())
	// The outcome is stored even if the client goes away mid-request.
	store := context.WithoutCancel(r.Context())
	defer func() {
		if v := recover(); v != nil {
			_ = s.q.IdempotencyRelease(store, db.IdempotencyReleaseParams{PlatformID: p.PlatformID, Key: key})
			panic(v)
		}
	}()
	renewDone := make(chan struct{})
	stopRenew := sync.OnceFunc(func() { close(renewDone) })
	defer stopRenew()
	go func() {
		t := time.NewTicker(idempotencyRenew)
		defer t.Stop()
		for {
			select {
			case <-renewDone:
				return
			case <-t.C:
				_ = s.q.IdempotencyRenew(store, db.IdempotencyRenewParams{PlatformID: p.PlatformID, Key: key})
			}
		}
	}()
	next.ServeHTTP(rec, r)
	stopRenew()
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	// A 5xx is not an outcome (the request may be retried), and neither is the 202
	// challenge of a signed retry: the signed retry repeats the request with the same key
	// and must execute it.
	if rec.status >= 500 || rec.status == http.StatusAccepted {
		_ = s.q.IdempotencyRelease(store, db.IdempotencyReleaseParams{PlatformID: p.PlatformID, Key: key})
	} else {
		hdr, _ := json.Marshal(map[string]string{"Content-Type": rec.header.Get("Content-Type"), "Retry-After": rec.header.Get("Retry-After")})
		status := int32(rec.status)
		if err := s.q.IdempotencyComplete(store, db.IdempotencyCompleteParams{
			PlatformID: p.PlatformID, Key: key, ResponseStatus: &status, ResponseHeaders: hdr, ResponseBody: rec.body.Bytes(),
		}); err != nil {
			s.Logger.Error("store idempotent response", "key", key, "error", err)
		}
	}
	for k, v := range rec.header {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.status)
	_, _ = w.Write(rec.body.Bytes())
}

func replay(w http.ResponseWriter, row db.IdempotencyKey) {
	var hdr map[string]string
	_ = json.Unmarshal(row.ResponseHeaders, &hdr)
	for k, v := range hdr {
		if v != "" {
			w.Header().Set(k, v)
		}
	}
	w.Header().Set(headerReplayed, "true")
	status := http.StatusOK
	if row.ResponseStatus != nil {
		status = int(*row.ResponseStatus)
	}
	w.WriteHeader(status)
	_, _ = w.Write(row.ResponseBody)
}

// recorder buffers a handler's response so it can be stored before it is sent.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (rc *recorder) Header() http.Header { return rc.header }
func (rc *recorder) WriteHeader(code int) {
	if rc.status == 0 {
		rc.status = code
	}
}
func (rc *recorder) Write(b []byte) (int, error) {
	if rc.status == 0 {
		rc.status = http.StatusOK
	}
	return rc.body.Write(b)
}
