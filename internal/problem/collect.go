package problem

import "errors"

// Collect gathers the refusals of a request's independent field checks, so that one answer
// names every invalid field at once (details.errors[]). Add takes each check's result; Err
// is the first refusal that is not a field's (which stands alone), else the first field
// error carrying every field error, else nil.
type Collect struct {
	fields []*FieldError
	other  error
}

// Add records err (nil: the check passed) and reports whether it was nil.
func (c *Collect) Add(err error) bool {
	if err == nil {
		return true
	}
	var fe *FieldError
	switch {
	case errors.As(err, &fe):
		c.fields = append(c.fields, fe)
	case c.other == nil:
		c.other = err
	}
	return false
}

// Has reports whether a field error of field was recorded.
func (c *Collect) Has(field string) bool {
	for _, f := range c.fields {
		if f.Field == field {
			return true
		}
	}
	return false
}

// Failed reports whether a check failed.
func (c *Collect) Failed() bool { return c.other != nil || len(c.fields) > 0 }

// Err is the collected refusal: a non-field refusal first, else the first field error,
// its details listing every field error (Errors), else nil.
func (c *Collect) Err() error {
	switch {
	case c.other != nil:
		return c.other
	case len(c.fields) == 0:
		return nil
	}
	first := *c.fields[0]
	details := map[string]any{}
	for k, v := range first.Details {
		details[k] = v
	}
	details[ErrorsKey] = c.fields
	first.Details = details
	return &first
}

// ErrorsKey is the member of an error's details that lists every invalid field.
const ErrorsKey = "errors"

// Entry is one invalid field as details.errors[] lists it.
type Entry struct {
	Field   string `json:"field"`
	Message string `json:"message"`
	Code    string `json:"code,omitempty"`
}

// Entries are the field errors of a collected refusal's details as the envelope lists them
// (fe alone when it was not collected).
func Entries(fe *FieldError) []Entry {
	list, ok := fe.Details[ErrorsKey].([]*FieldError)
	if !ok {
		list = []*FieldError{fe}
	}
	out := make([]Entry, len(list))
	for i, e := range list {
		out[i] = Entry{Field: e.Field, Message: e.Message, Code: string(e.Code)}
	}
	return out
}
