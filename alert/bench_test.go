package alert

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/pgtest"
	"github.com/mcpwatch/mcpwatch/internal/toolsurface"
	"github.com/mcpwatch/mcpwatch/store"
)

// benchObservation is a healthy run with what a real one carries: 28 checks, 10 tools, three
// step latencies and a certificate.
func benchObservation() Observation {
	o := obs(0, "eu", up)
	for i := range 28 {
		o.Checks = append(o.Checks, CheckResult{ID: fmt.Sprintf("area.check-%02d", i), Status: CheckPass, Message: "ok"})
	}
	var tools []toolsurface.Entry
	for i := range 10 {
		tools = append(tools, toolsurface.Entry{Name: fmt.Sprintf("tool_%d", i), Description: "Does a thing with a longish description of its arguments and results.", SchemaHash: fmt.Sprint(i)})
	}
	o.Tools = toolsurface.NewSurface(tools)
	o.Steps = []StepLatency{{"initialize", 30 * time.Millisecond}, {"tools/list", 20 * time.Millisecond}, {"ping", 5 * time.Millisecond}}
	o.Certificate = &Certificate{Subject: "CN=x", NotAfter: t0.Add(90 * 24 * time.Hour)}
	return o
}

// BenchmarkObserve measures judging runs of 1,000 servers against Postgres, from several
// goroutines as a monitor's writer would.
func BenchmarkObserve(b *testing.B) {
	db, _ := pgtest.Migrated(b)
	st := store.New(db.Pool(b))
	cfg := Config{Channels: []ChannelConfig{{Name: "ops", Type: ChannelWebhook, URL: "http://127.0.0.1:1/"}}}
	eng, err := NewEngine(st, &cfg, EngineOptions{})
	if err != nil {
		b.Fatal(err)
	}
	tmpl := benchObservation()
	var n atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			o := tmpl
			o.ServerID = i%1000 + 1
			o.At = t0.Add(time.Duration(i) * time.Millisecond)
			if err := eng.Observe(context.Background(), o); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "runs/s")
}
