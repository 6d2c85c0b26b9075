//go:build linux

package interop

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"
)

// The harness tests re-run the test binary as a stand-in server (helperEnv selects what it
// does), so that starting, readiness and stopping are tested without a real server.
const helperEnv = "MCPWATCH_INTEROP_HELPER"

// runHelper is the stand-in server's main: "listen" listens on $HELPER_ADDR after starting
// a grandchild that ignores SIGTERM (what Stop must still end); "exit" exits at once.
func runHelper(mode string) int {
	switch mode {
	case "exit":
		return 3
	case "listen":
		grandchild := exec.Command("sh", "-c", "trap '' TERM; sleep 120")
		if err := grandchild.Start(); err != nil {
			return 4
		}
		l, err := net.Listen("tcp", os.Getenv("HELPER_ADDR"))
		if err != nil {
			return 5
		}
		os.Stdout.WriteString("helper listening\n")
		for {
			c, err := l.Accept()
			if err != nil {
				return 6
			}
			c.Close()
		}
	}
	return 2
}

func helperSpec(mode, addr string) ServerSpec {
	return ServerSpec{
		Command: []string{os.Args[0], "-test.run=^$"},
		Env:     []string{helperEnv + "=" + mode, "HELPER_ADDR=" + addr},
		Ready:   addr,
	}
}

func TestStartServerWaitsForThePortAndStopEndsTheWholeGroup(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	port := freePort(t)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	p, err := StartServer(ctx, helperSpec("listen", HostPort(port)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Stop() })

	addrs, err := ListeningAddrs(port)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(addrs, []string{"127.0.0.1"}) {
		t.Errorf("ListeningAddrs(%d) = %v, want [127.0.0.1]", port, addrs)
	}
	ls, err := GroupListeners(p.PID())
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 1 || ls[0].PID != p.PID() || ls[0].Port != port || ls[0].IP.String() != "127.0.0.1" {
		t.Errorf("GroupListeners(%d) = %v, want the helper's one socket on 127.0.0.1:%d", p.PID(), ls, port)
	}
	// The grandchild starts before the listener, so it is in the group by now.
	members, err := GroupMembers(p.PID())
	if err != nil {
		t.Fatal(err)
	}
	if len(members) < 2 {
		t.Fatalf("process group %d has %d members, want the server and its child:\n%s", p.PID(), len(members), procLines(members))
	}

	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	// The grandchild ignores SIGTERM and is not ours to wait for: give the kernel a bounded
	// moment to finish the SIGKILL.
	deadline := time.Now().Add(5 * time.Second)
	for {
		left, err := GroupMembers(p.PID())
		if err != nil {
			t.Fatal(err)
		}
		if len(left) == 0 || (len(left) == 1 && left[0].State == "Z" && left[0].PPID != os.Getpid()) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("process group %d survived Stop:\n%s", p.PID(), procLines(left))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if out := p.Output(); out != "helper listening\n" {
		t.Errorf("output %q, want the helper's line", out)
	}
	if err := p.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}

func TestStartServerReportsAServerThatExitsBeforeListening(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	_, err := StartServer(ctx, helperSpec("exit", HostPort(freePort(t))))
	if !errors.Is(err, ErrExitedEarly) {
		t.Fatalf("err = %v, want ErrExitedEarly", err)
	}
}

func TestStartServerGivesUpWhenNothingListens(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	// sleep never listens: the start must end with ctx, and the process with it.
	_, err := StartServer(ctx, ServerSpec{Command: []string{"sleep", "30"}, Ready: HostPort(freePort(t))})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a deadline error", err)
	}
}

func TestProcIPDecodesKernelByteOrder(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"0100007F", "127.0.0.1"},
		{"00000000", "0.0.0.0"},
		{"00000000000000000000000000000000", "::"},
		{"00000000000000000000000001000000", "::1"},
		{"0000000000000000FFFF00000100007F", "127.0.0.1"}, // IPv4-mapped
	} {
		ip, err := procIP(tc.in)
		if err != nil {
			t.Fatalf("procIP(%q): %v", tc.in, err)
		}
		if ip.String() != tc.want {
			t.Errorf("procIP(%q) = %s, want %s", tc.in, ip, tc.want)
		}
	}
	for _, bad := range []string{"", "zz00007F", "0100007F00"} {
		if _, err := procIP(bad); err == nil {
			t.Errorf("procIP(%q) did not fail", bad)
		}
	}
}

func TestTailBufferKeepsTheLastBytes(t *testing.T) {
	b := &tailBuffer{max: 8}
	for _, s := range []string{"abc", "defgh", "ijk"} {
		b.Write([]byte(s))
	}
	if got := b.String(); got != "defghijk" {
		t.Errorf("tail = %q, want %q", got, "defghijk")
	}
}

func TestChildrenListsAStartedChild(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	kids, err := Children(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range kids {
		if k.PID == cmd.Process.Pid {
			if k.Command != "sleep 30" {
				t.Errorf("command %q, want %q", k.Command, "sleep 30")
			}
			return
		}
	}
	t.Errorf("child %d not among %v", cmd.Process.Pid, kids)
}
