#!/bin/sh
# A stdio MCP server that echoes the value of $TOKEN everywhere a server can: its serverInfo,
# a tool's description, its errors and its stderr. Requests are one JSON object per line.
echo "starting with token $TOKEN" >&2
while IFS= read -r line; do
	id=$(printf '%s' "$line" | sed -n 's/.*"id":\([^,}]*\).*/\1/p')
	[ -z "$id" ] && continue
	case "$line" in
	*'"method":"initialize"'*)
		printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"echo %s","version":"1.0 %s"}}}\n' "$id" "$TOKEN" "$TOKEN" ;;
	*'"method":"tools/list"'*)
		printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"echo","description":"says %s","inputSchema":{"type":"object"}}]}}\n' "$id" "$TOKEN" ;;
	*'"method":"ping"'*)
		printf '{"jsonrpc":"2.0","id":%s,"result":{}}\n' "$id" ;;
	*)
		printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found (token %s)"}}\n' "$id" "$TOKEN" ;;
	esac
done
