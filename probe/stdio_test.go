package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/protocol"
)

// stdioTestTarget runs this test binary as a stdio server in the given mode.
func stdioTestTarget(t *testing.T, mode string, env ...string) Target {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("finding the test binary: %v", err)
	}
	// A race-enabled binary sleeps a second at exit to catch late reports; a server that
	// exits on stdin EOF must not look like one that ignores it.
	goRace := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	return Target{Command: []string{exe}, Env: append([]string{stdioServerEnv + "=" + mode, "GORACE=" + goRace}, env...)}
}

// stdioTestOptions are short enough for a fast suite and long enough for a loaded CI box.
func stdioTestOptions() Options {
	// The transport tests speak the newest session revision; era detection has its own, and
	// the rule probes theirs (rules_test.go).
	return Options{
		ProtocolVersion: protocol.LatestSessionRevision,
		Timeout:         30 * time.Second,
		InitTimeout:     10 * time.Second,
		RequestTimeout:  5 * time.Second,
		ShutdownGrace:   200 * time.Millisecond,
		skipRules:       true,
	}.WithDefaults()
}

// closeBound is what Close may take: its own promise plus slack for -race and a busy machine.
func closeBound(o Options) time.Duration {
	return 2*o.ShutdownGrace + stdioKillBudget + 1500*time.Millisecond
}

// dialTestServer opens a stdio connection recorded into a real router and transcript.
func dialTestServer(t *testing.T, target Target, o Options) (*stdioTransport, *connWire, *Transcript) {
	t.Helper()
	transcript := NewTranscript()
	w := newConnWire(ConnMain, transcript, o.Limits, nil)
	tp, err := dialStdio(context.Background(), target, ConnMain, w, o)
	if err != nil {
		t.Fatalf("dialStdio: %v", err)
	}
	st := tp.(*stdioTransport)
	t.Cleanup(func() { _ = st.Close(context.Background()) })
	return st, w, transcript
}

// roundTrip sends one request and waits for what the router hands back for it.
func roundTrip(t *testing.T, st *stdioTransport, w *connWire, id int, method string) answer {
	t.Helper()
	key := strconv.Itoa(id)
	wt := w.expect(key)
	defer w.forget(key)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := st.Send(ctx, encodeMessage(json.RawMessage(key), method, json.RawMessage(`{}`))); err != nil {
		t.Fatalf("sending %s: %v", method, err)
	}
	select {
	case a := <-wt.ch:
		return a
	case <-ctx.Done():
		t.Fatalf("no answer to %s", method)
		return answer{}
	}
}

func closeTimed(t *testing.T, st *stdioTransport) time.Duration {
	t.Helper()
	start := time.Now()
	if err := st.Close(context.Background()); err != nil {
		t.Errorf("Close: %v", err)
	}
	return time.Since(start)
}

func onlyProcess(t *testing.T, w *connWire) ProcessInfo {
	t.Helper()
	ps := w.processInfo()
	if len(ps) != 1 {
		t.Fatalf("got %d process records, want 1: %+v", len(ps), ps)
	}
	return ps[0]
}

func notes(frames []Frame, conn int, code NoteCode) []Frame {
	var out []Frame
	for _, f := range frames {
		if f.Kind == KindNote && f.Note == code && (conn == 0 || f.Conn == conn) {
			out = append(out, f)
		}
	}
	return out
}

func inMessages(frames []Frame, conn int) []Frame {
	var out []Frame
	for _, f := range frames {
		if f.Dir == In && f.Kind == KindMessage && (conn == 0 || f.Conn == conn) {
			out = append(out, f)
		}
	}
	return out
}

