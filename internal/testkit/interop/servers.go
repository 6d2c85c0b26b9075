//go:build linux

package interop

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// GoServer is an example server of a Go SDK, named by one of the module's tool directives.
type GoServer struct {
	Name    string // file name of the built binary
	Package string // import path
}

// Example servers the interop tests build; each is a `tool` directive of go.mod, so its
// version is pinned by go.mod and go.sum.
const (
	GoSDKEverything  = "go-sdk-everything"
	GoSDKConformance = "go-sdk-conformance"
	GoSDKSSE         = "go-sdk-sse"
	MCPGoEverything  = "mcp-go-everything"
	MCPGoConformance = "mcp-go-conformance"
)

// GoServers lists the Go example servers the interop tests run.
func GoServers() []GoServer {
	return []GoServer{
		{GoSDKEverything, "github.com/modelcontextprotocol/go-sdk/examples/server/everything"},
		{GoSDKConformance, "github.com/modelcontextprotocol/go-sdk/conformance/everything-server"},
		{GoSDKSSE, "github.com/modelcontextprotocol/go-sdk/examples/server/sse"},
		{MCPGoEverything, "github.com/mark3labs/mcp-go/examples/everything"},
		{MCPGoConformance, "github.com/mark3labs/mcp-go/examples/conformance"},
	}
}

// GoCommand finds the go command on PATH, where go test puts the toolchain that runs it.
func GoCommand() (string, error) {
	p, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("the go command is not on PATH: %w", err)
	}
	return p, nil
}

// BuildGoServers builds every server into dir, concurrently, from the module at root, and
// returns the binaries' paths by name.
func BuildGoServers(ctx context.Context, goCmd, root, dir string, servers []GoServer) (map[string]string, error) {
	paths := make(map[string]string, len(servers))
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		out := filepath.Join(dir, s.Name)
		paths[s.Name] = out
		wg.Go(func() {
			cmd := exec.CommandContext(ctx, goCmd, "build", "-o", out, s.Package)
			cmd.Dir = root
			if b, err := cmd.CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("go build %s: %w\n%s", s.Package, err, bytes.TrimSpace(b))
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return paths, nil
}

// LoopbackPreload is a Node module (required through NODE_OPTIONS) that pins every TCP
// listen of the process to 127.0.0.1: server-everything and Context7 have no setting for
// their bind address and would listen on every interface.
func LoopbackPreload(root string) string {
	return filepath.Join(root, "internal", "testkit", "interop", "testdata", "bind-loopback.cjs")
}

// FreeLoopbackPort asks the kernel for a port that is free on 127.0.0.1 now. Another process
// can take it before the server binds it; a server that then fails to start says so.
func FreeLoopbackPort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// PortFree reports whether addr ("host:port", ":port" for every interface) can be listened on.
func PortFree(addr string) bool {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return false
	}
	_ = l.Close()
	return true
}

// ErrExitedEarly: the server ended before it listened (typically: its port was taken).
var ErrExitedEarly = errors.New("server exited before listening")

// ServerSpec says how to start an HTTP server and where it will listen.
type ServerSpec struct {
	Command []string
	Env     []string // added to the test's environment
	Dir     string
	// Ready is the host:port that accepts connections once the server is up.
	Ready string
}

// Process is a server started by StartServer, running in its own process group.
type Process struct {
	cmd    *exec.Cmd
	output *tailBuffer
	done   chan struct{} // closed once the process was waited for
	err    error         // the Wait error, set before done closes

	stopOnce sync.Once
	stopErr  error
}

// Readiness and shutdown bounds.
const (
	pollInterval = 25 * time.Millisecond
	dialTimeout  = 250 * time.Millisecond
	stopGrace    = 3 * time.Second
	killWait     = 5 * time.Second
	outputTail   = 32 << 10
)

// StartServer starts spec.Command in a new process group and returns once spec.Ready accepts
// TCP connections. It fails when the process exits first or ctx ends first; the process is
// then stopped.
func StartServer(ctx context.Context, spec ServerSpec) (*Process, error) {
	if len(spec.Command) == 0 {
		return nil, errors.New("start server: empty command")
	}
	cmd := exec.Command(spec.Command[0], spec.Command[1:]...)
	cmd.Dir = spec.Dir
	cmd.Env = append(os.Environ(), spec.Env...)
	out := &tailBuffer{max: outputTail}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A grandchild that inherited the output pipe must not keep Wait from returning.
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", spec.Command[0], err)
	}
	p := &Process{cmd: cmd, output: out, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	if err := p.waitReady(ctx, spec.Ready); err != nil {
		_ = p.Stop()
		return nil, fmt.Errorf("start %s: %w; output:\n%s", spec.Command[0], err, p.Output())
	}
	return p, nil
}

func (p *Process) waitReady(ctx context.Context, addr string) error {
	ticker := time.NewTicker(pollInterval)
	defer ticker.Stop()
	var d net.Dialer
	for {
		dctx, cancel := context.WithTimeout(ctx, dialTimeout)
		c, err := d.DialContext(dctx, "tcp", addr)
		cancel()
		if err == nil {
			_ = c.Close()
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("%w on %s: %v", ErrExitedEarly, addr, p.err)
		case <-ctx.Done():
			return fmt.Errorf("not listening on %s: %w", addr, ctx.Err())
		case <-ticker.C:
		}
	}
}

// PID is the server's process id (and its process group id).
func (p *Process) PID() int { return p.cmd.Process.Pid }

// Output is the tail of what the server wrote to stdout and stderr.
func (p *Process) Output() string { return p.output.String() }

// Stop ends the whole process group: SIGTERM, then SIGKILL after a grace period. It returns
// once the server was waited for, or an error if it could not be ended within the bounds.
// Calling it again returns the first result.
func (p *Process) Stop() error {
	p.stopOnce.Do(func() { p.stopErr = p.stop() })
	return p.stopErr
}

func (p *Process) stop() error {
	pgid := p.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(stopGrace):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		select {
		case <-p.done:
		case <-time.After(killWait):
			return fmt.Errorf("server %d still running %s after SIGKILL", pgid, killWait)
		}
	}
	// Whatever the leader left behind in its group goes too.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	return nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	max int

	mu  sync.Mutex
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

// HostPort joins a loopback host and a port.
func HostPort(port int) string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) }
