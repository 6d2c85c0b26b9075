package probe

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/process"
)

// Shutdown budget beyond the two grace periods: how long a SIGKILLed group gets to disappear
// and its pipes to drain before the read ends are closed regardless.
const stdioKillBudget = time.Second

// exitNoteWait bounds how long the exit watcher lets the stdout reader catch up before it
// records the exit: a server that prints its answer and exits at once must have that answer
// in the transcript before the exit note, which fails every request still waiting.
const exitNoteWait = 250 * time.Millisecond

// stopPhase is how far the probe has gone in ending the process; the exit watcher reads it
// to say what ended the process (ProcessInfo.EndedBy).
type stopPhase uint8

const (
	phaseRunning     stopPhase = iota // nothing asked the process to end
	phaseStdinClosed                  // stdin was closed (the polite way, basic/lifecycle, Shutdown: stdio)
	phaseSIGTERM                      // SIGTERM was sent to the group
	phaseSIGKILL                      // SIGKILL was sent to the group
)

func (p stopPhase) endedBy() string {
	switch p {
	case phaseStdinClosed:
		return "stdin-eof"
	case phaseSIGTERM:
		return "SIGTERM"
	case phaseSIGKILL:
		return "SIGKILL"
	}
	return "exit"
}

// stdioTransport runs an MCP server as a child process (a process.Group, which also ends
// whatever the server forked) and speaks newline-delimited JSON-RPC over its stdin and
// stdout. The transport owns the parent ends of three os.Pipes (not exec's pipes): that gives
// it write deadlines on stdin and lets it close stdout and stderr itself, so that neither a
// server that stops reading nor a grandchild that keeps stdout open can block the probe.
type stdioTransport struct {
	w      Wire
	limits Limits
	grace  time.Duration
	log    *slog.Logger
	group  *process.Group
	pid    int // also the process group id

	stdin  *os.File
	stdout *os.File
	stderr *os.File
	ring   *process.Tail // of stderr

	// sendMu keeps concurrent messages from interleaving on stdin.
	sendMu sync.Mutex
	// broken is set when a write stopped part-way: stdin then holds half a message, and any
	// further message would be read as garbage.
	broken error

	clock sendClock

	mu          sync.Mutex
	phase       stopPhase
	closing     bool
	stdinClosed time.Duration
	exit        ProcessInfo // exit fields, once the leader is gone

	leaderGone   chan struct{} // closed when the group's leader was waited for
	exitRecorded chan struct{} // closed when the exit note and ProcessInfo are recorded
	stdoutDone   chan struct{}
	stderrDone   chan struct{}

	closeOnce sync.Once
	closeErr  error
}

var _ Transport = (*stdioTransport)(nil)

// dialStdio starts the server command in a process group of its own and begins reading its
// stdout (frames) and stderr (a bounded ring).
func dialStdio(ctx context.Context, t Target, conn int, w Wire, o Options) (Transport, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("stdio: not starting %q: %w", t.String(), err)
	}
	o = o.WithDefaults()
	if len(t.Command) == 0 || t.Command[0] == "" {
		err := errors.New("empty command")
		w.Process(ProcessInfo{Started: false, Error: err.Error()})
		return nil, fmt.Errorf("%w: %w", ErrSpawn, err)
	}
	tr, err := startStdio(t, w, o)
	if err != nil {
		w.Process(ProcessInfo{Started: false, Error: err.Error()})
		return nil, fmt.Errorf("%w: %w", ErrSpawn, err)
	}
	tr.log = o.Logger.With("conn", conn, "pid", tr.pid)
	tr.log.Debug("stdio server started", "command", t.String())
	w.Process(ProcessInfo{PID: tr.pid, Started: true})

	go tr.readStdout()
	go tr.readStderr()
	go tr.watchExit()
	return tr, nil
}

// startStdio creates the pipes and starts the process; on failure nothing is left open.
func startStdio(t Target, w Wire, o Options) (*stdioTransport, error) {
	var files []*os.File // every end, closed on failure
	closeAll := func() {
		for _, f := range files {
			_ = f.Close()
		}
	}
	pipe := func() (r, wr *os.File, err error) {
		r, wr, err = os.Pipe()
		if err == nil {
			files = append(files, r, wr)
		}
		return r, wr, err
	}
	inR, inW, err := pipe()
	if err != nil {
		return nil, fmt.Errorf("stdin pipe: %w", err)
	}
	outR, outW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("stdout pipe: %w", err)
	}
	errR, errW, err := pipe()
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("stderr pipe: %w", err)
	}

	cmd := exec.Command(t.Command[0], t.Command[1:]...)
	cmd.Env = append(os.Environ(), t.Env...)
	cmd.Dir = t.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	group, err := process.Start(cmd)
	if err != nil {
		closeAll()
		return nil, err
	}
	tr := &stdioTransport{
		w: w, limits: o.Limits, grace: o.ShutdownGrace, group: group, pid: group.PID(), clock: sendClock{now: w.Now},
		stdin: inW, stdout: outR, stderr: errR, ring: process.NewTail(o.Limits.MaxStderrBytes),
		leaderGone: make(chan struct{}), exitRecorded: make(chan struct{}),
		stdoutDone: make(chan struct{}), stderrDone: make(chan struct{}),
	}
	// The child has its own copies; the parent keeping them would hide EOF in both directions.
	_ = inR.Close()
	_ = outW.Close()
	_ = errW.Close()
	return tr, nil
}

