package apiserver

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/mcpwatch/mcpwatch/jsondoc"
)

// The server list is encoded without reflection: at a registry's size (10,000 servers)
// encoding/json spent some 80 ms of CPU per reading walking the views' fields, as much as
// half of reading them. These functions write what json.Marshal writes for the same views,
// byte for byte (members in field order, omitempty where the tags say, HTML-safe strings,
// floats as encoding/json formats them, maps by sorted key); TestListEncodingMatchesReflection
// holds them to it. A view type that gains a field must gain it here too.

// listEncoder appends JSON to b; err is the first error met (a time or number that JSON
// cannot hold), after which the output is not used.
type listEncoder struct {
	b   []byte
	err error
}

func (e *listEncoder) raw(s string)      { e.b = append(e.b, s...) }
func (e *listEncoder) str(s string)      { e.b = jsondoc.AppendString(e.b, s) }
func (e *listEncoder) int(n int64)       { e.b = strconv.AppendInt(e.b, n, 10) }
func (e *listEncoder) bool(v bool)       { e.b = strconv.AppendBool(e.b, v) }
func (e *listEncoder) null()             { e.b = append(e.b, "null"...) }
func (e *listEncoder) intp(p *int)       { ptr(e, p, func(n int) { e.int(int64(n)) }) }
func (e *listEncoder) int64p(p *int64)   { ptr(e, p, e.int) }
func (e *listEncoder) floatp(p *float64) { ptr(e, p, e.float) }

func ptr[T any](e *listEncoder, p *T, write func(T)) {
	if p == nil {
		e.null()
		return
	}
	write(*p)
}

// float writes f as encoding/json does: the shortest decimal that reads back as f, in
// exponent form (with a one-digit exponent where it fits) below 1e-6 and from 1e21.
func (e *listEncoder) float(f float64) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		e.fail(fmt.Errorf("unsupported value: %v", f))
		return
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	e.b = strconv.AppendFloat(e.b, f, format, -1, 64)
	if format == 'e' {
		if n := len(e.b); n >= 4 && e.b[n-4] == 'e' && e.b[n-3] == '-' && e.b[n-2] == '0' {
			e.b[n-2] = e.b[n-1]
			e.b = e.b[:n-1]
		}
	}
}

// time writes t as time.Time's MarshalJSON does.
func (e *listEncoder) time(t time.Time) {
	b, err := jsondoc.AppendTime(e.b, t)
	if err != nil {
		e.fail(err)
		return
	}
	e.b = b
}

// optional writes a member of a string with omitempty: nothing when it is empty.
func (e *listEncoder) optional(member, v string) {
	if v != "" {
		e.raw(member)
		e.str(v)
	}
}

func (e *listEncoder) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

