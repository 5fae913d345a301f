package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/connector/openapi"
	"github.com/codemode-go/codemode/connector/openapi/openapidurable"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/durablemcp"
	"github.com/codemode-go/codemode/mcpserver"
	"github.com/codemode-go/codemode/typecheck"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const openapiUsage = "usage: codemode openapi serve --spec FILE|URL [--base-url URL] [--header \"Name: value\"] [--header-env Name:ENVVAR] [--journal FILE.db] [--tools search-execute|per-operation] [--http ADDR] [flags]\n"

// openapiCommand runs `codemode openapi SUBCOMMAND`.
func openapiCommand(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "serve" {
		if len(args) > 0 && (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
			fmt.Fprint(stdout, openapiUsage)
			return errHelp
		}
		return usageError{"openapi: the only subcommand is serve (codemode openapi serve --help)"}
	}
	return openapiServe(ctx, args[1:], stdout, stderr)
}

// openapiServe is `codemode openapi serve`: an MCP server over one OpenAPI
// description with the search and execute tools (mcpserver.NewOpenAPI), or
// with --tools per-operation the code tool over one method per operation.
// With --journal, execute runs each program as a durable execution whose
// unsafe requests wait for `codemode approve`.
func openapiServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("openapi serve", flag.ContinueOnError)
	spec := fs.String("spec", "", "the OpenAPI document: a file or an http(s) URL (OpenAPI 3.0, 3.1, or Swagger 2.0, JSON or YAML)")
	baseURL := fs.String("base-url", "", "the API's base URL (default: the document's first server)")
	headers := http.Header{}
	fs.Func("header", `"Name: value": send this header on every request to the base URL's origin, never to another host, and redact its value from responses (repeatable; prefer --header-env for credentials, which keeps them out of shell history)`, func(s string) error {
		name, value, ok := strings.Cut(s, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return fmt.Errorf("--header %q: want \"Name: value\"", s)
		}
		headers.Add(strings.TrimSpace(name), strings.TrimSpace(value))
		return nil
	})
	fs.Func("header-env", "Name:ENVVAR: send the header Name with the value of $ENVVAR on every request to the base URL's origin, never to another host, and redact the value from responses (repeatable)", func(s string) error {
		name, env, ok := strings.Cut(s, ":")
		if !ok || name == "" || env == "" {
			return fmt.Errorf("--header-env %q: want Name:ENVVAR", s)
		}
		value, set := os.LookupEnv(env)
		if !set {
			return fmt.Errorf("--header-env %q: $%s is not set", s, env)
		}
		headers.Add(name, value)
		return nil
	})
	var allowHosts []string
	fs.Func("allow-host", "HOST[:PORT]: a further host requests and redirects may go to, without the --header credentials (repeatable; the base URL's host is always allowed)", func(s string) error {
		allowHosts = append(allowHosts, s)
		return nil
	})
	var responses openapi.ResponseValidation
	fs.Func("responses", "warn (default), error or off: what an operation method (--tools per-operation) does with a JSON response that does not match the document", responsesFlag("responses", &responses))
	toolsMode := fs.String("tools", "search-execute", "search-execute: the search and execute tools; per-operation: the code tool over one method per operation, on --namespace")
	namespace := fs.String("namespace", "api", "the namespace of the API's methods (--tools per-operation, and --journal)")
	journalPath := fs.String("journal", "", "run execute's programs as durable executions in this journal (FILE.db, sqlite:FILE or postgres://...); requests other than GET, HEAD, OPTIONS and TRACE wait for codemode approve")
	runtimeName := fs.String("name", durable.DefaultName, "--journal: the runtime name (separate histories in one journal)")
	httpAddr := fs.String("http", "", "serve streamable HTTP on this address (host:port) instead of stdio")
	timeout := fs.Duration("timeout", 30*time.Second, "per-program deadline")
	noCheck := fs.Bool("no-check", false, "do not type-check programs before running them")
	maxTokens := fs.Int("max-tokens", mcpserver.DefaultMaxTokens, "answer budget in estimated tokens (4 characters each)")
	maxExec := fs.Int("max-executions", mcpserver.DefaultMaxExecutions, "programs running at once; more wait in a queue")
	maxQueue := fs.Int("max-queue", mcpserver.DefaultMaxQueued, "programs waiting for a turn")
	maxSessions := fs.Int("max-sessions", mcpserver.DefaultMaxSessions, "--http: open MCP sessions")
	var rf runtimeFlags
	rf.register(fs)
	fs.IntVar(&rf.memoryMiB, "memory", 256, "QuickJS heap limit per program, in MiB: search holds the whole document (GitHub's 7 MB description fails at 64 and runs at 128)")
	positional, err := parse(fs, args, stdout)
	if err != nil {
		return err
	}
	if err := rf.check("openapi serve"); err != nil {
		return err
	}
	switch {
	case len(positional) > 0:
		return usageError{fmt.Sprintf("openapi serve: unexpected argument %q", positional[0])}
	case *spec == "":
		return usageError{"openapi serve: --spec FILE|URL is required"}
	case *toolsMode != "search-execute" && *toolsMode != "per-operation":
		return usageError{fmt.Sprintf("openapi serve: --tools %q: want search-execute or per-operation", *toolsMode)}
	case *toolsMode == "per-operation" && *journalPath != "":
		return usageError{"openapi serve: --tools per-operation with --journal: use codemode mcp serve --journal --openapi NAME=SPEC, which serves durable per-operation methods"}
	case contract.CheckToolName(*namespace) != nil || *namespace == contract.DefaultNamespace:
		return usageError{fmt.Sprintf("openapi serve: --namespace %q: want a JavaScript identifier other than codemode", *namespace)}
	case *timeout <= 0 || *timeout > 24*time.Hour:
		return usageError{"openapi serve: --timeout must be positive and at most 24h"}
	case *maxTokens < 100 || *maxTokens > 1_000_000:
		return usageError{"openapi serve: --max-tokens must be between 100 and 1000000"}
	case *maxExec < 1 || *maxQueue < 1 || *maxSessions < 1:
		return usageError{"openapi serve: --max-executions, --max-queue and --max-sessions must be at least 1"}
	case rf.memoryMiB < 16 || rf.memoryMiB > 4096:
		return usageError{"openapi serve: --memory must be between 16 and 4096 (MiB)"}
	}
	logf := func(format string, args ...any) { fmt.Fprintf(stderr, "codemode: "+format+"\n", args...) }
	var ln net.Listener
	if *httpAddr != "" {
		if ln, err = net.Listen("tcp", *httpAddr); err != nil {
			return usageError{"openapi serve: --http: " + err.Error()}
		}
		defer ln.Close()
		if host, _, _ := net.SplitHostPort(ln.Addr().String()); !net.ParseIP(host).IsLoopback() {
			logf("warning: the API's tools are served without authentication on %s, beyond this machine; put them behind an authenticating proxy or listen on 127.0.0.1", ln.Addr())
		}
	}
	conn, warnings, err := openapi.Load(ctx, *spec, openapi.Options{Name: *namespace, BaseURL: *baseURL, Headers: headers, AllowedHosts: allowHosts, ExposeSpec: true, Responses: responses, Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		return fmt.Errorf("--spec: %w", err)
	}
	for _, w := range warnings {
		logf("warning: %s", oneLine(w))
	}
	rt, closeRuntime, err := rf.open(ctx, *timeout)
	if err != nil {
		return err
	}
	defer closeRuntime()
	opts := mcpserver.Options{MaxTokens: *maxTokens, Logger: stderrLogger(stderr), Timeout: *timeout, MaxExecutions: *maxExec, MaxQueued: *maxQueue}
	if !*noCheck {
		checker, err := typecheck.New(typecheck.Options{})
		if err != nil {
			logf("programs are not type-checked before they run: %s", oneLine(err.Error()))
		} else {
			defer checker.Close()
			opts.Checker = checker
		}
	}
	var srv *mcp.Server
	what := ""
	switch {
	case *toolsMode == "per-operation":
		ns, err := conn.Namespace()
		if err != nil {
			return err
		}
		k, err := contract.NewNamespaced(ns)
		if err != nil {
			return err
		}
		srv = mcpserver.New(client.New(rt, k), opts)
		what = fmt.Sprintf("the code tool over %d methods of %s", len(ns.Tools), *namespace)
	default:
		oo := mcpserver.OpenAPIOptions{Options: opts}
		what = "the search and execute tools"
		if *journalPath != "" {
			h, closeJournal, err := openAPIJournal(ctx, conn, *journalPath, *runtimeName, rt, *timeout)
			if err != nil {
				return err
			}
			defer closeJournal()
			oo.Execute = durablemcp.CodeHandler(h, durablemcp.ServerOptions{Logger: opts.Logger, Timeout: *timeout, MaxTokens: *maxTokens, Checker: opts.Checker})
			oo.ExecuteDescription = strings.ReplaceAll(durableExecuteDescription, "{{ns}}", *namespace)
			oo.ExecuteTypes = h.TypeDefinitions()
			what += " (execute durable, journal " + *journalPath + ")"
		}
		s, err := mcpserver.NewOpenAPI(rt, conn, oo)
		if err != nil {
			return err
		}
		srv = s.Server
	}
	return serveMCP(ctx, srv, ln, mcpserver.HTTPOptions{MaxSessions: *maxSessions}, *timeout, what, logf)
}

