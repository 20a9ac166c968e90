package api_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/pb33f/libopenapi"

	"paycore/api"
)

// Every route the router serves is documented, and the document names nothing the router
// lacks.
func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	doc, err := libopenapi.NewDocument(api.OpenAPI())
	if err != nil {
		t.Fatal(err)
	}
	model, errs := doc.BuildV3Model()
	if errs != nil {
		t.Fatalf("OpenAPI model: %v", errs)
	}
	if !strings.HasPrefix(model.Model.Version, "3.1") {
		t.Fatalf("OpenAPI version %s, want 3.1", model.Model.Version)
	}
	documented := map[string]bool{}
	for path, item := range model.Model.Paths.PathItems.FromOldest() {
		for method := range item.GetOperations().FromOldest() {
			documented[strings.ToUpper(method)+" "+path] = true
		}
	}
	served := map[string]bool{}
	base := e.cfg.BasePath()
	err = chi.Walk(e.api.Router(), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		route = strings.TrimSuffix(route, "/")
		if strings.HasPrefix(route, base+"/") {
			route = strings.TrimPrefix(route, base)
		} else if route == base+"/openapi.yaml" {
			return nil // the same document, also served under the versioned prefix
		}
		served[method+" "+route] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var missing, extra []string
	for k := range served {
		if !documented[k] {
			missing = append(missing, k)
		}
	}
	for k := range documented {
		if !served[k] {
			extra = append(extra, k)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	if len(missing) > 0 || len(extra) > 0 {
		t.Fatalf("routes not documented: %v\ndocumented but not served: %v", missing, extra)
	}
	if len(served) < 15 {
		t.Fatalf("walked only %d routes", len(served))
	}
}
