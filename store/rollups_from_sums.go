package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// The status sums (status_windows) hold the latency of each day of the 90d window and of each
// hour of the 24h window; the pages' charts read them there rather than from the hourly
// rollups, whose rows of one server lie a page apart (a rollup is written an hour at a time
// for every server). Hours the sums do not hold (before their windows, and since they were
// made) come from the hourly rollups.

// dayLatencyWidth is the width of a day in column day_latency of status_windows: the day,
// runs, up, degraded, down, latency sum, minimum and maximum (-1: none), then the histogram.
const dayLatencyWidth = 8 + HistogramBuckets

// DayRollups returns the rollups of server id over [from, to) in pieces that each lie within
// one UTC day, by region: a whole day where the status sums hold its hours (column
// day_latency of status_windows, written by RefreshStatusWindows), an hour elsewhere (the
// hours before the sums begin and those since they were made). Summed per day they equal
// HourlyRollups summed per day, but a 90-day chart reads a row per region rather than 2,160
// rollups a page apart. When the sums are not recent, or were made by a release without
// day_latency, every piece is an hour.
func (s *Store) DayRollups(ctx context.Context, id int64, from, to, now time.Time) ([]HourStats, error) {
	h := now.UTC().Truncate(time.Hour)
	var out []HourStats
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		out = out[:0]
		a, err := recentSumsAsOf(ctx, tx, h)
		if err != nil {
			return err
		}
		// The hours the sums hold: those of the longest window at a, but the last.
		ws := StatusWindows()
		sumsFrom, sumsTo := ws[len(ws)-1].Start(a), a.Add(-time.Hour)
		rows, err := tx.Query(ctx, `SELECT region, day_latency IS NULL,
				coalesce(array_send(ARRAY(SELECT unnest(day_latency))), '')
			FROM status_windows WHERE server_id = $1`, id)
		if err != nil {
			return err
		}
		var buf []int64
		for rows.Next() {
			var region string
			var missing bool
			var raw []byte
			if err := rows.Scan(&region, &missing, &raw); err != nil {
				rows.Close()
				return err
			}
			if missing {
				rows.Close()
				return errStatusStale
			}
			if buf, err = decodeInt8Array(raw, buf[:0]); err != nil {
				rows.Close()
				return fmt.Errorf("day latency of %q: %w", region, err)
			}
			if len(buf)%dayLatencyWidth != 0 {
				rows.Close()
				return fmt.Errorf("day latency of %q: %d figures", region, len(buf))
			}
			for d := buf; len(d) > 0; d = d[dayLatencyWidth:] {
				day := dayStart(d[0])
				// A day the chart begins after is left out whole; so is a day the sums hold
				// from before from (from is a day's start, so that is only ever the day before).
				if day.Before(from) || !day.Before(to) {
					continue
				}
				out = append(out, HourStats{Hour: day, Region: region, Stats: dayStats(d[:dayLatencyWidth])})
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		// The hours outside the sums, from the hourly rollups.
		hours, err := hourlyRanges(ctx, tx, id, [][2]time.Time{{from, minTime(sumsFrom, to)}, {maxTime(sumsTo, from), to}})
		if err != nil {
			return err
		}
		out = append(out, hours...)
		return nil
	})
	if errors.Is(err, errStatusStale) {
		hours, err := s.HourlyRollups(ctx, []int64{id}, from, to)
		if err != nil {
			return nil, err
		}
		out = make([]HourStats, len(hours))
		for i, h := range hours {
			out[i] = h.HourStats
		}
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: rollups by day of server %d: %w", id, err)
	}
	return out, nil
}

// dayStats reads one day of day_latency.
func dayStats(d []int64) Stats {
	st := Stats{Runs: d[1], Up: d[2], Degraded: d[3], Down: d[4], LatencySum: time.Duration(d[5]) * time.Microsecond}
	if st.Up+st.Degraded > 0 {
		if d[6] >= 0 && d[7] >= 0 {
			st.LatencyMin, st.LatencyMax = time.Duration(d[6])*time.Microsecond, time.Duration(d[7])*time.Microsecond
		}
		// A copy: d is the decoding buffer, reused for the next row.
		st.Latency = slices.Clone(Histogram(d[8:dayLatencyWidth]))
	}
	return st
}

