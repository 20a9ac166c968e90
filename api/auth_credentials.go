package api

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/google/uuid"

	"paycore/db"
	"paycore/db/view"
	"paycore/internal/catalog"
	"paycore/internal/ids"
	"paycore/internal/infra/mailer"
	"paycore/internal/infra/sms"
	"paycore/internal/platformconfig"
	"paycore/internal/problem"
	"paycore/internal/sandbox"
	"paycore/internal/walletauth"
	"paycore/internal/walletcrypto"
)

// walletAccount resolves an accountId given in a body or query: malformed → 400,
// another platform's or unknown → 404, not an embedded wallet → 400.
func (s *Server) walletAccount(r *http.Request, raw *string) (db.InternalAccountGetRow, error) {
	if raw == nil {
		return db.InternalAccountGetRow{}, problem.Field("accountId", "accountId is required")
	}
	id, err := ids.Parse(ids.InternalAccount, *raw)
	if err != nil {
		return db.InternalAccountGetRow{}, problem.Field("accountId", "accountId must be InternalAccount:<uuid>")
	}
	a, err := db.InternalAccountGet(r.Context(), s.Pool, db.InternalAccountGetParams{PlatformID: principalFrom(r.Context()).PlatformID, ID: id})
	if isNoRows(err) {
		return a, errAccountNotFound
	}
	if err != nil {
		return a, fmt.Errorf("load wallet account: %w", err)
	}
	return a, walletauth.CheckWalletAccount(a.InternalAccount.Type)
}

// serveWalletList answers a wallet list (credentials, sessions): the wallet of the
// required accountId query parameter, its rows, rendered in the unpaginated envelope.
func serveWalletList[R, T any](s *Server, w http.ResponseWriter, r *http.Request, list func(ctx context.Context, accountID uuid.UUID) ([]R, error), render func(R) T) error {
	q := newQuery(r, "accountId")
	raw := q.str("accountId")
	if q.err != nil {
		return q.err
	}
	acct, err := s.walletAccount(r, raw)
	if err != nil {
		return err
	}
	rows, err := list(r.Context(), acct.InternalAccount.ID)
	if err != nil {
		return fmt.Errorf("list the wallet's rows: %w", err)
	}
	writeJSON(w, http.StatusOK, dataOf(rows, render))
	return nil
}

// walletConfig reads the caller's platform embedded-wallet configuration; the zero value
// when the platform has none. It is the one place the API reads it.
func (s *Server) walletConfig(ctx context.Context) (platformconfig.Wallet, error) {
	set, err := db.PlatformSettingsGet(ctx, s.Pool, principalFrom(ctx).PlatformID)
	if err != nil || set.Wallet == nil {
		return platformconfig.Wallet{}, err
	}
	return *set.Wallet, nil
}

type credentialCreate struct {
	Type        *catalog.CredentialType `json:"type"`
	AccountID   *string                 `json:"accountId"`
	Email       *string                 `json:"email"`
	PhoneNumber *string                 `json:"phoneNumber"`
	OidcToken   *string                 `json:"oidcToken"`
	Nickname    *string                 `json:"nickname"`
	Challenge   *string                 `json:"challenge"`
	Attestation json.RawMessage         `json:"attestation"`
}

func (b credentialCreate) rules() walletauth.NewCredential {
	return walletauth.NewCredential{Type: b.Type, Email: b.Email, PhoneNumber: b.PhoneNumber, OidcToken: b.OidcToken, Nickname: b.Nickname,
		Challenge: b.Challenge, Attestation: len(b.Attestation) > 0}
}

// createCredential adds a credential to an embedded wallet. The first one needs nothing
// more; any later one is authorised by a signed retry of a session of the wallet.
func (s *Server) createCredential(w http.ResponseWriter, r *http.Request) error {
	b, err := ReadJSON[credentialCreate](r)
	if err != nil {
		return err
	}
	if err := b.rules().Check(); err != nil {
		return err
	}
	acct, err := s.walletAccount(r, b.AccountID)
	if err != nil {
		return err
	}
	existing, err := db.AuthCredentialListByAccount(r.Context(), s.Pool, acct.InternalAccount.ID)
	if err != nil {
		return fmt.Errorf("list credentials: %w", err)
	}
	p, err := s.newCredential(r, acct, b, existing)
	if err != nil {
		return err
	}
	if walletauth.AddNeedsSignature(len(existing)) {
		req := signedRequest{accountID: acct.InternalAccount.ID, kind: walletauth.KindAddCredential, typ: p.Type}
		if answered, err := s.requireSignature(w, r, req); answered || err != nil {
			return err
		}
	}
	out, err := s.storeCredential(r.Context(), p)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, out)
	return nil
}

