package alert

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// SampleMessage is the message `prober alerts test` sends to check that a channel works.
func SampleMessage(channel string, at time.Time) Message {
	return Message{
		Event:  EventTest,
		Server: "mcpwatch",
		At:     at.UTC().Truncate(time.Second),
		Evidence: Evidence{
			Summary: fmt.Sprintf("A test message for channel %s. If you can read it, mcpwatch alerts reach this channel.", channel),
			Lines: []string{
				"Alerts name the server, the regions, what changed, the exact JSON-RPC error code, HTTP status or exit status, and since when.",
				"Sent by prober alerts test.",
			},
		},
	}
}

// SendSample sends SampleMessage to each named channel (all when names is empty), one attempt
// each bounded by the delivery timeout, and returns the error of each channel that failed.
func SendSample(ctx context.Context, cfg *Config, senders map[string]Sender, names []string, dashboardURL string, now time.Time) map[string]error {
	errs := map[string]error{}
	if dashboardURL == "" {
		dashboardURL = cfg.DashboardURL
	}
	for _, ch := range cfg.Channels {
		if len(names) > 0 && !slices.Contains(names, ch.Name) {
			continue
		}
		s := senders[ch.Name]
		if s == nil {
			errs[ch.Name] = fmt.Errorf("alert: channel %s has no sender", ch.Name)
			continue
		}
		msg := SampleMessage(ch.Name, now)
		sendCtx, cancel := context.WithTimeout(ctx, cfg.Delivery.Timeout)
		_, err := s.Send(sendCtx, &msg, Delivery{DashboardURL: dashboardURL})
		cancel()
		if err != nil {
			errs[ch.Name] = err
		}
	}
	return errs
}
