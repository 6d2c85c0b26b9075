package probe

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// parsedEvent is the comparable part of an sseEvent.
type parsedEvent struct {
	Data      string
	HasData   bool
	Event     string
	ID        string
	Retry     string
	Comments  int
	Truncated bool
	Malformed string
}

func parseAll(t testing.TB, r io.Reader, maxLine, maxEvent int) (events []parsedEvent, partial parsedEvent, end error) {
	t.Helper()
	p := newSSEParser(r, maxLine, maxEvent, nil)
	for i := 0; ; i++ {
		ev, err := p.Next()
		pe := parsedEvent{Data: string(ev.Data), HasData: ev.HasData, Event: ev.Event, ID: ev.ID, Retry: ev.Retry,
			Comments: ev.Comments, Truncated: ev.Truncated, Malformed: ev.Malformed}
		if err != nil {
			return events, pe, err
		}
		if ev.empty() {
			t.Fatalf("event %d: an empty block was returned", i)
		}
		events = append(events, pe)
	}
}

func TestSSEParserFollowsTheEventStreamRules(t *testing.T) {
	cases := []struct {
		name    string
		stream  string
		want    []parsedEvent
		partial string // data of an unfinished last event
		malf    string // in the Malformed of the first event
	}{
		{name: "one data line", stream: "data: {\"a\":1}\n\n",
			want: []parsedEvent{{Data: `{"a":1}`, HasData: true}}},
		{name: "data lines are joined with LF", stream: "data: one\ndata:two\ndata:  three\n\n",
			want: []parsedEvent{{Data: "one\ntwo\n three", HasData: true}}},
		{name: "CRLF line ends", stream: "event: message\r\nid: 7\r\ndata: x\r\n\r\n",
			want: []parsedEvent{{Data: "x", HasData: true, Event: "message", ID: "7"}}},
		{name: "CR line ends", stream: "data: a\rdata: b\r\rdata: c\r\r",
			want: []parsedEvent{{Data: "a\nb", HasData: true}, {Data: "c", HasData: true}}},
		{name: "mixed line ends", stream: "data: a\r\ndata: b\ndata: c\r\r\n",
			want: []parsedEvent{{Data: "a\nb\nc", HasData: true}}},
		{name: "a BOM at the start is skipped", stream: "\xEF\xBB\xBFdata: x\n\n",
			want: []parsedEvent{{Data: "x", HasData: true}}},
		{name: "a BOM later is data", stream: "data: x\n\ndata: \xEF\xBB\xBFy\n\n",
			want: []parsedEvent{{Data: "x", HasData: true}, {Data: "\xEF\xBB\xBFy", HasData: true}}},
		{name: "a priming event has an id and empty data", stream: "id: p1\ndata:\n\ndata: m\n\n",
			want: []parsedEvent{{HasData: true, ID: "p1"}, {Data: "m", HasData: true}}},
		{name: "comments make their own block", stream: ": ping\n\n: a\n:b\ndata: x\n\n",
			want: []parsedEvent{{Comments: 1}, {Data: "x", HasData: true, Comments: 2}}},
		{name: "blank lines between events are skipped", stream: "\n\n\ndata: x\n\n\n\ndata: y\n\n",
			want: []parsedEvent{{Data: "x", HasData: true}, {Data: "y", HasData: true}}},
		{name: "retry must be digits", stream: "retry: 3000\ndata: x\n\nretry: 3s\ndata: y\n\n",
			want: []parsedEvent{{Data: "x", HasData: true, Retry: "3000"},
				{Data: "y", HasData: true, Malformed: `retry "3s" is not a number`}}},
		{name: "an id with NUL is ignored", stream: "id: a\x00b\ndata: x\n\n",
			want: []parsedEvent{{Data: "x", HasData: true, Malformed: "an id with a NUL byte was ignored"}}},
		{name: "a field without a colon", stream: "data\n\n",
			want: []parsedEvent{{HasData: true}}},
		{name: "a JSON line without data prefix is malformed", stream: "{\"jsonrpc\":\"2.0\"}\n\n",
			want: []parsedEvent{{Malformed: `a line that is not a field: "{\"jsonrpc\":\"2.0\"}"`}}},
		{name: "an unknown field is ignored", stream: "x-server: 1\ndata: x\n\n",
			want: []parsedEvent{{Data: "x", HasData: true}}},
		{name: "a continuation line of data without its prefix", stream: "data: {\"a\":\n\"b\"}\n\n",
			want: []parsedEvent{{Data: `{"a":`, HasData: true, Malformed: `a line without a colon: "\"b\"}"`}}},
		{name: "a bare word line is malformed", stream: "hello\ndata: x\n\n",
			want: []parsedEvent{{Data: "x", HasData: true, Malformed: `a line without a colon: "hello"`}}},
		{name: "the stream ends mid-event", stream: "data: x\n\ndata: {\"id\":1",
			want: []parsedEvent{{Data: "x", HasData: true}}, partial: `{"id":1`},
		{name: "the stream ends after a field but before the blank line", stream: "data: x\n",
			partial: "x"},
		{name: "only the last event and id count", stream: "event: a\nevent: b\nid: 1\nid: 2\ndata: x\n\n",
			want: []parsedEvent{{Data: "x", HasData: true, Event: "b", ID: "2"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// One byte at a time as well as whole: the framing must not depend on the reads.
			for _, r := range []io.Reader{strings.NewReader(tc.stream), iotest.OneByteReader(strings.NewReader(tc.stream))} {
				got, partial, err := parseAll(t, r, 1024, 1024)
				if !errors.Is(err, io.EOF) {
					t.Fatalf("end: %v", err)
				}
				if len(got) != len(tc.want) {
					t.Fatalf("got %d events %+v, want %d %+v", len(got), got, len(tc.want), tc.want)
				}
				for i := range got {
					if got[i] != tc.want[i] {
						t.Errorf("event %d: %+v, want %+v", i, got[i], tc.want[i])
					}
				}
				if partial.Data != tc.partial {
					t.Errorf("unfinished data %q, want %q", partial.Data, tc.partial)
				}
			}
		})
	}
}

func TestSSEParserBoundsLinesAndEvents(t *testing.T) {
	cases := []struct {
		name     string
		stream   string
		maxLine  int
		maxEvent int
		wantData string
		wantMalf string
		trunc    bool
	}{
		{name: "a long line is cut and the rest skipped", stream: "data: " + strings.Repeat("a", 100) + "\ndata: b\n\n",
			maxLine: 16, maxEvent: 1024, wantData: strings.Repeat("a", 10) + "\nb", wantMalf: "longer than 16 bytes was cut"},
		{name: "data over the event bound is cut", stream: "data: 0123456789\ndata: 0123456789\n\n",
			maxLine: 1024, maxEvent: 15, wantData: "0123456789\n0123", wantMalf: "data longer than 15 bytes", trunc: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, _, _ := parseAll(t, strings.NewReader(tc.stream), tc.maxLine, tc.maxEvent)
			if len(got) != 1 {
				t.Fatalf("events %+v", got)
			}
			if got[0].Data != tc.wantData || got[0].Truncated != tc.trunc || !strings.Contains(got[0].Malformed, tc.wantMalf) {
				t.Errorf("got %+v", got[0])
			}
		})
	}
}

