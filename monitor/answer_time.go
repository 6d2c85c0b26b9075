package monitor

import (
	"time"

	"github.com/mcpwatch/mcpwatch/probe"
)

// answerTime is how long the server took to answer what a client asks first on the main
// connection: the handshake that opened it (initialize, or server/discover for a stateless
// server) and the first page of tools/list. The whole probe also runs era detection, the
// other lists, pings, tool and resource reads and the rule probes, a dozen requests or more
// that no client makes in a row, so its duration says little of how fast the server
// answers a client.
//
// It is 0, unknown, when the run never got that far: no handshake succeeded (a down run),
// or tools/list was never answered (the probe stopped, or the server kept silent until the
// deadline: the step's latency is then no measure of the server). A server-discover that
// failed before the session era's initialize went through is era detection, not the
// handshake, and is left out.
func answerTime(res *probe.Result) time.Duration {
	var handshake string
	switch _, kind := res.Handshake(); kind {
	case probe.HandshakeInitialize:
		handshake = probe.StepInitialize
	case probe.HandshakeDiscover:
		handshake = probe.StepDiscover
	default:
		return 0
	}
	var opened, listed time.Duration
	var haveOpened, haveListed bool
	for _, st := range res.Steps {
		if st.Conn != probe.ConnMain {
			continue
		}
		switch {
		case !haveOpened && st.Name == handshake && st.Outcome == probe.OutcomeOK:
			opened, haveOpened = st.Latency, true
		case !haveListed && st.Name == probe.StepToolsList && st.Page <= 1:
			if st.Response < 0 {
				return 0
			}
			listed, haveListed = st.Latency, true
		}
	}
	if !haveOpened || !haveListed {
		return 0
	}
	return opened + listed
}
