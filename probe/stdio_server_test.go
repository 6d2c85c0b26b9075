package probe

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/process"
	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// stdioServerEnv makes the test binary act as a stdio server (the mode is the value) instead
// of running tests: the stdio tests start their servers by re-executing themselves, so that
// every behaviour, well-behaved or hostile, is plain Go beside the test that needs it.
const stdioServerEnv = "MCPWATCH_TEST_STDIO_SERVER"

// stdioServerEchoEnv is echoed by the "env" mode, to see that Target.Env reaches the server.
const stdioServerEchoEnv = "MCPWATCH_TEST_ECHO"

func TestMain(m *testing.M) {
	if mode := os.Getenv(stdioServerEnv); mode != "" {
		os.Exit(runStdioTestServer(mode))
	}
	// Orphans of the fork tests' servers are then re-parented to this process and reaped by
	// the transport, so the tests can demand that not even a zombie is left.
	if err := process.AdoptOrphans(); err != nil {
		fmt.Fprintln(os.Stderr, "stdio tests: no subreaper, zombies of killed orphans are not checked:", err)
	}
	os.Exit(m.Run())
}

func runStdioTestServer(mode string) int {
	out := os.Stdout
	switch mode {
	case "mcp": // a well-behaved server: answers until stdin ends, then exits 0
		serveTestMCP(os.Stdin, out)
		return 0
	case "ignores-eof": // keeps running after stdin ends, but dies on SIGTERM
		serveTestMCP(os.Stdin, out)
		time.Sleep(time.Hour)
		return 0
	case "stubborn": // ignores both stdin EOF and SIGTERM
		signal.Ignore(syscall.SIGTERM)
		serveTestMCP(os.Stdin, out)
		time.Sleep(time.Hour)
		return 0
	case "deaf": // never reads stdin
		time.Sleep(time.Hour)
		return 0
	case "exit3":
		fmt.Fprintln(os.Stderr, "fatal: cannot open config file")
		return 3
	case "answer-exit": // answers one request and exits at once
		r := bufio.NewReader(os.Stdin)
		line, _ := r.ReadBytes('\n')
		answerTestRequest(out, line)
		return 0
	case "flood": // short non-JSON lines without end
		chunk := bytes.Repeat([]byte("log: still starting up\n"), 512)
		for {
			if _, err := out.Write(chunk); err != nil {
				return 1
			}
		}
	case "flood-long": // one endless line
		chunk := bytes.Repeat([]byte("x"), 64<<10)
		for {
			if _, err := out.Write(chunk); err != nil {
				return 1
			}
		}
	case "huge-line": // a 20 MiB line, then normal service
		chunk := bytes.Repeat([]byte("a"), 64<<10)
		for range (20 << 20) / len(chunk) {
			if _, err := out.Write(chunk); err != nil {
				return 1
			}
		}
		_, _ = out.WriteString("\n")
		serveTestMCP(os.Stdin, out)
		return 0
	case "stall": // half a message, then nothing, and never reads stdin
		_, _ = out.WriteString(`{"jsonrpc":"2.0","id":1,"result":`)
		time.Sleep(time.Hour)
		return 0
	case "trickle": // one byte at a time, never a newline
		for {
			if _, err := out.WriteString("x"); err != nil {
				return 1
			}
			time.Sleep(5 * time.Millisecond)
		}
	case "raw-lines": // lines the purity checks need byte-exact, then a partial line and exit
		_, _ = out.WriteString("Server starting...\n\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\r\n\xff\xfe not utf-8\n  \npartial")
		return 0
	case "env": // tells what it was started with
		dir, _ := os.Getwd()
		msg, _ := json.Marshal(map[string]string{"echo": os.Getenv(stdioServerEchoEnv), "dir": dir})
		_, _ = out.Write(append(msg, '\n'))
		serveTestMCP(os.Stdin, out)
		return 0
	case "garbage-exits": // serves until a line is no JSON, then exits as some servers do
		r := bufio.NewReader(os.Stdin)
		for {
			line, err := r.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 && !json.Valid(line) {
				fmt.Fprintln(os.Stderr, "fatal: cannot parse input")
				return 1
			}
			answerTestRequest(out, line)
			if err != nil {
				return 0
			}
		}
	case "stderr-flood": // numbered stderr lines, then normal service
		var b strings.Builder
		for i := range 10000 {
			fmt.Fprintf(&b, "stderr line %05d\n", i)
		}
		_, _ = os.Stderr.WriteString(b.String())
		serveTestMCP(os.Stdin, out)
		return 0
	}
	if mode == "stateless-asks" {
		// A stateless server that asks the client for its roots before it answers
		// tools/list, which 2026-07-28 forbids ("The server MUST NOT write JSON-RPC requests
		// to stdout").
		serveStatelessAsking(os.Stdin, out)
		return 0
	}
	if delay, ok := strings.CutPrefix(mode, "ignores-discover:"); ok {
		// A session-era server slow to start that ignores server/discover, as some legacy
		// servers ignore a method they do not know before initialize.
		d, err := time.ParseDuration(delay)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		time.Sleep(d)
		r := bufio.NewReader(os.Stdin)
		for {
			line, err := r.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 && !bytes.Contains(line, []byte(`"server/discover"`)) {
				answerTestRequest(out, line)
			}
			if err != nil {
				return 0
			}
		}
	}
	if delay, ok := strings.CutPrefix(mode, "keeps-era:"); ok {
		// A server of both eras that holds each process in the era its opening chose and
		// starts reading its input only after delay, as @upstash/context7-mcp does;
		// "keeps-era:unlisted:DELAY" also leaves its session revisions out of its
		// DiscoverResult.
		delay, unlisted := strings.CutPrefix(delay, "unlisted:")
		d, err := time.ParseDuration(delay)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		return serveFixture(fixture.Config{Stateless: true, KeepsEra: true, Unlisted: unlisted, StartDelay: d}, out)
	}
	if delays, ok := strings.CutPrefix(mode, "keeps-era-slower-on-discover:"); ok {
		// "keeps-era-slower-on-discover:DISCOVER:OTHER": keeps-era, whose process takes
		// DISCOVER to start when its first line is server/discover and OTHER otherwise: a
		// dual-era server whose first process starts slower than the era probe's, as one
		// starting on a loaded machine may.
		slow, fast, _ := strings.Cut(delays, ":")
		r := bufio.NewReader(os.Stdin)
		first, _ := r.ReadBytes('\n')
		d, err := time.ParseDuration(fast)
		if bytes.Contains(first, []byte(`"server/discover"`)) {
			d, err = time.ParseDuration(slow)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		time.Sleep(d)
		srv, err := fixture.New(fixture.Config{Stateless: true, KeepsEra: true})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		if srv.ServeStdio(context.Background(), io.MultiReader(bytes.NewReader(first), r), out) != nil {
			return 1
		}
		return 0
	}
	if pidFile, ok := strings.CutPrefix(mode, "daemonize:"); ok {
		// Leaves a daemon behind the classic way (fork, setsid, fork again, first child
		// exits), then serves until stdin ends.
		if err := startDaemon(pidFile); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		serveTestMCP(os.Stdin, out)
		return 0
	}
	if pidFile, ok := strings.CutPrefix(mode, "daemon-parent:"); ok {
		return runDaemonParent(pidFile)
	}
	if mode == "daemon" {
		return runDaemon()
	}
	if server, ok := strings.CutPrefix(mode, "prober-of:"); ok {
		return holdStdioServer(server)
	}
	if fault, ok := strings.CutPrefix(mode, "fixture:"); ok { // the fixture server with a fault
		return serveFixture(fixture.Config{Fault: fixture.Fault(fault)}, out)
	}
	fmt.Fprintln(os.Stderr, "unknown test server mode", mode)
	return 2
}

// serveFixture serves the fixture server of cfg on stdin and out; it returns the exit status.
func serveFixture(cfg fixture.Config, out io.Writer) int {
	srv, err := fixture.New(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if err := srv.ServeStdio(context.Background(), os.Stdin, out); err != nil {
		return 1
	}
	return 0
}

// serveTestMCP answers requests line by line until stdin ends.
func serveTestMCP(in io.Reader, out io.Writer) {
	r := bufio.NewReader(in)
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			answerTestRequest(out, line)
		}
		if err != nil {
			return
		}
	}
}

