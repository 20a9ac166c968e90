package view

import (
	"encoding/json"
	"time"

	"paycore/db"
	"paycore/internal/catalog"
	"paycore/internal/ids"
)

// ExternalAccount is an account outside the service that money moves to or from.
type ExternalAccount struct {
	ID                            string                        `json:"id"`
	CustomerID                    string                        `json:"customerId,omitempty"`
	Status                        catalog.ExternalAccountStatus `json:"status"`
	PlatformAccountID             *string                       `json:"platformAccountId,omitempty"`
	Currency                      string                        `json:"currency"`
	DefaultUmaDepositAccount      *bool                         `json:"defaultUmaDepositAccount,omitempty"`
	BeneficiaryVerificationStatus *string                       `json:"beneficiaryVerificationStatus,omitempty"`
	BeneficiaryVerifiedData       *BeneficiaryData              `json:"beneficiaryVerifiedData,omitempty"`
	OwnershipType                 *string                       `json:"ownershipType,omitempty"`
	AccountInfo                   json.RawMessage               `json:"accountInfo"`
	CreatedAt                     time.Time                     `json:"createdAt"`
	UpdatedAt                     time.Time                     `json:"updatedAt"`
}

// BeneficiaryData is what beneficiary verification found.
type BeneficiaryData struct {
	FullName string `json:"fullName"`
}

// ExternalAccountOf renders an external account; only customer accounts carry
// customerId and defaultUmaDepositAccount.
func ExternalAccountOf(e db.ExternalAccount) ExternalAccount {
	out := ExternalAccount{ID: ids.Format(ids.ExternalAccount, e.ID), Status: e.Status, PlatformAccountID: e.PlatformAccountID,
		Currency: e.Currency, BeneficiaryVerificationStatus: e.BeneficiaryVerificationStatus, AccountInfo: e.AccountInfo, OwnershipType: e.OwnershipType,
		CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt}
	if e.CustomerID.Valid {
		out.CustomerID = ids.Format(ids.Customer, e.CustomerID.UUID)
		d := e.DefaultUmaDepositAccount
		out.DefaultUmaDepositAccount = &d
	}
	if e.BeneficiaryVerifiedName != nil {
		out.BeneficiaryVerifiedData = &BeneficiaryData{FullName: *e.BeneficiaryVerifiedName}
	}
	return out
}
