package probe

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/process"
)

// daemonizingTarget is a server that leaves a SIGTERM-deaf daemon in a session of its own
// behind every process it starts, recording the daemons' pids in the returned file. Nothing
// about the daemon points back at the server: not its parent (its parent has exited), not its
// process group, not its session.
func daemonizingTarget(t *testing.T) (Target, string) {
	t.Helper()
	pidFile := filepath.Join(t.TempDir(), "daemons")
	return stdioTestTarget(t, "daemonize:"+pidFile), pidFile
}

// processesLeft lists what is left of the daemonizing servers whose daemons recorded their
// pids in pidFile: live processes whose command line holds pidFile (the daemons and their
// first parents), and the daemons that are zombies waiting for this process to reap them (a
// zombie has no command line left; one of PID 1's is gone as far as the probe can tell). Each
// survivor is killed so that it does not outlive the test.
func processesLeft(t *testing.T, pidFile string) []process.Stat {
	t.Helper()
	var left []process.Stat
	seen := make(map[int]bool)
	for _, p := range processTable(t) {
		cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(p.PID) + "/cmdline")
		if err != nil || !bytes.Contains(cmdline, []byte(pidFile)) {
			continue
		}
		left = append(left, p)
		seen[p.PID] = true
	}
	for _, s := range daemonPIDs(t, pidFile) {
		pid, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("pid file holds %q", s)
		}
		p, err := process.ReadStat(pid)
		if err != nil || seen[pid] || (p.Dead() && p.PPID != os.Getpid()) {
			continue
		}
		left = append(left, p)
	}
	for _, p := range left {
		t.Cleanup(func() {
			_ = syscall.Kill(p.PID, syscall.SIGKILL)
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(p.PID, &ws, syscall.WNOHANG, nil)
		})
	}
	return left
}

// daemonPIDs reads the pids the daemonizing servers recorded.
func daemonPIDs(t *testing.T, pidFile string) []string {
	t.Helper()
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("reading the daemons' pids: %v", err)
	}
	return strings.Fields(string(raw))
}

