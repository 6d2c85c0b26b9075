package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpwatch/mcpwatch/protocol"
)

// The subscriptions.listen probe (2026-07-28 basic/patterns/subscriptions): one
// subscriptions/listen asking for a part of what the server declares, on a connection of its
// own, since the stream it opens stays open until the client ends it. The probe reads the
// acknowledgement and whatever else comes within a short time, then ends the subscription as
// the revision says a client does: over HTTP by closing the stream (the connection's close),
// over stdio with notifications/cancelled naming the request.

// ConnSubscriptions is the connection of the subscriptions.listen probe.
const ConnSubscriptions = 50

// Step names of the subscriptions.listen probe.
const (
	// StepSubscriptionsDiscover reads the capabilities the filter is made of.
	StepSubscriptionsDiscover = "subscriptions-discover"
	// StepSubscriptionsResources lists the resources, for a server that declares only
	// resources.subscribe: the filter names the first listed resource.
	StepSubscriptionsResources = "subscriptions-resources-list"
	// StepSubscriptionsListen is the subscriptions/listen request. Its Response is the
	// acknowledgement (a notification) when one came, else the answer, if any. Outcome is
	// OutcomeSent when the server acknowledged and kept the stream open, as it should.
	StepSubscriptionsListen = "subscriptions-listen"
	// StepSubscriptionsCancel is the notifications/cancelled that ends it over stdio.
	StepSubscriptionsCancel = "subscriptions-cancel"
)

// What the probe sends and expects.
const (
	MethodSubscriptionsListen = "subscriptions/listen"
	MethodSubscriptionsAck    = "notifications/subscriptions/acknowledged"
)

// listenLinger is how long the probe keeps listening once the subscription is acknowledged:
// a server that sends what was not asked for does so at once (nothing changes while the
// probe listens), and a short wait keeps the probe's time bounded.
const listenLinger = 500 * time.Millisecond

// listenPoll is how often the probe looks at the transcript while it listens: the stream's
// frames arrive on the transport's reader, with no request of the router to wait on.
const listenPoll = 10 * time.Millisecond

// listensFor reports whether a handshake is a DiscoverResult that declares something
// subscriptions/listen delivers: listChanged of tools, prompts or resources, or
// resources.subscribe. Only then is the probe's connection opened.
func listensFor(hs Step) bool {
	if hs.Name != StepDiscover || hs.Outcome != OutcomeOK {
		return false
	}
	_, ok := subscriptionFilter(hs.Result)
	return ok
}

// subscriptionFilter is the filter the probe asks for: the first list change the
// DiscoverResult declares and only that, so that every other declared one is a type not
// asked for; for a server that declares only resources.subscribe, the resource
// subscriptions (their URIs are filled in later). ok is false when it declares none.
func subscriptionFilter(discover json.RawMessage) (filter map[string]any, ok bool) {
	var d struct {
		Capabilities map[string]struct {
			ListChanged bool `json:"listChanged"`
			Subscribe   bool `json:"subscribe"`
		} `json:"capabilities"`
	}
	if json.Unmarshal(discover, &d) != nil {
		return nil, false
	}
	for _, c := range []struct{ capability, field string }{
		{"tools", "toolsListChanged"}, {"prompts", "promptsListChanged"}, {"resources", "resourcesListChanged"},
	} {
		if d.Capabilities[c.capability].ListChanged {
			return map[string]any{c.field: true}, true
		}
	}
	if d.Capabilities["resources"].Subscribe {
		return map[string]any{"resourceSubscriptions": []string{}}, true
	}
	return nil, false
}

// probeSubscriptions opens one subscription and ends it (subscriptions.listen).
func probeSubscriptions(ctx context.Context, c *ruleConn) {
	if c.statelessRevision == "" {
		return
	}
	c.speak(c.statelessRevision, true)
	disc := c.call(ctx, StepSubscriptionsDiscover, methodDiscover, json.RawMessage(`{}`), c.o.InitTimeout, 0)
	if disc.Outcome != OutcomeOK {
		return
	}
	filter, ok := subscriptionFilter(disc.Result)
	if !ok {
		return
	}
	if _, uris := filter["resourceSubscriptions"]; uris {
		filter["resourceSubscriptions"] = c.firstResource(ctx)
	}
	params, _ := json.Marshal(map[string]any{"notifications": filter})
	c.listen(ctx, params)
}

