package apiserver

import (
	_ "embed"
	"net/http"
)

// openAPIDocument describes every route of routeTable; a test holds the two to each other.
//
//go:embed openapi.json
var openAPIDocument []byte

// openAPI is GET /api/v1/openapi.json.
func (s *API) openAPI(w http.ResponseWriter, r *http.Request) error {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(openAPIDocument)
	return nil
}
