package report_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"time"

	"github.com/mcpwatch/mcpwatch/checks"
	"github.com/mcpwatch/mcpwatch/internal/testkit/fixture"
	"github.com/mcpwatch/mcpwatch/probe"
	"github.com/mcpwatch/mcpwatch/report"
)

// Probe a server, judge the result by the catalogue and read the verdict: what `prober
// check` does before it writes the report in the format asked for.
func ExampleJudge() {
	// The project's own well-behaved fixture server, on loopback.
	srv, err := fixture.New(fixture.Config{})
	if err != nil {
		log.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()

	res, err := probe.Run(context.Background(), probe.Target{URL: ts.URL}, probe.Options{Timeout: 20 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	catalog, err := checks.Default()
	if err != nil {
		log.Fatal(err)
	}
	rep, err := report.Judge(res, report.JudgeOptions{
		Checks: catalog,
		Build:  report.BuildOptions{Catalog: catalog, FailOn: checks.SeverityWarning},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range rep.Checks {
		if c.ID == "tools.list" {
			fmt.Println(c.ID, c.Status)
		}
	}
	fmt.Println("verdict:", rep.Verdict, "failing:", rep.Summary.Failing)
	// Output:
	// tools.list pass
	// verdict: pass failing: 0
}
