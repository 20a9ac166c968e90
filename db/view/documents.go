package view

import (
	"time"

	"paycore/db"
	"paycore/internal/ids"
)

// Document is a KYC/KYB document's metadata; its file is never shown back.
type Document struct {
	ID               string    `json:"id"`
	DocumentHolder   string    `json:"documentHolder"`
	DocumentType     string    `json:"documentType"`
	Side             *string   `json:"side,omitempty"`
	Country          string    `json:"country"`
	DocumentNumber   *string   `json:"documentNumber,omitempty"`
	IssuingAuthority *string   `json:"issuingAuthority,omitempty"`
	FileName         string    `json:"fileName"`
	ContentType      string    `json:"contentType"`
	SizeBytes        int64     `json:"sizeBytes"`
	IsSubmitted      bool      `json:"isSubmitted"`
	CreatedAt        time.Time `json:"createdAt"`
	UpdatedAt        time.Time `json:"updatedAt"`
}

// DocumentOf renders a document.
func DocumentOf(d db.Document) Document {
	return Document{ID: ids.Format(ids.Document, d.ID), DocumentHolder: db.DocumentHolderOf(d).String(), DocumentType: d.DocumentType,
		Side: d.Side, Country: d.Country, DocumentNumber: d.DocumentNumber, IssuingAuthority: d.IssuingAuthority, FileName: d.FileName,
		ContentType: d.ContentType, SizeBytes: d.SizeBytes, IsSubmitted: d.SubmittedAt != nil, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt}
}