// durableExecuteDescription is execute's description with --journal:
// programs call the API on the connector {{ns}}.
const durableExecuteDescription = `Call the {{title}} API by running a TypeScript program as a durable execution. {{ns}}.request({ method, path, params, body, headers }) sends one request (the base URL and credentials are added by the host) and returns the response: JSON parsed, other text as a string; a status outside 2xx throws an HTTPError. {{ns}}.spec() returns the OpenAPI description (use the search tool to find operations). Requests are journaled: a request other than GET, HEAD, OPTIONS or TRACE pauses the execution until a person approves it, and the answer then has "status": "paused" with the pending actions; do not send the program again, tell the user. After approval the same program continues without repeating earlier requests. Use codemode.step(name, fn) around other non-deterministic work. The answer is cut to about {{chars}} characters.

Write an async arrow function, or plain statements with top-level await whose last expression is the answer. Where the program runs: {{runtime}}.

Declarations:
` + "```ts\n{{types}}\n```"

// openAPIJournal opens the journal at path and a durable runtime whose one
// connector holds conn's request and spec methods (openapidurable).
func openAPIJournal(ctx context.Context, conn *openapi.Connector, path, name string, rt client.Executor, timeout time.Duration) (*durable.Handle, func(), error) {
	jf := journalFlags{path: path, name: name}
	st, err := jf.open(ctx, "openapi serve")
	if err != nil {
		return nil, nil, err
	}
	dc, err := openapidurable.Connector(conn, openapidurable.Options{RequestOnly: true})
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	opts := durable.Options{Name: name}
	opts.Limits.Timeout = timeout
	h, err := durable.New(st, rt, []durable.Connector{dc}, opts)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return h, func() { st.Close() }, nil
}
