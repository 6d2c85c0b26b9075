package alert

import (
	"fmt"
	"time"
)

const day = 24 * time.Hour

// certificate judges the expiry of the server's TLS certificate.
func (e *evaluator) certificate(obs *Observation) []condition {
	cert := obs.Certificate
	if cert == nil {
		return nil
	}
	left := cert.NotAfter.Sub(obs.At)
	subject := clip(cert.Subject, maxErrorText)
	if subject == "" {
		subject = "the server certificate"
	}
	c := condition{kind: KindCertificate, ev: Evidence{Regions: []string{obs.Region}}}
	limit := time.Duration(e.cfg.Certificate.Days) * day
	switch {
	case left <= 0:
		c.state = condBad
		c.ev.Summary = fmt.Sprintf("the TLS certificate (%s) expired %s ago, on %s", subject, durationText(-left), timeText(cert.NotAfter))
	case left < limit:
		c.state = condBad
		c.ev.Summary = fmt.Sprintf("the TLS certificate (%s) expires in %s, on %s", subject, durationText(left), timeText(cert.NotAfter))
	default:
		c.state = condGood
		c.ev.Summary = fmt.Sprintf("the TLS certificate (%s) is valid until %s", subject, timeText(cert.NotAfter))
		return []condition{c}
	}
	c.ev.Lines = []string{fmt.Sprintf("alerting %d days before expiry; seen from %s at %s", e.cfg.Certificate.Days, obs.Region, timeText(obs.At))}
	return []condition{c}
}