// Send writes msg and a newline to the server's stdin. The write is bounded by ctx: a server
// that never reads its stdin fills the pipe, and the probe must not block on it.
func (t *stdioTransport) Send(ctx context.Context, msg []byte) (int, error) {
	t.sendMu.Lock()
	defer t.sendMu.Unlock()
	if err := t.sendable(); err != nil {
		return -1, err
	}
	line := make([]byte, len(msg)+1)
	copy(line, msg)
	line[len(msg)] = '\n'

	t.clock.writeStarted()
	// Recorded before the write: an answer read while the write is still in flight must come
	// after its request in the transcript. The time is stamped when the write returns.
	seq := t.w.Record(Frame{Dir: Out, Kind: KindMessage, Raw: line[:len(msg)], At: t.w.Now()})
	n, err := t.writeStdin(ctx, line)
	if err != nil {
		t.clock.writeFailed()
		if n > 0 {
			t.broken = fmt.Errorf("stdio: stdin holds part of a message after a failed write: %w", ErrClosed)
		}
		return seq, t.sendFailed(ctx, len(line), n, err)
	}
	t.w.Stamp(seq, t.clock.writeDone())
	return seq, nil
}

// sendable says why nothing may be written any more, if so.
func (t *stdioTransport) sendable() error {
	t.mu.Lock()
	closing := t.closing
	t.mu.Unlock()
	switch {
	case closing:
		return fmt.Errorf("stdio: %w", ErrClosed)
	case t.broken != nil:
		return t.broken
	}
	select {
	case <-t.leaderGone:
		return fmt.Errorf("stdio: the server process has exited: %w", ErrClosed)
	default:
		return nil
	}
}

// writeStdin writes all of p unless ctx ends first (its deadline becomes the write deadline;
// a cancellation moves the deadline into the past).
func (t *stdioTransport) writeStdin(ctx context.Context, p []byte) (int, error) {
	deadline, _ := ctx.Deadline() // the zero time means none
	if err := t.stdin.SetWriteDeadline(deadline); err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(fired)
		_ = t.stdin.SetWriteDeadline(time.Unix(1, 0))
	})
	n, err := t.stdin.Write(p)
	if !stop() {
		// The cancellation ran (or is running): let it finish before the next Send sets its
		// own deadline, or it could overwrite that one.
		<-fired
	}
	return n, err
}

// sendFailed records why a write failed and returns the error for the caller.
func (t *stdioTransport) sendFailed(ctx context.Context, size, written int, err error) error {
	t.w.Record(Frame{Dir: Out, Kind: KindNote, Note: NoteSendError,
		Detail: fmt.Sprintf("writing %d bytes to stdin (%d written): %v", size, written, err)})
	switch {
	case errors.Is(err, syscall.EPIPE), errors.Is(err, os.ErrClosed):
		return fmt.Errorf("stdio: writing to stdin: %w (%w)", ErrClosed, err)
	case errors.Is(err, os.ErrDeadlineExceeded) || ctx.Err() != nil:
		// Every write deadline comes from ctx, whose own timer may not have fired yet.
		cause := ctx.Err()
		if cause == nil {
			cause = context.DeadlineExceeded
		}
		return fmt.Errorf("stdio: writing to stdin: %w (%w)", cause, err)
	}
	return fmt.Errorf("stdio: writing to stdin: %w", err)
}

// Close runs the shutdown sequence of basic/lifecycle, Shutdown: stdio (close stdin, grace, SIGTERM to the group,
// grace, SIGKILL to the group), then kills whatever is left of the group, closes the read ends
// and waits for the transport's goroutines. It returns within about 2*ShutdownGrace +
// stdioKillBudget whatever the server does; a done ctx skips the grace periods.
func (t *stdioTransport) Close(ctx context.Context) error {
	t.closeOnce.Do(func() { t.closeErr = t.shutdown(ctx) })
	return t.closeErr
}

