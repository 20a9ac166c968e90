// Package extaccount validates the accountInfo object of an external account
// (a bank account, mobile-money account or wallet that a customer or the
// platform pays out to or pulls from).
//
// Parse checks an accountInfo against the variant selected by its
// accountType (44 types: one per supported currency, SWIFT_ACCOUNT and seven
// wallet types), the currency of the external account and, for bank types,
// the beneficiary. It returns the normalized object as it is stored and
// returned by the API, with the paymentRails of bank types added.
//
// Validation is strict: unknown fields, duplicate fields and JSON values of
// the wrong type (including null) are rejected, and strings are never trimmed
// or otherwise altered. Failures are reported as a *FieldError naming the
// JSON path of the offending field relative to the request body.
package extaccount

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"paycore/internal/money"
)

// FieldError is a validation failure naming the JSON path of the offending
// field, relative to the request body, e.g. "accountInfo.iban" or
// "accountInfo.beneficiary.address.postalCode".
type FieldError struct {
	// Field is the dotted JSON path of the offending field ("currency",
	// "accountInfo", "accountInfo.beneficiary.fullName", ...).
	Field string
	// Message says what is wrong, in plain words ("is required").
	Message string
}

// Error returns the field path followed by the message.
func (e *FieldError) Error() string {
	return e.Field + ": " + e.Message
}

// Info is a validated accountInfo.
type Info struct {
	// AccountType is the accountType discriminator, e.g. "USD_ACCOUNT".
	AccountType string
	// Normalized is the accountInfo object as stored and returned: the
	// validated input fields (values unchanged) plus "paymentRails" for bank
	// types, keys sorted.
	Normalized json.RawMessage
	// PaymentRails are the rails of a bank type (e.g. ACH, WIRE, RTP,
	// FEDNOW); nil for wallets.
	PaymentRails []string
	// Identifier is the primary account identifier, whose last digits are
	// the sandbox magic suffix: accountNumber, iban, clabeNumber, pixKey,
	// vpa or phoneNumber for bank types (the first present, in that order),
	// address for wallets, and invoice, bolt12 or lightningAddress for
	// LIGHTNING.
	Identifier string
	// BeneficiaryName is the beneficiary's fullName (INDIVIDUAL) or
	// legalName (BUSINESS); "" for wallets.
	BeneficiaryName string
	// IsWallet is true for the wallet types (…_WALLET and LIGHTNING).
	IsWallet bool
	// Custodial: a wallet held by a VASP (vaspName given), not by its owner.
	Custodial bool
}

// AccountTypes returns every accountType Parse accepts, sorted.
func AccountTypes() []string {
	return slices.Sorted(maps.Keys(specs))
}

