package db

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/internal/customer"
	"paycore/internal/kit/sealbox"
)

// CustomerRecord is a stored customer as the customer rules read it, its documents
// decoded.
func CustomerRecord(c Customer) (customer.Record, error) {
	addr, err := customer.DecodeAddress(c.Address)
	if err != nil {
		return customer.Record{}, fmt.Errorf("customer %s: %w", c.ID, err)
	}
	info, err := customer.DecodeBusinessInfo(c.BusinessInfo)
	if err != nil {
		return customer.Record{}, fmt.Errorf("customer %s: %w", c.ID, err)
	}
	consent, err := customer.DecodeTermsConsent(c.EndUserTermsConsent)
	if err != nil {
		return customer.Record{}, fmt.Errorf("customer %s: %w", c.ID, err)
	}
	diligence, err := customer.DecodeDueDiligence(c.DueDiligence)
	if err != nil {
		return customer.Record{}, fmt.Errorf("customer %s: %w", c.ID, err)
	}
	rec := customer.Record{ID: c.ID, PlatformCustomerID: c.PlatformCustomerID, Type: c.CustomerType, Region: c.Region,
		Currencies: c.Currencies, Email: c.Email, UmaAddress: c.UmaAddress, KycStatus: c.KycStatus, FullName: c.FullName,
		BirthDate: c.BirthDate, Nationality: c.Nationality, Address: addr, BusinessInfo: info, TermsConsent: consent, IsDeleted: c.IsDeleted,
		DueDiligence: diligence}
	if c.IDType != nil && c.IDCountry != nil {
		rec.Identification = &customer.Identification{IDType: *c.IDType, Country: *c.IDCountry}
	}
	return rec, nil
}

// identifierLabel is the secret box's label of an individual's sealed tax identifier.
const identifierLabel = "customer-identifier"

// identification is the stored form of r's identification: its type and country, and its
// identifier sealed with box (nil when none was given, the stored one then standing).
func identification(box *sealbox.Box, r customer.Record) (idType, country *string, sealed []byte, err error) {
	id := r.Identification
	if id == nil {
		return nil, nil, nil, nil
	}
	if id.Number != "" {
		if box == nil {
			return nil, nil, nil, fmt.Errorf("customer %s: an identifier to seal without a secret box", r.ID)
		}
		sealed = box.Seal(identifierLabel, []byte(id.Number))
	}
	return &id.IDType, &id.Country, sealed, nil
}

// customerRecordGet reads a customer of a platform for the customer rules; an unknown
// one (or another platform's) is customer.NotFound.
func customerRecordGet(ctx context.Context, q *queries, platformID, id uuid.UUID) (customer.Record, error) {
	c, err := q.CustomerGet(ctx, CustomerGetParams{PlatformID: platformID, ID: id})
	if IsNotFound(err) {
		return customer.Record{}, customer.NotFound()
	}
	if err != nil {
		return customer.Record{}, fmt.Errorf("get customer: %w", err)
	}
	return CustomerRecord(c)
}

// customerDocuments are a record's JSON documents (nil when absent).
type customerDocuments struct {
	address, business, consent, diligence json.RawMessage
}

// documents encodes a record's address, business information and End User Terms consent.
func documents(r customer.Record) (d customerDocuments, err error) {
	if d.address, err = encodeDocument(r.Address, "address"); err != nil {
		return d, err
	}
	if d.business, err = encodeDocument(r.BusinessInfo, "business info"); err != nil {
		return d, err
	}
	if d.diligence, err = encodeDocument(r.DueDiligence, "due diligence"); err != nil {
		return d, err
	}
	d.consent, err = encodeDocument(r.TermsConsent, "End User Terms consent")
	return d, err
}

// encodeDocument is the JSON of a stored document, nil when there is none.
func encodeDocument[T any](v *T, what string) (json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", what, err)
	}
	return b, nil
}

// CustomerCreateWithAccounts stores a checked new customer of a platform with an internal
// account of each of its currencies, in one transaction. A platformCustomerId or
// umaAddress the platform already uses is refused (PLATFORM_CUSTOMER_ID_EXISTS,
// UMA_ADDRESS_EXISTS) and nothing is written.
func CustomerCreateWithAccounts(ctx context.Context, pool *pgxpool.Pool, box *sealbox.Box, platformID uuid.UUID, n customer.New) (Customer, error) {
	params, err := customerCreateParams(box, platformID, n.Record)
	if err != nil {
		return Customer{}, err
	}
	var out Customer
	err = withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		var err error
		out, err = q.CustomerCreate(ctx, params)
		if err != nil {
			return MapConstraint(fmt.Errorf("create customer: %w", err))
		}
		return customerAccountsOpen(ctx, q, box, platformID, out.ID, n)
	})
	return out, err
}

// customerCreateParams is the row of a checked new customer, its identifier sealed with box.
func customerCreateParams(box *sealbox.Box, platformID uuid.UUID, r customer.Record) (CustomerCreateParams, error) {
	d, err := documents(r)
	if err != nil {
		return CustomerCreateParams{}, err
	}
	idType, idCountry, sealed, err := identification(box, r)
	if err != nil {
		return CustomerCreateParams{}, err
	}
	return CustomerCreateParams{ID: r.ID, PlatformID: platformID, PlatformCustomerID: r.PlatformCustomerID,
		CustomerType: r.Type, Region: r.Region, Currencies: r.Currencies, Email: r.Email, UmaAddress: r.UmaAddress, KycStatus: r.KycStatus,
		FullName: r.FullName, BirthDate: r.BirthDate, Nationality: r.Nationality, Address: d.address, BusinessInfo: d.business,
		EndUserTermsConsent: d.consent, DueDiligence: d.diligence, IDType: idType, IDCountry: idCountry, IDNumberSealed: sealed}, nil
}

