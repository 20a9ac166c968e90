package db

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

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

// CustomerOpened is what opening one new customer of a batch came to.
type CustomerOpened struct {
	// Verdict is the customer rules' decision on it (customer.Admit): opened, opened
	// before, or refused by a clash with the customer holding one of its identifiers.
	Verdict customer.Verdict
	// Customer is the customer as stored: the one opened, or (Verdict.Exists) the one
	// opened before; zero when refused.
	Customer Customer
}

// CustomersOpen opens a batch of checked new customers of a platform (customer.Create),
// each with an internal account of each of its currencies: it prepares them
// (customersPrepare), opens them in one transaction (customersPrepared.open), and reads
// back the customers it opened. It returns what became of each, in the batch's order.
func CustomersOpen(ctx context.Context, pool *pgxpool.Pool, box *sealbox.Box, platformID uuid.UUID, batch []customer.New) ([]CustomerOpened, error) {
	prepared, err := customersPrepare(ctx, newQueries(pool), box, batch)
	if err != nil {
		return nil, err
	}
	var out []CustomerOpened
	err = withTx(ctx, pool, func(q *queries, tx pgx.Tx) error {
		verdicts, err := prepared.open(ctx, tx, platformID)
		if err != nil {
			return err
		}
		var ids []uuid.UUID
		for i, v := range verdicts {
			if !v.Refused() {
				ids = append(ids, batch[i].Record.ID)
			}
		}
		stored, err := q.CustomersGet(ctx, CustomersGetParams{PlatformID: platformID, Ids: ids})
		if err != nil {
			return fmt.Errorf("read the customers opened: %w", err)
		}
		byID := make(map[uuid.UUID]Customer, len(stored))
		for _, c := range stored {
			byID[c.ID] = c
		}
		out = make([]CustomerOpened, len(batch))
		for i, v := range verdicts {
			out[i] = CustomerOpened{Verdict: v, Customer: byID[batch[i].Record.ID]}
		}
		return nil
	})
	return out, err
}

// CustomerOpen opens one checked new customer of a platform with its accounts: CustomersOpen
// with a batch of one. A platformCustomerId or umaAddress another customer holds is its
// clash's refusal (PLATFORM_CUSTOMER_ID_EXISTS, UMA_ADDRESS_EXISTS), and nothing is written.
func CustomerOpen(ctx context.Context, pool *pgxpool.Pool, box *sealbox.Box, platformID uuid.UUID, n customer.New) (Customer, error) {
	out, err := CustomersOpen(ctx, pool, box, platformID, []customer.New{n})
	if err != nil {
		return Customer{}, err
	}
	if c := out[0].Verdict.Clash; c != nil {
		return Customer{}, c.Err()
	}
	return out[0].Customer, nil
}

// customersOpenAttempts bounds how often customersPrepared.open judges a batch again
// because concurrent transactions took identifiers it had found free.
const customersOpenAttempts = 5

// customersPrepared is a batch of checked new customers made ready to insert, each with
// its accounts: everything opening them needs but the customer rules' verdicts, which only
// the transaction that inserts them can give.
type customersPrepared struct {
	records  []customer.Record
	rows     []customerRow  // the stored form of each record
	accounts [][]accountRow // of each entry, opened with it if it is admitted
	// all are the statements' parameters with every entry admitted, the common case, made
	// here so that the transaction does not wait for them.
	all struct {
		customers CustomersInsertParams
		accounts  InternalAccountsOpenParams
	}
}

