package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/internal/defaults"
	"github.com/codemode-go/codemode/internal/membudget"
	"github.com/codemode-go/codemode/internal/ops"
	"github.com/codemode-go/codemode/mcpserver"
)

// serveFlags are the flags of the MCP server commands (mcp serve, openapi
// serve): where to serve, the programs' deadline, the answer budget, the
// type check and the server's bounds.
type serveFlags struct {
	http           string
	timeout        time.Duration
	cpuTime        time.Duration
	noCheck        bool
	noElicitation  bool
	approveProgram bool
	maxTokens      int
	maxExec        int
	maxPerSession  int
	maxQueue       int
	maxInFlightMiB int64
	maxSessions    int
	sessionIdle    time.Duration
	bodyTimeout    time.Duration
	elicitDeadline time.Duration
	admin          adminFlags
}

// timeoutGrace is how long past a program's deadline the MCP server waits
// for its answer (a type check, a durable pass's journal writes).
const timeoutGrace = 5 * time.Second

func (f *serveFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.http, "http", "", "serve streamable HTTP on this address (host:port) instead of stdio")
	fs.DurationVar(&f.timeout, "timeout", 30*time.Second, "each program's deadline (with --journal: each pass's)")
	fs.DurationVar(&f.cpuTime, "cpu-time", 0, "each program's CPU time limit: its own work, not its waits for tools and timers (0: none but the deadline; approximate on --runtime node)")
	fs.BoolVar(&f.noCheck, "no-check", false, "do not type-check programs before running them")
	fs.BoolVar(&f.noElicitation, "no-elicitation", false, "never ask the person through the MCP client (a client that declares elicitation could answer by itself): with --journal pauses wait for approve, reject or the journal page; without, calls that need approval are refused")
	fs.BoolVar(&f.approveProgram, "approve-programs", false, "show each program whole to the person before it runs; it runs only if they accept (calls that need approval are still asked about one by one). Without --journal the MCP client asks them, and a client without elicitation is refused; with --journal each program is recorded and paused, its first pending action the program itself (codemode.program), approved like any action: through the client, on the journal page or with codemode approve")
	fs.IntVar(&f.maxTokens, "max-tokens", defaults.MCPMaxTokens, "answer budget in estimated tokens (4 characters each)")
	fs.IntVar(&f.maxExec, "max-executions", defaults.MCPMaxExecutions, "programs running at once; more wait in a queue")
	fs.IntVar(&f.maxPerSession, "max-executions-per-session", 0, "--http: programs one client session runs at once, so one client cannot take every turn (default: half of --max-executions, at least 1)")
	fs.IntVar(&f.maxQueue, "max-queue", defaults.MCPMaxQueued, "programs waiting for a turn (at most --timeout); past it a program is answered that the server is busy")
	fs.Int64Var(&f.maxInFlightMiB, "max-in-flight", membudget.DefaultLimit>>20, "MiB the server's programs hold in tool calls' inputs and results all together; a call past it fails with a RangeError")
	fs.IntVar(&f.maxSessions, "max-sessions", defaults.MCPMaxSessions, "--http: open MCP sessions; past it a new client is answered 503")
	fs.DurationVar(&f.sessionIdle, "session-idle", defaults.MCPSessionIdle, "--http: close a session with no request for this long")
	fs.DurationVar(&f.bodyTimeout, "body-timeout", defaults.MCPBodyTimeout, "--http: bound on reading one request's body")
	fs.DurationVar(&f.elicitDeadline, "elicit-timeout", defaults.MCPElicitTimeout, "how long a person asked through the client has to decide")
	f.admin.register(fs)
}

// check validates the flags.
func (f *serveFlags) check(command string) error {
	switch {
	case f.timeout <= 0 || f.timeout > 24*time.Hour:
		return usageError{command + ": --timeout must be positive and at most 24h"}
	case f.cpuTime < 0:
		return usageError{command + ": --cpu-time must not be negative"}
	case f.maxTokens < 100 || f.maxTokens > 1_000_000:
		return usageError{command + ": --max-tokens must be between 100 and 1000000"}
	case f.maxExec < 1 || f.maxQueue < 1 || f.maxSessions < 1 || f.maxInFlightMiB < 1:
		return usageError{command + ": --max-executions, --max-queue, --max-sessions and --max-in-flight must be at least 1"}
	case f.maxPerSession < 0 || f.maxPerSession > f.maxExec:
		return usageError{command + ": --max-executions-per-session must be between 1 and --max-executions"}
	case f.approveProgram && f.noElicitation:
		return usageError{command + ": --approve-programs asks the person through the client, which --no-elicitation turns off"}
	case f.sessionIdle <= 0 || f.bodyTimeout <= 0 || f.elicitDeadline <= 0:
		return usageError{command + ": --session-idle, --body-timeout and --elicit-timeout must be positive"}
	}
	return nil
}

