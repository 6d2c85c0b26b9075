package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
)

// The test binary doubles as a stdio MCP server: run with fixtureModeEnv set (through
// prober's own --env) it serves stdin/stdout instead of running tests.
// With asMainEnv set it is prober itself (main with the arguments after "--"), for tests
// that need a real process to signal.
const (
	fixtureModeEnv    = "PROBER_FIXTURE_MODE"
	fixturePIDFileEnv = "PROBER_FIXTURE_PIDFILE"
	asMainEnv         = "PROBER_TEST_AS_MAIN"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(fixtureModeEnv); mode != "" {
		os.Exit(serveStdioFixture(mode))
	}
	if os.Getenv(asMainEnv) != "" {
		os.Unsetenv(asMainEnv)
		os.Args = append([]string{"prober"}, os.Args[1:]...)
		main()
	}
	os.Exit(m.Run())
}

// Modes of the stdio fixture.
const (
	modeConformant = "conformant"
	modeBanner     = "banner"     // prints a banner line to stdout before serving
	modeNoDesc     = "no-desc"    // a tool without a description: advice only
	modeBadPing    = "bad-ping"   // ping answers a non-empty result: a failure
	modeCrash      = "crash"      // writes to stderr and exits 3 before reading anything
	modeHang       = "hang"       // never answers and ignores stdin EOF
	modeEchoEnv    = "echo-env"   // serverInfo.version is the value of FIXTURE_API_TOKEN
	modeSlowStart  = "slow-start" // says so on stderr, reads nothing for slowStartDelay, then serves conformantly
	// modeStarterTools serves the project's fixture server (internal/testkit/fixture) with
	// the tools of starterFixture, for --write-calls.
	modeStarterTools = "starter-tools"
)

// slowStartDelay is how long the slow-start fixture takes to start: long enough for the
// progress line to count a few seconds, short enough for a test.
const slowStartDelay = 2500 * time.Millisecond

func serveStdioFixture(mode string) int {
	if name := os.Getenv(fixturePIDFileEnv); name != "" {
		// Relative to the working directory, so that tests see where --dir put the server.
		f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err == nil {
			fmt.Fprintln(f, strconv.Itoa(os.Getpid()))
			f.Close()
		}
	}
	srv := fixtureMCP{name: "prober-stdio-fixture", version: "1.0.0"}
	switch mode {
	case modeBanner:
		fmt.Println("fixture server starting (this line breaks stdout purity)")
	case modeNoDesc:
		srv.noToolDescription = true
	case modeBadPing:
		srv.pingResult = `[]`
	case modeCrash:
		fmt.Fprintln(os.Stderr, "fatal: the fixture crashed on purpose")
		return 3
	case modeHang:
		// A sleep, not select{}: with no other goroutine the runtime would call that a
		// deadlock and exit.
		time.Sleep(time.Hour)
		return 0
	case modeEchoEnv:
		srv.version = os.Getenv("FIXTURE_API_TOKEN")
	case modeSlowStart:
		fmt.Fprintln(os.Stderr, "fixture: warming up the cache")
		time.Sleep(slowStartDelay)
	case modeStarterTools:
		full, err := fixture.New(starterFixture())
		if err == nil {
			err = full.ServeStdio(context.Background(), os.Stdin, os.Stdout)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "fixture:", err)
			return 1
		}
		return 0
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 4<<20)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		if reply := srv.answer(in.Bytes()); reply != nil {
			out.Write(reply)
			out.WriteByte('\n')
			if err := out.Flush(); err != nil {
				return 1
			}
		}
	}
	fmt.Fprintln(os.Stderr, "fixture: stdin closed, exiting")
	return 0
}
