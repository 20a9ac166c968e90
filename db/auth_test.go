package db_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/db"
	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/problem"
	"paycore/internal/walletauth"
)

// credential stores a credential of type typ on account acct (EMAIL_OTP with code).
func credential(t *testing.T, pool *pgxpool.Pool, p, acct uuid.UUID, typ catalog.CredentialType, code string) (db.AuthCredential, error) {
	t.Helper()
	in := db.AuthCredentialCreateParams{ID: ids.New(), PlatformID: p, AccountID: acct, Type: typ, Nickname: "n", Details: []byte(`{}`)}
	var otp *db.OTPCode
	if typ == catalog.CredentialEmailOTP {
		otp = &db.OTPCode{Hash: walletauth.OTPHash(in.ID, code), ExpiresAt: time.Now().Add(time.Minute)}
	}
	return db.CredentialCreate(context.Background(), pool, in, otp, time.Now())
}

// otpCredential is an EMAIL_OTP credential with the pending code 123456, in a database of
// its own.
func otpCredential(t *testing.T) (*pgxpool.Pool, db.AuthCredential) {
	t.Helper()
	pool, p, _, _ := setup(t)
	cred, err := credential(t, pool, p, internalAccount(t, pool, p), catalog.CredentialEmailOTP, "123456")
	if err != nil {
		t.Fatal(err)
	}
	return pool, cred
}

func sessionFor(c db.AuthCredential) db.AuthSessionCreateParams {
	return db.AuthSessionCreateParams{ID: ids.New(), PlatformID: c.PlatformID, AccountID: c.AccountID, CredentialID: c.ID,
		PublicKey: []byte{2, 1}, ExpiresAt: time.Now().Add(time.Minute)}
}

func refusalCode(err error) catalog.Code {
	var rf *problem.Refusal
	if errors.As(err, &rf) {
		return rf.Code
	}
	return ""
}

