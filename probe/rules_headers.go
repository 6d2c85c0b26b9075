package probe

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/mcpwatch/mcpwatch/protocol"
)

// The stateless.headers probe (2026-07-28 basic/transports/streamable-http, "Request
// Metadata" and "Server Validation"): requests whose MCP-Protocol-Version, Mcp-Method or
// Mcp-Name is missing or does not match the body, each of which the server must refuse with
// 400 and -32020, and two it must serve: one whose header names are lowercase (header names
// are case-insensitive), and over plain http one whose values have whitespace around them
// (RFC 9110 §5.5: that whitespace is not part of the value).

// Step names of the stateless.headers probe.
const (
	StepHeadersNoProtocolVersion = "headers-no-protocol-version"
	StepHeadersProtocolMismatch  = "headers-protocol-version-mismatch"
	StepHeadersNoMethod          = "headers-no-method"
	StepHeadersMethodMismatch    = "headers-method-mismatch"
	StepHeadersNoName            = "headers-no-name"
	StepHeadersNameMismatch      = "headers-name-mismatch"
	StepHeadersLowercase         = "headers-lowercase-names"
	// StepHeadersPadded sends MCP-Protocol-Version and Mcp-Method with a space before and
	// after their values (plain http only).
	StepHeadersPadded = "headers-padded-values"
	// StepHeadersResources and StepHeadersPrompts list what the Mcp-Name requests address:
	// a resource the server lists, or a prompt that needs no arguments.
	StepHeadersResources = "headers-resources-list"
	StepHeadersPrompts   = "headers-prompts-list"
)

// HeadersMismatchedMethod is the Mcp-Method of StepHeadersMethodMismatch, whose body is
// server/discover; HeadersMismatchedNamePrefix starts the Mcp-Name of StepHeadersNameMismatch.
const (
	HeadersMismatchedMethod     = "tools/list"
	HeadersMismatchedNamePrefix = "mcpwatch-mismatched-name-"
)

// probeStatelessHeaders bends the stateless request headers one at a time
// (stateless.headers). It runs only against a server found stateless; every request is one
// that changes nothing on the server: server/discover, and resources/read or prompts/get of
// something the server lists (never tools/call).
func probeStatelessHeaders(ctx context.Context, c *ruleConn) {
	if c.statelessRevision == "" || c.bent == nil {
		return
	}
	c.speak(c.statelessRevision, true)
	discover := json.RawMessage(`{}`)
	c.callBent(ctx, StepHeadersNoProtocolVersion, methodDiscover, discover, c.o.RequestTimeout, func(h http.Header) {
		h.Del(protocol.HeaderProtocolVersion)
	})
	c.callBent(ctx, StepHeadersProtocolMismatch, methodDiscover, discover, c.o.RequestTimeout, func(h http.Header) {
		h.Set(protocol.HeaderProtocolVersion, protocol.BogusStatelessRevision)
	})
	c.callBent(ctx, StepHeadersNoMethod, methodDiscover, discover, c.o.RequestTimeout, func(h http.Header) {
		h.Del(protocol.HeaderMethod)
	})
	c.callBent(ctx, StepHeadersMethodMismatch, methodDiscover, discover, c.o.RequestTimeout, func(h http.Header) {
		h.Set(protocol.HeaderMethod, HeadersMismatchedMethod)
	})
	c.callBent(ctx, StepHeadersLowercase, methodDiscover, discover, c.o.RequestTimeout, lowercaseNames)
	if padsHeaders(c.target) {
		c.callTo(ctx, StepHeadersPadded, methodDiscover, discover, c.o.RequestTimeout,
			exchangeTarget{pad: []string{protocol.HeaderProtocolVersion, protocol.HeaderMethod}})
	}
	if method, params, ok := c.namedRequest(ctx); ok {
		c.callBent(ctx, StepHeadersNoName, method, params, c.o.RequestTimeout, func(h http.Header) {
			h.Del(protocol.HeaderName)
		})
		c.callBent(ctx, StepHeadersNameMismatch, method, params, c.o.RequestTimeout, func(h http.Header) {
			h.Set(protocol.HeaderName, HeadersMismatchedNamePrefix+randomSuffix())
		})
	}
}

// lowercaseNames writes the headers of the stateless revision under lowercase names.
// net/http writes a name as the map holds it, so the server sees exactly this spelling.
func lowercaseNames(h http.Header) {
	for _, name := range []string{protocol.HeaderProtocolVersion, protocol.HeaderMethod, protocol.HeaderName} {
		values := h.Values(name)
		if values == nil {
			continue
		}
		h.Del(name)
		h[strings.ToLower(name)] = values
	}
}

// namedRequest finds a request that carries Mcp-Name and changes nothing: resources/read of
// the first resource the server lists, else prompts/get of the first listed prompt that
// needs no argument. ok is false when the server lists neither.
func (c *ruleConn) namedRequest(ctx context.Context) (method string, params json.RawMessage, ok bool) {
	if st := c.call(ctx, StepHeadersResources, "resources/list", nil, c.o.RequestTimeout, 1); st.Outcome == OutcomeOK {
		var page struct {
			Resources []struct {
				URI string `json:"uri"`
			} `json:"resources"`
		}
		if json.Unmarshal(st.Result, &page) == nil {
			for _, r := range page.Resources {
				if r.URI != "" {
					params, _ := json.Marshal(map[string]string{"uri": r.URI})
					return "resources/read", params, true
				}
			}
		}
	}
	if st := c.call(ctx, StepHeadersPrompts, "prompts/list", nil, c.o.RequestTimeout, 1); st.Outcome == OutcomeOK {
		var page struct {
			Prompts []struct {
				Name      string           `json:"name"`
				Arguments []promptArgument `json:"arguments"`
			} `json:"prompts"`
		}
		if json.Unmarshal(st.Result, &page) == nil {
			for _, p := range page.Prompts {
				if p.Name != "" && !requiresArgument(p.Arguments) {
					params, _ := json.Marshal(map[string]string{"name": p.Name})
					return "prompts/get", params, true
				}
			}
		}
	}
	return "", nil, false
}

// promptArgument is what the probe reads of a prompt's argument.
type promptArgument struct {
	Required bool `json:"required"`
}

func requiresArgument(args []promptArgument) bool {
	for _, a := range args {
		if a.Required {
			return true
		}
	}
	return false
}
