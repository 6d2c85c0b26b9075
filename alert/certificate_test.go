package alert

import (
	"testing"
	"time"
)

func withCert(o Observation, notAfter time.Time) Observation {
	o.Certificate = &Certificate{Subject: "CN=weather.example.com", NotAfter: notAfter}
	return o
}

func TestCertificateAlert(t *testing.T) {
	t.Parallel()
	d := 24 * time.Hour
	tests := []struct {
		name  string
		cfg   Config
		steps []simStep
	}{
		{"fires within the days before expiry and resolves when renewed", config(only(KindCertificate)), []simStep{
			{withCert(obs(0, "eu", up), t0.Add(60*d)), none()},
			{withCert(obs(1*m, "eu", up), t0.Add(10*d)), ev("fired certificate")},
			{withCert(obs(2*m, "eu", up), t0.Add(10*d)), none()},
			{withCert(obs(3*m, "eu", up), t0.Add(90*d)), ev("resolved certificate")},
		}},
		{"an expired certificate fires", config(only(KindCertificate)), []simStep{
			{withCert(obs(0, "eu", up), t0.Add(-d)), ev("fired certificate")},
		}},
		{"days sets the lead time", config(only(KindCertificate), func(c *Config) { c.Certificate.Days = 30 }), []simStep{
			{withCert(obs(0, "eu", up), t0.Add(20*d)), ev("fired certificate")},
		}},
		{"no certificate (stdio, plain HTTP) says nothing", config(only(KindCertificate)), []simStep{
			{withCert(obs(0, "eu", up), t0.Add(10*d)), ev("fired certificate")},
			{obs(1*m, "eu", up), none()},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			runScenario(t, tt.cfg, tt.steps)
		})
	}
}
