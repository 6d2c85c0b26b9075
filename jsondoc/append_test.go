package jsondoc

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestAppendStringWritesWhatEncodingJSONWrites(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "plain", "quote \" backslash \\ slash /", "\b\f\n\r\t\x00\x1f\x7f",
		"<a href=\"x&y\">", strings.Repeat("<&>", 3), "\xe2\x80", "\xe2\x80\xa8 and \xe2\x80\xa9", "\xed\xa0\x80",
		"\u007f\u0080\u00ff", "naïve café ✓ 𝄞", "\xff\xfe", strings.Repeat("long plain run ", 20) + "<"} {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendString([]byte("prefix:"), s); !bytes.Equal(got, append([]byte("prefix:"), want...)) {
			t.Errorf("AppendString(%q) = %s, encoding/json %s", s, got, want)
		}
		if got := AppendString(nil, []byte(s)); !bytes.Equal(got, want) {
			t.Errorf("AppendString([]byte(%q)) = %s, encoding/json %s", s, got, want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("<&>\u2028\xe2\x80")
	f.Add("\x00 \"\\")
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("AppendString(%q) = %s, encoding/json %s", s, got, want)
		}
	})
}

func TestAppendStringsWritesWhatEncodingJSONWrites(t *testing.T) {
	t.Parallel()
	for _, ss := range [][]string{nil, {}, {""}, {"a", "<b>", "c\n"}} {
		want, err := json.Marshal(ss)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendStrings([]byte("x"), ss); !bytes.Equal(got, append([]byte("x"), want...)) {
			t.Errorf("AppendStrings(%q) = %s, encoding/json %s", ss, got, want)
		}
	}
}

func TestAppendTimeWritesWhatMarshalJSONWrites(t *testing.T) {
	t.Parallel()
	for _, tm := range []time.Time{{}, time.Date(2026, 11, 27, 1, 2, 3, 0, time.UTC),
		time.Date(2026, 11, 27, 1, 2, 3, 456000, time.FixedZone("x", 5400)), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)} {
		want, wantErr := tm.MarshalJSON()
		got, err := AppendTime([]byte("x"), tm)
		if (err != nil) != (wantErr != nil) {
			t.Errorf("AppendTime(%v): error %v, MarshalJSON's %v", tm, err, wantErr)
			continue
		}
		if err == nil && !bytes.Equal(got, append([]byte("x"), want...)) {
			t.Errorf("AppendTime(%v) = %s, MarshalJSON %s", tm, got, want)
		}
		if err != nil && string(got) != "x" {
			t.Errorf("AppendTime(%v) failing left %q, want the input unchanged", tm, got)
		}
	}
}
