package runreport

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
	"github.com/mcpwatch/mcpwatch/store"
)

// kept answers Transcript as a store would: the bytes, or the error.
type kept struct {
	raw []byte
	err error
}

func (k kept) Transcript(context.Context, store.RunID) ([]byte, error) { return k.raw, k.err }

func TestRecordingTellsNoneFromUnreadable(t *testing.T) {
	var buf bytes.Buffer
	if err := probe.WriteRecording(&buf, &probe.Result{Target: "https://a.example/mcp", Transport: protocol.TransportHTTP}); err != nil {
		t.Fatal(err)
	}
	down := errors.New("connection reset")
	for _, tc := range []struct {
		name    string
		src     kept
		target  string
		wantErr error
	}{
		{"a kept recording", kept{raw: buf.Bytes()}, "https://a.example/mcp", nil},
		{"none kept", kept{err: store.ErrNotFound}, "", nil},
		{"unreadable", kept{raw: []byte(`{"format":"something-else"`)}, "", ErrUnreadable},
		{"the store failing", kept{err: down}, "", down},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Recording(t.Context(), tc.src, store.NewRunID(time.Now()))
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			}
			got := ""
			if res != nil {
				got = res.Target
			}
			if got != tc.target {
				t.Errorf("recording of %q, want %q", got, tc.target)
			}
		})
	}
}