// labels writes a map by sorted key, as encoding/json does; nil is null.
func (e *listEncoder) labels(m map[string]string) {
	if m == nil {
		e.null()
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	e.b = append(e.b, '{')
	for i, k := range keys {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.str(k)
		e.b = append(e.b, ':')
		e.str(m[k])
	}
	e.b = append(e.b, '}')
}

func (e *listEncoder) status(v *statusView) {
	e.raw(`{"id":`)
	e.int(v.ID)
	e.raw(`,"name":`)
	e.str(v.Name)
	e.raw(`,"source":`)
	e.str(v.Source)
	e.raw(`,"transport":`)
	e.str(v.Transport)
	e.optional(`,"url":`, v.URL)
	e.raw(`,"headers":`)
	e.b = jsondoc.AppendStrings(e.b, v.Headers)
	e.raw(`,"schedule":`)
	e.str(v.Schedule)
	e.raw(`,"timeoutMs":`)
	e.int(v.TimeoutMs)
	e.raw(`,"labels":`)
	e.labels(v.Labels)
	e.raw(`,"paused":`)
	e.bool(v.Paused)
	e.raw(`,"createdAt":`)
	e.time(v.CreatedAt)
	e.raw(`,"updatedAt":`)
	e.time(v.UpdatedAt)
	e.raw(`,"state":`)
	e.str(v.State)
	e.raw(`,"lastRun":`)
	e.run(v.LastRun)
	e.raw(`,"regions":`)
	if v.Regions == nil {
		e.null()
	} else {
		e.b = append(e.b, '[')
		for i := range v.Regions {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.region(&v.Regions[i])
		}
		e.b = append(e.b, ']')
	}
	e.raw(`,"uptime":`)
	e.windows(&v.Uptime)
	e.raw(`,"latency":`)
	e.latency(&v.Latency)
	e.raw(`,"lastError":`)
	e.lastError(v.LastError)
	e.raw(`,"conformance":`)
	e.conformance(v.Conformance)
	e.raw(`,"links":`)
	e.links(&v.Links)
	e.b = append(e.b, '}')
}

func (e *listEncoder) run(r *runView) {
	if r == nil {
		e.null()
		return
	}
	e.raw(`{"id":`)
	e.str(r.ID)
	e.raw(`,"serverId":`)
	e.int(r.ServerID)
	e.raw(`,"region":`)
	e.str(r.Region)
	e.raw(`,"worker":`)
	e.str(r.Worker)
	e.raw(`,"startedAt":`)
	e.time(r.StartedAt)
	e.raw(`,"durationMs":`)
	e.float(r.DurationMs)
	e.raw(`,"answerMs":`)
	e.floatp(r.AnswerMs)
	e.raw(`,"outcome":`)
	e.str(r.Outcome)
	e.raw(`,"protocolVersion":`)
	e.str(r.ProtocolVersion)
	e.raw(`,"serverName":`)
	e.str(r.ServerName)
	e.raw(`,"serverVersion":`)
	e.str(r.ServerVersion)
	e.raw(`,"errorCode":`)
	e.int64p(r.ErrorCode)
	e.raw(`,"httpStatus":`)
	e.intp(r.HTTPStatus)
	e.raw(`,"exitStatus":`)
	e.intp(r.ExitStatus)
	e.raw(`,"toolCount":`)
	e.intp(r.ToolCount)
	e.raw(`,"toolFingerprint":`)
	e.str(r.ToolFingerprint)
	e.raw(`,"error":`)
	e.str(r.Error)
	e.b = append(e.b, '}')
}

func (e *listEncoder) region(r *regionView) {
	e.raw(`{"region":`)
	e.str(r.Region)
	e.raw(`,"state":`)
	e.str(r.State)
	e.raw(`,"runId":`)
	e.str(r.RunID)
	e.raw(`,"at":`)
	e.time(r.At)
	e.raw(`,"durationMs":`)
	e.float(r.DurationMs)
	e.raw(`,"answerMs":`)
	e.floatp(r.AnswerMs)
	e.raw(`,"errorCode":`)
	e.int64p(r.ErrorCode)
	e.raw(`,"httpStatus":`)
	e.intp(r.HTTPStatus)
	e.raw(`,"exitStatus":`)
	e.intp(r.ExitStatus)
	e.b = append(e.b, '}')
}

func (e *listEncoder) windows(w *windowsView) {
	e.raw(`{"24h":`)
	e.window(&w.H24)
	e.raw(`,"7d":`)
	e.window(&w.D7)
	e.raw(`,"30d":`)
	e.window(&w.D30)
	e.raw(`,"90d":`)
	e.window(&w.D90)
	e.b = append(e.b, '}')
}

func (e *listEncoder) window(w *windowView) {
	e.raw(`{"uptime":`)
	e.floatp(w.Uptime)
	e.raw(`,"runs":`)
	e.int(w.Runs)
	e.raw(`,"up":`)
	e.int(w.Up)
	e.raw(`,"degraded":`)
	e.int(w.Degraded)
	e.raw(`,"down":`)
	e.int(w.Down)
	e.raw(`,"meanLatencyMs":`)
	e.floatp(w.MeanMs)
	e.b = append(e.b, '}')
}

func (e *listEncoder) latency(l *latencyView) {
	e.raw(`{"window":`)
	e.str(l.Window)
	e.raw(`,"runs":`)
	e.int(l.Runs)
	e.raw(`,"p50Ms":`)
	e.floatp(l.P50Ms)
	e.raw(`,"p95Ms":`)
	e.floatp(l.P95Ms)
	e.raw(`,"p99Ms":`)
	e.floatp(l.P99Ms)
	e.raw(`,"minMs":`)
	e.floatp(l.MinMs)
	e.raw(`,"maxMs":`)
	e.floatp(l.MaxMs)
	e.raw(`,"meanMs":`)
	e.floatp(l.MeanMs)
	e.b = append(e.b, '}')
}

func (e *listEncoder) lastError(l *lastErrorView) {
	if l == nil {
		e.null()
		return
	}
	e.raw(`{"runId":`)
	e.str(l.RunID)
	e.raw(`,"at":`)
	e.time(l.At)
	e.raw(`,"region":`)
	e.str(l.Region)
	e.raw(`,"outcome":`)
	e.str(l.Outcome)
	e.raw(`,"errorCode":`)
	e.int64p(l.ErrorCode)
	e.raw(`,"httpStatus":`)
	e.intp(l.HTTPStatus)
	e.raw(`,"exitStatus":`)
	e.intp(l.ExitStatus)
	e.raw(`,"message":`)
	e.str(l.Message)
	e.b = append(e.b, '}')
}

func (e *listEncoder) conformance(c *conformanceView) {
	if c == nil {
		e.null()
		return
	}
	e.raw(`{"score":`)
	e.float(c.Score)
	e.raw(`,"runId":`)
	e.str(c.RunID)
	e.raw(`,"at":`)
	e.time(c.At)
	e.raw(`,"pass":`)
	e.int(int64(c.Pass))
	e.raw(`,"fail":`)
	e.int(int64(c.Fail))
	e.raw(`,"warn":`)
	e.int(int64(c.Warn))
	e.raw(`,"advice":`)
	e.int(int64(c.Advice))
	e.raw(`,"untested":`)
	e.int(int64(c.Untested))
	e.raw(`,"skip":`)
	e.int(int64(c.Skip))
	e.raw(`,"info":`)
	e.int(int64(c.Info))
	e.raw(`,"failing":`)
	e.b = jsondoc.AppendStrings(e.b, c.Failing)
	e.raw(`,"warning":`)
	e.b = jsondoc.AppendStrings(e.b, c.Warning)
	e.b = append(e.b, '}')
}

func (e *listEncoder) links(l *linksView) {
	e.raw(`{"self":`)
	e.str(l.Self)
	e.raw(`,"dashboard":`)
	e.str(l.Dashboard)
	e.optional(`,"runs":`, l.Runs)
	e.optional(`,"tools":`, l.Tools)
	e.optional(`,"alerts":`, l.Alerts)
	if b := l.Badges; b != nil {
		e.raw(`,"badges":{"status":`)
		e.str(b.Status)
		e.raw(`,"uptime":`)
		e.str(b.Uptime)
		e.raw(`,"latency":`)
		e.str(b.Latency)
		e.raw(`,"conformance":`)
		e.str(b.Conformance)
		e.b = append(e.b, '}')
	}
	e.b = append(e.b, '}')
}
