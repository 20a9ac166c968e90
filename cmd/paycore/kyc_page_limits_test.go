package main

import (
	"bytes"
	"io"
	"io/fs"
	"mime/multipart"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"paycore/api"
	"paycore/db/view"
)

// One link of the hosted KYC page cannot store files without bound: incomplete rounds that
// send the same six slots (a holder's document of one type) replace the stored documents
// and delete the replaced files; the link takes at most PAYCORE_KYC_LINK_DOCUMENTS files
// (12) over all its submissions, then 409; and at most PAYCORE_KYC_LINK_SUBMISSIONS (5)
// submissions in a window, then 429 with Retry-After.
func TestKycPageLinkLimits(t *testing.T) {
	t.Parallel()
	s := newStack(t, kycFast)
	c, _ := s.unregulatedPlatform()
	var cust api.Customer
	c.Do("POST", "/customers", map[string]any{"customerType": "INDIVIDUAL", "region": "US", "currencies": []string{"USD"}}).Decode(t, &cust)
	page := kycLink(t, s, c, cust.ID, nil)
	types := []string{"PASSPORT", "DRIVERS_LICENSE", "NATIONAL_ID", "PROOF_OF_ADDRESS", "BANK_STATEMENT", "UTILITY_BILL"}
	// An incomplete round: a name (no birth date, no address) and six files.
	round := func() (int, string, http.Header) {
		var form bytes.Buffer
		mw := multipart.NewWriter(&form)
		_ = mw.WriteField("fullName", "Ana García")
		for i, typ := range types {
			slot := "doc" + strconv.Itoa(i)
			_ = mw.WriteField(slot+".holder", cust.ID)
			_ = mw.WriteField(slot+".type", typ)
			fw, _ := mw.CreateFormFile(slot+".file", "scan.png")
			_, _ = fw.Write(pngBytes)
		}
		_ = mw.Close()
		resp, err := noRedirects.Post(page, mw.FormDataContentType(), &form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}
	stored := func() (docs, files int) {
		var list api.List[view.Document]
		c.Do("GET", "/documents?documentHolder="+cust.ID+"&limit=100", nil).Decode(t, &list)
		_ = filepath.WalkDir(filepath.Join(s.cfg.DataDir, "documents"), func(_ string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				files++
			}
			return err
		})
		return len(list.Data), files
	}
	for i := range 2 {
		if status, html, _ := round(); status != 200 || !strings.Contains(html, "still missing") {
			t.Fatalf("round %d: %d %s", i+1, status, html)
		}
		if docs, files := stored(); docs != len(types) || files != len(types) {
			t.Fatalf("after round %d: %d documents, %d files; want one per slot", i+1, docs, files)
		}
	}
	// The third round would store files 13 to 18 through the link.
	for i := range 3 {
		if status, html, _ := round(); status != 409 || !strings.Contains(html, "taken its 12 files") {
			t.Fatalf("round %d: %d %s", i+3, status, html)
		}
	}
	if docs, files := stored(); docs != len(types) || files != len(types) {
		t.Fatalf("after refused rounds: %d documents, %d files", docs, files)
	}
	status, html, h := round()
	if retry, err := strconv.Atoi(h.Get("Retry-After")); status != 429 || err != nil || retry < 1 || !strings.Contains(html, "submitted too often") {
		t.Fatalf("the 6th submission: %d (Retry-After %q) %s", status, h.Get("Retry-After"), html)
	}
}
