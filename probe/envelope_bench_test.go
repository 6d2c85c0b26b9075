package probe

import (
	"os"
	"testing"
)

// toolsPageMessage is a tools/list answer of thirteen tools with schemas: the largest
// message a typical probe routes, and the page the list readers walk.
func toolsPageMessage(tb testing.TB) (msg, result []byte) {
	tb.Helper()
	result, err := os.ReadFile("../checks/testdata/tools13.json")
	if err != nil {
		tb.Fatal(err)
	}
	msg = append([]byte(`{"jsonrpc":"2.0","id":7,"result":`), result...)
	return append(msg, '}'), result
}

// The router peeks at every frame and the session reads every list page: neither may
// allocate for plain messages.
func TestEnvelopeAndPageReadersDoNotAllocate(t *testing.T) {
	msg, result := toolsPageMessage(t)
	// A request's method is the one string the peek makes; answers need none.
	answer := []byte(`{"jsonrpc":"2.0","id":"a-1","result":{"content":[{"type":"text","text":"hi"}]}}`)
	for name, fn := range map[string]func(){
		"peekEnvelope/page":   func() { peekEnvelope(msg) },
		"peekEnvelope/answer": func() { peekEnvelope(answer) },
		"pageCursor":          func() { pageCursor(result) },
		"memberValue":         func() { memberValue(result, "nextCursor") },
	} {
		if n := testing.AllocsPerRun(50, fn); n != 0 {
			t.Errorf("%s: %v allocations, want none", name, n)
		}
	}
}

func BenchmarkPeekEnvelope(b *testing.B) {
	msg, _ := toolsPageMessage(b)
	small := []byte(`{"jsonrpc":"2.0","id":"a-1","method":"tools/list","params":{"cursor":"c"}}`)
	for _, c := range []struct {
		name string
		raw  []byte
	}{{"small", small}, {"tools-page", msg}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.raw)))
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := peekEnvelope(c.raw); !ok {
					b.Fatal("not an envelope")
				}
			}
		})
	}
}

func BenchmarkListPage(b *testing.B) {
	_, result := toolsPageMessage(b)
	b.Run("cursor", func(b *testing.B) {
		b.SetBytes(int64(len(result)))
		b.ReportAllocs()
		for b.Loop() {
			pageCursor(result)
		}
	})
	b.Run("tool-names", func(b *testing.B) {
		b.SetBytes(int64(len(result)))
		b.ReportAllocs()
		names := map[string]bool{}
		for b.Loop() {
			clear(names)
			if !pageToolNames(result, names) {
				b.Fatal("not a page")
			}
		}
	})
}
