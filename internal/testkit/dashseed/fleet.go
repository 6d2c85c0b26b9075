package dashseed

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"net/http/httptest"
	"time"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
	"github.com/mcpwatch/mcpwatch/monitor"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
	"github.com/mcpwatch/mcpwatch/store"
)

// Samples are real runs of fixture servers, one per kind of run a fleet shows: each is a probe
// of a fixture over HTTP on loopback, judged by the checks and recorded as the monitor records
// runs, transcript included.
type Samples struct {
	Up       store.RunRecord // a conformant server
	Degraded store.RunRecord // answers, fails a MUST (unknown method answered with -32603)
	Down     store.RunRecord // initialize answered with an error
	Drifted  store.RunRecord // conformant, with one tool more and one description changed
}

// ProbeSamples probes the four fixtures.
func ProbeSamples(ctx context.Context, reg *checks.Registry) (Samples, error) {
	drifted := fixture.DefaultTools()
	drifted[0].Description = "Returns the given text unchanged, now with logging."
	drifted = append(drifted, fixture.Tool{
		Name: "summarize", Title: "Summarize", ReadOnly: true, Description: "Shortens a text to its first sentence.",
		InputSchema: []byte(`{"type":"object","properties":{"text":{"type":"string"},"max_words":{"type":"integer"}},"required":["text"]}`),
		Call:        func(context.Context, map[string]any) fixture.ToolResult { return fixture.ToolResult{Text: "0"} },
	})
	var out Samples
	for _, p := range []struct {
		into    *store.RunRecord
		cfg     fixture.Config
		outcome string
	}{
		{&out.Up, fixture.Config{}, store.OutcomeUp},
		{&out.Degraded, fixture.Config{Fault: fixture.UnknownMethodWrongCode}, store.OutcomeDegraded},
		{&out.Down, fixture.Config{Fault: fixture.InitError}, store.OutcomeDown},
		{&out.Drifted, fixture.Config{Tools: drifted}, store.OutcomeUp},
	} {
		rec, err := Probe(ctx, reg, p.cfg)
		if err != nil {
			return Samples{}, err
		}
		if rec.Outcome != p.outcome {
			return Samples{}, fmt.Errorf("dashseed: fixture %q was %s, want %s (%s)", p.cfg.Fault, rec.Outcome, p.outcome, rec.Error)
		}
		*p.into = rec
	}
	return out, nil
}

