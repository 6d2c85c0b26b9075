package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mcpwatch/mcpwatch/internal/textclip"
)

// Outcomes of a run.
const (
	OutcomeUp       = "up"       // every MUST check passed
	OutcomeDegraded = "degraded" // the server answered, but some check failed
	OutcomeDown     = "down"     // no successful initialize (or discover)
)

// Bounds on what one run may carry; the probe bounds these already, the store again so that
// no caller can make one batch unbounded. Steps and findings beyond them are not stored.
const (
	MaxStepsPerRun    = 1000
	MaxFindingsPerRun = 1000
)

// RunRecord is one probe run of one server from one region, as written and as read back.
type RunRecord struct {
	// ID is made by the writer before the first attempt to write: SlotRunID for the run of
	// a schedule slot, NewRunID otherwise. One run is stored per id.
	ID       RunID
	ServerID int64
	Region   string
	Worker   string
	// Start is stored to the microsecond.
	Start time.Time
	// Duration is the whole probe: every request it made, the rule probes included.
	Duration time.Duration
	// AnswerTime is how long the server took to answer what a client asks first: the main
	// connection's handshake (initialize, or server/discover for a stateless server) and
	// the first page of tools/list. 0 when unknown: the run never got that far, or was
	// written before answer times were kept. Latency figures use it (see Latency).
	AnswerTime time.Duration
	Outcome    string
	// ProtocolVersion is the negotiated revision ("" when initialize failed).
	ProtocolVersion string
	ServerName      string
	ServerVersion   string
	// ErrorCode is the exact JSON-RPC error code that made the run fail, if one did.
	ErrorCode       *int64
	HTTPStatus      *int
	ExitStatus      *int
	ToolCount       *int
	ToolFingerprint string
	// Error says in words why the run is down or degraded.
	Error    string
	Steps    []StepRecord
	Findings []FindingRecord
	// Transcript is opaque to the store (the monitor's encoding of the probe transcript); it
	// is stored gzip-compressed. Read it back with Store.Transcript.
	Transcript []byte
}

// Latency is the run's figure in the latency rollups, to the microsecond as stored: its
// answer time when known, else its whole duration (runs written before answer times were
// kept, and runs that never got an answer, which count only as down).
func (r *RunRecord) Latency() time.Duration {
	if a := r.AnswerTime.Truncate(time.Microsecond); a > 0 {
		return a
	}
	return r.Duration.Truncate(time.Microsecond)
}

// StepRecord is one request or notification of a run.
type StepRecord struct {
	Name       string
	Method     string
	Outcome    string
	Latency    time.Duration
	ErrorCode  *int64
	HTTPStatus *int
}

// FindingRecord is one check's verdict in a run.
type FindingRecord struct {
	CheckID  string
	Status   string
	Severity string
	Message  string
}

// Validate reports what makes a run unstorable, wrapping ErrInvalidRun. Such a run would fail
// every retry, so a buffering writer should drop it rather than keep it.
func (r *RunRecord) Validate() error {
	bad := func(what string) error { return fmt.Errorf("%w %s: %s", ErrInvalidRun, r.ID, what) }
	switch {
	case r.ID.IsZero():
		return bad("no id")
	case r.ServerID <= 0:
		return bad("no server id")
	case r.Region == "":
		return bad("no region")
	case r.Start.IsZero():
		return bad("no start time")
	case r.Start.After(time.Now().Add(day)):
		// A skewed clock would otherwise leave partitions that retention never reaches.
		return bad(fmt.Sprintf("start %v is in the future", r.Start))
	case r.Duration < 0:
		return bad("negative duration")
	case r.AnswerTime < 0:
		return bad("negative answer time")
	case r.Outcome != OutcomeUp && r.Outcome != OutcomeDegraded && r.Outcome != OutcomeDown:
		return bad(fmt.Sprintf("outcome %q is not up, degraded or down", r.Outcome))
	}
	for _, f := range r.Findings {
		if f.CheckID == "" || f.Status == "" {
			return bad("a finding without check id or status")
		}
	}
	return nil
}

// runBatch is a batch ready for the database: validated, de-duplicated, sorted by id, text
// cleaned and bounded, transcripts compressed, content keys computed.
type runBatch struct {
	runs []RunRecord
	keys []runKeys // by index into runs
	days []int64   // the UTC days the runs started on
}

// runKeys are the keys of what a run shares with others (see content_keys.go).
type runKeys struct {
	steps, findings int64   // shape keys, when the run has steps, findings
	stepOrder       []int   // the steps in their shape's order (stepOrder)
	stepPositions   []int16 // each step's position in its shape, from 1
	messages        []int64 // one per finding
	// Per finding, the key of its shared message or the message itself (queueShared).
	messageRefs []*int64
	ownMessages []*string
	transcript  []byte // SHA-256 of the raw transcript, nil where none is stored
	zip         []byte // the compressed transcript
}

