package protocol

// _meta keys of the stateless revision (2026-07-28 basic, General fields: _meta): every
// request names its revision and the client's capabilities (and, as it should, the client),
// and a server/discover result names the server.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
)
