package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// RunQuery selects runs of one server, newest first.
type RunQuery struct {
	ServerID int64
	// Region selects one region; "" all.
	Region string
	// Before, when set, returns runs that started before it (for paging back).
	Before time.Time
	// Limit caps the runs returned (at most MaxRunsPerQuery; 0 means 100).
	Limit int
}

// MaxRunsPerQuery bounds one page of runs.
const MaxRunsPerQuery = 1000

const runColumns = `r.id, r.server_id, r.region, r.worker, r.started_at, r.duration_us, r.outcome,
	r.protocol_version, r.server_name, r.server_version, r.error_code, r.http_status,
	r.exit_status, r.tool_count, r.tool_fingerprint, r.error, r.answer_us`

func scanRun(row pgx.Row, r *RunRecord) error {
	var us int64
	var answerUS *int64
	if err := row.Scan(&r.ID, &r.ServerID, &r.Region, &r.Worker, &r.Start, &us, &r.Outcome,
		&r.ProtocolVersion, &r.ServerName, &r.ServerVersion, &r.ErrorCode, &r.HTTPStatus,
		&r.ExitStatus, &r.ToolCount, &r.ToolFingerprint, &r.Error, &answerUS); err != nil {
		return err
	}
	r.Duration = time.Duration(us) * time.Microsecond
	if answerUS != nil {
		r.AnswerTime = time.Duration(*answerUS) * time.Microsecond
	}
	return nil
}

// Runs returns runs of a server without their steps, findings or transcript.
func (s *Store) Runs(ctx context.Context, q RunQuery) ([]RunRecord, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = 100
	}
	limit = min(limit, MaxRunsPerQuery)
	var before *time.Time
	if !q.Before.IsZero() {
		before = &q.Before
	}
	rows, err := s.pool.Query(ctx, `SELECT `+runColumns+` FROM runs r
		WHERE r.server_id = $1 AND ($2 = '' OR r.region = $2) AND ($3::timestamptz IS NULL OR r.started_at < $3)
		ORDER BY r.started_at DESC LIMIT $4`, q.ServerID, q.Region, before, limit)
	if err != nil {
		return nil, fmt.Errorf("store: runs of server %d: %w", q.ServerID, err)
	}
	defer rows.Close()
	var out []RunRecord
	for rows.Next() {
		var r RunRecord
		if err := scanRun(rows, &r); err != nil {
			return nil, fmt.Errorf("store: runs of server %d: %w", q.ServerID, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: runs of server %d: %w", q.ServerID, err)
	}
	return out, nil
}

// Run returns one run with its steps (in order) and findings; the transcript is left out
// (see Transcript).
func (s *Store) Run(ctx context.Context, id RunID) (RunRecord, error) {
	var r RunRecord
	err := scanRun(s.pool.QueryRow(ctx, `SELECT `+runColumns+` FROM runs r WHERE r.id = $1`, id), &r)
	if errors.Is(err, pgx.ErrNoRows) {
		return RunRecord{}, fmt.Errorf("run %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return RunRecord{}, fmt.Errorf("store: run %s: %w", id, err)
	}
	// started_at lets Postgres look in one partition instead of all of them.
	rows, err := s.pool.Query(ctx, `SELECT name, method, outcome, latency_us, error_code, http_status
		FROM run_steps WHERE run_id = $1 AND started_at = $2 ORDER BY seq`, id, r.Start)
	if err != nil {
		return RunRecord{}, fmt.Errorf("store: steps of run %s: %w", id, err)
	}
	var st StepRecord
	var us int64
	if _, err := pgx.ForEachRow(rows, []any{&st.Name, &st.Method, &st.Outcome, &us, &st.ErrorCode, &st.HTTPStatus}, func() error {
		st.Latency = time.Duration(us) * time.Microsecond
		r.Steps = append(r.Steps, st)
		st = StepRecord{}
		return nil
	}); err != nil {
		return RunRecord{}, fmt.Errorf("store: steps of run %s: %w", id, err)
	}
	rows, err = s.pool.Query(ctx, `SELECT check_id, status, severity, message
		FROM run_findings WHERE run_id = $1 AND started_at = $2 ORDER BY position`, id, r.Start)
	if err != nil {
		return RunRecord{}, fmt.Errorf("store: findings of run %s: %w", id, err)
	}
	r.Findings, err = pgx.CollectRows(rows, pgx.RowToStructByPos[FindingRecord])
	if err != nil {
		return RunRecord{}, fmt.Errorf("store: findings of run %s: %w", id, err)
	}
	return r, nil
}
