package alert

import (
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/probe"
)

func TestCertificateOfTakesTheFirstToExpire(t *testing.T) {
	t.Parallel()
	later, sooner := t0.Add(90*24*time.Hour), t0.Add(10*24*time.Hour)
	res := &probe.Result{Frames: []probe.Frame{
		{HTTP: &probe.HTTPInfo{TLS: &probe.TLSInfo{Subject: "CN=a", NotAfter: later}}},
		{HTTP: &probe.HTTPInfo{}},
		{HTTP: &probe.HTTPInfo{TLS: &probe.TLSInfo{Subject: "CN=b", NotAfter: sooner}}},
	}}
	c := CertificateOf(res)
	if c == nil || c.Subject != "CN=b" || !c.NotAfter.Equal(sooner) {
		t.Errorf("certificate %+v", c)
	}
	if CertificateOf(&probe.Result{}) != nil {
		t.Error("a result without TLS has a certificate")
	}
}
