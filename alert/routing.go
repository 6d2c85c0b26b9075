package alert

// destination is where one notification goes: a configured channel and, for bot-token Slack
// channels, the Slack channel a route chose ("" for the channel's own).
type destination struct {
	channel string
	target  string
}

// router applies the routes of a validated config.
type router struct {
	routes   []Route
	defaults []string
	channels map[string]ChannelConfig
}

func newRouter(c *Config) router {
	r := router{routes: c.Routes, defaults: c.DefaultChannels, channels: map[string]ChannelConfig{}}
	for _, ch := range c.Channels {
		r.channels[ch.Name] = ch
	}
	return r
}

// route returns the destinations of a server's alerts, or muted when a route mutes it.
func (r router) route(server string, labels map[string]string) (dests []destination, muted bool) {
	names, override := r.defaults, ""
	for _, rt := range r.routes {
		if !rt.matches(server, labels) {
			continue
		}
		if rt.Mute {
			return nil, true
		}
		if rt.Channels != nil {
			names = rt.Channels
		}
		override = rt.SlackChannel
		break
	}
	for _, n := range names {
		d := destination{channel: n}
		if ch := r.channels[n]; ch.Type == ChannelSlack && ch.TokenEnv != "" {
			d.target = override
		}
		dests = append(dests, d)
	}
	return dests, false
}

func (rt Route) matches(server string, labels map[string]string) bool {
	if len(rt.Servers) > 0 && !matchesAny(rt.Servers, server) {
		return false
	}
	for k, v := range rt.Labels {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}
