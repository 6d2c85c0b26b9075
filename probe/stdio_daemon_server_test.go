package probe

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

// startDaemon runs the first child of a double fork (the "daemon-parent" mode) in a session
// of its own and waits for it: it returns once the daemon is running and its pid is in
// pidFile. Every process of the chain carries pidFile in its command line, which is how the
// tests find them in /proc.
func startDaemon(pidFile string) error {
	cmd := exec.Command(os.Args[0], "daemon-parent", pidFile)
	cmd.Env = append(os.Environ(), stdioServerEnv+"=daemon-parent:"+pidFile)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("daemonizing: %w: %s", err, out)
	}
	return nil
}

// runDaemonParent starts the daemon, waits until it ignores SIGTERM, records its pid and
// exits, leaving it an orphan outside the server's process group and session.
func runDaemonParent(pidFile string) int {
	cmd := exec.Command(os.Args[0], "daemon", pidFile)
	cmd.Env = append(os.Environ(), stdioServerEnv+"=daemon")
	ready, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if line, err := bufio.NewReader(ready).ReadString('\n'); err != nil || line != "ready\n" {
		fmt.Fprintln(os.Stderr, "daemon did not get ready:", line, err)
		return 1
	}
	f, err := os.OpenFile(pidFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err == nil {
		_, err = fmt.Fprintln(f, cmd.Process.Pid)
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// runDaemon is the daemon: deaf to SIGTERM, with no stdio of the server's, sleeping.
func runDaemon() int {
	signal.Ignore(syscall.SIGTERM, syscall.SIGHUP)
	fmt.Println("ready")
	_ = os.Stdout.Close()
	time.Sleep(time.Hour)
	return 0
}

// holdStdioServer is a stand-in for a prober: it starts the test server of the given mode on
// a stdio connection, prints the server's pid and then waits to be killed.
func holdStdioServer(mode string) int {
	target := Target{Command: []string{os.Args[0]}, Env: []string{stdioServerEnv + "=" + mode}}
	o := stdioTestOptions()
	w := newConnWire(ConnMain, NewTranscript(), o.Limits, nil)
	tp, err := dialStdio(context.Background(), target, ConnMain, w, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(strconv.Itoa(tp.(*stdioTransport).pid))
	time.Sleep(time.Hour)
	return 0
}
