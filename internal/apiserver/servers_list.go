package apiserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

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
	body, err := s.list.get(snap, s.encodeList)
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

// encodeList encodes the answer of GET /api/v1/servers for one reading.
func (s *API) encodeList(snap store.Statuses) ([]byte, error) {
	out := struct {
		Servers []statusView `json:"servers"`
		AsOf    time.Time    `json:"asOf"`
	}{Servers: make([]statusView, 0, len(snap.List)), AsOf: snap.AsOf.UTC()}
	for _, st := range snap.List {
		out.Servers = append(out.Servers, s.toStatusView(st))
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("encode the server list: %w", err)
	}
	return append(b, '\n'), nil
}

// encodedList holds the answer of GET /api/v1/servers for the newest reading it was asked
// for. The body is shared by every request of that reading: it must not be modified.
type encodedList struct {
	mu   sync.Mutex
	seq  uint64 // Statuses.Seq of body
	body []byte
}

// get returns the answer for snap, encoding it unless it is held already. The lock is held
// while encoding: the requests of a new reading wait for one encoding rather than each
// making its own.
func (l *encodedList) get(snap store.Statuses, encode func(store.Statuses) ([]byte, error)) ([]byte, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.body != nil && l.seq == snap.Seq {
		return l.body, nil
	}
	b, err := encode(snap)
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
