package probe

// Protocol revisions the probe speaks, oldest first.
const (
	Revision20241105 = "2024-11-05"
	Revision20250326 = "2025-03-26"
	Revision20250618 = "2025-06-18"
	Revision20251125 = "2025-11-25"

	// LatestRevision is offered in initialize unless the user asks for another.
	LatestRevision = Revision20251125

	// BogusRevision is offered on the negotiation connection: no server supports it, so a
	// conformant server must answer with a revision of its own (MCP-RULES C3).
	BogusRevision = "1900-01-01"
)

// Revisions lists the revisions the probe understands, oldest first.
func Revisions() []string {
	return []string{Revision20241105, Revision20250326, Revision20250618, Revision20251125}
}

// KnownRevision reports whether v is a published revision the probe understands.
func KnownRevision(v string) bool {
	for _, r := range Revisions() {
		if r == v {
			return true
		}
	}
	return false
}

// SendsProtocolHeader reports whether a client speaking revision v sends the
// MCP-Protocol-Version header after initialize (2025-06-18 and later).
func SendsProtocolHeader(v string) bool {
	return v >= Revision20250618
}