// customerAccountsOpen opens, in the caller's transaction, the internal accounts a new
// customer's currencies take.
func customerAccountsOpen(ctx context.Context, q *queries, box *sealbox.Box, platformID, customerID uuid.UUID, n customer.New) error {
	for _, o := range n.Accounts {
		if _, err := internalAccountOpen(ctx, q, box, platformID, uuid.NullUUID{UUID: customerID, Valid: true}, o); err != nil {
			return fmt.Errorf("open %s account: %w", o.Currency, err)
		}
	}
	return nil
}

// CustomerPatchParams describe an update of a customer.
type CustomerPatchParams struct {
	PlatformID, ID uuid.UUID
	// Check checks the update against the customer as locked and returns what to store.
	Check func(customer.Record) (customer.Change, error)
	// EmailCredential, when valid, is the customer's EMAIL_OTP credential, which follows
	// the customer to its new e-mail address.
	EmailCredential uuid.NullUUID
}

// CustomerPatch updates a customer in one transaction: the update is checked again under
// the customer's row lock, a replaced currency list opens and closes accounts
// (customerAccountsReplace; an account that cannot be closed refuses the whole update),
// an e-mail change moves the EMAIL_OTP credential along, and an identity change that
// sends the customer back through verification records its status webhook.
func (s Store) CustomerPatch(ctx context.Context, box *sealbox.Box, p CustomerPatchParams) (Customer, error) {
	var out Customer
	err := withTx(ctx, s.pool, func(q *queries, _ pgx.Tx) error {
		var err error
		out, err = customerPatchTx(ctx, q, box, p, s.views)
		return err
	})
	return out, err
}

// customerPatchTx is CustomerPatch within a transaction; v renders the status webhook of an
// identity change that sends the customer back through verification (customer.Change.Reverify).
func customerPatchTx(ctx context.Context, q *queries, box *sealbox.Box, p CustomerPatchParams, v KycViews) (Customer, error) {
	ch, err := customerChangeLocked(ctx, q, p)
	if err != nil {
		return Customer{}, err
	}
	if p.EmailCredential.Valid && ch.Record.Email != nil {
		if err := q.AuthCredentialSetNickname(ctx, AuthCredentialSetNicknameParams{ID: p.EmailCredential.UUID, Nickname: *ch.Record.Email}); err != nil {
			return Customer{}, fmt.Errorf("move e-mail credential: %w", err)
		}
	}
	if ch.ReplacesCurrencies {
		if err := customerAccountsReplace(ctx, q, box, p.PlatformID, p.ID, ch.Accounts); err != nil {
			return Customer{}, err
		}
	}
	r := ch.Record
	d, err := documents(r)
	if err != nil {
		return Customer{}, err
	}
	idType, idCountry, sealed, err := identification(box, r)
	if err != nil {
		return Customer{}, err
	}
	out, err := q.CustomerUpdate(ctx, CustomerUpdateParams{PlatformID: p.PlatformID, ID: p.ID, Currencies: r.Currencies, Email: r.Email,
		UmaAddress: r.UmaAddress, KycStatus: r.KycStatus, FullName: r.FullName, BirthDate: r.BirthDate, Nationality: r.Nationality,
		Address: d.address, BusinessInfo: d.business, EndUserTermsConsent: d.consent, DueDiligence: d.diligence,
		IDType: idType, IDCountry: idCountry, IDNumberSealed: sealed})
	if err != nil {
		return Customer{}, MapConstraint(fmt.Errorf("update customer: %w", err))
	}
	if ch.Reverify {
		if err := customerStatusEvent(ctx, q, out, v); err != nil {
			return Customer{}, err
		}
	}
	return out, nil
}

// customerChangeLocked locks the customer and checks the update against it.
func customerChangeLocked(ctx context.Context, q *queries, p CustomerPatchParams) (customer.Change, error) {
	c, err := q.CustomerGetForUpdate(ctx, CustomerGetForUpdateParams{PlatformID: p.PlatformID, ID: p.ID})
	if IsNotFound(err) {
		return customer.Change{}, customer.NotFound()
	}
	if err != nil {
		return customer.Change{}, fmt.Errorf("lock customer: %w", err)
	}
	rec, err := CustomerRecord(c)
	if err != nil {
		return customer.Change{}, err
	}
	return p.Check(rec)
}

// CustomerDelete marks a customer deleted; a deleted one is refused with
// customer.AlreadyDeleted, an unknown one with customer.NotFound.
func CustomerDelete(ctx context.Context, d DBTX, platformID, id uuid.UUID) (Customer, error) {
	q := newQueries(d)
	c, err := q.CustomerMarkDeleted(ctx, CustomerMarkDeletedParams{PlatformID: platformID, ID: id})
	if err == nil {
		return c, nil
	}
	if !IsNotFound(err) {
		return Customer{}, fmt.Errorf("delete customer: %w", err)
	}
	_, err = q.CustomerGet(ctx, CustomerGetParams{PlatformID: platformID, ID: id})
	switch {
	case err == nil:
		return Customer{}, customer.AlreadyDeleted()
	case IsNotFound(err):
		return Customer{}, customer.NotFound()
	}
	return Customer{}, fmt.Errorf("get customer: %w", err)
}
