package alert

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/yamlstrict"
)

// Config is the `alerts:` section of the monitor's configuration file (docs/alerts.md lists
// every key). Decode it from YAML (it records the line of every key, so that errors can name
// it), then call ValidateAndSetDefaults before handing it to NewEngine or NewDispatcher.
type Config struct {
	// DashboardURL is the base URL of the dashboard; messages link to the server's page under
	// it. The monitor's --dashboard-url flag overrides it.
	DashboardURL string `yaml:"dashboard-url"`
	// SendOnResolved sends a message when an announced alert resolves (default true).
	SendOnResolved *bool `yaml:"send-on-resolved"`
	// ReminderInterval repeats the message of an alert still open after this long (0: never;
	// at least 5m otherwise).
	ReminderInterval time.Duration `yaml:"reminder-interval"`

	Flapping    FlappingConfig    `yaml:"flapping"`
	Down        DownConfig        `yaml:"down"`
	Conformance ConformanceConfig `yaml:"conformance"`
	Drift       DriftConfig       `yaml:"drift"`
	Latency     LatencyConfig     `yaml:"latency"`
	Certificate CertificateConfig `yaml:"certificate"`

	Maintenance []MaintenanceWindow `yaml:"maintenance"`

	Channels []ChannelConfig `yaml:"channels"`
	// DefaultChannels are the channels of servers no route matches (default: every channel).
	DefaultChannels []string `yaml:"default-channels"`
	Routes          []Route  `yaml:"routes"`

	Delivery DeliveryConfig `yaml:"delivery"`

	// places are where the keys were in the YAML file, by path ("channels[1].type").
	places yamlstrict.Places
}

// FlappingConfig holds open an alert that resolved Threshold times within Window: the
// Threshold-th resolution is not sent, and the alert resolves once its condition has stayed
// good for Quiet.
type FlappingConfig struct {
	// Threshold is the number of resolutions (default 3; 0 turns flap damping off).
	Threshold *int          `yaml:"threshold"`
	Window    time.Duration `yaml:"window"` // default 1h
	// Quiet is how long a held alert's condition must stay good (for drift: the tool surface
	// unchanged) before the alert resolves (default 30m).
	Quiet time.Duration `yaml:"quiet"`
}

// DownConfig is the `down` alert: the server does not initialize.
type DownConfig struct {
	Enabled *bool `yaml:"enabled"` // default true
	// FailureThreshold is how many down runs in a row make a region fail (default 2).
	FailureThreshold int `yaml:"failure-threshold"`
	// SuccessThreshold is how many good runs in a row make a failing region recover (default 1).
	SuccessThreshold int `yaml:"success-threshold"`
	// Quorum is how many regions must fail together for the alert to fire (default 1); it
	// resolves when fewer than Quorum regions fail.
	Quorum int `yaml:"quorum"`
	// RegionExpiry: a region without a run for this long no longer counts (default 30m).
	RegionExpiry time.Duration `yaml:"region-expiry"`
}

// ConformanceConfig is the `conformance` alert: a check that passed fails now.
type ConformanceConfig struct {
	Enabled *bool `yaml:"enabled"` // default true
	// Checks selects the checks watched: ids, or prefixes ending in ".*" (default all).
	Checks []string `yaml:"checks"`
	// Ignore leaves checks out, in the same form.
	Ignore []string `yaml:"ignore"`
}

// DriftConfig is the `drift` alert: the tool surface changed.
type DriftConfig struct {
	Enabled *bool `yaml:"enabled"` // default true
}

// LatencyConfig is the `latency` alert, judged per region: the p95 latency of a step over
// Window (or, with fewer than MinSamples runs, SlowRuns of the last RecentRuns runs) is above
// P95Above, or above BaselineRatio times the p95 of the region's runs of the step before the
// window, over at most BaselineDays days.
type LatencyConfig struct {
	Enabled *bool `yaml:"enabled"` // default true
	// Steps are the probe steps watched, each an alert of its own (default initialize,
	// tools/list, ping).
	Steps []string `yaml:"steps"`
	// Window is the span of the p95 (default 15m).
	Window time.Duration `yaml:"window"`
	// MinSamples is how many runs the window needs for its p95 to be judged (default 20, at
	// least 20: the p95 of fewer runs is their slowest).
	MinSamples int `yaml:"min-samples"`
	// SlowRuns of the last RecentRuns runs slower than the bound fire the alert while the
	// window holds fewer than MinSamples runs (defaults 3 and 5).
	SlowRuns   int `yaml:"slow-runs"`
	RecentRuns int `yaml:"recent-runs"`
	// P95Above is the absolute bound (0: none).
	P95Above time.Duration `yaml:"p95-above"`
	// BaselineRatio is the bound relative to the baseline p95 (default 3; 0: none; else > 1).
	BaselineRatio *float64 `yaml:"baseline-ratio"`
	// BaselineDays is the baseline span in days (default 7, at most 30).
	BaselineDays int `yaml:"baseline-days"`
	// BaselineMinSamples is how many samples the baseline needs before the ratio applies
	// (default 100).
	BaselineMinSamples int `yaml:"baseline-min-samples"`
	// Floor: the ratio does not fire while the window's p95 is below it (default 100ms), so a
	// 5ms server going to 20ms pages no one.
	Floor time.Duration `yaml:"floor"`
}

