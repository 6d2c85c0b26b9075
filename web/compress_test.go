package web

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestAcceptsGzipReadsTheHeader(t *testing.T) {
	t.Parallel()
	for header, want := range map[string]bool{
		"":                        false,
		"gzip":                    true,
		"br, gzip;q=0.8":          true,
		"deflate, GZIP":           true,
		"gzip;q=0":                false,
		"gzip; q=0.000, identity": false,
		"x-gzip":                  false,
	} {
		if got := acceptsGzip(header); got != want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", header, got, want)
		}
	}
}

func TestGzipPoolCompressesLargeBodiesForReadersThatAccept(t *testing.T) {
	t.Parallel()
	var p gzipPool
	large := []byte(strings.Repeat("<rect class=\"day-ok\"></rect>", 200))
	for _, tc := range []struct {
		name   string
		accept string
		body   []byte
		gzip   bool
	}{
		{"large, accepted", "gzip, br", large, true},
		{"large, not accepted", "br", large, false},
		{"small", "gzip", []byte("<p>hi</p>"), false},
	} {
		for range 2 { // the second time with a pooled writer
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			req.Header.Set("Accept-Encoding", tc.accept)
			rec := httptest.NewRecorder()
			p.write(rec, req, http.StatusTeapot, tc.body)
			if rec.Code != http.StatusTeapot || !strings.Contains(rec.Header().Get("Vary"), "Accept-Encoding") {
				t.Errorf("%s: status %d, headers %v", tc.name, rec.Code, rec.Header())
			}
			got := rec.Body.Bytes()
			if (rec.Header().Get("Content-Encoding") == "gzip") != tc.gzip {
				t.Fatalf("%s: Content-Encoding %q", tc.name, rec.Header().Get("Content-Encoding"))
			}
			if tc.gzip {
				zr, err := gzip.NewReader(bytes.NewReader(got))
				if err != nil {
					t.Fatal(err)
				}
				if got, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
				if rec.Body.Len() >= len(tc.body)/4 {
					t.Errorf("%s: %d bytes compressed to %d", tc.name, len(tc.body), rec.Body.Len())
				}
			}
			if !bytes.Equal(got, tc.body) {
				t.Errorf("%s: body changed", tc.name)
			}
		}
	}
}
