package probe

import (
	"bytes"
	"testing"
	"time"
)

// splitAll feeds data to a splitter in chunks of the given sizes (cycled) and returns every
// line it produced, the unterminated rest included, and how it ended.
func splitAll(data []byte, chunkSizes []int, limit int) ([]stdoutLine, splitResult) {
	s := lineSplitter{max: limit}
	var lines []stdoutLine
	emit := func(l stdoutLine) bool { lines = append(lines, l); return true }
	for i := 0; len(data) > 0; i++ {
		n := len(data)
		if len(chunkSizes) > 0 {
			n = min(max(chunkSizes[i%len(chunkSizes)], 1), len(data))
		}
		if r := s.feed(data[:n], time.Duration(i+1), emit); r != splitMore {
			return lines, r
		}
		data = data[n:]
	}
	if l, ok := s.rest(); ok {
		lines = append(lines, l)
	}
	return lines, splitMore
}

func TestLineSplitterCutsAtNewlinesOnly(t *testing.T) {
	tests := []struct {
		name      string
		data      string
		chunks    []int
		limit     int
		want      []string
		truncated bool // the last line
		result    splitResult
	}{
		{"one line", "{}\n", nil, 100, []string{"{}"}, false, splitMore},
		{"empty lines are lines", "\n\n", nil, 100, []string{"", ""}, false, splitMore},
		{"carriage return is kept", "a\r\nb\r\n", nil, 100, []string{"a\r", "b\r"}, false, splitMore},
		{"invalid utf-8 is kept", "\xff\xfe\n", nil, 100, []string{"\xff\xfe"}, false, splitMore},
		{"unterminated rest", "a\nbc", nil, 100, []string{"a", "bc"}, false, splitMore},
		{"byte by byte", "ab\ncd\n", []int{1}, 100, []string{"ab", "cd"}, false, splitMore},
		{"line across chunks", "abcdef\ng\n", []int{2, 3}, 100, []string{"abcdef", "g"}, false, splitMore},
		{"line of exactly the limit", "abcd\n", []int{2}, 4, []string{"abcd"}, false, splitMore},
		{"line over the limit", "ok\nabcdef\nmore\n", nil, 4, []string{"ok", "abcd"}, true, splitTooLarge},
		{"line over the limit across chunks", "abcdef", []int{3}, 4, []string{"abcd"}, true, splitTooLarge},
		{"zero limit allows empty lines", "\n\nx\n", nil, 0, []string{"", "", ""}, true, splitTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines, r := splitAll([]byte(tt.data), tt.chunks, tt.limit)
			if r != tt.result {
				t.Errorf("result %d, want %d", r, tt.result)
			}
			if len(lines) != len(tt.want) {
				t.Fatalf("got %d lines %+v, want %q", len(lines), lines, tt.want)
			}
			for i, w := range tt.want {
				last := i == len(tt.want)-1
				if string(lines[i].raw) != w || lines[i].truncated != (last && tt.truncated) {
					t.Errorf("line %d = %q (truncated %v), want %q", i, lines[i].raw, lines[i].truncated, w)
				}
			}
		})
	}
}

func TestLineSplitterStampsTheFirstByte(t *testing.T) {
	// "ab" arrives at 1, "c\nd" at 2, "\n" at 3: the first line started at 1, the second at 2.
	lines, _ := splitAll([]byte("abc\nd\n"), []int{2, 3, 1}, 100)
	if len(lines) != 2 || lines[0].at != 1 || lines[1].at != 2 {
		t.Errorf("lines %+v, want stamped 1 and 2", lines)
	}
}

func TestLineSplitterStopsWhenAsked(t *testing.T) {
	s := lineSplitter{max: 100}
	n := 0
	r := s.feed([]byte("a\nb\nc\n"), 1, func(stdoutLine) bool { n++; return n < 2 })
	if r != splitStopped || n != 2 {
		t.Errorf("feed = %d after %d lines, want stopped after 2", r, n)
	}
}

func TestLineSplitterLinesDoNotAliasTheReadBuffer(t *testing.T) {
	s := lineSplitter{max: 100}
	buf := []byte("one\ntw")
	var lines []stdoutLine
	emit := func(l stdoutLine) bool { lines = append(lines, l); return true }
	s.feed(buf, 1, emit)
	copy(buf, "XXXXXX")
	s.feed([]byte("o\n"), 2, emit)
	if len(lines) != 2 || string(lines[0].raw) != "one" || string(lines[1].raw) != "two" {
		t.Errorf("lines %+v, want one and two unaffected by reuse of the buffer", lines)
	}
}

// FuzzStdoutLines: however the stream is chunked, the lines are those of bytes.Split up to
// the first line over the limit, which comes out cut to the limit.
func FuzzStdoutLines(f *testing.F) {
	f.Add([]byte("{\"jsonrpc\":\"2.0\"}\n\nbanner\r\n"), uint8(3), uint8(7), uint16(64))
	f.Add([]byte("\xff\n\n\nabc"), uint8(1), uint8(1), uint16(2))
	f.Add([]byte("aaaaaaaaaaaaaaaa\nb"), uint8(5), uint8(2), uint16(4))
	f.Add([]byte(""), uint8(0), uint8(0), uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, c1, c2 uint8, limit uint16) {
		got, r := splitAll(data, []int{int(c1), int(c2)}, int(limit))

		want := bytes.Split(data, []byte("\n"))
		if len(want[len(want)-1]) == 0 {
			want = want[:len(want)-1] // the stream ended with a newline (or was empty)
		}
		over := -1
		for i, w := range want {
			if len(w) > int(limit) {
				over = i
				want = want[:i+1]
				break
			}
		}
		if (over >= 0) != (r == splitTooLarge) {
			t.Fatalf("result %d, but first line over the limit is %d", r, over)
		}
		if len(got) != len(want) {
			t.Fatalf("got %d lines, want %d", len(got), len(want))
		}
		for i := range want {
			w, truncated := want[i], i == over
			if truncated {
				w = w[:limit]
			}
			if !bytes.Equal(got[i].raw, w) || got[i].truncated != truncated {
				t.Fatalf("line %d = %q (truncated %v), want %q (%v)", i, got[i].raw, got[i].truncated, w, truncated)
			}
			if got[i].raw == nil || len(got[i].raw) > int(limit) {
				t.Fatalf("line %d: nil or over the limit", i)
			}
		}
	})
}
