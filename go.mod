module github.com/mcpwatch/mcpwatch

go 1.26

require (
	github.com/jackc/pgx/v5 v5.12.0
	github.com/santhosh-tekuri/jsonschema/v5 v5.3.1
)

require (
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/puddle/v2 v2.2.3 // indirect
	github.com/mark3labs/mcp-go v1.2.1 // indirect
	github.com/modelcontextprotocol/go-sdk v1.8.0 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/spf13/cast v1.7.1 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.22.0 // indirect
	golang.org/x/sys v0.41.0 // indirect
	golang.org/x/text v0.41.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)

tool (
	github.com/mark3labs/mcp-go/examples/conformance
	github.com/mark3labs/mcp-go/examples/everything
	github.com/modelcontextprotocol/go-sdk/conformance/everything-server
	github.com/modelcontextprotocol/go-sdk/examples/server/everything
	github.com/modelcontextprotocol/go-sdk/examples/server/sse
)
