package protocol

// Names of the transports, as targets, stored servers, the configuration file and the API
// spell them.
const (
	// TransportStdio: the server is a child process; newline-delimited JSON-RPC on its stdin
	// and stdout (basic/transports, stdio).
	TransportStdio = "stdio"
	// TransportHTTP: Streamable HTTP, every message a POST to one endpoint (2025-03-26 and
	// later, basic/transports, Streamable HTTP).
	TransportHTTP = "http"
	// TransportSSE is the legacy HTTP+SSE transport (2024-11-05 basic/transports, HTTP with SSE).
	TransportSSE = "sse"
	// TransportAuto asks the probe to tell Streamable HTTP and HTTP+SSE apart, the way the
	// specification tells clients to (basic/transports, Backwards Compatibility).
	TransportAuto = "auto"
)
