package store

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// latencyBounds are the upper bounds of the latency histogram buckets; one more bucket holds
// everything above the last. They match table latency_buckets (migration 0003) and never
// change, since rollups of every age are read with them.
func latencyBounds() []time.Duration {
	ms := []int{5, 10, 25, 50, 75, 100, 150, 200, 300, 400, 500, 750, 1000, 1500, 2000,
		3000, 5000, 7500, 10000, 15000, 30000, 60000}
	out := make([]time.Duration, len(ms))
	for i, v := range ms {
		out[i] = time.Duration(v) * time.Millisecond
	}
	return out
}

// HistogramBuckets is the number of buckets in a latency histogram.
const HistogramBuckets = 23

// Histogram counts latencies per fixed bucket (see LatencyBucketBounds).
type Histogram []int64

// LatencyBucketBounds returns the upper bound of each histogram bucket but the last, which has
// none.
func LatencyBucketBounds() []time.Duration { return latencyBounds() }

// bucketOf finds the bucket of a latency: the first whose upper bound is at least d.
func bucketOf(bounds []time.Duration, d time.Duration) int {
	i, _ := slices.BinarySearch(bounds, d)
	return i
}

// Quantile estimates the latency below which a fraction q of the samples fall, interpolating
// linearly inside the bucket and clamping to the observed min and max. It returns 0 for an
// empty histogram.
func (h Histogram) Quantile(q float64, lo, hi time.Duration) time.Duration {
	var total int64
	for _, c := range h {
		total += c
	}
	if total == 0 {
		return 0
	}
	q = math.Min(math.Max(q, 0), 1)
	rank := q * float64(total)
	bounds := latencyBounds()
	var seen int64
	for i, c := range h {
		if c == 0 || float64(seen+c) < rank {
			seen += c
			continue
		}
		var lower, upper time.Duration
		if i > 0 {
			lower = bounds[i-1]
		}
		if i < len(bounds) {
			upper = bounds[i]
		} else {
			upper = hi
		}
		lower, upper = max(lower, lo), min(upper, hi)
		if upper <= lower {
			return lower
		}
		frac := (rank - float64(seen)) / float64(c)
		return lower + time.Duration(frac*float64(upper-lower))
	}
	return hi
}

// Stats summarise runs: counts by outcome and the latency of the runs that reached the server
// (up or degraded). A run's latency is its answer time, or its whole duration when it has
// none (RunRecord.Latency): rollups written before answer times were kept hold durations.
type Stats struct {
	Runs, Up, Degraded, Down int64
	LatencySum               time.Duration
	// LatencyMin and LatencyMax are 0 when no run reached the server.
	LatencyMin, LatencyMax time.Duration
	Latency                Histogram
}

// Uptime is the fraction of runs that reached the server, 0 when there were none.
func (st Stats) Uptime() float64 {
	if st.Runs == 0 {
		return 0
	}
	return float64(st.Up+st.Degraded) / float64(st.Runs)
}

// LatencyQuantile estimates a latency quantile (0.95 for p95) from the histogram.
func (st Stats) LatencyQuantile(q float64) time.Duration {
	return st.Latency.Quantile(q, st.LatencyMin, st.LatencyMax)
}

// MeanLatency is the mean latency of the runs that reached the server.
func (st Stats) MeanLatency() time.Duration {
	if n := st.Up + st.Degraded; n > 0 {
		return st.LatencySum / time.Duration(n)
	}
	return 0
}

func (st *Stats) add(bounds []time.Duration, outcome string, d time.Duration) {
	st.Runs++
	switch outcome {
	case OutcomeUp:
		st.Up++
	case OutcomeDegraded:
		st.Degraded++
	default:
		st.Down++
		return
	}
	if st.Up+st.Degraded == 1 || d < st.LatencyMin {
		st.LatencyMin = d
	}
	st.LatencyMax = max(st.LatencyMax, d)
	st.LatencySum += d
	if st.Latency == nil {
		st.Latency = make(Histogram, HistogramBuckets)
	}
	st.Latency[bucketOf(bounds, d)]++
}

