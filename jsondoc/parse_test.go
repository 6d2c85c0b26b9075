package jsondoc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// standardDecode is what Parse and Any must agree with: encoding/json with UseNumber.
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

// samples are documents whose reading has a corner: escapes, surrogates, invalid UTF-8,
// repeated names, numbers, nesting, and what is not JSON at all.
var samples = []string{
	`{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `-0.0e-0`, `1E+2`, `123456789012345678901234567890`,
	` {"a" : [1, 2.5, "x", null, true, {"b": {}}], "c": []} `,
	`"plain"`, `"a\"b\\c\/d\be\ff\ng\rh\ti"`, `"\u00e9\u4e2d\uD83D\uDE00"`,
	`"\uD83D"`, `"\uDE00"`, `"\uD83Dx"`, `"\uD83D\u0041"`, `"\uD83D\uD83D\uDE00"`, `"\u0000"`,
	"\"caf\xc3\xa9\"", "\"bad \xff byte\"", "\"cut \xe2\x82\"", "{\"\xff\":1}", "{\"\xff\":1,\"\xfe\":2}",
	`{"a":1,"a":2}`, `{"a":{"x":1},"b":0,"a":[2]}`, `{"é":"\u00e9","\u00e9":"x"}`, `{"a":1,"\u0061":2,"a":3}`,
	`[[[[[[[[[[]]]]]]]]]]`, `{"a":[{"b":[{"c":[]}]}]}`,
	// not JSON
	``, ` `, `{`, `}`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `01`, `1.`, `.5`, `-`, `1e`, `+1`,
	`"unterminated`, "\"ctl \x01\"", `"\x"`, `"\u12"`, `"\u12G4"`, `tru`, `nul`, `{} {}`, `[] x`,
	`NaN`, `Infinity`, `'a'`, `{"a":1}}`, "\"tab\there\"",
}

func manyMembers(n int, repeat string) string {
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `"m%d":%d,`, i, i)
	}
	b.WriteString(repeat)
	b.WriteString("}")
	return b.String()
}

func TestParseAgreesWithEncodingJSON(t *testing.T) {
	docs := append([]string(nil), samples...)
	docs = append(docs, strings.Repeat("[", MaxDepth)+strings.Repeat("]", MaxDepth),
		strings.Repeat("[", MaxDepth+1)+strings.Repeat("]", MaxDepth+1),
		strings.Repeat(`{"a":`, MaxDepth)+"1"+strings.Repeat("}", MaxDepth),
		strings.Repeat(`{"a":`, MaxDepth+1)+"1"+strings.Repeat("}", MaxDepth+1),
		// Large objects find repeated names another way than small ones.
		manyMembers(40, `"m3":"again","m39":[]`), manyMembers(40, `"x":1`))
	// Real documents: the project's schemas and its message corpus.
	for _, pattern := range []string{"../checks/mcpschema/schemas/*.json", "../checks/mcpschema/testdata/corpus/*.json", "../checks/testdata/*.json"} {
		files, err := filepath.Glob(pattern)
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: %v files, %v", pattern, len(files), err)
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
		assertAgrees(t, []byte(doc))
	}
}

func assertAgrees(t *testing.T, raw []byte) {
	t.Helper()
	want, wantOK := standardDecode(raw)
	doc, err := Parse(raw)
	name := string(raw)
	if len(name) > 80 {
		name = name[:80] + "…"
	}
	switch {
	case wantOK && err != nil:
		t.Fatalf("%q: encoding/json decodes it, Parse says %v", name, err)
	case !wantOK && err == nil:
		t.Fatalf("%q: encoding/json rejects it, Parse accepts it", name)
	case !wantOK && !errors.Is(err, ErrSyntax):
		t.Fatalf("%q: error %v does not wrap ErrSyntax", name, err)
	case !wantOK:
		return
	}
	if got := doc.Root().Any(); !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n got %#v\nwant %#v", name, got, want)
	}
	if doc.Nodes() <= 5000 {
		// Walking a very deep document value by value would take quadratic time.
		assertAccessorsAgree(t, name, doc.Root(), want)
	}
}

// assertAccessorsAgree walks a value with Len, Get, Members and Elements and compares each
// step with the decoded tree.
func assertAccessorsAgree(t *testing.T, name string, v Value, want any) {
	t.Helper()
	switch w := want.(type) {
	case map[string]any:
		if v.Kind() != Object || v.Len() != len(w) {
			t.Fatalf("%q: %s with Len %d, want an object of %d members", name, v.Kind(), v.Len(), len(w))
		}
		seen := 0
		for k, m := range v.Members() {
			seen++
			if !reflect.DeepEqual(v.Get(k).Any(), w[k]) || !reflect.DeepEqual(m.Any(), w[k]) {
				t.Fatalf("%q: member %q differs", name, k)
			}
			assertAccessorsAgree(t, name, m, w[k])
		}
		if seen != len(w) {
			t.Fatalf("%q: Members yielded %d, want %d", name, seen, len(w))
		}
	case []any:
		if v.Kind() != Array || v.Len() != len(w) {
			t.Fatalf("%q: %s with Len %d, want an array of %d", name, v.Kind(), v.Len(), len(w))
		}
		for i, e := range v.Elements() {
			assertAccessorsAgree(t, name, e, w[i])
		}
	case string:
		if v.Str() != w {
			t.Fatalf("%q: Str %q, want %q", name, v.Str(), w)
		}
		if v.Plain() && v.Text() != `"`+w+`"` {
			t.Fatalf("%q: plain string %s has content %q", name, v.Text(), w)
		}
	}
}

