-- Servers to probe, the regions that probe them, and when each (server, region) is next due.

-- Secrets never live here: headers name the environment variable holding their value, which
-- the prober reads at probe time. Names stay unique across sources (config file, API); a
-- server removed from its source is disabled rather than deleted, so its history keeps a name.
CREATE TABLE servers (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name       text NOT NULL UNIQUE CHECK (name <> ''),
    source     text NOT NULL CHECK (source <> ''),
    transport  text NOT NULL CHECK (transport <> ''),
    url        text,
    command    text,
    args       text[] NOT NULL DEFAULT '{}',
    env        jsonb NOT NULL DEFAULT '[]',
    dir        text NOT NULL DEFAULT '',
    headers    jsonb NOT NULL DEFAULT '[]',
    schedule   text NOT NULL CHECK (schedule <> ''),
    timeout_ms integer NOT NULL CHECK (timeout_ms > 0),
    labels     jsonb NOT NULL DEFAULT '{}',
    enabled    boolean NOT NULL DEFAULT true,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    CHECK ((url IS NULL) <> (command IS NULL))
);

-- Every region a worker has announced. Each region probes every enabled server on its own.
CREATE TABLE regions (
    name       text PRIMARY KEY CHECK (name <> ''),
    first_seen timestamptz NOT NULL DEFAULT now(),
    last_seen  timestamptz NOT NULL DEFAULT now()
);

-- One row per (enabled server, region). A row is claimable once both its due time and any
-- lease have passed; claimable_at folds the two into one indexed column so that the claim is
-- a single index range scan (greatest() ignores a NULL lease). lease_seq counts claims, so a
-- worker whose lease expired and was taken over cannot complete the new holder's claim.
CREATE TABLE schedule (
    server_id    bigint NOT NULL REFERENCES servers (id) ON DELETE CASCADE,
    region       text NOT NULL REFERENCES regions (name) ON DELETE CASCADE,
    next_due     timestamptz NOT NULL,
    lease_until  timestamptz,
    leased_by    text,
    lease_seq    bigint NOT NULL DEFAULT 0,
    claimable_at timestamptz GENERATED ALWAYS AS (greatest(next_due, lease_until)) STORED,
    PRIMARY KEY (server_id, region)
);
CREATE INDEX schedule_claimable ON schedule (region, claimable_at);
