package db

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"paycore/internal/document"
	"paycore/internal/ids"
)

// DocumentHolder is a documentHolder resolved on its platform.
type DocumentHolder struct {
	document.Holder
	// CustomerID is the customer verified with the holder's documents: the holder itself,
	// or the business customer a beneficial owner belongs to.
	CustomerID      uuid.UUID
	CustomerDeleted bool
}

// documentHolderGet resolves a documentHolder of a platform. It is the one place a holder
// id is looked up: an unknown holder, or another platform's, is document.HolderNotFound
// (404 REFERENCE_NOT_FOUND). Customers resolve to themselves, beneficial owners to the
// business customer they belong to.
func documentHolderGet(ctx context.Context, q *queries, platformID uuid.UUID, h document.Holder) (DocumentHolder, error) {
	customerID := h.ID
	if h.Kind == document.HolderBeneficialOwner {
		o, err := q.OwnerGet(ctx, OwnerGetParams{PlatformID: platformID, ID: h.ID})
		if IsNotFound(err) {
			return DocumentHolder{}, document.HolderNotFound(h)
		}
		if err != nil {
			return DocumentHolder{}, fmt.Errorf("get document holder %s: %w", h, err)
		}
		customerID = o.CustomerID
	} else if h.Kind != document.HolderCustomer {
		return DocumentHolder{}, document.HolderNotFound(h)
	}
	c, err := q.CustomerGet(ctx, CustomerGetParams{PlatformID: platformID, ID: customerID})
	if IsNotFound(err) {
		return DocumentHolder{}, document.HolderNotFound(h)
	}
	if err != nil {
		return DocumentHolder{}, fmt.Errorf("get document holder %s: %w", h, err)
	}
	return DocumentHolder{Holder: h, CustomerID: c.ID, CustomerDeleted: c.IsDeleted}, nil
}

// DocumentHolderOf is the holder a stored document names.
func DocumentHolderOf(d Document) document.Holder {
	return document.Holder{Kind: document.HolderKind(d.HolderKind), ID: d.HolderID}
}

// DocumentFile is a document's file as stored in the document store.
type DocumentFile struct {
	Name        string
	ContentType document.ContentType
	Size        int64
	BlobKey     string
}

// documentCreate records a new document of a platform whose file is stored: its holder
// (f.Holder) must exist on the platform and its customer must not be deleted.
func documentCreate(ctx context.Context, q *queries, platformID, id uuid.UUID, f document.Fields, file DocumentFile) (Document, error) {
	if f.Holder == nil {
		return Document{}, fmt.Errorf("create document: no holder")
	}
	h, err := documentHolderGet(ctx, q, platformID, *f.Holder)
	if err != nil {
		return Document{}, err
	}
	if err := document.CheckHolder(h.CustomerDeleted); err != nil {
		return Document{}, err
	}
	d, err := q.DocumentInsert(ctx, DocumentInsertParams{ID: id, PlatformID: platformID, HolderKind: string(h.Kind), HolderID: h.ID,
		CustomerID: h.CustomerID, DocumentType: string(f.Type), Side: (*string)(f.Side), Country: f.Country,
		DocumentNumber: f.DocumentNumber, IssuingAuthority: f.IssuingAuthority, FileName: file.Name,
		ContentType: string(file.ContentType), SizeBytes: file.Size, BlobKey: file.BlobKey})
	if err != nil {
		return Document{}, fmt.Errorf("insert document: %w", err)
	}
	return d, nil
}

// DocumentUpload records a new document like documentCreate, in a transaction that then
// checks the customer's documents against maxPerCustomer (documentsWithin).
func DocumentUpload(ctx context.Context, pool *pgxpool.Pool, platformID, id uuid.UUID, f document.Fields, file DocumentFile, maxPerCustomer int) (Document, error) {
	var d Document
	err := withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		var err error
		if d, err = documentCreate(ctx, q, platformID, id, f, file); err != nil {
			return err
		}
		return documentsWithin(ctx, q, platformID, d.CustomerID, maxPerCustomer)
	})
	return d, err
}

// documentsWithin refuses, under a lock on the customer's documents held until the
// transaction ends, a write after which a customer and its beneficial owners hold more
// than max documents (document.CheckCustomerCount).
func documentsWithin(ctx context.Context, q *queries, platformID, customerID uuid.UUID, max int) error {
	if err := q.DocumentsLockOfCustomer(ctx, customerID.String()); err != nil {
		return fmt.Errorf("lock the customer's documents: %w", err)
	}
	n, err := q.DocumentCountOfCustomer(ctx, DocumentCountOfCustomerParams{PlatformID: platformID, CustomerID: customerID})
	if err != nil {
		return fmt.Errorf("count documents: %w", err)
	}
	return document.CheckCustomerCount(int(n), max)
}

