-- Probe runs and what they observed, partitioned by day on the run's start so retention drops
-- whole partitions. Steps, findings and transcripts carry the run's started_at to share its
-- partitions. There is no foreign key to servers: deleting a server must not cascade through
-- every partition, and its history ages out with retention.

CREATE TABLE runs (
    id               uuid NOT NULL,
    started_at       timestamptz NOT NULL,
    server_id        bigint NOT NULL,
    region           text NOT NULL,
    worker           text NOT NULL,
    duration_us      bigint NOT NULL CHECK (duration_us >= 0),
    outcome          text NOT NULL CHECK (outcome IN ('up', 'degraded', 'down')),
    protocol_version text NOT NULL DEFAULT '',
    server_name      text NOT NULL DEFAULT '',
    server_version   text NOT NULL DEFAULT '',
    error_code       bigint,
    http_status      integer,
    exit_status      integer,
    tool_count       integer,
    tool_fingerprint text NOT NULL DEFAULT '',
    error            text NOT NULL DEFAULT '',
    -- A partitioned table's keys must hold the partition column; a retried write repeats
    -- both id and started_at, so this key is what makes writes idempotent.
    PRIMARY KEY (id, started_at)
) PARTITION BY RANGE (started_at);
-- A server's latest runs, in all regions or (filtering as it walks) in one.
CREATE INDEX runs_server_started ON runs (server_id, started_at DESC);

CREATE TABLE run_steps (
    run_id      uuid NOT NULL,
    started_at  timestamptz NOT NULL,
    seq         smallint NOT NULL,
    name        text NOT NULL,
    method      text NOT NULL,
    outcome     text NOT NULL,
    latency_us  bigint NOT NULL,
    error_code  bigint,
    http_status integer
) PARTITION BY RANGE (started_at);
CREATE INDEX run_steps_run ON run_steps (run_id);

-- A run's findings are one row of parallel arrays, in the order the run gave them: a probe
-- yields some 25, and a row each would make findings most of the write path's rows. The
-- view run_findings shows them one row per finding, position numbering them from 1.
CREATE TABLE run_finding_sets (
    run_id     uuid NOT NULL,
    started_at timestamptz NOT NULL,
    check_ids  text[] NOT NULL,
    statuses   text[] NOT NULL,
    severities text[] NOT NULL,
    messages   text[] NOT NULL,
    PRIMARY KEY (run_id, started_at),
    CHECK (cardinality(check_ids) = cardinality(statuses)
       AND cardinality(check_ids) = cardinality(severities)
       AND cardinality(check_ids) = cardinality(messages))
) PARTITION BY RANGE (started_at);

CREATE VIEW run_findings AS
SELECT s.run_id, s.started_at, f.position, f.check_id, f.status, f.severity, f.message
FROM run_finding_sets s,
     unnest(s.check_ids, s.statuses, s.severities, s.messages)
         WITH ORDINALITY AS f(check_id, status, severity, message, position);

CREATE TABLE run_transcripts (
    run_id     uuid NOT NULL,
    started_at timestamptz NOT NULL,
    encoding   text NOT NULL,
    raw_bytes  integer NOT NULL,
    body       bytea NOT NULL,
    PRIMARY KEY (run_id, started_at)
) PARTITION BY RANGE (started_at);
-- The body is compressed already; a second compression by TOAST would only cost CPU.
ALTER TABLE run_transcripts ALTER COLUMN body SET STORAGE EXTERNAL;
