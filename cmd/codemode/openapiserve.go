package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/connector/openapi"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/internal/ops"
	"github.com/codemode-go/codemode/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// cmdOpenAPI is `codemode openapi serve`: an MCP server over one OpenAPI
// description with the search and execute tools (mcpserver.NewOpenAPI), or
// with --tools per-operation the code tool over one method per operation.
// With --journal, programs run as recorded executions whose unsafe requests
// wait for a person's approval.
func cmdOpenAPI(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	args, err := subcommand("openapi", "serve", args, stdout)
	if err != nil {
		return 0, err
	}
	o, err := parseOpenAPIServe(args, stdout, stderr)
	if err != nil {
		return 0, err
	}
	return 0, o.serve(ctx, stderr)
}

// openapiServe is openapi serve's command line.
type openapiServe struct {
	spec, baseURL, toolsMode, namespace string
	headers                             http.Header
	headerEnvs                          []string // --header-env as given, for the approve hint
	literalHeaders                      []string // the names of the --header headers
	allowHosts                          []string
	responses                           openapi.ResponseValidation
	readOnly                            bool
	jf                                  journalFlags
	sf                                  serveFlags
	rf                                  runtimeFlags
}

// parseOpenAPIServe parses and checks openapi serve's flags.
func parseOpenAPIServe(args []string, stdout, stderr io.Writer) (*openapiServe, error) {
	o := &openapiServe{headers: http.Header{}}
	fs := flag.NewFlagSet("openapi serve", flag.ContinueOnError)
	fs.StringVar(&o.spec, "spec", "", "the OpenAPI document: a file or an http(s) URL (OpenAPI 3.0, 3.1, or Swagger 2.0, JSON or YAML)")
	fs.StringVar(&o.baseURL, "base-url", "", "the API's base URL (default: the document's first server)")
	fs.Func("header", `"Name: value": send this header on every request to the base URL's origin, never to another host, and redact its value from responses (repeatable; prefer --header-env for credentials, which keeps them out of shell history)`, func(s string) error {
		name, value, ok := strings.Cut(s, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return fmt.Errorf("--header %q: want \"Name: value\"", s)
		}
		o.headers.Add(strings.TrimSpace(name), strings.TrimSpace(value))
		o.literalHeaders = append(o.literalHeaders, strings.TrimSpace(name))
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
		o.headers.Add(name, value)
		o.headerEnvs = append(o.headerEnvs, s)
		return nil
	})
	fs.Func("allow-host", "HOST[:PORT]: a further host requests and redirects may go to, without the --header credentials (repeatable; the base URL's host is always allowed)", func(s string) error {
		o.allowHosts = append(o.allowHosts, s)
		return nil
	})
	fs.Func("responses", "warn (default), error or off: what an operation method (--tools per-operation) does with a JSON response that does not match the document", responsesFlag("responses", &o.responses))
	fs.StringVar(&o.toolsMode, "tools", "search-execute", "search-execute: the search and execute tools; per-operation: the code tool over one method per operation, on --namespace")
	fs.StringVar(&o.namespace, "namespace", "api", "the namespace of the API's methods (--tools per-operation)")
	fs.BoolVar(&o.readOnly, "read-only", false, "serve reads only: requests other than GET, HEAD, OPTIONS and TRACE are refused, and operations of other methods are left out (a plain server that must not write)")
	o.jf.register(fs)
	o.sf.register(fs)
	o.rf.register(fs)
	fs.IntVar(&o.rf.memoryMiB, "memory", 256, "QuickJS heap limit per program, in MiB: search holds the whole document (GitHub's 7 MB description fails at 64 and runs at 128)")
	positional, err := parse(fs, args, stdout)
	if err != nil {
		return nil, err
	}
	o.jf.parsed(fs, stderr)
	return o, o.check(positional)
}

// check validates the command line.
func (o *openapiServe) check(positional []string) error {
	switch {
	case len(positional) > 0:
		return usageError{fmt.Sprintf("openapi serve: unexpected argument %q", positional[0])}
	case o.spec == "":
		return usageError{"openapi serve: --spec FILE|URL is required"}
	case o.toolsMode != "search-execute" && o.toolsMode != "per-operation":
		return usageError{fmt.Sprintf("openapi serve: --tools %q: want search-execute or per-operation", o.toolsMode)}
	case contract.CheckToolName(o.namespace) != nil || o.namespace == contract.DefaultNamespace:
		return usageError{fmt.Sprintf("openapi serve: --namespace %q: want a JavaScript identifier other than codemode", o.namespace)}
	case o.rf.memoryMiB < 16 || o.rf.memoryMiB > 4096:
		return usageError{"openapi serve: --memory must be between 16 and 4096 (MiB)"}
	}
	if err := o.rf.check("openapi serve"); err != nil {
		return err
	}
	return o.sf.check("openapi serve")
}

