package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"paycore/db"
	"paycore/db/dbtest"
	"paycore/internal/catalog"
	"paycore/internal/document"
	"paycore/internal/ids"
	"paycore/internal/problem"
)

func passport(holder document.Holder) document.Fields {
	return document.Fields{Type: document.Passport, Country: "DE", Holder: &holder}
}

func docFile() db.DocumentFile {
	return db.DocumentFile{Name: "p.pdf", ContentType: document.PDF, Size: 10, BlobKey: ids.New().String()}
}

// Holders resolve within their platform only, a beneficial owner to its business;
// documents are recorded with their customer, and a verification
// marks exactly one customer's documents submitted, after which they can be neither
// replaced nor deleted.
func TestDocumentHoldersAndSubmission(t *testing.T) {
	t.Parallel()
	pool, _ := dbtest.NewPool(t)
	box := newBox(t)
	ctx := context.Background()
	q := db.New(pool)
	p, s := provision(t, pool, box)
	other, _ := provision(t, pool, box)
	c1, err := db.CustomerOpen(ctx, pool, box, p.ID, newCustomer(t, s, "c-1", "$one@"+s.UmaDomain))
	if err != nil {
		t.Fatal(err)
	}
	c2, err := db.CustomerOpen(ctx, pool, box, p.ID, newCustomer(t, s, "c-2", "$two@"+s.UmaDomain))
	if err != nil {
		t.Fatal(err)
	}
	h1 := document.Holder{Kind: document.HolderCustomer, ID: c1.ID}
	h2 := document.Holder{Kind: document.HolderCustomer, ID: c2.ID}

	got, err := db.DocumentHolderGet(ctx, q, p.ID, h1)
	if err != nil || got.CustomerID != c1.ID || got.CustomerDeleted {
		t.Fatalf("holder %+v, %v", got, err)
	}
	for _, tc := range []struct {
		platform uuid.UUID
		holder   document.Holder
	}{
		{other.ID, h1}, // another platform's customer
		{p.ID, document.Holder{Kind: document.HolderCustomer, ID: ids.New()}},
		{p.ID, document.Holder{Kind: document.HolderBeneficialOwner, ID: c1.ID}},
	} {
		_, err := db.DocumentHolderGet(ctx, q, tc.platform, tc.holder)
		refusedWith(t, err, catalog.ReferenceNotFound)
		_, err = db.DocumentCreate(ctx, q, tc.platform, ids.New(), passport(tc.holder), docFile())
		refusedWith(t, err, catalog.ReferenceNotFound)
	}

	biz, err := db.CustomerOpen(ctx, pool, box, p.ID, newBusinessRecord(t, s))
	if err != nil {
		t.Fatal(err)
	}
	owner, err := db.OwnerCreate(ctx, pool, p.ID, ownerOf(t, ids.Format(ids.Customer, biz.ID), "Smith", 50))
	if err != nil {
		t.Fatal(err)
	}
	ho := document.Holder{Kind: document.HolderBeneficialOwner, ID: owner.ID}
	if got, err := db.DocumentHolderGet(ctx, q, p.ID, ho); err != nil || got.CustomerID != biz.ID {
		t.Fatalf("an owner's documents are its business's: %+v, %v", got, err)
	}
	_, err = db.DocumentHolderGet(ctx, q, other.ID, ho)
	refusedWith(t, err, catalog.ReferenceNotFound)

	d1, err := db.DocumentCreate(ctx, q, p.ID, ids.New(), passport(h1), docFile())
	if err != nil || d1.CustomerID != c1.ID || d1.HolderKind != "Customer" || d1.HolderID != c1.ID || d1.SubmittedAt != nil {
		t.Fatalf("create %+v, %v", d1, err)
	}
	d2, _ := db.DocumentCreate(ctx, q, p.ID, ids.New(), passport(h1), docFile())
	d3, _ := db.DocumentCreate(ctx, q, p.ID, ids.New(), passport(h2), docFile())

	// Another platform's verification of the same customer id marks nothing.
	if n, err := db.DocumentsMarkSubmitted(ctx, pool, other.ID, c1.ID, time.Now()); err != nil || n != 0 {
		t.Fatalf("another platform marked %d, %v", n, err)
	}
	if n, err := db.DocumentsMarkSubmitted(ctx, pool, p.ID, c1.ID, time.Now()); err != nil || n != 2 {
		t.Fatalf("marked %d, %v; want c1's two", n, err)
	}
	if n := count(t, pool, "SELECT count(*) FROM documents WHERE submitted_at IS NOT NULL"); n != 2 {
		t.Fatalf("%d submitted", n)
	}
	_, _, err = db.DocumentReplace(ctx, pool, p.ID, d1.ID, passport(h1), docFile())
	refusedWith(t, err, catalog.DocumentSubmitted)
	_, err = db.DocumentDelete(ctx, pool, p.ID, d2.ID)
	refusedWith(t, err, catalog.DocumentSubmitted)

	// c2's document is open: replaced (the old file's key comes back), then deleted.
	f := docFile()
	out, old, err := db.DocumentReplace(ctx, pool, p.ID, d3.ID, document.Fields{Type: document.UtilityBill, Country: "US"}, f)
	if err != nil || old != d3.BlobKey || out.BlobKey != f.BlobKey || out.DocumentType != "UTILITY_BILL" {
		t.Fatalf("replace %+v %q, %v", out, old, err)
	}
	_, _, err = db.DocumentReplace(ctx, pool, p.ID, d3.ID, passport(h1), docFile())
	if problemField(err) != "documentHolder" {
		t.Fatalf("moved to another holder: %v", err)
	}
	_, _, err = db.DocumentReplace(ctx, pool, other.ID, d3.ID, passport(h2), docFile())
	refusedWith(t, err, catalog.DocumentNotFound)
	_, err = db.DocumentDelete(ctx, pool, other.ID, d3.ID)
	refusedWith(t, err, catalog.DocumentNotFound)
	if key, err := db.DocumentDelete(ctx, pool, p.ID, d3.ID); err != nil || key != f.BlobKey {
		t.Fatalf("delete: %q, %v", key, err)
	}

	// A deleted customer takes no new documents.
	if _, err := db.CustomerDelete(ctx, pool, p.ID, c2.ID); err != nil {
		t.Fatal(err)
	}
	_, err = db.DocumentCreate(ctx, q, p.ID, ids.New(), passport(h2), docFile())
	refusedWith(t, err, catalog.CustomerDeleted)

	// The database keeps a customer's documents its own.
	_, err = pool.Exec(ctx, `INSERT INTO documents (id, platform_id, holder_kind, holder_id, customer_id, document_type, country,
		file_name, content_type, size_bytes, blob_key) VALUES ($1, $2, 'Customer', $3, $4, 'PASSPORT', 'DE', 'a.pdf', 'application/pdf', 1, 'k')`,
		ids.New(), p.ID, c1.ID, c2.ID)
	if !db.ConstraintViolated(err, "documents_customer_holder") {
		t.Fatalf("a customer's document recorded for another customer: %v", err)
	}
	// The platform's document list is counted by list_counts, exactly.
	if n := countDrift(t, pool, "documents"); n != 0 {
		t.Fatalf("%d document count keys differ from the rows", n)
	}
	all, err := db.DocumentPage(ctx, pool, db.DocumentFilter{PlatformID: p.ID}, db.Page[db.IDPos]{Limit: 1})
	var rows int64
	_ = pool.QueryRow(ctx, "SELECT count(*) FROM documents WHERE platform_id = $1", p.ID).Scan(&rows)
	if err != nil || all.Total != rows || rows == 0 {
		t.Fatalf("counted %d of %d documents: %v", all.Total, rows, err)
	}
}

// problemField is the field a field error names ("" for any other error).
func problemField(err error) string {
	var fe *problem.FieldError
	if errors.As(err, &fe) {
		return fe.Field
	}
	return ""
}
