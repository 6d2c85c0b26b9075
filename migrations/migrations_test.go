package migrations_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mcpwatch/mcpwatch/internal/testkit/pgtest"
	"github.com/mcpwatch/mcpwatch/migrations"
)

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func recorded(t *testing.T, ctx context.Context, pool *pgxpool.Pool) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil {
		t.Fatalf("count schema_migrations: %v", err)
	}
	return n
}

func TestApplyFromEmptyCreatesEveryTableInTheCurrentSchema(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	db := pgtest.New(t)
	pool := db.Pool(t)
	all, err := migrations.All()
	if err != nil {
		t.Fatal(err)
	}

	report, err := migrations.Apply(ctx, pool)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	if len(report.Applied) != len(all) || report.Version != all[len(all)-1].Version {
		t.Fatalf("applied %d migrations up to %d, want %d up to %d", len(report.Applied), report.Version, len(all), all[len(all)-1].Version)
	}
	for _, table := range []string{"schema_migrations", "servers", "regions", "schedule", "runs", "run_steps", "run_findings", "run_transcripts", "rollups", "latency_buckets"} {
		var found bool
		if err := pool.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, db.Schema+"."+table).Scan(&found); err != nil {
			t.Fatal(err)
		}
		if !found {
			t.Errorf("table %s is not in schema %s", table, db.Schema)
		}
	}

	again, err := migrations.Apply(ctx, pool)
	if err != nil {
		t.Fatalf("second Apply: %v", err)
	}
	if len(again.Applied) != 0 || again.Version != report.Version {
		t.Errorf("second Apply applied %d (version %d), want none (version %d)", len(again.Applied), again.Version, report.Version)
	}
	if n := recorded(t, ctx, pool); n != len(all) {
		t.Errorf("schema_migrations has %d rows, want %d", n, len(all))
	}
}

func TestApplyInParallelMigratesOnce(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	db := pgtest.New(t)
	all, err := migrations.All()
	if err != nil {
		t.Fatal(err)
	}
	const processes = 4
	pools := make([]*pgxpool.Pool, processes) // one pool each, as separate processes would have
	for i := range pools {
		pools[i] = db.Pool(t)
	}
	reports := make([]migrations.Report, processes)
	errs := make([]error, processes)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range processes {
		wg.Go(func() {
			<-start
			reports[i], errs[i] = migrations.Apply(ctx, pools[i])
		})
	}
	close(start)
	wg.Wait()

	applied := 0
	for i := range processes {
		if errs[i] != nil {
			t.Errorf("process %d: %v", i, errs[i])
		}
		applied += len(reports[i].Applied)
		if reports[i].Version != all[len(all)-1].Version {
			t.Errorf("process %d ends at version %d, want %d", i, reports[i].Version, all[len(all)-1].Version)
		}
	}
	if applied != len(all) {
		t.Errorf("%d migrations applied in all, want %d (each exactly once)", applied, len(all))
	}
	if n := recorded(t, ctx, pools[0]); n != len(all) {
		t.Errorf("schema_migrations has %d rows, want %d", n, len(all))
	}
}

func TestApplyRefusesAnAppliedMigrationThatChanged(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	_, pool := pgtest.Migrated(t)
	if _, err := pool.Exec(ctx, `UPDATE schema_migrations SET checksum = 'edited' WHERE version = 1`); err != nil {
		t.Fatal(err)
	}
	if _, err := migrations.Apply(ctx, pool); !errors.Is(err, migrations.ErrChecksumMismatch) {
		t.Fatalf("Apply after an edit: %v, want ErrChecksumMismatch", err)
	}
}

func TestApplyLeavesNothingBehindWhenAMigrationFails(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	db := pgtest.New(t)
	pool := db.Pool(t)
	list, err := migrations.Load(fstest.MapFS{
		"0001_first.sql":  {Data: []byte(`CREATE TABLE first (id int);`)},
		"0002_broken.sql": {Data: []byte(`CREATE TABLE second (id int); SELECT no_such_function();`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := migrations.ApplyList(ctx, pool, list); err == nil {
		t.Fatal("Apply of a broken migration succeeded")
	}
	var tables int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = $1`, db.Schema).Scan(&tables); err != nil {
		t.Fatal(err)
	}
	if tables != 0 {
		t.Errorf("%d tables left in the schema after a failed migration, want 0", tables)
	}

	// A fixed list then applies from scratch.
	report, err := migrations.ApplyList(ctx, pool, list[:1])
	if err != nil || len(report.Applied) != 1 {
		t.Fatalf("Apply of the good migration: %v (%d applied)", err, len(report.Applied))
	}
}

func TestLoadChecksFileNames(t *testing.T) {
	t.Parallel()
	sql := &fstest.MapFile{Data: []byte("SELECT 1;")}
	tests := []struct {
		name    string
		files   fstest.MapFS
		want    []int
		wantErr bool
	}{
		{"ordered by version", fstest.MapFS{"0002_b.sql": sql, "0001_a.sql": sql, "0010_c.sql": sql}, []int{1, 2, 10}, false},
		{"duplicate version", fstest.MapFS{"0001_a.sql": sql, "0001_b.sql": sql}, nil, true},
		{"version zero", fstest.MapFS{"0000_a.sql": sql}, nil, true},
		{"no number", fstest.MapFS{"a.sql": sql}, nil, true},
		{"short number", fstest.MapFS{"1_a.sql": sql}, nil, true},
		{"capitals", fstest.MapFS{"0001_Add.sql": sql}, nil, true},
		{"no name", fstest.MapFS{"0001_.sql": sql}, nil, true},
		{"five digits", fstest.MapFS{"00001_a.sql": sql}, nil, true},
		{"not sql", fstest.MapFS{"0001_a.sql.bak": sql}, nil, true},
		{"dash in name", fstest.MapFS{"0001_add-x.sql": sql}, nil, true},
		{"digits and underscores in name", fstest.MapFS{"0003_add_x2.sql": sql}, []int{3}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := migrations.Load(tt.files)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Load: %v, want error %v", err, tt.wantErr)
			}
			var versions []int
			for _, m := range got {
				versions = append(versions, m.Version)
				if len(m.Checksum) != 64 {
					t.Errorf("%s: checksum %q is not hex SHA-256", m.Name, m.Checksum)
				}
			}
			if len(versions) != len(tt.want) {
				t.Fatalf("versions %v, want %v", versions, tt.want)
			}
			for i := range versions {
				if versions[i] != tt.want[i] {
					t.Fatalf("versions %v, want %v", versions, tt.want)
				}
			}
		})
	}
}

func TestEmbeddedMigrationsLoad(t *testing.T) {
	t.Parallel()
	all, err := migrations.All()
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range all {
		if m.Version != i+1 {
			t.Errorf("migration %s has version %d, want %d: versions run 1, 2, 3 without gaps", m.Name, m.Version, i+1)
		}
	}
}
