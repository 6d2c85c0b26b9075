// Package protocol is the vocabulary of the Model Context Protocol as this project speaks it:
// the published revisions and the eras they belong to, the JSON-RPC and MCP error codes, the
// names of the transports, the HTTP headers of the HTTP transports and the _meta keys of the
// stateless revision. It holds names and the facts about them only, no behaviour: the probe
// sends them, the checks judge by them, the fixture answers with them, and the monitor, the
// store and the API name transports with them, so that each is spelt in one place.
package protocol