func TestStdioProbeOfWellBehavedServerSucceeds(t *testing.T) {
	o := stdioTestOptions()
	o.ShutdownGrace = 3 * time.Second // it leaves on EOF at once; the grace only guards a slow CI box
	res, err := Run(context.Background(), stdioTestTarget(t, "mcp"), o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Err != "" {
		t.Fatalf("probe error: %s", res.Err)
	}
	if res.Negotiated != protocol.LatestSessionRevision {
		t.Errorf("negotiated %q, want %q", res.Negotiated, protocol.LatestSessionRevision)
	}
	want := map[string]Outcome{
		StepInitialize: OutcomeOK, StepInitializeBogus: OutcomeOK, StepInitialized: OutcomeSent,
		StepUnknownNotification: OutcomeSent, StepToolsList: OutcomeOK, StepResourcesList: OutcomeOK,
		StepTemplatesList: OutcomeOK, StepPromptsList: OutcomeOK, StepPing: OutcomeOK,
		StepUnknownMethod: OutcomeError,
	}
	seen := map[string]int{}
	for _, st := range res.Steps {
		seen[st.Name]++
		if st.Outcome != want[st.Name] {
			t.Errorf("step %s (page %d): outcome %s (%s), want %s", st.Name, st.Page, st.Outcome, st.Err, want[st.Name])
		}
		if st.Outcome == OutcomeOK && st.Latency <= 0 {
			t.Errorf("step %s: latency %v, want > 0", st.Name, st.Latency)
		}
	}
	for name := range want {
		if seen[name] == 0 {
			t.Errorf("no step %s", name)
		}
	}
	if seen[StepToolsList] != 2 {
		t.Errorf("tools/list pages: %d, want 2", seen[StepToolsList])
	}
	if st, _ := res.FirstStep(StepUnknownMethod); st.ErrorCode == nil || *st.ErrorCode != -32601 {
		t.Errorf("unknown method error code %v, want -32601", st.ErrorCode)
	}
	if len(res.Processes) != 2 {
		t.Fatalf("got %d processes, want 2 (main and negotiation)", len(res.Processes))
	}
	for _, p := range res.Processes {
		if !p.Started || !p.Exited || p.ExitCode != 0 || p.EndedBy != "stdin-eof" {
			t.Errorf("conn %d: process %+v, want started, exited 0 on stdin EOF", p.Conn, p)
		}
		if p.ShutdownAfter <= 0 || p.ShutdownAfter > o.ShutdownGrace {
			t.Errorf("conn %d: shutdown took %v, want within the grace of %v", p.Conn, p.ShutdownAfter, o.ShutdownGrace)
		}
	}
	for _, conn := range []int{ConnMain, ConnNegotiation} {
		if n := len(notes(res.Frames, conn, NoteProcessExit)); n != 1 {
			t.Errorf("conn %d: %d process-exit notes, want 1", conn, n)
		}
		if n := len(notes(res.Frames, conn, NoteStdoutClosed)); n != 1 {
			t.Errorf("conn %d: %d stdout-closed notes, want 1", conn, n)
		}
	}
}

func TestStdioCloseEndsServerTheWayItAllows(t *testing.T) {
	t.Parallel()
	// Each grace is long enough for the expected step to work on a loaded machine and no
	// longer, since the later steps are waited out in full.
	tests := []struct {
		mode     string
		grace    time.Duration
		endedBy  string
		signal   string
		exitCode int
		detail   string
	}{
		{"mcp", 3 * time.Second, "stdin-eof", "", 0, "exited with status 0"},
		{"ignores-eof", time.Second, "SIGTERM", "SIGTERM", -1, "killed by SIGTERM"},
		{"stubborn", 200 * time.Millisecond, "SIGKILL", "SIGKILL", -1, "killed by SIGKILL"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			t.Parallel()
			o := stdioTestOptions()
			o.ShutdownGrace = tt.grace
			st, w, transcript := dialTestServer(t, stdioTestTarget(t, tt.mode), o)
			// An answer means the server is serving, so its signal handling is in place.
			if a := roundTrip(t, st, w, 1, "initialize"); a.err != nil {
				t.Fatalf("initialize: %v", a.err)
			}
			took := closeTimed(t, st)
			if took > closeBound(o) {
				t.Errorf("Close took %v, want at most %v", took, closeBound(o))
			}
			p := onlyProcess(t, w)
			if p.EndedBy != tt.endedBy || p.Signal != tt.signal || p.ExitCode != tt.exitCode || !p.Exited {
				t.Errorf("process %+v, want ended by %s, signal %q, exit code %d", p, tt.endedBy, tt.signal, tt.exitCode)
			}
			exits := notes(transcript.Frames(), 0, NoteProcessExit)
			if len(exits) != 1 || exits[0].Detail != tt.detail {
				t.Errorf("process-exit notes %+v, want one saying %q", exits, tt.detail)
			}
			if err := st.Close(context.Background()); err != nil {
				t.Errorf("second Close: %v", err)
			}
		})
	}
}

