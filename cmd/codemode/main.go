package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/connector/mcpconnector"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/node"
	"github.com/codemode-go/codemode/internal/cloexec"
	"github.com/codemode-go/codemode/typecheck"
)

func main() {
	// Descriptors codemode inherited without close-on-exec are not passed on
	// to MCP servers, tool commands and the sandbox.
	cloexec.MarkFrom(3)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `usage:
  codemode types [--tools FILE] [--input-schema FILE] [--journal FILE.db]
  codemode check [--tools FILE] [--input-schema FILE] [--journal FILE.db] [--runtime R] PROGRAM.ts
  codemode run [--tools FILE] [--input JSON --input-schema FILE] [--timeout D] [--repeat N] [--json] [--runtime R] [--pool N] [--cache-dir DIR] [--allow-fetch HOST[:PORT],… [--fetch-header HOST=Name:ENVVAR]] PROGRAM.ts
  codemode mcp serve (--config FILE | --mcp CMD|URL | --tools FILE with --journal) [--journal FILE.db [--ui ADDR]] [--http ADDR] [--timeout D] [--description FILE] [--no-check] [--runtime R] [--pool N] [--allow-fetch …]
  codemode openapi serve --spec FILE|URL [--base-url URL] [--header "Name: value" | --header-env Name:ENVVAR] [--journal FILE.db] [--tools per-operation] [--http ADDR]
  codemode run --journal FILE.db ... PROGRAM.ts; codemode executions|show|pending|approve|reject|rollback|expire|delete|prune (durable code mode: codemode help)
  codemode journal serve --journal FILE.db [--tools FILE] [--listen 127.0.0.1:7312]
  codemode runner serve --listen ADDR [--runtime quickjs|node] [--max-connections N] [--idle-timeout D] [--tls-cert F --tls-key F [--tls-client-ca F]]

The contract's tools come from --tools FILE, or from MCP servers: --mcp CMD|URL
(its tools on codemode) or --config FILE (mcpServers JSON, one namespace per
server); types, check and run take them too. --runtime R is quickjs (the
embedded sandbox, default), node (a Node.js 24 child process; not a sandbox) or
the address of a runner host (codemode runner serve; token in
$CODEMODE_RUNNER_TOKEN).

codemode COMMAND --help lists a command's flags.
`

// usageError is a bad command line: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func cli(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "types":
		err = types(ctx, args[1:], stdout, stderr)
	case "check":
		var invalid bool
		invalid, err = check(ctx, args[1:], stdout, stderr)
		if err == nil && invalid {
			return 1
		}
	case "run":
		if wantsJournal(args[1:]) {
			status, err := durableRun(ctx, args[1:], stdout, stderr)
			if err == nil {
				return status
			}
			return fail(err, stderr)
		}
		var failed bool
		failed, err = run(ctx, args[1:], stdout, stderr)
		if err == nil && failed {
			return 1
		}
	case "mcp":
		err = mcpCommand(ctx, args[1:], stdout, stderr)
	case "openapi":
		err = openapiCommand(ctx, args[1:], stdout, stderr)
	case "runner":
		err = runnerCommand(ctx, args[1:], stdout, stderr)
	case "journal":
		err = journalUICommand(ctx, args[1:], stdout, stderr)
	case "search", "describe":
		err = discoverCommand(ctx, args[0], args[1:], stdout, stderr)
	case "snippets", "snippet":
		err = snippetsCommand(ctx, args[0], args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage+"\n"+journalUsage+"\n"+discoveryUsage)
		return 0
	default:
		if isJournalCommand(args[0]) {
			status, err := journalCommand(ctx, args[0], args[1:], stdout, stderr)
			if err == nil {
				return status
			}
			return fail(err, stderr)
		}
		err = usageError{fmt.Sprintf("unknown command %q", args[0])}
	}
	return fail(err, stderr)
}

