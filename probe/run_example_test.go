package probe_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/protocol"
)

// Run probes the project's own conformant fixture server over Streamable HTTP on loopback
// and prints the main connection's steps: the session a client would run. The fixture
// declares tools only, so the other lists get the JSON-RPC error -32601 (method not found),
// as do the unknown method; the unknown tool and the bogus cursor get -32602. The steps of
// the rule probes, each on a connection of its own, are in res.Steps too (Conn tells them
// apart), and res.Frames is the transcript every step points into.
func ExampleRun() {
	srv, err := fixture.New(fixture.Config{})
	if err != nil {
		log.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler()) // 127.0.0.1 only
	defer hs.Close()

	res, err := probe.Run(context.Background(), probe.Target{URL: hs.URL}, probe.Options{
		ProtocolVersion: protocol.Revision20251125,
		Timeout:         30 * time.Second,
	})
	if err != nil {
		log.Fatal(err) // only an invalid target or invalid options get here
	}
	fmt.Println("transport:", res.Transport)
	fmt.Println("negotiated:", res.Negotiated)
	for _, st := range res.Steps {
		if st.Conn == probe.ConnMain {
			line := fmt.Sprintf("%-26s %s", st.Name, st.Outcome)
			if st.ErrorCode != nil {
				line += fmt.Sprintf(" %d", *st.ErrorCode)
			}
			fmt.Println(line)
		}
	}
	// Output:
	// transport: http
	// negotiated: 2025-11-25
	// initialize                 ok
	// notifications/initialized  ok
	// unknown-notification       ok
	// tools/list                 ok
	// resources/list             error -32601
	// resources/templates/list   error -32601
	// prompts/list               error -32601
	// ping                       ok
	// unknown-method             error -32601
	// unknown-tool               error -32602
	// invalid-cursor             error -32602
	// tools/list-repeat          ok
}