// firstResource is the URI of the first resource the server lists (none when it lists none).
func (c *ruleConn) firstResource(ctx context.Context) []string {
	st := c.call(ctx, StepSubscriptionsResources, "resources/list", nil, c.o.RequestTimeout, 1)
	var page struct {
		Resources []struct {
			URI string `json:"uri"`
		} `json:"resources"`
	}
	if st.Outcome == OutcomeOK && json.Unmarshal(st.Result, &page) == nil {
		for _, r := range page.Resources {
			if r.URI != "" {
				return []string{r.URI}
			}
		}
	}
	return []string{}
}

// listen sends subscriptions/listen, waits for its acknowledgement (up to the request
// timeout) or its answer, listens listenLinger more, and ends the subscription. The step
// records what came first; every frame of the stream is in the transcript for the check.
func (c *ruleConn) listen(ctx context.Context, params json.RawMessage) {
	p := c.prepare(StepSubscriptionsListen, MethodSubscriptionsListen, params, c.nextRequestID(), c.o.RequestTimeout, 0)
	defer c.wire.forget(p.key)
	st := p.st
	seq, err := c.transport().Send(ctx, p.msg)
	st.Request = seq
	if err != nil {
		st.Outcome, st.Err = OutcomeTransport, err.Error()
		c.steps = append(c.steps, st)
		return
	}
	sent, _ := c.transcript.Frame(seq)
	ack, a, answered := c.awaitAck(ctx, p, sent)
	switch {
	case answered:
		// The server answered the request: an error, or a result that ends the
		// subscription (it should come only when the server tears it down).
		a.settle(&st, sent)
		if a.err != nil {
			st.Outcome, st.Err = OutcomeTransport, a.err.Error()
		} else {
			st.Outcome, st.Result, st.ErrorCodeRaw, st.ErrorCode = decodeAnswer(a.env)
		}
	case ack >= 0:
		f, _ := c.transcript.Frame(ack)
		st.Response, st.Latency, st.Outcome = ack, f.At-sent.At, OutcomeSent
		if f.HTTP != nil {
			st.HTTPStatus = f.HTTP.Status
		}
	default:
		st.Outcome, st.Err = OutcomeNoAnswer, ErrTimeout.Error()
	}
	if !answered {
		// The probe, not the server, ends the stream: the note says so, so that an event
		// stream closed without its response is not read as the server's fault.
		c.wire.Record(Frame{Dir: In, Kind: KindNote, Note: NoteTimeout, Exchange: sent.Exchange,
			Detail: fmt.Sprintf("the probe ends the %s stream (id %s) after listening for it", MethodSubscriptionsListen, st.ID)})
	}
	c.steps = append(c.steps, st)
	if !answered && c.target.Kind() == protocol.TransportStdio {
		cancel := withMeta(json.RawMessage(fmt.Sprintf(`{"requestId":%s}`, st.ID)),
			map[string]any{protocol.MetaProtocolVersion: c.meta})
		c.notifyWith(ctx, StepSubscriptionsCancel, "notifications/cancelled", cancel)
	}
}

// awaitAck waits for the acknowledgement of the subscription sent as frame sent, then
// listenLinger more. It returns the Seq of the acknowledgement (-1 when none came), or the
// answer to the request when one came (answered): then the subscription is over.
func (c *ruleConn) awaitAck(ctx context.Context, p *pendingCall, sent Frame) (ack int, a answer, answered bool) {
	ack = -1
	deadline := time.NewTimer(p.timeout)
	defer deadline.Stop()
	tick := time.NewTicker(listenPoll)
	defer tick.Stop()
	next := sent.Seq + 1
	for {
		select {
		case a = <-p.wt.ch:
			return ack, a, true
		case <-deadline.C:
			return ack, answer{}, false
		case <-ctx.Done():
			return ack, answer{}, false
		case <-tick.C:
			if ack >= 0 {
				continue
			}
			for ; next < c.transcript.Len(); next++ {
				f, ok := c.transcript.Frame(next)
				if !ok || f.Conn != c.conn || f.Dir != In || f.Kind != KindMessage {
					continue
				}
				if env, ok := peekEnvelope(f.Raw); ok && env.hasMethod && !env.hasID && env.method == MethodSubscriptionsAck {
					ack = f.Seq
					deadline.Reset(min(listenLinger, p.timeout))
					break
				}
			}
		}
	}
}