// newCredential works out what a new credential stores: EMAIL_OTP the address its codes go
// to, SMS_OTP the number, PASSKEY the verified registration, OAUTH the identity of the
// token.
func (s *Server) newCredential(r *http.Request, acct db.InternalAccountGetRow, b credentialCreate, existing []db.AuthCredential) (db.AuthCredentialCreateParams, error) {
	a := acct.InternalAccount
	p := db.AuthCredentialCreateParams{ID: ids.New(), PlatformID: a.PlatformID, AccountID: a.ID, Type: *b.Type, Details: []byte(`{}`)}
	types := make([]catalog.CredentialType, len(existing))
	for i, c := range existing {
		types[i] = c.Type
	}
	var err error
	switch p.Type {
	case catalog.CredentialEmailOTP:
		if p.Nickname, err = s.credentialEmail(r.Context(), acct, b.Email); err != nil {
			return p, err
		}
		return p, walletauth.CheckOnePerAccount(types, p.Type)
	case catalog.CredentialSMSOTP:
		p.Nickname = *b.PhoneNumber
		return p, walletauth.CheckOnePerAccount(types, p.Type)
	case catalog.CredentialPasskey:
		if err := walletauth.CheckOnePerAccount(types, p.Type); err != nil {
			return p, err
		}
		p.Nickname = *b.Nickname
		p.Details, err = s.registerPasskey(r, a.ID, b.Challenge, b.Attestation)
		return p, err
	}
	id, err := s.oauthIdentity(r.Context(), *b.OidcToken)
	p.Nickname, p.Details = id.Nickname(), id.Details()
	return p, err
}

// credentialEmail is the e-mail of an EMAIL_OTP credential: given, or the customer's.
func (s *Server) credentialEmail(ctx context.Context, acct db.InternalAccountGetRow, given *string) (string, error) {
	var customers *string
	if a := acct.InternalAccount; given == nil && a.CustomerID.Valid {
		c, err := db.CustomerGet(ctx, s.Pool, db.CustomerGetParams{PlatformID: a.PlatformID, ID: a.CustomerID.UUID})
		if err != nil {
			return "", fmt.Errorf("load the account's customer: %w", err)
		}
		customers = c.Email
	}
	return walletauth.CredentialEmail(given, customers)
}

// storeCredential stores a new credential; an OTP credential (EMAIL_OTP, SMS_OTP) gets its
// first code, sent once the credential exists, and is shown with the code's target bundle.
func (s *Server) storeCredential(ctx context.Context, p db.AuthCredentialCreateParams) (view.AuthMethod, error) {
	if !p.Type.IsOTP() {
		cred, err := db.CredentialCreate(ctx, s.Pool, p, nil, s.now())
		return view.AuthMethodOf(cred), err
	}
	pol, code, otp, err := s.newOTP(ctx, p.ID)
	if err != nil {
		return view.AuthMethod{}, err
	}
	cred, err := db.CredentialCreate(ctx, s.Pool, p, &otp.OTPCode, s.now())
	if err != nil {
		return view.AuthMethod{}, err
	}
	return otp.shown(cred), s.sendOTP(ctx, cred, code, pol)
}

// issuedOTP is a code to store and the target bundle its encrypted attempt is sealed to.
type issuedOTP struct {
	db.OTPCode
	Bundle string
}

// shown is credential c as the answer that issued the code shows it: with the code's
// otpEncryptionTargetBundle.
func (o issuedOTP) shown(c db.AuthCredential) view.AuthMethod {
	out := view.AuthMethodOf(c)
	out.OtpEncryptionTargetBundle = o.Bundle
	return out
}

// otpTargetLabel is the secret box's label of a code's target key.
const otpTargetLabel = "otp-target-key"

// otpSigner is the deployment's signer of target bundles, derived from the secret box.
func (s *Server) otpSigner() (*ecdsa.PrivateKey, error) {
	return walletcrypto.OTPSigner(s.Box.Derive("otp-bundle-signer"))
}