// options are the server's options; logf reports a checker that did not
// start, and the returned close stops the one that did.
func (f *serveFlags) options(stderr io.Writer, logf func(string, ...any)) (mcpserver.Options, func()) {
	// The program's own deadline (the runner's --timeout) ends it first,
	// with a TimeoutError answer; the server's bound is a backstop.
	opts := mcpserver.Options{MaxTokens: f.maxTokens, Logger: stderrLogger(stderr), Timeout: f.timeout + timeoutGrace, MaxExecutions: f.maxExec,
		MaxQueued: f.maxQueue, MaxExecutionsPerSession: f.maxPerSession, NoElicitation: f.noElicitation, ApprovePrograms: f.approveProgram, ElicitTimeout: f.elicitDeadline, MaxInFlightBytes: f.maxInFlightMiB << 20}
	if f.admin.metrics != nil {
		opts.MeterProvider = f.admin.metrics.Provider
	}
	if f.http == "" {
		opts.MaxExecutionsPerSession = f.maxExec // stdio: one client, the only session
	}
	if f.noCheck {
		return opts, func() {}
	}
	checker, err := newChecker()
	if err != nil {
		logf("programs are not type-checked before they run: %s", oneLine(err.Error()))
		return opts, func() {}
	}
	opts.Tool.Checker = checker
	return opts, func() { checker.Close() }
}

// listen opens --http's listener (nil for stdio), warning when it is
// reachable beyond this machine.
func (f *serveFlags) listen(command string, logf func(string, ...any)) (net.Listener, error) {
	if f.http == "" {
		return nil, nil
	}
	ln, err := net.Listen("tcp", f.http)
	if err != nil {
		return nil, usageError{command + ": --http: " + err.Error()}
	}
	if host, _, _ := net.SplitHostPort(ln.Addr().String()); !net.ParseIP(host).IsLoopback() {
		logf("warning: the tools are served without authentication on %s, beyond this machine; put them behind an authenticating proxy or listen on 127.0.0.1", ln.Addr())
	}
	return ln, nil
}

// hopts are the HTTP bounds.
func (f *serveFlags) hopts() mcpserver.HTTPOptions {
	return mcpserver.HTTPOptions{MaxSessions: f.maxSessions, SessionIdle: f.sessionIdle, BodyTimeout: f.bodyTimeout}
}

