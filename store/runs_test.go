package store

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestWriteRunsStoresRunsStepsFindingsAndTranscripts(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	srv := mustUpsert(t, ctx, s, httpServer("a"))
	start := time.Now().UTC().Truncate(time.Microsecond)
	up := sampleRun(srv.ID, "eu", start, OutcomeUp, 120*time.Millisecond)
	up.AnswerTime = 15 * time.Millisecond // read back as written; the down run's 0 as 0
	down := sampleRun(srv.ID, "us", start.Add(time.Second), OutcomeDown, 5*time.Second)
	down.Transcript = nil

	n, err := s.WriteRuns(ctx, []RunRecord{up, down})
	if err != nil || n != 2 {
		t.Fatalf("WriteRuns = %d, %v; want 2", n, err)
	}
	for _, want := range []RunRecord{up, down} {
		got, err := s.Run(ctx, want.ID)
		if err != nil {
			t.Fatalf("Run(%s): %v", want.ID, err)
		}
		if !got.Start.Equal(want.Start) {
			t.Errorf("start %v, want %v", got.Start, want.Start)
		}
		got.Start = want.Start
		want.Transcript = nil // read separately
		if !reflect.DeepEqual(got, want) {
			t.Errorf("run read back differs:\n got %+v\nwant %+v", got, want)
		}
	}
	transcript, err := s.Transcript(ctx, up.ID)
	if err != nil || !bytes.Equal(transcript, up.Transcript) {
		t.Errorf("Transcript = %q, %v; want %q", transcript, err, up.Transcript)
	}
	if _, err := s.Transcript(ctx, down.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("Transcript of a run without one: %v, want ErrNotFound", err)
	}
	if _, err := s.Run(ctx, NewRunID(start)); !errors.Is(err, ErrNotFound) {
		t.Errorf("Run of an unknown id: %v, want ErrNotFound", err)
	}

	recent, err := s.Runs(ctx, RunQuery{ServerID: srv.ID})
	if err != nil || len(recent) != 2 || recent[0].ID != down.ID {
		t.Fatalf("Runs = %d runs (first %v), %v; want both, newest first", len(recent), recent, err)
	}
	if recent, _ := s.Runs(ctx, RunQuery{ServerID: srv.ID, Region: "eu"}); len(recent) != 1 || recent[0].ID != up.ID {
		t.Errorf("Runs in eu = %+v, want the up run", recent)
	}
	if recent, _ := s.Runs(ctx, RunQuery{ServerID: srv.ID, Before: down.Start}); len(recent) != 1 || recent[0].ID != up.ID {
		t.Errorf("Runs before the down run = %+v, want the up run", recent)
	}
}

func TestWriteRunsRetriedBatchIsStoredOnce(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	start := time.Now().UTC()
	var batch []RunRecord
	for i := range 10 {
		batch = append(batch, sampleRun(1, "eu", start.Add(time.Duration(i)*time.Second), OutcomeUp, 50*time.Millisecond))
	}
	if n, err := s.WriteRuns(ctx, batch[:6]); err != nil || n != 6 {
		t.Fatalf("first write = %d, %v; want 6", n, err)
	}
	// The retry holds the first six again (its outcome was unknown), a duplicate within the
	// batch, and four new runs.
	retry := append(append([]RunRecord{}, batch...), batch[7])
	if n, err := s.WriteRuns(ctx, retry); err != nil || n != 4 {
		t.Fatalf("retried write = %d, %v; want 4 new", n, err)
	}
	for query, want := range map[string]int{
		`SELECT count(*) FROM runs`:             10,
		`SELECT count(*) FROM run_steps`:        10 * 3,
		`SELECT count(*) FROM run_findings`:     10 * 2,
		`SELECT count(*) FROM run_finding_sets`: 10,
		`SELECT count(*) FROM run_transcripts`:  10,
		`SELECT sum(runs) FROM rollups`:         10,
	} {
		if got := count(t, ctx, s, query); got != want {
			t.Errorf("%s = %d, want %d", query, got, want)
		}
	}
}

