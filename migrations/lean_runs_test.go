package migrations_test

import (
	"bytes"
	"compress/gzip"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/pgtest"
	"github.com/mcpwatch/mcpwatch/migrations"
	"github.com/mcpwatch/mcpwatch/store"
)

// TestLeanRunsMovesEveryOldRunAndLosesNothing applies the migrations before 0009, stores
// runs in the old shape (a row per step, findings as text arrays, a transcript per run),
// then 0009, and reads every run back through the store.
func TestLeanRunsMovesEveryOldRunAndLosesNothing(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	db := pgtest.New(t)
	pool := db.Pool(t)
	all, err := migrations.All()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(all, func(m migrations.Migration) bool { return m.Version >= 9 })
	if _, err := migrations.ApplyList(ctx, pool, all[:i]); err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	for _, table := range []string{"runs", "run_steps", "run_finding_sets", "run_transcripts"} {
		if _, err := pool.Exec(ctx, `CREATE TABLE `+table+`_p20260310 PARTITION OF `+table+
			` FOR VALUES FROM ('2026-03-10T00:00:00Z') TO ('2026-03-11T00:00:00Z')`); err != nil {
			t.Fatal(err)
		}
	}
	code, status := int64(-32601), 404
	steps := []store.StepRecord{
		{Name: "initialize", Method: "initialize", Outcome: "ok", Latency: 12 * time.Millisecond, HTTPStatus: ptr(200)},
		{Name: "tools/list", Method: "tools/list", Outcome: "error", Latency: 3 * time.Millisecond, ErrorCode: &code},
		{Name: "session-unknown-id", Method: "ping", Outcome: "transport", Latency: 5 * time.Millisecond, HTTPStatus: &status},
	}
	findings := []store.FindingRecord{
		{CheckID: "lifecycle.initialize", Status: "pass", Message: "answered in 114µs"},
		{CheckID: "tools.list", Status: "fail", Severity: "error", Message: "tools/list: «no» -32601"},
		{CheckID: "http.session", Status: "warn", Severity: "warning", Message: ""},
	}
	zip := func(raw string) []byte {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write([]byte(raw))
		zw.Close()
		return buf.Bytes()
	}
	type oldRun struct {
		id         store.RunID
		at         time.Time
		steps      []store.StepRecord
		findings   []store.FindingRecord
		transcript string
	}
	var runs []oldRun
	for k := range 4 {
		at := day.Add(time.Duration(k) * time.Hour)
		r := oldRun{id: store.NewRunID(at), at: at, steps: slices.Clone(steps), findings: slices.Clone(findings), transcript: `{"frames":[]}`}
		r.steps[0].Latency += time.Duration(k) * time.Millisecond
		switch k {
		case 2: // other steps, another message, its own transcript
			r.steps = r.steps[:2]
			r.findings[0].Message = "answered in 90µs"
			r.transcript = `{"frames":[1]}`
		case 3: // no steps, findings nor transcript
			r.steps, r.findings, r.transcript = nil, nil, ""
		}
		runs = append(runs, r)
		if _, err := pool.Exec(ctx, `INSERT INTO runs (id, started_at, server_id, region, worker, duration_us, outcome)
			VALUES ($1, $2, 1, 'eu', 'w', 1000, 'degraded')`, r.id, r.at); err != nil {
			t.Fatal(err)
		}
		for seq, st := range r.steps {
			if _, err := pool.Exec(ctx, `INSERT INTO run_steps (run_id, started_at, seq, name, method, outcome, latency_us, error_code, http_status)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, r.id, r.at, seq, st.Name, st.Method, st.Outcome, st.Latency.Microseconds(), st.ErrorCode, st.HTTPStatus); err != nil {
				t.Fatal(err)
			}
		}
		if len(r.findings) > 0 {
			var ids, statuses, severities, messages []string
			for _, f := range r.findings {
				ids, statuses, severities, messages = append(ids, f.CheckID), append(statuses, f.Status), append(severities, f.Severity), append(messages, f.Message)
			}
			if _, err := pool.Exec(ctx, `INSERT INTO run_finding_sets (run_id, started_at, check_ids, statuses, severities, messages)
				VALUES ($1, $2, $3, $4, $5, $6)`, r.id, r.at, ids, statuses, severities, messages); err != nil {
				t.Fatal(err)
			}
		}
		if r.transcript != "" {
			if _, err := pool.Exec(ctx, `INSERT INTO run_transcripts (run_id, started_at, encoding, raw_bytes, body)
				VALUES ($1, $2, 'gzip', $3, $4)`, r.id, r.at, len(r.transcript), zip(r.transcript)); err != nil {
				t.Fatal(err)
			}
		}
	}

	if _, err := migrations.Apply(ctx, pool); err != nil {
		t.Fatalf("Apply 0009 over old runs: %v", err)
	}
	s := store.New(pool)
	for _, want := range runs {
		got, err := s.Run(ctx, want.id)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Steps) != len(want.steps) || len(got.Findings) != len(want.findings) {
			t.Fatalf("run %d: %d steps, %d findings after the migration, want %d, %d", want.at.Hour(), len(got.Steps), len(got.Findings), len(want.steps), len(want.findings))
		}
		for j := range want.steps {
			g, w := got.Steps[j], want.steps[j]
			if g.Name != w.Name || g.Method != w.Method || g.Outcome != w.Outcome || g.Latency != w.Latency ||
				!samePtr(g.ErrorCode, w.ErrorCode) || !samePtr(g.HTTPStatus, w.HTTPStatus) {
				t.Errorf("run %d step %d = %+v, want %+v", want.at.Hour(), j, g, w)
			}
		}
		if !slices.Equal(got.Findings, want.findings) {
			t.Errorf("run %d findings = %+v, want %+v", want.at.Hour(), got.Findings, want.findings)
		}
		raw, err := s.Transcript(ctx, want.id)
		if want.transcript == "" {
			if err == nil {
				t.Errorf("run %d has a transcript %q, want none", want.at.Hour(), raw)
			}
		} else if err != nil || string(raw) != want.transcript {
			t.Errorf("run %d transcript = %q, %v; want %q", want.at.Hour(), raw, err, want.transcript)
		}
	}
	counts := func() map[string]int {
		out := map[string]int{}
		for _, table := range []string{"step_shapes", "finding_shapes", "finding_messages", "transcripts"} {
			var n int
			if err := pool.QueryRow(ctx, `SELECT count(*) FROM `+table).Scan(&n); err != nil {
				t.Fatal(err)
			}
			out[table] = n
		}
		return out
	}
	before := counts()
	if want := map[string]int{"step_shapes": 2, "finding_shapes": 1, "finding_messages": 4, "transcripts": 2}; !maps.Equal(before, want) {
		t.Errorf("shared rows after the migration %v, want %v", before, want)
	}
	// The store computes the keys the migration did: a new run with the same steps and
	// findings adds no shared row.
	again := store.RunRecord{ID: store.NewRunID(day.Add(5 * time.Hour)), ServerID: 1, Region: "eu", Start: day.Add(5 * time.Hour),
		Outcome: store.OutcomeDegraded, Steps: steps, Findings: findings}
	if _, err := s.WriteRuns(ctx, []store.RunRecord{again}); err != nil {
		t.Fatal(err)
	}
	if after := counts(); !maps.Equal(after, before) {
		t.Errorf("shared rows after writing a run like a migrated one %v, want %v as before", after, before)
	}
}

func ptr[T any](v T) *T { return &v }

func samePtr[T comparable](a, b *T) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
