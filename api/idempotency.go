package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"

	"paycore/db"
	"paycore/internal/catalog"
	"paycore/internal/walletauth"
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
// byte for byte to repeats by the same caller; a repeat with a different request, or by
// another API token of the platform, is 422 (requestHash); a repeat that
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
		hash, err := requestHash(r)
		if err != nil {
			writeError(w, r, err)
			return
		}
		key = scopedKey(r.Context(), key)
		claimed, done, err := s.claim(r.Context(), callerPlatformID(r.Context()), key, hash)
		switch {
		case err != nil:
			writeError(w, r, err)
		case claimed:
			s.runAndStore(w, r, next, key)
		case done != nil:
			s.replay(w, r, *done)
		}
	})
}

// scopedKey is the stored form of an Idempotency-Key: the platform's key as it is, an
// agent's under its own name, so that two agents of one platform never share answers.
func scopedKey(ctx context.Context, key string) string {
	if p, ok := ctx.Value(agentPrincipalKey{}).(agentPrincipal); ok {
		return "agent/" + p.AgentID.String() + "/" + key
	}
	return key
}

// requestHash reads the request's body (putting it back for the handler) and hashes it
// with the method and path and the calling API token: what a repeat under the same key
// must match. The token is part of it so that a stored answer is only ever replayed to the
// token that made the request (it may hold a secret minted for it, or something another
// token may not do); another token using the key is refused like a different request,
// before anything runs, so a key still names one request of the platform and the ids
// derived from it (a transfer's, a quote's) one payment. An agent's keys are its own
// already (scopedKey).
func requestHash(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, bodyReadError(err)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	token := principalFrom(r.Context()).TokenID
	sum := sha256.Sum256(append(token[:], walletauth.RequestHash(r.Method, r.URL.Path, body)...))
	return sum[:], nil
}

// claim claims the key for this request (claimed), or returns the stored outcome of the
// request that claimed it first (done), waiting up to IdempotencyWait for one that is
// still running. A key used with another request is 422, one still running after the wait
// 409. Neither is returned when the client went away.
func (s *Server) claim(ctx context.Context, platformID uuid.UUID, key string, hash []byte) (claimed bool, done *db.IdempotencyKey, err error) {
	deadline := wall().Add(s.Config.IdempotencyWait)
	for wait := 10 * time.Millisecond; ; wait = min(wait*2, 250*time.Millisecond) {
		_, err := db.IdempotencyClaim(ctx, s.Pool, db.IdempotencyClaimParams{
			PlatformID: platformID, Key: key, RequestHash: hash,
			TtlSeconds: s.Config.IdempotencyTTL.Seconds(), LeaseSeconds: idempotencyLease.Seconds(),
		})
		if err == nil {
			return true, nil, nil
		}
		if !isNoRows(err) {
			return false, nil, err
		}
		row, err := db.IdempotencyGet(ctx, s.Pool, db.IdempotencyGetParams{PlatformID: platformID, Key: key})
		switch {
		case isNoRows(err):
			continue // released after a 5xx: claim again
		case err != nil:
			return false, nil, err
		case !bytes.Equal(row.RequestHash, hash):
			return false, nil, refusal(catalog.IdempotencyKeyReused, "this Idempotency-Key was used with a different request, or by another API token of the platform; use a new key for a new request", nil)
		case row.State == "DONE":
			return false, &row, nil
		case wall().After(deadline):
			return false, nil, retryAfter(refusal(catalog.IdempotencyInProgress, "a request with this Idempotency-Key is still being processed; retry later", nil), 1)
		}
		select {
		case <-ctx.Done():
			return false, nil, nil
		case <-time.After(wait):
		}
	}
}