func (s *Store) prepare(runs []RunRecord) (*runBatch, error) {
	b := &runBatch{}
	seen := make(map[RunID]bool, len(runs))
	for i := range runs {
		if err := runs[i].Validate(); err != nil {
			return nil, err
		}
		if !seen[runs[i].ID] {
			seen[runs[i].ID] = true
			b.runs = append(b.runs, runs[i]) // a copy: the caller's records stay as they were
		}
	}
	// Inserting in id order keeps two writers of overlapping batches (a retry racing the
	// attempt it repeats) from deadlocking on each other's unique index entries.
	slices.SortFunc(b.runs, func(x, y RunRecord) int { return bytes.Compare(x.ID[:], y.ID[:]) })
	b.keys = make([]runKeys, len(b.runs))
	if err := s.cleanAndKey(b); err != nil {
		return nil, err
	}
	daySet := map[int64]bool{}
	for i := range b.runs {
		if day := dayOf(b.runs[i].Start); !daySet[day] {
			daySet[day] = true
			b.days = append(b.days, day)
		}
	}
	return b, nil
}

// prepareChunk is how many runs one goroutine of cleanAndKey takes at a time: enough that
// its memo of keys (keyMemo) sees a steady fleet's repeats.
const prepareChunk = 64

// cleanAndKey cleans and bounds the text of every run of b, computes its keys and compresses
// its transcript. Runs are independent of each other, so that a batch is split between as
// many goroutines as the process may run at once: the batch waits on this before its
// transaction starts, with the database idle.
func (s *Store) cleanAndKey(b *runBatch) error {
	workers := min(runtime.GOMAXPROCS(0), (len(b.runs)+prepareChunk-1)/prepareChunk)
	if workers <= 1 {
		return s.cleanAndKeyRange(b, 0, len(b.runs), newKeyMemo())
	}
	var next atomic.Int64
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			memo := newKeyMemo()
			for {
				from := int(next.Add(prepareChunk)) - prepareChunk
				if from >= len(b.runs) {
					return
				}
				if err := s.cleanAndKeyRange(b, from, min(from+prepareChunk, len(b.runs)), memo); err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// cleanAndKeyRange is cleanAndKey for the runs [from, to) of b.
func (s *Store) cleanAndKeyRange(b *runBatch, from, to int, memo *keyMemo) error {
	for i := from; i < to; i++ {
		r := &b.runs[i]
		r.Start = r.Start.Truncate(time.Microsecond)
		r.Region = textclip.Storable(r.Region, maxShortText)
		r.Worker = textclip.Storable(r.Worker, maxShortText)
		r.ProtocolVersion = textclip.Storable(r.ProtocolVersion, maxShortText)
		r.ServerName = textclip.Storable(r.ServerName, maxShortText)
		r.ServerVersion = textclip.Storable(r.ServerVersion, maxShortText)
		r.ToolFingerprint = textclip.Storable(r.ToolFingerprint, maxShortText)
		r.Error = textclip.Storable(r.Error, maxLongText)
		// The records are the caller's: a run's steps and findings are copied before
		// cleaning changes them, which only a run the memo does not know can need.
		var k runKeys
		r.Steps = r.Steps[:min(len(r.Steps), MaxStepsPerRun)]
		if len(r.Steps) > 0 {
			seen := memo.knownSteps(r.Steps)
			if seen == nil {
				r.Steps = slices.Clone(r.Steps)
				for j := range r.Steps {
					st := &r.Steps[j]
					st.Name = textclip.Storable(st.Name, maxShortText)
					st.Method = textclip.Storable(st.Method, maxShortText)
					st.Outcome = textclip.Storable(st.Outcome, maxShortText)
				}
				seen = memo.keySteps(r.Steps)
			}
			k.stepOrder, k.stepPositions, k.steps = seen.order, seen.positions, seen.key
		}
		r.Findings = r.Findings[:min(len(r.Findings), MaxFindingsPerRun)]
		if len(r.Findings) > 0 {
			seen := memo.knownFindings(r.Findings)
			copied := seen == nil
			if seen == nil {
				r.Findings = slices.Clone(r.Findings)
				for j := range r.Findings {
					f := &r.Findings[j]
					f.CheckID = textclip.Storable(f.CheckID, maxShortText)
					f.Status = textclip.Storable(f.Status, maxShortText)
					f.Severity = textclip.Storable(f.Severity, maxShortText)
				}
				seen = memo.keyFindings(r.Findings)
			}
			k.findings = seen.key
			r.Findings, k.messages = memo.messageKeys(seen, r.Findings, copied)
		}
		if len(r.Transcript) > 0 && len(r.Transcript) <= MaxTranscriptBytes {
			sum := sha256.Sum256(r.Transcript)
			k.transcript = sum[:]
			var err error
			if k.zip, err = s.compress(r.Transcript); err != nil {
				return err
			}
		}
		b.keys[i] = k
	}
	return nil
}

// WriteRuns stores runs with their steps, findings and transcripts and updates the hourly
// rollups, all in one transaction, and returns how many runs were new. A run whose id is
// stored already, whatever its start, is skipped whole, so a batch retried after an unknown
// outcome (a timeout on commit, say) is never counted twice, nor a slot probed by two workers
// (SlotRunID).
func (s *Store) WriteRuns(ctx context.Context, runs []RunRecord) (int, error) {
	if len(runs) == 0 {
		return 0, nil
	}
	b, err := s.prepare(runs)
	if err != nil {
		return 0, err
	}
	if err := s.ensureDays(ctx, b.days); err != nil {
		return 0, err
	}
	n, err := s.writeBatch(ctx, b)
	if isNoPartition(err) {
		// Another process dropped a partition this one believed in (retention on a day
		// a late run belongs to): forget what we knew, create, and try once more.
		s.forgetDays()
		if err := s.ensureDays(ctx, b.days); err != nil {
			return 0, err
		}
		n, err = s.writeBatch(ctx, b)
	}
	if err != nil {
		return 0, fmt.Errorf("store: write %d runs: %w", len(b.runs), err)
	}
	return n, nil
}

// errStoredBefore says that some runs of a batch were stored already: the transaction that
// wrote the batch as if all were new is rolled back, and written again for the others.
var errStoredBefore = errors.New("runs stored before")

// writeBatch writes a batch in one transaction. It is written as if every run were new, as
// nearly every batch is: the runs, the shared rows they refer to, their steps and the
// rollups go in one round trip, their findings by COPY in a second, and the commit in a
// third. When the database finds some runs stored already (a retried batch, a slot probed
// twice), that transaction is rolled back and the rest written again, as new.
func (s *Store) writeBatch(ctx context.Context, b *runBatch) (int, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return 0, fmt.Errorf("acquire a connection: %w", err)
	}
	defer conn.Release()
	c := conn.Conn()
	assumed := make([]int, len(b.runs))
	for i := range assumed {
		assumed[i] = i
	}
	for {
		wrote, fresh, err := s.sendBatch(ctx, c, b, assumed)
		if err != nil {
			rollback(c)
			if errors.Is(err, errStoredBefore) && len(fresh) > 0 {
				assumed = fresh // fewer every time: runs are only ever added
				continue
			}
			if errors.Is(err, errStoredBefore) {
				return 0, nil
			}
			return 0, err
		}
		if _, err := c.Exec(ctx, "COMMIT"); err != nil {
			return 0, fmt.Errorf("commit: %w", err)
		}
		// Remembered once committed: a rolled-back batch wrote nothing.
		for _, w := range wrote {
			if _, ok := s.known.Get(w.ref); ok && w.day == seenOnce {
				continue // written meanwhile by another batch of this Store
			}
			s.known.Put(w.ref, w.day)
		}
		return len(fresh), nil
	}
}

// rollbackTimeout bounds the rollback of a failed batch, which runs whatever became of the
// caller's context: a connection left in a transaction is closed by the pool instead.
const rollbackTimeout = 5 * time.Second

func rollback(c *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), rollbackTimeout)
	defer cancel()
	_, _ = c.Exec(ctx, "ROLLBACK") // on failure the pool drops the connection, in its transaction
}

