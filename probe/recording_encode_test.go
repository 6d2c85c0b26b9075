package probe

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// reflectedRecording is the recording as encoding/json writes the recording structs: what
// WriteRecording wrote before AppendRecording, and the reference it is held to.
func reflectedRecording(r *Result) ([]byte, error) {
	head := *r
	head.Steps, head.Frames, head.Processes = nil, nil, nil
	rec := recording{Version: RecordingVersion, Result: &head, Init: r.Initialize, Disc: r.Discover, DurNS: int64(r.Duration), InitAt: r.InitializedAt}
	for _, f := range r.Frames {
		fr := frameRecord{Frame: f, Dir: f.Dir.String(), Kind: f.Kind.String(), AtNS: int64(f.At)}
		if utf8.Valid(f.Raw) {
			fr.Raw = string(f.Raw)
		} else {
			fr.Raw, fr.Base64 = base64.StdEncoding.EncodeToString(f.Raw), true
		}
		rec.Frames = append(rec.Frames, fr)
	}
	for _, s := range r.Steps {
		rec.Steps = append(rec.Steps, stepRecord{Step: s, LatencyNS: int64(s.Latency), ErrorCodeRaw: s.ErrorCodeRaw, Result: s.Result})
	}
	for _, p := range r.Processes {
		rec.Procs = append(rec.Procs, procRecord{ProcessInfo: p, ShutdownNS: int64(p.ShutdownAfter), Stderr: string(p.Stderr)})
	}
	var buf bytes.Buffer
	err := json.NewEncoder(&buf).Encode(rec)
	return buf.Bytes(), err
}

// sameRecording fails t unless AppendRecording writes exactly what encoding/json writes of r,
// or fails where it fails.
func sameRecording(t *testing.T, name string, r *Result) {
	t.Helper()
	want, wantErr := reflectedRecording(r)
	got, err := AppendRecording(nil, r)
	switch {
	case (err != nil) != (wantErr != nil):
		t.Errorf("%s: error %v, encoding/json's %v", name, err, wantErr)
	case err == nil && !bytes.Equal(got, want):
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		t.Errorf("%s: the recordings differ at byte %d of %d/%d:\n got: …%s\nwant: …%s", name, i, len(got), len(want),
			got[max(0, i-80):min(len(got), i+80)], want[max(0, i-80):min(len(want), i+80)])
	}
}

// awkward is a string with every kind of character JSON or HTML escaping treats apart.
const awkward = "a\"b\\c/d<e>f&g\b\f\n\r\t\x00\x1f\x7f é \u2028 \u2029 😀 \xff\xfe end"

// filled sets every field that v (a pointer) reaches to a value that is not zero: strings to
// awkward, numbers and booleans to non-zero values, slices to two elements, maps to two
// keys, pointers to filled values, and JSON texts to one with whitespace and characters
// encoding/json escapes. A field added to Result, Step, Frame or what they hold is then
// written by the test below, and fails it until AppendRecording writes it too.
func filled(t *testing.T, v reflect.Value, depth int) {
	t.Helper()
	rawJSON := reflect.TypeFor[json.RawMessage]()
	switch {
	case v.Type() == reflect.TypeFor[time.Time]():
		v.Set(reflect.ValueOf(time.Date(2026, 7, 28, 12, 34, 56, 789, time.FixedZone("x", 3600))))
		return
	case v.Type() == rawJSON:
		v.Set(reflect.ValueOf(json.RawMessage(" {\"a\" : [1, \"<b>&\u2028\"],\n\"c\":null}\t")))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(awkward)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(-7 - depth))
	case reflect.Uint8:
		v.SetUint(1) // Direction and FrameKind: a known value
	case reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(9)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		filled(t, v.Elem(), depth+1)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				filled(t, v.Field(i), depth+1)
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			v.SetBytes([]byte(awkward))
			return
		}
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			filled(t, s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for _, k := range []string{"Z-Last", "a<first>"} {
			e := reflect.New(v.Type().Elem()).Elem()
			filled(t, e, depth+1)
			m.SetMapIndex(reflect.ValueOf(k).Convert(v.Type().Key()), e)
		}
		v.Set(m)
	default:
		t.Fatalf("filled: no value for a field of kind %s (%s): teach the test", v.Kind(), v.Type())
	}
}