// fail prints err and returns the exit status: 0 for help, 2 for a bad
// command line, else 1.
func fail(err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, errHelp) {
		return 0
	}
	fmt.Fprintf(stderr, "codemode: %s\n", oneLine(err.Error()))
	var u usageError
	if errors.As(err, &u) {
		return 2
	}
	return 1
}

// oneLine renders an error message on one line: no repeated "codemode: "
// prefix, and line breaks (a validation report) joined with "; ".
func oneLine(msg string) string {
	msg = strings.ReplaceAll(strings.TrimPrefix(msg, "codemode: "), ": codemode: ", ": ")
	var parts []string
	for _, l := range strings.Split(msg, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.ReplaceAll(strings.Join(parts, "; "), ":; ", ": ")
}

// maxProgramSize is the largest program file run accepts, in bytes.
const maxProgramSize = 8 << 20

// contractFlags are the flags that define the contract: a tools file, or
// upstream MCP servers, and an optional input schema.
type contractFlags struct {
	tools       string
	inputSchema string
	mcp         string
	config      string
	openapi     openapiFlags
	maxCommands int
}

func (c *contractFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.tools, "tools", "", "JSON file declaring the tools (name, description, inputSchema, outputSchema, command)")
	fs.StringVar(&c.inputSchema, "input-schema", "", "JSON Schema file of the program input (makes the contract input-bearing)")
	fs.StringVar(&c.mcp, "mcp", "", `an MCP server whose tools go on codemode: a command line ("npx -y @modelcontextprotocol/server-memory") or an http(s) URL`)
	fs.IntVar(&c.maxCommands, "max-commands", defaultMaxCommands(), "most --tools commands running at once; further calls wait (the default is twice the CPUs, at least 4)")
	fs.StringVar(&c.config, "config", "", "MCP client configuration file (mcpServers JSON); each server's tools become a namespace named after it")
	c.openapi.register(fs)
}

// usesMCP reports whether the contract's tools come from MCP servers.
func (c *contractFlags) usesMCP() bool { return c.mcp != "" || c.config != "" }

// build makes the contract. With MCP servers it connects them (progress and
// schema warnings on stderr) and returns the set, which the caller closes;
// otherwise the set is nil.
func (c *contractFlags) build(ctx context.Context, stderr io.Writer) (*contract.Contract, *mcpconnector.Set, error) {
	var input *contract.Schema
	if c.inputSchema != "" {
		raw, err := os.ReadFile(c.inputSchema)
		if err != nil {
			return nil, nil, fmt.Errorf("--input-schema: %w", err)
		}
		if input, err = contract.NewSchema(raw); err != nil {
			return nil, nil, fmt.Errorf("--input-schema %s: %w", c.inputSchema, err)
		}
	}
	var namespaces []contract.Namespace
	var set *mcpconnector.Set
	switch {
	case c.tools != "" && c.usesMCP():
		return nil, nil, usageError{"--tools cannot be combined with --mcp or --config"}
	case c.usesMCP():
		servers, err := c.upstreams(ctx)
		if err != nil {
			return nil, nil, err
		}
		fmt.Fprintf(stderr, "codemode: connecting to %d MCP server(s)\n", len(servers))
		if set, err = mcpconnector.ConnectAll(ctx, servers); err != nil {
			return nil, nil, err
		}
		set.OnWarning(func(w error) { fmt.Fprintf(stderr, "codemode: warning: %s\n", oneLine(w.Error())) })
		ns, warnings, err := set.Namespaces()
		if err != nil {
			set.Close()
			return nil, nil, err
		}
		for _, w := range warnings {
			fmt.Fprintf(stderr, "codemode: warning: %s\n", oneLine(w.Error()))
		}
		namespaces = ns
	default:
		var tools []*contract.Tool
		if c.tools != "" {
			var err error
			if tools, err = loadTools(c.tools, c.maxCommands); err != nil {
				return nil, nil, fmt.Errorf("--tools: %w", err)
			}
		}
		if c.tools != "" || !c.openapi.used() {
			namespaces = []contract.Namespace{{Name: contract.DefaultNamespace, Tools: tools}}
		}
	}
	apis, err := c.openapi.namespaces(ctx, stderr)
	if err != nil {
		set.Close()
		return nil, nil, err
	}
	namespaces = append(namespaces, apis...)
	if c.tools == "" && !c.usesMCP() && !c.openapi.used() {
		fmt.Fprintln(stderr, "codemode: warning: no tools (give --tools FILE, --mcp CMD|URL or --config FILE)")
	}
	var ct *contract.Contract
	if input != nil {
		ct, err = contract.NewNamespacedWithInput(input, namespaces...)
	} else {
		ct, err = contract.NewNamespaced(namespaces...)
	}
	if err != nil {
		set.Close()
		return nil, nil, err
	}
	return ct, set, nil
}