// sendBatch opens a transaction and writes the runs of b at the indexes assumed as new
// runs, with everything that belongs to them, leaving the transaction open. It returns what
// to remember of the shared rows once committed, and the runs it inserted; when those are
// fewer than assumed, it fails with errStoredBefore.
func (s *Store) sendBatch(ctx context.Context, c *pgx.Conn, b *runBatch, assumed []int) ([]sharedWrite, []int, error) {
	var batch pgx.Batch
	batch.Queue("BEGIN")
	queueInsertRuns(&batch, b, assumed)
	wrote := s.queueShared(&batch, b, assumed)
	queueStepSets(&batch, b, assumed)
	queueRollups(&batch, rollupsOf(b, assumed))
	br := c.SendBatch(ctx, &batch)
	fresh, err := readInserted(br, b)
	if err == nil && len(fresh) < len(assumed) {
		err = errStoredBefore
	}
	if err != nil {
		_ = br.Close() // the transaction is rolled back
		return nil, fresh, err
	}
	if err := br.Close(); err != nil {
		return nil, nil, fmt.Errorf("write runs: %w", err)
	}
	if err := copyFindingRefs(ctx, c, b, fresh); err != nil {
		return nil, nil, err
	}
	return wrote, fresh, nil
}

// queueInsertRuns queues the statements that insert the runs of b at the indexes given,
// apart from those stored already; readInserted reads which it inserted.
func queueInsertRuns(batch *pgx.Batch, b *runBatch, at []int) {
	n := len(at)
	var (
		ids                             = make([]RunID, n)
		starts                          = make([]time.Time, n)
		serverIDs, durations            = make([]int64, n), make([]int64, n)
		answers                         = make([]*int64, n)
		regions, workers, outcomes      = make([]string, n), make([]string, n), make([]string, n)
		protocols, names, versions, fps = make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		errs                            = make([]string, n)
		errorCodes                      = make([]*int64, n)
		httpStatuses, exits, toolCounts = make([]*int, n), make([]*int, n), make([]*int, n)
		transcripts                     = make([][]byte, n)
		since                           time.Time
	)
	for i, j := range at {
		r := &b.runs[j]
		ids[i], starts[i] = r.ID, r.Start
		serverIDs[i], durations[i] = r.ServerID, r.Duration.Microseconds()
		if us := r.AnswerTime.Microseconds(); us > 0 {
			answers[i] = &us
		}
		regions[i], workers[i], outcomes[i] = r.Region, r.Worker, r.Outcome
		protocols[i], names[i], versions[i], fps[i] = r.ProtocolVersion, r.ServerName, r.ServerVersion, r.ToolFingerprint
		errs[i] = r.Error
		errorCodes[i], httpStatuses[i], exits[i], toolCounts[i] = r.ErrorCode, r.HTTPStatus, r.ExitStatus, r.ToolCount
		transcripts[i] = b.keys[j].transcript
		if t := r.ID.time().Add(-idStartSkew); i == 0 || t.Before(since) {
			since = t
		}
	}
	// The key (id, started_at) makes a retried write idempotent; a slot's id (SlotRunID) may
	// come again with another start (two workers probed the slot), which the NOT EXISTS
	// catches, looking only at the days a run of the batch can start on (idStartSkew), which
	// leaves the planner the partitions of a few days, whatever plan it makes. Writers
	// of the same ids take turns on them, so that two such writes at once cannot both find
	// the id free.
	batch.Queue(`SELECT pg_advisory_xact_lock($1, hashtext(current_schema()) # k)
		FROM (SELECT k FROM unnest($2::int[]) AS k ORDER BY k) AS keys`,
		runIDLockClass, runIDLockKeys(ids))
	batch.Queue(`INSERT INTO runs (id, started_at, server_id, region, worker, duration_us,
			outcome, protocol_version, server_name, server_version, error_code, http_status,
			exit_status, tool_count, tool_fingerprint, error, answer_us, transcript_key)
		SELECT u.id, u.started_at, u.server_id, u.region, u.worker, u.duration_us, u.outcome,
			u.protocol_version, u.server_name, u.server_version, u.error_code, u.http_status,
			u.exit_status, u.tool_count, u.tool_fingerprint, u.error, u.answer_us, u.transcript_key
		FROM unnest($1::uuid[], $2::timestamptz[], $3::bigint[], $4::text[], $5::text[],
			$6::bigint[], $7::text[], $8::text[], $9::text[], $10::text[], $11::bigint[],
			$12::int[], $13::int[], $14::int[], $15::text[], $16::text[], $17::bigint[], $18::bytea[])
			AS u (id, started_at, server_id, region, worker, duration_us, outcome, protocol_version,
				server_name, server_version, error_code, http_status, exit_status, tool_count,
				tool_fingerprint, error, answer_us, transcript_key)
		WHERE NOT EXISTS (SELECT FROM runs r WHERE r.id = u.id AND r.started_at >= $19)
		ON CONFLICT DO NOTHING
		RETURNING id`,
		ids, starts, serverIDs, regions, workers, durations, outcomes, protocols, names,
		versions, errorCodes, httpStatuses, exits, toolCounts, fps, errs, answers, transcripts, since)
}