func TestAppendRecordingMatchesReflection(t *testing.T) {
	var full Result
	filled(t, reflect.ValueOf(&full).Elem(), 0)
	sameRecording(t, "every field set", &full)

	// The same with the other values of what is optional: nil and empty lists, frames whose
	// bytes are UTF-8 or not or none, a header with a nil list, a step with no result.
	var other Result
	filled(t, reflect.ValueOf(&other).Elem(), 0)
	other.Frames[0].Raw = []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	other.Frames[1].Raw = nil
	other.Frames[0].HTTP.Header["Empty"] = nil
	other.Frames[0].HTTP.Header["None"] = []string{}
	other.Frames[1].HTTP.TLS.DNSNames = nil
	other.Frames[1].HTTP.Timing.OpenedBy = 0
	other.Frames[1].SSE = &SSEInfo{Retry: "5"}
	other.Steps[0].Result, other.Steps[1].ErrorCodeRaw = nil, json.RawMessage(`-32601`)
	other.Steps[1].ErrorCode = nil
	other.Processes[0].Stderr = []byte{0xff}
	other.Calls = nil
	sameRecording(t, "other values", &other)
	other.Frames, other.Steps, other.Processes = nil, nil, nil
	sameRecording(t, "no frames, steps or processes", &other)
	other.Frames, other.Steps, other.Processes = []Frame{}, []Step{}, []ProcessInfo{}
	sameRecording(t, "empty frames, steps and processes", &other)

	// A result member that is not JSON fails the recording, as it failed encoding/json.
	var broken Result
	filled(t, reflect.ValueOf(&broken).Elem(), 0)
	broken.Steps[1].Result = json.RawMessage(`{"a":`)
	sameRecording(t, "a result that is not JSON", &broken)
	broken.Steps[1].Result = nil
	broken.Frames[0].HTTP.TLS.NotAfter = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	sameRecording(t, "a certificate time JSON cannot carry", &broken)
}

// TestAppendRecordingMatchesReflectionOnRealProbes compares the two encodings on the
// recordings of real probes of the fixture: conformant servers and every fault it has over
// Streamable HTTP, where frames, headers, timings and errors are what they are in use.
func TestAppendRecordingMatchesReflectionOnRealProbes(t *testing.T) {
	if testing.Short() {
		t.Skip("probes every fault of the fixture")
	}
	type server struct {
		name string
		cfg  fixture.Config
	}
	servers := []server{
		{"conformant", fixture.Config{}},
		{"conformant-sse", fixture.Config{SSE: true, Resources: true, Prompts: true, PageSize: 2}},
		{"stateless", fixture.Config{Stateless: true}},
	}
	for _, f := range fixture.Faults() {
		if f.AppliesTo(protocol.TransportHTTP) && f.Transport != protocol.TransportSSE {
			servers = append(servers, server{string(f.Name), fixture.Config{Fault: f.Name}})
		}
	}
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			srv, err := fixture.New(s.cfg)
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(srv.Handler())
			defer ts.Close()
			res, err := Run(context.Background(), Target{URL: ts.URL + "/mcp"}, Options{
				Timeout: 10 * time.Second, InitTimeout: 2 * time.Second, RequestTimeout: time.Second, ShutdownGrace: time.Second,
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Frames) == 0 {
				t.Fatal("the probe recorded no frame")
			}
			sameRecording(t, s.name, res)
		})
	}
}

func FuzzAppendRecordingRawJSON(f *testing.F) {
	f.Add(`{"a" : [1, "<b>"] }`)
	f.Add("[\"\u2028\"]")
	f.Add(`{"a":`)
	f.Fuzz(func(t *testing.T, raw string) {
		r := &Result{Steps: []Step{{Name: "s", Result: json.RawMessage(raw)}}, Start: time.Unix(0, 0).UTC()}
		sameRecording(t, fmt.Sprintf("result %q", raw), r)
	})
}

// BenchmarkAppendRecording encodes the recording of a probe of the conformant fixture.
func BenchmarkAppendRecording(b *testing.B) {
	srv, err := fixture.New(fixture.Config{})
	if err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	res, err := Run(context.Background(), Target{URL: ts.URL + "/mcp"}, Options{Timeout: 10 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("reflection", func(b *testing.B) {
		for b.Loop() {
			if _, err := reflectedRecording(res); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("append", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			if buf, err = AppendRecording(buf[:0], res); err != nil {
				b.Fatal(err)
			}
		}
	})
}
