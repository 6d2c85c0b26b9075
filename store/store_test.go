package store

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/pgtest"
)

// newTestStore opens a store on a fresh, migrated schema of its own.
func newTestStore(t testing.TB) (*Store, context.Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	_, pool := pgtest.Migrated(t)
	return New(pool), ctx
}

func httpServer(name string) Server {
	return Server{
		Name:      name,
		Source:    SourceConfig,
		Transport: "http",
		URL:       "https://" + name + ".example.com/mcp",
		Headers:   []HeaderRef{{Name: "Authorization", FromEnv: "TOKEN_" + strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(name)), Prefix: "Bearer "}},
		Schedule:  "@every 1m",
		Timeout:   10 * time.Second,
		Labels:    map[string]string{"team": "a"},
		Enabled:   true,
	}
}

func ptr[T any](v T) *T { return &v }

// sampleRun is a run with a few steps and findings, its id derived from start.
func sampleRun(serverID int64, region string, start time.Time, outcome string, d time.Duration) RunRecord {
	r := RunRecord{
		ID:              NewRunID(start),
		ServerID:        serverID,
		Region:          region,
		Worker:          "worker-1",
		Start:           start,
		Duration:        d,
		Outcome:         outcome,
		ProtocolVersion: "2025-06-18",
		ServerName:      "example",
		ServerVersion:   "1.2.3",
		ToolCount:       ptr(3),
		ToolFingerprint: "sha256:abc",
		Steps: []StepRecord{
			{Name: "initialize", Method: "initialize", Outcome: "ok", Latency: 12 * time.Millisecond},
			{Name: "tools/list", Method: "tools/list", Outcome: "error", Latency: 3 * time.Millisecond, ErrorCode: ptr[int64](-32601)},
			{Name: "ping", Method: "ping", Outcome: "transport", Latency: 5 * time.Millisecond, HTTPStatus: ptr(502)},
		},
		Findings: []FindingRecord{
			{CheckID: "lifecycle.initialize", Status: "pass", Message: "initialize answered"},
			{CheckID: "tools.list", Status: "fail", Severity: "error", Message: "tools/list failed"},
		},
		Transcript: []byte(`{"frames":[{"dir":"out","data":"{\"jsonrpc\":\"2.0\"}"}]}`),
	}
	if outcome == OutcomeDown {
		r.ErrorCode = ptr[int64](-32000)
		r.HTTPStatus = ptr(503)
		r.Error = "initialize failed"
	}
	return r
}

func mustUpsert(t testing.TB, ctx context.Context, s *Store, v Server) Server {
	t.Helper()
	out, err := s.UpsertServer(ctx, v)
	if err != nil {
		t.Fatalf("UpsertServer(%s): %v", v.Name, err)
	}
	return out
}

func count(t testing.TB, ctx context.Context, s *Store, query string, args ...any) int {
	t.Helper()
	var n int
	if err := s.pool.QueryRow(ctx, query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func TestOpenConnectsWithTheURLsSearchPath(t *testing.T) {
	t.Parallel()
	db, _ := pgtest.Migrated(t)
	ctx := context.Background()
	s, err := Open(ctx, db.URL)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	var schema string
	if err := s.Pool().QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		t.Fatal(err)
	}
	if schema != db.Schema {
		t.Errorf("current_schema() = %q, want %q", schema, db.Schema)
	}
	if _, err := Open(ctx, "postgres://nobody@127.0.0.1:1/none?connect_timeout=2"); err == nil {
		t.Error("Open of an unreachable database succeeded")
	}
}