// hourlyRanges reads the hourly rollups of server id in the ranges [from, to) that are not
// empty.
func hourlyRanges(ctx context.Context, tx pgx.Tx, id int64, ranges [][2]time.Time) ([]HourStats, error) {
	var out []HourStats
	for _, r := range ranges {
		if !r[0].Before(r[1]) {
			continue
		}
		rows, err := tx.Query(ctx, `SELECT server_id, region, hour, `+statsColumnsPlain+` FROM rollups
			WHERE server_id = $1 AND hour >= $2 AND hour < $3`, id, r[0], r[1])
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var hs HourStats
			var server int64
			if err := scanHourStats(rows, &server, &hs.Region, &hs.Hour, &hs.Stats); err != nil {
				rows.Close()
				return nil, err
			}
			hs.Hour = hs.Hour.UTC()
			out = append(out, hs)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// RecentHours returns the hourly rollups of the given servers over [from, to) as HourlyRollups
// does (one per server, region and hour, ordered so), taking the hours the status sums hold
// from column hour_latency of status_windows: the status page's sparklines of the last day.
// When the sums are not recent, or were made by a release without hour_latency, it is
// HourlyRollups.
func (s *Store) RecentHours(ctx context.Context, serverIDs []int64, from, to, now time.Time) ([]ServerHour, error) {
	h := now.UTC().Truncate(time.Hour)
	var out []ServerHour
	var sumsFrom, sumsTo time.Time
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		out = out[:0]
		a, err := recentSumsAsOf(ctx, tx, h)
		if err != nil {
			return err
		}
		sumsFrom, sumsTo = StatusWindows()[0].Start(a), a.Add(-time.Hour)
		// One walk of the primary key per server asked for. As a join, the planner, which
		// sees no statistics of a table rewritten whole every hour, hashed the ids and read
		// every server's row: 8 of the 13 ms for a status page's 50 of 1,000 servers, and
		// growing with the servers rather than the page. OFFSET 0 keeps the subquery apart.
		rows, err := tx.Query(ctx, `SELECT w.server_id, w.region, w.hour_latency IS NULL,
				coalesce(array_send(w.hour_latency), '')
			FROM unnest($1::bigint[]) AS u(id)
			CROSS JOIN LATERAL (SELECT * FROM status_windows WHERE server_id = u.id OFFSET 0) w`, serverIDs)
		if err != nil {
			return err
		}
		defer rows.Close()
		var buf []int64
		for rows.Next() {
			var server int64
			var region string
			var missing bool
			var raw []byte
			if err := rows.Scan(&server, &region, &missing, &raw); err != nil {
				return err
			}
			if missing {
				return errStatusStale
			}
			if buf, err = decodeInt8Rows(raw, dayLatencyWidth, buf[:0]); err != nil {
				return fmt.Errorf("hour latency of server %d in %q: %w", server, region, err)
			}
			for d := buf; len(d) > 0; d = d[dayLatencyWidth:] {
				hour := time.Unix(d[0]*3600, 0).UTC()
				if hour.Before(from) || !hour.Before(to) {
					continue
				}
				out = append(out, ServerHour{ServerID: server, HourStats: HourStats{Hour: hour, Region: region, Stats: dayStats(d[:dayLatencyWidth])}})
			}
		}
		return rows.Err()
	})
	if errors.Is(err, errStatusStale) {
		return s.HourlyRollups(ctx, serverIDs, from, to)
	}
	if err != nil {
		return nil, fmt.Errorf("store: recent hours: %w", err)
	}
	// The hours outside the sums.
	for _, r := range [][2]time.Time{{from, minTime(sumsFrom, to)}, {maxTime(sumsTo, from), to}} {
		if !r[0].Before(r[1]) {
			continue
		}
		hours, err := s.HourlyRollups(ctx, serverIDs, r[0], r[1])
		if err != nil {
			return nil, err
		}
		out = append(out, hours...)
	}
	slices.SortFunc(out, func(a, b ServerHour) int {
		return cmp.Or(cmp.Compare(a.ServerID, b.ServerID), strings.Compare(a.Region, b.Region), a.Hour.Compare(b.Hour))
	})
	return out, nil
}

// recentSumsAsOf is the hour the status sums were made at, when they are recent enough at
// the hour h to read from (errStatusStale otherwise: the caller reads the rollups instead).
func recentSumsAsOf(ctx context.Context, tx pgx.Tx, h time.Time) (time.Time, error) {
	var asOf *time.Time
	if err := tx.QueryRow(ctx, `SELECT as_of FROM status_windows_state`).Scan(&asOf); err != nil {
		return time.Time{}, fmt.Errorf("read state: %w", err)
	}
	if asOf == nil || asOf.After(h) || h.Sub(*asOf) > maxStatusLag*time.Hour {
		return time.Time{}, errStatusStale
	}
	return asOf.UTC(), nil
}
