-- Alerts: what the alert engine remembers per server, the state of every alert, the history the
-- dashboard shows, and the outbox of notifications still to deliver. Like the run tables these
-- have no foreign key to servers: a deleted server's alerts stay as history.

-- Per (server, part) memory the evaluators carry from one run to the next: region streaks and
-- the last run seen from each region ("regions"), the last status of each check ("checks"), the
-- last tool surface ("tools"), latency samples and daily baselines ("latency"). A part is
-- written only when it changed.
CREATE TABLE alert_memory (
    server_id  bigint NOT NULL,
    part       text NOT NULL CHECK (part <> ''),
    data       jsonb NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (server_id, part)
);

-- One row per (server, kind, key) that has ever been bad; key is '' for kinds with one alert per
-- server (down, drift, certificate), the check id for conformance and the step for latency.
-- notified_at is when the open incident was last announced (firing, flapping or reminder):
-- NULL while it is open but unannounced (muted by a maintenance window), which is what a
-- restarted engine reads to neither page again nor forget.
CREATE TABLE alert_state (
    server_id   bigint NOT NULL,
    kind        text NOT NULL CHECK (kind IN ('down', 'conformance', 'drift', 'latency', 'certificate')),
    key         text NOT NULL DEFAULT '',
    status      text NOT NULL CHECK (status IN ('ok', 'firing')),
    incident    uuid,
    since       timestamptz,
    fired_at    timestamptz,
    resolved_at timestamptz,
    notified_at timestamptz,
    -- held: open because it flapped (resolved too often within the flapping window).
    held        boolean NOT NULL DEFAULT false,
    -- cond_bad: the condition was bad at the last run (an open held alert may be good).
    cond_bad    boolean NOT NULL DEFAULT false,
    -- The times the alert resolved or would have: flap damping counts them.
    cycles      timestamptz[] NOT NULL DEFAULT '{}',
    details     jsonb NOT NULL DEFAULT '{}',
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (server_id, kind, key)
);
-- Open alerts across all servers, for a status page.
CREATE INDEX alert_state_firing ON alert_state (server_id) WHERE status = 'firing';

-- Every transition, notified or not; muted says why nothing was sent ('' when something was).
CREATE TABLE alert_history (
    id        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    server_id bigint NOT NULL,
    server    text NOT NULL,
    kind      text NOT NULL,
    key       text NOT NULL DEFAULT '',
    incident  uuid NOT NULL,
    event     text NOT NULL CHECK (event IN ('fired', 'resolved', 'reminded', 'flapping', 'announced', 'changed')),
    at        timestamptz NOT NULL,
    regions   text[] NOT NULL DEFAULT '{}',
    summary   text NOT NULL,
    details   jsonb NOT NULL DEFAULT '{}',
    muted     text NOT NULL DEFAULT ''
);
CREATE INDEX alert_history_server ON alert_history (server_id, id DESC);
CREATE INDEX alert_history_incident ON alert_history (incident);

-- Notifications to deliver, one row per (transition, channel). A dispatcher claims due rows with
-- FOR UPDATE SKIP LOCKED and pushes next_attempt_at past the send for its lease, so a row is
-- sent by one dispatcher at a time and a dead dispatcher's rows come back when the lease ends.
-- claim_seq numbers the claims: only the latest claimer may mark the row sent or failed.
CREATE TABLE alert_outbox (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    history_id      bigint NOT NULL REFERENCES alert_history (id) ON DELETE CASCADE,
    incident        uuid NOT NULL,
    channel         text NOT NULL,
    -- target overrides the channel's destination (a Slack channel chosen by a route).
    target          text NOT NULL DEFAULT '',
    payload         jsonb NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    claim_seq       bigint NOT NULL DEFAULT 0,
    claimed_by      text NOT NULL DEFAULT '',
    sent_at         timestamptz,
    failed_at       timestamptz,
    last_error      text NOT NULL DEFAULT '',
    -- delivery_ref identifies the delivered message (a Slack channel and ts) so that later
    -- notifications of the incident can reply in its thread.
    delivery_ref    text NOT NULL DEFAULT '',
    CHECK (sent_at IS NULL OR failed_at IS NULL)
);
CREATE INDEX alert_outbox_due ON alert_outbox (next_attempt_at) WHERE sent_at IS NULL AND failed_at IS NULL;
CREATE INDEX alert_outbox_incident ON alert_outbox (incident, channel, id);