// runAndStore runs the handler that claimed the key, renewing the claim while it runs,
// and stores its outcome for repeats before sending it.
func (s *Server) runAndStore(w http.ResponseWriter, r *http.Request, next http.Handler, key string) {
	rec := &recorder{header: http.Header{}}
	r = r.WithContext(context.WithValue(r.Context(), challengeKey{}, &rec.challenge))
	pid := callerPlatformID(r.Context())
	// The outcome is stored even if the client goes away mid-request.
	store := context.WithoutCancel(r.Context())
	defer func() {
		if v := recover(); v != nil {
			_ = db.IdempotencyRelease(store, s.Pool, db.IdempotencyReleaseParams{PlatformID: pid, Key: key})
			panic(v)
		}
	}()
	stopRenew := s.renewClaim(store, pid, key)
	next.ServeHTTP(rec, r)
	stopRenew()
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	s.storeOutcome(store, pid, key, rec)
	for k, v := range rec.header {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.status)
	_, _ = w.Write(rec.body.Bytes())
}

// renewClaim renews a claim every idempotencyRenew until the returned stop is called (it
// may be called more than once).
func (s *Server) renewClaim(ctx context.Context, platformID uuid.UUID, key string) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(idempotencyRenew)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				_ = db.IdempotencyRenew(ctx, s.Pool, db.IdempotencyRenewParams{PlatformID: platformID, Key: key})
			}
		}
	}()
	return sync.OnceFunc(func() { close(done) })
}

// storeOutcome stores a response as the key's outcome. A 5xx is not an outcome (the
// request may be retried), and neither is the challenge of a signed retry (markChallenge):
// the signed retry repeats the request with the same key and must execute it. Both release
// the key; any other answer, a 202 that started something included, is stored.
func (s *Server) storeOutcome(ctx context.Context, platformID uuid.UUID, key string, rec *recorder) {
	if rec.status >= 500 || rec.challenge {
		_ = db.IdempotencyRelease(ctx, s.Pool, db.IdempotencyReleaseParams{PlatformID: platformID, Key: key})
		return
	}
	hdr, _ := json.Marshal(map[string]string{"Content-Type": rec.header.Get("Content-Type"), "Retry-After": rec.header.Get("Retry-After"),
		"Cache-Control": rec.header.Get("Cache-Control")})
	status := int32(rec.status)
	// The stored answer is sealed: it may carry a secret (a new API token's clientSecret, a
	// KYC link's token).
	body := s.Box.Seal(idempotencyLabel(platformID, key), rec.body.Bytes())
	if err := db.IdempotencyComplete(ctx, s.Pool, db.IdempotencyCompleteParams{
		PlatformID: platformID, Key: key, ResponseStatus: &status, ResponseHeaders: hdr, ResponseBody: body,
	}); err != nil {
		s.Logger.ErrorContext(ctx, "store idempotent response", "key", key, "error", err)
	}
}

// idempotencyLabel binds a sealed stored answer to its platform and key.
func idempotencyLabel(platformID uuid.UUID, key string) string {
	return "idempotency:" + platformID.String() + ":" + key
}

// replay answers a repeated request with the stored outcome of the first.
func (s *Server) replay(w http.ResponseWriter, r *http.Request, row db.IdempotencyKey) {
	body, err := s.Box.Open(idempotencyLabel(row.PlatformID, row.Key), row.ResponseBody)
	if err != nil {
		writeError(w, r, fmt.Errorf("open the stored answer of key %q: %w", row.Key, err))
		return
	}
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
	_, _ = w.Write(body)
}

// challengeKey carries, in an idempotent request's context, where markChallenge records
// that the answer is a signed retry's challenge.
type challengeKey struct{}

// markChallenge records that the request is answered with a signed retry's 202
// challenge, which is not the Idempotency-Key's outcome.
func markChallenge(ctx context.Context) {
	if flag, ok := ctx.Value(challengeKey{}).(*bool); ok {
		*flag = true
	}
}

// recorder buffers a handler's response so it can be stored before it is sent.
type recorder struct {
	// challenge is set when the answer is a signed retry's challenge (markChallenge).
	challenge bool
	header    http.Header
	status    int
	body      bytes.Buffer
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