func (t *stdioTransport) shutdown(ctx context.Context) error {
	// Processes of the server outside its group, looked for while the server still runs: one
	// that ends on its own meanwhile is then still known, and reaped if it was re-parented
	// here.
	t.group.FindStrays()
	defer t.group.Release()

	t.mu.Lock()
	t.closing = true
	t.stdinClosed = t.w.Now()
	if !t.group.Exiting() {
		t.setPhase(phaseStdinClosed)
	}
	// Closing unblocks a Send stuck on a full pipe too. It happens under t.mu so that the
	// exit watcher sees either the phase before stdin closed or the one after.
	_ = t.stdin.Close()
	t.mu.Unlock()

	if !t.waitLeader(ctx, t.grace) {
		t.signal(phaseSIGTERM, t.group.Terminate)
		if !t.waitLeader(ctx, t.grace) {
			t.signal(phaseSIGKILL, t.group.Kill)
		}
	}
	// Whether the leader went politely or not, children it left in the group must not outlive
	// the probe.
	if err := t.group.Kill(); err != nil {
		t.log.Warn("killing the server's process group", "err", err)
	}
	// And so must those that left the group (a daemon that called setsid).
	t.group.KillStrays()

	budget, cancel := context.WithTimeout(context.WithoutCancel(ctx), stdioKillBudget)
	defer cancel()
	deadline, _ := budget.Deadline()
	var err error
	select {
	case <-t.leaderGone:
	case <-budget.Done():
		err = fmt.Errorf("stdio: process %d did not end within %s of SIGKILL", t.pid, stdioKillBudget)
	}
	// Let the readers drain what the server wrote before it died, then take the pipes away
	// from anyone still holding their write ends (a process that left the group).
	for _, done := range []chan struct{}{t.stdoutDone, t.stderrDone} {
		select {
		case <-done:
		case <-budget.Done():
		}
	}
	_ = t.stdout.Close()
	_ = t.stderr.Close()
	<-t.stdoutDone
	<-t.stderrDone

	if err != nil {
		// The leader is stuck (uninterruptible sleep); the watcher will record its end if it
		// ever comes. Nothing of its group can be reaped before it is; what left the group
		// can.
		t.log.Warn("stdio server did not end", "err", err)
		t.group.Reap(time.Now())
		t.w.Process(t.info())
		return err
	}
	<-t.exitRecorded
	// Members killed a moment ago may still be on their way out; give them a little time even
	// when draining used up the budget.
	if floor := time.Now().Add(100 * time.Millisecond); deadline.Before(floor) {
		deadline = floor
	}
	members, strays := t.group.Reap(deadline)
	if members > 0 {
		t.log.Debug("reaped orphaned group members", "count", members)
	}
	if strays > 0 {
		t.log.Debug("reaped orphaned processes that had left the group", "count", strays)
	}
	t.w.Process(t.info())
	return nil
}

// setPhase moves the shutdown forward (never back); t.mu is held.
func (t *stdioTransport) setPhase(p stopPhase) {
	if p > t.phase {
		t.phase = p
	}
}

// signal records that the group is being sent a signal, then sends it.
func (t *stdioTransport) signal(p stopPhase, send func() error) {
	t.mu.Lock()
	t.setPhase(p)
	t.mu.Unlock()
	t.log.Debug("stdio server did not exit; signalling its group", "signal", p.endedBy())
	if err := send(); err != nil {
		t.log.Warn("signalling the server's process group", "err", err)
	}
}

// waitLeader waits up to d for the process to end; a done ctx stops the wait at once.
func (t *stdioTransport) waitLeader(ctx context.Context, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-t.leaderGone:
		return true
	case <-timer.C:
	case <-ctx.Done():
	}
	select {
	case <-t.leaderGone:
		return true
	default:
		return false
	}
}

// killForLimit ends the server because it sent more than the limits allow.
func (t *stdioTransport) killForLimit(why string) {
	t.log.Debug("stdio server exceeded a limit; killing its group", "limit", why)
	t.signal(phaseSIGKILL, t.group.Kill)
}

// watchExit waits for the process, then records how it ended.
func (t *stdioTransport) watchExit() {
	defer close(t.exitRecorded)
	<-t.group.Done()
	at := t.w.Now()
	exit := t.group.Exit()

	t.mu.Lock()
	t.exit = ProcessInfo{Exited: true, ExitCode: exit.Code, Signal: exit.Signal, EndedBy: t.phase.endedBy()}
	if t.closing && t.phase != phaseRunning && at > t.stdinClosed {
		t.exit.ShutdownAfter = at - t.stdinClosed
	}
	t.mu.Unlock()
	close(t.leaderGone)

	// Output the server wrote before exiting belongs before the exit in the transcript.
	wait := time.NewTimer(exitNoteWait)
	select {
	case <-t.stdoutDone:
	case <-wait.C:
	}
	wait.Stop()
	t.log.Debug("stdio server ended", "how", exit.Detail)
	t.w.Record(Frame{Dir: In, Kind: KindNote, Note: NoteProcessExit, At: at, Detail: exit.Detail})
	t.w.Process(t.info())
}

// info is everything known about the process now.
func (t *stdioTransport) info() ProcessInfo {
	t.mu.Lock()
	p := t.exit
	t.mu.Unlock()
	p.PID = t.pid
	p.Started = true
	p.Stderr = t.ring.Bytes()
	p.StderrDropped = t.ring.Dropped()
	return p
}

// readStderr keeps the tail of stderr.
func (t *stdioTransport) readStderr() {
	defer close(t.stderrDone)
	buf := make([]byte, 32<<10)
	for {
		n, err := t.stderr.Read(buf)
		_, _ = t.ring.Write(buf[:n])
		if err != nil {
			return
		}
	}
}
