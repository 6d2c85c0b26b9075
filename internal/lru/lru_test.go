package lru

import (
	"fmt"
	"sync"
	"testing"
)

func TestCacheKeepsTheMostRecent(t *testing.T) {
	t.Parallel()
	c := New[int, string](2)
	c.Put(1, "a")
	c.Put(2, "b")
	c.Get(1) // 1 is now the most recent
	c.Put(3, "c")
	if _, ok := c.Get(2); ok {
		t.Error("2 should have been evicted")
	}
	for _, k := range []int{1, 3} {
		if _, ok := c.Get(k); !ok {
			t.Errorf("%d evicted", k)
		}
	}
}

func TestPutReplacesAndRefreshes(t *testing.T) {
	t.Parallel()
	c := New[string, int](2)
	c.Put("a", 1)
	c.Put("b", 2)
	c.Put("a", 10) // replaced, and now the most recent
	c.Put("c", 3)
	if v, ok := c.Get("a"); !ok || v != 10 {
		t.Errorf("Get(a) = %d, %v, want 10, true", v, ok)
	}
	if _, ok := c.Get("b"); ok {
		t.Error("b should have been evicted")
	}
	if c.Len() != 2 {
		t.Errorf("Len = %d, want 2", c.Len())
	}
}

func TestTextCacheStaysBoundedInEntriesAndBytes(t *testing.T) {
	t.Parallel()
	c := NewText[string, int](Limits{Entries: 4, Bytes: 100, MaxKey: 1 << 20})
	for i := 0; i < 50; i++ {
		c.PutText("2025-11-25", fmt.Sprintf(`{"tools":[],"n":%d}`, i), i)
		if c.Len() > 4 || c.bytes > 100 {
			t.Fatalf("after %d puts: %d entries, %d bytes", i+1, c.Len(), c.bytes)
		}
	}
	if _, ok := c.GetBytes("2025-11-25", []byte(`{"tools":[],"n":49}`)); !ok {
		t.Error("newest entry evicted")
	}
	if _, ok := c.GetBytes("2025-11-25", []byte(`{"tools":[],"n":0}`)); ok {
		t.Error("oldest entry kept")
	}
	if _, ok := c.GetBytes("2025-06-18", []byte(`{"tools":[],"n":49}`)); ok {
		t.Error("an entry was found under another group")
	}
}

func TestTextCacheEvictsByBytesBeforeEntries(t *testing.T) {
	t.Parallel()
	c := NewText[int, bool](Limits{Entries: 100, Bytes: 10, MaxKey: 10})
	c.PutText(0, "aaaa", true)
	c.PutText(0, "bbbb", true)
	c.PutText(0, "cccc", true) // 12 bytes: aaaa goes
	if _, ok := c.GetText(0, "aaaa"); ok {
		t.Error("the byte bound did not evict the oldest key")
	}
	if c.Len() != 2 || c.bytes != 8 {
		t.Errorf("%d entries, %d bytes, want 2 and 8", c.Len(), c.bytes)
	}
}

func TestTextCacheRefusesAnOversizedKey(t *testing.T) {
	t.Parallel()
	const maxKey = 256 << 10
	c := NewText[int, error](Limits{Entries: 8, Bytes: 16 << 20, MaxKey: maxKey})
	big := make([]byte, maxKey+1)
	c.PutText(0, string(big), nil)
	if _, ok := c.GetBytes(0, big); ok {
		t.Error("an oversized key was held")
	}
	if c.Len() != 0 || c.bytes != 0 {
		t.Errorf("%d entries, %d bytes after an oversized key", c.Len(), c.bytes)
	}
}

func TestGetBytesDoesNotCopyTheKey(t *testing.T) {
	key := make([]byte, 4096)
	c := NewText[int, int](Limits{Entries: 1})
	c.PutText(1, string(key), 1)
	if n := testing.AllocsPerRun(100, func() { c.GetBytes(1, key) }); n != 0 {
		t.Errorf("GetBytes allocates %v times", n)
	}
}

func TestCacheIsSafeForConcurrentUse(t *testing.T) {
	t.Parallel()
	c := New[int, int](16)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				c.Put(i%32, i)
				c.Get((i + g) % 32)
			}
		}()
	}
	wg.Wait()
	if c.Len() > 16 {
		t.Errorf("Len = %d, want at most 16", c.Len())
	}
}