// Rollup is one hour of one server seen from one region.
type Rollup struct {
	ServerID int64
	Region   string
	Hour     time.Time
	Stats
}

type rollupKey struct {
	server int64
	region string
	hour   int64 // Unix seconds
}

// rollupsOf sums the fresh runs of a batch per (server, region, hour), sorted by key so that
// concurrent writers lock rollup rows in the same order.
func rollupsOf(b *runBatch, fresh []int) []Rollup {
	bounds := latencyBounds()
	byKey := map[rollupKey]*Rollup{}
	for _, i := range fresh {
		r := &b.runs[i]
		// Microseconds, as stored, so that a rollup equals the sum of the stored runs.
		d := r.Latency()
		hour := r.Start.UTC().Truncate(time.Hour)
		k := rollupKey{r.ServerID, r.Region, hour.Unix()}
		ru := byKey[k]
		if ru == nil {
			ru = &Rollup{ServerID: r.ServerID, Region: r.Region, Hour: hour}
			byKey[k] = ru
		}
		ru.add(bounds, r.Outcome, d)
	}
	out := make([]Rollup, 0, len(byKey))
	for _, ru := range byKey {
		out = append(out, *ru)
	}
	slices.SortFunc(out, func(a, b Rollup) int {
		switch {
		case a.ServerID != b.ServerID:
			return int(a.ServerID - b.ServerID)
		case a.Region != b.Region:
			return strings.Compare(a.Region, b.Region)
		}
		return a.Hour.Compare(b.Hour)
	})
	return out
}

// queueRollups queues the statement that adds rollups to the stored ones. Histograms travel as one flat array, sliced
// per row in SQL: unnest would flatten a two-dimensional array into single numbers.
// The histograms are added as histogram_add adds them, written in line: called per row, the
// SQL function costs about twice the expression (PostgreSQL 15 sets up its executor on every
// call), and a batch of a fleet updates a row per server and region.
func queueRollups(batch *pgx.Batch, rs []Rollup) {
	n := len(rs)
	servers := make([]int64, n)
	regions := make([]string, n)
	hours := make([]time.Time, n)
	runs, up, degraded, down := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	sums := make([]int64, n)
	mins, maxs := make([]*int64, n), make([]*int64, n)
	hist := make([]int64, 0, n*HistogramBuckets)
	for i, r := range rs {
		servers[i], regions[i], hours[i] = r.ServerID, r.Region, r.Hour
		runs[i], up[i], degraded[i], down[i] = r.Runs, r.Up, r.Degraded, r.Down
		sums[i] = r.LatencySum.Microseconds()
		if r.Latency != nil {
			lo, hi := r.LatencyMin.Microseconds(), r.LatencyMax.Microseconds()
			mins[i], maxs[i] = &lo, &hi
			hist = append(hist, r.Latency...)
		} else {
			hist = append(hist, make([]int64, HistogramBuckets)...)
		}
	}
	batch.Queue(`INSERT INTO rollups AS r (server_id, region, hour, runs, up, degraded, down,
			latency_sum_us, latency_min_us, latency_max_us, latency_hist)
		SELECT u.server_id, u.region, u.hour, u.runs, u.up, u.degraded, u.down, u.sum_us, u.min_us, u.max_us,
			($11::bigint[])[(u.ord - 1) * $12 + 1 : u.ord * $12]
		FROM unnest($1::bigint[], $2::text[], $3::timestamptz[], $4::int[], $5::int[], $6::int[],
			$7::int[], $8::bigint[], $9::bigint[], $10::bigint[])
			WITH ORDINALITY AS u(server_id, region, hour, runs, up, degraded, down, sum_us, min_us, max_us, ord)
		ORDER BY u.ord
		ON CONFLICT (server_id, region, hour) DO UPDATE SET
			runs = r.runs + excluded.runs,
			up = r.up + excluded.up,
			degraded = r.degraded + excluded.degraded,
			down = r.down + excluded.down,
			latency_sum_us = r.latency_sum_us + excluded.latency_sum_us,
			latency_min_us = least(r.latency_min_us, excluded.latency_min_us),
			latency_max_us = greatest(r.latency_max_us, excluded.latency_max_us),
			latency_hist = ARRAY(SELECT coalesce(a, 0) + coalesce(b, 0)
				FROM unnest(r.latency_hist, excluded.latency_hist) WITH ORDINALITY AS t(a, b, i) ORDER BY i)`,
		servers, regions, hours, runs, up, degraded, down, sums, mins, maxs, hist, HistogramBuckets)
}

