//go:build linux

package interop

import (
	"path/filepath"
	"strconv"
)

// Installed is a third-party server that .ci/interop-deps installs, at a pinned version, into
// .cache/interop of the module (ignored by git).
type Installed struct {
	Name    string // package@version, for messages
	relPath string // its executable, relative to the module root
}

// The installed servers. npm packages each get a prefix of their own, so that one package's
// dependency ranges never resolve another's; Go binaries are built by `go install` into bin.
var (
	ServerEverything = Installed{"@modelcontextprotocol/server-everything@2026.8.31",
		".cache/interop/npm/everything/node_modules/.bin/mcp-server-everything"}
	Context7 = Installed{"@upstash/context7-mcp@4.1.1",
		".cache/interop/npm/context7/node_modules/.bin/context7-mcp"}
	KubernetesMCP = Installed{"kubernetes-mcp-server@0.0.67",
		".cache/interop/npm/kubernetes/node_modules/.bin/kubernetes-mcp-server"}
	BraveSearch = Installed{"@brave/brave-search-mcp-server@2.1.4",
		".cache/interop/npm/brave/node_modules/.bin/brave-search-mcp-server"}
	Grafana = Installed{"github.com/grafana/mcp-grafana/cmd/mcp-grafana@v1.6.3",
		".cache/interop/bin/mcp-grafana"}
	// TypeScriptSDKOAuth is a script run by node, not an executable: the TypeScript SDK's
	// example server, which with --oauth demands a bearer token and serves its own demo
	// authorization server beside it.
	TypeScriptSDKOAuth = Installed{"@modelcontextprotocol/sdk@1.32.2 (examples/server/simpleStreamableHttp.js)",
		".cache/interop/npm/tssdk/node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js"}
)

// Path is the executable under the module root.
func (s Installed) Path(root string) string { return filepath.Join(root, s.relPath) }

// UnusedLoopbackPort is where every upstream URL of a probed server points (Grafana, the
// Kubernetes API, Context7's API): a port below 1024, which no unprivileged process can take
// and on which nothing listens, so that a request a server makes anyway is refused on the
// machine and nothing leaves it.
const UnusedLoopbackPort = 9

// UnusedLoopbackURL is an http URL on UnusedLoopbackPort with the given path.
func UnusedLoopbackURL(path string) string {
	return "http://" + HostPort(UnusedLoopbackPort) + path
}

// TelemetryOff is the environment every probed server gets: the DO_NOT_TRACK convention, and
// OpenTelemetry's own off switch (Context7 otherwise opens a metrics listener, and
// kubernetes-mcp-server can export traces). Servers with a switch of their own get it on top.
func TelemetryOff() []string {
	return []string{"DO_NOT_TRACK=1", "OTEL_SDK_DISABLED=true"}
}

// NodeEnv is the environment of a Node server: telemetry off, and every listen of the process
// pinned to loopback by LoopbackPreload.
func NodeEnv(root string) []string {
	return append(TelemetryOff(), "NODE_OPTIONS=--require "+LoopbackPreload(root))
}

// Kubeconfig is the dummy kubeconfig for kubernetes-mcp-server: one cluster on
// UnusedLoopbackPort.
func Kubeconfig(root string) string {
	return filepath.Join(root, "internal", "testkit", "interop", "testdata", "kubeconfig.yaml")
}

// portArg is a port as a command-line argument.
func portArg(port int) string { return strconv.Itoa(port) }
