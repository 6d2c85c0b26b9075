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

// Build turns a result and its findings into a report: the verdict follows the FailOn
// threshold, and a baseline (not used here) would accept known findings. Judge is Findings
// then Build; a caller that stores findings, as the monitor does, calls them apart.
func ExampleBuild() {
	// A fixture server that answers ping with a non-empty result, which no revision allows.
	srv, err := fixture.New(fixture.Config{Fault: fixture.PingNonEmpty})
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
	findings := catalog.Evaluate(res)
	rep := report.Build(res, findings, report.BuildOptions{Catalog: catalog, FailOn: checks.SeverityError})
	for _, c := range rep.Checks {
		if c.Status == string(checks.StatusFail) {
			fmt.Println("failed:", c.ID)
		}
	}
	fmt.Println("verdict:", rep.Verdict)
	// Output:
	// failed: lifecycle.ping
	// verdict: fail
}
