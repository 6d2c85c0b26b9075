package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// DetailHours is how many hours of latency a server's detail carries, per region.
const DetailHours = 7 * 24

// RegionWindows are one region's uptime windows and days.
type RegionWindows struct {
	Region  string
	Windows []WindowStats
	Days    []DayUptime
}

// HourStats is one hour of one server seen from one region: counts and latency histogram
// (percentiles with Stats.LatencyQuantile).
type HourStats struct {
	Hour   time.Time
	Region string
	Stats
}

// ServerDetail is everything a server's page shows beyond runs, tools and alerts: its status,
// its windows per region (summed from the rollups directly, so exact at any time) and its
// hourly latency for the last DetailHours hours per region, oldest first.
type ServerDetail struct {
	ServerStatus
	ByRegion []RegionWindows
	Hours    []HourStats
}

// ServerDetail returns the detail of one server read at now.
func (s *Store) ServerDetail(ctx context.Context, id int64, now time.Time) (ServerDetail, error) {
	// The figures by region come from the same reading as the server's: the status sums of
	// each region and the latest hours, not 90 days of rollups summed again (their rows lie
	// one a page apart, as rollups are written an hour at a time for every server).
	sts, ws, err := s.statuses(ctx, s.oneServer(id), id, now)
	if err != nil {
		return ServerDetail{}, err
	}
	d := ServerDetail{ServerStatus: sts[0]}
	regions := ws.regions(id)
	slices.Sort(regions)
	for _, region := range regions {
		var a windowAcc
		ws.regionSums(id, region, &a)
		windows, days := a.result(nil)
		d.ByRegion = append(d.ByRegion, RegionWindows{Region: region, Windows: windows, Days: dayUptimes(days, dayOf(now))})
	}
	h := now.UTC().Truncate(time.Hour)
	rows, err := s.pool.Query(ctx, `SELECT server_id, region, hour, `+statsColumnsPlain+` FROM rollups
		WHERE server_id = $1 AND hour > $2 AND hour <= $3 ORDER BY hour, region`,
		id, h.Add(-DetailHours*time.Hour), h)
	if err != nil {
		return ServerDetail{}, fmt.Errorf("store: hourly latency of server %d: %w", id, err)
	}
	defer rows.Close()
	for rows.Next() {
		var hs HourStats
		var server int64
		if err := scanHourStats(rows, &server, &hs.Region, &hs.Hour, &hs.Stats); err != nil {
			return ServerDetail{}, fmt.Errorf("store: hourly latency of server %d: %w", id, err)
		}
		hs.Hour = hs.Hour.UTC()
		d.Hours = append(d.Hours, hs)
	}
	if err := rows.Err(); err != nil {
		return ServerDetail{}, fmt.Errorf("store: hourly latency of server %d: %w", id, err)
	}
	slices.SortStableFunc(d.Hours, func(a, b HourStats) int {
		if c := a.Hour.Compare(b.Hour); c != 0 {
			return c
		}
		return strings.Compare(a.Region, b.Region)
	})
	return d, nil
}
