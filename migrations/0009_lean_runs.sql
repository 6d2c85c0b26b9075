-- Runs stored lean. A passing run used to cost some 17 KB and 38 rows: a row per step, the
-- findings' texts in full, a transcript each. Most of that repeats from run to run of a
-- server: the same steps with the same outcomes, the same verdicts, mostly the same messages.
-- So what repeats is kept once, in tables addressed by a hash of their content, and a run
-- keeps one row of steps (its own latencies and a reference to its step shape) and one row
-- of findings (a reference to its verdict shape and one reference per message, or the
-- message itself the first time it is seen):
--
--   step_shapes       the names, methods, outcomes, error codes and HTTP statuses of a run's
--                     steps (all but the latencies and the order, which the run keeps);
--   finding_shapes    the check ids, statuses and severities of a run's findings, in order;
--   finding_messages  one finding's message;
--   transcripts       a transcript, compressed, keyed by the SHA-256 of its raw bytes.
--
-- A key of the first three is the first 8 bytes of a SHA-256 (see store/content_keys.go for
-- the encoding hashed), as a signed bigint. Their rows carry last_day, the latest UTC day of
-- a run that refers to them: retention drops the day partitions of runs, then the rows whose
-- last_day is before the first day kept, so a shared row outlives every run that uses it.
--
-- The views run_steps, run_findings and run_finding_sets keep the columns of the tables they
-- replace, so that every query written against those keeps working.
--
-- Unlike the other migrations this one moves data: the steps, findings and transcripts of
-- the runs stored so far are rewritten into the new shape in this transaction (nothing is
-- lost), which takes time in proportion to the rows kept by the raw retention.

CREATE TABLE step_shapes (
    key           bigint PRIMARY KEY,
    names         text[] NOT NULL,
    methods       text[] NOT NULL,
    outcomes      text[] NOT NULL,
    error_codes   bigint[] NOT NULL,
    http_statuses integer[] NOT NULL,
    last_day      date NOT NULL,
    CHECK (cardinality(names) = cardinality(methods)
       AND cardinality(names) = cardinality(outcomes)
       AND cardinality(names) = cardinality(error_codes)
       AND cardinality(names) = cardinality(http_statuses))
);

CREATE TABLE finding_shapes (
    key        bigint PRIMARY KEY,
    check_ids  text[] NOT NULL,
    statuses   text[] NOT NULL,
    severities text[] NOT NULL,
    last_day   date NOT NULL,
    CHECK (cardinality(check_ids) = cardinality(statuses)
       AND cardinality(check_ids) = cardinality(severities))
);

CREATE TABLE finding_messages (
    key      bigint PRIMARY KEY,
    message  text NOT NULL,
    last_day date NOT NULL
);

CREATE TABLE transcripts (
    key       bytea PRIMARY KEY CHECK (octet_length(key) = 32),
    encoding  text NOT NULL,
    raw_bytes integer NOT NULL,
    body      bytea NOT NULL,
    last_day  date NOT NULL
);
-- The body is compressed already; a second compression by TOAST would only cost CPU.
ALTER TABLE transcripts ALTER COLUMN body SET STORAGE EXTERNAL;

-- A run's steps, in the order it made them: each one's position in its shape (from 1) and
-- its latency. A shape holds the steps sorted (by name, method, outcome, error code and HTTP
-- status; bytes, NULL first): the concurrent rule probes of a probe finish in any order, and
-- sorted, the runs of a server share one shape however theirs were interleaved.
CREATE TABLE run_step_sets (
    run_id       uuid NOT NULL,
    started_at   timestamptz NOT NULL,
    shape        bigint NOT NULL,
    positions    smallint[] NOT NULL,
    latencies_us bigint[] NOT NULL,
    PRIMARY KEY (run_id, started_at),
    CHECK (cardinality(positions) = cardinality(latencies_us))
) PARTITION BY RANGE (started_at);