func TestWriteRunsStoresHostileTextFromAServer(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	r := sampleRun(1, "eu", time.Now(), OutcomeDegraded, time.Second)
	r.ServerName = "evil\x00name"
	r.ServerVersion = "\xff\xfe" + strings.Repeat("v", 10_000)
	r.Findings[0].Message = strings.Repeat("é", 10_000)
	r.Steps[0].Method = "a\x00b"
	if _, err := s.WriteRuns(ctx, []RunRecord{r}); err != nil {
		t.Fatalf("WriteRuns: %v", err)
	}
	got, err := s.Run(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.ServerName != "evil\uFFFDname" || len(got.ServerVersion) > maxShortText ||
		len(got.Findings[0].Message) > maxLongText || got.Steps[0].Method != "a\uFFFDb" {
		t.Errorf("stored text not cleaned and bounded: name %q, version %d bytes, message %d bytes, method %q",
			got.ServerName, len(got.ServerVersion), len(got.Findings[0].Message), got.Steps[0].Method)
	}
	if r.ServerName != "evil\x00name" {
		t.Error("WriteRuns changed the caller's record")
	}
}

// A batch's preparation remembers the shapes and messages it has seen cleaned, and takes a
// run that equals them as clean: a hostile twin of a clean run, in either order, must still
// be cleaned, and neither run's record changed.
func TestWriteRunsCleansAHostileRunBesideItsCleanTwin(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		spoil  func(r *RunRecord)
		stored func(got RunRecord) bool
	}{
		{"step name", func(r *RunRecord) { r.Steps[1].Name = "ping\x00" },
			func(got RunRecord) bool { return got.Steps[1].Name == "ping\uFFFD" }},
		{"check id", func(r *RunRecord) { r.Findings[1].CheckID = "\xffcheck" },
			func(got RunRecord) bool { return got.Findings[1].CheckID == "\uFFFDcheck" }},
		{"message", func(r *RunRecord) { r.Findings[0].Message += "\x00" },
			func(got RunRecord) bool { return strings.HasSuffix(got.Findings[0].Message, "\uFFFD") }},
	}
	for _, tt := range tests {
		for _, hostileFirst := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/hostile first %v", tt.name, hostileFirst), func(t *testing.T) {
				t.Parallel()
				s, ctx := newTestStore(t)
				start := time.Now().UTC().Add(-time.Minute)
				// Runs are prepared in id order, which is their start's: two clean runs make
				// the memo find one, and the hostile run comes before or after them.
				clean := sampleRun(1, "eu", start, OutcomeDegraded, time.Second)
				again := sampleRun(3, "eu", start.Add(time.Second), OutcomeDegraded, time.Second)
				at := start.Add(2 * time.Second)
				if hostileFirst {
					at = start.Add(-time.Second)
				}
				hostile := sampleRun(2, "eu", at, OutcomeDegraded, time.Second)
				hostile.Steps, hostile.Findings = slices.Clone(hostile.Steps), slices.Clone(hostile.Findings)
				tt.spoil(&hostile)
				batch := []RunRecord{clean, again, hostile}
				steps, findings := slices.Clone(hostile.Steps), slices.Clone(hostile.Findings)
				if _, err := s.WriteRuns(ctx, batch); err != nil {
					t.Fatalf("WriteRuns: %v", err)
				}
				got, err := s.Run(ctx, hostile.ID)
				if err != nil {
					t.Fatal(err)
				}
				if !tt.stored(got) {
					t.Errorf("hostile run stored uncleaned: steps %+v findings %+v", got.Steps, got.Findings)
				}
				twin, err := s.Run(ctx, clean.ID)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.EqualFunc(twin.Steps, clean.Steps, sameStep) || !slices.Equal(twin.Findings, clean.Findings) {
					t.Errorf("clean run read back steps %+v findings %+v, want %+v %+v", twin.Steps, twin.Findings, clean.Steps, clean.Findings)
				}
				if !slices.EqualFunc(hostile.Steps, steps, sameStep) || !slices.Equal(hostile.Findings, findings) {
					t.Error("WriteRuns changed the caller's record")
				}
			})
		}
	}
}

