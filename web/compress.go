package web

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"strings"
	"sync"
)

// minCompressed is the smallest page worth compressing.
const minCompressed = 1400

// gzipPool reuses compressors: a flate writer is large to make.
type gzipPool struct{ pool sync.Pool }

// write sends body, gzipped when the reader accepts it: the status page's day bars repeat
// the same markup thousands of times and shrink tenfold.
func (p *gzipPool) write(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	var gz []byte
	if acceptsGzip(r.Header.Get("Accept-Encoding")) {
		gz = p.compress(body)
	}
	writeEncoded(w, r, status, body, gz)
}

// compress gzips body; nil when it is too small to be worth it (or compressing failed).
func (p *gzipPool) compress(body []byte) []byte {
	if len(body) < minCompressed {
		return nil
	}
	zw, _ := p.pool.Get().(*gzip.Writer)
	var buf bytes.Buffer
	buf.Grow(len(body) / 6)
	if zw == nil {
		zw, _ = gzip.NewWriterLevel(&buf, gzip.BestSpeed) // never fails for a valid level
	} else {
		zw.Reset(&buf)
	}
	defer p.pool.Put(zw)
	if _, err := zw.Write(body); err != nil || zw.Close() != nil {
		return nil
	}
	return buf.Bytes()
}

// writeEncoded sends gz, the body gzipped, to a reader that accepts it, and body otherwise
// (or when gz is nil).
func writeEncoded(w http.ResponseWriter, r *http.Request, status int, body, gz []byte) {
	h := w.Header()
	h.Add("Vary", "Accept-Encoding")
	if gz != nil && acceptsGzip(r.Header.Get("Accept-Encoding")) {
		h.Set("Content-Encoding", "gzip")
		h.Del("Content-Length")
		w.WriteHeader(status)
		_, _ = w.Write(gz)
		return
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// acceptsGzip reads an Accept-Encoding header: gzip listed, and not with q=0.
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(name), "gzip") {
			continue
		}
		q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
		return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
	}
	return false
}
