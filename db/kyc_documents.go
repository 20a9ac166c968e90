package db

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"paycore/internal/kyc"
)

// kycDocuments are the documents of a customer and of its beneficial owners, as a
// verification checks them.
func kycDocuments(ctx context.Context, q *queries, platformID, customerID uuid.UUID) ([]kyc.Document, error) {
	rows, err := q.DocumentsOfCustomer(ctx, DocumentsOfCustomerParams{PlatformID: platformID, CustomerID: customerID})
	if err != nil {
		return nil, fmt.Errorf("read documents: %w", err)
	}
	out := make([]kyc.Document, len(rows))
	for i, r := range rows {
		out[i] = kyc.Document{ID: r.ID, Holder: r.HolderID, Type: r.DocumentType}
	}
	return out, nil
}
