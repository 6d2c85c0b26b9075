package alert

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/envname"
	"github.com/mcpwatch/mcpwatch/internal/httptoken"
)

func ptr[T any](v T) *T { return &v }

func setEnabled(b **bool) {
	if *b == nil {
		*b = ptr(true)
	}
}

func (f *FlappingConfig) validate(v *validator) {
	if f.Threshold == nil {
		f.Threshold = ptr(DefaultFlapThreshold)
	}
	if *f.Threshold < 0 {
		v.fail("flapping.threshold", "must be 0 (off) or more, not %d", *f.Threshold)
	}
	if f.Window == 0 {
		f.Window = DefaultFlapWindow
	}
	if f.Window < time.Minute {
		v.fail("flapping.window", "must be at least 1m, not %v", f.Window)
	}
	if f.Quiet == 0 {
		f.Quiet = DefaultFlapQuiet
	}
	if f.Quiet < time.Minute || f.Quiet > 7*24*time.Hour {
		v.fail("flapping.quiet", "must be between 1m and 7d, not %v", f.Quiet)
	}
}

func (d *DownConfig) validate(v *validator) {
	setEnabled(&d.Enabled)
	defaultInt(&d.FailureThreshold, DefaultFailureThreshold)
	defaultInt(&d.SuccessThreshold, DefaultSuccessThreshold)
	defaultInt(&d.Quorum, DefaultQuorum)
	if d.RegionExpiry == 0 {
		d.RegionExpiry = DefaultRegionExpiry
	}
	if d.FailureThreshold < 1 {
		v.fail("down.failure-threshold", "must be at least 1, not %d", d.FailureThreshold)
	}
	if d.SuccessThreshold < 1 {
		v.fail("down.success-threshold", "must be at least 1, not %d", d.SuccessThreshold)
	}
	if d.Quorum < 1 {
		v.fail("down.quorum", "must be at least 1, not %d", d.Quorum)
	}
	if d.RegionExpiry < time.Minute {
		v.fail("down.region-expiry", "must be at least 1m, not %v", d.RegionExpiry)
	}
}

// defaultInt sets an unset (zero) int; a negative one stays, for validation to reject.
func defaultInt(p *int, def int) {
	if *p == 0 {
		*p = def
	}
}

func (c *ConformanceConfig) validate(v *validator) {
	setEnabled(&c.Enabled)
	for i, p := range c.Checks {
		if !validCheckPattern(p) {
			v.fail(fmt.Sprintf("conformance.checks[%d]", i), "%q is not a check id or a prefix such as tools.*", p)
		}
	}
	for i, p := range c.Ignore {
		if !validCheckPattern(p) {
			v.fail(fmt.Sprintf("conformance.ignore[%d]", i), "%q is not a check id or a prefix such as tools.*", p)
		}
	}
}

// watches reports whether the conformance alert watches a check.
func (c *ConformanceConfig) watches(id string) bool {
	match := func(patterns []string) bool {
		for _, p := range patterns {
			if p == "*" || p == id || (strings.HasSuffix(p, ".*") && strings.HasPrefix(id, strings.TrimSuffix(p, "*"))) {
				return true
			}
		}
		return false
	}
	return (len(c.Checks) == 0 || match(c.Checks)) && !match(c.Ignore)
}

func (l *LatencyConfig) validate(v *validator) {
	l.setDefaults()
	seen := map[string]bool{}
	for i, s := range l.Steps {
		if s == "" || seen[s] {
			v.fail(fmt.Sprintf("latency.steps[%d]", i), "step %q is empty or listed twice", s)
		}
		seen[s] = true
	}
	if l.Window < time.Minute || l.Window > 24*time.Hour {
		v.fail("latency.window", "must be between 1m and 24h, not %v", l.Window)
	}
	if l.MinSamples < minP95Samples || l.MinSamples > maxLatencySamples {
		v.fail("latency.min-samples", "must be between %d and %d, not %d (the p95 of fewer runs is the slowest of them; slow-runs and recent-runs judge a window with fewer)",
			minP95Samples, maxLatencySamples, l.MinSamples)
	}
	if l.RecentRuns < 1 || l.RecentRuns > l.MinSamples {
		v.fail("latency.recent-runs", "must be between 1 and min-samples (%d), not %d", l.MinSamples, l.RecentRuns)
	}
	if l.SlowRuns < 1 || l.SlowRuns > l.RecentRuns {
		v.fail("latency.slow-runs", "must be between 1 and recent-runs (%d), not %d", l.RecentRuns, l.SlowRuns)
	}
	if l.P95Above < 0 {
		v.fail("latency.p95-above", "must be 0 (none) or positive, not %v", l.P95Above)
	}
	if r := *l.BaselineRatio; r != 0 && !(r > 1) {
		v.fail("latency.baseline-ratio", "must be 0 (none) or above 1, not %v", r)
	}
	if l.BaselineDays < 1 || l.BaselineDays > maxBaselineDays {
		v.fail("latency.baseline-days", "must be between 1 and %d, not %d", maxBaselineDays, l.BaselineDays)
	}
	if l.BaselineMinSamples < 1 {
		v.fail("latency.baseline-min-samples", "must be at least 1, not %d", l.BaselineMinSamples)
	}
	if l.Floor < 0 {
		v.fail("latency.floor", "must not be negative, not %v", l.Floor)
	}
}