// idStartSkew is how long before the time its id carries (RunID.time) a run may start: the
// time is the start itself (NewRunID) or the due time of the run's slot (SlotRunID), which
// the probe of the slot follows, by a worker whose clock may be behind the database's, never
// by a day (Validate refuses starts a day ahead). The search for an id stored with another
// start looks only at the partitions from the earliest such time of a batch on: unbounded,
// it read every day kept (30 and more by default) for every batch written, by an index
// descent per run into each or by a scan of them all.
const idStartSkew = day

// readInserted reads the results of a batch up to its insert of runs (queueInsertRuns) and
// returns the indexes (into b.runs) of the runs inserted, sorted.
func readInserted(br pgx.BatchResults, b *runBatch) ([]int, error) {
	if _, err := br.Exec(); err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	if _, err := br.Exec(); err != nil {
		return nil, fmt.Errorf("lock run ids: %w", err)
	}
	rows, err := br.Query()
	if err != nil {
		return nil, fmt.Errorf("insert runs: %w", err)
	}
	index := make(map[RunID]int, len(b.runs))
	for i := range b.runs {
		index[b.runs[i].ID] = i
	}
	var fresh []int
	var id RunID
	if _, err := pgx.ForEachRow(rows, []any{&id}, func() error {
		fresh = append(fresh, index[id])
		return nil
	}); err != nil {
		return nil, fmt.Errorf("insert runs: %w", err)
	}
	slices.Sort(fresh)
	return fresh, nil
}

