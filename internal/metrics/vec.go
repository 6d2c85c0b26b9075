package metrics

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// vec holds the children of a labelled metric, one per combination of label values, created
// on first use.
type vec[M any] struct {
	desc
	labelNames []string // as given to the constructor, for messages
	sorted     []string // label names in the order of the exposition
	// order[i] is the position among the given label values of the value of sorted[i].
	order     []int
	newMetric func() *M

	mu       sync.RWMutex
	children map[string]*vecChild[M]
}

type vecChild[M any] struct {
	labels []label
	metric *M
}

func newVec[M any](d desc, labelNames []string, newMetric func() *M) *vec[M] {
	v := &vec[M]{
		desc:       d,
		labelNames: slices.Clone(labelNames),
		sorted:     slices.Clone(labelNames),
		newMetric:  newMetric,
		children:   make(map[string]*vecChild[M]),
	}
	slices.Sort(v.sorted)
	v.order = make([]int, len(v.sorted))
	for i, n := range v.sorted {
		v.order[i] = slices.Index(v.labelNames, n)
	}
	return v
}

// with returns the child of values, creating it on first use. The common case, a child that
// exists, takes a read lock and no allocation.
func (v *vec[M]) with(values []string) *M {
	if len(values) != len(v.labelNames) {
		// Not the values themselves: passing them to fmt would move every call's slice to the heap.
		panic(fmt.Sprintf("metrics: %s takes %d label values (%s), got %d",
			v.name, len(v.labelNames), strings.Join(v.labelNames, ", "), len(values)))
	}
	for i, val := range values {
		if !utf8.ValidString(val) {
			// The exposition format is UTF-8 and values may come from input: repair, on a copy.
			values = slices.Clone(values)
			for j := i; j < len(values); j++ {
				values[j] = strings.ToValidUTF8(values[j], "\uFFFD")
			}
			break
		}
	}
	var buf [256]byte
	key := buf[:0]
	for _, val := range values {
		// Length prefixes keep ("a,b", "c") and ("a", "b,c") apart whatever the values hold.
		key = binary.AppendUvarint(key, uint64(len(val)))
		key = append(key, val...)
	}
	v.mu.RLock()
	c, ok := v.children[string(key)]
	v.mu.RUnlock()
	if ok {
		return c.metric
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if c, ok := v.children[string(key)]; ok {
		return c.metric
	}
	c = &vecChild[M]{labels: make([]label, len(v.sorted)), metric: v.newMetric()}
	for i, n := range v.sorted {
		c.labels[i] = label{name: n, value: values[v.order[i]]}
	}
	v.children[string(key)] = c
	return c.metric
}

// collectAs appends the family of the children, if there are any, reading each with snap.
func (v *vec[M]) collectAs(dst []family, k kind, snap func(*M) series) []family {
	v.mu.RLock()
	children := make([]*vecChild[M], 0, len(v.children))
	for _, c := range v.children {
		children = append(children, c)
	}
	v.mu.RUnlock()
	if len(children) == 0 {
		return dst
	}
	f := family{name: v.name, help: v.help, kind: k, series: make([]series, 0, len(children))}
	for _, c := range children {
		s := snap(c.metric)
		s.labels = c.labels
		f.series = append(f.series, s)
	}
	return append(dst, f)
}