// setDefaults fills the keys of the latency alert left out.
func (l *LatencyConfig) setDefaults() {
	setEnabled(&l.Enabled)
	if l.Steps == nil {
		l.Steps = DefaultLatencySteps()
	}
	if l.Window == 0 {
		l.Window = DefaultLatencyWindow
	}
	defaultInt(&l.MinSamples, DefaultLatencyMinSamples)
	defaultInt(&l.SlowRuns, DefaultLatencySlowRuns)
	defaultInt(&l.RecentRuns, DefaultLatencyRecentRuns)
	if l.BaselineRatio == nil {
		l.BaselineRatio = ptr(DefaultBaselineRatio)
	}
	defaultInt(&l.BaselineDays, DefaultBaselineDays)
	defaultInt(&l.BaselineMinSamples, DefaultBaselineMinSamples)
	if l.Floor == 0 {
		l.Floor = DefaultLatencyFloor
	}
}

func (c *CertificateConfig) validate(v *validator) {
	setEnabled(&c.Enabled)
	defaultInt(&c.Days, DefaultCertificateDays)
	if c.Days < 1 || c.Days > 365 {
		v.fail("certificate.days", "must be between 1 and 365, not %d", c.Days)
	}
}

func (m *MaintenanceWindow) validate(v *validator, at string) {
	if m.Name == "" {
		m.Name = at
	}
	if _, err := parseWindowSchedule(m.Schedule, m.TimeZone); err != nil {
		field := at + ".schedule"
		if errors.Is(err, errBadTimeZone) {
			field = at + ".timezone"
		}
		v.fail(field, "%v", err)
	}
	if m.Duration <= 0 {
		v.fail(at+".duration", "a window needs a positive duration such as 2h, not %v", m.Duration)
	}
	for i, p := range m.Servers {
		if _, err := path.Match(p, ""); err != nil || p == "" {
			v.fail(fmt.Sprintf("%s.servers[%d]", at, i), "%q is not a name pattern", p)
		}
	}
}

func (c *Config) validateChannels(v *validator) {
	names := map[string]*ChannelConfig{}
	for i := range c.Channels {
		ch := &c.Channels[i]
		at := fmt.Sprintf("channels[%d]", i)
		if !validChannelName(ch.Name) {
			v.fail(at+".name", "%q is not a channel name (letters, digits, _ . -)", ch.Name)
		} else if names[ch.Name] != nil {
			v.fail(at+".name", "channel %q is defined twice", ch.Name)
		}
		names[ch.Name] = ch
		ch.validate(v, at)
	}
	if c.DefaultChannels == nil {
		for _, ch := range c.Channels {
			c.DefaultChannels = append(c.DefaultChannels, ch.Name)
		}
	}
	known := func(field string, list []string) {
		for i, n := range list {
			if names[n] == nil {
				v.fail(fmt.Sprintf("%s[%d]", field, i), "no channel is named %q", n)
			}
		}
	}
	known("default-channels", c.DefaultChannels)
	for i := range c.Routes {
		at := fmt.Sprintf("routes[%d]", i)
		known(at+".channels", c.Routes[i].Channels)
		c.Routes[i].validate(v, at, names, c.DefaultChannels)
	}
}

// validate checks a route's patterns, and that a route which names a Slack channel sends to
// a channel that can post there.
func (r *Route) validate(v *validator, at string, channels map[string]*ChannelConfig, defaults []string) {
	for j, p := range r.Servers {
		if _, err := path.Match(p, ""); err != nil || p == "" {
			v.fail(fmt.Sprintf("%s.servers[%d]", at, j), "%q is not a name pattern", p)
		}
	}
	if r.SlackChannel == "" {
		return
	}
	targets := r.Channels
	if targets == nil {
		targets = defaults
	}
	bot := slices.ContainsFunc(targets, func(n string) bool { return channels[n] != nil && channels[n].TokenEnv != "" })
	if !bot {
		v.fail(at+".slack-channel", "only a Slack channel with token-env can post to another channel; this route sends to none")
	}
}