// answerTestRequest writes the answer to one request line (nothing for notifications).
func answerTestRequest(out io.Writer, line []byte) {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			ProtocolVersion string `json:"protocolVersion"`
			Cursor          string `json:"cursor"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &req) != nil || req.ID == nil {
		return
	}
	var result any
	switch req.Method {
	case "initialize":
		v := req.Params.ProtocolVersion
		if !protocol.KnownRevision(v) {
			v = protocol.LatestSessionRevision
		}
		result = map[string]any{
			"protocolVersion": v,
			"capabilities":    map[string]any{"tools": map[string]any{}, "resources": map[string]any{}, "prompts": map[string]any{}},
			"serverInfo":      map[string]string{"name": "stdio-test-server", "version": "1.0.0"},
		}
	case "tools/list":
		if req.Params.Cursor == "" {
			result = map[string]any{"tools": []any{testTool("first")}, "nextCursor": "page-2"}
		} else {
			result = map[string]any{"tools": []any{testTool("second")}}
		}
	case "resources/list":
		result = map[string]any{"resources": []any{}}
	case "resources/templates/list":
		result = map[string]any{"resourceTemplates": []any{}}
	case "prompts/list":
		result = map[string]any{"prompts": []any{}}
	case "ping":
		result = map[string]any{}
	}
	var msg []byte
	if result == nil {
		msg, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID,
			"error": map[string]any{"code": -32601, "message": "method not found"}})
	} else {
		msg, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	}
	_, _ = out.Write(append(msg, '\n'))
}

func testTool(name string) map[string]any {
	return map[string]any{"name": name, "inputSchema": map[string]any{"type": "object"}}
}

// serveStatelessAsking answers as a server of the stateless revision only, and writes a
// roots/list request of its own before each tools/list answer.
func serveStatelessAsking(in io.Reader, out io.Writer) {
	r := bufio.NewReader(in)
	asked := 0
	for {
		line, err := r.ReadBytes('\n')
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(line, &req) == nil && req.ID != nil {
			var result any
			switch req.Method {
			case "server/discover":
				result = map[string]any{"supportedVersions": []string{protocol.Revision20260728}, "capabilities": map[string]any{"tools": map[string]any{}},
					"resultType": "complete", "ttlMs": 0, "cacheScope": "public"}
			case "tools/list":
				asked++
				fmt.Fprintf(out, `{"jsonrpc":"2.0","id":"server-asks-%d","method":"roots/list"}`+"\n", asked)
				result = map[string]any{"tools": []any{}, "resultType": "complete", "ttlMs": 0, "cacheScope": "public"}
			}
			var msg []byte
			if result == nil {
				msg, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID,
					"error": map[string]any{"code": -32601, "message": "method not found"}})
			} else {
				msg, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
			}
			_, _ = out.Write(append(msg, '\n'))
		}
		if err != nil {
			return
		}
	}
}
