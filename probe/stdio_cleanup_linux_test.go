package probe

import (
	"context"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/process"
)

// forkingTarget starts the test server behind a shell that first forks two long sleepers
// into the same process group, the way `sh -c`, npx and friends leave helpers around.
func forkingTarget(t *testing.T, mode string) Target {
	t.Helper()
	inner := stdioTestTarget(t, mode)
	return Target{
		Command: []string{"/bin/sh", "-c", `sleep 300 & sleep 300 & exec "$0"`, inner.Command[0]},
		Env:     inner.Env,
	}
}

func TestStdioForkingServerLeavesNoProcessBehind(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("no /bin/sh")
	}
	adopting := process.AdoptOrphans() == nil
	tests := []struct {
		mode    string
		grace   time.Duration
		endedBy string
	}{
		{"mcp", 3 * time.Second, "stdin-eof"}, // the leader leaves on EOF, its sleepers would stay
		{"stubborn", 200 * time.Millisecond, "SIGKILL"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			o := stdioTestOptions()
			o.ShutdownGrace = tt.grace
			st, w, _ := dialTestServer(t, forkingTarget(t, tt.mode), o)
			if a := roundTrip(t, st, w, 1, "initialize"); a.err != nil {
				t.Fatalf("initialize: %v", a.err)
			}
			live := 0
			for _, p := range groupMembers(t, st.pid) {
				if p.State != 'Z' {
					live++
				}
			}
			if live < 3 {
				t.Fatalf("group %d has %d live processes, want the server and its two sleepers", st.pid, live)
			}
			if took := closeTimed(t, st); took > closeBound(o) {
				t.Errorf("Close took %v, want at most %v", took, closeBound(o))
			}
			if p := onlyProcess(t, w); p.EndedBy != tt.endedBy {
				t.Errorf("ended by %q, want %q", p.EndedBy, tt.endedBy)
			}
			assertGroupGone(t, st.pid, adopting)
		})
	}
}

func TestStdioCancelledProbeLeavesNoProcessBehind(t *testing.T) {
	t.Parallel()
	adopting := process.AdoptOrphans() == nil
	o := stdioTestOptions()
	o.InitTimeout = 20 * time.Second
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	// The stall server never answers, so the probe is cut short by the cancellation.
	res, err := Run(ctx, forkingTarget(t, "stall"), o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if took := time.Since(start); took > 300*time.Millisecond+closeBound(o) {
		t.Errorf("cancelled probe took %v", took)
	}
	if len(res.Processes) != 2 {
		t.Fatalf("got %d processes, want 2", len(res.Processes))
	}
	for _, p := range res.Processes {
		if !p.Exited {
			t.Errorf("conn %d: process not recorded as ended: %+v", p.Conn, p)
		}
		assertGroupGone(t, p.PID, adopting)
	}
}

// Not parallel: it counts this process's children and goroutines. Parallel tests only resume
// once every sequential test has finished, so none runs beside it.
func TestStdioProbingHostileServersLeaksNothing(t *testing.T) {
	adopting := process.AdoptOrphans() == nil
	self := os.Getpid()
	countChildren := func() (live, zombies int) {
		for _, p := range childrenOf(t, self) {
			if p.State == 'Z' {
				zombies++
			} else {
				live++
			}
		}
		return live, zombies
	}
	liveBefore, zombiesBefore := countChildren()
	goroutinesBefore := runtime.NumGoroutine()

	o := stdioTestOptions()
	o.InitTimeout = 500 * time.Millisecond
	o.Limits.MaxFrames = 1000
	targets := []Target{
		stdioTestTarget(t, "stubborn"),
		stdioTestTarget(t, "flood"),
		stdioTestTarget(t, "stall"),
		stdioTestTarget(t, "trickle"),
		stdioTestTarget(t, "exit3"),
		stdioTestTarget(t, "deaf"),
		forkingTarget(t, "stubborn"),
		{Command: []string{"mcpwatch-no-such-server-command"}},
	}
	var pids []int
	for _, target := range targets {
		res, err := Run(context.Background(), target, o)
		if err != nil {
			t.Fatalf("Run %s: %v", target, err)
		}
		for _, p := range res.Processes {
			if p.Started {
				pids = append(pids, p.PID)
			}
		}
	}
	if len(pids) != 2*(len(targets)-1) {
		t.Errorf("started %d processes, want %d", len(pids), 2*(len(targets)-1))
	}
	for _, pid := range pids {
		assertGroupGone(t, pid, adopting)
	}
	live, zombies := countChildren()
	if live != liveBefore {
		t.Errorf("live children: %d before, %d after", liveBefore, live)
	}
	if adopting && zombies != zombiesBefore {
		t.Errorf("zombie children: %d before, %d after", zombiesBefore, zombies)
	}
	// Goroutines of finished transports end right after Close returns; give the scheduler
	// a moment, as there is no event to wait on.
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > goroutinesBefore && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > goroutinesBefore {
		buf := make([]byte, 1<<16)
		t.Errorf("goroutines: %d before, %d after\n%s", goroutinesBefore, n, buf[:runtime.Stack(buf, true)])
	}
}