// serve loads the document and serves its tools until ctx ends.
func (o *openapiServe) serve(ctx context.Context, stderr io.Writer) error {
	logf := func(format string, args ...any) { fmt.Fprintf(stderr, "codemode: "+format+"\n", args...) }
	ln, err := o.sf.listen("openapi serve", logf)
	if err != nil {
		return err
	}
	if ln != nil {
		defer ln.Close()
	}
	opts := openapi.Options{Name: o.namespace, BaseURL: o.baseURL, Headers: o.headers, AllowedHosts: o.allowHosts, ExposeSpec: true, Responses: o.responses,
		Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})), ReadOnly: o.readOnly}
	if o.toolsMode == "search-execute" {
		opts.Name = contract.DefaultNamespace
	}
	if o.jf.path == "" {
		// Without a journal nothing can wait for a person: requests run
		// (--read-only keeps a plain server from writing).
		opts.Approval = func(string) bool { return false }
	}
	conn, warnings, err := openapi.Load(ctx, o.spec, opts)
	if err := baseURLFault(err, "--spec", "--base-url URL"); err != nil {
		return err
	}
	if err != nil {
		return fmt.Errorf("--spec: %w", err)
	}
	for _, w := range warnings {
		logf("warning: %s", oneLine(w))
	}
	srv, what, closeAll, err := o.server(ctx, conn, stderr, logf)
	if err != nil {
		return err
	}
	defer closeAll()
	return serveMCP(ctx, srv, ln, o.sf.hopts(), o.sf.timeout, what, logf)
}

// server builds the MCP server over conn: its runner (plain, or durable
// with --journal) and its tools.
func (o *openapiServe) server(ctx context.Context, conn *openapi.Connector, stderr io.Writer, logf func(string, ...any)) (*mcp.Server, string, func(), error) {
	var k *contract.Contract
	var err error
	if o.toolsMode == "per-operation" {
		ns, nerr := conn.Namespace()
		if nerr != nil {
			return nil, "", nil, nerr
		}
		k, err = contract.NewNamespaced(ns)
	} else {
		k, err = mcpserver.OpenAPIContract(conn)
	}
	if err != nil {
		return nil, "", nil, err
	}
	stopMetrics, err := o.sf.admin.start(ctx)
	if err != nil {
		return nil, "", nil, err
	}
	fp := map[string]string{}
	if err := openapiFingerprint(fp, conn, o.headers); err != nil {
		stopMetrics()
		return nil, "", nil, err
	}
	revertsFingerprint(fp, k.Namespaces())
	s, err := openSession(ctx, sessionOptions{command: "openapi serve", contract: k, configuration: fp, jf: &o.jf, rf: &o.rf, timeout: o.sf.timeout, run: o.sf.admin.withMetrics(client.RunOptions{Limits: client.Limits{CPUTime: o.sf.cpuTime}})}, stderr)
	if err != nil {
		stopMetrics()
		return nil, "", nil, err
	}
	stopAdmin, err := o.sf.admin.serve([]ops.Check{runtimeCheck(s.ex), journalCheck(s.handle)}, logf)
	if err != nil {
		s.close()
		stopMetrics()
		return nil, "", nil, err
	}
	opts, closeChecker := o.sf.options(stderr, logf)
	closeAll := func() { stopAdmin(); closeChecker(); s.close(); stopMetrics() }
	what := "the search and execute tools"
	var srv *mcp.Server
	if o.toolsMode == "per-operation" {
		what = fmt.Sprintf("the code tool over %d methods of %s", len(k.Tools()), o.namespace)
		srv, err = mcpserver.New(s.runner(), opts)
	} else {
		var execute codetool.Runner
		if s.handle != nil {
			execute = s.handle
		}
		srv, err = mcpserver.NewOpenAPI(s.ex, conn, execute, opts)
	}
	if err != nil {
		closeAll()
		return nil, "", nil, err
	}
	if s.handle != nil {
		what += " (journal " + redactDSN(o.jf.path) + ")"
		logf("%s", o.approveHint(conn.Name()))
	}
	return srv, what, closeAll, nil
}

// approveHint tells the operator how to decide on a paused execution from
// the command line: the journal and the API as a namespace of the same
// name, with the same base URL and header variables (a --header value as
// a variable the operator sets: approve refuses without the header).
func (o *openapiServe) approveHint(namespace string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "paused executions are decided with: codemode approve|reject EXECUTION_ID --journal %s --openapi %s=%s", shellQuote(redactDSN(o.jf.path)), namespace, shellQuote(o.spec))
	if o.baseURL != "" {
		fmt.Fprintf(&b, " --base-url %s=%s", namespace, shellQuote(o.baseURL))
	}
	for _, h := range o.headerEnvs {
		fmt.Fprintf(&b, " --header-env %s=%s", namespace, shellQuote(h))
	}
	for i, name := range o.literalHeaders {
		fmt.Fprintf(&b, " --header-env %s=%s:HEADER_%d", namespace, shellQuote(name), i+1)
	}
	if len(o.literalHeaders) > 0 {
		b.WriteString(" (with $HEADER_1… holding the --header values, which are not repeated here)")
	}
	return b.String()
}
