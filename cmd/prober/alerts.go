//go:build !checkonly

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"time"

	"github.com/mcpwatch/mcpwatch/alert"
	"github.com/mcpwatch/mcpwatch/monitor"
)

func writeAlertsHelp(w io.Writer) {
	fmt.Fprint(w, `prober alerts: work with the alerts of the monitor.

Usage:
  prober alerts test --config FILE [--channel NAME]... [--dashboard-url URL]

Commands:
  test    send a sample message to each channel of the alerts: section of FILE (the
          monitor's configuration file), to check that its webhook URL or bot token, and the
          Slack channel, work. Secrets are read from the environment variables the channels
          name (webhook-url-env, token-env, url-env, headers' from-env), as prober run reads
          them. Each channel gets one attempt; no database is needed.

Flags of test:
  --config FILE        the monitor's configuration file (required)
  --channel NAME       test only this channel; repeatable (default every channel)
  --dashboard-url URL  base URL of the dashboard, for the link in the message (default the
                       file's alerts.dashboard-url)

Examples:
  SLACK_WEBHOOK_URL=https://hooks.slack.com/services/... prober alerts test --config mcpwatch.yaml
  prober alerts test --config mcpwatch.yaml --channel oncall

Exit codes:
  0    every channel accepted the message
  1    a channel failed, a secret is missing, or the file is invalid (each problem is printed)
  2    usage error

The keys of the alerts: section are described in docs/alerts.md.
`)
}

// alerts runs `prober alerts`.
func (e environment) alerts(ctx context.Context, args []string) int {
	if len(args) == 0 {
		writeAlertsHelp(e.stderr)
		return exitUsage
	}
	switch args[0] {
	case "test":
		return e.alertsTest(ctx, args[1:])
	case "help", "-h", "-help", "--help":
		writeAlertsHelp(e.stdout)
		return exitOK
	}
	fmt.Fprintf(e.stderr, "prober alerts: unknown command %q\nRun 'prober alerts --help' for usage.\n", args[0])
	return exitUsage
}

func (e environment) alertsTest(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("prober alerts test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var configFile, dashboardURL string
	var channels repeated
	fs.StringVar(&configFile, "config", "", "")
	fs.StringVar(&dashboardURL, "dashboard-url", "", "")
	fs.Var(&channels, "channel", "")
	usage := func(err error) int {
		fmt.Fprintf(e.stderr, "prober alerts test: %v\nRun 'prober alerts --help' for usage.\n", err)
		return exitUsage
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			writeAlertsHelp(e.stdout)
			return exitOK
		}
		return usage(err)
	}
	switch {
	case fs.NArg() > 0:
		return usage(fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	case configFile == "":
		return usage(errors.New("--config FILE is required"))
	}

	cfg, err := loadAlertsConfig(configFile)
	if err != nil {
		fmt.Fprintf(e.stderr, "prober alerts test: %v\n", err)
		return exitFailed
	}
	if dashboardURL != "" {
		if u, err := url.Parse(dashboardURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usage(fmt.Errorf("--dashboard-url %q is not an http(s) URL", dashboardURL))
		}
	}
	if len(cfg.Channels) == 0 {
		fmt.Fprintf(e.stderr, "prober alerts test: %s: the alerts section has no channels\n", configFile)
		return exitFailed
	}
	for _, name := range channels {
		if !slices.ContainsFunc(cfg.Channels, func(ch alert.ChannelConfig) bool { return ch.Name == name }) {
			return usage(fmt.Errorf("--channel %q: %s has no such channel", name, configFile))
		}
	}
	senders, err := alert.NewSenders(cfg, e.lookupEnv, &http.Client{})
	if err != nil {
		fmt.Fprintf(e.stderr, "prober alerts test: %v\n", err)
		return exitFailed
	}
	failed := alert.SendSample(ctx, cfg, senders, channels, dashboardURL, time.Now())
	for _, ch := range cfg.Channels {
		if len(channels) > 0 && !slices.Contains(channels, ch.Name) {
			continue
		}
		if err := failed[ch.Name]; err != nil {
			fmt.Fprintf(e.stdout, "FAIL  %-20s %v\n", ch.Name, err)
		} else {
			fmt.Fprintf(e.stdout, "ok    %-20s %s\n", ch.Name, channelKind(ch))
		}
	}
	if len(failed) > 0 {
		return exitFailed
	}
	return exitOK
}

// loadAlertsConfig reads the alerts section of the monitor's file, with errors that name the
// file, line, column and key as `prober run` gives them.
func loadAlertsConfig(path string) (*alert.Config, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	cfg, err := monitor.ParseAlerts(path, raw)
	if err != nil {
		return nil, err
	}
	if cfg == nil {
		return nil, fmt.Errorf("%s has no alerts section", path)
	}
	return cfg, nil
}

func channelKind(ch alert.ChannelConfig) string {
	switch {
	case ch.Type == alert.ChannelWebhook:
		return "(webhook)"
	case ch.TokenEnv != "":
		return "(slack bot, " + ch.Channel + ")"
	}
	return "(slack incoming webhook)"
}
