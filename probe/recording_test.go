package probe

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/protocol"
)

func TestRecordingRoundTripKeepsEveryFrameByteExact(t *testing.T) {
	code := int64(-32601)
	in := &Result{
		Target: "srv --flag", Transport: protocol.TransportStdio, Requested: protocol.LatestSessionRevision,
		Negotiated: protocol.Revision20250618, ProtocolVersion: protocol.Revision20250618,
		Initialize:    json.RawMessage(`{"protocolVersion":"2025-06-18"}`),
		InitializedAt: 2, Start: time.Unix(1700000000, 0).UTC(), Duration: 1500 * time.Millisecond,
		Frames: []Frame{
			{Seq: 0, Conn: 1, Dir: Out, Kind: KindMessage, At: 10, Raw: []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`)},
			{Seq: 1, Conn: 1, Dir: In, Kind: KindMessage, At: 20, Raw: []byte{0xff, 0xfe, '{'}, Truncated: true},
			{Seq: 2, Conn: 1, Dir: In, Kind: KindHTTPResponse, At: 30, Exchange: 3,
				HTTP: &HTTPInfo{Status: 202, Header: http.Header{"X": {"y"}}}},
			{Seq: 3, Conn: 2, Dir: In, Kind: KindNote, At: 40, Note: NoteProcessExit, Detail: "exited with status 3"},
			{Seq: 4, Conn: 1, Dir: In, Kind: KindSSEEvent, At: 50, SSE: &SSEInfo{ID: "e1"}},
			{Seq: 5, Conn: 1, Dir: Out, Kind: KindHTTPRequest, At: 60, HTTP: &HTTPInfo{Method: "DELETE"}},
		},
		Steps: []Step{{Name: StepUnknownMethod, Method: UnknownMethod, Conn: 1, ID: "7", Request: 0, Response: 1,
			Latency: 3 * time.Millisecond, Outcome: OutcomeError, ErrorCode: &code, ErrorCodeRaw: json.RawMessage(`-32601`),
			Result: json.RawMessage(`{"a":1}`)}},
		Processes: []ProcessInfo{{Conn: 1, PID: 42, Started: true, Exited: true, ExitCode: 3, EndedBy: "exit",
			ShutdownAfter: time.Second, Stderr: []byte("boom\n"), StderrDropped: 9}},
	}
	var buf bytes.Buffer
	if err := WriteRecording(&buf, in); err != nil {
		t.Fatal(err)
	}
	out, err := ReadRecording(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("round trip changed the result:\n in: %+v\nout: %+v", in, out)
	}
}

func TestReadRecordingRejectsOtherFormats(t *testing.T) {
	for _, doc := range []string{`{}`, `{"mcpwatchRecording":99,"result":{}}`, `not json`,
		`{"mcpwatchRecording":1,"result":{},"frames":[{"dir":"sideways","kind":"message"}]}`} {
		if _, err := ReadRecording(bytes.NewBufferString(doc)); err == nil {
			t.Errorf("ReadRecording(%s): want an error", doc)
		}
	}
}