// errHelp reports that -h or --help was asked for and the help printed.
var errHelp = errors.New("help")

// parse parses flags anywhere among the arguments (`run prog.ts --json` is
// the same as `run --json prog.ts`) and returns the positional arguments.
// durableRunHelp ends run's help: the durable form has flags of its own,
// which its help (codemode run --journal FILE.db --help) lists.
const durableRunHelp = `
durable runs: with --journal FILE.db [--name NAME] (or $CODEMODE_JOURNAL set), run records every call in a
journal, pauses at actions that need approval (exit 3) and takes no --input, --input-schema or --repeat;
codemode run --journal FILE.db --help lists its flags, codemode executions --help the journal commands.
`

func parse(fs *flag.FlagSet, args []string, stdout io.Writer) ([]string, error) {
	fs.SetOutput(io.Discard)
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprintf(stdout, "usage: codemode %s [flags]%s\n\nflags:\n", fs.Name(), positionalHint(fs.Name()))
				fs.SetOutput(stdout)
				fs.PrintDefaults()
				if fs.Name() == "run" && fs.Lookup("journal") == nil { // the plain run's help
					fmt.Fprint(stdout, durableRunHelp)
				}
				return nil, errHelp
			}
			return nil, usageError{fmt.Sprintf("%s: %v (see codemode %s --help)", fs.Name(), err, fs.Name())}
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func types(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("types", flag.ContinueOnError)
	var cf contractFlags
	cf.register(fs)
	journal := registerDurableSurface(fs)
	positional, err := parse(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(positional) > 0 {
		return usageError{fmt.Sprintf("types: unexpected argument %q", positional[0])}
	}
	if *journal != "" || cf.tools != "" && isDurableToolsFile(cf.tools) {
		// --journal, or a durable tools file: the declarations programs
		// run with --journal (a tools file on the "tools" connector, and
		// codemode.step).
		h, release, err := durableSurface(ctx, &cf, noPrograms{}, stderr)
		if err != nil {
			return err
		}
		defer release()
		_, err = io.WriteString(stdout, h.TypeDefinitions())
		return err
	}
	c, set, err := cf.build(ctx, stderr)
	if err != nil {
		return err
	}
	defer set.Close()
	_, err = io.WriteString(stdout, c.TypeDefinitions())
	return err
}

// registerDurableSurface registers types' and check's --journal: when
// set (it defaults to $CODEMODE_JOURNAL) they show and check the
// declarations of durable runs, whatever the tools file has; the journal
// itself is not opened.
func registerDurableSurface(fs *flag.FlagSet) *string {
	return fs.String("journal", os.Getenv(journalEnv), "use the declarations of run --journal (a --tools file's tools on tools, codemode.step); the file is not opened (default $"+journalEnv+")")
}

// check type-checks a program; invalid reports a program with errors (exit
// 1), whose report goes to stdout.
func check(ctx context.Context, args []string, stdout, stderr io.Writer) (invalid bool, err error) {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	var cf contractFlags
	cf.register(fs)
	var rf runtimeFlags
	rf.register(fs)
	journal := registerDurableSurface(fs)
	asJSON := fs.Bool("json", false, `print the result as one JSON object: {"valid": bool, "diagnostics": [{"file", "line", "column", "code", "message"}], "report": text}`)
	positional, err := parse(fs, args, stdout)
	if err != nil {
		return false, err
	}
	if err := rf.check("check"); err != nil {
		return false, err
	}
	if len(positional) != 1 {
		return false, usageError{"check: exactly one PROGRAM.ts is required"}
	}
	source, err := readProgram(positional[0])
	if err != nil {
		return false, err
	}
	// The checker first: without one there is nothing to connect for.
	checker, err := typecheck.New(typecheck.Options{})
	if err != nil {
		// No checker is a set-up problem, not an invalid program: exit 2.
		return false, usageError{err.Error()}
	}
	defer checker.Close()
	var res *typecheck.Result
	if *journal != "" || cf.tools != "" && isDurableToolsFile(cf.tools) {
		// --journal, or a durable tools file: checked as run --journal
		// runs it.
		rt, closeRuntime, err := rf.open(ctx, 30*time.Second)
		if err != nil {
			return false, err
		}
		defer closeRuntime()
		h, release, err := durableSurface(ctx, &cf, rt, stderr)
		if err != nil {
			return false, err
		}
		defer release()
		if res, err = h.ValidateCode(ctx, checker, source); err != nil {
			return false, err
		}
		return report(res, positional[0], *asJSON, stdout)
	}
	c, set, err := cf.build(ctx, stderr)
	if err != nil {
		return false, err
	}
	defer set.Close()
	// Programs are checked in the forms RunCode runs (run runs them so),
	// whatever the tools' source.
	rt, closeRuntime, err := rf.open(ctx, 30*time.Second)
	if err != nil {
		return false, err
	}
	defer closeRuntime()
	res, err = client.New(rt, c).ValidateCode(ctx, checker, source)
	if errors.Is(err, node.ErrTypesNotInstalled) {
		// A set-up problem, like a missing checker: exit 2.
		return false, usageError{fmt.Sprintf("check --runtime node needs @types/node: npm install --prefix .tools @types/node@%s (here or in a parent folder)", node.TypesVersion)}
	}
	if err != nil {
		return false, err
	}
	return report(res, positional[0], *asJSON, stdout)
}

// report prints a check's result ("valid", or the report with the
// program's file name; with asJSON the result as one JSON line, each
// diagnostic's file the program's path) and says whether the program is
// invalid.
func report(res *typecheck.Result, path string, asJSON bool, stdout io.Writer) (invalid bool, err error) {
	if asJSON {
		r := *res
		r.Report = named(r.Report, path)
		r.Diagnostics = append([]typecheck.Diagnostic(nil), res.Diagnostics...)
		for i := range r.Diagnostics {
			r.Diagnostics[i].File = path
		}
		return !res.Valid, printJSON(stdout, r)
	}
	if res.Valid {
		fmt.Fprintln(stdout, "valid")
		return false, nil
	}
	fmt.Fprintln(stdout, named(res.Report, path))
	return true, nil
}

// readProgram reads a program file of at most maxProgramSize bytes.
func readProgram(path string) (string, error) {
	if fi, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("program %s: no such file", path)
	} else if err != nil {
		return "", fmt.Errorf("program: %w", err)
	} else if !fi.Mode().IsRegular() || fi.Size() > maxProgramSize {
		return "", fmt.Errorf("%s: not a regular file of at most %d bytes", path, maxProgramSize)
	}
	b, err := os.ReadFile(path)
	return string(b), err
}