// CertificateConfig is the `certificate` alert: the TLS certificate expires soon.
type CertificateConfig struct {
	Enabled *bool `yaml:"enabled"` // default true
	// Days before expiry at which the alert fires (default 14).
	Days int `yaml:"days"`
}

// MaintenanceWindow mutes alerts (not probes) from each time Schedule fires, for Duration.
type MaintenanceWindow struct {
	Name string `yaml:"name"`
	// Schedule is a cron expression (minute hour day-of-month month day-of-week) or a
	// descriptor such as @daily.
	Schedule string        `yaml:"schedule"`
	Duration time.Duration `yaml:"duration"`
	// TimeZone of the schedule, an IANA name (default UTC).
	TimeZone string `yaml:"timezone"`
	// Servers limits the window to servers whose names match one of these patterns (path.Match
	// syntax, e.g. "payments-*"); empty: every server.
	Servers []string `yaml:"servers"`
}

// Channel types.
const (
	ChannelSlack   = "slack"
	ChannelWebhook = "webhook"
)

// ChannelConfig is a destination for notifications. Secrets are never written in the file:
// the keys ending in -env name the environment variable that holds them.
type ChannelConfig struct {
	Name string `yaml:"name"`
	Type string `yaml:"type"` // slack or webhook

	// Slack by incoming webhook: the webhook URL.
	WebhookURLEnv string `yaml:"webhook-url-env"`
	// Slack by bot token (chat.postMessage): the token and the default channel.
	TokenEnv string `yaml:"token-env"`
	Channel  string `yaml:"channel"`
	// APIURL replaces https://slack.com/api/ (a proxy, or a test server).
	APIURL string `yaml:"api-url"`

	// Generic webhook: the URL (or the variable holding it) and headers.
	URL     string          `yaml:"url"`
	URLEnv  string          `yaml:"url-env"`
	Headers []WebhookHeader `yaml:"headers"`
}

// WebhookHeader is a header of the generic webhook whose value is Prefix + $FromEnv.
type WebhookHeader struct {
	Name    string `yaml:"name"`
	FromEnv string `yaml:"from-env"`
	Prefix  string `yaml:"prefix"`
}

// Route decides where a server's alerts go. The first route whose matchers all match wins;
// a route without matchers matches every server.
type Route struct {
	// Servers are name patterns (path.Match syntax); the route matches one of them.
	Servers []string `yaml:"servers"`
	// Labels must all be on the server with these values.
	Labels map[string]string `yaml:"labels"`
	// Channels receive the alerts (default: default-channels).
	Channels []string `yaml:"channels"`
	// SlackChannel replaces the channel of bot-token Slack channels.
	SlackChannel string `yaml:"slack-channel"`
	// Mute keeps the alerts in the history but sends nothing.
	Mute bool `yaml:"mute"`
}

// DeliveryConfig bounds sending.
type DeliveryConfig struct {
	Timeout      time.Duration `yaml:"timeout"`       // one attempt (default 10s)
	MaxAttempts  int           `yaml:"max-attempts"`  // before giving up (default 20)
	MinBackoff   time.Duration `yaml:"min-backoff"`   // after the first failure (default 1s)
	MaxBackoff   time.Duration `yaml:"max-backoff"`   // cap of the doubling (default 10m)
	PollInterval time.Duration `yaml:"poll-interval"` // outbox polling (default 2s)
	BatchSize    int           `yaml:"batch-size"`    // notifications per claim (default 10)
}