// RollupQuery selects rollups of one server.
type RollupQuery struct {
	ServerID int64
	// Region selects one region; "" sums all regions.
	Region string
	// From and To bound the hours: From <= hour < To.
	From, To time.Time
}

const statsColumns = `sum(runs), sum(up), sum(degraded), sum(down), sum(latency_sum_us)::bigint,
	min(latency_min_us), max(latency_max_us), histogram_sum(latency_hist)`

func scanStats(row pgx.Row, st *Stats, prefix ...any) error {
	var sum int64
	var lo, hi *int64
	var runs, up, degraded, down *int64
	var hist []int64
	if err := row.Scan(append(prefix, &runs, &up, &degraded, &down, &sum, &lo, &hi, &hist)...); err != nil {
		return err
	}
	if runs == nil { // no rows: sum() is NULL
		return nil
	}
	st.Runs, st.Up, st.Degraded, st.Down = *runs, *up, *degraded, *down
	st.LatencySum = time.Duration(sum) * time.Microsecond
	if lo != nil {
		st.LatencyMin = time.Duration(*lo) * time.Microsecond
		st.LatencyMax = time.Duration(*hi) * time.Microsecond
	}
	if len(hist) > 0 && st.Up+st.Degraded > 0 {
		st.Latency = hist
	}
	return nil
}

// Rollups returns the hourly rollups of a server, oldest first (regions summed when the query
// names none).
func (s *Store) Rollups(ctx context.Context, q RollupQuery) ([]Rollup, error) {
	rows, err := s.pool.Query(ctx, `SELECT hour, `+statsColumns+` FROM rollups
		WHERE server_id = $1 AND ($2 = '' OR region = $2) AND hour >= $3 AND hour < $4
		GROUP BY hour ORDER BY hour`, q.ServerID, q.Region, q.From, q.To)
	if err != nil {
		return nil, fmt.Errorf("store: rollups of server %d: %w", q.ServerID, err)
	}
	defer rows.Close()
	var out []Rollup
	for rows.Next() {
		r := Rollup{ServerID: q.ServerID, Region: q.Region}
		if err := scanStats(rows, &r.Stats, &r.Hour); err != nil {
			return nil, fmt.Errorf("store: rollups of server %d: %w", q.ServerID, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: rollups of server %d: %w", q.ServerID, err)
	}
	return out, nil
}

// Summary sums the rollups a query selects: uptime and latency percentiles over 90 days read
// 2,160 rows per region, not the raw runs.
func (s *Store) Summary(ctx context.Context, q RollupQuery) (Stats, error) {
	var st Stats
	err := scanStats(s.pool.QueryRow(ctx, `SELECT `+statsColumns+` FROM rollups
		WHERE server_id = $1 AND ($2 = '' OR region = $2) AND hour >= $3 AND hour < $4`,
		q.ServerID, q.Region, q.From, q.To), &st)
	if err != nil {
		return Stats{}, fmt.Errorf("store: summary of server %d: %w", q.ServerID, err)
	}
	return st, nil
}
