-- What the status page and API read: every server's uptime windows (24h, 7d, 30d, 90d), the
-- latency histogram of its last 24 hours and its daily uptime for 90 days, summed ahead from
-- the hourly rollups once an hour. Summing 90 days of hourly rollups for every server takes
-- seconds; a request adds the last hours to these sums instead (see store/status_sums.go).
--
-- A row holds the hours [window start, as_of - 1 hour) of one (server, region); the arrays
-- indexed by window follow the order 24h, 7d, 30d, 90d. Regions without runs in 90 days have
-- no row. The table is rewritten whole at each refresh, inside one transaction.
CREATE TABLE status_windows (
    server_id      bigint NOT NULL,
    region         text NOT NULL,
    runs           bigint[] NOT NULL,
    up             bigint[] NOT NULL,
    degraded       bigint[] NOT NULL,
    down           bigint[] NOT NULL,
    latency_sum_us bigint[] NOT NULL,
    -- Latency extremes and histogram of the 24h window (NULL min/max: no run reached the server).
    latency_min_us bigint,
    latency_max_us bigint,
    latency_hist   bigint[] NOT NULL,
    -- Daily uptime: UTC days (numbered from 1970-01-01) with their runs and the runs that
    -- reached the server.
    days           integer[] NOT NULL,
    day_runs       bigint[] NOT NULL,
    day_ok         bigint[] NOT NULL,
    -- Everything above as one array, which is what requests read: one array to decode per
    -- row rather than ten, and no concatenation per request. The layout: runs, up, degraded,
    -- down and latency sums per window; the 24h minimum and maximum (-1: none); the 24h
    -- histogram; then the days, their runs and their ok runs.
    figures        bigint[] GENERATED ALWAYS AS (
        runs || up || degraded || down || latency_sum_us
        || ARRAY[coalesce(latency_min_us, -1), coalesce(latency_max_us, -1)] || latency_hist
        || days::bigint[] || day_runs || day_ok) STORED,
    PRIMARY KEY (server_id, region)
);

-- One row: the hour the sums of status_windows were computed for (NULL: never yet).
CREATE TABLE status_windows_state (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    as_of     timestamptz
);
INSERT INTO status_windows_state (singleton, as_of) VALUES (true, NULL);
