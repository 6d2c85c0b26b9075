package web

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
)

//go:embed templates/*.html static/*
var files embed.FS

// assets are the static files with a digest each, which their URLs carry so that browsers may
// keep them for good and still see a new build at once.
type assets struct {
	byName map[string]asset
}

type asset struct {
	body   []byte
	digest string
	kind   string
}

func loadAssets() (*assets, error) {
	a := &assets{byName: map[string]asset{}}
	entries, err := fs.ReadDir(files, "static")
	if err != nil {
		return nil, fmt.Errorf("web: assets: %w", err)
	}
	for _, e := range entries {
		body, err := fs.ReadFile(files, "static/"+e.Name())
		if err != nil {
			return nil, fmt.Errorf("web: asset %s: %w", e.Name(), err)
		}
		sum := sha256.Sum256(body)
		kind := mime.TypeByExtension(path.Ext(e.Name()))
		if kind == "" {
			kind = "application/octet-stream"
		}
		a.byName[e.Name()] = asset{body: body, digest: hex.EncodeToString(sum[:6]), kind: kind}
	}
	return a, nil
}

// url is the versioned address of an asset.
func (a *assets) url(name string) string {
	return "/static/" + name + "?v=" + a.byName[name].digest
}

// serve answers /static/{file}: for good when the version asked for is this build's, briefly
// otherwise (an old page asking for a file that has since changed).
func (a *assets) serve(w http.ResponseWriter, r *http.Request) {
	f, ok := a.byName[r.PathValue("file")]
	if !ok {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", f.kind)
	h.Set("Content-Length", strconv.Itoa(len(f.body)))
	h.Set("ETag", `"`+f.digest+`"`)
	if r.URL.Query().Get("v") == f.digest {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "public, max-age=300")
	}
	if match := r.Header.Get("If-None-Match"); match == `"`+f.digest+`"` {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(f.body)
}

// pageNames are the templates/<name>.html files that are pages; the others are shared.
func pageNames() []string { return []string{"status", "server", "run", "problem"} }

// parsePages parses each page with the layout and the shared partials.
func parsePages(a *assets) (map[string]*template.Template, error) {
	out := map[string]*template.Template{}
	for _, name := range pageNames() {
		t, err := template.New(name).Funcs(templateFuncs()).ParseFS(files,
			"templates/layout.html", "templates/partials.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("web: template %s: %w", name, err)
		}
		out[name] = t
	}
	return out, nil
}
