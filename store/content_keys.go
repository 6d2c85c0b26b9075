package store

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"hash/maphash"
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

// keyMemo remembers the keys one goroutine of a batch's preparation computed: a steady
// fleet's runs repeat most of their shapes and messages, and a lookup costs a fraction of
// the cleaning, sorting and SHA-256 it saves. It lives as long as one batch and holds at most
// memoCap entries of each kind.
//
// Steps and findings are looked up by their fields as the run has them, before cleaning,
// and found only when equal to a sequence remembered after cleaning: a run whose fields
// equal clean ones is clean already, and needs neither cleaning nor a copy.
type keyMemo struct {
	steps    map[uint64][]*seenSteps // by a hash of the fields (hashSteps)
	findings map[uint64][]*seenFindings
	messages map[string]int64
	entries  int // in steps and findings
	// The entries found last: the next run is often of the same kind, and comparing costs
	// less than hashing when the texts are the same strings (constants of the probe).
	lastSteps    *seenSteps
	lastFindings *seenFindings
	h            maphash.Hash
	w            keyWriter
}

// seenSteps are a run's steps as cleaned (their latencies are the first run's, and unused),
// in the order that run made them, with their shape's order, positions and key.
type seenSteps struct {
	steps     []StepRecord
	order     []int
	positions []int16
	key       int64
}

// seenFindings are a run's findings as cleaned, with their shape's key, and the messages
// of the last run with them (cleaned) with their keys: a server's next run mostly repeats
// them, and a comparison costs less than a lookup.
type seenFindings struct {
	findings []FindingRecord
	key      int64
	messages []string
	keys     []int64
}

// memoCap bounds each kind of entry of a keyMemo: a batch of a steady fleet needs a few
// hundred.
const memoCap = 4096

func newKeyMemo() *keyMemo {
	return &keyMemo{steps: map[uint64][]*seenSteps{}, findings: map[uint64][]*seenFindings{}, messages: map[string]int64{}}
}

// hashSteps hashes what a step shape holds of steps, in their order (for lookup only: a
// match is compared field by field).
func (m *keyMemo) hashSteps(steps []StepRecord) uint64 {
	m.h.Reset()
	for i := range steps {
		st := &steps[i]
		m.h.WriteString(st.Name)
		m.h.WriteByte(0)
		m.h.WriteString(st.Method)
		m.h.WriteByte(0)
		m.h.WriteString(st.Outcome)
		m.h.WriteByte(0)
		writeNullable(&m.h, st.ErrorCode)
		writeNullable(&m.h, st.HTTPStatus)
	}
	return m.h.Sum64()
}

func writeNullable[T int | int64](h *maphash.Hash, v *T) {
	if v == nil {
		h.WriteByte(0)
		return
	}
	h.WriteByte(1)
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(*v))
	h.Write(b[:])
}

// knownSteps is what the memo has of steps that equal cleaned ones in the same order (their
// latencies aside), or nil.
func (m *keyMemo) knownSteps(steps []StepRecord) *seenSteps {
	if m.lastSteps != nil && sameStepShapes(m.lastSteps.steps, steps) {
		return m.lastSteps
	}
	for _, e := range m.steps[m.hashSteps(steps)] {
		if sameStepShapes(e.steps, steps) {
			m.lastSteps = e
			return e
		}
	}
	return nil
}

func sameStepShapes(x, y []StepRecord) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		a, b := &x[i], &y[i]
		if a.Name != b.Name || a.Method != b.Method || a.Outcome != b.Outcome ||
			compareNullable(a.ErrorCode, b.ErrorCode) != 0 || compareNullable(a.HTTPStatus, b.HTTPStatus) != 0 {
			return false
		}
	}
	return true
}

// keySteps computes order, positions and key of cleaned steps, and remembers them.
func (m *keyMemo) keySteps(steps []StepRecord) *seenSteps {
	e := &seenSteps{steps: steps}
	e.order, e.positions = stepOrder(steps)
	e.key = m.stepShapeKey(steps, e.order)
	if m.entries < memoCap {
		m.entries++
		h := m.hashSteps(steps)
		m.steps[h] = append(m.steps[h], e)
	}
	return e
}

func (m *keyMemo) hashFindings(findings []FindingRecord) uint64 {
	m.h.Reset()
	for i := range findings {
		f := &findings[i]
		m.h.WriteString(f.CheckID)
		m.h.WriteByte(0)
		m.h.WriteString(f.Status)
		m.h.WriteByte(0)
		m.h.WriteString(f.Severity)
		m.h.WriteByte(0)
	}
	return m.h.Sum64()
}

func sameFindingShape(x, y FindingRecord) bool {
	return x.CheckID == y.CheckID && x.Status == y.Status && x.Severity == y.Severity
}

// knownFindings is what the memo has of findings whose check ids, statuses and severities
// equal cleaned ones, in order, or nil.
func (m *keyMemo) knownFindings(findings []FindingRecord) *seenFindings {
	if m.lastFindings != nil && slices.EqualFunc(m.lastFindings.findings, findings, sameFindingShape) {
		return m.lastFindings
	}
	for _, e := range m.findings[m.hashFindings(findings)] {
		if slices.EqualFunc(e.findings, findings, sameFindingShape) {
			m.lastFindings = e
			return e
		}
	}
	return nil
}

// keyFindings computes the shape key of cleaned findings, and remembers it.
func (m *keyMemo) keyFindings(findings []FindingRecord) *seenFindings {
	e := &seenFindings{findings: findings, key: m.findingShapeKey(findings),
		messages: make([]string, len(findings)), keys: make([]int64, len(findings))}
	for j := range findings {
		e.messages[j], e.keys[j] = m.message(findings[j].Message)
	}
	if m.entries < memoCap {
		m.entries++
		h := m.hashFindings(findings)
		m.findings[h] = append(m.findings[h], e)
	}
	return e
}

// messageKeys makes the findings' messages storable and returns them with their keys. The
// findings are copied before a message is changed, unless copied says they are the caller's
// no longer.
func (m *keyMemo) messageKeys(e *seenFindings, findings []FindingRecord, copied bool) ([]FindingRecord, []int64) {
	keys := make([]int64, len(findings))
	for j := range findings {
		raw := findings[j].Message
		if raw == e.messages[j] {
			keys[j] = e.keys[j]
			continue
		}
		text, key := m.message(raw)
		if text != raw {
			if !copied {
				findings, copied = slices.Clone(findings), true
			}
			findings[j].Message = text
		}
		e.messages[j], e.keys[j], keys[j] = text, key, key
	}
	return findings, keys
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
	return m.w.key()
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
	return m.w.key()
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
