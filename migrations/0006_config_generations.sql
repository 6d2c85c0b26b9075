-- The generation of each source's server list synced last: a hash of the servers as synced
-- and the time the file they came from was written. A worker whose file is older than the
-- generation synced last (another worker synced a newer one) is refused, so that one stale
-- file cannot disable servers that another added (see store/config_generation.go).
CREATE TABLE config_generations (
    source       text PRIMARY KEY,
    hash         text NOT NULL,
    generated_at timestamptz NOT NULL,
    -- Who synced it, from which file, and when: for the refusal's message.
    worker       text NOT NULL,
    path         text NOT NULL,
    synced_at    timestamptz NOT NULL DEFAULT now()
);
