package api

import (
	"errors"
	"net/http"

	"paycore/db"
	"paycore/db/view"

	"paycore/internal/platformconfig"
	"paycore/internal/problem"
	"paycore/internal/sandbox"
	"paycore/internal/walletauth"
	"paycore/internal/walletcrypto"
)

// verifyEncryptedOTP is the two-leg verification of an OTP credential by an
// encryptedOtpBundle (the code and the client's key, sealed to the pending code's target
// key). Without signature headers it opens the bundle and checks the code like a plain one
// (a wrong code counts towards the lockout); a right code is spent and answered 202 with a
// payloadToSign whose verificationToken is bound to the client's key. The retry of the same
// request, signed by that key (Grid-Wallet-Signature or Service-Wallet-Signature, with
// Request-Id), issues the session, whose signing key is the client's (never sealed, never
// held here). The sandbox's magic code is accepted inside the bundle; a magic signature is
// not: the session's key must prove itself.
func (s *Server) verifyEncryptedOTP(w http.ResponseWriter, r *http.Request, c db.AuthCredential, bundle string, wc platformconfig.Wallet) error {
	body, ok := r.Context().Value(rawBodyKey{}).([]byte)
	if !ok {
		return errors.New("the encrypted code's verification on a route without the keepBody middleware")
	}
	ctx := r.Context()
	hash := walletauth.RequestHash(r.Method, r.URL.Path, body)
	sig, rid := walletSignature(r), r.Header.Get(headerRequestID)
	if sig != "" || rid != "" {
		reqID, err := walletauth.RetryRequestID(sig, rid)
		if err != nil {
			return err
		}
		is, found, err := s.loadChallenge(ctx, reqID)
		if err != nil {
			return err
		}
		if !found {
			return walletauth.UnknownRequest()
		}
		if err := walletauth.CheckRetry(is, c.AccountID, walletauth.KindOTPSession, hash, s.now()); err != nil {
			return err
		}
		key, err := walletauth.OTPRetryKey(sig, is.Payload)
		if err != nil {
			return err
		}
		p, _, err := newSession(c, key, wc, s.now())
		if err != nil {
			return err
		}
		sess, err := db.ChallengeSessionCreate(ctx, s.Pool, reqID, nil, p, s.now(), walletauth.RetryUsed())
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, view.IssuedSessionOf(sess, c, ""))
		return nil
	}
	sealed, err := db.OTPTargetKey(ctx, s.Pool, c.ID)
	if err != nil {
		return err
	}
	if sealed == nil {
		return problem.Field("encryptedOtpBundle", "no code issued with a target key is pending: call POST /auth/credentials/{id}/challenge for a code and its otpEncryptionTargetBundle")
	}
	scalar, err := s.Box.Open(otpTargetLabel, sealed)
	if err != nil {
		return err
	}
	target, err := walletcrypto.ParseOTPTarget(scalar)
	if err != nil {
		return err
	}
	code, key, err := walletcrypto.OpenOTPBundle(target, bundle)
	if errors.Is(err, walletcrypto.ErrBadOTPBundle) {
		return problem.Field("encryptedOtpBundle", "encryptedOtpBundle is not {encappedPublic, ciphertext} sealing {otp_code, public_key} (a compressed P-256 key) to the pending code's otpEncryptionTargetBundle")
	}
	if err != nil {
		return err
	}
	ch, err := walletauth.NewOTPRetry(c.AccountID, key, r.Method, r.URL.Path, body, s.now())
	if err != nil {
		return err
	}
	pid := principalFrom(ctx)
	retry := db.SignedRequestCreateParams{ID: ch.ID, PlatformID: pid.PlatformID, AccountID: ch.AccountID, Kind: ch.Kind,
		Payload: ch.Payload, RequestHash: ch.Binding, ExpiresAt: ch.ExpiresAt}
	if _, err := db.OTPVerify(ctx, s.Pool, db.OTPVerification{CredentialID: c.ID, Code: code,
		Unchecked: sandbox.OTP.Accepts(pid.Sandbox, code), Retry: &retry}, s.now()); err != nil {
		return err
	}
	markChallenge(ctx)
	writeJSON(w, http.StatusAccepted, view.Challenge{Type: c.Type, PayloadToSign: ch.Payload, RequestID: ch.RequestID(), ExpiresAt: ch.ExpiresAt})
	return nil
}
