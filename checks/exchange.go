package checks

import (
	"strings"

	"github.com/mcpwatch/mcpwatch/probe"
)

// httpExchange is one HTTP request of the probe with every frame its response produced.
type httpExchange struct {
	conn, number int
	request      int      // Seq of the Out frame that opened it (-1 when none was recorded)
	msg          *Message // the message posted (nil for a GET or DELETE)
	head         int      // Seq of the first In frame with HTTP info (-1 when no response came)
	in           []int    // Seqs of every In frame of the exchange, head included, in order
}

// httpExchanges groups the frames of a Streamable HTTP transcript by exchange, in the order
// the exchanges began. Several checks read it, so it is built once per Capture; callers must not
// modify what it returns.
func httpExchanges(r *Capture) []httpExchange {
	r.exchangesOnce.Do(func() { r.exchanges = groupExchanges(r) })
	return r.exchanges
}

func groupExchanges(r *Capture) []httpExchange {
	type key struct{ conn, number int }
	var out []httpExchange
	index := map[key]int{}
	for _, fr := range r.Frames {
		if fr.Exchange == 0 {
			continue
		}
		k := key{fr.Conn, fr.Exchange}
		i, ok := index[k]
		if !ok {
			i = len(out)
			index[k] = i
			out = append(out, httpExchange{conn: fr.Conn, number: fr.Exchange, request: -1, head: -1})
		}
		ex := &out[i]
		switch fr.Dir {
		case probe.Out:
			if ex.request < 0 && (fr.Kind == probe.KindMessage || fr.Kind == probe.KindHTTPRequest) {
				ex.request = fr.Seq
				if fr.Kind == probe.KindMessage {
					ex.msg = r.Message(fr.Seq)
				}
			}
		case probe.In:
			ex.in = append(ex.in, fr.Seq)
			if ex.head < 0 && fr.HTTP != nil {
				ex.head = fr.Seq
			}
		}
	}
	return out
}

// status is the HTTP status of the exchange's response (0 when none came).
func (ex *httpExchange) status(r *Capture) int {
	if ex.head < 0 {
		return 0
	}
	return r.Frames[ex.head].HTTP.Status
}

// mediaType is the Content-Type of the exchange's response without parameters, lower case.
func (ex *httpExchange) mediaType(r *Capture) string {
	if ex.head < 0 {
		return ""
	}
	return mediaType(r.Frames[ex.head].HTTP.ContentType)
}

// eventStream reports whether the server answered the exchange with an event stream.
func (ex *httpExchange) eventStream(r *Capture) bool {
	return ex.status(r) == 200 && ex.mediaType(r) == "text/event-stream"
}

// describe names the request of an exchange for messages: its method and id.
func (ex *httpExchange) describe() string {
	if ex.msg == nil {
		return "the request"
	}
	switch ex.msg.Kind {
	case Request:
		return "POST " + Clip([]byte(ex.msg.Method)) + " (id " + clipJSON(ex.msg.ID) + ")"
	case Notification:
		return "POST of notification " + Clip([]byte(ex.msg.Method))
	}
	return "the POST"
}

func mediaType(contentType string) string {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}
