package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/codemode-go/codemode/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// headerTimeout is how long an HTTP client of a serving command has to send
// a request's headers (http.Server.ReadHeaderTimeout).
const headerTimeout = 10 * time.Second

// serveMCP serves srv until ctx ends: on stdio when ln is nil, else over
// streamable HTTP on ln, bounded by hopts (sessions, idle sessions, body
// and header deadlines: mcpserver.NewHTTPHandler). On the end of ctx an
// HTTP server shuts down, waiting at most grace for requests in flight.
// what names the server in the log line ("the code tool (3 upstream
// tools)"). The end of stdin or of ctx is not an error.
func serveMCP(ctx context.Context, srv *mcp.Server, ln net.Listener, hopts mcpserver.HTTPOptions, grace time.Duration, what string, logf func(string, ...any)) error {
	if ln == nil {
		logf("serving %s on stdio", what)
		err := srv.Run(ctx, &mcp.StdioTransport{})
		if ctx.Err() != nil || errors.Is(err, io.EOF) {
			return nil
		}
		return err
	}
	hs := &http.Server{Handler: mcpserver.NewHTTPHandler(srv, hopts), ReadHeaderTimeout: headerTimeout}
	logf("serving %s on http://%s", what, ln.Addr())
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		shutdownCtx, cancel := context.WithTimeout(context.Background(), grace)
		defer cancel()
		_ = hs.Shutdown(shutdownCtx)
		<-done
		return nil
	}
}
