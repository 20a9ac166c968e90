package api

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/mail"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"paycore/db"
	"paycore/internal/ids"
	"paycore/internal/mailer"
	"paycore/internal/walletauth"
	"paycore/internal/walletcrypto"
)

// Credential types and wallet-auth limits.
const (
	CredEmailOTP = "EMAIL_OTP"
	CredOAuth    = "OAUTH"
	CredPasskey  = "PASSKEY"

	sessionLifetime = 15 * time.Minute
	// otpMaxAttempts wrong guesses end one code; the credential-wide lockout
	// (walletauth.OTPFailures) limits guesses across codes.
	otpMaxAttempts    = 5
	challengeInterval = 30 * time.Second
	sandboxOTP        = "000000"
	reasonBadOTP      = "Invalid OTP code"
)

// AuthMethod is a credential (strict: no other fields).
type AuthMethod struct {
	ID           string    `json:"id"`
	AccountID    string    `json:"accountId"`
	Type         string    `json:"type"`
	Nickname     string    `json:"nickname"`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
	CredentialID string    `json:"credentialId,omitempty"`
}

// Session is an issued wallet session; the sealed key appears only on verify.
type Session struct {
	ID                         string    `json:"id"`
	AccountID                  string    `json:"accountId"`
	Type                       string    `json:"type"`
	Nickname                   string    `json:"nickname"`
	CreatedAt                  time.Time `json:"createdAt"`
	UpdatedAt                  time.Time `json:"updatedAt"`
	ExpiresAt                  time.Time `json:"expiresAt"`
	EncryptedSessionSigningKey string    `json:"encryptedSessionSigningKey,omitempty"`
}

