package web

import (
	"container/list"
	"sync"
)

// analysisCacheSize bounds the analysed runs kept in memory: a server page analyses its
// latest run and the runs around its recent tool changes, and readers of one page ask for the
// same ones.
const analysisCacheSize = 128

// lru is a small bounded cache of values that never change once made (a run's analysis).
type lru[K comparable, V any] struct {
	mu    sync.Mutex
	max   int
	order *list.List // of K, most recent first
	items map[K]*list.Element
	vals  map[K]V
}

func newLRU[K comparable, V any](max int) *lru[K, V] {
	return &lru[K, V]{max: max, order: list.New(), items: map[K]*list.Element{}, vals: map[K]V{}}
}

func (c *lru[K, V]) get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[k]
	if !ok {
		var zero V
		return zero, false
	}
	c.order.MoveToFront(e)
	return c.vals[k], true
}

func (c *lru[K, V]) put(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		c.order.MoveToFront(e)
		c.vals[k] = v
		return
	}
	c.items[k] = c.order.PushFront(k)
	c.vals[k] = v
	for c.order.Len() > c.max {
		last := c.order.Back()
		old := last.Value.(K)
		c.order.Remove(last)
		delete(c.items, old)
		delete(c.vals, old)
	}
}
