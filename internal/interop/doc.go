// Package interop probes MCP servers this project did not write: the Go SDK's and mcp-go's
// example servers (built from the module's tool directives) and the npm reference server
// @modelcontextprotocol/server-everything, over stdio and Streamable HTTP. Real servers keep
// the probe and the checks honest: their known deviations must come out as the right findings,
// and everything they do right must pass.
//
// The package holds the harness that builds, starts and stops those servers; the tests beside
// it run the probe against them. It is Linux-only (process groups, /proc).
package interop
