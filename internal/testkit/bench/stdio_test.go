package bench

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// binaries are built once in TestMain when a benchmark is asked for; tests alone build nothing.
type binaries struct {
	prober, fixture string
}

var built binaries // written once by TestMain, read-only afterwards

func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.bench"); f != nil && f.Value.String() != "" {
		dir, err := os.MkdirTemp("", "mcpwatch-bench")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		built = binaries{prober: filepath.Join(dir, "prober"), fixture: filepath.Join(dir, "mcpfixture")}
		// The prober is built as the README and action.yml build it: static, without cgo.
		// The fixture is built the default way, as a server author's binary would be.
		for _, b := range []struct {
			pkg, out string
			env      []string
		}{
			{"../../../cmd/prober", built.prober, []string{"CGO_ENABLED=0"}},
			{"../fixture/cmd/mcpfixture", built.fixture, nil},
		} {
			cmd := exec.Command("go", "build", "-trimpath", "-o", b.out, b.pkg)
			cmd.Env = append(os.Environ(), b.env...)
			cmd.Stderr = os.Stderr
			if err := cmd.Run(); err != nil {
				fmt.Fprintf(os.Stderr, "building %s: %v\n", b.pkg, err)
				os.Exit(1)
			}
		}
		code := m.Run()
		os.RemoveAll(dir)
		os.Exit(code)
	}
	os.Exit(m.Run())
}

const initializeLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}` + "\n"

// childUsage adds up what the commands a benchmark ran cost, as the kernel counts it for a
// reaped child (its own reaped children included): CPU time and minor page faults. On the
// 2-vCPU virtual machines these benchmarks were measured on, a page fault costs about 25 µs
// (a Go program that prints one line takes 5 ms, 182 faults), so a process's start-up time
// follows its fault count more than anything else: the two numbers say where the wall time
// went.
type childUsage struct {
	cpu    time.Duration
	faults int64
	peak   int64 // KiB
}

func (u *childUsage) add(ps *os.ProcessState) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return
	}
	u.cpu += cpuOf(ru)
	u.faults += ru.Minflt
	u.peak = max(u.peak, ru.Maxrss) // KiB on Linux
}

func (u *childUsage) report(b *testing.B) {
	reportCPUTime(b, u.cpu)
	b.ReportMetric(float64(u.faults)/float64(b.N), "faults/op")
}

// serverStartup is the server's own start-up as a minimal client sees it: spawn, the answer
// to initialize, stdin closed, process gone. It returns how the process ended.
func serverStartup() (*os.ProcessState, error) {
	cmd := exec.Command(built.fixture)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	fail := func(err error) (*os.ProcessState, error) {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, err
	}
	if _, err := io.WriteString(stdin, initializeLine); err != nil {
		return fail(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.Contains(line, `"result"`) {
		return fail(fmt.Errorf("initialize answer %q: %v", line, err))
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		return nil, err
	}
	return cmd.ProcessState, nil
}

// BenchmarkCheckCommandStdio runs the real binary, `prober check -- mcpfixture`, against the
// server's own start-up. Targets: the difference of the two under 30 ms, the prober's peak
// RSS under 30 MB. two-servers-startup shows how much of that difference the two server
// processes of a stdio probe take by themselves. Each reports the CPU time and page faults
// of the processes it ran: for the check, the prober's own and those of the two server
// processes it starts and reaps.
func BenchmarkCheckCommandStdio(b *testing.B) {
	if built.prober == "" {
		b.Skip("binaries are built only when benchmarks run")
	}
	b.Run("server-startup", func(b *testing.B) {
		var u childUsage
		for b.Loop() {
			ps, err := serverStartup()
			if err != nil {
				b.Fatal(err)
			}
			u.add(ps)
		}
		u.report(b)
	})
	// What the probe's session shape costs before the prober does anything: the fresh
	// connection of the version-negotiation initialize is a second server process, started
	// beside the main one. On a machine with few cores the two compete for them.
	b.Run("two-servers-startup", func(b *testing.B) {
		var u childUsage
		for b.Loop() {
			var wg sync.WaitGroup
			var states [2]*os.ProcessState
			var errs [2]error
			for i := range states {
				wg.Go(func() { states[i], errs[i] = serverStartup() })
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					b.Fatal(err)
				}
				u.add(states[i])
			}
		}
		u.report(b)
	})
	b.Run("prober-check", func(b *testing.B) {
		var u childUsage
		for b.Loop() {
			cmd := exec.Command(built.prober, "check", "--format", "json", "--", built.fixture)
			out, err := cmd.Output()
			if err != nil {
				b.Fatalf("prober check: %v\n%s", err, out)
			}
			u.add(cmd.ProcessState)
		}
		u.report(b)
		// The largest of the prober and the servers it reaped: the prober is the largest.
		b.ReportMetric(float64(u.peak)/1024, "peak-RSS-MiB")
	})
}