// newOTP draws a fresh code for a credential under the caller's platform policy, with the
// target key its encrypted attempt is sealed to (stored sealed, shown in a signed bundle).
func (s *Server) newOTP(ctx context.Context, credential uuid.UUID) (walletauth.OTPPolicy, string, issuedOTP, error) {
	c, err := s.walletConfig(ctx)
	if err != nil {
		return walletauth.OTPPolicy{}, "", issuedOTP{}, err
	}
	pol := walletauth.OTPPolicyOf(c, s.Config.MailFrom)
	code, err := pol.NewCode()
	if err != nil {
		return pol, "", issuedOTP{}, err
	}
	target, err := walletcrypto.NewOTPTarget()
	if err != nil {
		return pol, "", issuedOTP{}, err
	}
	signer, err := s.otpSigner()
	if err != nil {
		return pol, "", issuedOTP{}, err
	}
	bundle, err := walletcrypto.OTPTargetBundle(signer, target)
	if err != nil {
		return pol, "", issuedOTP{}, err
	}
	return pol, code, issuedOTP{OTPCode: db.OTPCode{Hash: walletauth.OTPHash(credential, code), ExpiresAt: s.now().Add(pol.TTL),
		TargetSealed: s.Box.Seal(otpTargetLabel, target.Bytes())}, Bundle: bundle}, nil
}

// sendOTP sends a code to an OTP credential: by text message to an SMS_OTP credential's
// number, by mail to an EMAIL_OTP credential's address.
func (s *Server) sendOTP(ctx context.Context, c db.AuthCredential, code string, pol walletauth.OTPPolicy) error {
	if c.Type == catalog.CredentialSMSOTP {
		err := s.SMS.Send(ctx, sms.Message{To: c.Nickname, Body: pol.Text(code), Sandbox: principalFrom(ctx).Sandbox})
		if errors.Is(err, sms.ErrNoTransport) {
			return walletauth.NoSMSGateway()
		}
		if err != nil {
			s.Logger.ErrorContext(ctx, "send OTP by SMS", "error", err)
			return walletauth.SMSNotSent()
		}
		return nil
	}
	subject, body := pol.Mail(code)
	err := s.Mailer.Send(ctx, mailer.Message{To: c.Nickname, From: pol.From, Subject: subject, Body: body, Sandbox: principalFrom(ctx).Sandbox})
	if errors.Is(err, mailer.ErrNoTransport) {
		return walletauth.NoMailTransport()
	}
	if err != nil {
		s.Logger.ErrorContext(ctx, "send OTP", "error", err)
		return walletauth.MailNotSent()
	}
	return nil
}

// loadCredential finds the credential of the path among the caller's platform's.
func (s *Server) loadCredential(r *http.Request) (db.AuthCredential, error) {
	return loadOne(r, "id", ids.AuthMethod, errorOf(walletauth.CredentialNotFound()), func(ctx context.Context, pid, id uuid.UUID) (db.AuthCredential, error) {
		return db.AuthCredentialGet(ctx, s.Pool, db.AuthCredentialGetParams{PlatformID: pid, ID: id})
	})
}

func (s *Server) listCredentials(w http.ResponseWriter, r *http.Request) error {
	return serveWalletList(s, w, r, s.authCredentials, view.AuthMethodOf)
}

// deleteCredential revokes a credential and its sessions, by signed retry of a session of
// another credential of the wallet.
func (s *Server) deleteCredential(w http.ResponseWriter, r *http.Request) error {
	c, err := s.loadCredential(r)
	if err != nil {
		return err
	}
	all, err := db.AuthCredentialListByAccount(r.Context(), s.Pool, c.AccountID)
	if err != nil {
		return fmt.Errorf("list credentials: %w", err)
	}
	if err := walletauth.CheckRevoke(len(all)); err != nil {
		return err
	}
	req := signedRequest{accountID: c.AccountID, kind: walletauth.KindRevokeCredential, typ: c.Type, excludeCredential: c.ID}
	if answered, err := s.requireSignature(w, r, req); answered || err != nil {
		return err
	}
	if err := db.CredentialRevoke(r.Context(), s.Pool, c.ID, s.now()); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

type challengeBody struct {
	ClientPublicKey *string `json:"clientPublicKey"`
}

// challengeCredential sends a fresh code (EMAIL_OTP, SMS_OTP) or issues the WebAuthn
// challenge of a session (PASSKEY).
func (s *Server) challengeCredential(w http.ResponseWriter, r *http.Request) error {
	c, err := s.loadCredential(r)
	if err != nil {
		return err
	}
	var b challengeBody
	if r.ContentLength != 0 {
		// clientPublicKey is required for PASSKEY and ignored for EMAIL_OTP, but the body
		// must still be valid.
		if b, err = ReadJSON[challengeBody](r); err != nil {
			return err
		}
	}
	if err := walletauth.CheckChallenge(c.Type, b.ClientPublicKey); err != nil {
		return err
	}
	if c.Type == catalog.CredentialPasskey {
		ch, err := s.passkeyChallenge(r.Context(), c, *b.ClientPublicKey)
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, ch)
		return nil
	}
	otp, err := s.reissueOTP(r.Context(), c)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, otp.shown(c))
	return nil
}