// runRecord is one line of `run --json`.
type runRecord struct {
	Outcome    client.OutcomeKind   `json:"outcome"`
	Content    []client.Content     `json:"content"`
	Value      json.RawMessage      `json:"value,omitempty"`
	Error      *client.ProgramError `json:"error,omitempty"`
	Stdout     string               `json:"stdout"`
	Stderr     string               `json:"stderr"`
	ToolCalls  []toolCallRecord     `json:"toolCalls"`
	DurationMS float64              `json:"durationMs"`
}

type toolCallRecord struct {
	Seq        uint64          `json:"seq"`
	Namespace  string          `json:"namespace"`
	Tool       string          `json:"tool"`
	Input      json.RawMessage `json:"input"`
	Output     json.RawMessage `json:"output,omitempty"`
	Error      string          `json:"error,omitempty"`
	DurationMS float64         `json:"durationMs"`
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) (failed bool, err error) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var cf contractFlags
	cf.register(fs)
	input := fs.String("input", "", "program input as JSON (requires --input-schema)")
	timeout := fs.Duration("timeout", 30*time.Second, "per-run deadline")
	repeat := fs.Int("repeat", 1, "run the program N times on one runtime")
	asJSON := fs.Bool("json", false, "print one JSON object per run")
	var rf runtimeFlags
	rf.register(fs)
	var ff fetchFlags
	ff.register(fs)
	positional, err := parse(fs, args, stdout)
	if err != nil {
		return false, err
	}
	fetch, err := ff.policy()
	if err != nil {
		return false, err
	}
	if err := rf.check("run"); err != nil {
		return false, err
	}
	switch {
	case len(positional) != 1:
		return false, usageError{"run: exactly one PROGRAM.ts is required"}
	case *repeat < 1:
		return false, usageError{"run: --repeat must be at least 1"}
	case *timeout <= 0:
		return false, usageError{"run: --timeout must be positive"}
	case *input != "" && cf.inputSchema == "":
		return false, usageError{"run: --input needs --input-schema (an inputless contract takes no input)"}
	case *input == "" && cf.inputSchema != "":
		return false, usageError{"run: --input-schema makes the contract input-bearing; --input is required"}
	}
	source, err := readProgram(positional[0])
	if err != nil {
		return false, err
	}
	c, set, err := cf.build(ctx, stderr)
	if err != nil {
		return false, err
	}
	defer set.Close()
	tp, stopTracing, err := startTracing(ctx, stderr)
	if err != nil {
		return false, err
	}
	defer stopTracing()
	opts := client.RunOptions{Fetch: fetch, TracerProvider: tp}
	if *input != "" {
		if !json.Valid([]byte(*input)) {
			return false, usageError{"run: --input is not valid JSON"}
		}
		opts.Input = json.RawMessage(*input)
	}
	rt, closeRuntime, err := rf.open(ctx, *timeout)
	if err != nil {
		return false, err
	}
	defer closeRuntime()
	cl := client.New(rt, c)
	for i := 0; i < *repeat; i++ {
		// Every tools source runs the forms models write (statements, a
		// function); a file with top-level exports runs as the module it is
		// (so one without a default export is told so).
		rec, err := runOnce(ctx, cl, source, cf.usesMCP() || !topLevelExport.MatchString(source), opts, *timeout, *asJSON, stdout, stderr)
		if err != nil {
			return false, err
		}
		if rec.Outcome != client.Success {
			failed = true
		}
		if *asJSON {
			line, err := json.Marshal(rec)
			if err != nil {
				return false, err
			}
			fmt.Fprintf(stdout, "%s\n", line)
			continue
		}
		printForPerson(rec, positional[0], stdout, stderr)
	}
	return failed, nil
}

