package api_test

import (
	"context"
	"math"
	"strconv"
	"testing"
	"time"

	"paycore/api/apitest"
	"paycore/db/view"
)

// otpRig drives one EMAIL_OTP credential of a production platform (no magic code).
type otpRig struct {
	t    *testing.T
	e    *env
	c    *apitest.Client
	box  *inbox
	cred view.AuthMethod
	pub  string
}

func newOTPRig(t *testing.T, email string) *otpRig {
	box, m := startInbox(t)
	e := newEnvWithMailer(t, m)
	c, _ := e.platform(false)
	multiCurrency(t, c, true)
	acct := walletAccount(t, c, email)
	g := &otpRig{t: t, e: e, c: c, box: box}
	if r := c.Do("POST", "/auth/credentials", map[string]any{"type": "EMAIL_OTP", "accountId": acct}); r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	} else {
		r.Decode(t, &g.cred)
	}
	_, g.pub = clientKeyPair(t)
	return g
}

func (g *otpRig) verify(otp string) *apitest.Response {
	return g.c.Do("POST", "/auth/credentials/"+g.cred.ID+"/verify", map[string]any{"otp": otp, "clientPublicKey": g.pub})
}

func (g *otpRig) exec(sql string) {
	g.t.Helper()
	if _, err := g.e.pool.Exec(context.Background(), sql); err != nil {
		g.t.Fatal(err)
	}
}

// newCode asks for a fresh code as a client does once the 30-second interval is over.
func (g *otpRig) newCode() string {
	g.t.Helper()
	g.exec("UPDATE auth_otps SET sent_at = now() - interval '1 minute'")
	if r := g.c.Do("POST", "/auth/credentials/"+g.cred.ID+"/challenge", nil); r.Status != 200 {
		g.t.Fatalf("challenge: %d %s", r.Status, r.Body)
	}
	code, _ := g.box.lastCode(g.t)
	return code
}

// endLock lets the current lock run out.
func (g *otpRig) endLock() {
	g.exec("UPDATE auth_otp_lockouts SET locked_until = now() - interval '1 second'")
}

func wrongFor(code string) string {
	if code == "999999" {
		return "888888"
	}
	return "999999"
}

// retryAfterIn checks Retry-After lies in [lo, hi] seconds.
func retryAfterIn(t *testing.T, r *apitest.Response, lo, hi int) {
	t.Helper()
	s, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if err != nil || s < lo || s > hi {
		t.Fatalf("Retry-After %q, want %d to %d: %s", r.Header.Get("Retry-After"), lo, hi, r.Body)
	}
}

// retryAfterSince checks Retry-After against a lock of d set no earlier than start: at most
// d, and shorter only by the time that has passed since start (slow runs stay exact).
func retryAfterSince(t *testing.T, r *apitest.Response, d time.Duration, start time.Time) {
	t.Helper()
	hi := int(d / time.Second)
	retryAfterIn(t, r, hi-int(math.Ceil(time.Since(start).Seconds()))-1, hi)
}

// Wrong codes count per credential, across re-issued codes: the 5th locks the credential
// (the right code is refused while locked, and no new code is sent), locks grow, a correct
// code after the lock resets the count.
func TestEmailOTPLockout(t *testing.T) {
	t.Parallel()
	g := newOTPRig(t, "lock@example.com")

	// Five wrong codes over three codes: the count survives new codes.
	code, _ := g.box.lastCode(t)
	var locked time.Time
	for i := range 5 {
		if i == 2 || i == 4 {
			code = g.newCode()
		}
		locked = time.Now()
		r := g.verify(wrongFor(code))
		res := expectError(t, r, 401, "UNAUTHORIZED")
		if res["reason"] != "Invalid OTP code" {
			t.Fatalf("reason %v", res["reason"])
		}
		if i < 4 && r.Header.Get("Retry-After") != "" {
			t.Fatalf("wrong code %d already locks: %s", i+1, r.Body)
		}
		if i == 4 {
			retryAfterIn(t, r, 55, 60)
		}
	}
	// Locked for a minute: the right code is refused, wrong codes are not even counted,
	// and no code is mailed.
	r := g.verify(code)
	res := expectError(t, r, 429, "RATE_LIMITED")
	retryAfterSince(t, r, time.Minute, locked)
	if d, _ := res["details"].(map[string]any); d["lockedUntil"] == nil {
		t.Fatalf("no details.lockedUntil: %s", r.Body)
	}
	for range 3 {
		expectError(t, g.verify(wrongFor(code)), 429, "RATE_LIMITED")
	}
	_, sent := g.box.lastCode(t)
	g.exec("UPDATE auth_otps SET sent_at = now() - interval '1 minute'")
	r = g.c.Do("POST", "/auth/credentials/"+g.cred.ID+"/challenge", nil)
	expectError(t, r, 429, "RATE_LIMITED")
	retryAfterSince(t, r, time.Minute, locked)
	if _, n := g.box.lastCode(t); n != sent {
		t.Fatal("a code was mailed while the credential was locked")
	}
	// Another API instance on the same database sees the same lock.
	expectError(t, g.e.sibling(g.c).Do("POST", "/auth/credentials/"+g.cred.ID+"/verify", map[string]any{"otp": code, "clientPublicKey": g.pub}), 429, "RATE_LIMITED")

	// The lock grows: five more wrong codes (the ones tried while locked did not count)
	// lock for 5 minutes.
	g.endLock()
	code = g.newCode()
	for i := range 5 {
		if i == 3 {
			code = g.newCode()
		}
		locked = time.Now()
		r := g.verify(wrongFor(code))
		expectError(t, r, 401, "UNAUTHORIZED")
		if i == 4 {
			retryAfterIn(t, r, 295, 300)
		}
	}
	r = g.verify(code)
	expectError(t, r, 429, "RATE_LIMITED")
	retryAfterSince(t, r, 5*time.Minute, locked)

	// After the lock, a correct code opens a session and resets the count: the next run
	// of five wrong codes locks for one minute again, not fifteen.
	g.endLock()
	code = g.newCode()
	if r := g.verify(code); r.Status != 200 {
		t.Fatalf("correct code after the lock: %d %s", r.Status, r.Body)
	}
	code = g.newCode()
	for range 4 {
		expectError(t, g.verify(wrongFor(code)), 401, "UNAUTHORIZED")
	}
	code = g.newCode()
	r = g.verify(wrongFor(code))
	expectError(t, r, 401, "UNAUTHORIZED")
	retryAfterIn(t, r, 55, 60)
}