// FuzzParse: on any input, Parse reaches encoding/json's verdict and value.
func FuzzParse(f *testing.F) {
	for _, s := range samples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		assertAgrees(t, raw)
	})
}

func TestGetMissesWhatIsNotThere(t *testing.T) {
	doc, err := Parse([]byte(`{"a":{"b":[1,{"c":null}]},"a\"":2}`))
	if err != nil {
		t.Fatal(err)
	}
	r := doc.Root()
	tests := []struct {
		v    Value
		want Kind
	}{
		{r.Get("a"), Object},
		{r.Get("a").Get("b"), Array},
		{r.Get("a").Get("b").Get("c"), Missing},
		{r.Get(`a"`), Number},
		{r.Get("b"), Missing},
		{r.Get("x").Get("y"), Missing},
		{Value{}.Get("a"), Missing},
	}
	for i, tt := range tests {
		if got := tt.v.Kind(); got != tt.want {
			t.Errorf("case %d: kind %s, want %s", i, got, tt.want)
		}
	}
	var names []string
	for n := range doc.Names() {
		names = append(names, n)
	}
	if strings.Join(names, ",") != `a,a",b,c` {
		t.Errorf("Names = %q", names)
	}
}

func TestNumbersCompareByValue(t *testing.T) {
	nums := []string{"0", "-0", "0.0", "0e5", "1", "1.0", "10e-1", "0.1e1", "-1", "-1.5", "1.5", "15e-1",
		"100", "1e2", "99.999", "1e-7", "0.0000001", "-1e-7", "123456789012345678901234567890",
		"1.23456789012345678901234567891e29", "5e-324", "1E+400", "-1E+400", "7e0", "0.00", "2.5E3", "2500"}
	for _, a := range nums {
		for _, b := range nums {
			ra, _ := new(big.Rat).SetString(a)
			rb, _ := new(big.Rat).SetString(b)
			if got, want := CompareNumbers(a, b), ra.Cmp(rb); got != want {
				t.Errorf("CompareNumbers(%s, %s) = %d, want %d", a, b, got, want)
			}
		}
		ra, _ := new(big.Rat).SetString(a)
		if got := IsInteger(a); got != ra.IsInt() {
			t.Errorf("IsInteger(%s) = %v", a, got)
		}
		if got := Sign(a); got != ra.Sign() {
			t.Errorf("Sign(%s) = %d", a, got)
		}
	}
	// Far beyond what big.Rat accepts, the order is still right.
	if CompareNumbers("1e99999999999", "1e99999999998") != 1 || !IsInteger("1e99999999999") || IsInteger("1e-99999999999") {
		t.Error("huge exponents")
	}
}

func FuzzCompareNumbers(f *testing.F) {
	f.Add("1.5", "15e-1")
	f.Add("-0.0", "0")
	f.Fuzz(func(t *testing.T, a, b string) {
		if !json.Valid([]byte(a)) || !json.Valid([]byte(b)) || len(a) > 40 || len(b) > 40 {
			return
		}
		if _, err := json.Number(a).Float64(); err != nil && !strings.Contains(err.Error(), "range") {
			return // not a number
		}
		if _, err := json.Number(b).Float64(); err != nil && !strings.Contains(err.Error(), "range") {
			return
		}
		ra, okA := new(big.Rat).SetString(a)
		rb, okB := new(big.Rat).SetString(b)
		if !okA || !okB {
			return
		}
		if got, want := CompareNumbers(a, b), ra.Cmp(rb); got != want {
			t.Fatalf("CompareNumbers(%s, %s) = %d, want %d", a, b, got, want)
		}
		if IsInteger(a) != ra.IsInt() {
			t.Fatalf("IsInteger(%s)", a)
		}
	})
}

// benchPage is a tools/list result of realistic size.
func benchPage(b *testing.B) []byte {
	raw, err := os.ReadFile("../checks/testdata/tools13.json")
	if err != nil {
		b.Fatal(err)
	}
	return raw
}

func BenchmarkParse(b *testing.B) {
	page := benchPage(b)
	b.Run("Parse", func(b *testing.B) {
		b.SetBytes(int64(len(page)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Parse(page); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Parse+Any", func(b *testing.B) {
		b.SetBytes(int64(len(page)))
		b.ReportAllocs()
		for b.Loop() {
			doc, err := Parse(page)
			if err != nil {
				b.Fatal(err)
			}
			doc.Root().Any()
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
