package process

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

func TestTailKeepsTheLastBytes(t *testing.T) {
	tests := []struct {
		name    string
		limit   int
		writes  []string
		want    string
		dropped int64
	}{
		{"nothing written", 4, nil, "", 0},
		{"fits", 8, []string{"ab", "cd"}, "abcd", 0},
		{"exactly full", 4, []string{"ab", "cd"}, "abcd", 0},
		{"wraps", 4, []string{"abc", "def"}, "cdef", 2},
		{"wraps twice", 3, []string{"ab", "cd", "ef", "g"}, "efg", 4},
		{"one write larger than the ring", 3, []string{"ab", "cdefgh"}, "fgh", 5},
		{"write of exactly the ring after wrapping", 3, []string{"abcd", "xyz"}, "xyz", 4},
		{"empty writes", 3, []string{"", "a", ""}, "a", 0},
		{"no room at all", 0, []string{"abc"}, "", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewTail(tt.limit)
			for _, w := range tt.writes {
				if n, err := r.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
			}
			if got := string(r.Bytes()); got != tt.want || r.Dropped() != tt.dropped {
				t.Errorf("kept %q dropped %d, want %q dropped %d", got, r.Dropped(), tt.want, tt.dropped)
			}
		})
	}
}

func TestTailMatchesTheEndOfEverythingWritten(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		limit := rng.IntN(64)
		r := NewTail(limit)
		var all []byte
		for range rng.IntN(20) {
			p := make([]byte, rng.IntN(100))
			for i := range p {
				p[i] = byte(rng.IntN(256))
			}
			_, _ = r.Write(p)
			all = append(all, p...)
		}
		want := all[max(0, len(all)-limit):]
		if got := r.Bytes(); !bytes.Equal(got, want) || r.Dropped() != int64(len(all)-len(want)) {
			t.Fatalf("round %d (limit %d): kept %d bytes dropped %d, want %d dropped %d",
				round, limit, len(got), r.Dropped(), len(want), len(all)-len(want))
		}
	}
}
