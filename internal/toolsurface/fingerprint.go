package toolsurface

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpwatch/mcpwatch/jsondoc"
)

// ToolDigest identifies one entry of a tools array: the sha256 of the canonical JSON of the
// tool's name, description, inputSchema and outputSchema (the entry itself when it is not an
// object).
type ToolDigest [sha256.Size]byte

// Fingerprint identifies a whole tool surface. It ignores tool order, member order and
// whitespace, and changes whenever a tool is added, removed, renamed, re-described or
// re-typed. Monitors store it and compare it from run to run, so how it is computed never
// changes.
type Fingerprint [sha256.Size]byte

const fingerprintPrefix = "sha256:"

// String is the fingerprint's stored and published form, "sha256:" and 64 hex digits.
func (f Fingerprint) String() string {
	var b [len(fingerprintPrefix) + 2*sha256.Size]byte
	return string(hex.AppendEncode(append(b[:0], fingerprintPrefix...), f[:]))
}

// ParseFingerprint reads the form String writes.
func ParseFingerprint(s string) (Fingerprint, error) {
	var f Fingerprint
	h, ok := strings.CutPrefix(s, fingerprintPrefix)
	if !ok || hex.DecodedLen(len(h)) != len(f) {
		return f, fmt.Errorf("tool fingerprint %q: want %s and %d hex digits", s, fingerprintPrefix, 2*len(f))
	}
	if _, err := hex.Decode(f[:], []byte(h)); err != nil {
		return f, fmt.Errorf("tool fingerprint %q: %w", s, err)
	}
	return f, nil
}

// FingerprintOf hashes the digests of every listed tool (a tool listed twice counts twice).
// It sorts digests in place.
func FingerprintOf(digests []ToolDigest) Fingerprint {
	slices.SortFunc(digests, func(a, b ToolDigest) int { return bytes.Compare(a[:], b[:]) })
	h := sha256.New()
	fmt.Fprintf(h, "mcpwatch tools v1\n%d\n", len(digests))
	for _, d := range digests {
		h.Write(d[:])
	}
	var f Fingerprint
	h.Sum(f[:0])
	return f
}

// DigestTool returns the digest of a tools array entry whose schemas are given already in
// canonical form (input and output, "" when absent); buf is scratch space, returned grown.
func (c *Encoder) DigestTool(buf []byte, entry jsondoc.Value, input, output string) (ToolDigest, []byte) {
	if entry.Kind() != jsondoc.Object {
		buf = c.Append(buf[:0], entry)
		return sha256.Sum256(buf), buf
	}
	buf = c.appendSurface(buf[:0], entry.Get("name"), entry.Get("description"), input, output)
	return sha256.Sum256(buf), buf
}

// appendSurface writes the canonical JSON of a tool's surface: the object of its name,
// description, inputSchema and outputSchema (those present), members in name order.
func (c *Encoder) appendSurface(b []byte, name, desc jsondoc.Value, input, output string) []byte {
	b = append(b, '{')
	sep := func() {
		if len(b) > 1 {
			b = append(b, ',')
		}
	}
	if desc.Exists() {
		b = c.Append(append(b, `"description":`...), desc)
	}
	if input != "" {
		sep()
		b = append(append(b, `"inputSchema":`...), input...)
	}
	if name.Exists() {
		sep()
		b = c.Append(append(b, `"name":`...), name)
	}
	if output != "" {
		sep()
		b = append(append(b, `"outputSchema":`...), output...)
	}
	return append(b, '}')
}

// Data is the data of the finding that publishes a fingerprint, as runs store it and the
// API serves it: {"hash": String(), "count": count}.
func (f Fingerprint) Data(count int) map[string]any {
	return map[string]any{"hash": f.String(), "count": count}
}

var errNoFingerprint = errors.New("no tool fingerprint in the finding's data")

// FromData reads what Data wrote, also after a JSON round trip (which makes the count a
// float64).
func FromData(data map[string]any) (Fingerprint, int, error) {
	s, ok := data["hash"].(string)
	if !ok {
		return Fingerprint{}, 0, errNoFingerprint
	}
	f, err := ParseFingerprint(s)
	if err != nil {
		return f, 0, err
	}
	var n int
	switch c := data["count"].(type) {
	case int:
		n = c
	case int64:
		n = int(c)
	case float64:
		if c != float64(int(c)) {
			return f, 0, fmt.Errorf("tool count %v is not a whole number", c)
		}
		n = int(c)
	default:
		return f, 0, fmt.Errorf("tool count %v is not a number", c)
	}
	return f, n, nil
}