// defaultCacheDir is codemode/quickjs under the user's cache folder, or
// empty when there is none.
func defaultCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "codemode", "quickjs")
}

// topLevelExport finds an export statement at the start of a line: the
// program is a module.
var topLevelExport = regexp.MustCompile(`(?m)^export\s`)

// runOnce runs source once. asCode runs it as RunCode does (any form a model
// writes, its value appended as text), which is how programs over MCP
// servers run; otherwise it must be a module with a default export.
func runOnce(ctx context.Context, cl *client.Client, source string, asCode bool, opts client.RunOptions, timeout time.Duration, quiet bool, stdout, stderr io.Writer) (*runRecord, error) {
	var mu sync.Mutex
	rec := &runRecord{ToolCalls: []toolCallRecord{}}
	var out, errOut strings.Builder
	calls := map[uint64]int{}
	opts.OnTelemetry = func(e client.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch e.Kind {
		case client.EventProgramOutput:
			if e.Stream == "stderr" {
				errOut.WriteString(e.Text)
			} else {
				out.WriteString(e.Text)
			}
			if !quiet {
				fmt.Fprint(stderr, e.Text)
			}
		case client.EventToolCallStarted:
			calls[e.Seq] = len(rec.ToolCalls)
			rec.ToolCalls = append(rec.ToolCalls, toolCallRecord{Seq: e.Seq, Namespace: e.Namespace, Tool: e.Tool, Input: e.Input})
		case client.EventToolCallCompleted, client.EventToolCallFailed:
			i, ok := calls[e.Seq]
			if !ok {
				i = len(rec.ToolCalls)
				rec.ToolCalls = append(rec.ToolCalls, toolCallRecord{Seq: e.Seq, Namespace: e.Namespace, Tool: e.Tool, Input: e.Input})
			}
			tc := &rec.ToolCalls[i]
			tc.Output, tc.DurationMS = e.Output, float64(e.Duration.Microseconds())/1000
			if e.Err != nil {
				tc.Error = e.Err.Error()
			}
		}
	}
	// The deadline is the execution's own (an outcome naming the limit on
	// every runtime), not a second timer stacked around it.
	opts.Limits.Timeout = timeout
	start := time.Now()
	run := cl.Run
	if asCode {
		run = cl.RunCode
	}
	outcome, err := run(ctx, source, opts)
	if err != nil {
		return nil, err
	}
	mu.Lock()
	defer mu.Unlock()
	sort.Slice(rec.ToolCalls, func(i, j int) bool { return rec.ToolCalls[i].Seq < rec.ToolCalls[j].Seq })
	rec.DurationMS = float64(time.Since(start).Microseconds()) / 1000
	rec.Outcome, rec.Content, rec.Value, rec.Error = outcome.Kind, outcome.Content, outcome.Value, outcome.Error
	if rec.Content == nil {
		rec.Content = []client.Content{}
	}
	rec.Stdout, rec.Stderr = out.String(), errOut.String()
	return rec, nil
}

