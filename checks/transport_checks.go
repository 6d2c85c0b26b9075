package checks

import "github.com/mcpwatch/mcpwatch/protocol"

// transportChecks are the checks of catalogue revision 2 on how a server serves Streamable
// HTTP beyond the message rules: requests in parallel, the priming of its event streams, and
// the TLS it speaks.
func transportChecks() []Check {
	return []Check{
		{ID: "http.concurrent-requests", Area: "http", Rule: "G3", Spec: specBase + "2025-11-25/basic/transports#sending-messages-to-the-server",
			Transport: protocol.TransportHTTP,
			Title:     "two requests POSTed at the same time on one session are both answered",
			Evaluate:  checkConcurrentRequests},
		{ID: "http.sse-priming", Area: "http", Rule: "G5", Spec: specBase + "2025-11-25/basic/transports#sending-messages-to-the-server",
			Transport: protocol.TransportHTTP,
			Title:     "an event stream opens with a priming event, and one closed before its response sends retry first",
			Evaluate:  checkSSEPriming},
		{ID: "tls.version", Area: "tls", Spec: specBase + "2025-11-25/basic/authorization#communication-security",
			Title:    "a remote server is served over TLS 1.2 or later and refuses TLS 1.0 and 1.1",
			Evaluate: checkTLSVersion},
	}
}
