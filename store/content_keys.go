package store

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"strconv"

	"github.com/mcpwatch/mcpwatch/internal/lru"
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

// stepShapeKey is the key of the steps' names, methods, outcomes, error codes and HTTP
// statuses, in the order given (stepOrder's).
func stepShapeKey(steps []StepRecord, order []int) int64 {
	w := keyWriter{buf: make([]byte, 0, 64*len(steps))}
	for _, i := range order {
		st := &steps[i]
		w.text(st.Name)
		w.text(st.Method)
		w.text(st.Outcome)
		w.int(st.ErrorCode)
		if st.HTTPStatus == nil {
			w.int(nil)
		} else {
			v := int64(*st.HTTPStatus)
			w.int(&v)
		}
	}
	return w.key()
}

// findingShapeKey is the key of the findings' check ids, statuses and severities, in order.
func findingShapeKey(findings []FindingRecord) int64 {
	w := keyWriter{buf: make([]byte, 0, 48*len(findings))}
	for i := range findings {
		f := &findings[i]
		w.text(f.CheckID)
		w.text(f.Status)
		w.text(f.Severity)
	}
	return w.key()
}

// messageKey is the key of a finding's message: the SHA-256 of the text alone.
func messageKey(message string) int64 {
	sum := sha256.Sum256([]byte(message))
	return int64(binary.BigEndian.Uint64(sum[:8]))
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
