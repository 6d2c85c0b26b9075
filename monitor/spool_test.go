package monitor

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
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

// testIdentity stands for the identity of the database (store.Identity) in tests that do
// not write to one, or write to one only.
const testIdentity = "7000000000000000001/mcpwatch/public"

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
	sp, found, err := openSpool(path, testIdentity)
	if err != nil || found.torn != 0 {
		t.Fatalf("open: %v (torn %d)", err, found.torn)
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
	sp, found, err = openSpool(path, testIdentity)
	if err != nil || found.torn != 0 {
		t.Fatalf("reopen: %v (torn %d)", err, found.torn)
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
	sp, _, err := openSpool(path, testIdentity)
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

	sp, found, err := openSpool(path, testIdentity)
	if err != nil {
		t.Fatal(err)
	}
	defer sp.close()
	if found.torn != int64(len(next)/2) || sp.count != 3 || sp.size() != whole || len(found.corrupt) != 0 {
		t.Fatalf("torn %d, count %d, size %d, corrupt %v; want %d, 3, %d, none", found.torn, sp.count, sp.size(), found.corrupt, len(next)/2, whole)
	}
	// A corrupted byte inside the last record, with nothing after it, is a torn write too.
	if _, err := sp.f.WriteAt([]byte{'#'}, whole-3); err != nil {
		t.Fatal(err)
	}
	sp.close()
	sp, found, err = openSpool(path, testIdentity)
	if err != nil {
		t.Fatal(err)
	}
	defer sp.close()
	if sp.count != 2 || found.torn == 0 || len(found.corrupt) != 0 {
		t.Errorf("after corrupting the last record: count %d, torn %d, corrupt %v; want 2, the rest cut, none skipped", sp.count, found.torn, found.corrupt)
	}
}

// A damaged record in the middle of a spool costs that record only: the ones after it are
// found again (by the length it declares, or, when its length is the damaged part, by
// searching for the next whole record) and read in order.
func TestSpoolSkipsACorruptRecordAndKeepsTheRest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// at is the byte damaged, counted from the start of the record.
		at func(rec []byte) int
	}{
		{"payload", func(rec []byte) int { return len(rec) / 2 }},
		{"checksum", func([]byte) int { return 5 }},
		{"length", func([]byte) int { return 1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "w.spool")
			sp, _, err := openSpool(path, testIdentity)
			if err != nil {
				t.Fatal(err)
			}
			runs := sampleRuns(10)
			ends, err := sp.append(runs, 0)
			if err != nil {
				t.Fatal(err)
			}
			// Damage the fourth record.
			start := ends[2]
			rec, _ := encodeRecord(runs[3])
			if _, err := sp.f.WriteAt([]byte{0xff}, start+int64(tc.at(rec))); err != nil {
				t.Fatal(err)
			}
			sp.close()

			sp, found, err := openSpool(path, testIdentity)
			if err != nil {
				t.Fatal(err)
			}
			defer sp.close()
			if found.torn != 0 || len(found.corrupt) != 1 || found.corrupt[0] != (corruptSpan{off: start, bytes: ends[3] - start}) {
				t.Errorf("torn %d, corrupt %v; want nothing cut and one record skipped at %d (%d bytes)", found.torn, found.corrupt, start, ends[3]-start)
			}
			got, n, end, err := sp.read(100, 1<<30)
			if err != nil {
				t.Fatal(err)
			}
			want := append(slices.Clone(runs[:3]), runs[4:]...)
			if !slices.Equal(ids(got), ids(want)) || n != 9 || sp.count != 9 {
				t.Fatalf("read %d runs (n %d, count %d): %v; want the 9 others %v", len(got), n, sp.count, ids(got), ids(want))
			}
			// The damaged record does not outlive the others: consumed, the file is emptied.
			if err := sp.consume(n, end); err != nil {
				t.Fatal(err)
			}
			if sp.size() != spoolHeaderSize {
				t.Errorf("spool is %d bytes after consuming every run, want its header only", sp.size())
			}
		})
	}
}

func TestSpoolBelongsToOneProcessAndHasALimit(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "w.spool")
	sp, _, err := openSpool(path, testIdentity)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := openSpool(path, testIdentity); !errors.Is(err, ErrSpoolBusy) {
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
	if sp, _, err = openSpool(path, testIdentity); err != nil {
		t.Fatalf("open after the holder closed it: %v", err)
	}
	sp.close()
	if err := os.WriteFile(path, []byte("not a spool file at all"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := openSpool(path, testIdentity); err == nil {
		t.Error("a foreign file opened as a spool")
	}
}

// Runs name their servers by ids of one database: a spool file of another database, or of a
// version that did not record its database, is refused and left exactly as it was.
func TestSpoolOfAnotherDatabaseIsRefusedAndLeftUnchanged(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	other := filepath.Join(dir, "other.spool")
	sp, _, err := openSpool(other, "7000000000000000002/mcpwatch/public")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sp.append(sampleRuns(2), 0); err != nil {
		t.Fatal(err)
	}
	sp.close()
	// A spool of the format before: the 16-byte header, then a record.
	legacy := filepath.Join(dir, "legacy.spool")
	rec, _ := encodeRecord(sampleRun(1, time.Now()))
	old := append([]byte(spoolMagicLegacy+"\x00\x00\x00\x00\x00\x00\x00\x10"), rec...)
	if err := os.WriteFile(legacy, old, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{other, legacy} {
		before, _ := os.ReadFile(path)
		if _, _, err := openSpool(path, testIdentity); !errors.Is(err, ErrSpoolForeign) {
			t.Errorf("%s opened by another database: %v, want ErrSpoolForeign", filepath.Base(path), err)
		}
		if after, _ := os.ReadFile(path); string(after) != string(before) {
			t.Errorf("%s changed by the refused open", filepath.Base(path))
		}
	}
	if sp, _, err := openSpool(other, "7000000000000000002/mcpwatch/public"); err != nil || sp.count != 2 {
		t.Errorf("its own database reopens it: %v", err)
	} else {
		sp.close()
	}
}

// A record damaged after the spool was opened (a bad sector under a long outage) costs that
// record only when it is read, as one damaged before the open does.
func TestSpoolReadSkipsARecordDamagedSinceItWasWritten(t *testing.T) {
	t.Parallel()
	for _, damaged := range []int{1, 4} { // one in the middle, the last one
		sp, _, err := openSpool(filepath.Join(t.TempDir(), "w.spool"), testIdentity)
		if err != nil {
			t.Fatal(err)
		}
		runs := sampleRuns(5)
		ends, err := sp.append(runs, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sp.f.WriteAt([]byte("#"), ends[damaged]-3); err != nil {
			t.Fatal(err)
		}
		got, n, end, err := sp.read(100, 1<<30)
		if err != nil {
			t.Fatalf("record %d damaged: read: %v", damaged, err)
		}
		want := slices.Delete(slices.Clone(runs), damaged, damaged+1)
		if !slices.Equal(ids(got), ids(want)) || n != 4 || sp.count != 4 {
			t.Errorf("record %d damaged: read %v (n %d, count %d), want the 4 others %v", damaged, ids(got), n, sp.count, ids(want))
		}
		if d := sp.takeDamaged(); len(d) != 1 || d[0].off != ends[damaged-1] {
			t.Errorf("record %d damaged: reported %v", damaged, d)
		}
		if err := sp.consume(n, end); err != nil || sp.size() != spoolHeaderSize {
			t.Errorf("record %d damaged: consuming the rest: %v, %d bytes left", damaged, err, sp.size())
		}
		sp.close()
	}
}
