package checks

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/mcpwatch/mcpwatch/jsondoc"
	"github.com/mcpwatch/mcpwatch/probe"
)

// metaSubscriptionID is the _meta key naming the subscription a message belongs to
// (2026-07-28 basic/patterns/subscriptions, "Acknowledgment").
const metaSubscriptionID = "io.modelcontextprotocol/subscriptionId"

func subscriptionsListenCheck() Check {
	return Check{ID: "subscriptions.listen", Area: "subscriptions", Rule: "C'", Spec: specSubscriptions,
		Title:    "subscriptions/listen is acknowledged first, with its subscriptionId, and delivers only the notifications asked for",
		Evaluate: checkSubscriptionsListen}
}

// listFilter names the filter field that asks for a list-change notification (2026-07-28
// basic/patterns/subscriptions, "Notification Filter"); known is false for other methods.
func listFilter(method string) (field string, known bool) {
	switch method {
	case "notifications/tools/list_changed":
		return "toolsListChanged", true
	case "notifications/prompts/list_changed":
		return "promptsListChanged", true
	case "notifications/resources/list_changed":
		return "resourcesListChanged", true
	}
	return "", false
}

// checkSubscriptionsListen judges the stream of the probe's subscriptions/listen (2026-07-28
// basic/patterns/subscriptions): "The server MUST send notifications/subscriptions/acknowledged
// as the first message carrying the subscription's ID in _meta under
// io.modelcontextprotocol/subscriptionId, and MUST NOT send any notification on the
// subscription before it", and "The server MUST NOT send notification types the client has
// not explicitly requested." Log messages are logging.messages' to judge.
func checkSubscriptionsListen(r *Capture, f *Finding) {
	if !needsStateless(r, f) {
		return
	}
	if !declaresSubscriptions(r) {
		f.Skip("the server declares no listChanged and no resources.subscribe: it has nothing to deliver on subscriptions/listen")
		return
	}
	st, ok := stepOn(r, probe.ConnSubscriptions, probe.StepSubscriptionsListen)
	if !ok {
		f.notJudged(stoppedHere(r), "the probe sent no subscriptions/listen (%s)", probeStopped(r))
		return
	}
	req := r.Message(st.Request)
	if req == nil {
		f.Untested("the subscriptions/listen request was not recorded")
		return
	}
	var params struct {
		Notifications map[string]json.RawMessage `json:"notifications"`
	}
	_ = json.Unmarshal(req.Params, &params)
	stream := subscriptionStream(r, st)
	ack := -1
	for _, seq := range stream {
		m := r.Message(seq)
		if m.Kind != Notification {
			continue // the response that ends the subscription, or an error to it
		}
		if ack < 0 {
			if m.Method != probe.MethodSubscriptionsAck {
				f.Fail(Seqs(st.Request, seq), "subscriptions/listen: expected %s first, got %s before it", probe.MethodSubscriptionsAck, m.Method)
				return
			}
			ack = seq
			if id, ok := subscriptionIDOf(m); !ok || !bytes.Equal(id, bytes.TrimSpace(req.ID)) {
				f.Fail(Seqs(st.Request, seq), "subscriptions/listen (id %s): expected the acknowledgement's _meta.%s to be %s, got %s",
					clipJSON(req.ID), metaSubscriptionID, clipJSON(req.ID), clipOrNone(id))
			}
			continue
		}
		if !askedFor(m, params.Notifications) {
			f.Fail(Seqs(st.Request, seq), "subscriptions/listen asked for %s: expected only those notifications, got %s",
				clipJSON(marshalled(params.Notifications)), m.Method)
		}
	}
	if ack < 0 && len(f.Evidence) == 0 {
		f.Fail(Seqs(st.Request, st.Response), "subscriptions/listen: expected %s first, got %s", probe.MethodSubscriptionsAck, describeListen(r, st))
		return
	}
	f.Pass("subscriptions/listen asking for %s was acknowledged first with its subscriptionId; %d message(s) on the stream, none not asked for",
		clipJSON(marshalled(params.Notifications)), len(stream))
}

// declaresSubscriptions reports whether the DiscoverResult declares something
// subscriptions/listen delivers.
func declaresSubscriptions(r *Capture) bool {
	for _, c := range []string{"tools", "prompts", "resources"} {
		v, declared := r.Capability(c)
		members, _ := objectMembers(v)
		if !declared {
			continue
		}
		if jsondoc.IsTrue(members["listChanged"]) || c == "resources" && jsondoc.IsTrue(members["subscribe"]) {
			return true
		}
	}
	return false
}

// subscriptionStream is the Seqs of the messages the server sent on the subscription after
// the request: over HTTP those of the request's exchange, over stdio every message on the
// connection after it.
func subscriptionStream(r *Capture, st probe.Step) []int {
	req, ok := r.Frame(st.Request)
	if !ok {
		return nil
	}
	var out []int
	for _, fr := range r.Frames[req.Seq+1:] {
		if fr.Conn != req.Conn || fr.Dir != probe.In || fr.Kind != probe.KindMessage || fr.Exchange != req.Exchange {
			continue
		}
		if m := r.Message(fr.Seq); m != nil && (m.Kind == Notification || m.IsResponse()) {
			out = append(out, fr.Seq)
		}
	}
	return out
}

// subscriptionIDOf is the subscription id in a message's _meta.
func subscriptionIDOf(m *Message) (json.RawMessage, bool) {
	params, _ := objectMembers(m.Params)
	meta, _ := objectMembers(params["_meta"])
	id, ok := meta[metaSubscriptionID]
	return bytes.TrimSpace(id), ok
}

// askedFor reports whether a notification on the stream is one the filter asked for, or one
// the stream may carry whatever the filter says: the server's notifications/cancelled that
// ends it, and log messages, which logging.messages judges.
func askedFor(m *Message, filter map[string]json.RawMessage) bool {
	switch m.Method {
	case "notifications/cancelled", "notifications/message":
		return true
	case "notifications/resources/updated":
		var uris []string
		if json.Unmarshal(filter["resourceSubscriptions"], &uris) != nil {
			return false
		}
		params, _ := objectMembers(m.Params)
		uri, _ := jsondoc.Str(params["uri"])
		// "This might be a sub-resource of the one that the client actually subscribed to."
		return slices.ContainsFunc(uris, func(u string) bool { return u != "" && len(uri) >= len(u) && uri[:len(u)] == u })
	}
	field, known := listFilter(m.Method)
	return known && jsondoc.IsTrue(filter[field])
}

// describeListen says what became of a subscriptions/listen that got no acknowledgement.
func describeListen(r *Capture, st probe.Step) string {
	if st.Outcome == probe.OutcomeSent {
		return "no acknowledgement"
	}
	return describeAnswer(r, st)
}

func marshalled(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
