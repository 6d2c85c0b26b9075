// Package interop probes MCP servers this project did not write: the Go SDK's and mcp-go's
// example servers (built from the module's tool directives), and the third-party servers
// .ci/interop-deps installs at pinned versions (the npm reference server
// @modelcontextprotocol/server-everything, Context7, kubernetes-mcp-server, Brave Search and
// mcp-grafana), over stdio, Streamable HTTP and legacy HTTP+SSE. Real servers keep the probe
// and the checks honest: their known deviations must come out as the right findings, and
// everything they do right must pass.
//
// The package holds the harness that builds, starts and stops those servers, each bound to
// loopback with its telemetry off; the tests beside it run the probe, and the prober command,
// against them. It is Linux-only (process groups, /proc).
package interop
