package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal pair (master, terminal) of 80 columns, the way a terminal
// emulator does: /dev/ptmx, unlocked, and the numbered terminal it names.
func openPTY(t *testing.T) (master, term *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		master.Close()
		t.Fatalf("unlocking the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		master.Close()
		t.Fatalf("naming the pseudo-terminal: %v", err)
	}
	term, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		t.Fatalf("opening the pseudo-terminal: %v", err)
	}
	if err := unix.IoctlSetWinsize(int(term.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: 80}); err != nil {
		t.Fatalf("sizing the pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { master.Close(); term.Close() })
	return master, term
}

// runWithTerminalStderr runs prober as a process whose stderr is a pseudo-terminal and whose
// stdout is a pipe, as `prober check … > report.txt` in a terminal, and returns what the
// terminal showed and the report.
func runWithTerminalStderr(t *testing.T, args []string) (screen, report string, code int) {
	t.Helper()
	master, term := openPTY(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), asMainEnv+"=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, term
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	term.Close() // the child holds it now; the master reads EIO once the child is gone
	read := make(chan []byte, 1)
	go func() {
		var b bytes.Buffer
		_, err := io.Copy(&b, master)
		if err != nil && !errors.Is(err, syscall.EIO) {
			t.Errorf("reading the terminal: %v", err)
		}
		read <- b.Bytes()
	}()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case <-waited:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("prober did not finish")
	}
	select {
	case b := <-read:
		screen = string(b)
	case <-time.After(10 * time.Second):
		t.Fatal("the terminal never reported its end")
	}
	return screen, out.String(), cmd.ProcessState.ExitCode()
}

func TestProgressOnATerminalCountsTheWaitForASlowServer(t *testing.T) {
	screen, report, code := runWithTerminalStderr(t, stdioArgs(t, modeSlowStart))
	if code != exitOK {
		t.Fatalf("exit %d\nterminal:\n%q\nreport:\n%s", code, screen, report)
	}
	t.Logf("terminal capture:\n%q", screen)
	// One status line, rewritten in place: carriage return, text, erase to the end of line.
	frames := regexp.MustCompile(`\r([^\r\n]*)\x1b\[K`).FindAllStringSubmatch(screen, -1)
	if len(frames) < 5 {
		t.Fatalf("want the status line redrawn while the server starts, got %d redraws:\n%q", len(frames), screen)
	}
	// The counter of the wait for the first answer climbs against the init timeout.
	counter := regexp.MustCompile(`^waiting for (server/discover|initialize) \(connection 1\), (\d+\.\d) s of 45 s$`)
	var counted []string
	for _, f := range frames {
		if m := counter.FindStringSubmatch(f[1]); m != nil {
			counted = append(counted, m[2])
		}
		if n := len([]rune(f[1])); n > 79 {
			t.Errorf("status line of %d columns on an 80-column terminal: %q", n, f[1])
		}
	}
	if len(counted) < 3 || counted[0] == counted[len(counted)-1] {
		t.Errorf("want the wait counted up across redraws, got %v:\n%q", counted, screen)
	}
	if last := counted[len(counted)-1]; last < "2.0" {
		t.Errorf("the count stopped at %s s, before the server's %s start", last, slowStartDelay)
	}
	// The line is erased before prober ends, so that the shell prompt starts clean.
	if !strings.HasSuffix(screen, "\r\x1b[K") {
		t.Errorf("the status line is left on the terminal:\n%q", screen[max(0, len(screen)-200):])
	}
	if strings.ContainsAny(report, "\r\x1b") {
		t.Errorf("progress leaked into the report:\n%q", report)
	}
}

func TestProgressIsSilentWhenStderrIsNotATerminal(t *testing.T) {
	tests := []struct {
		name  string
		flags []string
		want  []string // lines of stderr, as regular expressions; none: stderr is empty
	}{
		{name: "without --progress", flags: nil},
		{name: "--progress=false", flags: []string{"--progress=false"}},
		{name: "--progress writes plain lines", flags: []string{"--progress"}, want: []string{
			`^prober check: probing .* \(up to 60 s\)$`,
			`^prober check: opening the connection to `,
			`^prober check: waiting for (server/discover|initialize) \(connection 1\), \d\.\d s of 45 s$`,
			`^prober check: waiting for (server/discover|initialize) \(connection 1\): answered after \d\.\d s$`,
			`^prober check: probe finished after \d\.\d s$`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out, errOut bytes.Buffer
			code := dispatch(t.Context(), stdioArgs(t, modeSlowStart, tt.flags...), &out, &errOut)
			if code != exitOK {
				t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
			}
			if strings.ContainsAny(errOut.String(), "\r\x1b") {
				t.Errorf("terminal controls on a stderr that is no terminal:\n%q", errOut.String())
			}
			if len(tt.want) == 0 {
				if errOut.Len() != 0 {
					t.Errorf("want nothing on stderr, got:\n%s", errOut.String())
				}
				return
			}
			lines := strings.Split(strings.TrimSuffix(errOut.String(), "\n"), "\n")
			next := 0
			for _, line := range lines {
				if next < len(tt.want) && regexp.MustCompile(tt.want[next]).MatchString(line) {
					next++
				}
			}
			if next < len(tt.want) {
				t.Errorf("no line matches %q (in order)\nstderr:\n%s", tt.want[next], errOut.String())
			}
		})
	}
}
