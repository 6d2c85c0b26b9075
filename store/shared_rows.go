package store

import (
	"bytes"
	"math"
	"slices"

	"github.com/jackc/pgx/v5"
)

// seenOnce marks a message this Store saw once and left in its run: the next run with it
// shares it.
const seenOnce = math.MinInt32

// sharedWrite is a shared row a batch made sure of, with the last_day it has at least (or
// seenOnce).
type sharedWrite struct {
	ref sharedRef
	day int32
}

// sharedRow is what a batch needs of one shared row: the run it comes from (its content)
// and the latest day of a run of the batch that refers to it.
type sharedRow struct {
	run int
	at  int // the finding, for a message
	day int32
}

// queueShared queues the statements that write the shared rows the fresh runs refer to,
// apart from those this Store knows to be there with a last_day late enough, and raise
// last_day where a run is later. Every statement takes its rows in key order, so that two
// writers sharing rows lock them in the same order and cannot deadlock. It returns what to
// remember once the batch is committed.
func (s *Store) queueShared(shapes *pgx.Batch, b *runBatch, fresh []int) []sharedWrite {
	need := map[sharedRef]sharedRow{}
	want := func(ref sharedRef, row sharedRow) {
		if known, ok := s.known.Get(ref); ok && known >= row.day {
			return
		}
		if had, ok := need[ref]; ok && had.day >= row.day {
			return
		}
		need[ref] = row
	}
	type transcriptRow struct {
		run int
		day int32
	}
	transcripts := map[string]transcriptRow{}
	// A message is shared once seen twice: before, by this Store (firstSeen), or in this
	// batch; the first time, the run keeps it. A batch's runs repeat most of their messages,
	// so that what this Store knows of each is looked up once, and the row it needs is kept
	// beside it until every run is seen (as want would keep it).
	type messageUse struct {
		times    int
		known    bool
		knownDay int32
		needed   bool
		row      sharedRow
	}
	messages := map[int64]*messageUse{}
	for _, i := range fresh {
		for _, m := range b.keys[i].messages {
			u := messages[m]
			if u == nil {
				u = &messageUse{}
				u.knownDay, u.known = s.known.Get(sharedRef{sharedMessage, m})
				messages[m] = u
			}
			u.times++
		}
	}
	var firstSeen []sharedRef
	for _, i := range fresh {
		r, k := &b.runs[i], &b.keys[i]
		day := int32(dayOf(r.Start))
		if len(r.Steps) > 0 {
			want(sharedRef{sharedStepShape, k.steps}, sharedRow{run: i, day: day})
		}
		if len(r.Findings) > 0 {
			want(sharedRef{sharedFindingShape, k.findings}, sharedRow{run: i, day: day})
			k.messageRefs, k.ownMessages = make([]*int64, len(k.messages)), make([]*string, len(k.messages))
			for j, m := range k.messages {
				u := messages[m]
				if u.known || u.times > 1 {
					if !(u.known && u.knownDay >= day) && (!u.needed || u.row.day < day) {
						u.needed, u.row = true, sharedRow{run: i, at: j, day: day}
					}
					k.messageRefs[j] = &k.messages[j]
				} else {
					k.ownMessages[j] = &r.Findings[j].Message
					firstSeen = append(firstSeen, sharedRef{sharedMessage, m})
				}
			}
		}
		if k.transcript != nil {
			if had, ok := transcripts[string(k.transcript)]; !ok || had.day < day {
				transcripts[string(k.transcript)] = transcriptRow{run: i, day: day}
			}
		}
	}
	for m, u := range messages {
		if u.needed {
			need[sharedRef{sharedMessage, m}] = u.row
		}
	}
	refs := make([]sharedRef, 0, len(need))
	for ref := range need {
		refs = append(refs, ref)
	}
	slices.SortFunc(refs, func(x, y sharedRef) int {
		if x.kind != y.kind {
			return int(x.kind) - int(y.kind)
		}
		switch {
		case x.key < y.key:
			return -1
		case x.key > y.key:
			return 1
		}
		return 0
	})

	var msgKeys []int64
	var msgTexts []string
	var msgDays []int32
	for _, ref := range refs {
		row := need[ref]
		r := &b.runs[row.run]
		switch ref.kind {
		case sharedStepShape:
			n := len(r.Steps)
			names, methods, outcomes := make([]string, n), make([]string, n), make([]string, n)
			codes, statuses := make([]*int64, n), make([]*int, n)
			for j, seq := range b.keys[row.run].stepOrder {
				st := &r.Steps[seq]
				names[j], methods[j], outcomes[j], codes[j], statuses[j] = st.Name, st.Method, st.Outcome, st.ErrorCode, st.HTTPStatus
			}
			shapes.Queue(`INSERT INTO step_shapes (key, names, methods, outcomes, error_codes, http_statuses, last_day)
				VALUES ($1, $2, $3, $4, $5, $6, date '1970-01-01' + $7::int)
				ON CONFLICT (key) DO UPDATE SET last_day = excluded.last_day WHERE step_shapes.last_day < excluded.last_day`,
				ref.key, names, methods, outcomes, codes, statuses, row.day)
		case sharedFindingShape:
			n := len(r.Findings)
			ids, statuses, severities := make([]string, n), make([]string, n), make([]string, n)
			for j, f := range r.Findings {
				ids[j], statuses[j], severities[j] = f.CheckID, f.Status, f.Severity
			}
			shapes.Queue(`INSERT INTO finding_shapes (key, check_ids, statuses, severities, last_day)
				VALUES ($1, $2, $3, $4, date '1970-01-01' + $5::int)
				ON CONFLICT (key) DO UPDATE SET last_day = excluded.last_day WHERE finding_shapes.last_day < excluded.last_day`,
				ref.key, ids, statuses, severities, row.day)
		case sharedMessage:
			msgKeys = append(msgKeys, ref.key)
			msgTexts = append(msgTexts, r.Findings[row.at].Message)
			msgDays = append(msgDays, row.day)
		}
	}
	if len(msgKeys) > 0 {
		shapes.Queue(`INSERT INTO finding_messages (key, message, last_day)
			SELECT k, m, date '1970-01-01' + d FROM unnest($1::bigint[], $2::text[], $3::int[]) AS u (k, m, d)
			ON CONFLICT (key) DO UPDATE SET last_day = excluded.last_day WHERE finding_messages.last_day < excluded.last_day`,
			msgKeys, msgTexts, msgDays)
	}
	if len(transcripts) > 0 {
		keys := make([][]byte, 0, len(transcripts))
		for k := range transcripts {
			keys = append(keys, []byte(k))
		}
		slices.SortFunc(keys, bytes.Compare)
		encodings, raws, bodies, days := make([]string, len(keys)), make([]int32, len(keys)), make([][]byte, len(keys)), make([]int32, len(keys))
		for j, k := range keys {
			t := transcripts[string(k)]
			encodings[j], raws[j], bodies[j], days[j] = encodingGzip, int32(len(b.runs[t.run].Transcript)), b.keys[t.run].zip, t.day
		}
		shapes.Queue(`INSERT INTO transcripts (key, encoding, raw_bytes, body, last_day)
			SELECT k, e, r, b, date '1970-01-01' + d FROM unnest($1::bytea[], $2::text[], $3::int[], $4::bytea[], $5::int[]) AS u (k, e, r, b, d)
			ON CONFLICT (key) DO UPDATE SET last_day = excluded.last_day WHERE transcripts.last_day < excluded.last_day`,
			keys, encodings, raws, bodies, days)
	}
	wrote := make([]sharedWrite, 0, len(refs)+len(firstSeen))
	for _, ref := range firstSeen {
		wrote = append(wrote, sharedWrite{ref: ref, day: seenOnce})
	}
	for _, ref := range refs {
		wrote = append(wrote, sharedWrite{ref: ref, day: need[ref].day})
	}
	return wrote
}