// At most 20 wrong codes in any 24 hours: the 20th locks the credential until the first of
// them is a day old.
func TestEmailOTPDailyCap(t *testing.T) {
	t.Parallel()
	g := newOTPRig(t, "cap@example.com")
	code, _ := g.box.lastCode(t)
	expectError(t, g.verify(wrongFor(code)), 401, "UNAUTHORIZED")
	// 19 wrong codes on record in the last two hours (one per earlier lock-free stretch).
	g.exec(`UPDATE auth_otp_lockouts SET failures = 1, locked_until = NULL,
		recent_failures = ARRAY(SELECT now() - interval '2 hours' + i * interval '1 minute' FROM generate_series(0, 18) i)`)
	code = g.newCode()
	r := g.verify(wrongFor(code))
	expectError(t, r, 401, "UNAUTHORIZED")
	retryAfterIn(t, r, 22*3600-60, 22*3600)
	r = g.verify(code)
	expectError(t, r, 429, "RATE_LIMITED")
	retryAfterIn(t, r, 22*3600-60, 22*3600)
}

// Codes are at least 6 characters: shorter lengths are refused at save time, and a
// shorter length saved earlier is not honoured.
func TestOTPLengthAtLeastSix(t *testing.T) {
	t.Parallel()
	box, m := startInbox(t)
	e := newEnvWithMailer(t, m)
	c, p := e.platform(false)
	multiCurrency(t, c, true)
	for _, n := range []int{4, 5} {
		res := expectError(t, c.Do("PATCH", "/config", map[string]any{"embeddedWalletConfig": map[string]any{"otpLength": n}}), 400, "INVALID_INPUT")
		if d, _ := res["details"].(map[string]any); d["field"] != "embeddedWalletConfig.otpLength" {
			t.Fatalf("otpLength %d: details %v", n, res["details"])
		}
	}
	if r := c.Do("PATCH", "/config", map[string]any{"embeddedWalletConfig": map[string]any{"otpLength": 6}}); r.Status != 200 {
		t.Fatalf("otpLength 6: %d %s", r.Status, r.Body)
	}
	if _, err := e.pool.Exec(context.Background(), `UPDATE platforms SET embedded_wallet_config = jsonb_set(embedded_wallet_config, '{otpLength}', '4') WHERE id = $1`, p.ID); err != nil {
		t.Fatal(err)
	}
	acct := walletAccount(t, c, "len@example.com")
	if r := c.Do("POST", "/auth/credentials", map[string]any{"type": "EMAIL_OTP", "accountId": acct}); r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	if code, _ := box.lastCode(t); len(code) != 6 {
		t.Fatalf("code %q is shorter than 6", code)
	}
}

// verify accepts the peer's type discriminator when it names the credential's type.
func TestCredentialVerifyTypeField(t *testing.T) {
	t.Parallel()
	g := newOTPRig(t, "typ@example.com")
	code, _ := g.box.lastCode(t)
	for _, typ := range []string{"PASSKEY", "OAUTH", "SMOKE_SIGNAL"} {
		res := expectError(t, g.c.Do("POST", "/auth/credentials/"+g.cred.ID+"/verify", map[string]any{"type": typ, "otp": code, "clientPublicKey": g.pub}), 400, "INVALID_INPUT")
		if d, _ := res["details"].(map[string]any); d["field"] != "type" {
			t.Fatalf("type %s: details %v", typ, res["details"])
		}
	}
	if r := g.c.Do("POST", "/auth/credentials/"+g.cred.ID+"/verify", map[string]any{"type": "EMAIL_OTP", "otp": code, "clientPublicKey": g.pub}); r.Status != 200 {
		t.Fatalf("verify with type: %d %s", r.Status, r.Body)
	}
}

// The 202 of a session revocation names the type of the session's credential.
func TestSessionRevokeChallengeCarriesType(t *testing.T) {
	t.Parallel()
	g := newOTPRig(t, "rev@example.com")
	code, _ := g.box.lastCode(t)
	var sess view.Session
	g.verify(code).Decode(t, &sess)
	r := g.c.Do("DELETE", "/auth/sessions/"+sess.ID, nil)
	if r.Status != 202 {
		t.Fatalf("revoke: %d %s", r.Status, r.Body)
	}
	if typ := r.JSON(t)["type"]; typ != "EMAIL_OTP" {
		t.Fatalf("type %v: %s", typ, r.Body)
	}
}