// Parse validates raw (the accountInfo JSON object) for an external account
// in currency. On success it returns the validated Info and a nil
// *FieldError; otherwise the first failure found.
func Parse(currency string, raw json.RawMessage) (Info, *FieldError) {
	obj, fe := decodeObject("accountInfo", raw)
	if fe != nil {
		return Info{}, fe
	}
	at, fe := requiredString(obj, "accountInfo", "accountType")
	if fe != nil {
		return Info{}, fe
	}
	spec, ok := specs[at]
	if !ok {
		return Info{}, &FieldError{"accountInfo.accountType", fmt.Sprintf("unknown account type %q", at)}
	}
	if fe := checkCurrency(at, spec, currency); fe != nil {
		return Info{}, fe
	}
	allowed := map[string]bool{"accountType": true, "beneficiary": true}
	for _, f := range spec.fields {
		allowed[f.name] = true
	}
	if spec.wallet {
		allowed["vaspName"] = true
	}
	if !spec.wallet {
		allowed["paymentRails"] = true
	}
	if fe := obj.rejectUnknown("accountInfo", allowed); fe != nil {
		return Info{}, fe
	}

	rails := spec.rails
	if spec.defaultRails != nil {
		rails = spec.defaultRails
	}
	if _, given := obj.vals["paymentRails"]; given || spec.chosenRails {
		var fe *FieldError
		if rails, fe = chooseRails(obj, spec); fe != nil {
			return Info{}, fe
		}
	} else if fe := requireRailFields(obj, spec, rails); fe != nil {
		return Info{}, fe
	}
	out := map[string]any{"accountType": at}
	present := map[string]string{}
	for _, f := range spec.fields {
		v, ok, fe := optionalString(obj, "accountInfo", f.name)
		if fe != nil {
			return Info{}, fe
		}
		if !ok {
			if f.required {
				return Info{}, &FieldError{"accountInfo." + f.name, "is required"}
			}
			continue
		}
		if v == "" {
			if f.required {
				return Info{}, &FieldError{"accountInfo." + f.name, "is required"}
			}
			return Info{}, &FieldError{"accountInfo." + f.name, "must not be empty"}
		}
		if f.check != nil {
			if msg := f.check(v); msg != "" {
				return Info{}, &FieldError{"accountInfo." + f.name, msg}
			}
		}
		out[f.name] = v
		present[f.name] = v
	}

	info := Info{AccountType: at, IsWallet: spec.wallet}
	switch {
	case spec.exactlyOne:
		var given []string
		for _, f := range spec.fields {
			if _, ok := present[f.name]; ok {
				given = append(given, f.name)
			}
		}
		names := fieldNames(spec.fields)
		if len(given) == 0 {
			return Info{}, &FieldError{"accountInfo", "one of " + orList(names) + " is required"}
		}
		if len(given) > 1 {
			return Info{}, &FieldError{"accountInfo." + given[1], "only one of " + orList(names) + " may be given"}
		}
		info.Identifier = present[given[0]]
	case spec.wallet:
		info.Identifier = present["address"]
	default:
		for _, name := range identifierOrder {
			if v, ok := present[name]; ok {
				info.Identifier = v
				break
			}
		}
		if info.Identifier == "" {
			var ids []string
			for _, f := range spec.fields {
				if slices.Contains(identifierOrder, f.name) {
					ids = append(ids, f.name)
				}
			}
			return Info{}, &FieldError{"accountInfo", "one of " + orList(ids) + " is required"}
		}
	}

	if spec.wallet {
		// A wallet's owner and custodian are optional (the newer peer document): the
		// beneficiary as its wallets define it, the VASP's name from GET /vasps.
		if _, ok := obj.vals["beneficiary"]; ok {
			b, name, fe := parseBeneficiary(at, obj)
			if fe != nil {
				return Info{}, fe
			}
			out["beneficiary"] = b
			info.BeneficiaryName = name
		}
		v, ok, fe := stringField(obj, "accountInfo", field{name: "vaspName", check: length(1, 255)})
		if fe != nil {
			return Info{}, fe
		}
		if ok {
			out["vaspName"] = v
			info.Custodial = true
		}
	} else {
		b, name, fe := parseBeneficiary(at, obj)
		if fe != nil {
			return Info{}, fe
		}
		for _, r := range rails {
			if slices.Contains(spec.businessRails, r) && b["beneficiaryType"] != "BUSINESS" {
				return Info{}, &FieldError{"accountInfo.beneficiary.beneficiaryType", fmt.Sprintf("must be BUSINESS: %s pays businesses only", r)}
			}
		}
		out["beneficiary"] = b
		info.BeneficiaryName = name
		info.PaymentRails = slices.Clone(rails)
		out["paymentRails"] = slices.Clone(rails)
	}

	norm, err := encode(out)
	if err != nil { // not reachable: out holds only strings, maps and slices
		return Info{}, &FieldError{"accountInfo", "cannot be encoded: " + err.Error()}
	}
	info.Normalized = norm
	return info, nil
}

