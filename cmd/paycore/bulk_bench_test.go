package main

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkBulkImport imports a file of 100,000 customers (bulkLine's mix: individuals,
// some businesses, refused rows of every kind), generated while it is uploaded, per
// iteration on a new platform, with the default batches (2,000 rows, 20 per workflow run, pipelined):
// rows imported per second from the upload's first byte to the job's end, the upload alone
// (its rows staged per second), and the largest Go heap of the process (API, worker and
// the generator together) sampled while it runs, which shows the file is never held in
// memory. Run it with -benchtime 1x.
func BenchmarkBulkImport(b *testing.B) {
	const rows = 100_000
	s := newStack(b)
	var peak atomic.Uint64
	stop := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Add(1)
	go func() {
		defer sampler.Done()
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > peak.Load() {
				peak.Store(m.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	var uploading, total time.Duration
	for range b.N {
		c, p := s.platform(true)
		c.SkipValidation = true // the checks compete for the CPU; the tests validate
		t0 := time.Now()
		id := uploadBulk(b, c, bulkFile(rows, p.UmaDomain))
		uploading += time.Since(t0)
		for {
			j := bulkJob(b, c, id)
			if j.Status == "COMPLETED" || j.Status == "FAILED" {
				if j.Progress.Processed != rows {
					b.Fatalf("job %+v", j.Progress)
				}
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		total += time.Since(t0)
	}
	b.StopTimer()
	close(stop)
	sampler.Wait()
	n := float64(b.N * rows)
	b.ReportMetric(n/total.Seconds(), "rows/s")
	b.ReportMetric(n/uploading.Seconds(), "staged-rows/s")
	b.ReportMetric(float64(peak.Load())/(1<<20), "MB-peak-heap")
}
