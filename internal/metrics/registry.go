package metrics

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// ErrDuplicate is the error of Register when a family name is registered already.
var ErrDuplicate = errors.New("metric family registered already")

// Registry is a set of collectors whose families have distinct names, served over HTTP in
// the Prometheus text format (see ServeHTTP). Safe for concurrent use.
type Registry struct {
	mu         sync.RWMutex
	collectors []Collector
	taken      map[string]bool

	sizeHint atomic.Int64 // size of the last exposition, to allocate the next at once
	gzip     sync.Pool    // *gzip.Writer
}

// NewRegistry makes an empty registry.
func NewRegistry() *Registry {
	return &Registry{taken: make(map[string]bool)}
}

// Register adds c; it fails, wrapping ErrDuplicate, if one of c's families has the name of a
// family registered already, and then registers nothing.
func (r *Registry) Register(c Collector) error {
	if c == nil {
		return errors.New("metrics: register: nil collector")
	}
	names := c.names()
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, n := range names {
		if r.taken[n] || slices.Contains(names[:i], n) {
			return fmt.Errorf("metrics: register %s: %w", n, ErrDuplicate)
		}
	}
	for _, n := range names {
		r.taken[n] = true
	}
	r.collectors = append(r.collectors, c)
	return nil
}

// gather collects every family, sorted by name, with series sorted by their labels, so that
// two expositions of the same state are the same bytes.
func (r *Registry) gather() []family {
	r.mu.RLock()
	collectors := slices.Clone(r.collectors)
	r.mu.RUnlock()
	var fams []family
	for _, c := range collectors {
		fams = c.collect(fams)
	}
	slices.SortFunc(fams, func(a, b family) int { return strings.Compare(a.name, b.name) })
	for _, f := range fams {
		slices.SortFunc(f.series, func(a, b series) int { return compareLabels(a.labels, b.labels) })
	}
	return fams
}

// compareLabels orders label sets by their first differing name, then value.
func compareLabels(a, b []label) int {
	for i := range min(len(a), len(b)) {
		if c := strings.Compare(a[i].name, b[i].name); c != 0 {
			return c
		}
		if c := strings.Compare(a[i].value, b[i].value); c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}
