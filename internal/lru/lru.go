// Package lru is the project's one bounded cache: a map that forgets its least recently
// used entry once it holds as many as it may. It serves values that never go stale (a
// stored run's analysis, the verdict on a schema's exact bytes, a decoded page), where only
// memory is at stake.
//
// A key is a comparable value, refined by text when the value is a function of exact bytes
// (a schema under a rule set, a page under a revision). A cache made by [NewText] also bounds
// the bytes of text it holds in all and refuses text too large to be worth holding, so that
// a hostile server cannot fill the memory of a long-running monitor; [Cache.GetBytes] looks
// text up from bytes without copying them.
package lru

import "sync"

// Limits bound a cache. A zero Bytes or MaxKey sets no bound; a cache holds at least one
// entry whatever Entries says.
type Limits struct {
	Entries int // values held
	Bytes   int // bytes of key text held in all
	MaxKey  int // longer key text is never held
}

// Cache is a bounded map from a key and a text to V, safe for concurrent use.
type Cache[K comparable, V any] struct {
	mu     sync.Mutex
	limits Limits
	items  map[K]map[string]*entry[K, V] // by key, then text: string lookups stay fast
	n      int
	bytes  int
	ring   entry[K, V] // ring.next is the most recently used, ring.prev the least
}

type entry[K comparable, V any] struct {
	key        K
	text       string
	val        V
	prev, next *entry[K, V]
}

// New is a cache of at most entries values, for keys without text.
func New[K comparable, V any](entries int) *Cache[K, V] {
	return NewText[K, V](Limits{Entries: entries})
}

// NewText is a cache bounded by l.
func NewText[K comparable, V any](l Limits) *Cache[K, V] {
	c := &Cache[K, V]{limits: l, items: map[K]map[string]*entry[K, V]{}}
	c.ring.next, c.ring.prev = &c.ring, &c.ring
	return c
}

// Get is the value held for k, which becomes the most recently used.
func (c *Cache[K, V]) Get(k K) (V, bool) { return c.GetText(k, "") }

// Put holds v for k (see PutText).
func (c *Cache[K, V]) Put(k K, v V) { c.PutText(k, "", v) }

// GetText is the value held for k and text, which becomes the most recently used.
func (c *Cache[K, V]) GetText(k K, text string) (V, bool) {
	c.mu.Lock()
	v, ok := c.found(c.items[k][text])
	c.mu.Unlock()
	return v, ok
}

// GetBytes is GetText of string(b), without copying b.
func (c *Cache[K, V]) GetBytes(k K, b []byte) (V, bool) {
	c.mu.Lock()
	v, ok := c.found(c.items[k][string(b)]) // the compiler does not copy b for a lookup
	c.mu.Unlock()
	return v, ok
}

func (c *Cache[K, V]) found(e *entry[K, V]) (V, bool) {
	if e == nil {
		var zero V
		return zero, false
	}
	c.toFront(e)
	return e.val, true
}

// PutText holds v for k and text, evicting the least recently used entries to stay within
// the limits. Text longer than Limits.MaxKey is not held; the cache keeps text itself.
func (c *Cache[K, V]) PutText(k K, text string, v V) {
	if c.limits.MaxKey > 0 && len(text) > c.limits.MaxKey {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.items[k][text]; e != nil {
		e.val = v
		c.toFront(e)
		return
	}
	var e *entry[K, V]
	for c.n > 0 && (c.n >= c.limits.Entries || c.limits.Bytes > 0 && c.bytes+len(text) > c.limits.Bytes) {
		e = c.evictOldest()
	}
	m := c.items[k]
	if m == nil {
		m = map[string]*entry[K, V]{}
		c.items[k] = m
	}
	// A full cache reuses the entry it evicted: in the steady state a put allocates nothing.
	if e == nil {
		e = new(entry[K, V])
	}
	*e = entry[K, V]{key: k, text: text, val: v}
	m[text] = e
	c.n++
	c.bytes += len(text)
	c.link(e)
}

// Len is the number of values held.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// evictOldest removes the least recently used entry and returns it.
func (c *Cache[K, V]) evictOldest() *entry[K, V] {
	e := c.ring.prev
	c.unlink(e)
	m := c.items[e.key]
	delete(m, e.text)
	if len(m) == 0 {
		delete(c.items, e.key)
	}
	c.n--
	c.bytes -= len(e.text)
	return e
}

func (c *Cache[K, V]) toFront(e *entry[K, V]) {
	if c.ring.next != e {
		c.unlink(e)
		c.link(e)
	}
}

func (c *Cache[K, V]) link(e *entry[K, V]) {
	e.prev, e.next = &c.ring, c.ring.next
	c.ring.next.prev = e
	c.ring.next = e
}

func (c *Cache[K, V]) unlink(e *entry[K, V]) {
	e.prev.next = e.next
	e.next.prev = e.prev
	e.prev, e.next = nil, nil
}
