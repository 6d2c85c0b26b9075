//go:build linux

package interop

import (
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatch/mcpwatch/probe"
)

// The real servers the cases probe, one function per server and transport, shared by every
// table of cases. Each HTTP server listens on a free loopback port (checked to be loopback
// only) and is stopped when the test ends; a stdio server is started by the probe itself.

// loopbackServer starts the server spec(port) describes on a free loopback port, holds it to
// listening on loopback only (its port, and every socket its process group listens on, once
// up and again when the test ends), and returns the URL of path on it.
func loopbackServer(t *testing.T, path string, spec func(port int) ServerSpec) probe.Target {
	t.Helper()
	p, port := startOnFreePort(t, spec)
	requireLoopbackOnly(t, port)
	requireGroupOnLoopback(t, p)
	// Cleanups run last-in first-out: this one before the server is stopped.
	t.Cleanup(func() { requireGroupOnLoopback(t, p) })
	return probe.Target{URL: "http://" + HostPort(port) + path}
}

func serverEverythingStdio(t *testing.T) probe.Target {
	return probe.Target{Command: []string{npmEverything(t), "stdio"}, Env: NodeEnv(built.root)}
}

// serverEverythingOver runs server-everything in one of its HTTP modes ("streamableHttp" on
// /mcp, "sse" on /sse); it reads its port from PORT and has no bind setting.
func serverEverythingOver(t *testing.T, mode, path string) probe.Target {
	bin := npmEverything(t)
	return loopbackServer(t, path, func(port int) ServerSpec {
		return ServerSpec{
			Command: []string{bin, mode},
			Env:     append(NodeEnv(built.root), "PORT="+portArg(port)),
			Ready:   HostPort(port),
		}
	})
}

func serverEverythingHTTP(t *testing.T) probe.Target {
	return serverEverythingOver(t, "streamableHttp", "/mcp")
}

func serverEverythingSSE(t *testing.T) probe.Target { return serverEverythingOver(t, "sse", "/sse") }

func goSDKEverythingStdio(t *testing.T) probe.Target {
	return probe.Target{Command: []string{goServer(t, GoSDKEverything)}}
}

// goSDKOverHTTP runs a go-sdk example that takes its address as -http.
func goSDKOverHTTP(t *testing.T, name string) probe.Target {
	bin := goServer(t, name)
	return loopbackServer(t, "/mcp", func(port int) ServerSpec {
		return ServerSpec{Command: []string{bin, "-http", HostPort(port)}, Ready: HostPort(port)}
	})
}

func goSDKEverythingHTTP(t *testing.T) probe.Target { return goSDKOverHTTP(t, GoSDKEverything) }

func goSDKConformanceHTTP(t *testing.T) probe.Target { return goSDKOverHTTP(t, GoSDKConformance) }

func mcpGoConformanceHTTP(t *testing.T) probe.Target {
	bin := goServer(t, MCPGoConformance)
	return loopbackServer(t, "/mcp", func(port int) ServerSpec {
		return ServerSpec{Command: []string{bin}, Env: []string{"CONFORMANCE_ADDR=" + HostPort(port)}, Ready: HostPort(port)}
	})
}

// context7Env points every upstream of Context7 (its documentation API, the OAuth servers whose
// keys it would fetch) at the unused loopback port. The probes call no tool and present no
// token, so none of them is asked; if one were, the request would stay on the machine.
func context7Env() []string {
	return append(NodeEnv(built.root),
		"CONTEXT7_API_URL="+UnusedLoopbackURL("/api"),
		"OAUTH_AUTH_SERVER_URL="+UnusedLoopbackURL(""),
		"OAUTH_JWKS_URL="+UnusedLoopbackURL("/.well-known/jwks.json"),
		"EMA_JWKS_URL="+UnusedLoopbackURL("/api/oauth/ema-jwks"),
	)
}

func context7Stdio(t *testing.T) probe.Target {
	return probe.Target{Command: []string{installed(t, Context7, true)}, Env: context7Env()}
}