// customersPrepare makes a batch of checked new customers ready to insert: their rows
// (identifiers sealed with box, documents encoded) and their accounts' (accountsPrepare:
// one statement on q, which need not be a transaction). It writes nothing, so it can run
// before, or beside, the transaction that opens them.
func customersPrepare(ctx context.Context, q *queries, box *sealbox.Box, batch []customer.New) (customersPrepared, error) {
	p := customersPrepared{records: make([]customer.Record, len(batch)), rows: make([]customerRow, len(batch)),
		accounts: make([][]accountRow, len(batch))}
	var openings []accountOpening
	var owners []int // the entry of each opening
	for i, n := range batch {
		var err error
		if p.rows[i], err = newCustomerRow(box, n.Record); err != nil {
			return customersPrepared{}, err
		}
		p.records[i] = n.Record
		p.rows[i].appendTo(&p.all.customers, n.Record)
		owner := uuid.NullUUID{UUID: n.Record.ID, Valid: true}
		for _, a := range n.Accounts {
			openings, owners = append(openings, accountOpening{customerID: owner, Opening: a}), append(owners, i)
		}
	}
	accounts, err := accountsPrepare(ctx, q, box, openings)
	if err != nil {
		return customersPrepared{}, fmt.Errorf("prepare the new customers' accounts: %w", err)
	}
	for k, a := range accounts {
		p.accounts[owners[k]] = append(p.accounts[owners[k]], a)
	}
	p.all.accounts = accountsParams(accounts)
	return p, nil
}

// open opens the prepared customers inside the caller's transaction tx, in a fixed number
// of statements however large the batch, and returns the customer rules' verdict on each
// entry (customer.Admit), in the batch's order: the admitted customers are inserted in one
// statement (customersInsert), and their internal accounts in one more (accountsInsert).
func (p customersPrepared) open(ctx context.Context, tx pgx.Tx, platformID uuid.UUID) ([]customer.Verdict, error) {
	verdicts, err := customersInsert(ctx, tx, platformID, p)
	if err != nil {
		return nil, err
	}
	accounts := p.all.accounts
	if slices.ContainsFunc(verdicts, func(v customer.Verdict) bool { return !v.Opens() }) {
		var admitted []accountRow
		for i, v := range verdicts {
			if v.Opens() {
				admitted = append(admitted, p.accounts[i]...)
			}
		}
		accounts = accountsParams(admitted)
	}
	if err := accountsInsert(ctx, newQueries(tx), platformID, accounts); err != nil {
		return nil, fmt.Errorf("open the new customers' accounts: %w", err)
	}
	return verdicts, nil
}

// customersInsert judges a batch of new customers (customer.Admit) and inserts those it
// admits, each attempt under a savepoint of tx. The first attempt judges the entries
// against each other only, as if no stored customer held their identifiers, which is the
// common case; it stands when every entry is admitted and inserted. Otherwise (an entry
// clashed with another, or was not inserted because a stored customer holds one of its
// identifiers) the attempt is rolled back, the customers holding the batch's identifiers
// are read, and the batch judged against them and inserted again. A customer a concurrent
// transaction opened since that read may still take an identifier an admitted entry has;
// the batch is then read and judged again. Every verdict is thus the one opening the
// customers one at a time would give.
func customersInsert(ctx context.Context, tx pgx.Tx, platformID uuid.UUID, p customersPrepared) ([]customer.Verdict, error) {
	var holders []customer.Identifiers
	for attempt := range customersOpenAttempts {
		if attempt > 0 {
			var err error
			if holders, err = customersHolding(ctx, newQueries(tx), platformID, p.records); err != nil {
				return nil, err
			}
		}
		verdicts := customer.Admit(platformID, p.records, holders)
		refused := slices.ContainsFunc(verdicts, func(v customer.Verdict) bool { return !v.Opens() })
		if attempt == 0 && refused {
			continue
		}
		params := p.all.customers
		if refused {
			params = CustomersInsertParams{}
			for i, v := range verdicts {
				if v.Opens() {
					p.rows[i].appendTo(&params, p.records[i])
				}
			}
		}
		params.PlatformID = platformID
		inserted, err := customersInsertAdmitted(ctx, tx, params)
		if err != nil {
			return nil, err
		}
		if inserted {
			return verdicts, nil
		}
	}
	return nil, fmt.Errorf("open %d customers: concurrent customers took their identifiers %d times over", len(p.rows), customersOpenAttempts-1)
}

