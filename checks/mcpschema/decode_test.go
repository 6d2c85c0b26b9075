package mcpschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// standardDecode is what Decode must agree with: encoding/json with UseNumber, one value.
func standardDecode(raw []byte) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, false
	}
	if _, err := d.Token(); !errors.Is(err, io.EOF) {
		return nil, false
	}
	return v, true
}

// decodeSamples are documents whose decoding has a corner: escapes, surrogates, invalid
// UTF-8, repeated names, numbers, nesting, and what is not JSON at all.
var decodeSamples = []string{
	`{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `-0.0e-0`, `1E+2`, `123456789012345678901234567890`,
	` {"a" : [1, 2.5, "x", null, true, {"b": {}}], "c": []} `,
	`"plain"`, `"a\"b\\c\/d\be\ff\ng\rh\ti"`, `"\u00e9\u4e2d\uD83D\uDE00"`,
	`"\uD83D"`, `"\uDE00"`, `"\uD83Dx"`, `"\uD83D\u0041"`, `"\uD83D\uD83D\uDE00"`, `"\u0000"`,
	"\"caf\xc3\xa9\"", "\"bad \xff byte\"", "\"cut \xe2\x82\"", "{\"\xff\":1}",
	`{"a":1,"a":2}`, `{"a":{"x":1},"a":[2]}`, `{"é":"\u00e9","\u00e9":"x"}`,
	`[[[[[[[[[[]]]]]]]]]]`, `{"a":[{"b":[{"c":[]}]}]}`,
	// not JSON
	``, ` `, `{`, `}`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `01`, `1.`, `.5`, `-`, `1e`, `+1`,
	`"unterminated`, "\"ctl \x01\"", `"\x"`, `"\u12"`, `"\u12G4"`, `tru`, `nul`, `{} {}`, `[] x`,
	`NaN`, `Infinity`, `'a'`, `{"a":1}}`, "\"tab\there\"",
}

func TestDecodeAgreesWithEncodingJSON(t *testing.T) {
	docs := append([]string(nil), decodeSamples...)
	docs = append(docs, strings.Repeat("[", maxDecodeDepth)+strings.Repeat("]", maxDecodeDepth),
		strings.Repeat("[", maxDecodeDepth+1)+strings.Repeat("]", maxDecodeDepth+1),
		strings.Repeat(`{"a":`, maxDecodeDepth)+"1"+strings.Repeat("}", maxDecodeDepth),
		strings.Repeat(`{"a":`, maxDecodeDepth+1)+"1"+strings.Repeat("}", maxDecodeDepth+1))
	// Every corpus message and schema file is a real document to agree on.
	for _, dir := range []string{"schemas", filepath.Join("testdata", "corpus")} {
		files, err := filepath.Glob(filepath.Join(dir, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			docs = append(docs, string(raw))
		}
	}
	for _, doc := range docs {
		assertDecodeAgrees(t, []byte(doc))
	}
}

func assertDecodeAgrees(t *testing.T, raw []byte) {
	t.Helper()
	want, wantOK := standardDecode(raw)
	got, err := Decode(raw)
	name := string(raw)
	if len(name) > 80 {
		name = name[:80] + "…"
	}
	switch {
	case wantOK && err != nil:
		t.Fatalf("%q: encoding/json decodes it, Decode says %v", name, err)
	case !wantOK && err == nil:
		t.Fatalf("%q: encoding/json rejects it, Decode returns %#v", name, got)
	case !wantOK && !errors.Is(err, ErrNotJSON):
		t.Fatalf("%q: error %v does not wrap ErrNotJSON", name, err)
	case wantOK && !reflect.DeepEqual(got, want):
		t.Fatalf("%q:\n got %#v\nwant %#v", name, got, want)
	}
}

// FuzzDecode: on any input, Decode reaches encoding/json's verdict and value.
func FuzzDecode(f *testing.F) {
	for _, s := range decodeSamples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		assertDecodeAgrees(t, raw)
	})
}

func BenchmarkDecode(b *testing.B) {
	page := listToolsPage()
	b.Run("Decode", func(b *testing.B) {
		b.SetBytes(int64(len(page)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Decode(page); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.SetBytes(int64(len(page)))
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := standardDecode(page); !ok {
				b.Fatal("not JSON")
			}
		}
	})
}
