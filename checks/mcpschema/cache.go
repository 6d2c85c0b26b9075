package mcpschema

import (
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Bounds of the tool schema verdict cache: a server lists tens of tools, a monitor probes
// the same servers again and again, and a hostile server must not grow the cache unbounded.
const (
	toolCacheSize  = 2048     // entries
	toolCacheBytes = 16 << 20 // schema bytes held as keys
	// toolCacheMaxKey: larger schemas are judged every time rather than held.
	toolCacheMaxKey = 256 << 10
)

// verdictCache remembers the verdict on a schema's exact bytes, per rule set. Eviction is
// first in, first out: verdicts never go stale, so recency buys little over simplicity.
type verdictCache struct {
	mu      sync.Mutex
	byRules [4]map[string]error
	order   []cacheSlot // keys in insertion order, oldest at head
	head    int         // oldest slot once the ring is full
	bytes   int
	max     int
}

type cacheSlot struct {
	rules int
	key   string
}

func newVerdictCache(max int) *verdictCache {
	c := &verdictCache{max: max}
	for i := range c.byRules {
		c.byRules[i] = map[string]error{}
	}
	return c
}

func (c *verdictCache) get(rules int, schema []byte) (error, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	err, ok := c.byRules[rules][string(schema)]
	return err, ok
}

func (c *verdictCache) getString(rules int, schema string) (error, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	err, ok := c.byRules[rules][schema]
	return err, ok
}

func (c *verdictCache) put(rules int, schema []byte, verdict error) {
	if len(schema) > toolCacheMaxKey {
		return
	}
	c.putString(rules, string(schema), verdict)
}

// putString is put for a schema held as a string, which the cache then keeps.
func (c *verdictCache) putString(rules int, schema string, verdict error) {
	if len(schema) > toolCacheMaxKey {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.byRules[rules]
	if _, ok := m[schema]; ok {
		return
	}
	for len(c.order)-c.head > 0 && (len(c.order)-c.head >= c.max || c.bytes+len(schema) > toolCacheBytes) {
		old := c.order[c.head]
		c.order[c.head] = cacheSlot{}
		c.head++
		delete(c.byRules[old.rules], old.key)
		c.bytes -= len(old.key)
	}
	// Compact the queue's dead prefix now and then so that it does not grow forever.
	if c.head > c.max {
		c.order = append(c.order[:0], c.order[c.head:]...)
		c.head = 0
	}
	key := schema
	m[key] = verdict
	c.order = append(c.order, cacheSlot{rules: rules, key: key})
	c.bytes += len(key)
}

// len is the number of verdicts held.
func (c *verdictCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.order) - c.head
}

// Bounds of the pattern cache: tool schemas repeat their patterns (a date, an identifier),
// and compiling one costs more than reading the rest of a schema.
const (
	patternCacheSize = 1024
	// patternCacheMaxKey: longer patterns are compiled every time rather than held.
	patternCacheMaxKey = 1 << 10
)

// patternCache remembers whether Go's regexp package compiles a pattern (the metaschemas'
// "regex" format), emptied when full: patterns are few, so eviction order matters little.
type patternCache struct {
	mu  sync.Mutex
	ok  map[string]bool
	max int
}

func newPatternCache(max int) *patternCache {
	return &patternCache{ok: map[string]bool{}, max: max}
}

// compiles reports whether regexp.Compile accepts pattern.
func (c *patternCache) compiles(pattern string) bool {
	if len(pattern) > patternCacheMaxKey {
		return regexpCompiles(pattern)
	}
	c.mu.Lock()
	ok, found := c.ok[pattern]
	c.mu.Unlock()
	if found {
		return ok
	}
	ok = regexpCompiles(pattern)
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.ok) >= c.max {
		clear(c.ok)
	}
	c.ok[strings.Clone(pattern)] = ok
	return ok
}

// regexpCompiles is the "regex" format as the jsonschema library asserts it.
func regexpCompiles(pattern string) bool { return jsonschema.Formats["regex"](pattern) }