func TestWriteRunsRejectsAnInvalidRunWithoutWriting(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	good := sampleRun(1, "eu", time.Now(), OutcomeUp, time.Second)
	tests := []struct {
		name string
		edit func(*RunRecord)
	}{
		{"no id", func(r *RunRecord) { r.ID = RunID{} }},
		{"no server", func(r *RunRecord) { r.ServerID = 0 }},
		{"no region", func(r *RunRecord) { r.Region = "" }},
		{"no start", func(r *RunRecord) { r.Start = time.Time{} }},
		{"start in the future", func(r *RunRecord) { r.Start = time.Now().Add(48 * time.Hour) }},
		{"negative duration", func(r *RunRecord) { r.Duration = -1 }},
		{"negative answer time", func(r *RunRecord) { r.AnswerTime = -1 }},
		{"unknown outcome", func(r *RunRecord) { r.Outcome = "ok" }},
		{"finding without check id", func(r *RunRecord) { r.Findings = []FindingRecord{{Status: "pass"}} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bad := sampleRun(1, "eu", time.Now(), OutcomeUp, time.Second)
			tt.edit(&bad)
			if _, err := s.WriteRuns(ctx, []RunRecord{good, bad}); !errors.Is(err, ErrInvalidRun) {
				t.Errorf("WriteRuns: %v, want ErrInvalidRun", err)
			}
		})
	}
	if n := count(t, ctx, s, `SELECT count(*) FROM runs`); n != 0 {
		t.Errorf("%d runs stored from rejected batches, want 0", n)
	}
}

func TestWriteRunsCreatesAMissingPartitionEvenAfterAnotherProcessDroppedIt(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	old := time.Date(2020, 2, 29, 23, 59, 59, 0, time.UTC)
	if _, err := s.WriteRuns(ctx, []RunRecord{sampleRun(1, "eu", old, OutcomeUp, time.Second)}); err != nil {
		t.Fatalf("WriteRuns on a day without partitions: %v", err)
	}
	// Another process's retention drops the day behind this store's back.
	other := New(s.Pool())
	if dropped, err := other.DropPartitionsBefore(ctx, old.Add(24*time.Hour)); err != nil || len(dropped) != 3 {
		t.Fatalf("DropPartitionsBefore = %v, %v; want the day's 3 partitions", dropped, err)
	}
	if _, err := s.WriteRuns(ctx, []RunRecord{sampleRun(1, "eu", old, OutcomeUp, time.Second)}); err != nil {
		t.Fatalf("WriteRuns after the partition went: %v", err)
	}
	if n := count(t, ctx, s, `SELECT count(*) FROM runs`); n != 1 {
		t.Errorf("%d runs, want 1", n)
	}
}

func TestWriteRunsSkipsAnOversizedTranscriptButKeepsTheRun(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	r := sampleRun(1, "eu", time.Now(), OutcomeUp, time.Second)
	r.Transcript = bytes.Repeat([]byte("x"), MaxTranscriptBytes+1)
	if _, err := s.WriteRuns(ctx, []RunRecord{r}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(ctx, r.ID); err != nil {
		t.Errorf("Run: %v", err)
	}
	if _, err := s.Transcript(ctx, r.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("Transcript: %v, want ErrNotFound", err)
	}
}

func TestRunIDIsAVersion7UUIDThatRoundTrips(t *testing.T) {
	t.Parallel()
	start := time.UnixMilli(1_700_000_000_123)
	a, b := NewRunID(start), NewRunID(start)
	if a == b {
		t.Fatal("two ids for one start are equal")
	}
	s := a.String()
	if len(s) != 36 || s[14] != '7' || !strings.ContainsRune("89ab", rune(s[19])) {
		t.Errorf("id %s is not a version 7 RFC 9562 UUID", s)
	}
	if !strings.HasPrefix(s, "018bcfe5-687b") {
		t.Errorf("id %s does not start with the start time in milliseconds (018bcfe5-687b)", s)
	}
	parsed, err := ParseRunID(s)
	if err != nil || parsed != a {
		t.Errorf("ParseRunID(%s) = %v, %v", s, parsed, err)
	}
	for _, bad := range []string{"", "not-a-uuid", strings.Replace(s, "-", "x", 1), s[:35] + "g"} {
		if _, err := ParseRunID(bad); err == nil {
			t.Errorf("ParseRunID(%q) succeeded", bad)
		}
	}
	if later := NewRunID(start.Add(time.Millisecond)); later.String() <= s {
		t.Errorf("id of a later start %s does not sort after %s", later, s)
	}
}

// Two workers that probed the same slot (one of them while the database was away) write
// runs with the slot's id and different starts, possibly at the same moment: one is stored.
func TestWriteRunsStoresOneRunPerSlotWhateverItsStart(t *testing.T) {
	t.Parallel()
	s, ctx := newTestStore(t)
	due := time.Now().UTC().Truncate(time.Second)
	var wg sync.WaitGroup
	news := make([]int, 8)
	for i := range news {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := sampleRun(1, "eu", due.Add(time.Duration(i)*time.Millisecond), OutcomeUp, time.Millisecond)
			r.ID = SlotRunID(1, "eu", due)
			n, err := s.WriteRuns(ctx, []RunRecord{r})
			if err != nil {
				t.Error(err)
			}
			news[i] = n
		}()
	}
	wg.Wait()
	total := 0
	for _, n := range news {
		total += n
	}
	if total != 1 {
		t.Errorf("WriteRuns counted %d new runs for one slot, want 1", total)
	}
	for query, want := range map[string]int{
		`SELECT count(*) FROM runs`:             1,
		`SELECT count(*) FROM run_finding_sets`: 1,
		`SELECT sum(runs) FROM rollups`:         1,
	} {
		if got := count(t, ctx, s, query); got != want {
			t.Errorf("%s = %d, want %d", query, got, want)
		}
	}
}

