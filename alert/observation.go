package alert

import (
	"errors"
	"fmt"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/toolsurface"
)

// Kind is a kind of alert.
type Kind string

// The kinds of alert. Each server has at most one alert of a kind per key: conformance
// alerts are keyed by check id, latency alerts by step name, the others have one key, "".
const (
	KindDown        Kind = "down"
	KindConformance Kind = "conformance"
	KindDrift       Kind = "drift"
	KindLatency     Kind = "latency"
	KindCertificate Kind = "certificate"
)

// Outcomes of a run, as the store writes them.
const (
	OutcomeUp       = "up"
	OutcomeDegraded = "degraded"
	OutcomeDown     = "down"
)

// Check statuses the engine tells apart. Others say nothing: skip and info, and untested (the
// check applied but the run could not judge it), which must neither raise a failure nor
// resolve one, nor stand for the previous verdict.
const (
	CheckPass     = "pass"
	CheckWarn     = "warn"
	CheckFail     = "fail"
	CheckUntested = "untested"
)

// Observation is one finished probe run of one server from one region: everything the alert
// engine judges. The monitor builds it from each run (FromRecord from the stored run,
// monitor.ObservationOf from what the monitor has), then calls Engine.Observe.
type Observation struct {
	// ServerID is the server's id in the store; Server its name (for messages and routes).
	ServerID int64
	Server   string
	// Labels are the server's labels, which routes can match.
	Labels map[string]string
	Region string
	// RunID identifies the run ("" when unknown), for the history.
	RunID string
	// At is when the run started. Runs of one region must be observed in order: one not
	// after the last observed from its region is ignored, which makes Observe safe to retry.
	At time.Time
	// Outcome is up, degraded or down (down: no successful initialize).
	Outcome string
	// The exact codes of the failure that made the run down or degraded, when there are.
	ErrorCode  *int64
	HTTPStatus *int
	ExitStatus *int
	// Error says in words why the run is down or degraded.
	Error string
	// Response is the start of the body that came back instead of the answer to the failed
	// initialize of a down run (an error page, say), "" when none came.
	Response string
	// Checks are every check evaluated in the run, passing ones included: an alert fires on
	// a check that passed before and fails now.
	Checks []CheckResult
	// Tools is the complete tool surface the run listed; nil when the run could not list it
	// completely (the server was down, tools/list failed or a page was missing), so that a
	// failed listing is never taken for removed tools.
	Tools *toolsurface.Surface
	// Steps are the latencies of the steps that succeeded, one per step name.
	Steps []StepLatency
	// Certificate is the server's TLS certificate (nil for plain HTTP and stdio).
	Certificate *Certificate
}

// CheckResult is one check's verdict in a run.
type CheckResult struct {
	ID      string
	Status  string // pass, warn, fail, untested, skip or info
	Message string
	// Rule is the spec rule (letters such as "B3", listed per check in docs/checks.md) and Spec the URL of the section.
	Rule string
	Spec string
}

// StepLatency is how long one step took, from the last byte sent to the first byte of the
// answer.
type StepLatency struct {
	Name    string
	Latency time.Duration
}

// Certificate is the leaf certificate the server presented.
type Certificate struct {
	Subject  string
	NotAfter time.Time
}

// ErrInvalidObservation is wrapped by Observe's error for an observation it cannot judge.
var ErrInvalidObservation = errors.New("alert: invalid observation")

// Validate reports what makes an observation unusable.
func (o *Observation) Validate() error {
	bad := func(what string) error {
		return fmt.Errorf("%w (server %d %q, region %q): %s", ErrInvalidObservation, o.ServerID, o.Server, o.Region, what)
	}
	switch {
	case o.ServerID <= 0:
		return bad("no server id")
	case o.Server == "":
		return bad("no server name")
	case o.Region == "":
		return bad("no region")
	case o.At.IsZero():
		return bad("no time")
	case o.Outcome != OutcomeUp && o.Outcome != OutcomeDegraded && o.Outcome != OutcomeDown:
		return bad(fmt.Sprintf("outcome %q is not up, degraded or down", o.Outcome))
	}
	return nil
}
