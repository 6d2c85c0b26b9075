package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
)

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
		var asOf *time.Time
		if err := tx.QueryRow(ctx, `SELECT as_of FROM status_windows_state`).Scan(&asOf); err != nil {
			return fmt.Errorf("read state: %w", err)
		}
		if asOf == nil || asOf.After(h) || h.Sub(*asOf) > maxStatusLag*time.Hour {
			return errStatusStale
		}
		a := asOf.UTC()
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