// One EMAIL_OTP and one PASSKEY per account, OAUTH as many as wanted; the database says
// which type was duplicated by the violated index's name.
func TestCredentialCreateOnePerType(t *testing.T) {
	t.Parallel()
	pool, p, _, _ := setup(t)
	ctx := context.Background()
	acct := internalAccount(t, pool, p)
	first, err := credential(t, pool, p, acct, catalog.CredentialEmailOTP, "123456")
	if err != nil {
		t.Fatal(err)
	}
	var hash []byte
	if err := pool.QueryRow(ctx, "SELECT code_hash FROM auth_otps WHERE credential_id = $1", first.ID).Scan(&hash); err != nil || string(hash) != string(walletauth.OTPHash(first.ID, "123456")) {
		t.Fatalf("first code not stored: %v", err)
	}
	for typ, want := range map[catalog.CredentialType]catalog.Code{
		catalog.CredentialEmailOTP: catalog.EmailOTPCredentialExists,
		catalog.CredentialPasskey:  "",
		catalog.CredentialOAuth:    "",
	} {
		if _, err := credential(t, pool, p, acct, typ, "1"); refusalCode(err) != want || (want == "" && err != nil) {
			t.Fatalf("%s: %v, want %q", typ, err, want)
		}
	}
	_, err = credential(t, pool, p, acct, catalog.CredentialPasskey, "")
	if refusalCode(err) != catalog.PasskeyCredentialExists {
		t.Fatalf("second PASSKEY: %v", err)
	}
	var rf *problem.Refusal
	if !errors.As(err, &rf) || rf.Message != "the account already has a PASSKEY credential" {
		t.Fatalf("message %+v", rf)
	}
	if _, err := credential(t, pool, p, acct, catalog.CredentialOAuth, ""); err != nil {
		t.Fatalf("second OAUTH: %v", err)
	}
	// A failed create stores no code: only the first credential has one.
	var codes int
	_ = pool.QueryRow(ctx, "SELECT count(*) FROM auth_otps").Scan(&codes)
	if codes != 1 {
		t.Fatalf("%d codes stored", codes)
	}
	// Revoked, the EMAIL_OTP credential makes room for a new one, and its sessions end.
	if _, err := db.New(pool).AuthSessionCreate(ctx, sessionFor(first)); err != nil {
		t.Fatal(err)
	}
	if err := db.CredentialRevoke(ctx, pool, first.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	if active, _ := db.New(pool).AuthSessionListActive(ctx, db.AuthSessionListActiveParams{AccountID: acct, Now: time.Now()}); len(active) != 0 {
		t.Fatalf("sessions of a revoked credential: %+v", active)
	}
	if _, err := credential(t, pool, p, acct, catalog.CredentialEmailOTP, "654321"); err != nil {
		t.Fatalf("EMAIL_OTP after revocation: %v", err)
	}
}

func TestOTPVerifyAndReissue(t *testing.T) {
	t.Parallel()
	pool, cred := otpCredential(t)
	ctx := context.Background()
	q := db.New(pool)
	verify := func(code string, unchecked bool) (db.AuthSession, error) {
		return db.OTPVerify(ctx, pool, db.OTPVerification{CredentialID: cred.ID, Code: code, Unchecked: unchecked, Session: sessionFor(cred)}, time.Now())
	}
	// A code sent moments ago is not replaced.
	if err := db.OTPReissue(ctx, pool, cred.ID, db.OTPCode{Hash: walletauth.OTPHash(cred.ID, "999999"), ExpiresAt: time.Now().Add(time.Minute)}, time.Now()); refusalCode(err) != catalog.RateLimited {
		t.Fatalf("early reissue: %v", err)
	}
	// A wrong code fails but is recorded (committed) on the code and on the credential.
	if _, err := verify("000001", false); refusalCode(err) != catalog.Unauthorized {
		t.Fatalf("wrong code: %v", err)
	}
	var attempts, failures int
	_ = pool.QueryRow(ctx, "SELECT attempts FROM auth_otps WHERE credential_id = $1", cred.ID).Scan(&attempts)
	_ = pool.QueryRow(ctx, "SELECT failures FROM auth_otp_lockouts WHERE credential_id = $1", cred.ID).Scan(&failures)
	if attempts != 1 || failures != 1 {
		t.Fatalf("attempts %d failures %d after a wrong code", attempts, failures)
	}
	if n, _ := q.AuthSessionListActive(ctx, db.AuthSessionListActiveParams{AccountID: cred.AccountID, Now: time.Now()}); len(n) != 0 {
		t.Fatal("a wrong code created a session")
	}
	// The right code: a session, the code spent, the record cleared.
	sess, err := verify("123456", false)
	if err != nil || sess.CredentialID != cred.ID {
		t.Fatalf("right code: %+v %v", sess, err)
	}
	var left int
	_ = pool.QueryRow(ctx, "SELECT (SELECT count(*) FROM auth_otps) + (SELECT count(*) FROM auth_otp_lockouts)").Scan(&left)
	if left != 0 {
		t.Fatalf("%d code or lockout rows left", left)
	}
	if _, err := verify("123456", false); refusalCode(err) != catalog.Unauthorized {
		t.Fatalf("spent code: %v", err)
	}
	// Unchecked (the sandbox code) needs no pending code.
	if _, err := verify("000000", true); err != nil {
		t.Fatalf("unchecked: %v", err)
	}
	// No code pending: a new one may be sent at once.
	if err := db.OTPReissue(ctx, pool, cred.ID, db.OTPCode{Hash: walletauth.OTPHash(cred.ID, "777777"), ExpiresAt: time.Now().Add(time.Minute)}, time.Now()); err != nil {
		t.Fatalf("reissue: %v", err)
	}
	if _, err := verify("777777", false); err != nil {
		t.Fatalf("reissued code: %v", err)
	}
}

// Concurrent wrong guesses are each counted once: the pending code's row lock serialises
// them, so N concurrent wrong codes leave exactly N attempts and N failures, and the 5th
// locks the credential (the lock is never lost to a race).
func TestOTPVerifyCountsConcurrentGuesses(t *testing.T) {
	t.Parallel()
	pool, cred := otpCredential(t)
	ctx := context.Background()
	const guesses = 5
	var wg sync.WaitGroup
	errs := make([]error, guesses)
	for i := range guesses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = db.OTPVerify(ctx, pool, db.OTPVerification{CredentialID: cred.ID, Code: "00000" + string(rune('1'+i)), Session: sessionFor(cred)}, time.Now())
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if refusalCode(err) != catalog.Unauthorized {
			t.Fatalf("guess %d: %v", i, err)
		}
	}
	var attempts, failures int
	var lockedUntil *time.Time
	_ = pool.QueryRow(ctx, "SELECT attempts FROM auth_otps WHERE credential_id = $1", cred.ID).Scan(&attempts)
	_ = pool.QueryRow(ctx, "SELECT failures, locked_until FROM auth_otp_lockouts WHERE credential_id = $1", cred.ID).Scan(&failures, &lockedUntil)
	if attempts != guesses || failures != guesses || lockedUntil == nil || !lockedUntil.After(time.Now()) {
		t.Fatalf("attempts %d failures %d locked until %v", attempts, failures, lockedUntil)
	}
	// Locked: the right code is refused and not counted.
	if _, err := db.OTPVerify(ctx, pool, db.OTPVerification{CredentialID: cred.ID, Code: "123456", Session: sessionFor(cred)}, time.Now()); refusalCode(err) != catalog.RateLimited {
		t.Fatalf("right code while locked: %v", err)
	}
}

