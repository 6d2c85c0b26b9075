package monitor

import (
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

// BenchmarkScheduleCache is the schedule cache's part of one run of a worker that holds
// 10,000 servers on a one-minute grid: the slot claimed and ended, and what the claim loop
// asks after a claim (what to forget, what to hand back), as if every run had a claim of
// its own.
func BenchmarkScheduleCache(b *testing.B) {
	const (
		servers = 10_000
		every   = time.Minute
		lease   = 40 * time.Second
	)
	start := time.Now()
	spacing := every / servers
	var c scheduleCache
	for i := range servers {
		due := start.Add(time.Duration(i) * spacing)
		c.claimed(store.Server{ID: int64(i)}, due)
		c.ended(int64(i), due, due.Add(every), true, false)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for n := range b.N {
		id := int64(n % servers)
		now := start.Add(every + time.Duration(n)*spacing)
		c.claimed(store.Server{ID: id}, now)
		c.ended(id, now, now.Add(every), true, false)
		c.forgetPassed(now, lease)
		if len(c.toHandBack()) != 0 {
			b.Fatal("nothing was probed offline, yet there are slots to hand back")
		}
	}
	if c.len() != servers {
		b.Fatalf("the cache holds %d servers, want all %d", c.len(), servers)
	}
}
