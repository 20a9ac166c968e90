package config

import (
	"testing"
	"time"
)

func TestBulkImportSettings(t *testing.T) {
	c, err := LoadFrom(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if c.BulkImportMaxBytes != 100<<20 || c.BulkImportUploadTimeout != 10*time.Minute || c.BulkImportBatchSize != 2000 || c.BulkImportBatchesPerRun != 20 {
		t.Fatalf("defaults %d %s %d %d", c.BulkImportMaxBytes, c.BulkImportUploadTimeout, c.BulkImportBatchSize, c.BulkImportBatchesPerRun)
	}
	env := map[string]string{"PAYCORE_BULK_IMPORT_MAX_BYTES": "2048", "PAYCORE_BULK_IMPORT_UPLOAD_TIMEOUT": "90s",
		"PAYCORE_BULK_IMPORT_BATCH_SIZE": "999999", "PAYCORE_BULK_IMPORT_BATCHES_PER_RUN": "3"}
	if c, err = LoadFrom(func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	if c.BulkImportMaxBytes != 2048 || c.BulkImportUploadTimeout != 90*time.Second || c.BulkImportBatchSize != 5000 || c.BulkImportBatchesPerRun != 3 {
		t.Fatalf("overrides %d %s %d %d", c.BulkImportMaxBytes, c.BulkImportUploadTimeout, c.BulkImportBatchSize, c.BulkImportBatchesPerRun)
	}
	for k, v := range map[string]string{"PAYCORE_BULK_IMPORT_MAX_BYTES": "0", "PAYCORE_BULK_IMPORT_UPLOAD_TIMEOUT": "-1s",
		"PAYCORE_BULK_IMPORT_BATCH_SIZE": "-5", "PAYCORE_BULK_IMPORT_BATCHES_PER_RUN": "many"} {
		if loadWith(k, v) == nil {
			t.Errorf("%s=%s accepted", k, v)
		}
	}
}
