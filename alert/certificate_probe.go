package alert

import (
	"time"

	"github.com/mcpwatch/mcpwatch/probe"
)

// CertificateOf returns the server certificate that expires first among those the probe saw
// (nil when no exchange was over TLS).
func CertificateOf(res *probe.Result) *Certificate {
	if res == nil {
		return nil
	}
	var out *Certificate
	for _, f := range res.Frames {
		if f.HTTP == nil || f.HTTP.TLS == nil || f.HTTP.TLS.NotAfter.IsZero() {
			continue
		}
		if out == nil || f.HTTP.TLS.NotAfter.Before(out.NotAfter) {
			out = &Certificate{Subject: f.HTTP.TLS.Subject, NotAfter: f.HTTP.TLS.NotAfter.UTC().Truncate(time.Second)}
		}
	}
	return out
}
