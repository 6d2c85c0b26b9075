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

// CodeURLElicitationRequired: the request needs the user to complete an elicitation in
// URL mode first (2025-11-25 only, client/elicitation, Error Handling). From 2026-07-28 a
// server must not send it.
const CodeURLElicitationRequired = -32042

// The ranges of error codes. JSON-RPC 2.0 reserves -32768 to -32000 for itself (section
// 5.1) and leaves -32099 to -32000 to implementations; 2026-07-28 (basic, Error Codes)
// splits that: -32019 to -32000 are legacy codes of implementations, -32099 to -32020
// belong to the MCP specification alone.
const (
	CodeReservedFirst = -32768
	CodeMCPFirst      = -32099
	CodeMCPLast       = -32020
	CodeLegacyFirst   = -32019
	CodeLegacyLast    = -32000
)

// MCPErrorCode is a code MCP itself defines, with the revisions that define it.
type MCPErrorCode struct {
	Code int
	Name string
	// First and Last are the first and last revisions that define it (Last "" while the
	// newest revision still does).
	First, Last string
}

// MCPErrorCodes lists the codes MCP defines beside JSON-RPC's own, in every revision: the
// 2026-07-28 table (basic, Error Codes) and the codes earlier revisions defined, which "remain
// reserved and will not be reused".
func MCPErrorCodes() []MCPErrorCode {
	return []MCPErrorCode{
		{CodeResourceNotFound, "ResourceNotFound", Revision20241105, Revision20251125},
		{CodeURLElicitationRequired, "URLElicitationRequired", Revision20251125, Revision20251125},
		{CodeHeaderMismatch, "HeaderMismatch", Revision20260728, ""},
		{CodeMissingClientCapability, "MissingRequiredClientCapability", Revision20260728, ""},
		{CodeUnsupportedProtocolVersion, "UnsupportedProtocolVersion", Revision20260728, ""},
	}
}

// DefinesErrorCode reports whether revision rev of MCP defines code (JSON-RPC's own codes
// aside), and names it.
func DefinesErrorCode(rev string, code int64) (name string, defined bool) {
	for _, c := range MCPErrorCodes() {
		if int64(c.Code) == code && rev >= c.First && (c.Last == "" || rev <= c.Last) {
			return c.Name, true
		}
	}
	return "", false
}

// RetiredErrorCode reports whether code is one an earlier revision defined and revision rev
// no longer does: "Codes defined by earlier protocol versions remain reserved and will not be
// reused. Implementations of this protocol version MUST NOT emit these codes" (2026-07-28
// basic, Error Codes).
func RetiredErrorCode(rev string, code int64) (name string, retired bool) {
	for _, c := range MCPErrorCodes() {
		if int64(c.Code) == code && c.Last != "" && rev > c.Last {
			return c.Name, true
		}
	}
	return "", false
}

// JSONRPCErrorCode reports whether code is one JSON-RPC 2.0 defines (section 5.1).
func JSONRPCErrorCode(code int64) bool {
	switch code {
	case CodeParseError, CodeInvalidRequest, CodeMethodNotFound, CodeInvalidParams, CodeInternalError:
		return true
	}
	return false
}