// chooseRails reads the paymentRails a request chooses (the peer's newer document has the
// client name them; its 2025-10-13 one had the service set them, which it still does when
// they are absent, except for CNY_ACCOUNT): a non-empty list of the type's rails, each once,
// whose required fields are given.
func chooseRails(obj *object, spec *accountSpec) ([]string, *FieldError) {
	const path = "accountInfo.paymentRails"
	raw, ok := obj.vals["paymentRails"]
	if !ok {
		return nil, &FieldError{path, "is required: one or more of " + orList(spec.rails)}
	}
	var chosen []string
	if err := json.Unmarshal(raw, &chosen); err != nil || len(chosen) == 0 {
		return nil, &FieldError{path, "must be a non-empty array of " + orList(spec.rails)}
	}
	for i, r := range chosen {
		if !slices.Contains(spec.rails, r) || slices.Contains(chosen[:i], r) {
			return nil, &FieldError{path, fmt.Sprintf("must list each of %s at most once, not %q", orList(spec.rails), r)}
		}
	}
	if fe := requireRailFields(obj, spec, chosen); fe != nil {
		return nil, fe
	}
	return chosen, nil
}

// requireRailFields requires the fields each of rails needs (spec.railFields; "a|b" is
// one of a and b).
func requireRailFields(obj *object, spec *accountSpec, rails []string) *FieldError {
	for _, r := range rails {
		for _, need := range spec.railFields[r] {
			names := strings.Split(need, "|")
			given := slices.ContainsFunc(names, func(name string) bool {
				v, ok, _ := optionalString(obj, "accountInfo", name)
				return ok && v != ""
			})
			if !given {
				msg := "is required for " + r
				if len(names) > 1 {
					msg = fmt.Sprintf("is required for %s (or %s)", r, strings.Join(names[1:], ", "))
				}
				return &FieldError{"accountInfo." + names[0], msg}
			}
		}
	}
	return nil
}

// identifierOrder is the precedence of bank identifiers for Info.Identifier.
var identifierOrder = []string{"accountNumber", "iban", "clabeNumber", "pixKey", "vpa", "phoneNumber"}

func checkCurrency(at string, spec *accountSpec, currency string) *FieldError {
	if currency == "" {
		return &FieldError{"currency", "is required"}
	}
	if _, ok := money.Lookup(currency); !ok {
		return &FieldError{"currency", fmt.Sprintf("unknown currency %q", currency)}
	}
	if spec.currencies == nil { // SWIFT_ACCOUNT
		if !money.IsFiat(currency) {
			return &FieldError{"currency", fmt.Sprintf("%s accounts hold a fiat currency, not %s", at, currency)}
		}
		return nil
	}
	if !slices.Contains(spec.currencies, currency) {
		return &FieldError{"currency", fmt.Sprintf("%s accounts hold %s, not %s", at, orList(spec.currencies), currency)}
	}
	return nil
}

// beneficiaryRules are the per-account-type deviations for INDIVIDUAL
// beneficiaries (10.1 last column, 10.3), accepting what both the peer's 2025-10-13
// document and its newer one accept: a field is required only where both require it, and
// where each requires another (EUR: address, then countryOfResidence) one of them is.
type beneficiaryRules struct {
	required []string // fields required in addition to fullName
	anyOf    []string // fields of which at least one is required
	extra    []field  // fields allowed in addition to the baseline
	// only, when set, are the fields allowed instead of the baseline (with their own
	// requirements): a wallet's individual owner.
	only []field
}

var individualRules = map[string]beneficiaryRules{
	"AED_ACCOUNT": {required: []string{"address"}},
	"EUR_ACCOUNT": {anyOf: []string{"address", "countryOfResidence"}},
	"GTQ_ACCOUNT": {required: []string{"countryOfResidence", "phoneNumber"}},
	"JMD_ACCOUNT": {required: []string{"address", "phoneNumber"}},
	"CAD_ACCOUNT": {extra: []field{{name: "registrationNumber"}}},
	"COP_ACCOUNT": {extra: []field{
		{name: "documentType", check: enum("CC", "CE", "TI", "NIT", "PP")},
		{name: "documentNumber", check: length(1, 50)},
	}},
}

