package store

import (
	"math/rand/v2"
	"reflect"
	"sync"
	"testing"
	"time"
)

func TestLatencyBucketsMatchTheDatabase(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	rows, err := s.pool.Query(ctx, `SELECT upper_us FROM latency_buckets ORDER BY bucket`)
	if err != nil {
		t.Fatal(err)
	}
	var got []*int64
	for rows.Next() {
		var u *int64
		if err := rows.Scan(&u); err != nil {
			t.Fatal(err)
		}
		got = append(got, u)
	}
	bounds := LatencyBucketBounds()
	if len(got) != HistogramBuckets || len(bounds) != HistogramBuckets-1 || got[len(got)-1] != nil {
		t.Fatalf("database has %d buckets, Go %d bounds; want %d buckets, the last unbounded", len(got), len(bounds), HistogramBuckets)
	}
	for i, b := range bounds {
		if *got[i] != b.Microseconds() {
			t.Errorf("bucket %d: database %dµs, Go %v", i, *got[i], b)
		}
	}
}

func TestHistogramQuantile(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	at := func(buckets map[int]int64) Histogram {
		h := make(Histogram, HistogramBuckets)
		for i, c := range buckets {
			h[i] = c
		}
		return h
	}
	tests := []struct {
		name   string
		h      Histogram
		q      float64
		lo, hi time.Duration
		want   time.Duration
	}{
		{"empty", make(Histogram, HistogramBuckets), 0.5, 0, 0, 0},
		// 100 samples in (50ms, 75ms]: the median is halfway through the bucket.
		{"median inside one bucket", at(map[int]int64{4: 100}), 0.5, 51 * ms, 75 * ms, 51*ms + 12*ms},
		{"p0 is the minimum", at(map[int]int64{4: 100}), 0, 60 * ms, 70 * ms, 60 * ms},
		{"p100 is the maximum", at(map[int]int64{4: 100}), 1, 60 * ms, 70 * ms, 70 * ms},
		// 90 fast (≤5ms) and 10 slow (1s-1.5s]: p95 is halfway through the slow bucket.
		{"p95 in the tail", at(map[int]int64{0: 90, 13: 10}), 0.95, time.Millisecond, 1500 * ms, 1250 * ms},
		{"overflow bucket ends at the maximum", at(map[int]int64{22: 4}), 0.5, 70 * time.Second, 90 * time.Second, 80 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.h.Quantile(tt.q, tt.lo, tt.hi); got != tt.want {
				t.Errorf("Quantile(%v) = %v, want %v", tt.q, got, tt.want)
			}
		})
	}
}