-- A run's findings: its verdict shape and, for each finding in order, the key of its message
-- or the message itself. A message seen for the first time is kept in the run (own_messages,
-- its key NULL): many are never seen again (they name a random tool, say) and would cost a
-- shared row and an index entry each; one seen again is shared (its own_messages NULL).
CREATE TABLE run_finding_refs (
    run_id       uuid NOT NULL,
    started_at   timestamptz NOT NULL,
    shape        bigint NOT NULL,
    message_keys bigint[] NOT NULL,
    own_messages text[] NOT NULL,
    PRIMARY KEY (run_id, started_at),
    CHECK (cardinality(message_keys) = cardinality(own_messages))
) PARTITION BY RANGE (started_at);

-- The run's transcript, when one was kept.
ALTER TABLE runs ADD COLUMN transcript_key bytea;

-- The outcome of the last run completed in a slot: the next probe of the slot keeps its
-- transcript when its outcome differs (the `changes` transcript policy). NULL: none yet.
ALTER TABLE schedule ADD COLUMN last_outcome text;

-- Moving the runs stored so far. The new tables get a partition for each of the old ones,
-- with the same bounds.
DO $$
DECLARE
    p record;
BEGIN
    FOR p IN SELECT c.relname, i.inhparent::regclass::text AS parent, pg_get_expr(c.relpartbound, c.oid) AS bound
             FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
             WHERE i.inhparent IN (to_regclass('run_steps'), to_regclass('run_finding_sets'))
    LOOP
        IF p.parent = 'run_steps' THEN
            EXECUTE format('CREATE TABLE %I PARTITION OF run_step_sets %s',
                'run_step_sets' || substr(p.relname, length('run_steps') + 1), p.bound);
        ELSE
            EXECUTE format('CREATE TABLE %I PARTITION OF run_finding_refs %s',
                'run_finding_refs' || substr(p.relname, length('run_finding_sets') + 1), p.bound);
        END IF;
    END LOOP;
END
$$;

-- The keys as the store computes them: a field is its length in bytes, a colon and its text,
-- or "-" for NULL; a key is the first 8 bytes of the SHA-256 of the fields in order.
CREATE FUNCTION lean_runs_field(text) RETURNS text LANGUAGE sql IMMUTABLE AS
$$ SELECT CASE WHEN $1 IS NULL THEN '-' ELSE octet_length($1)::text || ':' || $1 END $$;
CREATE FUNCTION lean_runs_key(text) RETURNS bigint LANGUAGE sql IMMUTABLE AS
$$ SELECT ('x' || encode(substr(sha256(convert_to($1, 'UTF8')), 1, 8), 'hex'))::bit(64)::bigint $$;

CREATE TEMPORARY TABLE lean_steps ON COMMIT DROP AS
WITH ranked AS (
    SELECT *, row_number() OVER (PARTITION BY run_id, started_at ORDER BY name COLLATE "C", method COLLATE "C",
               outcome COLLATE "C", error_code NULLS FIRST, http_status NULLS FIRST, seq) AS pos
    FROM run_steps)
SELECT run_id, started_at,
       array_agg(name ORDER BY pos) AS names, array_agg(method ORDER BY pos) AS methods,
       array_agg(outcome ORDER BY pos) AS outcomes, array_agg(error_code ORDER BY pos) AS codes,
       array_agg(http_status ORDER BY pos) AS statuses,
       array_agg(pos::smallint ORDER BY seq) AS positions, array_agg(latency_us ORDER BY seq) AS latencies,
       lean_runs_key(string_agg(lean_runs_field(name) || lean_runs_field(method) || lean_runs_field(outcome)
           || lean_runs_field(error_code::text) || lean_runs_field(http_status::text), '' ORDER BY pos)) AS key
FROM ranked GROUP BY run_id, started_at;

INSERT INTO step_shapes (key, names, methods, outcomes, error_codes, http_statuses, last_day)
SELECT DISTINCT ON (key) key, names, methods, outcomes, codes, statuses,
       max((started_at AT TIME ZONE 'UTC')::date) OVER (PARTITION BY key)
FROM lean_steps ORDER BY key;

INSERT INTO run_step_sets (run_id, started_at, shape, positions, latencies_us)
SELECT run_id, started_at, key, positions, latencies FROM lean_steps;

