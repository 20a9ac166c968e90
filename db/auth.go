package db

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/internal/walletauth"
)

// OTPCode is a one-time code to store: its hash (walletauth.OTPHash), never the code, and
// its expiry.
type OTPCode struct {
	Hash      []byte
	ExpiresAt time.Time
	// TargetSealed is the code's sealed target key (the encrypted attempt's recipient).
	TargetSealed []byte
}

// CredentialCreate stores a new credential and, when otp is not nil (EMAIL_OTP), its first
// code, sent at now, in one transaction. A second credential of a type an account holds
// once is refused (walletauth.CredentialExists), whatever request got there first.
func CredentialCreate(ctx context.Context, pool *pgxpool.Pool, p AuthCredentialCreateParams, otp *OTPCode, now time.Time) (AuthCredential, error) {
	var cred AuthCredential
	err := withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		var err error
		if cred, err = q.AuthCredentialCreate(ctx, p); err != nil {
			return fmt.Errorf("create credential: %w", MapConstraint(err))
		}
		if otp == nil {
			return nil
		}
		return otpStore(ctx, q, cred.ID, *otp, now)
	})
	return cred, err
}

// CredentialRevoke revokes a credential and every session it issued, at once (at now).
func CredentialRevoke(ctx context.Context, pool *pgxpool.Pool, credentialID uuid.UUID, now time.Time) error {
	return withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		if _, err := q.AuthCredentialDelete(ctx, AuthCredentialDeleteParams{ID: credentialID, Now: now}); err != nil {
			return fmt.Errorf("revoke credential: %w", err)
		}
		if err := q.AuthSessionRevokeByCredential(ctx, AuthSessionRevokeByCredentialParams{CredentialID: credentialID, Now: now}); err != nil {
			return fmt.Errorf("revoke the credential's sessions: %w", err)
		}
		return nil
	})
}

// OTPReissue replaces the pending code of an EMAIL_OTP credential by code unless
// walletauth.CheckReissue refuses it (the credential is locked, or the last code is too
// recent, at now); the new code is sent at now. The pending code's row lock orders
// concurrent requests.
func OTPReissue(ctx context.Context, pool *pgxpool.Pool, credentialID uuid.UUID, code OTPCode, now time.Time) error {
	return withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		pending, fails, err := otpStateForUpdate(ctx, q, credentialID)
		if err != nil {
			return err
		}
		if err := walletauth.CheckReissue(pending, fails, now); err != nil {
			return err
		}
		return otpStore(ctx, q, credentialID, code, now)
	})
}

// OTPVerification is the verification of an EMAIL_OTP credential's code.
type OTPVerification struct {
	CredentialID uuid.UUID
	Code         string
	// Unchecked skips the code check: the sandbox code, given for a sandbox platform.
	Unchecked bool
	// Session is the session to create when the code is right.
	Session AuthSessionCreateParams
	// Retry, when set, is stored instead of creating a session: the challenge of the
	// encrypted code's signed retry, which creates the session (ChallengeSessionCreate).
	Retry *SignedRequestCreateParams
}

// OTPVerify checks a code with walletauth.CheckOTP and, when it is right, spends it,
// clears the credential's wrong-code record and creates the session, in one transaction.
// A wrong code is recorded (on the code and on the credential, which may lock it) and
// committed although the verification fails with walletauth's refusal. The pending code's
// row lock serialises the verifications of a credential, so its wrong-code record is read
// and written by one request at a time. The code's expiry is judged at now.
func OTPVerify(ctx context.Context, pool *pgxpool.Pool, v OTPVerification, now time.Time) (AuthSession, error) {
	var sess AuthSession
	var refusal error
	err := withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		if !v.Unchecked {
			pending, fails, err := otpStateForUpdate(ctx, q, v.CredentialID)
			if err != nil {
				return err
			}
			verdict := walletauth.CheckOTP(v.CredentialID, pending, fails, v.Code, now)
			if verdict.Wrong {
				refusal = verdict.Err
				return otpRecordWrong(ctx, q, v.CredentialID, verdict.Failures)
			}
			if verdict.Err != nil {
				return verdict.Err
			}
			if err := q.AuthOtpDelete(ctx, v.CredentialID); err != nil {
				return fmt.Errorf("spend OTP: %w", err)
			}
		}
		// A correct code (or the sandbox code) clears the wrong-code record.
		if err := q.AuthOtpLockoutClear(ctx, v.CredentialID); err != nil {
			return fmt.Errorf("clear OTP failures: %w", err)
		}
		if v.Retry != nil {
			if _, err := q.SignedRequestCreate(ctx, *v.Retry); err != nil {
				return fmt.Errorf("store the code's signed retry: %w", err)
			}
			return nil
		}
		var err error
		if sess, err = q.AuthSessionCreate(ctx, v.Session); err != nil {
			return fmt.Errorf("create session: %w", err)
		}
		return nil
	})
	if err == nil && refusal != nil {
		return AuthSession{}, refusal
	}
	return sess, err
}

