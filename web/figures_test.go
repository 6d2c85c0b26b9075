package web

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

// rawRun is a run as the runs table holds it.
type rawRun struct {
	at      time.Time
	outcome string
	us      int64
}

// latencyBoundsMS are the upper bounds of the latency histogram buckets, in milliseconds, as
// migration 0003 fixes them for good.
func latencyBoundsMS() []int64 {
	return []int64{5, 10, 25, 50, 75, 100, 150, 200, 300, 400, 500, 750, 1000, 1500, 2000, 3000, 5000, 7500, 10000, 15000, 30000, 60000}
}

func bucketIndex(d time.Duration) int {
	bounds := latencyBoundsMS()
	return sort.Search(len(bounds), func(i int) bool { return time.Duration(bounds[i])*time.Millisecond >= d })
}

// estimateFromRaw computes, from raw durations, the percentile the dashboard promises: the
// histogram of the fixed buckets, the bucket holding rank q·n, linear within it, the bucket
// clamped to the observed minimum and maximum.
func estimateFromRaw(durations []time.Duration, q float64) time.Duration {
	if len(durations) == 0 {
		return 0
	}
	lo, hi := slices.Min(durations), slices.Max(durations)
	bounds := latencyBoundsMS()
	counts := make([]int64, len(bounds)+1)
	for _, d := range durations {
		counts[bucketIndex(d)]++
	}
	rank := q * float64(len(durations))
	var seen int64
	for i, c := range counts {
		if c == 0 || float64(seen+c) < rank {
			seen += c
			continue
		}
		lower, upper := time.Duration(0), hi
		if i > 0 {
			lower = time.Duration(bounds[i-1]) * time.Millisecond
		}
		if i < len(bounds) {
			upper = time.Duration(bounds[i]) * time.Millisecond
		}
		lower, upper = max(lower, lo), min(upper, hi)
		if upper <= lower {
			return lower
		}
		return lower + time.Duration((rank-float64(seen))/float64(c)*float64(upper-lower))
	}
	return hi
}

// nearestRank is the exact percentile of the raw durations.
func nearestRank(durations []time.Duration, q float64) time.Duration {
	s := slices.Clone(durations)
	slices.Sort(s)
	return s[max(int(math.Ceil(q*float64(len(s))))-1, 0)]
}

func testFigures(t *testing.T, f *fleet) {
	status := f.mustGet(t, "/")
	hour := f.now.Truncate(time.Hour)
	windows := []struct {
		name  string
		label string
		hours int
	}{{"24h", "24 h", 24}, {"7d", "7 d", 7 * 24}, {"30d", "30 d", 30 * 24}, {"90d", "90 d", 90 * 24}}
	for _, p := range f.plans {
		t.Run(p.Name, func(t *testing.T) {
			// The figures are of the answer time, or of the whole probe for a run without one.
			rows, err := f.pool.Query(f.ctx, `SELECT started_at, outcome, coalesce(answer_us, duration_us) FROM runs WHERE server_id = $1`, f.servers[p.Name].ID)
			if err != nil {
				t.Fatal(err)
			}
			var runs []rawRun
			for rows.Next() {
				var r rawRun
				if err := rows.Scan(&r.at, &r.outcome, &r.us); err != nil {
					t.Fatal(err)
				}
				runs = append(runs, r)
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			// A window of h hours holds the current hour and the h-1 whole hours before it.
			within := func(hours int) (ok, n int64, reached []time.Duration) {
				from := hour.Add(-time.Duration(hours-1) * time.Hour)
				for _, r := range runs {
					if r.at.Before(from) || r.at.After(f.now) {
						continue
					}
					n++
					if r.outcome != store.OutcomeDown {
						ok++
						reached = append(reached, time.Duration(r.us)*time.Microsecond)
					}
				}
				return ok, n, reached
			}

			row := rowOf(t, status, p.Name)
			ok90, n90, _ := within(90 * 24)
			if n90 == 0 {
				if !strings.Contains(row, "no runs in 90 days") {
					t.Error("status page: a server without runs does not say so")
				}
			} else if got := submatch(t, row, `<span class="uptime-figure"><b>([^<]+)</b>`); got != formatUptime(ok90, n90) {
				t.Errorf("status page: 90-day uptime %s, from raw runs %s (%d of %d)", got, formatUptime(ok90, n90), ok90, n90)
			}
			_, _, reached := within(24)
			if len(reached) > 0 {
				p50, p95 := estimateFromRaw(reached, 0.5), estimateFromRaw(reached, 0.95)
				if !strings.Contains(row, `<span class="label">Answer time 24 h</span>`) {
					t.Error("status page: the latency figures do not say they are the answer time")
				}
				m := regexp.MustCompile(`p50 <b>([^<]+)</b> · p95 ([^<]+?) <svg`).FindStringSubmatch(row)
				if m == nil || m[1] != formatLatency(p50) || m[2] != formatLatency(p95) {
					t.Errorf("status page: latency %v, from raw runs p50 %s p95 %s", m, formatLatency(p50), formatLatency(p95))
				}
				for _, q := range []float64{0.5, 0.95, 0.99} {
					est, exact := estimateFromRaw(reached, q), nearestRank(reached, q)
					if bucketIndex(est) != bucketIndex(exact) {
						t.Errorf("p%v estimate %v is not in the bucket of the exact percentile %v", q*100, est, exact)
					}
				}
			}

			page := f.mustGet(t, serverHref(p.Name))
			for _, w := range windows {
				ok, n, _ := within(w.hours)
				if got := submatch(t, page, `<span class="label">Uptime `+w.label+`</span><span class="value">([^<]+)</span>`); got != formatUptime(ok, n) {
					t.Errorf("server page: uptime %s = %s, from raw runs %s (%d of %d)", w.name, got, formatUptime(ok, n), ok, n)
				}
			}
			for _, q := range []struct {
				name string
				q    float64
			}{{"p50", 0.5}, {"p95", 0.95}, {"p99", 0.99}} {
				want := formatLatency(estimateFromRaw(reached, q.q))
				if got := submatch(t, page, `<span class="label">Answer time `+q.name+`, 24 h</span><span class="value">([^<]+)</span>`); got != want {
					t.Errorf("server page: %s = %s, from raw runs %s", q.name, got, want)
				}
			}
		})
	}
}

func submatch(t *testing.T, s, pattern string) string {
	t.Helper()
	m := regexp.MustCompile(pattern).FindStringSubmatch(s)
	if m == nil {
		t.Errorf("no match for %s", pattern)
		return fmt.Sprintf("(no match for %s)", pattern)
	}
	return m[1]
}