func TestSSEParserReportsReadErrors(t *testing.T) {
	boom := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader("data: x\n\ndata: y"), iotest.ErrReader(boom))
	got, partial, err := parseAll(t, r, 64, 64)
	if !errors.Is(err, boom) || len(got) != 1 || partial.Data != "y" {
		t.Errorf("events %+v, partial %+v, end %v", got, partial, err)
	}
}

// encodeSSE writes events the way a server would, with the given line end.
func encodeSSE(events []string, eol string) string {
	var b strings.Builder
	for _, data := range events {
		for _, line := range strings.Split(data, "\n") {
			b.WriteString("data: " + line + eol)
		}
		b.WriteString(eol)
	}
	return b.String()
}

func FuzzSSE(f *testing.F) {
	for _, seed := range []string{
		"data: x\n\n", "data: a\r\ndata: b\r\n\r\n", ": c\n\nid: 1\ndata:\n\n", "\xEF\xBB\xBFdata: x\r\r",
		"retry: 10\nevent: e\ndata: {\"id\":1}\n\n", "data: x", "\r\n\r\r\n\n", "data:" + strings.Repeat("z", 100) + "\n\n",
	} {
		f.Add([]byte(seed))
	}
	const maxLine, maxEvent = 64, 128
	f.Fuzz(func(t *testing.T, in []byte) {
		// Any input: no panic, bounded events, and no dependence on how the bytes arrive.
		whole, wholePartial, err := parseAll(t, bytes.NewReader(in), maxLine, maxEvent)
		if !errors.Is(err, io.EOF) {
			t.Fatalf("end: %v", err)
		}
		if len(whole) > len(in)/2+1 {
			t.Fatalf("%d events from %d bytes", len(whole), len(in))
		}
		for _, ev := range whole {
			if len(ev.Data) > maxEvent || len(ev.Malformed) > 600 {
				t.Fatalf("unbounded event: %d data bytes, %d malformed bytes", len(ev.Data), len(ev.Malformed))
			}
			if !ev.HasData && ev.Data != "" {
				t.Fatalf("data without a data field: %+v", ev)
			}
		}
		split, splitPartial, _ := parseAll(t, iotest.OneByteReader(bytes.NewReader(in)), maxLine, maxEvent)
		if len(split) != len(whole) || splitPartial != wholePartial {
			t.Fatalf("byte-by-byte reading differs: %+v / %+v", split, whole)
		}
		for i := range split {
			if split[i] != whole[i] {
				t.Fatalf("event %d differs byte by byte: %+v / %+v", i, split[i], whole[i])
			}
		}

		// Round trip: the input cut into lines, written as data events, reads back as such.
		var datas []string
		for _, part := range strings.FieldsFunc(string(in), func(r rune) bool { return r == '\r' || r == '\n' }) {
			if len(part) <= maxLine/2 {
				datas = append(datas, part)
			}
		}
		if len(datas) == 0 {
			return
		}
		for _, eol := range []string{"\n", "\r\n", "\r"} {
			back, partial, _ := parseAll(t, strings.NewReader(encodeSSE(datas, eol)), maxLine, maxEvent)
			if len(back) != len(datas) || partial.HasData {
				t.Fatalf("eol %q: %d events back from %d", eol, len(back), len(datas))
			}
			for i := range back {
				if back[i].Data != datas[i] {
					t.Fatalf("eol %q: event %d is %q, want %q", eol, i, back[i].Data, datas[i])
				}
			}
		}
	})
}