// named shows positions in a program's file name instead of the name
// programs run under ("agent.ts:3:5" becomes "report.ts:3:5"), for a person
// reading the command's output; --json keeps the names as they are.
func named(text, path string) string {
	return strings.ReplaceAll(text, "agent.ts:", filepath.Base(path)+":")
}

// printContent prints a program's result content for a person: text as
// it is, an image as a line naming it.
func printContent(stdout io.Writer, content []client.Content) {
	for _, c := range content {
		switch c.Type {
		case "text":
			fmt.Fprintln(stdout, c.Text)
		case "image":
			fmt.Fprintf(stdout, "[image %s, %d base64 characters]\n", c.MimeType, len(c.Data))
		}
	}
}

func printForPerson(rec *runRecord, path string, stdout, stderr io.Writer) {
	if rec.Outcome == client.Success {
		printContent(stdout, rec.Content)
		if text, ok := (&client.Outcome{Value: rec.Value}).ValueText(); ok {
			fmt.Fprintln(stdout, text)
		}
		return
	}
	fmt.Fprintf(stderr, "program failed: %s: %s\n", rec.Error.Name, named(rec.Error.Message, path))
	if rec.Error.Stack != "" {
		fmt.Fprintln(stderr, named(strings.TrimRight(rec.Error.Stack, "\n"), path))
	}
}
