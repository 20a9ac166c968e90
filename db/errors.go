package db

import (
	"errors"

	"github.com/jackc/pgx/v5/pgconn"

	"paycore/internal/account"
	"paycore/internal/catalog"
	"paycore/internal/customer"
	"paycore/internal/extaccount"
	"paycore/internal/platformconfig"
	"paycore/internal/walletauth"
)

// Constraint names the hand-written operations map to domain errors.
const (
	ConstraintCustomerUmaAddress         = "customers_platform_id_uma_address_key"
	ConstraintUmaAddressUnique           = "customers_uma_address_key"
	ConstraintPlatformUmaDomain          = "platforms_uma_domain_key"
	ConstraintPlatformProxySubdomain     = "platforms_proxy_uma_subdomain_key"
	ConstraintCustomerPlatformCustomerID = "customers_platform_id_platform_customer_id_key"
	ConstraintExternalAccountUnique      = "external_accounts_unique_idx"
	ConstraintCustomerAccountUnique      = "internal_accounts_customer_currency_idx"
	ConstraintPlatformAccountUnique      = "internal_accounts_platform_currency_idx"
	ConstraintCredentialOneEmailOTP      = "auth_credentials_one_email_otp_idx"
	ConstraintCredentialOnePasskey       = "auth_credentials_one_passkey_idx"
	ConstraintCredentialOneSMSOTP        = "auth_credentials_one_sms_otp_idx"
	ConstraintAvailableNonNegative       = "ledger_accounts_available_nonnegative"
)

// constraintErrors turns a violated constraint, by name, into the domain error it means:
// the refusal is the domain package's function, db only names the constraint it answers.
// It is the one place Postgres constraint violations become refusals; matching is by
// constraint name, never by error text.
var constraintErrors = map[string]func() error{
	ConstraintCustomerUmaAddress:         customer.UmaAddressTaken,
	ConstraintUmaAddressUnique:           customer.UmaAddressTaken,
	ConstraintPlatformUmaDomain:          platformconfig.DomainTaken,
	ConstraintPlatformProxySubdomain:     platformconfig.ProxySubdomainTaken,
	ConstraintCustomerPlatformCustomerID: customer.PlatformCustomerIDTaken,
	ConstraintExternalAccountUnique:      extaccount.Exists,
	ConstraintCustomerAccountUnique:      account.CustomerAccountExists,
	ConstraintPlatformAccountUnique:      account.PlatformAccountExists,
	ConstraintCredentialOneEmailOTP: func() error {
		return walletauth.CredentialExists(catalog.CredentialEmailOTP)
	},
	ConstraintCredentialOnePasskey: func() error {
		return walletauth.CredentialExists(catalog.CredentialPasskey)
	},
	ConstraintCredentialOneSMSOTP: func() error {
		return walletauth.CredentialExists(catalog.CredentialSMSOTP)
	},
}

// MapConstraint returns the domain error of a constraint violation named in
// constraintErrors, and err unchanged otherwise.
func MapConstraint(err error) error {
	var pg *pgconn.PgError
	if !errors.As(err, &pg) || pg.ConstraintName == "" {
		return err
	}
	if mk, ok := constraintErrors[pg.ConstraintName]; ok {
		return mk()
	}
	return err
}

// ConstraintViolated reports whether err violates the named constraint.
func ConstraintViolated(err error, name string) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && pg.ConstraintName == name
}
