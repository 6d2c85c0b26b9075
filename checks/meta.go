package checks

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/mcpwatch/mcpwatch/jsondoc"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

const specBasic = "https://modelcontextprotocol.io/specification/2025-11-25/basic"

// metaKeysSince is the first revision that gives _meta keys a format (basic, "_meta").
const metaKeysSince = protocol.Revision20250618

func metaChecks() []Check {
	return []Check{
		{ID: "meta.keys", Area: "meta", Rule: "A", Spec: specBasic + "#meta",
			Title:    "every _meta key the server sends is an optional prefix of dot-separated labels and a slash, then a name; MCP's reserved prefixes carry only keys the specification defines",
			Evaluate: checkMetaKeys},
	}
}

// mcpMetaKeys are the names the specification and its official extensions define under the
// reserved prefix io.modelcontextprotocol/ (2025-11-25 basic/utilities/tasks and schema;
// 2026-07-28 basic, "Reserved keys", and the extensions it names): a server sending one of
// them uses the prefix as MCP intends.
var mcpMetaKeys = map[string]bool{
	"related-task": true, "model-immediate-response": true,
	"protocolVersion": true, "clientCapabilities": true, "clientInfo": true, "serverInfo": true,
	"logLevel": true, "subscriptionId": true, "tasks": true, "ui": true, "oauth-client-credentials": true,
}

// metaSkipped are members whose values are schemas or the caller's data, not protocol
// objects: a "_meta" property in a tool's inputSchema is a parameter's name, not metadata.
var metaSkipped = map[string]bool{
	"inputSchema": true, "outputSchema": true, "requestedSchema": true, "structuredContent": true,
	"arguments": true, "const": true, "default": true, "enum": true, "examples": true,
}

// maxMetaDepth bounds the walk of one message.
const maxMetaDepth = 64

// checkMetaKeys judges the keys of every _meta object in every message the server sent.
// 2025-06-18 and later, basic, "_meta": a prefix, "If specified, MUST be a series of labels
// separated by dots (.), followed by a slash (/)", "Labels MUST start with a letter and end
// with a letter or digit; interior characters can be letters, digits, or hyphens"; a name,
// "Unless empty, MUST begin and end with an alphanumeric character", with hyphens,
// underscores, dots and alphanumerics between. Reserved prefixes (2025-06-18: labels, then
// modelcontextprotocol or mcp, then a label; 2025-11-25 and later: "Any prefix where the
// second label is modelcontextprotocol or mcp") are "reserved for MCP use": no keyword
// forbids a server to use them, so a key there that MCP does not define is advice.
func checkMetaKeys(r *Capture, f *Finding) {
	rev := r.Revision()
	if rev < metaKeysSince {
		f.Skip("_meta keys have a format from %s on; the server speaks %s", metaKeysSince, rev)
		return
	}
	seen := map[string]bool{}
	keys, objects := 0, 0
	r.Inbound(func(fr probe.Frame, m *Message) {
		if m == nil || m.Kind == NotJSON || !bytes.Contains(fr.Raw, []byte(`"_meta"`)) {
			return
		}
		doc, err := jsondoc.Parse(fr.Raw)
		if err != nil {
			return
		}
		walkMeta(doc.Root(), 0, func(meta jsondoc.Value) {
			objects++
			for key := range meta.Members() {
				keys++
				if seen[key] {
					continue
				}
				seen[key] = true
				if why := metaKeyFault(key); why != "" {
					f.Fail([]int{fr.Seq}, "_meta key %s %s", clipQuote(key), why)
					continue
				}
				if prefix, name, ok := strings.Cut(key, "/"); ok && reservedMetaPrefix(rev, prefix) && !mcpMetaKeys[name] {
					f.Advise([]int{fr.Seq}, "_meta key %s uses the prefix %s/, which %s reserves for MCP, for a key MCP does not define", clipQuote(key), prefix, rev)
				}
			}
		})
	})
	if objects == 0 {
		f.Skip("the server sent no _meta object")
		return
	}
	f.Pass("%d distinct key(s) in %d _meta object(s) follow the key format; none misuses a reserved prefix", len(seen), objects)
}

// walkMeta calls fn with every _meta object of a message, skipping schemas and data.
func walkMeta(v jsondoc.Value, depth int, fn func(meta jsondoc.Value)) {
	if depth > maxMetaDepth {
		return
	}
	switch v.Kind() {
	case jsondoc.Object:
		for name, child := range v.Members() {
			switch {
			case name == "_meta":
				if child.Kind() == jsondoc.Object {
					fn(child)
				}
			case metaSkipped[name]:
			default:
				walkMeta(child, depth+1, fn)
			}
		}
	case jsondoc.Array:
		for _, child := range v.Elements() {
			walkMeta(child, depth+1, fn)
		}
	}
}

// metaKeyFault says how a _meta key breaks the key format ("" when it does not).
func metaKeyFault(key string) string {
	name := key
	if i := strings.LastIndexByte(key, '/'); i >= 0 {
		prefix := key[:i]
		name = key[i+1:]
		if prefix == "" {
			return "has a slash with no prefix before it"
		}
		for _, label := range strings.Split(prefix, ".") {
			if !metaLabel(label) {
				return fmt.Sprintf("has the prefix %s, whose label %s does not start with a letter, end with a letter or digit and hold only letters, digits and hyphens", clipQuote(prefix+"/"), clipQuote(label))
			}
		}
	}
	if name != "" && !metaName(name) {
		return fmt.Sprintf("has the name %s, which does not begin and end with a letter or digit or holds characters other than letters, digits, '-', '_' and '.'", clipQuote(name))
	}
	return ""
}

func metaLabel(s string) bool {
	if s == "" || !asciiLetter(s[0]) {
		return false
	}
	if last := s[len(s)-1]; !asciiLetter(last) && !asciiDigit(last) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !asciiLetter(c) && !asciiDigit(c) && c != '-' {
			return false
		}
	}
	return true
}

func metaName(s string) bool {
	alnum := func(c byte) bool { return asciiLetter(c) || asciiDigit(c) }
	if !alnum(s[0]) || !alnum(s[len(s)-1]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !alnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

func asciiLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func asciiDigit(c byte) bool  { return '0' <= c && c <= '9' }

// reservedMetaPrefix reports whether a (well-formed) prefix is reserved for MCP in a
// revision. 2025-06-18: "Any prefix beginning with zero or more valid labels, followed by
// modelcontextprotocol or mcp, followed by any valid label"; 2025-11-25 and later: "Any
// prefix where the second label is modelcontextprotocol or mcp".
func reservedMetaPrefix(rev, prefix string) bool {
	labels := strings.Split(strings.ToLower(prefix), ".")
	mcp := func(l string) bool { return l == "modelcontextprotocol" || l == "mcp" }
	if rev < protocol.Revision20251125 {
		for i := 0; i+1 < len(labels); i++ {
			if mcp(labels[i]) {
				return true
			}
		}
		return false
	}
	return len(labels) >= 2 && mcp(labels[1])
}
