//go:build !checkonly

package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/pgtest"
	"github.com/mcpwatch/mcpwatch/migrations"
)

func testEnv(stdout, stderr *bytes.Buffer, env map[string]string) environment {
	return environment{stdout: stdout, stderr: stderr, lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
}

func TestMigrateFromEmptyTwiceInParallelAppliesEachOnce(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	all, err := migrations.All()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var outs, errs [2]bytes.Buffer
	var codes [2]int
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Go(func() { codes[i] = dispatch(ctx, []string{"migrate", "--database-url", db.URL}, &outs[i], &errs[i]) })
	}
	wg.Wait()
	applied := map[string]int{}
	for i := range 2 {
		if codes[i] != exitOK {
			t.Fatalf("process %d: exit %d: %s", i, codes[i], errs[i].String())
		}
		for _, line := range strings.Split(strings.TrimSpace(outs[i].String()), "\n") {
			if name, ok := strings.CutPrefix(line, "applied "); ok {
				applied[name]++
			}
		}
		if want := "schema at version "; !strings.Contains(outs[i].String(), want) {
			t.Errorf("process %d printed %q, want %q", i, outs[i].String(), want)
		}
	}
	for _, m := range all {
		if applied[m.Name] != 1 {
			t.Errorf("%s applied %d times by the two processes, want once", m.Name, applied[m.Name])
		}
	}

	var out, errb bytes.Buffer
	if code := dispatch(ctx, []string{"migrate", "--database-url", db.URL}, &out, &errb); code != exitOK || strings.Contains(out.String(), "applied") {
		t.Errorf("a third run: exit %d, %q; want 0 and nothing applied", code, out.String())
	}
}

func TestMigrateUsage(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	tests := []struct {
		name string
		args []string
		env  map[string]string
		code int
		want string
	}{
		{"no database", []string{}, nil, exitUsage, "no database: give --database-url or set MCPWATCH_DATABASE_URL"},
		{"an argument", []string{"--database-url", "postgres://x@127.0.0.1:1/db", "extra"}, nil, exitUsage, `unexpected argument "extra"`},
		{"help", []string{"--help"}, nil, exitOK, "prober migrate: bring the database schema up to date"},
		{"nothing listens", []string{"--database-url", "postgres://x@127.0.0.1:1/db?connect_timeout=2"}, nil, exitFailed, "prober migrate:"},
		{"the variable names it", []string{}, map[string]string{"DATABASE_URL": "postgres://x@127.0.0.1:1/db?connect_timeout=2"}, exitFailed, "prober migrate:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := testEnv(&out, &errb, tt.env).migrate(ctx, tt.args)
			if code != tt.code || !strings.Contains(out.String()+errb.String(), tt.want) {
				t.Errorf("exit %d, output %q; want %d and %q", code, out.String()+errb.String(), tt.code, tt.want)
			}
		})
	}
}