// walletIndividual is a wallet's individual owner as the newer peer document defines it:
// fullName and countryOfResidence, both required.
var walletIndividual = beneficiaryRules{only: []field{
	{name: "fullName", required: true, check: length(1, 255)},
	{name: "countryOfResidence", required: true, check: countryCode},
}}

// rules are the beneficiary rules of an account type for a beneficiary type.
func rules(at, beneficiaryType string) beneficiaryRules {
	switch {
	case beneficiaryType != "INDIVIDUAL":
		return beneficiaryRules{}
	case specs[at].wallet:
		return walletIndividual
	}
	return individualRules[at]
}

// Baseline beneficiary fields (10.3). address is handled separately.
var (
	individualFields = []field{
		{name: "fullName", required: true, check: length(1, 255)},
		{name: "birthDate"},
		{name: "nationality", check: countryCode},
		{name: "email", check: email},
		{name: "phoneNumber"},
		{name: "countryOfResidence", check: countryCode},
	}
	businessFields = []field{
		{name: "legalName", required: true, check: length(1, 255)},
		{name: "registrationNumber"},
		{name: "taxId"},
		{name: "email", check: email},
		{name: "phoneNumber"},
		{name: "countryOfResidence", check: countryCode},
	}
	addressFields = []field{
		{name: "line1", required: true, check: length(1, 255)},
		{name: "line2"},
		{name: "city"},
		{name: "state"},
		{name: "postalCode", required: true, check: length(1, 20)},
		{name: "country", required: true, check: countryCode},
	}
)

func parseBeneficiary(at string, acct *object) (map[string]any, string, *FieldError) {
	const path = "accountInfo.beneficiary"
	rawB, ok := acct.vals["beneficiary"]
	if !ok {
		return nil, "", &FieldError{path, "is required"}
	}
	obj, fe := decodeObject(path, rawB)
	if fe != nil {
		return nil, "", fe
	}
	bt, fe := requiredString(obj, path, "beneficiaryType")
	if fe != nil {
		return nil, "", fe
	}
	var (
		fields   []field
		required []string
		nameKey  string
	)
	switch bt {
	case "INDIVIDUAL":
		rules := individualRules[at]
		if specs[at].wallet {
			rules = walletIndividual
		}
		fields = slices.Concat(individualFields, rules.extra)
		if rules.only != nil {
			fields = rules.only
		}
		required = rules.required
		nameKey = "fullName"
		if len(rules.anyOf) > 0 && !slices.ContainsFunc(rules.anyOf, func(name string) bool { _, ok := obj.vals[name]; return ok }) {
			return nil, "", &FieldError{path + "." + rules.anyOf[0], fmt.Sprintf("one of %s is required for an individual beneficiary of a %s", orList(rules.anyOf), at)}
		}
	case "BUSINESS":
		fields = businessFields
		nameKey = "legalName"
	default:
		return nil, "", &FieldError{path + ".beneficiaryType", fmt.Sprintf("must be INDIVIDUAL or BUSINESS, not %q", bt)}
	}
	allowed := map[string]bool{"beneficiaryType": true, "address": rules(at, bt).only == nil}
	for _, f := range fields {
		allowed[f.name] = true
	}
	if fe := obj.rejectUnknown(path, allowed); fe != nil {
		return nil, "", fe
	}
	out := map[string]any{"beneficiaryType": bt}
	for _, f := range fields {
		f.required = f.required || slices.Contains(required, f.name)
		v, ok, fe := stringField(obj, path, f)
		if fe != nil {
			return nil, "", fe
		}
		if ok {
			out[f.name] = v
		}
	}
	if rawA, ok := obj.vals["address"]; ok {
		a, fe := parseAddress(path+".address", rawA)
		if fe != nil {
			return nil, "", fe
		}
		out["address"] = a
		// An individual named by address only (as the peer's older document allows) lives
		// where the address is: its countryOfResidence, which the newer document requires,
		// is the address's country.
		if _, given := out["countryOfResidence"]; bt == "INDIVIDUAL" && !given && allowed["countryOfResidence"] && a["country"] != nil {
			out["countryOfResidence"] = a["country"]
		}
	} else if slices.Contains(required, "address") {
		return nil, "", &FieldError{path + ".address", fmt.Sprintf("is required for an individual beneficiary of a %s", at)}
	}
	return out, out[nameKey].(string), nil
}