// cmdMCP is `codemode mcp serve`: the code tool over MCP, over the tools
// the flags name, plain or, with --journal, as recorded executions (with
// code_result, approvals asked through the client, and --ui's journal
// page).
func cmdMCP(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	args, err := subcommand("mcp", "serve", args, stdout)
	if err != nil {
		return 0, err
	}
	fs := flag.NewFlagSet("mcp serve", flag.ContinueOnError)
	var cf contractFlags
	cf.serving = true
	cf.register(fs)
	var jf journalFlags
	jf.register(fs)
	jf.registerRuns(fs)
	var sf serveFlags
	sf.register(fs)
	uiAddr := fs.String("ui", "", "with --journal: also serve the journal page (approve, reject, rollback) on this address, e.g. 127.0.0.1:7312; a non-loopback one needs $"+uiTokenEnv)
	descFile := fs.String("description", "", "file with the code tool's description ({{types}} and {{namespaces}} are filled in)")
	snippetsAsTools := fs.Bool("snippets-as-tools", false, "with --journal: list each saved snippet as an MCP tool of its own (its name, description and input schema); a call runs it in a new execution")
	sessions := fs.Bool("sessions", false, "programs continue where the previous one of the same MCP session left off: top-level let, const, var and function declarations stay defined (values as JSON, functions by source; classes are not kept; a session ends after 30 minutes idle, 1,000 programs or 1 MiB of bindings, and says what was lost). Never shared between MCP sessions; not with --journal")
	declarations := fs.String("declarations", "", "full (every declaration in the code tool's description) or discover (the namespaces, and codemode.search/describe to find tools); default full up to 2,000 tokens")
	var rf runtimeFlags
	rf.register(fs)
	var ff fetchFlags
	ff.register(fs)
	positional, err := parse(fs, args, stdout)
	if err != nil {
		return 0, err
	}
	jf.parsed(fs, stderr)
	fetch, err := ff.policy()
	if err != nil {
		return 0, err
	}
	switch {
	case len(positional) > 0:
		return 0, usageError{fmt.Sprintf("mcp serve: unexpected argument %q", positional[0])}
	case !cf.any():
		return 0, usageError{"mcp serve: give the tools: --tools FILE, --config FILE (mcpServers JSON), --mcp CMD|URL or --openapi NAME=SPEC"}
	case *uiAddr != "" && jf.path == "":
		return 0, usageError{"mcp serve: --ui serves the journal page, and needs --journal FILE.db"}
	case *snippetsAsTools && jf.path == "":
		return 0, usageError{"mcp serve: --snippets-as-tools lists the journal's saved snippets, and needs --journal"}
	case *sessions && jf.path != "":
		return 0, usageError{"mcp serve: --sessions is for plain runs: a journaled run replays its program from the start on every pass, and bindings carried in from outside the journal would make the replays differ"}
	case fetch != nil && jf.path != "":
		return 0, usageError{"mcp serve: --allow-fetch is for plain runs: a journal does not record fetches, so a replay would fetch again"}
	case !slices.Contains([]codetool.Declarations{codetool.DeclarationsAuto, codetool.DeclarationsFull, codetool.DeclarationsDiscover}, codetool.Declarations(*declarations)):
		return 0, usageError{fmt.Sprintf("mcp serve: --declarations %q: use full or discover", *declarations)}
	}
	for _, check := range []func(string) error{rf.check, sf.check} {
		if err := check("mcp serve"); err != nil {
			return 0, err
		}
	}
	logf := func(format string, args ...any) { fmt.Fprintf(stderr, "codemode: "+format+"\n", args...) }
	tool := codetool.Options{Declarations: codetool.Declarations(*declarations), Sessions: *sessions}
	if *descFile != "" {
		b, err := os.ReadFile(*descFile)
		if err != nil {
			return 0, fmt.Errorf("--description: %w", err)
		}
		tool.Description = string(b)
	}
	return 0, serveCode(ctx, codeServe{cf: &cf, jf: &jf, rf: &rf, sf: &sf, tool: tool, ui: *uiAddr, fetch: fetch, snippets: *snippetsAsTools}, stderr, logf)
}

// codeServe is what serveCode serves.
type codeServe struct {
	cf    *contractFlags
	jf    *journalFlags
	rf    *runtimeFlags
	sf    *serveFlags
	tool  codetool.Options
	ui    string
	fetch *client.FetchPolicy
	// snippets lists the journal's saved snippets as tools.
	snippets bool
}

