// Package bulkimport holds the rules of bulk customer imports from CSV files: the columns a
// file may have and which of them a row needs, how a row becomes a customer request
// (a customer.Input checked by the customer rules, exactly as POST /customers checks it),
// how a refused row is reported, the id of the customer a row creates, and a job's
// outcome. It is pure Go: the API checks the header and stages the rows, db imports them
// in batches.
package bulkimport

import (
	"encoding/binary"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"paycore/internal/catalog"
	"paycore/internal/customer"
	"paycore/internal/platformconfig"
	"paycore/internal/problem"
)

// Limits of a file and of what a job keeps.
const (
	// MaxRows is the most customer rows one file may have.
	MaxRows = 1_000_000
	// MaxRowBytes bounds one record of the file (all its fields and line breaks): the upload
	// is read record by record and never holds more than about this much of it.
	MaxRowBytes = 1 << 20
	// MaxErrors is how many refused rows a job reports (the first ones, by row number); its
	// failed count has them all.
	MaxErrors = 1000
	// FirstRow is the row number of the first customer row: the header is row 1.
	FirstRow = 2
)

// The columns of a file.
const (
	ColUmaAddress                 = "umaAddress"
	ColPlatformCustomerID         = "platformCustomerId"
	ColCustomerType               = "customerType"
	ColFullName                   = "fullName"
	ColBirthDate                  = "birthDate"
	ColAddressLine1               = "addressLine1"
	ColAddressLine2               = "addressLine2"
	ColCity                       = "city"
	ColState                      = "state"
	ColPostalCode                 = "postalCode"
	ColCountry                    = "country"
	ColBusinessLegalName          = "businessLegalName"
	ColPlatformAccountID          = "platformAccountId"
	ColDescription                = "description"
	ColEmail                      = "email"
	ColBusinessRegistrationNumber = "businessRegistrationNumber"
	ColBusinessTaxID              = "businessTaxId"
)

// Columns lists every column a file may have.
var Columns = []string{ColUmaAddress, ColPlatformCustomerID, ColCustomerType, ColFullName, ColBirthDate, ColAddressLine1,
	ColAddressLine2, ColCity, ColState, ColPostalCode, ColCountry, ColBusinessLegalName, ColPlatformAccountID, ColDescription,
	ColEmail, ColBusinessRegistrationNumber, ColBusinessTaxID}

// HeaderColumns are the columns every header must name.
var HeaderColumns = []string{ColUmaAddress, ColPlatformCustomerID, ColCustomerType}

// required are the columns a row of each customer type must fill.
var required = map[catalog.CustomerType][]string{
	catalog.Individual: {ColUmaAddress, ColPlatformCustomerID, ColFullName, ColBirthDate, ColAddressLine1, ColCity, ColState,
		ColPostalCode, ColCountry},
	catalog.Business: {ColUmaAddress, ColPlatformCustomerID, ColBusinessLegalName, ColAddressLine1, ColCity, ColState,
		ColPostalCode, ColCountry},
}

// only are the columns that belong to one customer type; a row of the other type must
// leave them empty.
var only = map[catalog.CustomerType][]string{
	catalog.Individual: {ColFullName, ColBirthDate},
	catalog.Business:   {ColBusinessLegalName, ColBusinessRegistrationNumber, ColBusinessTaxID},
}

// Header is a file's checked header: its column names in file order.
type Header []string

