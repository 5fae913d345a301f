package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/internal/cases"
	"github.com/codemode-go/codemode/internal/cloexec"
	"github.com/codemode-go/codemode/internal/fixtures"
	"github.com/codemode-go/codemode/internal/mcptest"
	"github.com/codemode-go/codemode/internal/typescript"
	"github.com/codemode-go/codemode/typecheck"
)

// TestMain doubles as the fixture tools' command: `<test binary>
// -fixture-tool NAME` reads the input JSON on stdin and prints the output.
func TestMain(m *testing.M) {
	mcptest.Play() // the test MCP servers of internal/mcptest run as this binary
	if len(os.Args) == 3 && os.Args[1] == "-fixture-tool" {
		in, _ := io.ReadAll(os.Stdin)
		h := fixtures.Handlers(nil)[os.Args[2]]
		if h == nil {
			fmt.Fprintf(os.Stderr, "no fixture tool %s", os.Args[2])
			os.Exit(3)
		}
		out, err := h(context.Background(), in)
		if err != nil {
			fmt.Fprint(os.Stderr, err.Error())
			os.Exit(1)
		}
		os.Stdout.Write(out)
		os.Exit(0)
	}
	if len(os.Args) == 3 && os.Args[1] == "-conformance-agent" {
		os.Exit(conformanceAgent(os.Args[2]))
	}
	if len(os.Args) == 2 && os.Args[1] == "-print-env" {
		// A tool command that answers with its own environment.
		out, _ := json.Marshal(map[string][]string{"env": os.Environ()})
		os.Stdout.Write(out)
		os.Exit(0)
	}
	if len(os.Args) == 2 && os.Args[1] == "-echo" {
		// A tool command that answers with its input.
		_, _ = io.Copy(os.Stdout, os.Stdin)
		os.Exit(0)
	}
	if len(os.Args) >= 2 && os.Args[1] == "-codemode-cli" {
		// The test binary as the codemode command, for end-to-end tests
		// that start `codemode mcp serve` as an agent's MCP client would.
		cloexec.MarkFrom(3)
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := cli(ctx, os.Args[2:], os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// fixtureToolsFile writes a tools file whose commands are this test binary.
func fixtureToolsFile(t *testing.T) string {
	t.Helper()
	var f struct {
		Tools []map[string]any `json:"tools"`
	}
	if err := json.Unmarshal(fixtures.ToolsJSON, &f); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range f.Tools {
		tool["command"] = []string{self, "-fixture-tool", tool["name"].(string)}
	}
	raw, _ := json.Marshal(f)
	path := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	code = cli(ctx, args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCasesThroughTheCLI runs every shared case with `codemode run --json`
// and the fixture tools as commands.
func TestCasesThroughTheCLI(t *testing.T) {
	all, err := cases.Load("../../testdata/cases")
	if err != nil {
		t.Fatal(err)
	}
	tools := fixtureToolsFile(t)
	for _, c := range all {
		t.Run(c.Name, func(t *testing.T) {
			dir := filepath.Join("../../testdata/cases/programs", c.Name)
			args := []string{"run", "--json", "--tools", tools, "--repeat", fmt.Sprint(c.Runs)}
			if c.InputSchema != nil {
				args = append(args, "--input", string(c.Input), "--input-schema", writeFile(t, "input.json", string(c.InputSchema)))
			}
			args = append(args, filepath.Join(dir, "program.ts"))
			code, stdout, stderr := runCLI(t, args...)
			if c.Expect.HostRejects {
				if code == 0 || stdout != "" {
					t.Fatalf("exit %d, stdout %q: want a refusal with no outcome line", code, stdout)
				}
				matches(t, "stderr", c.Expect.MessageMatches, stderr)
				return
			}
			lines := strings.Split(strings.TrimSpace(stdout), "\n")
			if len(lines) != c.Runs {
				t.Fatalf("%d lines for %d runs (exit %d, stderr %q)", len(lines), c.Runs, code, stderr)
			}
			wantCode := 0
			if c.Expect.Outcome != "success" {
				wantCode = 1
			}
			if code != wantCode {
				t.Errorf("exit %d, want %d (stderr %q)", code, wantCode, stderr)
			}
			for _, line := range lines {
				var a codetool.Answer
				if err := json.Unmarshal([]byte(line), &a); err != nil {
					t.Fatalf("line %q: %v", line, err)
				}
				checkCaseAnswer(t, c, a)
			}
		})
	}
}

// checkCaseAnswer checks an answer of `run --json` against a case: the
// outcome, the content, the error's name, message and stack (the answer's
// error text: "Name: message", then where the program failed), and the
// console streams (the answer's lines; stderr's start with "[stderr] ").
// The tool calls are checked on every driver by internal/cases.
func checkCaseAnswer(t *testing.T, c cases.Case, a codetool.Answer) {
	t.Helper()
	want := map[string]codetool.Status{"success": codetool.StatusCompleted, "program-failed": codetool.StatusError}[c.Expect.Outcome]
	if a.Status != want {
		t.Fatalf("status %s (%s), want %s", a.Status, a.Error, want)
	}
	if c.Expect.Content != nil {
		got, _ := json.Marshal(a.Content)
		wantContent, _ := json.Marshal(c.Expect.Content)
		if len(c.Expect.Content) == 0 {
			wantContent = []byte("null")
		}
		if string(got) != string(wantContent) {
			t.Errorf("content %s, want %s", got, wantContent)
		}
	}
	if a.Status == codetool.StatusError {
		name, message, _ := strings.Cut(a.Error, ": ")
		message, _, _ = strings.Cut(message, "\n  at program.ts:")
		if c.Expect.ErrorName != "" && name != c.Expect.ErrorName {
			t.Errorf("error name %s, want %s", name, c.Expect.ErrorName)
		}
		matches(t, "message", c.Expect.MessageMatches, message)
		matches(t, "stack", c.Expect.StackMatches, a.Error)
	}
	var stdout, stderr []string
	for _, l := range a.Logs {
		if rest, ok := strings.CutPrefix(l, "[stderr] "); ok {
			stderr = append(stderr, rest)
		} else {
			stdout = append(stdout, l)
		}
	}
	matches(t, "stdout", c.Expect.StdoutMatches, strings.Join(stdout, "\n"))
	matches(t, "stderr", c.Expect.StderrMatches, strings.Join(stderr, "\n"))
}

func matches(t *testing.T, what, pattern, text string) {
	t.Helper()
	if pattern != "" && !regexp.MustCompile(pattern).MatchString(text) {
		t.Errorf("%s %q does not match %q", what, text, pattern)
	}
}

func TestTypesPrintsDeclarations(t *testing.T) {
	code, stdout, stderr := runCLI(t, "types", "--tools", fixtureToolsFile(t))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"interface Tools {", "getWeather(input: {", "interface AgentProgramScope {", "type AgentProgram ="} {
		if !strings.Contains(stdout, want) {
			t.Errorf("declarations lack %q", want)
		}
	}
}

func TestBadCommandLines(t *testing.T) {
	prog := writeFile(t, "p.ts", `export default async function () {}`)
	tools := fixtureToolsFile(t)
	schema := writeFile(t, "s.json", `{"type":"object","properties":{},"additionalProperties":false}`)
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no command", nil, 2, "usage"},
		{"unknown command", []string{"fly"}, 2, `unknown command "fly"`},
		{"unknown flag", []string{"run", "--nope", prog}, 2, "flag provided but not defined: -nope"},
		{"duration without a unit", []string{"run", "--timeout", "5", prog}, 2, `invalid value "5" for flag -timeout: parse error (a duration: a number and a unit, such as 30s, 500ms or 2m)`},
		{"bad number", []string{"run", "--repeat", "x", prog}, 2, `invalid value "x" for flag -repeat: parse error (see codemode run --help)`},
		{"no program", []string{"run"}, 2, "exactly one PROGRAM.ts"},
		{"input without schema", []string{"run", "--input", "{}", prog}, 2, "--input needs --input-schema"},
		{"schema without input", []string{"run", "--input-schema", schema, prog}, 2, "--input is required"},
		{"bad input JSON", []string{"run", "--tools", tools, "--input", "{", "--input-schema", schema, prog}, 2, "--input is not valid JSON"},
		{"bad repeat", []string{"run", "--repeat", "0", prog}, 2, "--repeat"},
		{"missing program", []string{"run", "/no/such.ts"}, 1, "no such file"},
		{"missing tools file", []string{"run", "--tools", "/no/tools.json", prog}, 1, "--tools"},
		{"tools file not JSON", []string{"types", "--tools", writeFile(t, "t.json", "{")}, 1, "unexpected EOF"},
		{"tool without command", []string{"types", "--tools", writeFile(t, "t.json", `{"tools":[{"name":"a","description":"d","inputSchema":{},"outputSchema":{}}]}`)}, 1, "command is missing"},
		{"bad tool name", []string{"types", "--tools", writeFile(t, "t.json", `{"tools":[{"name":"then","description":"d","inputSchema":{},"outputSchema":{},"command":["true"]}]}`)}, 1, "reserved"},
		{"tool schema not a schema", []string{"types", "--tools", writeFile(t, "t.json", `{"tools":[{"name":"a","description":"d","inputSchema":{"type":5},"outputSchema":{},"command":["true"]}]}`)}, 1, "tools[0] (a): inputSchema"},
		{"bad pool", []string{"run", "--pool", "0", prog}, 2, "--pool must be at least 1"},
		{"bad runtime", []string{"run", "--tools", tools, "--runtime", "deno", prog}, 2, `--runtime "deno" is not quickjs, node or a runner host address`},
		{"runner host without token", []string{"run", "--tools", tools, "--runtime", "127.0.0.1:1", prog}, 2, "CODEMODE_RUNNER_TOKEN"},
		{"mcp serve without servers", []string{"mcp", "serve"}, 2, "give the tools: --tools FILE, --config FILE (mcpServers JSON), --mcp CMD|URL or --openapi NAME=SPEC"},
		{"unknown declarations mode", []string{"mcp", "serve", "--tools", tools, "--declarations", "all"}, 2, `--declarations "all": use full or discover`},
		{"search without a query", []string{"search", "--tools", "t.json"}, 2, "search: the QUERY is missing"},
		{"snippet without a subcommand", []string{"snippet"}, 2, "use `codemode snippet save NAME --from ID`"},
		{"snippet save without --from", []string{"snippet", "save", "x", "--journal", "j.db"}, 2, "--from EXECUTION_ID is required"},
		{"mcp without serve", []string{"mcp"}, 2, "the only subcommand is serve"},
		{"login without a server", []string{"login"}, 2, "give either --config FILE NAME or --mcp URL"},
		{"approve programs without elicitation", []string{"mcp", "serve", "--tools", tools, "--approve-programs", "--no-elicitation"}, 2, "--approve-programs asks the person through the client"},
		{"login to a command", []string{"login", "--mcp", "npx server"}, 2, "--mcp must be the server's http(s) URL"},
		{"login to a config's command", []string{"login", "--config", writeFile(t, "l.json", `{"mcpServers": {"local": {"command": "x"}}}`), "local"}, 2, "is a command, not a remote server"},
		{"login to a missing entry", []string{"login", "--config", writeFile(t, "l2.json", `{"mcpServers": {"local": {"command": "x"}}}`), "other"}, 2, `has no server "other"`},
		{"login with an unset secret", []string{"login", "--mcp", "https://a.example/mcp", "--client-id", "x", "--client-secret-env", "CODEMODE_TEST_UNSET_SECRET"}, 2, "$CODEMODE_TEST_UNSET_SECRET is not set"},
		{"bad mcp config", []string{"types", "--config", writeFile(t, "m.json", `{"mcpServers": {"a": {}}}`)}, 1, "neither command nor url"},
		{"ok", []string{"run", "--tools", tools, prog}, 0, ""},
		{"no tools warned", []string{"run", prog}, 0, "warning: no tools (give --tools FILE, --mcp CMD|URL, --config FILE or --openapi NAME=SPEC)"},
		{"flags after the program", []string{"run", prog, "--tools", tools, "--json"}, 0, ""},
		{"help", []string{"run", "--help"}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d (stderr %q)", code, tt.code, stderr)
			}
			if !strings.Contains(stderr, tt.msg) {
				t.Errorf("stderr %q lacks %q", stderr, tt.msg)
			}
			if tt.code != 0 && strings.Count(strings.TrimSpace(stderr), "\n") > 0 && tt.name != "no command" {
				t.Errorf("error is not one line: %q", stderr)
			}
		})
	}
}

func TestCommandToolErrorsAndCancellation(t *testing.T) {
	tools := writeFile(t, "tools.json", `{"tools": [
  {"name": "broken", "description": "Exits 3 with a message.", "inputSchema": {"type":"object","properties":{},"additionalProperties":false},
   "outputSchema": {"type":"object","properties":{},"additionalProperties":false}, "command": ["sh", "-c", "echo 'disk on fire' >&2; exit 3"]},
  {"name": "slow", "description": "Sleeps for a minute.", "inputSchema": {"type":"object","properties":{},"additionalProperties":false},
   "outputSchema": {"type":"object","properties":{},"additionalProperties":false}, "command": ["sh", "-c", "sleep 60"]}
]}`)
	prog := writeFile(t, "p.ts", `export default async function ({ codemode, result }: AgentProgramScope) {
  try { await codemode.broken({}); } catch (e) { result.appendText((e as Error).message); }
}`)
	code, stdout, stderr := runCLI(t, "run", "--tools", tools, prog)
	if code != 0 || strings.TrimSpace(stdout) != "disk on fire" {
		t.Fatalf("exit %d stdout %q stderr %q", code, stdout, stderr)
	}
	slow := writeFile(t, "slow.ts", `export default async function ({ codemode }: AgentProgramScope) { await codemode.slow({}); }`)
	start := time.Now()
	code, _, stderr = runCLI(t, "run", "--timeout", "500ms", "--tools", tools, slow)
	if code != 1 || !strings.Contains(stderr, "deadline") {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("the slow command was not killed: the run took %s", d)
	}
}

func TestRunForAPerson(t *testing.T) {
	prog := writeFile(t, "p.ts", `export default async function ({ codemode, console, result }: AgentProgramScope) {
  console.log("working");
  result.appendText("text item");
  result.appendImage(await codemode.tinyImage({}));
}`)
	code, stdout, stderr := runCLI(t, "run", "--tools", fixtureToolsFile(t), prog)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if stdout != "text item\n[image image/png, 96 base64 characters]\n" || stderr != "working\n" {
		t.Fatalf("stdout %q stderr %q", stdout, stderr)
	}
	failing := writeFile(t, "f.ts", "export default async function () {\n  throw new Error(\"nope\");\n}\n")
	code, _, stderr = runCLI(t, "run", failing)
	if code != 1 || !strings.Contains(stderr, "program failed: Error: nope") || !strings.Contains(stderr, "at f.ts:2:") {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
}

// An error's positions name the program's file, with or without --json.
func TestRunErrorNamesTheProgramsFile(t *testing.T) {
	failing := writeFile(t, "bad.ts", "throw new Error(\"nope\");\n")
	for _, c := range []struct {
		name string
		args []string
	}{
		{"text", []string{"run", failing}},
		{"json", []string{"run", "--json", failing}},
	} {
		code, stdout, stderr := runCLI(t, c.args...)
		if code != 1 || !strings.Contains(stdout+stderr, "at bad.ts:1:") || strings.Contains(stdout+stderr, "agent.ts") {
			t.Errorf("%s: exit %d\nstdout %q\nstderr %q", c.name, code, stdout, stderr)
		}
	}
}

func TestExampleToolsFileRuns(t *testing.T) {
	code, stdout, stderr := runCLI(t, "run", "--tools", "../../examples/cli/tools.json", "../../examples/cli/program.ts")
	if code != 0 || strings.TrimSpace(stdout) != "warmest: London at 18°C (4 words)" {
		t.Fatalf("exit %d stdout %q stderr %q", code, stdout, stderr)
	}
}

func TestCheckReportsTypeErrors(t *testing.T) {
	if _, err := typescript.Find(mustGetwd(t)); err != nil && os.Getenv("CODEMODE_REQUIRE_TSC") == "" {
		t.Skip(err)
	}
	tools := fixtureToolsFile(t)
	good := writeFile(t, "good.ts", "export default async function ({ codemode, result }: AgentProgramScope) {\n  result.appendText((await codemode.echo({ value: \"x\" })).value);\n}\n")
	code, stdout, stderr := runCLI(t, "check", "--tools", tools, good)
	if code != 0 || strings.TrimSpace(stdout) != "valid" {
		t.Fatalf("exit %d stdout %q stderr %q", code, stdout, stderr)
	}
	bad := writeFile(t, "bad.ts", "export default async function ({ codemode }: AgentProgramScope) {\n  await codemode.echo({ value: 42 });\n}\n")
	code, stdout, _ = runCLI(t, "check", "--tools", tools, bad)
	if code != 1 || !strings.Contains(stdout, "bad.ts:2:") || !strings.Contains(stdout, "TS2322") {
		t.Fatalf("exit %d report %q", code, stdout)
	}
	// --json: the result as one object, each diagnostic naming the file.
	code, stdout, _ = runCLI(t, "check", "--json", "--tools", tools, bad)
	var res typecheck.Result
	if err := json.Unmarshal([]byte(stdout), &res); code != 1 || err != nil || res.Valid || len(res.Diagnostics) == 0 ||
		res.Diagnostics[0].File != bad || res.Diagnostics[0].Line != 2 || res.Diagnostics[0].Code != 2322 {
		t.Fatalf("check --json: exit %d %v %q", code, err, stdout)
	}
	if code, stdout, _ := runCLI(t, "check", "--json", "--tools", tools, good); code != 0 || strings.TrimSpace(stdout) != `{"valid":true}` {
		t.Fatalf("check --json of a valid program: exit %d %q", code, stdout)
	}
	if code, _, _ := runCLI(t, "check"); code != 2 {
		t.Fatalf("check without a program: exit %d", code)
	}
}

// TestCheckWithoutACompilerSaysHowToInstallOne: check where no TypeScript 7
// compiler is found (none under .tools, $CODEMODE_TSC unset or not one,
// none on PATH) exits with status 4, not 2 (a bad command line), saying how
// to install one.
func TestCheckWithoutACompilerSaysHowToInstallOne(t *testing.T) {
	prog := writeFile(t, "p.ts", "return 1")
	notTsc := writeFile(t, "tsc", "#!/bin/sh\necho Version 5.9.3\n")
	if err := os.Chmod(notTsc, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	t.Setenv("PATH", t.TempDir())
	tests := []struct {
		name, tscEnv string
		args         []string
		code         int
		want         string
	}{
		{"no compiler", "", []string{"check", prog}, exitNotInstalled, "install one with: npm install --prefix .tools typescript@"},
		{"$CODEMODE_TSC is not TypeScript 7", notTsc, []string{"check", prog}, exitNotInstalled, `$CODEMODE_TSC (` + notTsc + `) is not TypeScript 7: --version printed "Version 5.9.3"`},
		{"no program", "", []string{"check"}, 2, "check: exactly one PROGRAM.ts is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CODEMODE_TSC", tt.tscEnv)
			code, _, stderr := runCLI(t, tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, tt.code, tt.want)
			}
		})
	}
}

