package checks

import (
	"github.com/mcpwatch/mcpwatch/probe"
)

// probeRequests indexes the requests the probe sent on one connection by strict and loose id.
type probeRequests struct {
	strict map[string]int // strict id key -> Seq of the request
	loose  map[string]int // loose id key -> Seq of the request
}

func (p *probeRequests) add(seq int, m *Message) {
	k, ok := strictIDKey(m.ID)
	if !ok {
		return
	}
	if p.strict == nil {
		p.strict, p.loose = map[string]int{}, map[string]int{}
	}
	p.strict[k] = seq
	p.loose[looseIDKey(m.ID)] = seq
}

func checkIDEcho(r *Capture, f *Finding) {
	type slot struct {
		conn int
		key  string
	}
	sent := map[int]*probeRequests{} // by connection, requests sent so far
	answeredBy := map[slot]int{}     // Seq of the first response to each request
	n := 0
	for _, fr := range r.Frames {
		if fr.Kind != probe.KindMessage {
			continue
		}
		m := r.Message(fr.Seq)
		if fr.Dir == probe.Out {
			// A request the probe sent without a method on purpose still has an id that a
			// server may echo in its -32600.
			if m != nil && (m.Kind == Request || m.Kind == Malformed && m.HasID) {
				if sent[fr.Conn] == nil {
					sent[fr.Conn] = &probeRequests{}
				}
				sent[fr.Conn].add(fr.Seq, m)
			}
			if m != nil && m.Kind == NotObject {
				// The probe's batch: its members are requests a server answers one by one.
				items, _ := batchElements(fr.Raw)
				for _, item := range items {
					if em := Classify(item); em.Kind == Request {
						if sent[fr.Conn] == nil {
							sent[fr.Conn] = &probeRequests{}
						}
						sent[fr.Conn].add(fr.Seq, &em)
					}
				}
			}
			continue
		}
		if !envelopeSubject(r, fr, m) || !m.IsResponse() {
			continue
		}
		if !m.HasID {
			if !m.HasError {
				n++
				f.Fail(Seqs(fr.Seq), "expected the id of the request, got a result without an id: %s", clipJSON(fr.Raw))
			}
			continue // an id-less error is jsonrpc.null-id's to judge
		}
		if m.NullID() {
			continue
		}
		n++
		reqs := sent[fr.Conn]
		if reqs == nil {
			reqs = &probeRequests{}
		}
		key, ok := strictIDKey(m.ID)
		if req, hit := reqs.strict[key]; ok && hit {
			s := slot{fr.Conn, key}
			if first, dup := answeredBy[s]; dup {
				f.Fail(Seqs(req, first, fr.Seq), "expected one response per request, got a second response to id %s", clipJSON(m.ID))
				continue
			}
			answeredBy[s] = fr.Seq
			continue
		}
		if req, hit := reqs.loose[looseIDKey(m.ID)]; hit {
			rm := r.Message(req)
			f.Fail(Seqs(req, fr.Seq), "expected id %s (a JSON %s), got %s (a JSON %s)",
				clipJSON(rm.ID), jsonType(rm.ID), clipJSON(m.ID), jsonType(m.ID))
			continue
		}
		f.Fail(Seqs(fr.Seq), "expected the id of a request the probe sent, got a response to id %s, which was never sent", clipJSON(m.ID))
	}
	if n == 0 {
		f.Untested("the server sent no response")
		return
	}
	f.Pass("%d responses, each echoing the id of one request exactly", n)
}