// runIDLockClass keys the advisory locks that writers of runs take on their ids.
const runIDLockClass = 0x6d63_707b

// runIDLockKeys maps ids onto at most 256 lock keys, distinct and sorted: a batch of runs
// takes a bounded number of locks, and an unrelated id that shares a key only waits (the
// schema's hash is mixed in, as for the other advisory locks, when the locks are taken).
func runIDLockKeys(ids []RunID) []int32 {
	var seen [256]bool
	var keys []int32
	for _, id := range ids {
		if k := id[15]; !seen[k] {
			seen[k] = true
			keys = append(keys, int32(k))
		}
	}
	slices.Sort(keys)
	return keys
}

// queueStepSets queues the insert of the steps of the runs at the indexes given, one row per
// run (the shapes they refer to are written by queueShared). Each run's positions and
// latencies are a range of one flat array: arrays without NULLs are sliced in constant time.
func queueStepSets(batch *pgx.Batch, b *runBatch, at []int) {
	var ids []RunID
	var starts []time.Time
	var shapes []int64
	var from, to []int32
	var positions []int16
	var latencies []int64
	for _, i := range at {
		r, k := &b.runs[i], &b.keys[i]
		if len(r.Steps) == 0 {
			continue
		}
		ids, starts, shapes = append(ids, r.ID), append(starts, r.Start), append(shapes, k.steps)
		from = append(from, int32(len(positions)+1))
		positions = append(positions, k.stepPositions...)
		for j := range r.Steps {
			latencies = append(latencies, r.Steps[j].Latency.Microseconds())
		}
		to = append(to, int32(len(positions)))
	}
	if len(ids) == 0 {
		return
	}
	batch.Queue(`INSERT INTO run_step_sets (run_id, started_at, shape, positions, latencies_us)
		SELECT u.id, u.started_at, u.shape, ($6::smallint[])[u.lo:u.hi], ($7::bigint[])[u.lo:u.hi]
		FROM unnest($1::uuid[], $2::timestamptz[], $3::bigint[], $4::int[], $5::int[]) AS u (id, started_at, shape, lo, hi)`,
		ids, starts, shapes, from, to, positions, latencies)
}

// copyFindingRefs copies the findings of the fresh runs, one row per run (the shapes and
// messages they refer to are written by queueShared). Its arrays have NULLs, which would
// make slicing them from one flat array cost in proportion to where the slice starts: COPY
// takes each run's own.
func copyFindingRefs(ctx context.Context, c *pgx.Conn, b *runBatch, fresh []int) error {
	var rows [][]any
	for _, i := range fresh {
		r, k := &b.runs[i], &b.keys[i]
		if len(r.Findings) > 0 {
			rows = append(rows, []any{r.ID, r.Start, k.findings, k.messageRefs, k.ownMessages})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	if _, err := c.CopyFrom(ctx, pgx.Identifier{"run_finding_refs"},
		[]string{"run_id", "started_at", "shape", "message_keys", "own_messages"}, pgx.CopyFromRows(rows)); err != nil {
		return fmt.Errorf("copy run_finding_refs: %w", err)
	}
	return nil
}

// isNoPartition reports a check violation, the class of Postgres refusing a row for which no
// partition exists. The message, which would tell it from other check violations, may be
// translated; the other violations fail the one retry they cause again, which costs nothing.
func isNoPartition(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23514"
}