// customersHolding reads the customers holding an identifier of records.
func customersHolding(ctx context.Context, q *queries, platformID uuid.UUID, records []customer.Record) ([]customer.Identifiers, error) {
	p := CustomersHoldingParams{PlatformID: platformID, Ids: make([]uuid.UUID, len(records)),
		PlatformCustomerIds: make([]string, len(records)), UmaAddresses: make([]string, len(records))}
	for i, r := range records {
		p.Ids[i], p.PlatformCustomerIds[i], p.UmaAddresses[i] = r.ID, r.PlatformCustomerID, r.UmaAddress
	}
	holding, err := q.CustomersHolding(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("read the customers holding the batch's identifiers: %w", err)
	}
	holders := make([]customer.Identifiers, len(holding))
	for i, c := range holding {
		holders[i] = customer.Identifiers{ID: c.ID, PlatformID: c.PlatformID, PlatformCustomerID: c.PlatformCustomerID, UmaAddress: c.UmaAddress}
	}
	return holders, nil
}

// customersInsertAdmitted inserts the admitted customers (the rows of p) in one statement,
// under a savepoint of tx. inserted is false, and the savepoint rolled back, when one of them was
// not inserted because a customer holds one of its identifiers.
func customersInsertAdmitted(ctx context.Context, tx pgx.Tx, p CustomersInsertParams) (inserted bool, err error) {
	if len(p.Ids) == 0 {
		return true, nil
	}
	sp, err := tx.Begin(ctx)
	if err != nil {
		return false, fmt.Errorf("savepoint: %w", err)
	}
	defer func() { _ = sp.Rollback(ctx) }() // after Commit, a no-op
	ids, err := newQueries(sp).CustomersInsert(ctx, p)
	if err != nil {
		return false, fmt.Errorf("insert customers: %w", err)
	}
	if len(ids) != len(p.Ids) {
		return false, nil
	}
	if err := sp.Commit(ctx); err != nil {
		return false, fmt.Errorf("release savepoint: %w", err)
	}
	return true, nil
}

// customerRow is what a new customer's record is stored as beyond its plain fields: its
// documents encoded, its identification with the identifier sealed.
type customerRow struct {
	docs              customerDocuments
	idType, idCountry *string
	idNumberSealed    []byte
}

// appendTo adds the customer of record c, stored as r, to CustomersInsert's columns
// (queries/customers.sql).
func (r customerRow) appendTo(p *CustomersInsertParams, c customer.Record) {
	birth := ""
	if c.BirthDate != nil {
		birth = c.BirthDate.Format(time.DateOnly)
	}
	p.Ids = append(p.Ids, c.ID)
	p.PlatformCustomerIds = append(p.PlatformCustomerIds, c.PlatformCustomerID)
	p.CustomerTypes = append(p.CustomerTypes, string(c.Type))
	p.Regions = append(p.Regions, c.Region)
	p.Currencies = append(p.Currencies, strings.Join(c.Currencies, ","))
	p.Emails = append(p.Emails, optionalText(c.Email))
	p.UmaAddresses = append(p.UmaAddresses, c.UmaAddress)
	p.KycStatuses = append(p.KycStatuses, string(c.KycStatus))
	p.FullNames = append(p.FullNames, optionalText(c.FullName))
	p.BirthDates = append(p.BirthDates, birth)
	p.Nationalities = append(p.Nationalities, optionalText(c.Nationality))
	p.Addresses = append(p.Addresses, r.docs.address)
	p.BusinessInfos = append(p.BusinessInfos, r.docs.business)
	p.EndUserTermsConsents = append(p.EndUserTermsConsents, r.docs.consent)
	p.DueDiligences = append(p.DueDiligences, r.docs.diligence)
	p.IDTypes = append(p.IDTypes, optionalText(r.idType))
	p.IDCountries = append(p.IDCountries, optionalText(r.idCountry))
	p.IDNumbersSealed = append(p.IDNumbersSealed, r.idNumberSealed)
}

// optionalText is an optional text column as CustomersInsert takes it: its UTF-8, nil
// (NULL) when absent.
func optionalText(s *string) []byte {
	if s == nil {
		return nil
	}
	return []byte(*s)
}

// newCustomerRow is the row of a checked new customer, its identifier sealed with box.
func newCustomerRow(box *sealbox.Box, r customer.Record) (customerRow, error) {
	idType, idCountry, sealed, err := identification(box, r)
	if err != nil {
		return customerRow{}, err
	}
	d, err := documents(r)
	if err != nil {
		return customerRow{}, err
	}
	return customerRow{docs: d, idType: idType, idCountry: idCountry, idNumberSealed: sealed}, nil
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