func TestPasskeySessionCreateUsesTheChallengeOnce(t *testing.T) {
	t.Parallel()
	pool, p, _, _ := setup(t)
	ctx := context.Background()
	q := db.New(pool)
	acct := internalAccount(t, pool, p)
	cred, err := credential(t, pool, p, acct, catalog.CredentialPasskey, "")
	if err != nil {
		t.Fatal(err)
	}
	ch := walletauth.NewPasskeyChallenge(acct, "cid", "04", time.Now())
	if _, err := q.SignedRequestCreate(ctx, db.SignedRequestCreateParams{ID: ch.ID, PlatformID: p, AccountID: acct, Kind: ch.Kind,
		Payload: ch.Payload, RequestHash: []byte{4}, ExpiresAt: ch.ExpiresAt}); err != nil {
		t.Fatal(err)
	}
	details := []byte(`{"credentialId":"cid","credential":{"authenticator":{"signCount":7}}}`)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = db.PasskeySessionCreate(ctx, pool, ch.ID, details, sessionFor(cred), time.Now())
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		switch {
		case err == nil:
			won++
		case refusalCode(err) != catalog.Unauthorized:
			t.Fatalf("lost race: %v", err)
		}
	}
	sessions, _ := q.AuthSessionListActive(ctx, db.AuthSessionListActiveParams{AccountID: acct, Now: time.Now()})
	if won != 1 || len(sessions) != 1 {
		t.Fatalf("%d winners, %d sessions", won, len(sessions))
	}
	var signCount int
	if err := pool.QueryRow(ctx, "SELECT (details #>> '{credential,authenticator,signCount}')::int FROM auth_credentials WHERE id = $1", cred.ID).Scan(&signCount); err != nil || signCount != 7 {
		t.Fatalf("sign counter %d not stored: %v", signCount, err)
	}
}

// The last API token of a platform cannot be deleted, also when two deletions race.
func TestTokenRevokeKeepsOne(t *testing.T) {
	t.Parallel()
	pool, p, _, _ := setup(t)
	ctx := context.Background()
	q := db.New(pool)
	tokens := make([]uuid.UUID, 2)
	for i := range tokens {
		tok, err := q.TokenCreate(ctx, db.TokenCreateParams{ID: ids.New(), PlatformID: p, Name: "t", Permissions: []string{"VIEW"}, SecretHash: []byte{1}})
		if err != nil {
			t.Fatal(err)
		}
		tokens[i] = tok.ID
	}
	if err := db.TokenRevoke(ctx, pool, p, ids.New(), time.Now()); refusalCode(err) != catalog.TokenNotFound {
		t.Fatalf("unknown token: %v", err)
	}
	if err := db.TokenRevoke(ctx, pool, newPlatform(t, pool), tokens[0], time.Now()); refusalCode(err) != catalog.TokenNotFound {
		t.Fatalf("deleting through another platform: %v", err)
	}
	if n, _ := q.TokenCountActive(ctx, p); n != 2 {
		t.Fatalf("%d tokens after another platform's delete, want 2", n)
	}
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, id := range tokens {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = db.TokenRevoke(ctx, pool, p, id, time.Now())
		}()
	}
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) {
		t.Fatalf("racing deletes: %v / %v", errs[0], errs[1])
	}
	for _, err := range errs {
		if err != nil && refusalCode(err) != catalog.InvalidInput {
			t.Fatalf("refusal %v", err)
		}
	}
	if n, _ := q.TokenCountActive(ctx, p); n != 1 {
		t.Fatalf("%d tokens left", n)
	}
}
