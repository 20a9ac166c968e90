package api

import (
	_ "embed"
	"net/http"
)

//go:embed openapi.yaml
var openAPIDoc []byte

// OpenAPI returns the embedded OpenAPI 3.1 document.
func OpenAPI() []byte { return openAPIDoc }

func serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/yaml")
	_, _ = w.Write(openAPIDoc)
}
