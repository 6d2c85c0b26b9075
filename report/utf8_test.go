package report

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/probe"
)

// invalidUTF8Server answers MCP over HTTP with bytes that are no UTF-8 wherever a server can
// put them: in serverInfo, in a response header, in an error message. A report is read by
// programs that reject the whole document for one such byte (a JSON or SARIF consumer), so
// every format must stay valid UTF-8 whatever the server sends.
func invalidUTF8Server(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &m)
		if m.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Served-By", "caf\xe9 \xff")
		var result string
		switch m.Method {
		case "initialize":
			result = `"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},` +
				"\"serverInfo\":{\"name\":\"caf\xe9-server\",\"version\":\"1.0\xff\xfe\",\"title\":\"ok \xc3\"}}"
		case "tools/list":
			result = "\"result\":{\"tools\":[{\"name\":\"t\xe9\",\"inputSchema\":{\"type\":\"object\"}}]}"
		case "ping":
			result = `"result":{}`
		default:
			result = "\"error\":{\"code\":-32601,\"message\":\"m\xe9thode inconnue\"}"
		}
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,` + result + `}`))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestEveryFormatIsValidUTF8WhateverTheServerSends(t *testing.T) {
	srv := invalidUTF8Server(t)
	o := probe.Options{Timeout: 20 * time.Second, InitTimeout: 5 * time.Second, RequestTimeout: 3 * time.Second}
	res, err := probe.Run(context.Background(), probe.Target{URL: srv.URL}, o)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(res.Initialize, []byte("\xe9")) {
		t.Fatalf("the probe did not keep the server's bytes (%q): the test would prove nothing", res.Initialize)
	}
	reg, err := checks.Default()
	if err != nil {
		t.Fatal(err)
	}
	findings := reg.Evaluate(res)
	for _, verbose := range []bool{false, true} {
		r := Build(res, findings, BuildOptions{Catalog: reg, Verbose: verbose})
		for _, f := range Formats() {
			var out bytes.Buffer
			if err := f.Write(&out, r, WriteOptions{Verbose: verbose}); err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
			if !utf8.Valid(out.Bytes()) {
				i := firstInvalid(out.Bytes())
				t.Errorf("%s (verbose %v) is not valid UTF-8 at byte %d: %q", f.Name, verbose, i, out.Bytes()[max(0, i-60):min(out.Len(), i+20)])
			}
		}
		// The offending bytes are shown escaped, not lost.
		if got := string(r.ServerInfo); !strings.Contains(got, `caf\\xe9-server`) || !strings.Contains(got, `1.0\\xff\\xfe`) {
			t.Errorf("serverInfo %s does not show the bytes escaped", got)
		}
	}
}

func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

func TestEscapeInvalidSpellsOutOnlyTheBadBytes(t *testing.T) {
	for _, tc := range []struct{ in, prefix, want string }{
		{"plain", escapeInText, "plain"},
		{"café ✓", escapeInText, "café ✓"},
		{"caf\xe9", escapeInText, `caf\xe9`},
		{"\xff\xfe", escapeInText, `\xff\xfe`},
		{"cut \xe2\x9c", escapeInText, `cut \xe2\x9c`},
		{`{"n":"caf` + "\xe9" + `"}`, escapeInJSON, `{"n":"caf\\xe9"}`},
	} {
		got := escapeInvalid(tc.in, tc.prefix)
		if got != tc.want || !utf8.ValidString(got) {
			t.Errorf("escapeInvalid(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	data := escapeInvalidIn(map[string]any{"k\xff": []any{"a\xe9", 3, map[string]any{"x": []string{"\xc3"}}}})
	if raw, _ := json.Marshal(data); string(raw) != `{"k\\xff":["a\\xe9",3,{"x":["\\xc3"]}]}` {
		t.Errorf("escapeInvalidIn: %s", raw)
	}
}