func TestStdioDaemonizingServerLeavesNoProcessBehind(t *testing.T) {
	t.Parallel()
	target, pidFile := daemonizingTarget(t)
	o := stdioTestOptions()
	res, err := Run(context.Background(), target, o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	started := 0
	for _, p := range res.Processes {
		if p.Started {
			started++
		}
	}
	if pids := daemonPIDs(t, pidFile); len(pids) != started || started == 0 {
		t.Fatalf("%d daemons recorded for %d server processes", len(pids), started)
	}
	if left := processesLeft(t, pidFile); len(left) > 0 {
		t.Errorf("%d processes outlived the probe of %d server processes: %v", len(left), started, left)
	}
}

// The monitor runs probes side by side, each the same way; what one probe's cleanup kills
// must be its own processes, and all of them.
func TestStdioConcurrentProbesOfDaemonizingServersLeaveNothing(t *testing.T) {
	t.Parallel()
	target, pidFile := daemonizingTarget(t)
	o := stdioTestOptions()
	const rounds, concurrent = 3, 3
	started := 0
	for range rounds {
		var wg sync.WaitGroup
		results := make([]*Result, concurrent)
		for i := range concurrent {
			wg.Go(func() {
				res, err := Run(context.Background(), target, o)
				if err != nil {
					t.Errorf("Run: %v", err)
				}
				results[i] = res
			})
		}
		wg.Wait()
		for _, res := range results {
			if res == nil {
				continue
			}
			for _, p := range res.Processes {
				if p.Started {
					started++
				}
			}
		}
	}
	if pids := daemonPIDs(t, pidFile); len(pids) != started || started == 0 {
		t.Fatalf("%d daemons recorded for %d server processes", len(pids), started)
	}
	if left := processesLeft(t, pidFile); len(left) > 0 {
		t.Errorf("%d processes outlived %d probes of %d server processes: %v", len(left), rounds*concurrent, started, left)
	}
}

// Closing one connection must not touch the daemon of another that is still open: the
// orphans of all servers share one parent (this process, their subreaper), so parentage
// cannot tell them apart.
func TestStdioClosingOneServerSparesAnotherServersDaemon(t *testing.T) {
	t.Parallel()
	firstTarget, firstPIDs := daemonizingTarget(t)
	secondTarget, secondPIDs := daemonizingTarget(t)
	o := stdioTestOptions()
	first, w1, _ := dialTestServer(t, firstTarget, o)
	second, w2, _ := dialTestServer(t, secondTarget, o)
	for _, c := range []struct {
		st *stdioTransport
		w  *connWire
	}{{first, w1}, {second, w2}} {
		if a := roundTrip(t, c.st, c.w, 1, "initialize"); a.err != nil {
			t.Fatalf("initialize: %v", a.err)
		}
	}
	closeTimed(t, first)
	if left := processesLeft(t, firstPIDs); len(left) > 0 {
		t.Errorf("closing the first server left %v", left)
	}
	pids := daemonPIDs(t, secondPIDs)
	if len(pids) != 1 {
		t.Fatalf("second server recorded %d daemons, want 1", len(pids))
	}
	if pid, _ := strconv.Atoi(pids[0]); !processAlive(pid) {
		t.Errorf("closing the first server killed the second server's daemon %d", pid)
	}
	closeTimed(t, second)
	if left := processesLeft(t, secondPIDs); len(left) > 0 {
		t.Errorf("closing the second server left %v", left)
	}
}

// processAlive reports whether pid is a process that has not died (a zombie has).
func processAlive(pid int) bool {
	p, err := process.ReadStat(pid)
	return err == nil && !p.Dead()
}

// A prober killed outright runs no shutdown sequence; its servers must die with it all the
// same, or a crashed monitor worker leaves one server per connection running for good.
func TestStdioServerDiesWithAKilledProber(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The stand-in prober starts a server that ignores stdin EOF and SIGTERM.
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), stdioServerEnv+"=prober-of:stubborn", "GORACE=atexit_sleep_ms=0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the server's pid: %v", err)
	}
	server, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || server <= 0 {
		t.Fatalf("prober printed %q, want a pid", line)
	}
	t.Cleanup(func() { _ = syscall.Kill(server, syscall.SIGKILL) })
	if !processAlive(server) {
		t.Fatalf("server %d is not running before the prober is killed", server)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	// The kernel delivers the parent-death signal as the prober exits; the server is reaped
	// by whoever adopts it, so poll briefly for its end.
	deadline := time.Now().Add(2 * time.Second)
	for processAlive(server) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if processAlive(server) {
		t.Errorf("server %d runs on after its prober was killed with SIGKILL", server)
	}
}

// Linux sends the parent-death signal when the thread that started the child ends, not the
// process: a server must not die because the goroutine that dialled it had its OS thread
// thrown away.
func TestStdioServerOutlivesTheThreadThatStartedIt(t *testing.T) {
	t.Parallel()
	o := stdioTestOptions()
	target := stdioTestTarget(t, "mcp")
	w := newConnWire(ConnMain, NewTranscript(), o.Limits, nil)
	dialled := make(chan *stdioTransport, 1)
	go func() {
		// Exiting while locked makes the runtime end this goroutine's thread.
		runtime.LockOSThread()
		tp, err := dialStdio(context.Background(), target, ConnMain, w, o)
		if err != nil {
			t.Errorf("dialStdio: %v", err)
			dialled <- nil
			return
		}
		dialled <- tp.(*stdioTransport)
	}()
	st := <-dialled
	if st == nil {
		return
	}
	t.Cleanup(func() { _ = st.Close(context.Background()) })
	time.Sleep(300 * time.Millisecond) // the thread's end and the signal are asynchronous
	if a := roundTrip(t, st, w, 1, "ping"); a.err != nil {
		t.Errorf("ping after the dialling thread ended: %v", a.err)
	}
	if p := onlyProcess(t, w); p.Exited {
		t.Errorf("server ended once the thread that started it was gone: %+v", p)
	}
}
