package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// StepStats is one step of a server's runs over a span, in all regions: how often it was
// sent, the latency of the times it was answered with a result (the samples the latency alert
// judges), in the fixed buckets of the rollups so that its percentiles are estimated the same
// way, and its latest outcome.
type StepStats struct {
	Name   string
	Method string
	// Runs is how many runs sent the step; OK how many of them got a result.
	Runs, OK int64
	// Latency counts the latencies of the OK ones; LatencyMin and LatencyMax are 0 when none.
	Latency                Histogram
	LatencyMin, LatencyMax time.Duration
	// Last is the step in the latest run that sent it, LastRun that run.
	Last    StepRecord
	LastRun RunRecord
}

// LatencyQuantile estimates a latency quantile (0.95 for p95) of the answered steps.
func (st StepStats) LatencyQuantile(q float64) time.Duration {
	return st.Latency.Quantile(q, st.LatencyMin, st.LatencyMax)
}

// MaxStepStatsSpan bounds the span StepStats reads: steps are raw rows, kept for the raw
// retention only, and a wider span would read every run of it.
const MaxStepStatsSpan = 31 * 24 * time.Hour

// StepStats sums the steps whose name starts with prefix (the opt-in tool calls' "call:", say)
// of a server's runs started at or after since, one StepStats per step name, by name. The
// steps are the raw ones (run_steps), so a span longer than the raw retention covers what is
// left of it.
func (s *Store) StepStats(ctx context.Context, serverID int64, prefix string, since time.Time) ([]StepStats, error) {
	like := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(prefix) + "%"
	rows, err := s.pool.Query(ctx, `SELECT st.name, st.method, st.outcome, st.latency_us, st.error_code, st.http_status,
			r.id, r.region, r.started_at
		FROM runs r JOIN run_steps st ON st.run_id = r.id AND st.started_at = r.started_at
		WHERE r.server_id = $1 AND r.started_at >= $2 AND st.name LIKE $3
		ORDER BY r.started_at, st.seq`, serverID, since, like)
	if err != nil {
		return nil, fmt.Errorf("store: steps of server %d: %w", serverID, err)
	}
	bounds := latencyBounds()
	byName := map[string]*StepStats{}
	var names []string
	var st StepRecord
	var run RunRecord
	var us int64
	if _, err := pgx.ForEachRow(rows, []any{&st.Name, &st.Method, &st.Outcome, &us, &st.ErrorCode, &st.HTTPStatus,
		&run.ID, &run.Region, &run.Start}, func() error {
		st.Latency = time.Duration(us) * time.Microsecond
		v := byName[st.Name]
		if v == nil {
			v = &StepStats{Name: st.Name, Method: st.Method, Latency: make(Histogram, HistogramBuckets)}
			byName[st.Name] = v
			names = append(names, st.Name)
		}
		if v.LastRun.ID != run.ID { // a step sent twice in a run counts one run
			v.Runs++
		}
		if st.Outcome == "ok" {
			if v.OK++; v.OK == 1 || st.Latency < v.LatencyMin {
				v.LatencyMin = st.Latency
			}
			v.LatencyMax = max(v.LatencyMax, st.Latency)
			v.Latency[bucketOf(bounds, st.Latency)]++
		}
		v.Last, v.LastRun = st, RunRecord{ID: run.ID, ServerID: serverID, Region: run.Region, Start: run.Start}
		st = StepRecord{}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("store: steps of server %d: %w", serverID, err)
	}
	out := make([]StepStats, 0, len(names))
	for _, n := range names {
		out = append(out, *byName[n])
	}
	sortStepStats(out)
	return out, nil
}

func sortStepStats(s []StepStats) {
	slices.SortFunc(s, func(a, b StepStats) int { return strings.Compare(a.Name, b.Name) })
}
