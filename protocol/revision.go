package protocol

// The revisions this project understands, oldest first. A revision is the date of the
// specification a client and a server agree to speak.
const (
	Revision20241105 = "2024-11-05"
	Revision20250326 = "2025-03-26"
	Revision20250618 = "2025-06-18"
	Revision20251125 = "2025-11-25"
	// Revision20260728 is the first stateless revision: no initialize, no session; every
	// request carries its revision and capabilities in _meta (2026-07-28 basic, Statelessness).
	Revision20260728 = "2026-07-28"

	// LatestRevision is offered first unless the user asks for another. Being stateless, it
	// is offered through server/discover; a server that does not speak it is recognised by
	// its answer (era detection) and probed with LatestSessionRevision instead.
	LatestRevision = Revision20260728
	// LatestSessionRevision is the newest revision that has initialize and sessions.
	LatestSessionRevision = Revision20251125

	// BogusRevision is offered on the negotiation connection: no server supports it, so a
	// conformant server must answer with a revision of its own (basic/lifecycle, Version Negotiation).
	BogusRevision = "1900-01-01"
	// BogusStatelessRevision is the revision the negotiation connection names in _meta when
	// the server is stateless: a revision newer than any published, so that a server can read
	// it only as one it does not support (-32022, 2026-07-28 basic/versioning). A date before 2026-07-28
	// would not do: servers that speak both eras read it as a session-era request.
	BogusStatelessRevision = "2099-01-01"
)

// Revisions lists the revisions this project understands, oldest first.
func Revisions() []string {
	return []string{Revision20241105, Revision20250326, Revision20250618, Revision20251125, Revision20260728}
}

// KnownRevision reports whether v is a published revision this project understands.
func KnownRevision(v string) bool {
	for _, r := range Revisions() {
		if r == v {
			return true
		}
	}
	return false
}

// Stateless reports whether revision v belongs to the stateless era (2026-07-28 and later):
// no initialize, no session, every request self-describing (2026-07-28 basic, Statelessness).
func Stateless(v string) bool { return v >= Revision20260728 }

// KnownSessionRevision reports whether v is a published revision with initialize and
// sessions (2024-11-05 to 2025-11-25): the only kind an initialize result may name.
func KnownSessionRevision(v string) bool { return KnownRevision(v) && !Stateless(v) }

// SessionRevisions lists the revisions with initialize and sessions, oldest first.
func SessionRevisions() []string {
	var out []string
	for _, r := range Revisions() {
		if !Stateless(r) {
			out = append(out, r)
		}
	}
	return out
}

// SendsProtocolHeader reports whether a client speaking revision v sends the
// MCP-Protocol-Version header after initialize (2025-06-18 and later).
func SendsProtocolHeader(v string) bool {
	return v >= Revision20250618
}
