-- A run's answer time: how long the server took to answer a client's first requests on the
-- main connection (initialize, or server/discover for a stateless server, and the first page
-- of tools/list), apart from the rest of the probe (the other lists, the rule probes). NULL
-- when the run never got that far (a down run) and for the runs written before this column.
-- Latency figures (rollups, and what is built on them) use it, and duration_us when it is
-- NULL. Rollups written before it keep whole-probe durations until retention ages them out:
-- recomputing them would rewrite every rollup row, and the steps that would give the answer
-- time are kept for the raw retention only (see docs/monitor.md).
ALTER TABLE runs ADD COLUMN answer_us bigint;
