package protocol

// Error codes of JSON-RPC 2.0 (section 5.1, Error object), which every revision of MCP
// adopts. They are untyped so that they compare with an int or an int64 alike.
const (
	// CodeParseError: the text received is not JSON. The answer may carry "id": null, since
	// no id could be read.
	CodeParseError = -32700
	// CodeInvalidRequest: the JSON received is not a valid request object (a method missing or
	// not a string, for instance). Like CodeParseError it may carry "id": null.
	CodeInvalidRequest = -32600
	// CodeMethodNotFound: the method does not exist, or (in MCP) belongs to a capability the
	// server did not declare.
	CodeMethodNotFound = -32601
	// CodeInvalidParams: the parameters are invalid. MCP uses it for an unknown tool or
	// prompt (server/tools and server/prompts, Error Handling), an invalid cursor
	// (server/utilities/pagination, Error Handling) and, from 2026-07-28, a request without
	// the _meta it requires and a resource that does not exist.
	CodeInvalidParams = -32602
	// CodeInternalError: the receiver failed for a reason of its own.
	CodeInternalError = -32603
)

// Error codes MCP defines itself.
const (
	// CodeResourceNotFound: resources/read of a URI the server does not have (2024-11-05 to
	// 2025-11-25, server/resources, Error Handling). From 2026-07-28 a server must not send
	// it; that revision answers a missing resource with CodeInvalidParams.
	CodeResourceNotFound = -32002

	// CodeHeaderMismatch: over HTTP, MCP-Protocol-Version, Mcp-Method or Mcp-Name is
	// missing or disagrees with the body; the status is 400 (2026-07-28 basic, Error Codes;
	// basic/transports, Streamable HTTP).
	CodeHeaderMismatch = -32020
	// CodeMissingClientCapability: the request needs a client capability the client did not
	// declare in _meta, MissingRequiredClientCapability in the specification; over HTTP the
	// status is 400 (2026-07-28 basic, Error Codes).
	CodeMissingClientCapability = -32021
	// CodeUnsupportedProtocolVersion: the revision the request names in _meta is one the
	// server does not speak; data lists the revisions it supports and repeats the one
	// requested, and over HTTP the status is 400 (2026-07-28 basic/versioning).
	CodeUnsupportedProtocolVersion = -32022
)
