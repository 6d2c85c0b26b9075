package checks

import (
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// tlsSession scripts an https probe whose initialize answer came over a connection with the
// given certificate; the probe starts at start.
func tlsSession(start time.Time, cert *probe.TLSInfo) *probe.Result {
	res := scriptedSession(protocol.TransportHTTP, func(p *sessionPlan) {
		p.initialize = func(w *wireScript, conn int, id string) int {
			seq := resultReply(plainInitResult)(w, conn, id)
			info := *w.res.Frames[seq].HTTP
			info.TLS = cert
			w.res.Frames[seq].HTTP = &info
			return seq
		}
	})
	res.Target, res.Start = "https://mcp.example.com/mcp", start
	return res
}

func TestCertificateExpiry(t *testing.T) {
	start := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	cert := func(left time.Duration, verifyError string) *probe.TLSInfo {
		return &probe.TLSInfo{Version: "TLS 1.3", Subject: "CN=mcp.example.com", Issuer: "CN=Example CA,O=Example",
			NotAfter: start.Add(left), VerifyError: verifyError}
	}
	rows := []checkRow{
		{name: "90 days left", want: StatusInfo, msg: `issued by "CN=Example CA,O=Example", expires on 2027-02-20 (in 90 days)`,
			res: tlsSession(start, cert(90*24*time.Hour, ""))},
		{name: "five days left", want: StatusWarn, msg: "expected the certificate to be valid for 14 days more, got it expiring on 2026-11-27 (in 5 days",
			res: tlsSession(start, cert(5*24*time.Hour, ""))},
		{name: "expired yesterday", want: StatusFail, msg: `expected a valid certificate, got one for "CN=mcp.example.com" that expired on 2026-11-21 (24 hours ago`,
			res: tlsSession(start, cert(-24*time.Hour, "x509: certificate has expired or is not yet valid"))},
		{name: "signed by no one the system trusts", want: StatusFail, msg: `that does not: "x509: certificate signed by unknown authority"`,
			res: tlsSession(start, cert(300*24*time.Hour, "x509: certificate signed by unknown authority"))},
		{name: "plain http", want: StatusSkip, msg: "the target is not https",
			res: scriptedSession(protocol.TransportHTTP)},
		{name: "stdio", want: StatusSkip, msg: "applies to the http transport only",
			res: scriptedSession(protocol.TransportStdio)},
	}
	runCheckRows(t, "tls.certificate", rows)
}

func TestCertificateDataNamesIssuerAndExpiry(t *testing.T) {
	start := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	res := tlsSession(start, &probe.TLSInfo{Subject: "CN=a", Issuer: "CN=Let's Encrypt R11", NotAfter: start.Add(30 * 24 * time.Hour)})
	f := evaluateCheck(t, "tls.certificate", res)
	if f.Data["issuer"] != "CN=Let's Encrypt R11" || f.Data["notAfter"] != "2026-12-22T08:00:00Z" || f.Data["daysLeft"] != 30 {
		t.Errorf("data %v", f.Data)
	}
}
