// Package alerttest holds what tests of alerting need on loopback, shared by the alert
// package's own tests and the monitor's end-to-end tests: a fake Slack (and generic webhook)
// that records every request, and a monitored MCP server that a test breaks and fixes.
package alerttest
