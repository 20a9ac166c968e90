package api_test

import (
	"context"
	"testing"

	"paycore/internal/document"
	"paycore/internal/infra/config"
)

// A customer and its owners hold at most PAYCORE_DOCUMENTS_PER_CUSTOMER documents: an upload
// over it is 409 DOCUMENT_LIMIT_REACHED and leaves nothing behind; another customer is not
// affected.
func TestDocumentsPerCustomerCap(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *config.Config) { c.DocumentsPerCustomer = 2 })
	c, _ := e.platform(true)
	cust := newCustomer(t, c, "US", "USD")
	other := newCustomer(t, c, "US", "USD")
	pdf := sampleFile(t, document.PDF, 4<<10)
	for i := range 2 {
		if r := sendForm(t, c, "POST", "/documents", passportForm(cust.ID, pdf)...); r.Status != 201 {
			t.Fatalf("upload %d: %d %s", i, r.Status, r.Body)
		}
	}
	expectError(t, sendForm(t, c, "POST", "/documents", passportForm(cust.ID, pdf)...), 409, "DOCUMENT_LIMIT_REACHED")
	var rows int
	if err := e.pool.QueryRow(context.Background(), "SELECT count(*) FROM documents").Scan(&rows); err != nil {
		t.Fatal(err)
	}
	names, err := e.docs.Names(context.Background())
	if err != nil || rows != 2 || len(names) != 2 {
		t.Fatalf("after a refused upload: %d rows, files %v (%v)", rows, names, err)
	}
	if r := sendForm(t, c, "POST", "/documents", passportForm(other.ID, pdf)...); r.Status != 201 {
		t.Fatalf("another customer's upload: %d %s", r.Status, r.Body)
	}
}