// context7HTTP: Context7 has --port but no bind setting (the preload pins it to loopback).
func context7HTTP(t *testing.T) probe.Target {
	bin := installed(t, Context7, true)
	return loopbackServer(t, "/mcp", func(port int) ServerSpec {
		return ServerSpec{
			Command: []string{bin, "--transport", "http", "--port", portArg(port)},
			Env:     context7Env(),
			Ready:   HostPort(port),
		}
	})
}

// kubernetesHTTP runs kubernetes-mcp-server read-only against the dummy kubeconfig, whose
// cluster is the unused loopback port: it starts with the API server refused.
func kubernetesHTTP(t *testing.T) probe.Target {
	bin := installed(t, KubernetesMCP, true)
	return loopbackServer(t, "/mcp", func(port int) ServerSpec {
		return ServerSpec{
			Command: []string{bin, "--kubeconfig", Kubeconfig(built.root), "--read-only",
				"--port", portArg(port), "--bind-address", "127.0.0.1"},
			Env:   NodeEnv(built.root),
			Ready: HostPort(port),
		}
	})
}

// grafanaOver runs mcp-grafana over "streamable-http" (/mcp) or "sse" (/sse), its Grafana on
// the unused loopback port and its anonymous usage statistics off.
func grafanaOver(t *testing.T, transport, path string) probe.Target {
	bin := installed(t, Grafana, false)
	return loopbackServer(t, path, func(port int) ServerSpec {
		return ServerSpec{
			Command: []string{bin, "-usage-stats", "disabled", "-t", transport, "-address", HostPort(port)},
			Env:     append(TelemetryOff(), "GRAFANA_URL="+UnusedLoopbackURL("")),
			Ready:   HostPort(port),
		}
	})
}

// braveHTTP runs the Brave Search server with a dummy key: it only needs one to call Brave's
// API, which the probes never make it do.
func braveHTTP(t *testing.T) probe.Target {
	bin := installed(t, BraveSearch, true)
	return loopbackServer(t, "/mcp", func(port int) ServerSpec {
		return ServerSpec{
			Command: []string{bin, "--transport", "http", "--host", "127.0.0.1", "--port", portArg(port),
				"--brave-api-key", "dummy"},
			Env:   NodeEnv(built.root),
			Ready: HostPort(port),
		}
	})
}

// typeScriptSDKOAuthHTTP runs the TypeScript SDK's example server with --oauth: an MCP endpoint
// that demands a bearer token, and the SDK's demo authorization server on a port of its own
// (MCP_PORT, MCP_AUTH_PORT). Both name themselves http://localhost:PORT, so the probe uses that
// host name (loopback still) for the protected resource metadata's resource to match its URL.
func typeScriptSDKOAuthHTTP(t *testing.T) probe.Target {
	node := requireCommand(t, "node", "install Node.js (the CI script installs nodejs and npm)")
	script := TypeScriptSDKOAuth.Path(built.root)
	if _, err := os.Stat(script); err != nil {
		requireCommand(t, script, "run .ci/interop-deps to install "+TypeScriptSDKOAuth.Name)
	}
	authPort := freePort(t)
	target := loopbackServer(t, "/mcp", func(port int) ServerSpec {
		return ServerSpec{
			Command: []string{node, script, "--oauth"},
			Env:     append(NodeEnv(built.root), "MCP_PORT="+portArg(port), "MCP_AUTH_PORT="+portArg(authPort)),
			Ready:   HostPort(port),
		}
	})
	// The authorization server listens beside the endpoint, started by the same process.
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", HostPort(authPort), dialTimeout)
		if err == nil {
			_ = c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the example's authorization server does not listen on %s: %v", HostPort(authPort), err)
		}
		time.Sleep(pollInterval)
	}
	requireLoopbackOnly(t, authPort)
	target.URL = strings.Replace(target.URL, "127.0.0.1", "localhost", 1)
	return target
}