// CheckHeader checks the first record of a file: known column names (surrounding spaces
// and a leading byte-order mark are dropped), each once, and the columns every file needs.
// A refusal names the field "file".
func CheckHeader(record []string) (Header, error) {
	h := make(Header, len(record))
	for i, name := range record {
		if i == 0 {
			name = strings.TrimPrefix(name, "\uFEFF")
		}
		name = strings.TrimSpace(name)
		switch {
		case name == "":
			return nil, fileError("the header's column %d has no name", i+1)
		case !slices.Contains(Columns, name):
			return nil, fileError("the header names an unknown column %q; the columns are %s", truncate(name, 64), strings.Join(Columns, ", ")).
				With(map[string]any{"column": truncate(name, 64)})
		case slices.Contains(h[:i], name):
			return nil, fileError("the header names the column %s twice", name).With(map[string]any{"column": name})
		}
		h[i] = name
	}
	var missing []string
	for _, c := range HeaderColumns {
		if !slices.Contains(h, c) {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return nil, fileError("the header lacks the required column(s) %s", strings.Join(missing, ", ")).
			With(map[string]any{"missingColumns": missing})
	}
	return h, nil
}

func fileError(format string, args ...any) *problem.FieldError {
	return problem.Field("file", format, args...)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Row is one staged row of a job: its row number and its fields as the file gave them.
type Row struct {
	Number int
	Fields []string
}

// Reader reads rows by the columns of one header.
type Reader struct {
	header Header
	pos    map[string]int
}

// NewReader reads rows of files with header h.
func NewReader(h Header) *Reader {
	pos := make(map[string]int, len(h))
	for i, c := range h {
		pos[c] = i
	}
	return &Reader{header: h, pos: pos}
}

// value is the row's value of column c, surrounding spaces dropped; "" when the header
// has no such column or the row is too short.
func (r *Reader) value(row Row, c string) string {
	i, ok := r.pos[c]
	if !ok || i >= len(row.Fields) {
		return ""
	}
	return strings.TrimSpace(row.Fields[i])
}

// Input is the customer request a row makes. Empty cells are absent members. A row with
// another number of fields than the header, a required cell left empty, or a cell of the
// other customer type filled is refused here; everything else is for customer.Create.
// platformAccountId and description are read but not kept: a customer has no such member.
func (r *Reader) Input(row Row) (customer.Input, error) {
	if len(row.Fields) != len(r.header) {
		return customer.Input{}, problem.Field("", "the row has %d fields; the header has %d columns", len(row.Fields), len(r.header))
	}
	opt := func(c string) *string {
		if v := r.value(row, c); v != "" {
			return &v
		}
		return nil
	}
	typ := opt(ColCustomerType)
	if typ == nil {
		return customer.Input{}, problem.Field(ColCustomerType, "customerType is required (INDIVIDUAL or BUSINESS)")
	}
	t := catalog.CustomerType(*typ)
	for _, c := range required[t] {
		if opt(c) == nil {
			return customer.Input{}, problem.Field(c, "%s is required for %s rows", c, t)
		}
	}
	for other, cols := range only {
		if other == t || required[t] == nil {
			continue
		}
		for _, c := range cols {
			if opt(c) != nil {
				return customer.Input{}, problem.Field(c, "%s applies to %s rows; leave it empty for %s rows", c, other, t)
			}
		}
	}
	in := customer.Input{PlatformCustomerID: opt(ColPlatformCustomerID), CustomerType: typ, UmaAddress: opt(ColUmaAddress),
		Email: opt(ColEmail), FullName: opt(ColFullName), BirthDate: opt(ColBirthDate)}
	addr := customer.AddressInput{Line1: opt(ColAddressLine1), Line2: opt(ColAddressLine2), City: opt(ColCity),
		State: opt(ColState), PostalCode: opt(ColPostalCode), Country: opt(ColCountry)}
	if addr != (customer.AddressInput{}) {
		in.Address = &addr
	}
	if t == catalog.Business {
		in.BusinessInfo = &customer.BusinessInfoInput{LegalName: opt(ColBusinessLegalName),
			RegistrationNumber: opt(ColBusinessRegistrationNumber), TaxID: opt(ColBusinessTaxID)}
	}
	return in, nil
}

// Decide checks a row of job jobID for a platform with settings p, through the customer
// rules of POST /customers: the customer it creates, its id derived from the job and the
// row (CustomerID), or the refusal (a *problem.FieldError naming the row's column, or a
// *problem.Refusal).
func (r *Reader) Decide(jobID uuid.UUID, p platformconfig.Settings, row Row) (customer.New, error) {
	in, err := r.Input(row)
	if err != nil {
		return customer.New{}, err
	}
	n, err := customer.Create(in, p)
	if err != nil {
		return customer.New{}, err
	}
	n.Record.ID = CustomerID(jobID, row.Number)
	return n, nil
}

// CorrelationID is how an error entry names its row: the row's platformCustomerId, or its
// row number when it has none.
func (r *Reader) CorrelationID(row Row) string {
	if v := r.value(row, ColPlatformCustomerID); v != "" {
		return truncate(v, 255)
	}
	return strconv.Itoa(row.Number)
}

// CustomerID is the id of the customer row number row of job jobID creates: the job id
// (a UUIDv7) with its last four bytes replaced by the row number. The customer's id sorts
// with the job's time, and a batch that runs again can never create the row's customer a
// second time: the id is taken.
func CustomerID(jobID uuid.UUID, row int) uuid.UUID {
	id := jobID
	binary.BigEndian.PutUint32(id[12:], uint32(row))
	return id
}

// RowOf is the row number whose customer of job jobID has id, when it is one of them.
func RowOf(jobID, id uuid.UUID) (int, bool) {
	if [12]byte(jobID[:12]) != [12]byte(id[:12]) {
		return 0, false
	}
	return int(binary.BigEndian.Uint32(id[12:])), true
}

// Entry is a refused row as a job reports it.
type Entry struct {
	Row     int
	Code    catalog.Code
	Message string
	// Field is the row's column at fault; "" when the row as a whole is.
	Field         string
	CorrelationID string
}

// EntryOf reports row refused with err, a domain error (*problem.FieldError or
// *problem.Refusal); ok is false for any other error, which is not the row's fault.
// The field a customer rule names is given as the file's column.
func (r *Reader) EntryOf(row Row, err error) (e Entry, ok bool) {
	w, ok := problem.ToWire(err)
	if !ok {
		return Entry{}, false
	}
	var fe *problem.FieldError
	field := ""
	if errors.As(err, &fe) {
		field = ColumnOf(fe.Field)
	}
	return Entry{Row: row.Number, Code: w.Code, Message: messageFor(w.Message, fe, field), Field: field,
		CorrelationID: r.CorrelationID(row)}, true
}

// messageFor rewords a customer rule's message that names a nested request member by the
// file's column ("address.postalCode is required" → "postalCode is required").
func messageFor(msg string, fe *problem.FieldError, column string) string {
	if fe == nil || !strings.Contains(fe.Field, ".") {
		return msg
	}
	return strings.ReplaceAll(msg, fe.Field, column)
}

// fieldColumns maps the members of a customer request that a file fills from a column of
// another name.
var fieldColumns = map[string]string{
	"address":                         ColAddressLine1,
	"address.line1":                   ColAddressLine1,
	"address.line2":                   ColAddressLine2,
	"address.city":                    ColCity,
	"address.state":                   ColState,
	"address.postalCode":              ColPostalCode,
	"address.country":                 ColCountry,
	"region":                          ColCountry, // inferred from the address's country
	"currencies":                      ColCountry, // inferred from the region
	"businessInfo":                    ColBusinessLegalName,
	"businessInfo.legalName":          ColBusinessLegalName,
	"businessInfo.registrationNumber": ColBusinessRegistrationNumber,
	"businessInfo.taxId":              ColBusinessTaxID,
}

// ColumnOf is the column of a file that fills customer request member field.
func ColumnOf(field string) string {
	if c, ok := fieldColumns[field]; ok {
		return c
	}
	return field
}

// Outcome is the final status of a job with successful rows imported: COMPLETED when at
// least one row became a customer, FAILED when none did.
func Outcome(successful int) catalog.BulkImportStatus {
	if successful > 0 {
		return catalog.BulkCompleted
	}
	return catalog.BulkFailed
}

// CheckCount refuses a file with no customer rows or more than MaxRows.
func CheckCount(rows int) error {
	switch {
	case rows == 0:
		return fileError("the file has a header but no customer rows")
	case rows > MaxRows:
		return fileError("the file has more than %d customer rows; split it", MaxRows)
	}
	return nil
}
