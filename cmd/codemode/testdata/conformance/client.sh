#!/bin/sh
# A conformance-suite client: codemode login (auth scenarios), then a codemode run that calls the server's tool.
set -e
url="$1"
case "$MCP_CONFORMANCE_SCENARIO" in
auth/*)
  flags=$(node -e 'const c = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}"); if (c.client_id) console.log("--client-id " + c.client_id + (c.client_secret ? " --client-secret-env CONFORMANCE_SECRET" : ""))')
  CONFORMANCE_SECRET=$(node -e 'const c = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}"); console.log(c.client_secret || "")') \
    $CODEMODE login --mcp "$url" --wait 20s $flags
  ;;
esac
case "$MCP_CONFORMANCE_SCENARIO" in
initialize) $CODEMODE types --mcp "$url" ;; # the handshake and the tool list (none)
elicitation-*) $CODEMODE_AGENT "$url" ;;      # mcp serve forwards the server's question to its own client
*) $CODEMODE run --mcp "$url" --approval never "$CONFORMANCE_PROGRAM" ;;
esac
