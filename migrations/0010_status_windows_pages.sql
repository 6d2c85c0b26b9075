-- The figures of status_windows as Postgres sends a bigint[] (array_send), written by each
-- refresh. Reading figures made the server encode some 320 numbers per row for every request,
-- one function call each: 35 ms of the 1,000-server status page went there; sending bytes
-- already encoded costs a copy. The encoding is stable, not immutable, so it cannot be a
-- generated column; rows written by a refresh of an older release have NULL here, and readers
-- fall back to encoding figures.
ALTER TABLE status_windows ADD COLUMN figures_sent bytea;
-- Kept uncompressed in the row (some 3.8 KB): decompressing it (pglz) took two thirds of
-- what encoding figures had.
ALTER TABLE status_windows ALTER COLUMN figures_sent SET STORAGE PLAIN;

-- Each day's latency figures of the hours the row sums, for the server page's charts by day:
-- a 90-day chart read 2,160 hourly rollups, one a page apart (rollups are written an hour at
-- a time for every server), which cost more than the rest of the page. One row per day, in
-- day order: the UTC day (numbered from 1970-01-01), runs, up, degraded, down, latency sum,
-- minimum and maximum (-1: none), then the latency histogram. NULL in rows written by the
-- refresh of an older release; readers then sum the hourly rollups.
ALTER TABLE status_windows ADD COLUMN day_latency bigint[];

-- Each hour's latency figures of the 24h window the row sums, for the sparklines of the status
-- page (50 servers of 24 hours read 1,200 hourly rollups, one a page apart): one row per hour,
-- in hour order, laid out as day_latency with the hour (numbered from 1970-01-01 00:00 UTC)
-- first. Empty when the region ran nothing in those hours; NULL as day_latency is.
ALTER TABLE status_windows ADD COLUMN hour_latency bigint[];
