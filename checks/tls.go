package checks

import (
	"fmt"
	"math"
	"net/url"
	"time"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// certificateWarning is how close to its expiry a certificate gets a warning: time enough to
// renew it before clients refuse the server.
const certificateWarning = 14 * 24 * time.Hour

// tlsChecks record the server certificate of an https target: a monitoring fact that turns
// into a warning when the certificate is about to expire and a failure when it has.
func tlsChecks() []Check {
	return []Check{
		{ID: "tls.certificate", Area: "tls", Spec: httpSpec + "#security-warning",
			Transport: protocol.TransportHTTP,
			Title:     "the server certificate verifies and does not expire within 14 days",
			Evaluate:  checkCertificate},
	}
}

// seenCertificate is one certificate the probe saw, with the first frame and time it came.
type seenCertificate struct {
	info  *probe.TLSInfo
	frame int
	at    time.Time
}

func checkCertificate(r *Capture, f *Finding) {
	certs := certificates(r)
	if len(certs) == 0 {
		if u, err := url.Parse(r.Target); err == nil && u.Scheme != "https" {
			f.Skip("the target is not https")
			return
		}
		f.Untested("no TLS connection was completed")
		return
	}
	main := certs[0]
	if main.info.Unverified {
		// Expiry alone is no verdict on a certificate nobody verified: the chain may not
		// even lead to a CA a client trusts.
		f.Untested("certificate verification was turned off (prober check --insecure-skip-verify); the certificate for %s (issuer %s) expires on %s",
			Clip([]byte(main.info.Subject)), Clip([]byte(main.info.Issuer)), day(main.info.NotAfter))
		return
	}
	f.Data = map[string]any{
		"issuer":   main.info.Issuer,
		"subject":  main.info.Subject,
		"notAfter": main.info.NotAfter.UTC().Format(time.RFC3339),
		"daysLeft": int(math.Round(main.info.NotAfter.Sub(main.at).Hours() / 24)),
	}
	for _, c := range certs {
		i := c.info
		left := i.NotAfter.Sub(c.at)
		switch {
		case left <= 0:
			f.Fail(Seqs(c.frame), "expected a valid certificate, got one for %s that expired on %s (%s ago; issuer %s)",
				Clip([]byte(i.Subject)), day(i.NotAfter), roundDays(-left), Clip([]byte(i.Issuer)))
		case i.VerifyError != "":
			f.Fail(Seqs(c.frame), "expected a certificate that verifies, got one for %s that does not: %s (issuer %s)",
				Clip([]byte(i.Subject)), Clip([]byte(i.VerifyError)), Clip([]byte(i.Issuer)))
		case left < certificateWarning:
			f.Warn(Seqs(c.frame), "expected the certificate to be valid for %s more, got it expiring on %s (in %s; issuer %s)",
				roundDays(certificateWarning), day(i.NotAfter), roundDays(left), Clip([]byte(i.Issuer)))
		}
	}
	f.Info("issued by %s, expires on %s (in %s)", Clip([]byte(main.info.Issuer)), day(main.info.NotAfter), roundDays(main.info.NotAfter.Sub(main.at)))
}

// certificates lists the distinct certificates of the responses, in the order first seen
// (the main connection's first).
func certificates(r *Capture) []seenCertificate {
	type key struct {
		subject, issuer string
		notAfter        time.Time
	}
	seen := map[key]bool{}
	var out []seenCertificate
	for _, fr := range r.Frames {
		if fr.Dir != probe.In || fr.HTTP == nil || fr.HTTP.TLS == nil {
			continue
		}
		i := fr.HTTP.TLS
		k := key{i.Subject, i.Issuer, i.NotAfter}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, seenCertificate{info: i, frame: fr.Seq, at: r.Start.Add(fr.At)})
	}
	return out
}

func day(t time.Time) string { return t.UTC().Format("2006-01-02") }

// roundDays renders a duration in whole days (hours when under two days).
func roundDays(d time.Duration) string {
	if d < 48*time.Hour {
		return fmt.Sprintf("%d hours", int(math.Round(d.Hours())))
	}
	return fmt.Sprintf("%d days", int(math.Round(d.Hours()/24)))
}