func (ch *ChannelConfig) validate(v *validator, at string) {
	switch ch.Type {
	case ChannelSlack:
		ch.validateSlack(v, at)
	case ChannelWebhook:
		ch.validateWebhook(v, at)
	default:
		v.fail(at+".type", "must be %s or %s, not %q", ChannelSlack, ChannelWebhook, ch.Type)
	}
}

// envName checks the name of the variable that holds a secret of the channel.
func (ch *ChannelConfig) envName(v *validator, at, field, value string) {
	if value != "" && !envname.Valid(value) {
		v.fail(at+"."+field, "%q is not an environment variable name", value)
	}
}

func (ch *ChannelConfig) validateSlack(v *validator, at string) {
	switch {
	case (ch.WebhookURLEnv == "") == (ch.TokenEnv == ""):
		v.fail(at, "a slack channel needs webhook-url-env or token-env (one of them)")
	case ch.TokenEnv != "" && ch.Channel == "":
		v.fail(at+".channel", "a slack channel with token-env needs the channel to post to")
	}
	ch.envName(v, at, "webhook-url-env", ch.WebhookURLEnv)
	ch.envName(v, at, "token-env", ch.TokenEnv)
	if ch.APIURL != "" {
		if err := checkHTTPURL(ch.APIURL); err != nil {
			v.fail(at+".api-url", "%v", err)
		} else if !strings.HasSuffix(ch.APIURL, "/") {
			ch.APIURL += "/"
		}
	}
	if ch.URL != "" || ch.URLEnv != "" || len(ch.Headers) > 0 {
		v.fail(at, "url, url-env and headers belong to webhook channels, not slack")
	}
}

func (ch *ChannelConfig) validateWebhook(v *validator, at string) {
	if (ch.URL == "") == (ch.URLEnv == "") {
		v.fail(at, "a webhook channel needs url or url-env (one of them)")
	}
	if ch.URL != "" {
		if err := checkHTTPURL(ch.URL); err != nil {
			v.fail(at+".url", "%v", err)
		}
	}
	ch.envName(v, at, "url-env", ch.URLEnv)
	for j, h := range ch.Headers {
		hat := fmt.Sprintf("%s.headers[%d]", at, j)
		if !httptoken.Valid(h.Name) {
			v.fail(hat+".name", "%q is not a header name", h.Name)
		}
		if h.FromEnv == "" {
			v.fail(hat+".from-env", "a header takes its value from an environment variable")
		}
		ch.envName(v, at, fmt.Sprintf("headers[%d].from-env", j), h.FromEnv)
	}
	if ch.WebhookURLEnv != "" || ch.TokenEnv != "" || ch.Channel != "" || ch.APIURL != "" {
		v.fail(at, "webhook-url-env, token-env, channel and api-url belong to slack channels, not webhook")
	}
}

func (d *DeliveryConfig) validate(v *validator) {
	if d.Timeout == 0 {
		d.Timeout = DefaultDeliveryTimeout
	}
	defaultInt(&d.MaxAttempts, DefaultMaxAttempts)
	if d.MinBackoff == 0 {
		d.MinBackoff = DefaultMinBackoff
	}
	if d.MaxBackoff == 0 {
		d.MaxBackoff = DefaultMaxBackoff
	}
	if d.PollInterval == 0 {
		d.PollInterval = DefaultPollInterval
	}
	defaultInt(&d.BatchSize, DefaultBatchSize)
	if d.Timeout < 100*time.Millisecond || d.Timeout > 5*time.Minute {
		v.fail("delivery.timeout", "must be between 100ms and 5m, not %v", d.Timeout)
	}
	if d.MaxAttempts < 1 {
		v.fail("delivery.max-attempts", "must be at least 1, not %d", d.MaxAttempts)
	}
	if d.MinBackoff < 10*time.Millisecond {
		v.fail("delivery.min-backoff", "must be at least 10ms, not %v", d.MinBackoff)
	}
	if d.MaxBackoff < d.MinBackoff {
		v.fail("delivery.max-backoff", "must not be below min-backoff (%v), not %v", d.MinBackoff, d.MaxBackoff)
	}
	if d.PollInterval < 10*time.Millisecond || d.PollInterval > time.Minute {
		v.fail("delivery.poll-interval", "must be between 10ms and 1m, not %v", d.PollInterval)
	}
	if d.BatchSize < 1 || d.BatchSize > 100 {
		v.fail("delivery.batch-size", "must be between 1 and 100, not %d", d.BatchSize)
	}
}

func checkHTTPURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http(s) URL", raw)
	}
	return nil
}