// TestRunWarnsOfCallsNeverAwaited: a tool call that failed and that the
// program never awaited is a warning among the program's output, and one
// still running when the program ended (the input the host refuses, which
// it would have refused after the end) a note, plain and with a journal,
// for a person and in --json's logs.
func TestRunWarnsOfCallsNeverAwaited(t *testing.T) {
	tools := fixtureToolsFile(t)
	programs := []struct{ name, source, line string }{
		{"failed", `codemode.echo({ value: 1n });
return "done";`, "[stderr] warning: a promise was rejected and nothing handled it: TypeError: tool input is not JSON: input.value is a bigint (did the program forget an await or a catch?)"},
		{"still running", `codemode.echo({ value: 1 } as any);
return "done";`, "[stderr] note: 1 tool call (codemode.echo) was still running when the program ended; its result, or its error, was dropped (await a call whose outcome matters)"},
	}
	for _, p := range programs {
		prog := writeFile(t, "p.ts", p.source)
		journal := filepath.Join(t.TempDir(), "j.db")
		quoted, _ := json.Marshal(p.line)
		tests := []struct {
			name         string
			args         []string
			stdout, want string
		}{
			{"plain", nil, "done\n", p.line + "\n"},
			{"plain, --json", []string{"--json"}, `"logs":[` + string(quoted) + `]`, ""},
			{"journal", []string{"--journal", journal}, "done\n", "console: " + p.line + "\n"},
			{"journal, --json", []string{"--journal", journal, "--json"}, `"logs":[` + string(quoted) + `]`, ""},
		}
		for _, tt := range tests {
			t.Run(p.name+", "+tt.name, func(t *testing.T) {
				code, stdout, stderr := runCLI(t, append(append([]string{"run", "--tools", tools}, tt.args...), prog)...)
				if code != 0 || !strings.Contains(stdout, tt.stdout) || !strings.Contains(stderr, tt.want) {
					t.Errorf("exit %d\nstdout %s\nstderr %s\nwant stdout with %q, stderr with %q", code, stdout, stderr, tt.stdout, tt.want)
				}
			})
		}
	}
}