// DocumentReplace replaces the file and metadata of a document of a platform in one
// transaction, under the document's row lock: the replacement is checked against the
// document as locked (document.CheckReplace: not submitted, same holder) and its holder
// (document.CheckHolder). oldBlobKey is the replaced file's, for the caller to delete once
// this has committed.
func DocumentReplace(ctx context.Context, pool *pgxpool.Pool, platformID, id uuid.UUID, f document.Fields, file DocumentFile) (out Document, oldBlobKey string, err error) {
	err = withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		cur, err := documentLocked(ctx, q, platformID, id)
		if err != nil {
			return err
		}
		holder := DocumentHolderOf(cur)
		if err := document.CheckReplace(holder, cur.SubmittedAt != nil, f); err != nil {
			return err
		}
		h, err := documentHolderGet(ctx, q, platformID, holder)
		if err != nil {
			return err
		}
		if err := document.CheckHolder(h.CustomerDeleted); err != nil {
			return err
		}
		out, err = q.DocumentReplace(ctx, DocumentReplaceParams{PlatformID: platformID, ID: id, DocumentType: string(f.Type),
			Side: (*string)(f.Side), Country: f.Country, DocumentNumber: f.DocumentNumber, IssuingAuthority: f.IssuingAuthority,
			FileName: file.Name, ContentType: string(file.ContentType), SizeBytes: file.Size, BlobKey: file.BlobKey})
		if err != nil {
			return fmt.Errorf("replace document: %w", err)
		}
		oldBlobKey = cur.BlobKey
		return nil
	})
	return out, oldBlobKey, err
}

// DocumentDelete deletes a document of a platform that was not submitted for
// verification, and returns its file's blob key for the caller to delete once this has
// committed.
func DocumentDelete(ctx context.Context, pool *pgxpool.Pool, platformID, id uuid.UUID) (blobKey string, err error) {
	err = withTx(ctx, pool, func(q *queries, _ pgx.Tx) error {
		cur, err := documentLocked(ctx, q, platformID, id)
		if err != nil {
			return err
		}
		if cur.SubmittedAt != nil {
			return document.Submitted()
		}
		if err := q.DocumentDelete(ctx, DocumentDeleteParams{PlatformID: platformID, ID: id}); err != nil {
			return fmt.Errorf("delete document: %w", err)
		}
		blobKey = cur.BlobKey
		return nil
	})
	return blobKey, err
}

// documentLocked locks a document of a platform; an unknown one is document.NotFound.
// Its customer is locked first, as a verification's submission locks it before it reads
// and marks the customer's documents: a document cannot be replaced or deleted between
// that check and the mark (and the locks are always taken in that order).
func documentLocked(ctx context.Context, q *queries, platformID, id uuid.UUID) (Document, error) {
	d, err := q.DocumentGet(ctx, DocumentGetParams{PlatformID: platformID, ID: id})
	if IsNotFound(err) {
		return Document{}, document.NotFound()
	}
	if err != nil {
		return Document{}, fmt.Errorf("get document %s: %w", ids.Format(ids.Document, id), err)
	}
	if _, err := q.CustomerGetByIDForUpdate(ctx, d.CustomerID); err != nil {
		return Document{}, fmt.Errorf("lock the customer of document %s: %w", ids.Format(ids.Document, id), err)
	}
	d, err = q.DocumentGetForUpdate(ctx, DocumentGetForUpdateParams{PlatformID: platformID, ID: id})
	if IsNotFound(err) {
		return Document{}, document.NotFound()
	}
	if err != nil {
		return Document{}, fmt.Errorf("lock document %s: %w", ids.Format(ids.Document, id), err)
	}
	return d, nil
}

// documentsMarkSubmitted marks every document of a customer of a platform, and of its
// beneficial owners, that is not yet submitted as taken in by a verification: from then
// on they can be neither replaced nor deleted (409 DOCUMENT_ALREADY_SUBMITTED). They are
// marked submitted at now. It returns how many it marked. A verification calls it in the
// transaction that records it.
func documentsMarkSubmitted(ctx context.Context, q *queries, platformID, customerID uuid.UUID, now time.Time) (int64, error) {
	n, err := q.DocumentMarkSubmittedByCustomer(ctx, DocumentMarkSubmittedByCustomerParams{PlatformID: platformID, CustomerID: customerID, Now: now})
	if err != nil {
		return 0, fmt.Errorf("mark documents submitted: %w", err)
	}
	return n, nil
}

// DocumentFilter selects documents of one platform; a nil Holder does not filter.
type DocumentFilter struct {
	PlatformID uuid.UUID
	Holder     *document.Holder
}

// DocumentPage reads one page of a platform's documents, newest first. All of a
// platform's are counted by list_counts; a holder's few row by row.
func DocumentPage(ctx context.Context, conn ListDB, f DocumentFilter, p Page[IDPos]) (Result[Document], error) {
	q := listQuery{from: "documents d", alias: "d", columns: "d.*"}
	q.and("d.platform_id = ?", f.PlatformID)
	var keys countKeys
	if f.Holder != nil {
		q.and("d.holder_kind = ?", string(f.Holder.Kind))
		q.and("d.holder_id = ?", f.Holder.ID)
		keys.byRows()
	}
	q.count = keys.counter(f.PlatformID, "documents", false)
	return listByID(ctx, conn, q, p, pgx.RowToStructByPos[Document])
}