func authMethodOf(c db.AuthCredential) AuthMethod {
	out := AuthMethod{ID: ids.Format("AuthMethod", c.ID), AccountID: ids.Format(ids.InternalAccount, c.AccountID), Type: c.Type,
		Nickname: c.Nickname, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
	if c.Type == CredPasskey {
		var d struct {
			CredentialID string `json:"credentialId"`
		}
		_ = json.Unmarshal(c.Details, &d)
		out.CredentialID = d.CredentialID
	}
	return out
}

// walletAccount resolves an accountId given in a body or query: malformed → 400,
// another platform's or unknown → 404, not an embedded wallet → 400.
func (s *Server) walletAccount(r *http.Request, raw *string) (db.InternalAccountGetRow, error) {
	if raw == nil {
		return db.InternalAccountGetRow{}, invalidField("accountId", "accountId is required")
	}
	id, err := ids.Parse(ids.InternalAccount, *raw)
	if err != nil {
		return db.InternalAccountGetRow{}, invalidField("accountId", "accountId must be InternalAccount:<uuid>")
	}
	a, err := s.q.InternalAccountGet(r.Context(), db.InternalAccountGetParams{PlatformID: principalFrom(r.Context()).PlatformID, ID: id})
	if isNoRows(err) {
		return a, errAccountNotFound
	}
	if err != nil {
		return a, err
	}
	if a.InternalAccount.Type != TypeEmbeddedWallet {
		return a, invalidField("accountId", "credentials authenticate EMBEDDED_WALLET accounts; this account is %s", a.InternalAccount.Type)
	}
	return a, nil
}

type credentialCreate struct {
	Type        *string         `json:"type"`
	AccountID   *string         `json:"accountId"`
	Email       *string         `json:"email"`
	OidcToken   *string         `json:"oidcToken"`
	Nickname    *string         `json:"nickname"`
	Challenge   *string         `json:"challenge"`
	Attestation json.RawMessage `json:"attestation"`
}

func (s *Server) createCredential(w http.ResponseWriter, r *http.Request) error {
	b, err := ReadJSON[credentialCreate](r)
	if err != nil {
		return err
	}
	if b.Type == nil {
		return invalidField("type", "type is required (EMAIL_OTP, OAUTH or PASSKEY)")
	}
	var nickname string
	details := []byte(`{}`)
	switch *b.Type {
	case CredEmailOTP:
		if b.OidcToken != nil || b.Attestation != nil || b.Challenge != nil || b.Nickname != nil {
			return invalid("EMAIL_OTP credentials take accountId and email only")
		}
	case CredOAuth:
		if b.Email != nil || b.Attestation != nil || b.Challenge != nil || b.Nickname != nil {
			return invalid("OAUTH credentials take accountId and oidcToken only")
		}
		if b.OidcToken == nil {
			return invalidField("oidcToken", "oidcToken is required")
		}
	case CredPasskey:
		if b.Email != nil || b.OidcToken != nil {
			return invalid("PASSKEY credentials take accountId, nickname, challenge and attestation only")
		}
		if b.Nickname == nil || strings.TrimSpace(*b.Nickname) == "" || len(*b.Nickname) > 64 {
			return invalidField("nickname", "nickname is required (1 to 64 characters)")
		}
		if len(b.Attestation) == 0 {
			return invalidField("attestation", "attestation is required")
		}
	default:
		return invalidField("type", "type must be EMAIL_OTP, OAUTH or PASSKEY")
	}
	acct, err := s.walletAccount(r, b.AccountID)
	if err != nil {
		return err
	}
	existing, err := s.q.AuthCredentialListByAccount(r.Context(), acct.InternalAccount.ID)
	if err != nil {
		return err
	}
	if *b.Type == CredEmailOTP {
		if nickname, err = s.credentialEmail(r, acct, b.Email); err != nil {
			return err
		}
		for _, c := range existing {
			if c.Type == CredEmailOTP {
				return &Error{Status: http.StatusBadRequest, Code: "EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS", Message: "the account already has an EMAIL_OTP credential"}
			}
		}
	} else if *b.Type == CredPasskey {
		for _, c := range existing {
			if c.Type == CredPasskey {
				return &Error{Status: http.StatusBadRequest, Code: "PASSKEY_CREDENTIAL_ALREADY_EXISTS", Message: "the account already has a PASSKEY credential"}
			}
		}
		nickname = *b.Nickname
		if details, err = s.registerPasskey(r, acct.InternalAccount.ID, b.Challenge, b.Attestation); err != nil {
			return err
		}
	} else {
		claims, err := s.oauthIdentity(r, *b.OidcToken)
		if err != nil {
			return err
		}
		nickname = claims.Email
		if nickname == "" {
			nickname = claims.Subject
		}
		details, _ = json.Marshal(map[string]string{"issuer": claims.Issuer, "subject": claims.Subject})
	}
	if len(existing) > 0 {
		ch, err := s.signedRetry(r, signedRequest{accountID: acct.InternalAccount.ID, kind: "ADD_CREDENTIAL", typ: *b.Type})
		if err != nil {
			return err
		}
		if ch != nil {
			writeJSON(w, http.StatusAccepted, ch)
			return nil
		}
	}
	var pol otpPolicy
	if *b.Type == CredEmailOTP {
		if pol, err = s.otpPolicy(r.Context()); err != nil {
			return err
		}
	}
	var cred db.AuthCredential
	var code string
	err = db.WithTx(r.Context(), s.Pool, func(q *db.Queries, _ pgx.Tx) error {
		var err error
		cred, err = q.AuthCredentialCreate(r.Context(), db.AuthCredentialCreateParams{ID: ids.New(), PlatformID: acct.InternalAccount.PlatformID,
			AccountID: acct.InternalAccount.ID, Type: *b.Type, Nickname: nickname, Details: details})
		if db.IsUniqueViolation(err) {
			return &Error{Status: http.StatusBadRequest, Code: *b.Type + "_CREDENTIAL_ALREADY_EXISTS", Message: "the account already has a " + *b.Type + " credential"}
		}
		if err != nil || cred.Type != CredEmailOTP {
			return err
		}
		code, err = newOTP(r, q, cred.ID, pol)
		return err
	})
	if err != nil {
		return err
	}
	if cred.Type == CredEmailOTP {
		// The code goes out only once the credential exists (on the signed retry, when one
		// was needed).
		if err := s.sendOTP(r, nickname, code, pol); err != nil {
			return err
		}
	}
	writeJSON(w, http.StatusCreated, authMethodOf(cred))
	return nil
}

// credentialEmail is the e-mail of an EMAIL_OTP credential: given, or the customer's.
func (s *Server) credentialEmail(r *http.Request, acct db.InternalAccountGetRow, given *string) (string, error) {
	if given != nil {
		if a, err := mail.ParseAddress(*given); err != nil || a.Address != *given {
			return "", invalidField("email", "email must be a plain e-mail address")
		}
		return *given, nil
	}
	if acct.InternalAccount.CustomerID.Valid {
		c, err := s.q.CustomerGet(r.Context(), db.CustomerGetParams{PlatformID: acct.InternalAccount.PlatformID, ID: acct.InternalAccount.CustomerID.UUID})
		if err != nil {
			return "", err
		}
		if c.Email != nil {
			return *c.Email, nil
		}
	}
	return "", invalidField("email", "email is required: the account's customer has no e-mail address")
}

// walletConfig reads the caller's platform embedded-wallet configuration; the zero value
// when the platform has none.
func (s *Server) walletConfig(ctx context.Context) (EmbeddedWalletConfig, error) {
	var c EmbeddedWalletConfig
	p, err := s.q.PlatformGet(ctx, principalFrom(ctx).PlatformID)
	if err != nil {
		return c, fmt.Errorf("load platform: %w", err)
	}
	if walletsEnabled(p) {
		if err := json.Unmarshal(p.EmbeddedWalletConfig, &c); err != nil {
			return c, fmt.Errorf("decode embedded wallet config: %w", err)
		}
	}
	return c, nil
}

// otpPolicy is how one-time codes are made and sent for a platform.
type otpPolicy struct {
	length       int
	alphanumeric bool
	ttl          time.Duration
	appName      string
	from         string
}

// otpPolicyOf applies the platform's configuration over the defaults.
func (s *Server) otpPolicyOf(c EmbeddedWalletConfig) otpPolicy {
	p := otpPolicy{length: walletauth.MinOTPLength, ttl: 5 * time.Minute, appName: "your wallet", from: s.Config.MailFrom}
	if c.OtpLength != nil {
		// Never shorter than the minimum, whatever a configuration saved before the
		// minimum was raised says.
		p.length = min(max(*c.OtpLength, walletauth.MinOTPLength), walletauth.MaxOTPLength)
	}
	if c.Alphanumeric != nil {
		p.alphanumeric = *c.Alphanumeric
	}
	if c.ExpirationSeconds != nil {
		p.ttl = time.Duration(*c.ExpirationSeconds) * time.Second
	}
	if c.AppName != nil {
		p.appName = *c.AppName
	}
	if c.SendFromEmailAddress != nil {
		p.from = *c.SendFromEmailAddress
	}
	return p
}

// otpPolicy reads the caller's platform OTP policy.
func (s *Server) otpPolicy(ctx context.Context) (otpPolicy, error) {
	c, err := s.walletConfig(ctx)
	return s.otpPolicyOf(c), err
}

func otpHash(credentialID uuid.UUID, code string) []byte {
	sum := sha256.Sum256([]byte(credentialID.String() + ":" + code))
	return sum[:]
}

// newOTP stores a fresh one-time password (hashed) and returns it for sending.
func newOTP(r *http.Request, q *db.Queries, credentialID uuid.UUID, pol otpPolicy) (string, error) {
	alphabet := "0123456789"
	if pol.alphanumeric {
		alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	}
	code := make([]byte, pol.length)
	for i := range code {
		n, _ := rand.Int(rand.Reader, big.NewInt(int64(len(alphabet))))
		code[i] = alphabet[n.Int64()]
	}
	err := q.AuthOtpUpsert(r.Context(), db.AuthOtpUpsertParams{CredentialID: credentialID, CodeHash: otpHash(credentialID, string(code)), ExpiresAt: time.Now().Add(pol.ttl)})
	return string(code), err
}

func (s *Server) sendOTP(r *http.Request, to, code string, pol otpPolicy) error {
	err := s.Mailer.Send(r.Context(), mailer.Message{To: to, From: pol.from, Subject: "Your " + pol.appName + " code",
		Body:    fmt.Sprintf("Your one-time code is %s. It expires in %d minutes.", code, int(pol.ttl.Minutes())),
		Sandbox: principalFrom(r.Context()).Sandbox})
	if err != nil {
		s.Logger.Error("send OTP", "error", err)
		return &Error{Status: http.StatusBadGateway, Code: "EMAIL_DELIVERY_FAILED", Message: "the one-time code could not be e-mailed; try the challenge again"}
	}
	return nil
}

func (s *Server) loadCredential(r *http.Request) (db.AuthCredential, error) {
	nf := notFound("CREDENTIAL_NOT_FOUND", "credential")
	id, err := pathID(r, "id", "AuthMethod", nf)
	if err != nil {
		return db.AuthCredential{}, err
	}
	c, err := s.q.AuthCredentialGet(r.Context(), db.AuthCredentialGetParams{PlatformID: principalFrom(r.Context()).PlatformID, ID: id})
	if isNoRows(err) {
		return c, nf
	}
	return c, err
}

// walletAccountQuery resolves the required accountId query parameter of the wallet lists.
func (s *Server) walletAccountQuery(r *http.Request) (db.InternalAccountGetRow, error) {
	q := newQuery(r, "accountId")
	raw := q.str("accountId")
	if q.err != nil {
		return db.InternalAccountGetRow{}, q.err
	}
	return s.walletAccount(r, raw)
}

// clientPublicKeyField checks a required clientPublicKey and returns its raw bytes.
func clientPublicKeyField(v *string) ([]byte, error) {
	if v == nil {
		return nil, invalidField("clientPublicKey", "clientPublicKey is required")
	}
	key, err := walletcrypto.ParseClientPublicKey(*v)
	if err != nil {
		return nil, invalidField("clientPublicKey", "%v", err)
	}
	return key, nil
}

// loadSession finds a session of the caller's platform.
func (s *Server) loadSession(r *http.Request) (db.AuthSession, error) {
	nf := notFound("SESSION_NOT_FOUND", "session")
	id, err := pathID(r, "id", "Session", nf)
	if err != nil {
		return db.AuthSession{}, err
	}
	sess, err := s.q.AuthSessionGet(r.Context(), db.AuthSessionGetParams{PlatformID: principalFrom(r.Context()).PlatformID, ID: id})
	if isNoRows(err) {
		return sess, nf
	}
	return sess, err
}

func (s *Server) listCredentials(w http.ResponseWriter, r *http.Request) error {
	acct, err := s.walletAccountQuery(r)
	if err != nil {
		return err
	}
	rows, err := s.q.AuthCredentialListByAccount(r.Context(), acct.InternalAccount.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, dataOf(rows, authMethodOf))
	return nil
}

func (s *Server) deleteCredential(w http.ResponseWriter, r *http.Request) error {
	c, err := s.loadCredential(r)
	if err != nil {
		return err
	}
	all, err := s.q.AuthCredentialListByAccount(r.Context(), c.AccountID)
	if err != nil {
		return err
	}
	if len(all) <= 1 {
		return invalid("this is the account's only credential; add another before revoking it")
	}
	ch, err := s.signedRetry(r, signedRequest{accountID: c.AccountID, kind: "REVOKE_CREDENTIAL", typ: c.Type, excludeCredential: c.ID})
	if err != nil {
		return err
	}
	if ch != nil {
		writeJSON(w, http.StatusAccepted, ch)
		return nil
	}
	err = db.WithTx(r.Context(), s.Pool, func(q *db.Queries, _ pgx.Tx) error {
		if _, err := q.AuthCredentialDelete(r.Context(), c.ID); err != nil {
			return err
		}
		return q.AuthSessionRevokeByCredential(r.Context(), c.ID)
	})
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

type challengeBody struct {
	ClientPublicKey *string `json:"clientPublicKey"`
}

func (s *Server) challengeCredential(w http.ResponseWriter, r *http.Request) error {
	c, err := s.loadCredential(r)
	if err != nil {
		return err
	}
	var clientKeyArg *string
	if r.ContentLength != 0 {
		// clientPublicKey is required for PASSKEY and ignored for EMAIL_OTP, but the body
		// must still be valid.
		b, err := ReadJSON[challengeBody](r)
		if err != nil {
			return err
		}
		if b.ClientPublicKey != nil {
			if _, err := walletcrypto.ParseClientPublicKey(*b.ClientPublicKey); err != nil {
				return invalidField("clientPublicKey", "%v", err)
			}
		}
		clientKeyArg = b.ClientPublicKey
	}
	switch c.Type {
	case CredOAuth:
		return invalid("OAUTH credentials need no challenge: verify with a fresh oidcToken")
	case CredPasskey:
		return s.passkeyChallenge(w, r, c, clientKeyArg)
	}
	pol, err := s.otpPolicy(r.Context())
	if err != nil {
		return err
	}
	var code string
	err = db.WithTx(r.Context(), s.Pool, func(q *db.Queries, _ pgx.Tx) error {
		otp, err := q.AuthOtpGetForUpdate(r.Context(), c.ID)
		pending := err == nil
		if err != nil && !isNoRows(err) {
			return err
		}
		// A locked credential gets no new code: new codes would be new guesses.
		fails, err := otpFailuresOf(r.Context(), q, c.ID)
		if err != nil {
			return err
		}
		if wait := fails.LockedFor(time.Now()); wait > 0 {
			return otpLocked(fails, wait)
		}
		if pending {
			if wait := challengeInterval - time.Since(otp.SentAt); wait > 0 {
				secs := walletauth.RetryAfterSeconds(wait)
				return &Error{Status: http.StatusTooManyRequests, Code: CodeRateLimited, RetryAfter: secs,
					Message: "a code was sent moments ago; retry after " + strconv.Itoa(secs) + " seconds"}
			}
		}
		code, err = newOTP(r, q, c.ID, pol)
		return err
	})
	if err != nil {
		return err
	}
	if err := s.sendOTP(r, c.Nickname, code, pol); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, authMethodOf(c))
	return nil
}

type verifyBody struct {
	Type            *string         `json:"type"`
	Otp             *string         `json:"otp"`
	OidcToken       *string         `json:"oidcToken"`
	ClientPublicKey *string         `json:"clientPublicKey"`
	Assertion       json.RawMessage `json:"assertion"`
}

// verifyCredential checks the proof of a credential and issues a session: a fresh P-256
// signing key sealed to the client's key; the service keeps only its public half.
func (s *Server) verifyCredential(w http.ResponseWriter, r *http.Request) error {
	c, err := s.loadCredential(r)
	if err != nil {
		return err
	}
	b, err := ReadJSON[verifyBody](r)
	if err != nil {
		return err
	}
	if b.Type != nil {
		switch *b.Type {
		case c.Type:
		case CredEmailOTP, CredOAuth, CredPasskey:
			return invalidField("type", "type is %s but this credential is %s", *b.Type, c.Type)
		default:
			return invalidField("type", "type must be EMAIL_OTP, OAUTH or PASSKEY (the credential's type, %s)", c.Type)
		}
	}
	if c.Type == CredPasskey {
		if b.ClientPublicKey != nil || b.Otp != nil || b.OidcToken != nil {
			return invalid("PASSKEY verification takes type and assertion only (clientPublicKey was given with the challenge)")
		}
		return s.verifyPasskey(w, r, c, b.Assertion)
	}
	clientKey, err := clientPublicKeyField(b.ClientPublicKey)
	if err != nil {
		return err
	}
	if c.Type == CredOAuth {
		return s.verifyOAuth(w, r, c, b, clientKey)
	}
	if b.Otp == nil {
		return invalidField("otp", "otp is required")
	}
	pr := principalFrom(r.Context())
	var out Session
	var wrong *Error
	err = db.WithTx(r.Context(), s.Pool, func(q *db.Queries, _ pgx.Tx) error {
		if !(pr.Sandbox && *b.Otp == sandboxOTP) {
			// The pending code's row lock serialises the verifications of a credential,
			// so its wrong-code record is read and written by one request at a time.
			otp, err := q.AuthOtpGetForUpdate(r.Context(), c.ID)
			pending := err == nil
			if err != nil && !isNoRows(err) {
				return err
			}
			now := time.Now()
			fails, err := otpFailuresOf(r.Context(), q, c.ID)
			if err != nil {
				return err
			}
			// While locked no code is compared, the right one neither.
			if wait := fails.LockedFor(now); wait > 0 {
				return otpLocked(fails, wait)
			}
			switch {
			case !pending:
				return unauthorized(reasonBadOTP, "no code is pending for this credential; request one with the challenge endpoint")
			case otp.Attempts >= otpMaxAttempts:
				return unauthorized(reasonBadOTP, "this code had "+strconv.Itoa(otpMaxAttempts)+" wrong attempts; request a new one")
			case now.After(otp.ExpiresAt):
				return unauthorized(reasonBadOTP, "the code has expired; request a new one")
			case subtle.ConstantTimeCompare(otp.CodeHash, otpHash(c.ID, *b.Otp)) != 1:
				// The wrong code is counted (committed) although the request fails, on
				// the code and on the credential; the latter may lock it.
				fails = fails.Fail(now)
				wrong = unauthorized(reasonBadOTP, "the code is wrong")
				if wait := fails.LockedFor(now); wait > 0 {
					wrong.RetryAfter = walletauth.RetryAfterSeconds(wait)
					wrong.Message = "the code is wrong; after " + strconv.Itoa(fails.Failures) + " wrong codes the credential is locked for " +
						waitText(wrong.RetryAfter) + " (Retry-After)"
				}
				if err := q.AuthOtpCountAttempt(r.Context(), c.ID); err != nil {
					return err
				}
				return saveOTPFailures(r.Context(), q, c.ID, fails)
			}
			if err := q.AuthOtpDelete(r.Context(), c.ID); err != nil {
				return err
			}
		}
		// A correct code (or the sandbox code) clears the wrong-code record.
		if err := q.AuthOtpLockoutClear(r.Context(), c.ID); err != nil {
			return err
		}
		var err error
		out, err = s.issueSessionTx(r, q, c, clientKey)
		return err
	})
	if err != nil {
		return err
	}
	if wrong != nil {
		return wrong
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// otpFailuresOf reads the wrong-code record of a credential (empty before its first wrong
// code).
func otpFailuresOf(ctx context.Context, q *db.Queries, credentialID uuid.UUID) (walletauth.OTPFailures, error) {
	row, err := q.AuthOtpLockoutGet(ctx, credentialID)
	if isNoRows(err) {
		return walletauth.OTPFailures{}, nil
	}
	if err != nil {
		return walletauth.OTPFailures{}, fmt.Errorf("load OTP failures: %w", err)
	}
	f := walletauth.OTPFailures{Failures: int(row.Failures), Recent: row.RecentFailures}
	if row.LockedUntil != nil {
		f.LockedUntil = *row.LockedUntil
	}
	return f, nil
}

func saveOTPFailures(ctx context.Context, q *db.Queries, credentialID uuid.UUID, f walletauth.OTPFailures) error {
	p := db.AuthOtpLockoutSaveParams{CredentialID: credentialID, Failures: int32(f.Failures), RecentFailures: f.Recent}
	if !f.LockedUntil.IsZero() {
		p.LockedUntil = &f.LockedUntil
	}
	if err := q.AuthOtpLockoutSave(ctx, p); err != nil {
		return fmt.Errorf("save OTP failures: %w", err)
	}
	return nil
}

// otpLocked is the answer to a locked EMAIL_OTP credential, on verify and on challenge.
func otpLocked(f walletauth.OTPFailures, wait time.Duration) *Error {
	secs := walletauth.RetryAfterSeconds(wait)
	return &Error{Status: http.StatusTooManyRequests, Code: CodeRateLimited, RetryAfter: secs,
		Message: "too many wrong codes: the credential is locked for " + waitText(secs) + "; retry after Retry-After seconds",
		Details: map[string]any{"lockedUntil": ceilSecond(f.LockedUntil).Format(time.RFC3339)}}
}

// ceilSecond rounds t up to a whole second, in UTC.
func ceilSecond(t time.Time) time.Time {
	t = t.UTC()
	if t.Nanosecond() > 0 {
		t = t.Truncate(time.Second).Add(time.Second)
	}
	return t
}

// waitText words a wait of secs seconds: "45 seconds", "5 minutes", "2 hours 10 minutes".
func waitText(secs int) string {
	plural := func(n int, unit string) string {
		if n == 1 {
			return "1 " + unit
		}
		return strconv.Itoa(n) + " " + unit + "s"
	}
	switch {
	case secs < 60:
		return plural(secs, "second")
	case secs < 3600:
		return plural((secs+59)/60, "minute")
	}
	mins := (secs + 59) / 60
	if mins%60 == 0 {
		return plural(mins/60, "hour")
	}
	return plural(mins/60, "hour") + " " + plural(mins%60, "minute")
}

func sessionOf(s db.AuthSession, typ, nickname string) Session {
	return Session{ID: ids.Format("Session", s.ID), AccountID: ids.Format(ids.InternalAccount, s.AccountID), Type: typ, Nickname: nickname,
		CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt, ExpiresAt: s.ExpiresAt}
}

func (s *Server) listSessions(w http.ResponseWriter, r *http.Request) error {
	acct, err := s.walletAccountQuery(r)
	if err != nil {
		return err
	}
	rows, err := s.q.AuthSessionListActive(r.Context(), acct.InternalAccount.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, dataOf(rows, func(ss db.AuthSessionListActiveRow) Session {
		return sessionOf(ss.AuthSession, ss.CredentialType, ss.CredentialNickname)
	}))
	return nil
}

func (s *Server) deleteSession(w http.ResponseWriter, r *http.Request) error {
	sess, err := s.loadSession(r)
	if err != nil {
		return err
	}
	active := sess.RevokedAt == nil && time.Now().Before(sess.ExpiresAt)
	if !active && r.Header.Get(headerRequestID) == "" {
		return notFound("SESSION_NOT_FOUND", "session")
	}
	typ, err := s.q.AuthCredentialTypeOf(r.Context(), sess.CredentialID)
	if err != nil {
		return fmt.Errorf("load the session's credential: %w", err)
	}
	// A retry is checked even when the session is already gone, so a reused requestId is
	// a 401 as the spec says.
	ch, err := s.signedRetry(r, signedRequest{accountID: sess.AccountID, kind: "REVOKE_SESSION", typ: typ})
	if err != nil {
		return err
	}
	if ch != nil {
		writeJSON(w, http.StatusAccepted, ch)
		return nil
	}
	if _, err := s.q.AuthSessionRevoke(r.Context(), sess.ID); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// oauthIdentity resolves the identity of an OAUTH credential being created: the token's
// issuer must be one of the platform's providers and, outside sandbox, the token must
// verify (sandbox platforms accept any structurally valid JWT from such an issuer; the
// magic verify token is not a JWT and is refused here).
func (s *Server) oauthIdentity(r *http.Request, token string) (oidcClaims, error) {
	claims, err := unverifiedClaims(token)
	if err != nil {
		return oidcClaims{}, unauthorized(reasonBadOIDC, err.Error())
	}
	if verified, err := s.verifyOIDC(r.Context(), token, ""); err == nil {
		return verified, nil
	} else if !principalFrom(r.Context()).Sandbox {
		return oidcClaims{}, err
	}
	iss, _ := claims["iss"].(string)
	sub, _ := claims["sub"].(string)
	email, _ := claims["email"].(string)
	known := false
	providers, err := s.platformProviders(r.Context())
	if err != nil {
		return oidcClaims{}, err
	}
	for _, p := range providers {
		known = known || p.Issuer == iss
	}
	if !known || sub == "" {
		return oidcClaims{}, unauthorized(reasonBadOIDC, "the token's issuer is not one of the platform's OIDC providers, or it has no subject")
	}
	return oidcClaims{Issuer: iss, Subject: sub, Email: email}, nil
}

// verifyOAuth issues a session for a fresh token of the credential's identity.
func (s *Server) verifyOAuth(w http.ResponseWriter, r *http.Request, c db.AuthCredential, b verifyBody, clientKey []byte) error {
	if b.OidcToken == nil {
		return invalidField("oidcToken", "oidcToken is required")
	}
	if !(principalFrom(r.Context()).Sandbox && *b.OidcToken == sandboxOIDC) {
		claims, err := s.verifyOIDC(r.Context(), *b.OidcToken, *b.ClientPublicKey)
		if err != nil {
			return err
		}
		var d struct{ Issuer, Subject string }
		_ = json.Unmarshal(c.Details, &d)
		if claims.Issuer != d.Issuer || claims.Subject != d.Subject {
			return unauthorized(reasonBadOIDC, "the token identifies someone else than this credential")
		}
	}
	out, err := s.issueSession(r, c, clientKey)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
