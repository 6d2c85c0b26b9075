package main

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpwatch/mcpwatch/internal/redact"
)

func TestLoggerRedactsSecretsInEveryKindOfAttribute(t *testing.T) {
	const secret = "tok-9d8c7b6a5f4e"
	var buf bytes.Buffer
	log := newLogger(&buf, slog.LevelDebug, redact.New(secret))
	log = log.With("preset", "Bearer "+secret)
	log.Debug("sending "+secret,
		"string", secret,
		"error", fmt.Errorf("dial: %w", errors.New("refused for "+secret)),
		"header", http.Header{"Authorization": {"Bearer " + secret}},
		"bytes", []byte(`{"token":"`+secret+`"}`),
		slog.Group("nested", "value", secret),
		"count", 3,
	)
	out := buf.String()
	if strings.Contains(out, secret) {
		t.Errorf("secret in log output:\n%s", out)
	}
	if n := strings.Count(out, redact.Redacted); n < 7 {
		t.Errorf("%d redaction markers, want one per place the secret was:\n%s", n, out)
	}
	if !strings.Contains(out, "count=3") {
		t.Errorf("other attributes lost:\n%s", out)
	}
}

func TestLoggerHonoursTheLevel(t *testing.T) {
	var buf bytes.Buffer
	log := newLogger(&buf, slog.LevelWarn, redact.New("some-secret"))
	log.Info("hidden")
	log.Warn("shown")
	if strings.Contains(buf.String(), "hidden") || !strings.Contains(buf.String(), "shown") {
		t.Errorf("output:\n%s", buf.String())
	}
}
