package store

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"strconv"

	"github.com/mcpwatch/mcpwatch/internal/lru"
	"github.com/mcpwatch/mcpwatch/internal/textclip"
)

// What runs share is stored once, under a key computed from its content (migration 0009):
// the first 8 bytes of the SHA-256 of its fields, each written as its length in bytes, a
// colon and its text, or "-" for NULL, as a signed big-endian integer. A server controls
// the texts hashed here, but making another server's finding show its text would take a
// second preimage of 64 bits; a collision of its own texts misleads only about itself.

// keyWriter encodes fields for a content key.
type keyWriter struct {
	buf []byte
}

func (w *keyWriter) text(s string) {
	w.buf = strconv.AppendInt(w.buf, int64(len(s)), 10)
	w.buf = append(w.buf, ':')
	w.buf = append(w.buf, s...)
}

func (w *keyWriter) int(v *int64) {
	if v == nil {
		w.buf = append(w.buf, '-')
		return
	}
	var digits [24]byte
	w.text(string(strconv.AppendInt(digits[:0], *v, 10)))
}

func (w *keyWriter) key() int64 {
	sum := sha256.Sum256(w.buf)
	return int64(binary.BigEndian.Uint64(sum[:8]))
}

// stepOrder is the order of a step shape: the steps sorted by name, method, outcome, error
// code and HTTP status (bytes, NULL first), as the migration sorts them (COLLATE "C", NULLS
// FIRST). A probe's concurrent rule probes finish in any order, so a server's runs make the
// same steps in many orders: sorted, they share one shape, and a run keeps its order as
// positions into it. order[i] is the step (its seq) at position i; positions[seq] is the
// step's position, from 1 as SQL arrays count.
func stepOrder(steps []StepRecord) (order []int, positions []int16) {
	order = make([]int, len(steps))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return compareSteps(&steps[a], &steps[b]) })
	positions = make([]int16, len(steps))
	for pos, seq := range order {
		positions[seq] = int16(pos + 1)
	}
	return order, positions
}

func compareSteps(x, y *StepRecord) int {
	if c := cmp.Compare(x.Name, y.Name); c != 0 {
		return c
	}
	if c := cmp.Compare(x.Method, y.Method); c != 0 {
		return c
	}
	if c := cmp.Compare(x.Outcome, y.Outcome); c != 0 {
		return c
	}
	if c := compareNullable(x.ErrorCode, y.ErrorCode); c != 0 {
		return c
	}
	return compareNullable(x.HTTPStatus, y.HTTPStatus)
}

func compareNullable[T cmp.Ordered](x, y *T) int {
	switch {
	case x == nil && y == nil:
		return 0
	case x == nil:
		return -1
	case y == nil:
		return 1
	}
	return cmp.Compare(*x, *y)
}

// keyMemo remembers the keys one goroutine of a batch's preparation computed, by the exact
// bytes hashed: a steady fleet's runs repeat most of their shapes and messages, and a map
// lookup costs a fraction of the SHA-256 it saves. It lives as long as one batch and holds
// at most memoCap texts of each kind.
type keyMemo struct {
	shapes   map[string]int64 // by the encoded fields (keyWriter), steps and findings alike
	messages map[string]int64
	w        keyWriter
}

// memoCap bounds each map of a keyMemo: a batch of a steady fleet needs a few hundred.
const memoCap = 4096

func newKeyMemo() *keyMemo {
	return &keyMemo{shapes: map[string]int64{}, messages: map[string]int64{}}
}

// shapeKey is the key of what m.w holds. Steps and findings share one map: equal bytes have
// the same key whichever kind wrote them.
func (m *keyMemo) shapeKey() int64 {
	if k, ok := m.shapes[string(m.w.buf)]; ok {
		return k
	}
	k := m.w.key()
	if len(m.shapes) < memoCap {
		m.shapes[string(m.w.buf)] = k
	}
	return k
}

// stepShapeKey is the key of the steps' names, methods, outcomes, error codes and HTTP
// statuses, in the order given (stepOrder's).
func (m *keyMemo) stepShapeKey(steps []StepRecord, order []int) int64 {
	m.w.buf = m.w.buf[:0]
	for _, i := range order {
		st := &steps[i]
		m.w.text(st.Name)
		m.w.text(st.Method)
		m.w.text(st.Outcome)
		m.w.int(st.ErrorCode)
		if st.HTTPStatus == nil {
			m.w.int(nil)
		} else {
			v := int64(*st.HTTPStatus)
			m.w.int(&v)
		}
	}
	return m.shapeKey()
}

// findingShapeKey is the key of the findings' check ids, statuses and severities, in order.
func (m *keyMemo) findingShapeKey(findings []FindingRecord) int64 {
	m.w.buf = m.w.buf[:0]
	for i := range findings {
		f := &findings[i]
		m.w.text(f.CheckID)
		m.w.text(f.Status)
		m.w.text(f.Severity)
	}
	return m.shapeKey()
}

// message is a finding's message made storable (textclip.Storable) and its key, the SHA-256
// of that text alone. A message remembered is storable already (cleaning what is clean
// changes nothing), so a repeated one is neither cleaned nor hashed again.
func (m *keyMemo) message(raw string) (string, int64) {
	if k, ok := m.messages[raw]; ok {
		return raw, k
	}
	text := textclip.Storable(raw, maxLongText)
	sum := sha256.Sum256([]byte(text))
	k := int64(binary.BigEndian.Uint64(sum[:8]))
	if len(m.messages) < memoCap {
		m.messages[text] = k
	}
	return text, k
}

// sharedKind names the table a shared row is in.
type sharedKind uint8

const (
	sharedStepShape sharedKind = iota
	sharedFindingShape
	sharedMessage
)

type sharedRef struct {
	kind sharedKind
	key  int64
}

// knownRowsCap bounds the shared rows a Store remembers as written: some 100 bytes each. A
// fleet of 10,000 steady servers shares about as many message rows; one forgotten costs its
// text sent again with the next run that uses it.
const knownRowsCap = 1 << 19

// knownRows remembers, for shared rows this Store wrote, the last_day it made sure they
// have: a run of that day or before refers to them without writing them again. Retention
// deletes only rows whose last_day is before every day it keeps, and a run of such a day
// goes with its partition, so what is remembered here is in the database as long as the
// runs that refer to it.
func newKnownRows() *lru.Cache[sharedRef, int32] {
	return lru.New[sharedRef, int32](knownRowsCap)
}