func mustGetwd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return wd
}

// TestStatementFormsWithToolsFile: with a tools file, run and check take the
// forms models write (statements, a function) as they do with MCP tools,
// not only modules.
func TestStatementFormsWithToolsFile(t *testing.T) {
	tools := fixtureToolsFile(t)
	forms := map[string]string{
		"statements.ts": "const r = await codemode.echo({ value: \"x\" });\nr.value + \"!\"\n",
		"function.ts":   "async () => (await codemode.echo({ value: \"x\" })).value + \"!\"\n",
		"module.ts":     "export default async ({ codemode }: AgentProgramScope) => (await codemode.echo({ value: \"x\" })).value + \"!\";\n",
	}
	_, tscErr := typescript.Find(mustGetwd(t))
	for name, src := range forms {
		prog := writeFile(t, name, src)
		code, stdout, stderr := runCLI(t, "run", "--tools", tools, prog)
		if code != 0 || strings.TrimSpace(stdout) != "x!" {
			t.Errorf("run %s: exit %d stdout %q stderr %q", name, code, stdout, stderr)
		}
		if tscErr != nil {
			continue
		}
		code, stdout, stderr = runCLI(t, "check", "--tools", tools, prog)
		if code != 0 || strings.TrimSpace(stdout) != "valid" {
			t.Errorf("check %s: exit %d stdout %q stderr %q", name, code, stdout, stderr)
		}
	}
}

// TestVersion: codemode version and --version print the build, exit 0.
func TestVersion(t *testing.T) {
	for _, arg := range []string{"version", "--version"} {
		var out, errs strings.Builder
		if code := cli(context.Background(), []string{arg}, &out, &errs); code != 0 || !strings.HasPrefix(out.String(), "codemode ") || !strings.Contains(out.String(), "go1.") {
			t.Fatalf("%s: exit %d, %q, %q", arg, code, out.String(), errs.String())
		}
	}
}