// reissueOTP replaces the pending code of an OTP credential and sends it.
func (s *Server) reissueOTP(ctx context.Context, c db.AuthCredential) (issuedOTP, error) {
	pol, code, otp, err := s.newOTP(ctx, c.ID)
	if err != nil {
		return otp, err
	}
	if err := db.OTPReissue(ctx, s.Pool, c.ID, otp.OTPCode, s.now()); err != nil {
		return otp, err
	}
	return otp, s.sendOTP(ctx, c, code, pol)
}

type verifyBody struct {
	Type            *catalog.CredentialType `json:"type"`
	Otp             *string                 `json:"otp"`
	OidcToken       *string                 `json:"oidcToken"`
	ClientPublicKey *string                 `json:"clientPublicKey"`
	Assertion       json.RawMessage         `json:"assertion"`
	// EncryptedOtpBundle is the code sealed to its target key with the client's key.
	EncryptedOtpBundle *string `json:"encryptedOtpBundle"`
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
	clientKey, err := walletauth.Verification{Type: b.Type, Otp: b.Otp, OidcToken: b.OidcToken, ClientPublicKey: b.ClientPublicKey,
		EncryptedOtp: b.EncryptedOtpBundle, Assertion: len(b.Assertion) > 0}.Check(c.Type)
	if err != nil {
		return err
	}
	wc, err := s.walletConfig(r.Context())
	if err != nil {
		return err
	}
	if b.EncryptedOtpBundle != nil {
		return s.verifyEncryptedOTP(w, r, c, *b.EncryptedOtpBundle, wc)
	}
	var out view.Session
	switch c.Type {
	case catalog.CredentialPasskey:
		out, err = s.verifyPasskey(r, c, b.Assertion, wc)
	case catalog.CredentialOAuth:
		out, err = s.verifyOAuth(r.Context(), c, *b.OidcToken, *b.ClientPublicKey, clientKey, wc)
	default:
		out, err = s.verifyOTP(r.Context(), c, *b.Otp, clientKey, wc)
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// verifyOTP checks a code (db.OTPVerify counts wrong ones) and issues the session.
func (s *Server) verifyOTP(ctx context.Context, c db.AuthCredential, code string, clientKey []byte, wc platformconfig.Wallet) (view.Session, error) {
	p, key, err := newSession(c, clientKey, wc, s.now())
	if err != nil {
		return view.Session{}, err
	}
	sess, err := db.OTPVerify(ctx, s.Pool, db.OTPVerification{CredentialID: c.ID, Code: code,
		Unchecked: sandbox.OTP.Accepts(principalFrom(ctx).Sandbox, code), Session: p}, s.now())
	if err != nil {
		return view.Session{}, err
	}
	return view.IssuedSessionOf(sess, c, key.Bundle), nil
}

// verifyOAuth issues a session for a fresh token of the credential's identity.
func (s *Server) verifyOAuth(ctx context.Context, c db.AuthCredential, token, clientPublicKey string, clientKey []byte, wc platformconfig.Wallet) (view.Session, error) {
	if !sandbox.OIDCToken.Accepts(principalFrom(ctx).Sandbox, token) {
		id, err := s.verifyOIDC(ctx, wc, token, clientPublicKey)
		if err != nil {
			return view.Session{}, err
		}
		if err := walletauth.CheckSameIdentity(walletauth.StoredIdentity(c.Details), id); err != nil {
			return view.Session{}, err
		}
	}
	return s.issueSession(ctx, c, clientKey, wc)
}

// authCredentials lists the credentials of a wallet account.
func (s *Server) authCredentials(ctx context.Context, accountID uuid.UUID) ([]db.AuthCredential, error) {
	return db.AuthCredentialListByAccount(ctx, s.Pool, accountID)
}