func TestStdioCloseWithDoneContextSkipsTheGracePeriods(t *testing.T) {
	o := stdioTestOptions()
	o.ShutdownGrace = 5 * time.Second
	st, w, _ := dialTestServer(t, stdioTestTarget(t, "stubborn"), o)
	if a := roundTrip(t, st, w, 1, "initialize"); a.err != nil {
		t.Fatalf("initialize: %v", a.err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if err := st.Close(ctx); err != nil {
		t.Errorf("Close: %v", err)
	}
	if took := time.Since(start); took > stdioKillBudget+time.Second {
		t.Errorf("Close with a done context took %v; the grace periods should have been skipped", took)
	}
	if p := onlyProcess(t, w); p.EndedBy != "SIGKILL" {
		t.Errorf("ended by %q, want SIGKILL", p.EndedBy)
	}
}

func TestStdioServerThatExitsAtOnceFailsFast(t *testing.T) {
	o := stdioTestOptions()
	start := time.Now()
	res, err := Run(context.Background(), stdioTestTarget(t, "exit3"), o)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if took := time.Since(start); took > o.InitTimeout/2 {
		t.Errorf("probe took %v; a dead server must fail initialize at once, not after the %v timeout", took, o.InitTimeout)
	}
	if !strings.HasPrefix(res.Err, "initialize failed") {
		t.Errorf("probe error %q, want initialize failed", res.Err)
	}
	if st, _ := res.FirstStep(StepInitialize); st.Outcome != OutcomeTransport {
		t.Errorf("initialize outcome %s, want %s", st.Outcome, OutcomeTransport)
	}
	p, ok := res.ProcessOf(ConnMain)
	if !ok {
		t.Fatal("no process record for the main connection")
	}
	if !p.Exited || p.ExitCode != 3 || p.EndedBy != "exit" || p.Signal != "" {
		t.Errorf("process %+v, want exited on its own with status 3", p)
	}
	if !bytes.Contains(p.Stderr, []byte("fatal: cannot open config file")) {
		t.Errorf("stderr %q does not hold the server's last words", p.Stderr)
	}
	if exits := notes(res.Frames, ConnMain, NoteProcessExit); len(exits) != 1 || exits[0].Detail != "exited with status 3" {
		t.Errorf("process-exit notes %+v, want one saying exited with status 3", exits)
	}
}

func TestStdioUnstartableCommandIsSpawnError(t *testing.T) {
	notExecutable := filepath.Join(t.TempDir(), "server.sh")
	if err := os.WriteFile(notExecutable, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		target Target
	}{
		{"missing command", Target{Command: []string{"mcpwatch-no-such-server-command"}}},
		{"missing path", Target{Command: []string{"/nonexistent/mcp-server"}}},
		{"not executable", Target{Command: []string{notExecutable}}},
		{"missing directory", Target{Command: []string{exe}, Dir: "/nonexistent/dir"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			transcript := NewTranscript()
			w := newConnWire(ConnMain, transcript, Limits{}.WithDefaults(), nil)
			tp, err := dialStdio(context.Background(), tt.target, ConnMain, w, stdioTestOptions())
			if !errors.Is(err, ErrSpawn) || tp != nil {
				t.Fatalf("dialStdio = %v, %v; want no transport and an error wrapping ErrSpawn", tp, err)
			}
			p := onlyProcess(t, w)
			if p.Started || p.Error == "" || p.PID != 0 {
				t.Errorf("process %+v, want not started with a reason", p)
			}

			res, err := Run(context.Background(), tt.target, stdioTestOptions())
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if !strings.Contains(res.Err, ErrSpawn.Error()) {
				t.Errorf("probe error %q does not say the command could not start", res.Err)
			}

			// Left to era detection, a probe that never got to ask anything reports the
			// session era the other connections fell back to, not the stateless revision.
			o := stdioTestOptions()
			o.ProtocolVersion, o.detectEra = protocol.LatestRevision, true
			res, err = Run(context.Background(), tt.target, o)
			if err != nil || res.Requested != protocol.LatestSessionRevision {
				t.Errorf("with era detection: requested %q (%v), want %s", res.Requested, err, protocol.LatestSessionRevision)
			}
		})
	}
}

func TestStdioHostileOutputIsBounded(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		mode   string
		adjust func(*Options)
		check  func(t *testing.T, res *Result, o Options)
	}{
		{
			name: "endless short lines stop at the frame limit", mode: "flood",
			adjust: func(o *Options) { o.Limits.MaxFrames = 2000 },
			check: func(t *testing.T, res *Result, o Options) {
				for _, conn := range []int{ConnMain, ConnNegotiation} {
					if n := len(inMessages(res.Frames, conn)); n != o.Limits.MaxFrames {
						t.Errorf("conn %d: %d stdout frames, want exactly the limit %d", conn, n, o.Limits.MaxFrames)
					}
					if len(notes(res.Frames, conn, NoteTooMany)) != 1 {
						t.Errorf("conn %d: no too-many-frames note", conn)
					}
				}
			},
		},
		{
			name: "endless line is cut at the message limit", mode: "flood-long",
			adjust: func(o *Options) { o.Limits.MaxMessageBytes = 1 << 20 },
			check: func(t *testing.T, res *Result, o Options) {
				msgs := inMessages(res.Frames, ConnMain)
				if len(msgs) != 1 || !msgs[0].Truncated || len(msgs[0].Raw) != o.Limits.MaxMessageBytes {
					t.Fatalf("want one truncated frame of %d bytes, got %d frames", o.Limits.MaxMessageBytes, len(msgs))
				}
				if len(notes(res.Frames, ConnMain, NoteTooLarge)) != 1 {
					t.Error("no too-large note")
				}
			},
		},
		{
			name: "total stdout bytes are capped", mode: "flood",
			adjust: func(o *Options) { o.Limits.MaxTotalBytes = 256 << 10; o.Limits.MaxFrames = 1 << 20 },
			check: func(t *testing.T, res *Result, o Options) {
				var total int64
				for _, f := range inMessages(res.Frames, ConnMain) {
					total += int64(len(f.Raw)) + 1
				}
				if total > o.Limits.MaxTotalBytes+1 || total < o.Limits.MaxTotalBytes/2 {
					t.Errorf("kept %d stdout bytes, want about the limit %d", total, o.Limits.MaxTotalBytes)
				}
				if n := notes(res.Frames, ConnMain, NoteTooLarge); len(n) != 1 || !strings.Contains(n[0].Detail, "stdout exceeded") {
					t.Errorf("too-large notes %+v, want one about the byte limit", n)
				}
			},
		},
		{
			name: "a 20 MiB line is truncated at the default limit", mode: "huge-line",
			check: func(t *testing.T, res *Result, o Options) {
				msgs := inMessages(res.Frames, ConnMain)
				if len(msgs) == 0 || !msgs[0].Truncated || len(msgs[0].Raw) != 16<<20 {
					t.Fatalf("want a first frame truncated to 16 MiB, got %d frames", len(msgs))
				}
				if bytes.IndexByte(msgs[0].Raw, 'a') != 0 || bytes.Count(msgs[0].Raw, []byte("a")) != 16<<20 {
					t.Error("the truncated frame is not the start of the line")
				}
			},
		},
		{
			name: "a server stalling mid-line ends with the partial line recorded", mode: "stall",
			adjust: func(o *Options) { o.InitTimeout = 2 * time.Second; o.ShutdownGrace = 500 * time.Millisecond },
			check: func(t *testing.T, res *Result, o Options) {
				if st, _ := res.FirstStep(StepInitialize); st.Outcome != OutcomeNoAnswer {
					t.Errorf("initialize outcome %s, want %s", st.Outcome, OutcomeNoAnswer)
				}
				msgs := inMessages(res.Frames, ConnMain)
				// The probe's SIGTERM cut the line: it is kept, marked as cut by the probe, and
				// not the server's to answer for as a line.
				if len(msgs) != 1 || string(msgs[0].Raw) != `{"jsonrpc":"2.0","id":1,"result":` || !msgs[0].Truncated ||
					msgs[0].Detail != "no trailing newline: cut off when the probe ended the server with SIGTERM" {
					t.Errorf("stdout frames %+v, want the half message marked as cut off by the probe's SIGTERM", msgs)
				}
				if p, _ := res.ProcessOf(ConnMain); p.EndedBy != "SIGTERM" {
					t.Errorf("ended by %q, want SIGTERM (it never reads stdin)", p.EndedBy)
				}
			},
		},
		{
			name: "a server trickling bytes is ended by the deadline", mode: "trickle",
			adjust: func(o *Options) { o.InitTimeout = 2 * time.Second },
			check: func(t *testing.T, res *Result, o Options) {
				msgs := inMessages(res.Frames, ConnMain)
				if len(msgs) != 1 || len(msgs[0].Raw) < 10 || strings.Trim(string(msgs[0].Raw), "x") != "" {
					t.Fatalf("want one partial frame of x's, got %d frames", len(msgs))
				}
				// The server never ends its line; the probe's shutdown does, and says so.
				if !msgs[0].Truncated || !strings.Contains(msgs[0].Detail, "the probe") {
					t.Errorf("the partial line is %q (truncated %v), want it marked as cut off by the probe", msgs[0].Detail, msgs[0].Truncated)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := stdioTestOptions()
			if tt.adjust != nil {
				tt.adjust(&o)
			}
			o = o.WithDefaults()
			start := time.Now()
			res, err := Run(context.Background(), stdioTestTarget(t, tt.mode), o)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if took, bound := time.Since(start), o.InitTimeout+closeBound(o); took > bound {
				t.Errorf("probe took %v, want at most %v", took, bound)
			}
			tt.check(t, res, o)
			for _, p := range res.Processes {
				if !p.Exited {
					t.Errorf("conn %d: process %d not recorded as ended", p.Conn, p.PID)
				}
			}
		})
	}
}

func TestStdioSendToServerThatNeverReadsTimesOut(t *testing.T) {
	t.Parallel()
	o := stdioTestOptions()
	o.ShutdownGrace = 500 * time.Millisecond // for SIGTERM to work on a loaded machine
	st, w, transcript := dialTestServer(t, stdioTestTarget(t, "deaf"), o)
	big := append([]byte(`{"jsonrpc":"2.0","method":"notifications/x","params":{"pad":"`),
		append(bytes.Repeat([]byte("p"), 4<<20), `"}}`...)...)

	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	seq, err := st.Send(ctx, big)
	if took := time.Since(start); took > 4*time.Second {
		t.Errorf("Send took %v with a 1s deadline", took)
	}
	if !errors.Is(err, context.DeadlineExceeded) || seq < 0 {
		t.Fatalf("Send = %d, %v; want the Seq of the attempted frame and a deadline error", seq, err)
	}
	if len(notes(transcript.Frames(), 0, NoteSendError)) != 1 {
		t.Error("the failed write left no send-error note")
	}
	// Part of the message is in the pipe now: anything sent after it would be misframed.
	if _, err := st.Send(context.Background(), []byte(`{}`)); !errors.Is(err, ErrClosed) {
		t.Errorf("Send after a partial write = %v, want ErrClosed", err)
	}

	// A cancelled context unblocks a write just like a deadline does.
	st2, _, _ := dialTestServer(t, stdioTestTarget(t, "deaf"), o)
	ctx2, cancel2 := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel2)
	if _, err := st2.Send(ctx2, big); !errors.Is(err, context.Canceled) {
		t.Errorf("Send with a cancelled context = %v, want context.Canceled", err)
	}

	if took := closeTimed(t, st); took > closeBound(o) {
		t.Errorf("Close took %v", took)
	}
	if p := onlyProcess(t, w); p.EndedBy != "SIGTERM" {
		t.Errorf("deaf server ended by %q, want SIGTERM", p.EndedBy)
	}
}

func TestStdioSendAfterCloseOrExitIsErrClosed(t *testing.T) {
	o := stdioTestOptions()
	st, _, _ := dialTestServer(t, stdioTestTarget(t, "mcp"), o)
	closeTimed(t, st)
	if seq, err := st.Send(context.Background(), []byte(`{}`)); !errors.Is(err, ErrClosed) || seq != -1 {
		t.Errorf("Send after Close = %d, %v; want -1, ErrClosed", seq, err)
	}

	st2, w2, _ := dialTestServer(t, stdioTestTarget(t, "exit3"), o)
	<-st2.exitRecorded
	if _, err := st2.Send(context.Background(), []byte(`{}`)); !errors.Is(err, ErrClosed) {
		t.Errorf("Send after the server exited = %v, want ErrClosed", err)
	}
	closeTimed(t, st2)
	if p := onlyProcess(t, w2); p.EndedBy != "exit" || p.ShutdownAfter != 0 {
		t.Errorf("process %+v, want ended by exit with no shutdown time", p)
	}
}

func TestStdioFramesKeepServerBytesExactly(t *testing.T) {
	st, _, transcript := dialTestServer(t, stdioTestTarget(t, "raw-lines"), stdioTestOptions())
	<-st.exitRecorded
	closeTimed(t, st)
	frames := transcript.Frames()
	want := []struct {
		raw    string
		detail string
	}{
		{"Server starting...", ""},
		{"", ""},
		{"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\r", ""},
		{"\xff\xfe not utf-8", ""},
		{"  ", ""},
		{"partial", "no trailing newline"},
	}
	msgs := inMessages(frames, 0)
	if len(msgs) != len(want) {
		t.Fatalf("got %d stdout frames, want %d", len(msgs), len(want))
	}
	for i, w := range want {
		if string(msgs[i].Raw) != w.raw || msgs[i].Detail != w.detail || msgs[i].Truncated {
			t.Errorf("frame %d = %q (%q), want %q (%q)", i, msgs[i].Raw, msgs[i].Detail, w.raw, w.detail)
		}
		if i > 0 && msgs[i].At < msgs[i-1].At {
			t.Errorf("frame %d arrived at %v, before frame %d at %v", i, msgs[i].At, i-1, msgs[i-1].At)
		}
	}
	// The exit comes after everything the server wrote, and the closed stdout before it.
	last := frames[len(frames)-1]
	if last.Note != NoteProcessExit {
		t.Errorf("last frame is %v %s, want the process-exit note", last.Kind, last.Note)
	}
	if closed := notes(frames, 0, NoteStdoutClosed); len(closed) != 1 || closed[0].Seq < msgs[len(msgs)-1].Seq {
		t.Errorf("stdout-closed notes %+v, want one after the last line", closed)
	}
}

func TestStdioServerGetsTargetEnvAndDir(t *testing.T) {
	dir := t.TempDir()
	target := stdioTestTarget(t, "env", stdioServerEchoEnv+"=hello from the target")
	target.Dir = dir
	st, w, transcript := dialTestServer(t, target, stdioTestOptions())
	if a := roundTrip(t, st, w, 1, "ping"); a.err != nil {
		t.Fatalf("ping: %v", a.err)
	}
	closeTimed(t, st)
	msgs := inMessages(transcript.Frames(), 0)
	if len(msgs) == 0 {
		t.Fatal("the server wrote nothing")
	}
	var got struct{ Echo, Dir string }
	if err := json.Unmarshal(msgs[0].Raw, &got); err != nil {
		t.Fatalf("decoding %q: %v", msgs[0].Raw, err)
	}
	wantDir, _ := filepath.EvalSymlinks(dir)
	gotDir, _ := filepath.EvalSymlinks(got.Dir)
	if got.Echo != "hello from the target" || gotDir != wantDir {
		t.Errorf("server saw env %q in %q, want %q in %q", got.Echo, got.Dir, "hello from the target", dir)
	}
}

func TestStdioAnswerWrittenJustBeforeExitIsKept(t *testing.T) {
	for i := range 5 {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			t.Parallel()
			st, w, transcript := dialTestServer(t, stdioTestTarget(t, "answer-exit"), stdioTestOptions())
			a := roundTrip(t, st, w, 7, "ping")
			if a.err != nil {
				t.Fatalf("the answer was lost to the exit: %v", a.err)
			}
			closeTimed(t, st)
			exits := notes(transcript.Frames(), 0, NoteProcessExit)
			if len(exits) != 1 || exits[0].Seq < a.seq {
				t.Errorf("process-exit note %+v recorded before the answer (seq %d)", exits, a.seq)
			}
		})
	}
}

func TestStdioStderrKeepsTheTail(t *testing.T) {
	o := stdioTestOptions()
	o.Limits.MaxStderrBytes = 4096
	st, w, _ := dialTestServer(t, stdioTestTarget(t, "stderr-flood"), o)
	// The answer comes after the whole stderr burst was written.
	if a := roundTrip(t, st, w, 1, "ping"); a.err != nil {
		t.Fatalf("ping: %v", a.err)
	}
	closeTimed(t, st)
	p := onlyProcess(t, w)
	const lineLen, lines = len("stderr line 00000\n"), 10000
	if len(p.Stderr) != 4096 || p.StderrDropped != int64(lineLen*lines-4096) {
		t.Errorf("kept %d stderr bytes, dropped %d; want 4096 and %d", len(p.Stderr), p.StderrDropped, lineLen*lines-4096)
	}
	if !bytes.HasSuffix(p.Stderr, []byte("stderr line 09999\n")) {
		t.Errorf("stderr tail ends with %q, want the last line", p.Stderr[max(0, len(p.Stderr)-40):])
	}
}
