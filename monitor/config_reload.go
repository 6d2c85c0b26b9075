package monitor

// SameSettings reports whether two configurations agree on the settings a running monitor
// was built with: the region, the concurrency, the spool, the shutdown and lease bounds, the
// jitter, what is kept of transcripts, the rule probes' interval and the alerts section. The
// servers, their defaults and the retention are not among them: a reload applies those.
func (c *Config) SameSettings(o *Config) bool {
	return c.Region == o.Region && c.Concurrency == o.Concurrency && c.Spool == o.Spool &&
		c.ShutdownGrace == o.ShutdownGrace && c.LeaseMargin == o.LeaseMargin && c.MaxJitter == o.MaxJitter &&
		c.Transcripts == o.Transcripts && c.RuleProbes == o.RuleProbes && c.Alerts.SameSettings(o.Alerts)
}

// keepRunning makes c say what the running parts were built with (the region, the
// concurrency, the spool and the alerts), which stays until the next start.
func (c *Config) keepRunning(running *Config) {
	c.Region, c.Concurrency, c.Spool, c.Alerts = running.Region, running.Concurrency, running.Spool, running.Alerts
}