CREATE TEMPORARY TABLE lean_findings ON COMMIT DROP AS
SELECT run_id, started_at, check_ids, statuses, severities,
       (SELECT lean_runs_key(string_agg(lean_runs_field(c) || lean_runs_field(st) || lean_runs_field(sev), '' ORDER BY i))
        FROM unnest(check_ids, statuses, severities) WITH ORDINALITY AS f(c, st, sev, i)) AS key,
       ARRAY(SELECT lean_runs_key(m) FROM unnest(messages) WITH ORDINALITY AS f(m, i) ORDER BY i) AS message_keys
FROM run_finding_sets;

INSERT INTO finding_shapes (key, check_ids, statuses, severities, last_day)
SELECT DISTINCT ON (key) key, check_ids, statuses, severities,
       max((started_at AT TIME ZONE 'UTC')::date) OVER (PARTITION BY key)
FROM lean_findings ORDER BY key;

INSERT INTO finding_messages (key, message, last_day)
SELECT lean_runs_key(m), m, max((s.started_at AT TIME ZONE 'UTC')::date)
FROM run_finding_sets s, unnest(s.messages) AS m
GROUP BY m;

INSERT INTO run_finding_refs (run_id, started_at, shape, message_keys, own_messages)
SELECT run_id, started_at, key, message_keys, array_fill(NULL::text, ARRAY[cardinality(message_keys)])
FROM lean_findings;

-- A transcript stored before is keyed by the SHA-256 of its compressed body: SQL cannot
-- read gzip, and a key only has to name its content.
INSERT INTO transcripts (key, encoding, raw_bytes, body, last_day)
SELECT DISTINCT ON (sha256(body)) sha256(body), encoding, raw_bytes, body,
       max((started_at AT TIME ZONE 'UTC')::date) OVER (PARTITION BY sha256(body))
FROM run_transcripts ORDER BY sha256(body);

UPDATE runs r SET transcript_key = sha256(t.body)
FROM run_transcripts t WHERE t.run_id = r.id AND t.started_at = r.started_at;

DROP FUNCTION lean_runs_key(text);
DROP FUNCTION lean_runs_field(text);
DROP VIEW run_findings;
DROP TABLE run_steps, run_finding_sets, run_transcripts;

-- What the tables replaced showed, column for column.
CREATE VIEW run_steps AS
SELECT r.run_id, r.started_at, (f.i - 1)::smallint AS seq, s.names[f.pos] AS name, s.methods[f.pos] AS method,
       s.outcomes[f.pos] AS outcome, f.latency_us, s.error_codes[f.pos] AS error_code,
       s.http_statuses[f.pos] AS http_status
FROM run_step_sets r
JOIN step_shapes s ON s.key = r.shape
CROSS JOIN LATERAL unnest(r.positions, r.latencies_us) WITH ORDINALITY AS f(pos, latency_us, i);

CREATE VIEW run_finding_sets AS
SELECT r.run_id, r.started_at, s.check_ids, s.statuses, s.severities,
       ARRAY(SELECT coalesce(m.message, k.own) FROM unnest(r.message_keys, r.own_messages) WITH ORDINALITY AS k(key, own, i)
             LEFT JOIN finding_messages m ON m.key = k.key ORDER BY k.i) AS messages
FROM run_finding_refs r
JOIN finding_shapes s ON s.key = r.shape;

CREATE VIEW run_findings AS
SELECT r.run_id, r.started_at, f.position, f.check_id, f.status, f.severity,
       coalesce(m.message, f.own_message) AS message
FROM run_finding_refs r
JOIN finding_shapes s ON s.key = r.shape
CROSS JOIN LATERAL unnest(s.check_ids, s.statuses, s.severities, r.message_keys, r.own_messages)
    WITH ORDINALITY AS f(check_id, status, severity, message_key, own_message, position)
LEFT JOIN finding_messages m ON m.key = f.message_key;

-- One row per run that kept a transcript, as before.
CREATE VIEW run_transcripts AS
SELECT r.id AS run_id, r.started_at, t.encoding, t.raw_bytes, t.body
FROM runs r JOIN transcripts t ON t.key = r.transcript_key;
