-- Hourly rollups per (server, region), maintained in the transaction that writes the runs.
-- Latency figures cover runs that reached the server (up or degraded): a down run's duration
-- is how long it took to fail, not how fast the server answers.

-- Upper bounds of the latency histogram buckets, in microseconds; the last bucket has none.
-- Fixed for good: rollups of every age are read with these bounds.
CREATE TABLE latency_buckets (
    bucket   integer PRIMARY KEY,
    upper_us bigint
);
INSERT INTO latency_buckets (bucket, upper_us)
SELECT b, u * 1000
FROM unnest(ARRAY[5, 10, 25, 50, 75, 100, 150, 200, 300, 400, 500, 750, 1000, 1500, 2000,
                  3000, 5000, 7500, 10000, 15000, 30000, 60000, NULL]::bigint[])
     WITH ORDINALITY AS t(u, b);

-- histogram_add adds two histograms bucket by bucket; histogram_sum is its aggregate.
CREATE FUNCTION histogram_add(a bigint[], b bigint[]) RETURNS bigint[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(array_agg(coalesce(x, 0) + coalesce(y, 0) ORDER BY i), '{}')
    FROM unnest(a, b) WITH ORDINALITY AS t(x, y, i)
$$;
CREATE AGGREGATE histogram_sum(bigint[]) (
    SFUNC = histogram_add,
    STYPE = bigint[],
    INITCOND = '{}'
);

CREATE TABLE rollups (
    server_id      bigint NOT NULL,
    region         text NOT NULL,
    hour           timestamptz NOT NULL,
    runs           integer NOT NULL,
    up             integer NOT NULL,
    degraded       integer NOT NULL,
    down           integer NOT NULL,
    latency_sum_us bigint NOT NULL,
    latency_min_us bigint,
    latency_max_us bigint,
    latency_hist   bigint[] NOT NULL,
    PRIMARY KEY (server_id, region, hour),
    CHECK (runs = up + degraded + down)
);
-- For retention, which deletes by hour across all servers.
CREATE INDEX rollups_hour ON rollups (hour);
