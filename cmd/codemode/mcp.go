package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/connector/mcpconnector"
	"github.com/codemode-go/codemode/mcpserver"
	"github.com/codemode-go/codemode/typecheck"
)

// mcpCommand runs `codemode mcp SUBCOMMAND`.
func mcpCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "serve" {
		if len(args) > 0 && (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
			fmt.Fprint(stdout, "usage: codemode mcp serve (--config FILE | --mcp CMD|URL | --tools FILE) [--journal FILE.db] [flags]\n")
			return errHelp
		}
		return usageError{"mcp: the only subcommand is serve (codemode mcp serve --help)"}
	}
	if wantsJournal(args[1:]) {
		return durableMCPServe(ctx, args[1:], stdout, stderr)
	}
	return mcpServe(ctx, args[1:], stdout, stderr)
}

// mcpServe serves the code tool over stdio or streamable HTTP, wrapping the
// configured upstream MCP servers.
func mcpServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mcp serve", flag.ContinueOnError)
	var cf contractFlags
	cf.register(fs)
	httpAddr := fs.String("http", "", "serve streamable HTTP on this address (host:port) instead of stdio")
	timeout := fs.Duration("timeout", 30*time.Second, "per-program deadline")
	descFile := fs.String("description", "", "file with the code tool's description template ({{types}}, {{example}}, {{namespaces}} and {{runtime}} are filled in)")
	noCheck := fs.Bool("no-check", false, "do not type-check programs before running them")
	maxTokens := fs.Int("max-tokens", mcpserver.DefaultMaxTokens, "answer budget in estimated tokens (4 characters each)")
	// Listed for --help: a command line with --journal is served by
	// durableMCPServe, which reads these itself.
	fs.String("journal", "", "serve the durable code tool over this journal (FILE.db, sqlite:FILE or postgres://...): approvals, replay and rollback")
	fs.String("name", "default", "--journal: the runtime name (separate histories in one journal)")
	fs.String("ui", "", "--journal: also serve the journal page (approve, reject, rollback) on this address, e.g. 127.0.0.1:7312")
	declarations := fs.String("declarations", "", "--journal: full (every declaration in the code tool's description) or discover (namespaces and codemode.search/describe); default full up to 2,000 tokens")
	maxExec := fs.Int("max-executions", mcpserver.DefaultMaxExecutions, "programs running at once; more wait in a queue")
	maxPerSession := fs.Int("max-executions-per-session", 0, "--http: programs one client session runs at once, so one client cannot take every turn (default: half of --max-executions, at least 1)")
	maxQueue := fs.Int("max-queue", mcpserver.DefaultMaxQueued, "programs waiting for a turn (at most --timeout); past it a program is answered that the server is busy")
	maxSessions := fs.Int("max-sessions", mcpserver.DefaultMaxSessions, "--http: open MCP sessions; past it a new client is answered 503")
	sessionIdle := fs.Duration("session-idle", mcpserver.DefaultSessionIdle, "--http: close a session with no request for this long")
	bodyTimeout := fs.Duration("body-timeout", mcpserver.DefaultBodyTimeout, "--http: bound on reading one request's body")
	var rf runtimeFlags
	rf.register(fs)
	var ff fetchFlags
	ff.register(fs)
	positional, err := parse(fs, args, stdout)
	if err != nil {
		return err
	}
	fetch, err := ff.policy()
	if err != nil {
		return err
	}
	if err := rf.check("mcp serve"); err != nil {
		return err
	}
	switch {
	case len(positional) > 0:
		return usageError{fmt.Sprintf("mcp serve: unexpected argument %q", positional[0])}
	case *declarations != "":
		return usageError{"mcp serve: --declarations is for the durable code tool (--journal FILE.db)"}
	case cf.tools != "" && !cf.usesMCP():
		return usageError{"mcp serve: --tools FILE needs --journal FILE.db (the durable code tool); without --journal give --config FILE (mcpServers JSON) or --mcp CMD|URL"}
	case cf.mcp == "" && cf.config == "":
		return usageError{"mcp serve: --config FILE (mcpServers JSON) or --mcp CMD|URL is required (or --journal FILE.db with --tools FILE)"}
	case *timeout <= 0 || *timeout > 24*time.Hour:
		return usageError{"mcp serve: --timeout must be positive and at most 24h"}
	case *maxTokens < 100 || *maxTokens > 1_000_000:
		return usageError{"mcp serve: --max-tokens must be between 100 and 1000000"}
	case *maxExec < 1 || *maxQueue < 1 || *maxSessions < 1:
		return usageError{"mcp serve: --max-executions, --max-queue and --max-sessions must be at least 1"}
	case *maxPerSession < 0 || *maxPerSession > *maxExec:
		return usageError{"mcp serve: --max-executions-per-session must be between 1 and --max-executions"}
	case *sessionIdle <= 0 || *bodyTimeout <= 0:
		return usageError{"mcp serve: --session-idle and --body-timeout must be positive"}
	}
	logf := func(format string, args ...any) { fmt.Fprintf(stderr, "codemode: "+format+"\n", args...) }
	var template string
	if *descFile != "" {
		b, err := os.ReadFile(*descFile)
		if err != nil {
			return fmt.Errorf("--description: %w", err)
		}
		template = string(b)
	}
	// Listen before connecting the upstreams, so that a bad address fails
	// at once.
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
	c, set, err := cf.build(ctx, stderr)
	if err != nil {
		return err
	}
	defer set.Close()
	rt, closeRuntime, err := rf.open(ctx, *timeout)
	if err != nil {
		return err
	}
	defer closeRuntime()
	// The context deadline backs up the driver's own (QuickJS stops a
	// program at --timeout itself; other runtimes rely on this).
	tp, stopTracing, err := startTracing(ctx, stderr)
	if err != nil {
		return err
	}
	defer stopTracing()
	opts := mcpserver.Options{Description: template, MaxTokens: *maxTokens, Logger: stderrLogger(stderr), Timeout: *timeout,
		MaxExecutions: *maxExec, MaxQueued: *maxQueue, MaxExecutionsPerSession: *maxPerSession, Fetch: fetch, TracerProvider: tp}
	if *httpAddr == "" {
		// stdio: one client, the only session.
		opts.MaxExecutionsPerSession = *maxExec
	}
	if set != nil {
		opts.Instructions = set.Instructions()
	}
	if !*noCheck {
		checker, err := typecheck.New(typecheck.Options{})
		if err != nil {
			logf("programs are not type-checked before they run: %s", oneLine(err.Error()))
		} else {
			defer checker.Close()
			opts.Checker = checker
		}
	}
	srv := mcpserver.New(client.New(rt, c), opts)
	tools := len(c.Tools())
	hopts := mcpserver.HTTPOptions{MaxSessions: *maxSessions, SessionIdle: *sessionIdle, BodyTimeout: *bodyTimeout}
	return serveMCP(ctx, srv, ln, hopts, *timeout, fmt.Sprintf("the code tool (%d upstream tools)", tools), logf)
}

// upstreams connects the MCP servers the flags name.
func (c *contractFlags) upstreams(ctx context.Context) ([]mcpconnector.Server, error) {
	var servers []mcpconnector.Server
	if c.config != "" {
		s, err := mcpconnector.LoadConfig(c.config)
		if err != nil {
			return nil, fmt.Errorf("--config: %w", err)
		}
		servers = s
	}
	if c.mcp != "" {
		s, err := mcpconnector.ParseTarget(c.mcp)
		if err != nil {
			return nil, fmt.Errorf("--mcp: %w", err)
		}
		if len(servers) > 0 {
			s.Name = "codemode"
		}
		servers = append(servers, s)
	}
	return servers, nil
}
