package mcpschema

import (
	"strings"

	"github.com/mcpwatch/mcpwatch/internal/lru"
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

// verdictCache remembers the verdict on a schema's exact bytes, per rule set (the index of
// its toolRules): verdicts never go stale.
type verdictCache = lru.Cache[int, error]

func newVerdictCache(entries int) *verdictCache {
	return lru.NewText[int, error](lru.Limits{Entries: entries, Bytes: toolCacheBytes, MaxKey: toolCacheMaxKey})
}

// Bounds of the pattern cache: tool schemas repeat their patterns (a date, an identifier),
// and compiling one costs more than reading the rest of a schema.
const (
	patternCacheSize = 1024
	// patternCacheMaxKey: longer patterns are compiled every time rather than held.
	patternCacheMaxKey = 1 << 10
)

// patternCache remembers whether Go's regexp package compiles a pattern (the metaschemas'
// "regex" format).
type patternCache struct {
	ok *lru.Cache[string, bool]
}

func newPatternCache(max int) *patternCache {
	return &patternCache{ok: lru.New[string, bool](max)}
}

// compiles reports whether regexp.Compile accepts pattern.
func (c *patternCache) compiles(pattern string) bool {
	if len(pattern) > patternCacheMaxKey {
		return regexpCompiles(pattern)
	}
	if ok, found := c.ok.Get(pattern); found {
		return ok
	}
	ok := regexpCompiles(pattern)
	// A clone, so that the cache does not keep the document the pattern was read from.
	c.ok.Put(strings.Clone(pattern), ok)
	return ok
}

// regexpCompiles is the "regex" format as the jsonschema library asserts it.
func regexpCompiles(pattern string) bool { return jsonschema.Formats["regex"](pattern) }
