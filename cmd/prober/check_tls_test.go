package main

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A server behind a private CA: httptest's TLS server, whose CA no system trusts.
func TestCAFileAndInsecureSkipVerifyDecideTheCertificateVerdict(t *testing.T) {
	f := &httpFixture{mcp: fixtureMCP{name: "prober-https-fixture", version: "1.0.0"}}
	f.sessions = map[string]bool{}
	srv := httptest.NewTLSServer(f)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	caFile := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		flags   []string
		status  string
		message string
	}{
		{name: "the system roots do not know the CA", status: "fail", message: "signed by unknown authority"},
		{name: "--ca-file names the CA", flags: []string{"--ca-file", caFile}, status: "info", message: `issued by \"O=Acme Co\"`},
		{name: "--insecure-skip-verify judges nothing", flags: []string{"--insecure-skip-verify"}, status: "untested", message: "--insecure-skip-verify"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"check", "--format", "json", "--checks", "tls.certificate,lifecycle.initialize"}, tt.flags...)
			code, stdout, stderr := runCLI(t, context.Background(), append(args, srv.URL+"/mcp")...)
			var doc struct {
				Checks []struct {
					ID, Status string
					Findings   []struct{ Message string }
					Reason     string
				}
			}
			if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
				t.Fatalf("exit %d, not JSON: %v\n%s\n%s", code, err, stdout, stderr)
			}
			for _, c := range doc.Checks {
				if c.ID == "lifecycle.initialize" && c.Status != "pass" {
					t.Errorf("initialize did not pass over https: %s", stdout)
				}
				if c.ID != "tls.certificate" {
					continue
				}
				if c.Status != tt.status {
					t.Errorf("tls.certificate %s, want %s\n%s", c.Status, tt.status, stdout)
				}
				if tt.message != "" && !strings.Contains(stdout, tt.message) {
					t.Errorf("the report does not say %q:\n%s", tt.message, stdout)
				}
				return
			}
			t.Fatalf("no tls.certificate in the report:\n%s", stdout)
		})
	}
}
