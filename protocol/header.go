package protocol

// HTTP header names of the Streamable HTTP transport, spelt as the specification spells them
// (header names are case-insensitive; net/http's canonical form of MCP-Protocol-Version is
// Mcp-Protocol-Version).
const (
	// HeaderSessionID carries the session a server issued in its initialize answer
	// (2025-03-26 and later, basic/transports, Session Management).
	HeaderSessionID = "Mcp-Session-Id"
	// HeaderProtocolVersion names the negotiated revision on every request after initialize
	// (2025-06-18 and later), and on every request of a stateless revision.
	HeaderProtocolVersion = "MCP-Protocol-Version"
	// HeaderMethod repeats the method of the body (2026-07-28 basic/transports/streamable-http,
	// Request Metadata).
	HeaderMethod = "Mcp-Method"
	// HeaderName repeats the name a request addresses: the tool, prompt or resource
	// (2026-07-28, likewise).
	HeaderName = "Mcp-Name"
)
