package monitor

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/store"
)

// sampleRun is a valid run of server, started at start, with a step, a finding and a
// transcript, so that every field crosses the spool and the store.
func sampleRun(server int64, start time.Time) store.RunRecord {
	code := int64(-32601)
	return store.RunRecord{
		ID: store.NewRunID(start), ServerID: server, Region: "eu", Worker: "w", Start: start,
		Duration: 42 * time.Millisecond, Outcome: store.OutcomeDegraded, ProtocolVersion: "2025-06-18",
		ServerName: "fixture", ServerVersion: "1.0.0", ErrorCode: &code, Error: "1 check fails",
		Steps:      []store.StepRecord{{Name: "initialize", Method: "initialize", Outcome: "ok", Latency: 3 * time.Millisecond}},
		Findings:   []store.FindingRecord{{CheckID: "lifecycle.ping", Status: "fail", Severity: "error", Message: "bad ping"}},
		Transcript: []byte(`{"mcpwatchRecording":1}` + "\n"),
	}
}

func sampleRuns(n int) []store.RunRecord {
	start := time.Now().Add(-time.Minute)
	out := make([]store.RunRecord, n)
	for i := range out {
		out[i] = sampleRun(int64(i+1), start.Add(time.Duration(i)*time.Millisecond))
	}
	return out
}

func ids(runs []store.RunRecord) []store.RunID {
	out := make([]store.RunID, len(runs))
	for i, r := range runs {
		out[i] = r.ID
	}
	return out
}

func TestSpoolKeepsRunsInOrderAcrossReopening(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "w.spool")
	sp, torn, err := openSpool(path)
	if err != nil || torn != 0 {
		t.Fatalf("open: %v (torn %d)", err, torn)
	}
	runs := sampleRuns(7)
	if _, err := sp.append(runs[:3], 0); err != nil {
		t.Fatal(err)
	}
	if _, err := sp.append(runs[3:], 0); err != nil {
		t.Fatal(err)
	}
	got, n, end, err := sp.read(2, 1<<20)
	if err != nil || n != 2 || len(got) != 2 {
		t.Fatalf("read 2: %d runs, n %d, %v", len(got), n, err)
	}
	if got[0].ID != runs[0].ID || got[1].ID != runs[1].ID {
		t.Fatalf("read %v, want the first two %v", ids(got), ids(runs[:2]))
	}
	if err := sp.consume(n, end); err != nil {
		t.Fatal(err)
	}
	if err := sp.close(); err != nil {
		t.Fatal(err)
	}

	// A restart: the two consumed stay consumed, the five others come back in order.
	sp, torn, err = openSpool(path)
	if err != nil || torn != 0 {
		t.Fatalf("reopen: %v (torn %d)", err, torn)
	}
	defer sp.close()
	if sp.count != 5 {
		t.Fatalf("%d runs after reopening, want 5", sp.count)
	}
	got, n, end, err = sp.read(100, 1<<20)
	if err != nil || n != 5 {
		t.Fatalf("read rest: n %d, %v", n, err)
	}
	for i, r := range got {
		want := runs[2+i]
		if r.ID != want.ID || !r.Start.Equal(want.Start) || *r.ErrorCode != *want.ErrorCode || string(r.Transcript) != string(want.Transcript) ||
			len(r.Steps) != 1 || r.Findings[0].Message != "bad ping" {
			t.Errorf("run %d came back as %+v, want %+v", i, r, want)
		}
	}
	if err := sp.consume(n, end); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(path); info.Size() != spoolHeaderSize {
		t.Errorf("an emptied spool is %d bytes, want cut back to its %d-byte header", info.Size(), spoolHeaderSize)
	}
}

func TestSpoolCutsOffATornLastRecord(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "w.spool")
	sp, _, err := openSpool(path)
	if err != nil {
		t.Fatal(err)
	}
	runs := sampleRuns(3)
	if _, err := sp.append(runs, 0); err != nil {
		t.Fatal(err)
	}
	whole := sp.size()
	// A crash in the middle of the next append: half a record at the end.
	next, err := encodeRecord(sampleRun(9, time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sp.f.WriteAt(next[:len(next)/2], whole); err != nil {
		t.Fatal(err)
	}
	sp.close()

	sp, torn, err := openSpool(path)
	if err != nil {
		t.Fatal(err)
	}
	defer sp.close()
	if torn != int64(len(next)/2) || sp.count != 3 || sp.size() != whole {
		t.Fatalf("torn %d, count %d, size %d; want %d, 3, %d", torn, sp.count, sp.size(), len(next)/2, whole)
	}
	// A corrupted byte inside a record ends the spool there too.
	if _, err := sp.f.WriteAt([]byte{'#'}, whole-3); err != nil {
		t.Fatal(err)
	}
	sp.close()
	sp, torn, err = openSpool(path)
	if err != nil {
		t.Fatal(err)
	}
	defer sp.close()
	if sp.count != 2 || torn == 0 {
		t.Errorf("after corrupting the last record: count %d, torn %d; want 2 and the rest cut", sp.count, torn)
	}
}

func TestSpoolBelongsToOneProcessAndHasALimit(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "w.spool")
	sp, _, err := openSpool(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := openSpool(path); !errors.Is(err, ErrSpoolBusy) {
		t.Errorf("second open of a held spool: %v, want ErrSpoolBusy", err)
	}
	run := sampleRuns(1)
	rec, _ := encodeRecord(run[0])
	limit := sp.size() + int64(len(rec))
	if _, err := sp.append(run, limit); err != nil {
		t.Fatalf("append within the limit: %v", err)
	}
	if _, err := sp.append(run, limit); !errors.Is(err, ErrSpoolFull) {
		t.Errorf("append past the limit: %v, want ErrSpoolFull", err)
	}
	if sp.count != 1 || sp.size() != limit {
		t.Errorf("a refused append changed the spool: count %d, size %d", sp.count, sp.size())
	}
	sp.close()
	if sp, _, err = openSpool(path); err != nil {
		t.Fatalf("open after the holder closed it: %v", err)
	}
	sp.close()
	if err := os.WriteFile(path, []byte("not a spool file at all"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := openSpool(path); err == nil {
		t.Error("a foreign file opened as a spool")
	}
}