// PasskeySessionCreate completes a passkey authentication in one transaction: it uses the
// challenge (once: walletauth.PasskeyChallengeUsed when another request used it first),
// stores the credential's new details (its sign counter; nil leaves them) and creates the
// session. The challenge is judged, and marked used, at now.
func PasskeySessionCreate(ctx context.Context, pool *pgxpool.Pool, challengeID uuid.UUID, details []byte, p AuthSessionCreateParams, now time.Time) (AuthSession, error) {
	return ChallengeSessionCreate(ctx, pool, challengeID, details, p, now, walletauth.PasskeyChallengeUsed())
}

// ChallengeSessionCreate completes an authentication that answered a stored challenge, in
// one transaction: it uses the challenge (once: used when another request used it first),
// stores the credential's new details (nil leaves them) and creates the session. A
// challenge expired at now counts as used.
func ChallengeSessionCreate(ctx context.Context, pool *pgxpool.Pool, challengeID uuid.UUID, details []byte, p AuthSessionCreateParams, now time.Time, used error) (AuthSession, error) {
	var sess AuthSession
	err := withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		n, err := q.SignedRequestUse(ctx, SignedRequestUseParams{ID: challengeID, Now: now})
		if err != nil {
			return fmt.Errorf("use challenge: %w", err)
		}
		if n == 0 {
			return used
		}
		if details != nil {
			if err := q.AuthCredentialSetDetails(ctx, AuthCredentialSetDetailsParams{ID: p.CredentialID, Details: details}); err != nil {
				return fmt.Errorf("store passkey details: %w", err)
			}
		}
		if sess, err = q.AuthSessionCreate(ctx, p); err != nil {
			return fmt.Errorf("create session: %w", err)
		}
		return nil
	})
	return sess, err
}

// otpStore stores code as the credential's pending code, replacing any other, with a
// fresh attempt count, sent at now.
func otpStore(ctx context.Context, q *queries, credentialID uuid.UUID, code OTPCode, now time.Time) error {
	if err := q.AuthOtpUpsert(ctx, AuthOtpUpsertParams{CredentialID: credentialID, CodeHash: code.Hash, ExpiresAt: code.ExpiresAt,
		TargetKeySealed: code.TargetSealed, Now: now}); err != nil {
		return fmt.Errorf("store OTP: %w", err)
	}
	return nil
}

// otpStateForUpdate locks and reads the pending code of a credential (nil when none) and
// reads its wrong-code record (empty before its first wrong code).
func otpStateForUpdate(ctx context.Context, q *queries, credentialID uuid.UUID) (*walletauth.PendingOTP, walletauth.OTPFailures, error) {
	var pending *walletauth.PendingOTP
	otp, err := q.AuthOtpGetForUpdate(ctx, credentialID)
	switch {
	case err == nil:
		pending = &walletauth.PendingOTP{Hash: otp.CodeHash, ExpiresAt: otp.ExpiresAt, SentAt: otp.SentAt, Attempts: int(otp.Attempts)}
	case !IsNotFound(err):
		return nil, walletauth.OTPFailures{}, fmt.Errorf("lock OTP: %w", err)
	}
	var fails walletauth.OTPFailures
	row, err := q.AuthOtpLockoutGet(ctx, credentialID)
	switch {
	case err == nil:
		fails = walletauth.OTPFailures{Failures: int(row.Failures), Recent: row.RecentFailures}
		if row.LockedUntil != nil {
			fails.LockedUntil = *row.LockedUntil
		}
	case !IsNotFound(err):
		return nil, fails, fmt.Errorf("load OTP failures: %w", err)
	}
	return pending, fails, nil
}

// otpRecordWrong records a wrong code: one more attempt on the pending code, and f as the
// credential's wrong-code record.
func otpRecordWrong(ctx context.Context, q *queries, credentialID uuid.UUID, f walletauth.OTPFailures) error {
	if err := q.AuthOtpCountAttempt(ctx, credentialID); err != nil {
		return fmt.Errorf("count OTP attempt: %w", err)
	}
	p := AuthOtpLockoutSaveParams{CredentialID: credentialID, Failures: int32(f.Failures), RecentFailures: f.Recent}
	if !f.LockedUntil.IsZero() {
		p.LockedUntil = &f.LockedUntil
	}
	if err := q.AuthOtpLockoutSave(ctx, p); err != nil {
		return fmt.Errorf("save OTP failures: %w", err)
	}
	return nil
}

// OTPTargetKey is the sealed target key of a credential's pending code; nil when there is
// no pending code or it was issued without one.
func OTPTargetKey(ctx context.Context, d DBTX, credentialID uuid.UUID) ([]byte, error) {
	k, err := newQueries(d).AuthOtpTargetKey(ctx, credentialID)
	if IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the code's target key: %w", err)
	}
	return k, nil
}