// TestRollupsAgreeWithTheRawRuns writes random runs from concurrent writers, with retries, and
// recomputes every rollup from the runs table in SQL: the latency of a run is its answer time,
// or its duration when it has none.
func TestRollupsAgreeWithTheRawRuns(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	rng := rand.New(rand.NewPCG(1, 2))
	base := time.Now().UTC().Truncate(time.Hour).Add(-4 * time.Hour)
	bounds := LatencyBucketBounds()
	outcomes := []string{OutcomeUp, OutcomeUp, OutcomeDegraded, OutcomeDown}
	var runs []RunRecord
	for range 600 {
		start := base.Add(time.Duration(rng.Int64N(int64(5 * time.Hour))))
		var d time.Duration
		if rng.IntN(4) == 0 { // exactly on a bound, which belongs to the bucket below it
			d = bounds[rng.IntN(len(bounds))]
		} else {
			d = time.Duration(rng.Int64N(int64(90 * time.Second)))
		}
		r := sampleRun(1+rng.Int64N(3), []string{"eu", "us"}[rng.IntN(2)], start, outcomes[rng.IntN(len(outcomes))], d)
		r.Transcript = nil
		switch rng.IntN(3) {
		case 0: // written before answer times were kept, or never answered: the duration counts
		case 1: // exactly on a bound
			r.AnswerTime = min(bounds[rng.IntN(len(bounds))], d)
		default:
			r.AnswerTime = time.Duration(rng.Int64N(int64(d) + 1))
		}
		runs = append(runs, r)
	}
	var wg sync.WaitGroup
	for w := range 3 {
		wg.Go(func() {
			// Overlapping batches: each repeats the last 10 runs of the one before, as
			// a retry after an unknown outcome would, and adds 40 new ones.
			end := (w + 1) * 200
			for i := w * 200; i < end; i += 40 {
				if _, err := s.WriteRuns(ctx, runs[max(i-10, w*200):min(i+40, end)]); err != nil {
					t.Errorf("WriteRuns: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()

	type key struct {
		server int64
		region string
		hour   time.Time
	}
	want := map[key]*Stats{}
	rows, err := s.pool.Query(ctx, `SELECT server_id, region, date_trunc('hour', started_at, 'UTC'),
			count(*), count(*) FILTER (WHERE outcome = 'up'), count(*) FILTER (WHERE outcome = 'degraded'),
			count(*) FILTER (WHERE outcome = 'down'),
			coalesce(sum(coalesce(answer_us, duration_us)) FILTER (WHERE outcome <> 'down'), 0)::bigint,
			coalesce(min(coalesce(answer_us, duration_us)) FILTER (WHERE outcome <> 'down'), 0),
			coalesce(max(coalesce(answer_us, duration_us)) FILTER (WHERE outcome <> 'down'), 0)
		FROM runs GROUP BY 1, 2, 3`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k key
		st := &Stats{}
		var sum, lo, hi int64
		if err := rows.Scan(&k.server, &k.region, &k.hour, &st.Runs, &st.Up, &st.Degraded, &st.Down, &sum, &lo, &hi); err != nil {
			t.Fatal(err)
		}
		st.LatencySum, st.LatencyMin, st.LatencyMax = time.Duration(sum)*time.Microsecond, time.Duration(lo)*time.Microsecond, time.Duration(hi)*time.Microsecond
		k.hour = k.hour.UTC()
		want[k] = st
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	rows, err = s.pool.Query(ctx, `SELECT server_id, region, date_trunc('hour', started_at, 'UTC'),
			(SELECT count(*) FROM latency_buckets b WHERE b.upper_us < coalesce(r.answer_us, r.duration_us)) AS bucket, count(*)
		FROM runs r WHERE outcome <> 'down' GROUP BY 1, 2, 3, 4`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k key
		var bucket, n int64
		if err := rows.Scan(&k.server, &k.region, &k.hour, &bucket, &n); err != nil {
			t.Fatal(err)
		}
		k.hour = k.hour.UTC()
		st := want[k]
		if st.Latency == nil {
			st.Latency = make(Histogram, HistogramBuckets)
		}
		st.Latency[bucket] = n
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	if n := count(t, ctx, s, `SELECT count(*) FROM runs`); n != len(runs) {
		t.Fatalf("%d runs stored, want %d", n, len(runs))
	}

	got := 0
	for server := int64(1); server <= 3; server++ {
		for _, region := range []string{"eu", "us"} {
			rollups, err := s.Rollups(ctx, RollupQuery{ServerID: server, Region: region, From: base, To: base.Add(6 * time.Hour)})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rollups {
				got++
				k := key{server, region, r.Hour.UTC()}
				if w := want[k]; w == nil || !reflect.DeepEqual(r.Stats, *w) {
					t.Errorf("rollup %v:\n got %+v\nwant %+v", k, r.Stats, w)
				}
			}
		}
	}
	if got != len(want) {
		t.Errorf("%d rollups, want %d (one per server, region and hour with runs)", got, len(want))
	}

	// The summary over all regions and hours is the sum of everything.
	summary, err := s.Summary(ctx, RollupQuery{ServerID: 2, From: base, To: base.Add(6 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	var total Stats
	for k, w := range want {
		if k.server != 2 {
			continue
		}
		total.Runs += w.Runs
		total.Up += w.Up
		total.Degraded += w.Degraded
		total.Down += w.Down
		total.LatencySum += w.LatencySum
	}
	if summary.Runs != total.Runs || summary.Up != total.Up || summary.Degraded != total.Degraded ||
		summary.Down != total.Down || summary.LatencySum != total.LatencySum {
		t.Errorf("summary %+v, want counts and sum of %+v", summary, total)
	}
	var inHist int64
	for _, c := range summary.Latency {
		inHist += c
	}
	if inHist != summary.Up+summary.Degraded {
		t.Errorf("summary histogram holds %d runs, want %d (up and degraded)", inHist, summary.Up+summary.Degraded)
	}
	if p50, p99 := summary.LatencyQuantile(0.5), summary.LatencyQuantile(0.99); p50 <= 0 || p50 > p99 || p99 > summary.LatencyMax {
		t.Errorf("p50 %v, p99 %v, max %v: want 0 < p50 <= p99 <= max", p50, p99, summary.LatencyMax)
	}
	if up := summary.Uptime(); up <= 0 || up >= 1 {
		t.Errorf("uptime %v, want strictly between 0 and 1 for a random mix", up)
	}
}

func TestRollupLatencyIsTheAnswerTimeOrElseTheWholeDuration(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	hour := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	bounds := LatencyBucketBounds()
	tests := []struct {
		name     string
		outcome  string
		duration time.Duration
		answer   time.Duration
		// want is the latency the rollup counts; 0 when the run counts as down, without one.
		want time.Duration
	}{
		{"an up run counts its answer time, not the probe", OutcomeUp, 2400 * ms, 180 * ms, 180 * ms},
		{"a degraded run counts its answer time", OutcomeDegraded, 900 * ms, 40 * ms, 40 * ms},
		{"a run without an answer time counts its duration", OutcomeUp, 2400 * ms, 0, 2400 * ms},
		{"an answer time under a microsecond is none", OutcomeUp, 300 * ms, 400 * time.Nanosecond, 300 * ms},
		{"the answer time is stored to the microsecond", OutcomeUp, 300 * ms, 12*ms + 1500*time.Nanosecond, 12*ms + time.Microsecond},
		{"a down run has no latency", OutcomeDown, 5 * time.Second, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := sampleRun(1, "eu", hour.Add(5*time.Minute), tt.outcome, tt.duration)
			r.AnswerTime = tt.answer
			rs := rollupsOf(&runBatch{runs: []RunRecord{r}}, []int{0})
			if len(rs) != 1 || rs[0].Runs != 1 || !rs[0].Hour.Equal(hour) {
				t.Fatalf("rollups = %+v, want one of one run in %v", rs, hour)
			}
			st := rs[0].Stats
			if tt.want == 0 {
				if st.Down != 1 || st.Latency != nil || st.LatencySum != 0 {
					t.Errorf("stats = %+v, want one down run and no latency", st)
				}
				return
			}
			if st.LatencySum != tt.want || st.LatencyMin != tt.want || st.LatencyMax != tt.want {
				t.Errorf("latency sum/min/max = %v/%v/%v, want %v", st.LatencySum, st.LatencyMin, st.LatencyMax, tt.want)
			}
			if b := bucketOf(bounds, tt.want); st.Latency[b] != 1 {
				t.Errorf("histogram %v, want the run in bucket %d", st.Latency, b)
			}
			if got := r.Latency(); got != tt.want {
				t.Errorf("Latency() = %v, want %v", got, tt.want)
			}
		})
	}
}
