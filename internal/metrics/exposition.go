package metrics

import (
	"compress/gzip"
	"math"
	"net/http"
	"strconv"
	"strings"
)

// ContentType is the media type of the Prometheus text exposition format 0.0.4.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

var _ http.Handler = (*Registry)(nil)

// ServeHTTP writes the registry's families in the text exposition format 0.0.4, gzipped when
// the client accepts it (Prometheus does).
func (r *Registry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body := appendText(make([]byte, 0, r.sizeHint.Load()+512), r.gather())
	r.sizeHint.Store(int64(len(body)))
	h := w.Header()
	h.Set("Content-Type", ContentType)
	h.Set("Vary", "Accept-Encoding")
	if !acceptsGzip(req.Header.Get("Accept-Encoding")) {
		h.Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body)
		return
	}
	h.Set("Content-Encoding", "gzip")
	gz, _ := r.gzip.Get().(*gzip.Writer)
	if gz == nil {
		// Expositions are repetitive text: the fastest level shrinks them well enough.
		gz, _ = gzip.NewWriterLevel(w, gzip.BestSpeed)
	} else {
		gz.Reset(w)
	}
	_, _ = gz.Write(body)
	_ = gz.Close()
	r.gzip.Put(gz)
}

// acceptsGzip says whether an Accept-Encoding header value allows gzip (not with q=0).
func acceptsGzip(header string) bool {
	for part := range strings.SplitSeq(header, ",") {
		coding, params, _ := strings.Cut(part, ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			continue
		}
		for p := range strings.SplitSeq(params, ";") {
			name, value, _ := strings.Cut(strings.TrimSpace(p), "=")
			if strings.EqualFold(name, "q") {
				if q, err := strconv.ParseFloat(strings.TrimSpace(value), 64); err == nil && q == 0 {
					return false
				}
			}
		}
		return true
	}
	return false
}

// appendText appends fams in the text format: per family a HELP and a TYPE line, then a line
// per sample; a histogram's series has a line per bucket (le last among its labels), then
// _sum and _count. A family without series (a vector not used yet) is left out, as
// client_golang leaves it out.
func appendText(b []byte, fams []family) []byte {
	for _, f := range fams {
		if len(f.series) == 0 {
			continue
		}
		b = append(b, "# HELP "...)
		b = append(b, f.name...)
		b = append(b, ' ')
		b = appendEscaped(b, f.help, false)
		b = append(b, "\n# TYPE "...)
		b = append(b, f.name...)
		b = append(b, ' ')
		b = append(b, f.kind...)
		b = append(b, '\n')
		var les []string // the le values of the family's buckets, shared by its series
		if f.kind == kindHistogram {
			les = make([]string, len(f.series[0].bounds))
			for i, bound := range f.series[0].bounds {
				les[i] = string(appendFloat(nil, bound))
			}
		}
		for _, s := range f.series {
			if f.kind != kindHistogram {
				b = appendSample(b, f.name, "", s.labels, "", s.value)
				continue
			}
			for i, le := range les {
				b = appendSampleCount(b, f.name, "_bucket", s.labels, le, s.counts[i])
			}
			count := s.counts[len(s.counts)-1]
			b = appendSampleCount(b, f.name, "_bucket", s.labels, "+Inf", count)
			b = appendSample(b, f.name, "_sum", s.labels, "", s.sum)
			b = appendSampleCount(b, f.name, "_count", s.labels, "", count)
		}
	}
	return b
}

func appendSample(b []byte, name, suffix string, labels []label, le string, v float64) []byte {
	b = appendSeries(b, name, suffix, labels, le)
	b = appendFloat(b, v)
	return append(b, '\n')
}

func appendSampleCount(b []byte, name, suffix string, labels []label, le string, n uint64) []byte {
	b = appendSeries(b, name, suffix, labels, le)
	b = strconv.AppendUint(b, n, 10)
	return append(b, '\n')
}

// appendSeries appends a sample's name and labels and the space before its value; le, when
// not "", is the bucket label.
func appendSeries(b []byte, name, suffix string, labels []label, le string) []byte {
	b = append(b, name...)
	b = append(b, suffix...)
	if len(labels) > 0 || le != "" {
		b = append(b, '{')
		for i, l := range labels {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendLabel(b, l.name, l.value)
		}
		if le != "" {
			if len(labels) > 0 {
				b = append(b, ',')
			}
			b = appendLabel(b, "le", le)
		}
		b = append(b, '}')
	}
	return append(b, ' ')
}

func appendLabel(b []byte, name, value string) []byte {
	b = append(b, name...)
	b = append(b, `="`...)
	b = appendEscaped(b, value, true)
	return append(b, '"')
}

// appendEscaped escapes backslashes and newlines, and double quotes in label values (quoted
// is true), as the format requires.
func appendEscaped(b []byte, s string, quoted bool) []byte {
	for i := range len(s) {
		switch c := s[i]; {
		case c == '\\':
			b = append(b, `\\`...)
		case c == '\n':
			b = append(b, `\n`...)
		case c == '"' && quoted:
			b = append(b, `\"`...)
		default:
			b = append(b, c)
		}
	}
	return b
}

// appendFloat writes v as Prometheus reads it: +Inf, -Inf, NaN, otherwise Go's shortest
// representation that reads back as v (1e+06, 0.25, 3).
func appendFloat(b []byte, v float64) []byte {
	switch {
	case math.IsInf(v, 1):
		return append(b, "+Inf"...)
	case math.IsInf(v, -1):
		return append(b, "-Inf"...)
	case math.IsNaN(v):
		return append(b, "NaN"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}