// Probe probes a fixture server once and records the run as the monitor does.
func Probe(ctx context.Context, reg *checks.Registry, cfg fixture.Config) (store.RunRecord, error) {
	srv, err := fixture.New(cfg)
	if err != nil {
		return store.RunRecord{}, err
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	res, err := probe.Run(ctx, probe.Target{URL: ts.URL + "/mcp"}, probe.Options{Timeout: 20 * time.Second})
	if err != nil {
		return store.RunRecord{}, fmt.Errorf("dashseed: probe: %w", err)
	}
	return monitor.RunRecordOf(res, reg.Evaluate(res), monitor.RunMeta{Transcripts: monitor.TranscriptsAll}), nil
}

// Plan is one server of a demo fleet and its history.
type Plan struct {
	Name    string
	Regions []string
	Enabled bool
	// Latency is the typical duration of a run (the whole probe); runs vary around it.
	Latency time.Duration
	// Answer is the typical answer time of a run that reached the server (its handshake and
	// first tools/list page), a fraction of Latency; it varies with it. 0 writes runs without
	// one, as before answer times were kept.
	Answer time.Duration
	// Pick chooses the sample of the run at t seen from region (nil: no run then).
	Pick func(t time.Time, region string) *store.RunRecord
	// Until ends the history early (a paused server); zero means now.
	Until time.Time
	// State is what the status page should say of the server.
	State string
}

// Schedule of a demo history: a run every recentEvery over the last day, every olderEvery
// before it, for historyDays. Steps, findings and transcripts are kept for recent runs only,
// which keeps seeding fast; older runs count in rollups and uptime all the same.
const (
	recentEvery = 10 * time.Minute
	olderEvery  = 2 * time.Hour
	historyDays = 90
	detailAge   = 48 * time.Hour
)

// RunTimes are the starts of a demo history ending at now, oldest first.
func RunTimes(now time.Time) []time.Time {
	var out []time.Time
	recentFrom := now.Add(-24 * time.Hour).Truncate(recentEvery)
	for t := now.Add(-historyDays * 24 * time.Hour).Truncate(olderEvery).Add(olderEvery); t.Before(recentFrom); t = t.Add(olderEvery) {
		out = append(out, t)
	}
	for t := recentFrom; !t.After(now); t = t.Add(recentEvery) {
		out = append(out, t)
	}
	return out
}

// Seed creates the plan's servers (HTTP, source config) and writes their histories through
// the store, as the monitor would have. It returns the servers by name.
func Seed(ctx context.Context, s *store.Store, now time.Time, plans []Plan) (map[string]store.Server, error) {
	regions := map[string]bool{}
	for _, p := range plans {
		for _, r := range p.Regions {
			if !regions[r] {
				regions[r] = true
				if err := s.RegisterRegion(ctx, r); err != nil {
					return nil, err
				}
			}
		}
	}
	out := map[string]store.Server{}
	for _, p := range plans {
		v, err := s.UpsertServer(ctx, store.Server{
			Name: p.Name, Source: store.SourceConfig, Transport: protocol.TransportHTTP,
			URL:      "https://" + p.Name + ".example.com/mcp",
			Headers:  []store.HeaderRef{{Name: "Authorization", FromEnv: "TOKEN", Prefix: "Bearer "}},
			Schedule: "@every 10m", Timeout: 20 * time.Second, Enabled: p.Enabled,
			Labels: map[string]string{"team": "platform"},
		})
		if err != nil {
			return nil, err
		}
		out[p.Name] = v
		runs := History(v.ID, p, now)
		for len(runs) > 0 {
			n := min(len(runs), 2000)
			if _, err := s.WriteRuns(ctx, runs[:n]); err != nil {
				return nil, err
			}
			runs = runs[n:]
		}
	}
	return out, nil
}

// History builds a plan's runs up to now (or Until). Durations and answer times vary around the
// plan's in a way that depends only on the plan's name and the run's time, so a history is the
// same at every seeding.
func History(serverID int64, p Plan, now time.Time) []store.RunRecord {
	end := now
	if !p.Until.IsZero() {
		end = p.Until
	}
	h := fnv.New64a()
	h.Write([]byte(p.Name))
	var out []store.RunRecord
	for _, t := range RunTimes(now) {
		if t.After(end) {
			break
		}
		for ri, region := range p.Regions {
			start := t.Add(time.Duration(ri)*7*time.Second + 3*time.Second)
			if start.After(now) {
				continue
			}
			sample := p.Pick(start, region)
			if sample == nil {
				continue
			}
			rng := rand.New(rand.NewPCG(h.Sum64(), uint64(start.UnixNano())))
			r := *sample
			r.ID = store.NewRunID(start)
			r.ServerID, r.Region, r.Worker, r.Start = serverID, region, "worker-"+region, start
			if r.Outcome != store.OutcomeDown {
				// A log-normal spread: most runs near the typical latency, a tail above it.
				factor := math.Exp(rng.NormFloat64() * 0.35)
				r.Duration = time.Duration(float64(p.Latency) * factor).Truncate(time.Microsecond)
				// A slow network slows both; the answer time has a spread of its own too.
				answer := time.Duration(float64(p.Answer) * factor * math.Exp(rng.NormFloat64()*0.2))
				r.AnswerTime = min(answer, r.Duration).Truncate(time.Microsecond)
			} else {
				r.Duration = time.Duration(50+rng.IntN(200)) * time.Millisecond
				r.AnswerTime = 0 // it never got that far
			}
			if now.Sub(start) > detailAge {
				r.Steps, r.Findings, r.Transcript = nil, nil, nil
			}
			out = append(out, r)
		}
	}
	return out
}