func parseAddress(path string, raw json.RawMessage) (map[string]any, *FieldError) {
	obj, fe := decodeObject(path, raw)
	if fe != nil {
		return nil, fe
	}
	allowed := map[string]bool{}
	for _, f := range addressFields {
		allowed[f.name] = true
	}
	if fe := obj.rejectUnknown(path, allowed); fe != nil {
		return nil, fe
	}
	out := map[string]any{}
	for _, f := range addressFields {
		v, ok, fe := stringField(obj, path, f)
		if fe != nil {
			return nil, fe
		}
		if ok {
			out[f.name] = v
		}
	}
	return out, nil
}

// stringField reads an optional or required string field of obj and checks
// it. Plain optional strings (no check) may be empty; required ones may not.
func stringField(obj *object, path string, f field) (string, bool, *FieldError) {
	v, ok, fe := optionalString(obj, path, f.name)
	if fe != nil {
		return "", false, fe
	}
	if !ok || (v == "" && f.required) {
		if f.required {
			return "", false, &FieldError{path + "." + f.name, "is required"}
		}
		return "", false, nil
	}
	if f.check != nil {
		if msg := f.check(v); msg != "" {
			return "", false, &FieldError{path + "." + f.name, msg}
		}
	}
	return v, true, nil
}

// object is a decoded JSON object: its values by key and its keys in input
// order.
type object struct {
	keys []string
	vals map[string]json.RawMessage
}

// decodeObject decodes raw as a single JSON object, rejecting anything else
// and duplicate keys.
func decodeObject(path string, raw json.RawMessage) (*object, *FieldError) {
	if !json.Valid(raw) {
		return nil, &FieldError{path, "must be a valid JSON object"}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, &FieldError{path, "must be an object"}
	}
	obj := &object{vals: map[string]json.RawMessage{}}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, &FieldError{path, "must be a valid JSON object"}
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, &FieldError{path, "must be a valid JSON object"}
		}
		if _, dup := obj.vals[key]; dup {
			return nil, &FieldError{path + "." + key, "is given more than once"}
		}
		obj.keys = append(obj.keys, key)
		obj.vals[key] = v
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, &FieldError{path, "must be a valid JSON object"}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, &FieldError{path, "must be a single JSON object"}
	}
	return obj, nil
}

// rejectUnknown fails on the first key (in input order) not in allowed.
func (o *object) rejectUnknown(path string, allowed map[string]bool) *FieldError {
	for _, k := range o.keys {
		if !allowed[k] {
			return &FieldError{path + "." + k, "unknown field"}
		}
	}
	return nil
}

// optionalString returns the string value of key, ok=false when absent, and
// a FieldError when the value is not a JSON string (null included).
func optionalString(o *object, path, key string) (string, bool, *FieldError) {
	raw, ok := o.vals[key]
	if !ok {
		return "", false, nil
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return "", false, &FieldError{path + "." + key, "must be a string"}
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false, &FieldError{path + "." + key, "must be a string"}
	}
	return s, true, nil
}

// requiredString is optionalString for a field that must be present and
// non-empty.
func requiredString(o *object, path, key string) (string, *FieldError) {
	s, ok, fe := optionalString(o, path, key)
	if fe != nil {
		return "", fe
	}
	if !ok || strings.TrimSpace(s) == "" {
		return "", &FieldError{path + "." + key, "is required (not blank)"}
	}
	return s, nil
}

// encode marshals v without HTML escaping and without a trailing newline.
func encode(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return json.RawMessage(bytes.TrimRight(buf.Bytes(), "\n")), nil
}

func fieldNames(fs []field) []string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.name
	}
	return names
}

// orList joins names as "a", "a or b", "a, b or c".
func orList(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