// The search for a slot's id stored with another start is bounded by the days a run of the
// slot can start on (idStartSkew): probes of one slot that start days apart, in either
// order, are still one run.
func TestWriteRunsStoresOneRunPerSlotWhenItsProbesStartDaysApart(t *testing.T) {
	t.Parallel()
	due := time.Now().UTC().Add(-3 * day).Truncate(time.Second)
	tests := []struct {
		name          string
		first, second time.Duration // after due
	}{
		{"early start first", time.Millisecond, 50 * time.Hour},
		{"late start first", 50 * time.Hour, time.Millisecond},
		{"start before due by the clock's skew", -time.Hour, 26 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, ctx := newTestStore(t)
			var news []int
			for _, after := range []time.Duration{tt.first, tt.second} {
				r := sampleRun(1, "eu", due.Add(after), OutcomeUp, time.Millisecond)
				r.ID = SlotRunID(1, "eu", due)
				n, err := s.WriteRuns(ctx, []RunRecord{r})
				if err != nil {
					t.Fatal(err)
				}
				news = append(news, n)
			}
			if !slices.Equal(news, []int{1, 0}) {
				t.Errorf("WriteRuns counted %v new runs, want [1 0]", news)
			}
			if got := count(t, ctx, s, `SELECT count(*) FROM runs`); got != 1 {
				t.Errorf("%d runs stored for one slot, want 1", got)
			}
		})
	}
}

func TestSlotRunIDNamesOneSlot(t *testing.T) {
	t.Parallel()
	due := time.UnixMilli(1_700_000_000_123).Add(456 * time.Microsecond)
	id := SlotRunID(7, "eu", due)
	for _, tc := range []struct {
		name  string
		other RunID
		same  bool
	}{
		{"the same slot read back from the database (microseconds)", SlotRunID(7, "eu", due.Add(789*time.Nanosecond).Truncate(time.Microsecond)), true},
		{"another server", SlotRunID(8, "eu", due), false},
		{"another region", SlotRunID(7, "us", due), false},
		{"another slot", SlotRunID(7, "eu", due.Add(time.Microsecond)), false},
	} {
		if got := tc.other == id; got != tc.same {
			t.Errorf("%s: same id = %v, want %v", tc.name, got, tc.same)
		}
	}
	s := id.String()
	if s[14] != '8' || !strings.ContainsRune("89ab", rune(s[19])) || !strings.HasPrefix(s, "018bcfe5-687b") {
		t.Errorf("slot id %s is not a version 8 RFC 9562 UUID led by the due time in milliseconds", s)
	}
}
