package sandbox

// Magic is a value a sandbox platform may give in place of a real embedded-wallet proof.
// It is honoured only for sandbox platforms: for a production platform it is an ordinary
// (wrong) value. Real proofs work in sandbox too.
type Magic string

// The magic values of embedded-wallet authentication.
const (
	// OTP is accepted as the one-time code of any EMAIL_OTP credential.
	OTP Magic = "000000"
	// PasskeySignature, as an assertion's signature, stands for a valid passkey assertion.
	PasskeySignature Magic = "sandbox-valid-passkey-signature"
	// OIDCToken is accepted as a fresh token of any OAUTH credential's identity.
	OIDCToken Magic = "sandbox-valid-oidc-token"
	// WalletSignature is accepted as the Service-Wallet-Signature of any signed retry.
	WalletSignature Magic = "sandbox-valid-signature"
)

// Accepts reports whether given is this magic value and the platform is a sandbox one.
func (m Magic) Accepts(sandbox bool, given string) bool {
	return sandbox && given == string(m)
}
