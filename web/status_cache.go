package web

import "net/http"

// statusPageCacheSize bounds the renderings of the status page kept: a few filters and pages
// of the latest reading or two of the statuses.
const statusPageCacheSize = 32

// statusPageKey names a rendering of the status page: the reading of the statuses it shows
// (store.Statuses.Seq) and what the reader asked for.
type statusPageKey struct {
	seq           uint64
	filter, query string
	page          int
	live          bool
}

// renderedPage is a rendering kept for every reader of the same reading: the status page
// shows the statuses as of that reading, and its sparklines and last errors are read for
// that instant, so a second rendering would only repeat the first. Making one costs tens of
// milliseconds (the rollups of the servers on the page, 4,500 day bars); serving it, none.
type renderedPage struct {
	body []byte
	gz   []byte // body gzipped; nil when too small to be worth it
}

// write sends the page, gzipped to a reader that accepts it.
func (p renderedPage) write(w http.ResponseWriter, r *http.Request, refresh int) {
	setPageHeaders(w.Header(), refresh)
	writeEncoded(w, r, http.StatusOK, p.body, p.gz)
}
