package probe

import (
	"context"
	"encoding/json"
	"strings"
)

// The steps of the resource probes that end the main session of a server that declares
// resources (see probeResources).
const (
	// StepResourcesRead reads one listed resource (at most one per MIME family).
	StepResourcesRead = "resources/read"
	// StepResourcesReadUnknown reads a URI the server never listed (UnknownResourcePrefix).
	StepResourcesReadUnknown = "resources/read-unknown"
	// StepResourcesSubscribe and StepResourcesUnsubscribe subscribe to the first listed
	// resource and undo it, when the server declares resources.subscribe.
	StepResourcesSubscribe   = "resources/subscribe"
	StepResourcesUnsubscribe = "resources/unsubscribe"
)

// UnknownResourcePrefix starts the URI of the resource the probe reads knowing it is not
// listed; a random suffix follows.
const UnknownResourcePrefix = "mcpwatch://unknown/"

// MaxResourceReads bounds the listed resources the probe reads: the first of each MIME
// family (text/*, image/*, application/json, any other).
const MaxResourceReads = 4

// MaxResourceReadBytes is the largest listed size of a resource the probe reads: one that
// declares more is passed over for the next of its family. A read whose answer is larger
// than the listing said is still bounded by Limits.MaxMessageBytes.
const MaxResourceReadBytes = 1 << 20

// listedResource is what the probe reads of a resources/list entry.
type listedResource struct {
	URI      string   `json:"uri"`
	MIMEType string   `json:"mimeType"`
	Size     *float64 `json:"size"`
}

// probeResources ends the main session of a server that declares resources: resources/read
// of the first listed resource of each MIME family (resources.read), of a URI it never
// listed (resources.read-unknown), and in the session era, when resources.subscribe is
// declared, resources/subscribe of the first listed resource then resources/unsubscribe of
// it (resources.subscribe). Templates are never read: filling their variables might ask for
// something that does not exist, or that costs the server work. Like the tool probes these
// are rule probes, left to another probe of the run when RulesElsewhere says so.
func (s *session) probeResources(ctx context.Context, handshake json.RawMessage) {
	if !s.o.rulesHere() || !declaresCapability(handshake, "resources") {
		return
	}
	listed := s.listedResources()
	for _, r := range resourcesToRead(listed) {
		params, _ := json.Marshal(map[string]string{"uri": r.URI})
		s.call(ctx, StepResourcesRead, "resources/read", params, s.o.RequestTimeout, 0)
	}

	known := map[string]bool{}
	for _, r := range listed {
		known[r.URI] = true
	}
	uri := UnknownResourcePrefix + randomSuffix()
	for known[uri] {
		uri = UnknownResourcePrefix + randomSuffix()
	}
	params, _ := json.Marshal(map[string]string{"uri": uri})
	s.call(ctx, StepResourcesReadUnknown, "resources/read", params, s.o.RequestTimeout, 0)

	// 2026-07-28 removed resources/subscribe (subscriptions/listen replaced it).
	if s.meta != "" || !declaresSubscribe(handshake) || len(listed) == 0 {
		return
	}
	params, _ = json.Marshal(map[string]string{"uri": listed[0].URI})
	sub := s.call(ctx, StepResourcesSubscribe, "resources/subscribe", params, s.o.RequestTimeout, 0)
	if sub.Outcome == OutcomeError {
		return // nothing to undo
	}
	// Also after a lost answer: the subscription may exist all the same.
	s.call(ctx, StepResourcesUnsubscribe, "resources/unsubscribe", params, s.o.RequestTimeout, 0)
}

// listedResources are the resources of the session's resources/list pages that have a URI,
// in order, each URI once.
func (s *session) listedResources() []listedResource {
	var out []listedResource
	seen := map[string]bool{}
	pages, _ := s.listPages(StepResourcesList)
	for _, raw := range pages {
		var page struct {
			Resources []json.RawMessage `json:"resources"`
		}
		if json.Unmarshal(raw, &page) != nil {
			continue
		}
		for _, raw := range page.Resources {
			var r listedResource
			if json.Unmarshal(raw, &r) != nil || r.URI == "" || seen[r.URI] {
				continue
			}
			seen[r.URI] = true
			out = append(out, r)
		}
	}
	return out
}

// resourcesToRead picks the first resource of each MIME family that does not list a size
// above MaxResourceReadBytes, in the order of the families.
func resourcesToRead(listed []listedResource) []listedResource {
	families := [MaxResourceReads]*listedResource{}
	for i := range listed {
		r := &listed[i]
		if r.Size != nil && *r.Size > MaxResourceReadBytes {
			continue
		}
		if f := mimeFamily(r.MIMEType); families[f] == nil {
			families[f] = r
		}
	}
	var out []listedResource
	for _, r := range families {
		if r != nil {
			out = append(out, *r)
		}
	}
	return out
}

// mimeFamily numbers a MIME type's family: 0 text/*, 1 image/*, 2 application/json (and
// +json types), 3 anything else, a missing type included.
func mimeFamily(mimeType string) int {
	t := strings.ToLower(strings.TrimSpace(mimeType))
	if i := strings.IndexByte(t, ';'); i >= 0 {
		t = strings.TrimSpace(t[:i])
	}
	switch {
	case strings.HasPrefix(t, "text/"):
		return 0
	case strings.HasPrefix(t, "image/"):
		return 1
	case t == "application/json" || strings.HasSuffix(t, "+json"):
		return 2
	}
	return 3
}

// declaresSubscribe reports whether the handshake declares resources.subscribe: true.
func declaresSubscribe(handshake json.RawMessage) bool {
	resources, ok := capability(handshake, "resources")
	if !ok {
		return false
	}
	v, ok := exactMember(resources, "subscribe")
	return ok && strings.TrimSpace(string(v)) == "true"
}
