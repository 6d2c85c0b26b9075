package monitor

import (
	"fmt"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/units"
	"github.com/mcpwatch/mcpwatch/store"
)

// day is the unit of retention periods.
const day = 24 * time.Hour

// validate checks every section of the file, whose unset settings hold their defaults, and
// turns it into a Config. Each problem goes to v, at its field's place; the Config is only
// good when v has none.
func (f *configFile) validate(v *validator) *Config {
	f.validateSettings(v)
	f.Retention.validate(v)
	f.Spool.validate(v)
	f.Defaults.validate(v)
	cfg := &Config{
		Region:         f.Region,
		Concurrency:    f.Concurrency,
		ShutdownGrace:  time.Duration(f.ShutdownGrace),
		LeaseMargin:    time.Duration(f.LeaseMargin),
		MaxJitter:      time.Duration(f.MaxJitter),
		Transcripts:    f.Transcripts,
		RuleProbes:     time.Duration(f.RuleProbes),
		Retention:      store.Retention{Raw: time.Duration(f.Retention.Raw), Rollups: time.Duration(f.Retention.Rollups)},
		AlertRetention: time.Duration(f.Retention.Alerts),
		Spool:          SpoolConfig{Dir: f.Spool.Dir, MaxBytes: int64(f.Spool.MaxBytes)},
		Defaults:       ServerDefaults{Schedule: f.Defaults.Schedule, Timeout: time.Duration(f.Defaults.Timeout)},
	}
	if f.Alerts != nil {
		cfg.Alerts = v.alerts(f.Alerts)
	}
	cfg.Servers = f.validateServers(v, cfg.Defaults)
	return cfg
}

func (f *configFile) validateSettings(v *validator) {
	if v.text("region", f.Region) {
		if err := checkName(f.Region); err != nil {
			v.fail("region", "%v", err)
		}
	}
	v.intRange("concurrency", f.Concurrency, 1, maxConcurrency)
	v.durationRange("shutdown-grace", f.ShutdownGrace, 0, time.Hour)
	v.durationRange("lease-margin", f.LeaseMargin, time.Second, time.Hour)
	v.durationRange("max-jitter", f.MaxJitter, 0, day)
	if v.durationRange("rule-probes", f.RuleProbes, 0, 7*day) && f.RuleProbes > 0 && f.RuleProbes < units.Duration(time.Minute) {
		v.fail("rule-probes", "%v is shorter than a minute: say 0 to run them in every probe", f.RuleProbes)
	}
	switch f.Transcripts {
	case TranscriptsChanges, TranscriptsAll, TranscriptsFailing, TranscriptsNone:
	default:
		v.fail("transcripts", "%q is not one of changes, all, failing, none", f.Transcripts)
	}
}

func (r *retentionFile) validate(v *validator) {
	v.durationRange("retention.raw", r.Raw, day, 10*365*day)
	rollups := v.durationRange("retention.rollups", r.Rollups, day, 10*365*day)
	v.durationRange("retention.alerts", r.Alerts, day, 10*365*day)
	if rollups && r.Rollups < r.Raw {
		v.fail("retention.rollups", "%v is shorter than retention.raw (%v)", r.Rollups, r.Raw)
	}
}

func (s *spoolFile) validate(v *validator) {
	v.text("spool.dir", s.Dir)
	if s.MaxBytes < minSpoolBytes {
		v.fail("spool.max-bytes", "%v is below the minimum of %v", s.MaxBytes, units.Size(minSpoolBytes))
	}
}

func (d *defaultsFile) validate(v *validator) {
	v.schedule("defaults.schedule", d.Schedule)
	v.durationRange("defaults.timeout", d.Timeout, minTimeout, maxTimeout)
}

// validateServers checks each entry of servers and that no two share a name. An entry with
// a problem is left out of the result.
func (f *configFile) validateServers(v *validator, defaults ServerDefaults) []ServerConfig {
	if f.Servers == nil {
		if !v.refused("servers") {
			v.fail("servers", "missing: list the servers to probe")
		}
		return nil
	}
	var out []ServerConfig
	names := map[string]int{}
	for i := range f.Servers {
		at := fmt.Sprintf("servers[%d]", i)
		s, ok := f.Servers[i].validate(v, at, defaults)
		if !ok {
			continue
		}
		if line, dup := names[s.Name]; dup {
			v.fail(at+".name", "%q is the name of the server at line %d too", s.Name, line)
			continue
		}
		names[s.Name] = v.places.Of(at + ".name").Value.Line
		out = append(out, s)
	}
	return out
}

// intRange reports whether n is within [lo, hi], reporting it when it is not.
func (v *validator) intRange(path string, n, lo, hi int) bool {
	if n < lo || n > hi {
		v.fail(path, "%d is out of range [%d, %d]", n, lo, hi)
		return false
	}
	return true
}

// durationRange reports whether d is within [lo, hi], reporting it when it is not.
func (v *validator) durationRange(path string, d units.Duration, lo, hi time.Duration) bool {
	if t := time.Duration(d); t < lo || t > hi {
		v.fail(path, "%v is out of range [%v, %v]", t, lo, hi)
		return false
	}
	return true
}

// schedule reports whether s is a schedule the worker can follow.
func (v *validator) schedule(path, s string) bool {
	if !v.text(path, s) {
		return false
	}
	if _, err := ParseSchedule(s, 0); err != nil {
		v.fail(path, "%v", err)
		return false
	}
	return true
}