// serveCode opens the session, the listeners and the journal page, and
// serves the code tool until ctx ends.
func serveCode(ctx context.Context, c codeServe, stderr io.Writer, logf func(string, ...any)) error {
	ui, token, err := uiListener(c.ui)
	if err != nil {
		return err
	}
	if ui != nil {
		defer ui.Close()
	}
	ln, err := c.sf.listen("mcp serve", logf)
	if err != nil {
		return err
	}
	if ln != nil {
		defer ln.Close()
	}
	stopMetrics, err := c.sf.admin.start(ctx)
	if err != nil {
		return err
	}
	defer stopMetrics()
	s, err := openSession(ctx, sessionOptions{command: "mcp serve", cf: c.cf, jf: c.jf, rf: c.rf, timeout: c.sf.timeout, run: c.sf.admin.withMetrics(client.RunOptions{Fetch: c.fetch, Limits: client.Limits{CPUTime: c.sf.cpuTime}}),
		approvePrograms: c.sf.approveProgram}, stderr)
	if err != nil {
		return err
	}
	defer s.close()
	if s.handle != nil {
		s.watchOrphans(s.handle)
	}
	opts, closeChecker := c.sf.options(stderr, logf)
	defer closeChecker()
	if s.handle != nil {
		// The journal holds each program for approval (its first pending
		// action), which the client, the page or the CLI decides.
		opts.ApprovePrograms = false
	}
	opts.Tool.Description, opts.Tool.Declarations, opts.Tool.Sessions = c.tool.Description, c.tool.Declarations, c.tool.Sessions
	opts.Instructions = instructions(s.contract)
	opts.SnippetsAsTools = c.snippets
	runner := s.runner()
	if c.cf.set != nil {
		// MCP servers that are down now may join: their tools are
		// announced when they do.
		var stop func()
		runner, stop = followJoins(ctx, c.cf, s, logf, func(r codetool.Runner) {
			logf("the code tool now declares %d tools (MCP clients are told the tool list changed)", len(r.Contract().Tools()))
			if c.ui != "" {
				logf("warning: the journal page keeps the tools it started with: approve there no call of a server that came up since (approve through the MCP client, or codemode approve with the same --config)")
			}
			describeSize(r, opts.Tool, logf)
		})
		defer stop()
	}
	describeSize(runner, opts.Tool, logf)
	srv, err := mcpserver.New(runner, opts)
	if err != nil {
		return usageError{"mcp serve: " + err.Error()}
	}
	stopAdmin, err := c.sf.admin.serve([]ops.Check{runtimeCheck(s.ex), journalCheck(s.handle), mcpServersCheck(c.cf)}, logf)
	if err != nil {
		return err
	}
	defer stopAdmin()
	what := fmt.Sprintf("the code tool (%d tools)", len(runner.Contract().Tools()))
	if s.handle != nil {
		what += ", journal " + redactDSN(c.jf.path)
	}
	if ui != nil {
		stop := startJournalUI(ctx, ui, []*durable.Handle{s.handle}, token, logf)
		defer stop()
	}
	return serveMCP(ctx, srv, ln, c.sf.hopts(), c.sf.timeout, what, logf)
}

// maxInstructions bounds the MCP handshake's instructions, in characters:
// 12,000 is about 3,000 tokens, which every request to the agent's model
// carries. Each server's own are bounded too (4 KiB, by the connector).
const maxInstructions = 12000

// instructions are the namespaces' instructions, each after its name
// ("memory: …"), for the MCP handshake: a server's guidance reaches the
// agent whatever the description holds. Past maxInstructions a namespace
// gets a line saying codemode.describe answers them.
func instructions(c *contract.Contract) string {
	var b strings.Builder
	for _, ns := range c.Namespaces() {
		in := strings.TrimSpace(ns.Instructions)
		if in == "" {
			continue
		}
		if b.Len()+len(ns.Name)+len(in) > maxInstructions {
			in = fmt.Sprintf("(left out here for length: codemode.describe(%q) answers them)", ns.Name)
		}
		fmt.Fprintf(&b, "%s: %s\n", ns.Name, in)
	}
	return strings.TrimSpace(b.String())
}

// descriptionWarnTokens is the size of the code tool's description, in
// estimated tokens (4 characters each), past which mcp serve warns.
const descriptionWarnTokens = 8000

// describeSize says on stderr when the code tool's description is large:
// a warning past descriptionWarnTokens, suggesting --declarations
// discover, and a note when the automatic mode left the declarations out.
func describeSize(r codetool.Runner, tool codetool.Options, logf func(string, ...any)) {
	t, err := codetool.New(r, tool)
	if err != nil {
		return // mcpserver.New reports it
	}
	desc := t.Description
	tokens, decls := len(desc)/4, len(r.TypeDefinitions())/4
	switch {
	case tokens > descriptionWarnTokens:
		logf("warning: the code tool's description is about %d tokens (%d of them declarations), which every request to the agent's model carries; --declarations discover lists only the namespaces, and programs find tools with codemode.search and codemode.describe", tokens, decls)
	case tool.Declarations == codetool.DeclarationsAuto && tool.Description == "" && strings.Contains(desc, "declarations are not listed here"):
		logf("the declarations (about %d tokens) are left out of the code tool's description: programs find tools with codemode.search and codemode.describe (--declarations full puts them in)", decls)
	}
}
