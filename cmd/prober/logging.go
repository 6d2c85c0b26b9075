package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/mcpwatch/mcpwatch/internal/redact"
)

// newLogger logs to w at the given level, redacting secrets from every message and
// attribute: a log line is output like any other.
func newLogger(w io.Writer, level slog.Level, red *redact.Redactor) *slog.Logger {
	h := slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})
	if !red.Active() {
		return slog.New(h)
	}
	return slog.New(redactingHandler{next: h, red: red})
}

// redactingHandler passes records on with secrets replaced.
type redactingHandler struct {
	next slog.Handler
	red  *redact.Redactor
}

var _ slog.Handler = redactingHandler{}

func (h redactingHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h redactingHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, h.red.String(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h redactingHandler) WithAttrs(as []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(as))
	for i, a := range as {
		clean[i] = h.attr(a)
	}
	return redactingHandler{next: h.next.WithAttrs(clean), red: h.red}
}

func (h redactingHandler) WithGroup(name string) slog.Handler {
	return redactingHandler{next: h.next.WithGroup(name), red: h.red}
}

func (h redactingHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.red.String(v.String()))
	case slog.KindGroup:
		group := v.Group()
		clean := make([]any, len(group))
		for i, g := range group {
			clean[i] = h.attr(g)
		}
		return slog.Group(a.Key, clean...)
	case slog.KindAny:
		// Errors, headers, byte slices: their printed form is what the handler would write.
		s := fmt.Sprint(v.Any())
		if b, ok := v.Any().([]byte); ok {
			s = string(b)
		}
		if r := h.red.String(s); r != s {
			return slog.String(a.Key, r)
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