// Defaults.
const (
	DefaultFailureThreshold   = 2
	DefaultSuccessThreshold   = 1
	DefaultQuorum             = 1
	DefaultRegionExpiry       = 30 * time.Minute
	DefaultFlapThreshold      = 3
	DefaultFlapWindow         = time.Hour
	DefaultFlapQuiet          = 30 * time.Minute
	DefaultLatencyWindow      = 15 * time.Minute
	DefaultLatencyMinSamples  = 20
	DefaultLatencySlowRuns    = 3
	DefaultLatencyRecentRuns  = 5
	DefaultBaselineRatio      = 3.0
	DefaultBaselineDays       = 7
	DefaultBaselineMinSamples = 100
	DefaultLatencyFloor       = 100 * time.Millisecond
	DefaultCertificateDays    = 14
	MinReminderInterval       = 5 * time.Minute
	DefaultDeliveryTimeout    = 10 * time.Second
	DefaultMaxAttempts        = 20
	DefaultMinBackoff         = time.Second
	DefaultMaxBackoff         = 10 * time.Minute
	DefaultPollInterval       = 2 * time.Second
	DefaultBatchSize          = 10
)

// DefaultLatencySteps are the steps the latency alert watches by default, named as the probe
// names them (the JSON-RPC methods they send).
func DefaultLatencySteps() []string {
	return []string{"initialize", "tools/list", "ping"}
}

// stepOK is the outcome a stored step has when its answer came back.
const stepOK = "ok"

// FieldError is one problem in the configuration, at a key path such as
// "alerts.channels[1].token-env" and, when the config came from YAML, its line and column.
type FieldError struct {
	Line   int
	Column int
	Field  string
	Msg    string
}

func (e *FieldError) Error() string {
	if e.Line > 0 && e.Column > 0 {
		return fmt.Sprintf("line %d, column %d: %s: %s", e.Line, e.Column, e.Field, e.Msg)
	}
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s: %s", e.Line, e.Field, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Field, e.Msg)
}

// ConfigErrors lists every problem found; a loader can prefix each with its file name.
type ConfigErrors []*FieldError

func (es ConfigErrors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// ErrInvalidConfig is wrapped by the errors of ValidateAndSetDefaults.
var ErrInvalidConfig = errors.New("alert: invalid configuration")

func (es ConfigErrors) Unwrap() error { return ErrInvalidConfig }

// SectionName is the key of the section in the monitor's file; error paths start with it.
const SectionName = "alerts"

// validator collects problems with the place of their key.
type validator struct {
	places yamlstrict.Places
	errs   ConfigErrors
}

// fail reports a problem of the key at field, at its place; a key left out has no place,
// and then the problem is at the enclosing key's.
func (v *validator) fail(field, format string, args ...any) {
	at := v.places.Of(field)
	v.errs = append(v.errs, &FieldError{Line: at.Key.Line, Column: at.Key.Column, Field: sectionPath(at.Written), Msg: fmt.Sprintf(format, args...)})
}

// ValidateAndSetDefaults fills unset keys with their defaults and reports every invalid one
// as ConfigErrors (wrapping ErrInvalidConfig). Calling it again is harmless.
func (c *Config) ValidateAndSetDefaults() error {
	v := &validator{places: c.places}
	if c.DashboardURL != "" {
		if err := checkHTTPURL(c.DashboardURL); err != nil {
			v.fail("dashboard-url", "%v", err)
		}
	}
	if c.SendOnResolved == nil {
		c.SendOnResolved = ptr(true)
	}
	if c.ReminderInterval < 0 || (c.ReminderInterval > 0 && c.ReminderInterval < MinReminderInterval) {
		v.fail("reminder-interval", "must be 0 (no reminders) or at least %v, not %v", MinReminderInterval, c.ReminderInterval)
	}
	c.Flapping.validate(v)
	c.Down.validate(v)
	c.Conformance.validate(v)
	setEnabled(&c.Drift.Enabled)
	c.Latency.validate(v)
	c.Certificate.validate(v)
	for i := range c.Maintenance {
		c.Maintenance[i].validate(v, fmt.Sprintf("maintenance[%d]", i))
	}
	c.validateChannels(v)
	c.Delivery.validate(v)
	if len(v.errs) > 0 {
		return v.errs
	}
	return nil
}

// SameSettings reports whether two configurations say the same, whatever lines their keys
// were on: a monitor reloading its file tells the operator when a change waits for a restart.
// Two nil configurations (no alerts section) are the same.
func (c *Config) SameSettings(o *Config) bool {
	if c == nil || o == nil {
		return c == o
	}
	a, b := *c, *o
	a.places, b.places = nil, nil
	return reflect.DeepEqual(a, b)
}
