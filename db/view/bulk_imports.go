package view

import (
	"time"

	"paycore/db"
	"paycore/internal/catalog"
	"paycore/internal/ids"
)

// BulkCustomerImportJob is a bulk customer import job: its progress and the rows it
// refused.
type BulkCustomerImportJob struct {
	ID          string                         `json:"id"`
	Status      catalog.BulkImportStatus       `json:"status"`
	Progress    BulkCustomerImportProgress     `json:"progress"`
	Errors      []BulkCustomerImportErrorEntry `json:"errors"`
	CompletedAt *time.Time                     `json:"completedAt,omitempty"`
}

// BulkCustomerImportProgress counts a job's rows.
type BulkCustomerImportProgress struct {
	Total      int32 `json:"total"`
	Processed  int32 `json:"processed"`
	Successful int32 `json:"successful"`
	Failed     int32 `json:"failed"`
}

// BulkCustomerImportErrorEntry is a refused row: a ServiceError with the row's correlation
// id (its platformCustomerId, or its row number when it has none).
type BulkCustomerImportErrorEntry struct {
	Code          string                     `json:"code"`
	Message       string                     `json:"message"`
	Details       BulkCustomerImportErrorRow `json:"details"`
	CorrelationID string                     `json:"correlationId"`
}

// BulkCustomerImportErrorRow locates a refused row: its number (the header is row 1) and
// the column at fault, when one is.
type BulkCustomerImportErrorRow struct {
	Row   int32   `json:"row"`
	Field *string `json:"field,omitempty"`
}

// BulkCustomerImportJobAccepted is the answer to an upload.
type BulkCustomerImportJobAccepted struct {
	JobID  string                   `json:"jobId"`
	Status catalog.BulkImportStatus `json:"status"`
}

// BulkImportJobID is the API id of a job.
func BulkImportJobID(j db.BulkImportJob) string { return ids.Format(ids.Job, j.ID) }

// BulkImportJobOf renders a job with its errors.
func BulkImportJobOf(r db.BulkImportReport) BulkCustomerImportJob {
	j := r.Job
	out := BulkCustomerImportJob{ID: BulkImportJobID(j), Status: j.Status, CompletedAt: j.CompletedAt,
		Progress: BulkCustomerImportProgress{Total: j.Total, Processed: j.Processed, Successful: j.Successful, Failed: j.Failed},
		Errors:   make([]BulkCustomerImportErrorEntry, 0, len(r.Errors))}
	for _, e := range r.Errors {
		out.Errors = append(out.Errors, BulkCustomerImportErrorEntry{Code: e.Code, Message: e.Message, CorrelationID: e.CorrelationID,
			Details: BulkCustomerImportErrorRow{Row: e.RowNumber, Field: e.Field}})
	}
	return out
}

// BulkImportRender renders a job for its webhook event (db.BulkImportBatchParams.Render).
func BulkImportRender(r db.BulkImportReport) any { return BulkImportJobOf(r) }
