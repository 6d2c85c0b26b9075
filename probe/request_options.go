package probe

import (
	"context"
	"time"

	"github.com/mcpwatch/mcpwatch/internal/paramheader"
)

// requestOptions are what one request asks of the transport beyond its body: the
// Mcp-Param headers of a tools/call (2026-07-28, x-mcp-header), and a deadline of its own
// (a call of a calls file with its own timeout). They travel in the context of the Send,
// since the Transport interface carries bytes only; a transport that has no use for them
// (stdio) never looks.
type requestOptions struct {
	params   []paramheader.Header
	deadline time.Duration
}

type requestOptionsKey struct{}

// withRequestOptions is ctx carrying o for the Send it is passed to.
func withRequestOptions(ctx context.Context, o requestOptions) context.Context {
	return context.WithValue(ctx, requestOptionsKey{}, o)
}

// requestOptionsOf are the options ctx carries (the zero value when none).
func requestOptionsOf(ctx context.Context) requestOptions {
	if ctx == nil {
		return requestOptions{}
	}
	o, _ := ctx.Value(requestOptionsKey{}).(requestOptions)
	return o
}
