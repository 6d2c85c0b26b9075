package apiserver

import (
	"fmt"
	"net/http"
	"sync"

	"github.com/mcpwatch/mcpwatch/store"
)

// listServers is GET /api/v1/servers. It answers from the shared reading of every server's
// status (at most a few seconds old, see store.StatusSnapshot; writes through this API make
// the next request read afresh): reading them costs tens of milliseconds of database time for
// a large fleet, and encoding them ten more, which a crowd of clients polling the list would
// otherwise pay once each.
func (s *API) listServers(w http.ResponseWriter, r *http.Request) error {
	snap, err := s.statuses.Get(r.Context(), s.cfg.Now())
	if err != nil {
		return err
	}
	body, err := s.list.get(snap, s.encodeListSized)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
	return nil
}

// encodeList encodes the answer of GET /api/v1/servers for one reading: what json.Marshal
// writes for {"servers": [statusView...], "asOf": time}, without reflection (see
// listEncoder).
func (s *API) encodeList(snap store.Statuses) ([]byte, error) {
	return s.encodeListSized(snap, 0)
}

// encodeListSized is encodeList into a buffer of size bytes, or of a size estimated from the
// number of servers when that is less: growing a buffer of megabytes copies it each time.
func (s *API) encodeListSized(snap store.Statuses, size int) ([]byte, error) {
	e := listEncoder{b: make([]byte, 0, max(size, 64+listBytesPerServer*len(snap.List)))}
	e.raw(`{"servers":[`)
	for i, st := range snap.List {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		v := s.toStatusView(st)
		e.status(&v)
	}
	e.raw(`],"asOf":`)
	e.time(snap.AsOf.UTC())
	e.raw("}\n")
	if e.err != nil {
		return nil, fmt.Errorf("encode the server list: %w", e.err)
	}
	return e.b, nil
}

// listBytesPerServer sizes the buffer of the list when no earlier answer tells: about what
// the entry of a server with one region and a latest run takes.
const listBytesPerServer = 1600

// encodedList holds the answer of GET /api/v1/servers for the newest reading it was asked
// for. The body is shared by every request of that reading: it must not be modified.
type encodedList struct {
	mu   sync.Mutex
	seq  uint64 // Statuses.Seq of body
	body []byte
}

// get returns the answer for snap, encoding it (into a buffer of the size given) unless it is
// held already. The lock is held
// while encoding: the requests of a new reading wait for one encoding rather than each
// making its own.
func (l *encodedList) get(snap store.Statuses, encode func(store.Statuses, int) ([]byte, error)) ([]byte, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.body != nil && l.seq == snap.Seq {
		return l.body, nil
	}
	// The answer before is the best guess of this one's size; a sixteenth more leaves room
	// for some servers more.
	b, err := encode(snap, len(l.body)+len(l.body)/16)
	if err != nil {
		return nil, err
	}
	// A request that got an older reading than the one held (it waited longer) does not
	// replace the newer answer.
	if snap.Seq >= l.seq {
		l.seq, l.body = snap.Seq, b
	}
	return b, nil
}
