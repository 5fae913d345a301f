package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/durablemcp"
	"github.com/codemode-go/codemode/mcpserver"
	"github.com/codemode-go/codemode/typecheck"
)

// durableMCPServe is `codemode mcp serve --journal FILE.db`: the code tool
// runs each program as a durable execution over the connectors (--tools,
// --mcp, --config, alone or together) and answers with its output; paused
// executions wait for `codemode approve` or `codemode reject`.
func durableMCPServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mcp serve", flag.ContinueOnError)
	var cf contractFlags
	cf.register(fs)
	var jf journalFlags
	jf.register(fs)
	httpAddr := fs.String("http", "", "serve streamable HTTP on this address (host:port) instead of stdio")
	timeout := fs.Duration("timeout", 30*time.Second, "each pass's deadline")
	noCheck := fs.Bool("no-check", false, "do not type-check programs before running them")
	uiAddr := fs.String("ui", "", "also serve the journal page (approve, reject, rollback) on this address, e.g. 127.0.0.1:7312; a non-loopback one needs $"+uiTokenEnv)
	maxExec := fs.Int("max-executions", mcpserver.DefaultMaxExecutions, "passes (programs, replays after approval) running at once; more wait in a queue")
	maxQueue := fs.Int("max-queue", mcpserver.DefaultMaxQueued, "passes waiting for a turn (at most --timeout); past it a program is answered that the server is busy")
	maxSessions := fs.Int("max-sessions", mcpserver.DefaultMaxSessions, "--http: open MCP sessions; past it a new client is answered 503")
	sessionIdle := fs.Duration("session-idle", mcpserver.DefaultSessionIdle, "--http: close a session with no request for this long")
	bodyTimeout := fs.Duration("body-timeout", mcpserver.DefaultBodyTimeout, "--http: bound on reading one request's body")
	maxPerSession := fs.Int("max-executions-per-session", 0, "--http: passes one client session runs at once (default: half of --max-executions, at least 1)")
	declarations := fs.String("declarations", "", "full (every declaration in the code tool's description) or discover (namespaces and codemode.search/describe); default full up to 2,000 tokens")
	var rf runtimeFlags
	rf.register(fs)
	positional, err := parse(fs, args, stdout)
	if err != nil {
		return err
	}
	if err := rf.check("mcp serve"); err != nil {
		return err
	}
	switch {
	case len(positional) > 0:
		return usageError{fmt.Sprintf("mcp serve: unexpected argument %q", positional[0])}
	case cf.tools == "" && !cf.usesMCP() && !cf.openapi.used():
		return usageError{"mcp serve --journal: --tools FILE, --config FILE, --mcp CMD|URL or --openapi NAME=SPEC is required"}
	case cf.inputSchema != "":
		return usageError{"mcp serve --journal: --input-schema is not for durable programs"}
	case *timeout <= 0 || *timeout > 24*time.Hour:
		return usageError{"mcp serve: --timeout must be positive and at most 24h"}
	case jf.path == "":
		return usageError{"mcp serve: --journal is empty"}
	}
	mode, err := durable.ParseDeclarationsMode(*declarations)
	if err != nil {
		return usageError{"mcp serve: --declarations: " + strings.TrimPrefix(err.Error(), "durable: ")}
	}
	logf := func(format string, args ...any) { fmt.Fprintf(stderr, "codemode: "+format+"\n", args...) }
	var token string
	var uiListener net.Listener
	if *uiAddr != "" {
		if token, err = uiToken("mcp serve: --ui", *uiAddr); err != nil {
			return err
		}
		if uiListener, err = net.Listen("tcp", *uiAddr); err != nil {
			return usageError{"mcp serve: --ui: " + err.Error()}
		}
		defer uiListener.Close()
	}
	var ln net.Listener
	if *httpAddr != "" {
		if ln, err = net.Listen("tcp", *httpAddr); err != nil {
			return usageError{"mcp serve: --http: " + err.Error()}
		}
		defer ln.Close()
		if host, _, _ := net.SplitHostPort(ln.Addr().String()); !net.ParseIP(host).IsLoopback() {
			logf("warning: the code tool is served without authentication on %s, beyond this machine; put it behind an authenticating proxy or listen on 127.0.0.1", ln.Addr())
		}
	}
	s, err := openSession(ctx, "mcp serve", &jf, &cf, &rf, *timeout, stderr)
	if err != nil {
		return err
	}
	defer s.close()
	if *maxSessions < 1 || *sessionIdle <= 0 || *bodyTimeout <= 0 {
		return usageError{"mcp serve: --max-sessions must be at least 1, --session-idle and --body-timeout positive"}
	}
	if *maxExec < 1 || *maxQueue < 1 || *maxPerSession < 0 || *maxPerSession > *maxExec {
		return usageError{"mcp serve: --max-executions and --max-queue must be at least 1, --max-executions-per-session between 1 and --max-executions"}
	}
	sopts := durablemcp.ServerOptions{Logger: stderrLogger(stderr), Timeout: *timeout, Declarations: mode,
		MaxExecutions: *maxExec, MaxQueued: *maxQueue, MaxExecutionsPerSession: *maxPerSession}
	if *httpAddr == "" {
		sopts.MaxExecutionsPerSession = *maxExec // stdio: one client, the only session
	}
	if !*noCheck {
		checker, err := typecheck.New(typecheck.Options{})
		if err != nil {
			logf("programs are not type-checked before they run: %s", oneLine(err.Error()))
		} else {
			defer checker.Close()
			sopts.Checker = checker
		}
	}
	srv := durablemcp.NewServer(s.handle, sopts)
	if uiListener != nil {
		// The journal page over the same handle (its connectors approve and
		// roll back); it stops with the server.
		uictx, stopUI := context.WithCancel(ctx)
		uiDone := make(chan error, 1)
		go func() { uiDone <- serveJournalUI(uictx, uiListener, []*durable.Handle{s.handle}, token) }()
		defer func() {
			stopUI()
			if err := <-uiDone; err != nil {
				logf("journal page: %v", err)
			}
		}()
		logf("journal page on http://%s/", uiListener.Addr())
	}
	hopts := mcpserver.HTTPOptions{MaxSessions: *maxSessions, SessionIdle: *sessionIdle, BodyTimeout: *bodyTimeout}
	return serveMCP(ctx, srv, ln, hopts, *timeout, "the durable code tool (journal "+jf.path+")", logf)
}
