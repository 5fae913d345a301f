package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// emptyObject is the schema of a tool that takes or returns {}.
const emptyObject = `{"type":"object","properties":{},"additionalProperties":false}`

// TestCommandToolSeesOnlyTheMinimalEnvironment runs a tool command that
// prints its environment: it has the inherited set and the tool's "env",
// never the runner token or another host secret.
func TestCommandToolSeesOnlyTheMinimalEnvironment(t *testing.T) {
	t.Setenv("CODEMODE_RUNNER_TOKEN", "runner-token-7f3a")
	t.Setenv("PLANTED_SECRET", "planted-secret-91c2")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := json.Marshal(map[string]any{"tools": []any{map[string]any{
		"name": "env", "description": "Prints its environment.", "inputSchema": json.RawMessage(emptyObject),
		"outputSchema": json.RawMessage(`{"type":"object","properties":{"env":{"type":"array","items":{"type":"string"}}},"required":["env"],"additionalProperties":false}`),
		"command":      []string{self, "-print-env"},
		"env":          map[string]string{"GIVEN_BY_TOOLS_FILE": "given-5d1e"},
	}}})
	tools := writeFile(t, "tools.json", string(spec))
	prog := writeFile(t, "p.ts", `export default async function ({ codemode, result }: AgentProgramScope) {
  result.appendText((await codemode.env({})).env.join("\n"));
}`)
	code, stdout, stderr := runCLI(t, "run", "--tools", tools, prog)
	if code != 0 {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
	for _, secret := range []string{"runner-token-7f3a", "CODEMODE_RUNNER_TOKEN", "planted-secret-91c2", "PLANTED_SECRET"} {
		if strings.Contains(stdout, secret) {
			t.Errorf("the command's environment holds %q:\n%s", secret, stdout)
		}
	}
	for _, want := range []string{"GIVEN_BY_TOOLS_FILE=given-5d1e", "PATH=" + os.Getenv("PATH")} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the command's environment lacks %s:\n%s", want, stdout)
		}
	}
}

// TestCommandToolOutputFaultsAreToolValidationErrors: a command's output
// that is not JSON, or that the program could not read as the command
// wrote it (a number beyond a double), fails the call with the error a Go
// handler's output gets, a ToolValidationError naming the tool.
func TestCommandToolOutputFaultsAreToolValidationErrors(t *testing.T) {
	tools := writeFile(t, "tools.json", `{"tools": [
  {"name": "prints", "description": "Prints text.", "inputSchema": `+emptyObject+`, "outputSchema": `+emptyObject+`,
   "command": ["sh", "-c", "echo hello"]},
  {"name": "counts", "description": "Prints a count.", "inputSchema": `+emptyObject+`,
   "outputSchema": {"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"additionalProperties":false},
   "command": ["sh", "-c", "echo '{\"n\": 1e400}'"]}
]}`)
	prog := writeFile(t, "p.ts", `export default async function ({ codemode, result }: AgentProgramScope) {
  for (const call of [() => codemode.prints({}), () => codemode.counts({})]) {
    try {
      result.appendText("returned " + JSON.stringify(await call()) + "\n");
    } catch (e) {
      result.appendText(String((e as Error).name) + ": " + (e as Error).message + "\n");
    }
  }
}`)
	code, stdout, stderr := runCLI(t, "run", "--tools", tools, prog)
	if code != 0 {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
	for _, want := range []string{
		"ToolValidationError: codemode.prints output validation failed:\n  /: the command sh printed output that is not JSON: \"hello\"",
		"ToolValidationError: codemode.counts output validation failed:\n  /n: 1e400 is beyond the range of a double",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the program's answer lacks %q:\n%s", want, stdout)
		}
	}
}

// TestCommandToolBackgroundChildrenDie starts a background child from a tool
// command, once in a call that returns and once in a call that is cancelled
// by the run's deadline: in both the child is killed with the command's
// process group when the call ends.
func TestCommandToolBackgroundChildrenDie(t *testing.T) {
	dir := t.TempDir()
	tools := writeFile(t, "tools.json", `{"tools": [
  {"name": "returns", "description": "Starts a background sleep and returns.", "inputSchema": `+emptyObject+`, "outputSchema": `+emptyObject+`,
   "command": ["sh", "-c", "sleep 300 & echo $! > `+dir+`/returns.pid; echo {}"]},
  {"name": "hangs", "description": "Starts a background sleep and waits for it.", "inputSchema": `+emptyObject+`, "outputSchema": `+emptyObject+`,
   "command": ["sh", "-c", "sleep 300 & echo $! > `+dir+`/hangs.pid; wait"]}
]}`)
	returns := writeFile(t, "returns.ts", `export default async function ({ codemode }: AgentProgramScope) { await codemode.returns({}); }`)
	start := time.Now()
	if code, _, stderr := runCLI(t, "run", "--tools", tools, returns); code != 0 {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Errorf("the call waited %s for its background child's output", d)
	}
	hangs := writeFile(t, "hangs.ts", `export default async function ({ codemode }: AgentProgramScope) { await codemode.hangs({}); }`)
	if code, _, stderr := runCLI(t, "run", "--timeout", "1s", "--tools", tools, hangs); code != 1 || !strings.Contains(stderr, "deadline") {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
	for _, name := range []string{"returns.pid", "hangs.pid"} {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
		if err != nil {
			t.Fatal(err)
		}
		waitGone(t, pid)
	}
}

// waitGone fails the test unless process pid has ended within 5 s (an
// exited process is reaped by init, since its parent shell has ended).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := syscall.Kill(pid, 0)
		if errors.Is(err, syscall.ESRCH) {
			return
		}
		if stat, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); strings.Contains(string(stat), ") Z ") {
			return // killed, waiting to be reaped
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("background child %d outlived its tool call", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestCommandToolsFanOut runs a 200-way Promise.all over a tool command:
// every call succeeds, at most --max-commands (default) at a time.
func TestCommandToolsFanOut(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The test binary as the command: a Go program's start-up, as a real
	// tool's (200 of them at once failed with "WaitDelay expired before I/O
	// complete" before commands were bounded). Built with the race detector
	// it takes over a second to start, so there cat stands in for it.
	command := []string{self, "-echo"}
	if raceEnabled {
		command = []string{"cat"}
	}
	spec, _ := json.Marshal(map[string]any{"tools": []any{map[string]any{
		"name": "echo", "description": "Answers with its input.",
		"inputSchema":  json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"additionalProperties":false}`),
		"outputSchema": json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"additionalProperties":false}`),
		"command":      command,
	}}})
	tools := writeFile(t, "tools.json", string(spec))
	prog := writeFile(t, "fan.ts", `export default async function ({ codemode, result }: AgentProgramScope) {
  const out = await Promise.all(Array.from({ length: 200 }, (_, n) => codemode.echo({ n })));
  result.appendText(String(out.reduce((sum, o) => sum + o.n, 0)));
}`)
	code, stdout, stderr := runCLI(t, "run", "--timeout", "50s", "--tools", tools, prog)
	if code != 0 || strings.TrimSpace(stdout) != strconv.Itoa(199*200/2) {
		t.Fatalf("exit %d stdout %q stderr %q", code, stdout, stderr)
	}
}

// TestToolsFileFaultsSayWhere: a tools file that is not one JSON object
// is refused, a fault encoding/json places is reported at its line and
// column, and text after the object (a second object pasted in, whose
// tools were dropped unread before) is an error, not ignored. A tool's
// env or arguments no process can start with are refused at load, and
// of two faults the first in the file's order is named.
func TestToolsFileFaultsSayWhere(t *testing.T) {
	tool := `{"name": "a", "description": "d", "inputSchema": {}, "outputSchema": {}, "command": ["true"]}`
	for _, tc := range []struct {
		name, text, want string
	}{
		{"a second object", `{"tools": [` + tool + "]}\n" + `{"tools": []}`, "line 2, column 1: more text after the tools file's object"},
		{"a stray character", `{"tools": []} x`, "line 1, column 15: more text after"},
		{"a syntax error", "{\"tools\": [\n" + tool + "\n,,]}", "line 3, column 2: invalid character ','"},
		{"a wrong type", "{\n  \"tools\": [{\"name\": 5}]}", `line 2, column 22: "name" must be a string, not a number`},
		{"cut short", `{"tools": [` + tool, "the JSON ends early"},
		{"empty", "  \n", "not a JSON object"},
		{"null", "null", "not a JSON object"},
		{"a list", "[" + tool + "]", "not a JSON object"},
		{"a byte order mark", "\uFEFF{\"tools\": []}", "byte order mark"},
	} {
		path := filepath.Join(t.TempDir(), "tools.json")
		if err := os.WriteFile(path, []byte(tc.text), 0o600); err != nil {
			t.Fatal(err)
		}
		_, _, err := loadTools(path, 1)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), path+": ") {
			t.Errorf("%s: loadTools = %v, want %s: …%q…", tc.name, err, path, tc.want)
		}
	}
	with := func(field string) string {
		return `{"tools": [` + strings.Replace(tool, `"command"`, field+`, "command"`, 1) + `]}`
	}
	for _, tc := range []struct {
		name, text, want string
	}{
		// Refused when loaded, not when a call cannot start the command.
		{"an env name with =", with(`"env": {"PATH=/tmp": "x"}`), `tools[0] (a): env: the name "PATH=/tmp" is empty or holds "=" or NUL`},
		{"an empty env name", with(`"env": {"": "x"}`), `env: the name "" is empty`},
		{"a NUL in an env value", with(`"env": {"B": "ok", "A": "x\u0000y"}`), "env: the value of A holds a NUL character"},
		{"a NUL in an argument", with(`"revert": ["undo", "x\u0000"]`), "revert[1] holds a NUL character"},
		// The input schema's fault is named first, whichever order a map
		// would have taken.
		{"two bad schemas", `{"tools": [{"name": "a", "description": "d", "inputSchema": {"type": 5}, "outputSchema": {"type": 6}, "command": ["true"]}]}`, "tools[0] (a): inputSchema is not a valid JSON Schema: /tools/0/inputSchema/type: "},
	} {
		for range 8 {
			path := filepath.Join(t.TempDir(), "tools.json")
			if err := os.WriteFile(path, []byte(tc.text), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, _, err := loadTools(path, 1); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: loadTools = %v, want …%q…", tc.name, err, tc.want)
				break
			}
		}
	}
	path := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(path, []byte("\n  {\"tools\": ["+tool+"]}\n\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if ns, _, err := loadTools(path, 1); err != nil || len(ns.Tools) != 1 {
		t.Errorf("a file with blank lines around its object: %v, %d tools", err, len(ns.Tools))
	}
}

// TestToolsFileSchemaFaultsSayWhereInTheFile: a tool whose schema is not
// a valid JSON Schema is refused naming the tools file, the tool, and
// each fault's JSON pointer within the file, without the address the
// schema is compiled under (codemode:///schema.json) or the validator's
// tree of failed allOf and anyOf against the meta-schema.
func TestToolsFileSchemaFaultsSayWhereInTheFile(t *testing.T) {
	tool := func(in, out string) string {
		return `{"tools": [{"name": "ok", "description": "d", "inputSchema": {}, "outputSchema": {}, "command": ["true"]},
  {"name": "getWeather", "description": "d", "inputSchema": ` + in + `, "outputSchema": ` + out + `, "command": ["true"]}]}`
	}
	const exactIn = `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`
	for _, tc := range []struct {
		name, text, want string
	}{
		{"a misspelt type", tool(`{"type":"object","properties":{"city":{"type":"strng"}}}`, `{}`),
			`tools[1] (getWeather): inputSchema is not a valid JSON Schema: /tools/1/inputSchema/properties/city/type: value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'`},
		{"an output schema's dangling $ref", tool(exactIn, `{"type":"object","properties":{"t":{"$ref":"#/$defs/temp"}}}`),
			`tools[1] (getWeather): outputSchema is not a valid JSON Schema: /tools/1/outputSchema/properties/t/$ref: "#/$defs/temp" refers to nothing in the schema`},
		{"two faults of a schema with an exact declaration", tool(`{"type":"object","properties":{"city":{"type":"string","minLength":-1,"pattern":"("}},"required":["city"],"additionalProperties":false}`, `{}`),
			`inputSchema is not a valid JSON Schema: /tools/1/inputSchema/properties/city/minLength: minimum: got -1, want 0; /tools/1/inputSchema/properties/city/pattern: '(' is not valid regex`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, "tools.json", tc.text)
			_, _, err := loadTools(path, 1)
			if err == nil || !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("loadTools = %v\nwant %s: …%s…", err, path, tc.want)
			}
			if err != nil && (strings.Contains(err.Error(), "codemode:") || strings.Contains(err.Error(), "schema.json") || strings.Contains(err.Error(), "allOf")) {
				t.Errorf("loadTools = %v: it names an address the user never wrote, or the meta-schema's structure", err)
			}
		})
	}
}

// TestToolsFileFaultsSayItInJSONTerms loads tools files with the slips a
// person makes: a misspelt or snake_case key is named with its tool, the
// key meant and the keys allowed there; a value of the wrong JSON type
// says what the key takes, never a Go type such as []main.toolSpec.
func TestToolsFileFaultsSayItInJSONTerms(t *testing.T) {
	tool := `{"name": "count", "description": "d", "inputSchema": {}, "outputSchema": {}, "command": ["true"]}`
	second := func(from, to string) string {
		return `{"tools": [` + strings.Replace(tool, `"count"`, `"first"`, 1) + ", " + strings.Replace(tool, from, to, 1) + `]}`
	}
	for _, tc := range []struct {
		name, text string
		want       []string
		never      string
	}{
		{"a misspelt tool key", second(`"inputSchema"`, `"inputSchma"`),
			[]string{`tools[1] (count): unknown key "inputSchma" (did you mean "inputSchema"?)`, "the keys there are name, description, inputSchema, outputSchema, command, env,"}, "unknown field"},
		{"a snake_case key", second(`"outputSchema"`, `"output_schema"`),
			[]string{`tools[1] (count): unknown key "output_schema" (did you mean "outputSchema"?)`}, "unknown field"},
		{"a key like none", second(`"command"`, `"parameters": {}, "command"`),
			[]string{`tools[1] (count): unknown key "parameters"; the keys there are name,`}, "did you mean"},
		{"a misspelt file key", `{"descripton": "x", "tools": [` + tool + `]}`,
			[]string{`the file's object: unknown key "descripton" (did you mean "description"?); the keys there are description, tools`}, "unknown field"},
		{"a command as one string", second(`["true"]`, `"true --x"`),
			[]string{`line 1, column `, `"command" must be a list of strings, as in ["./run.sh", "--flag"], not a string`}, "[]string"},
		{"approval as a string", second(`"command"`, `"requiresApproval": "yes", "command"`),
			[]string{`"requiresApproval" must be true or false, not a string`}, "Go struct"},
		{"tools as an object", `{"tools": ` + tool + `}`,
			[]string{`"tools" must be a list of tools`, "not an object"}, "main.toolSpec"},
		{"env as a list", second(`"command"`, `"env": ["A=1"], "command"`),
			[]string{`"env" must be an object of strings, as in {"NAME": "value"}, not a list`}, "map["},
		{"the file a string", `{"tools": [], "description": 5}`,
			[]string{`"description" must be a string, not a number`}, "cannot unmarshal"},
	} {
		path := filepath.Join(t.TempDir(), "tools.json")
		if err := os.WriteFile(path, []byte(tc.text), 0o600); err != nil {
			t.Fatal(err)
		}
		_, _, err := loadTools(path, 1)
		if err == nil {
			t.Errorf("%s: loaded, want an error", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: loadTools = %v, want …%q…", tc.name, err, w)
			}
		}
		if strings.Contains(err.Error(), tc.never) {
			t.Errorf("%s: loadTools = %v, has %q", tc.name, err, tc.never)
		}
	}
}

// TestCommandThatCannotStartIsNamed gives tools whose command is not on PATH
// or not in the tools file's folder: loading warns on stderr, naming the
// tool and the command, and a call fails with an error that tells the
// program no change of its own makes the command start, not only exec's
// "executable file not found".
func TestCommandThatCannotStartIsNamed(t *testing.T) {
	for _, tc := range []struct {
		name, command, warning, call string
	}{
		{"not on PATH", `["codemode-no-such-command", "-x"]`,
			`warning: --tools: ` + `%s: tools[0] (count): command "codemode-no-such-command" cannot start (exec: "codemode-no-such-command": executable file not found in $PATH): its calls will fail until it can`,
			`codemode.count cannot start its command codemode-no-such-command (exec: "codemode-no-such-command": executable file not found in $PATH). No change to the program makes it start; whoever runs codemode must fix the tools file's command or install it`},
		{"no such file", `["./count.sh"]`,
			`warning: --tools: %s: tools[0] (count): command "./count.sh" cannot start (`,
			`codemode.count cannot start its command `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tools := writeFile(t, "tools.json", `{"tools": [{"name": "count", "description": "d", "inputSchema": {}, "outputSchema": {}, "command": `+tc.command+`}]}`)
			prog := writeFile(t, "p.ts", `try { await codemode.count({}); } catch (e) { console.log((e as Error).message); }`)
			code, _, stderr := runCLI(t, "run", "--tools", tools, prog)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if want := fmt.Sprintf(tc.warning, tools); !strings.Contains(stderr, want) {
				t.Errorf("stderr %q lacks the warning %q", stderr, want)
			}
			if !strings.Contains(stderr, "\n"+tc.call) {
				t.Errorf("stderr %q lacks the call's error %q", stderr, tc.call)
			}
		})
	}
	tools := writeFile(t, "tools.json", `{"tools": [{"name": "count", "description": "d", "inputSchema": {}, "outputSchema": {}, "command": ["true"]}]}`)
	if code, _, stderr := runCLI(t, "types", "--tools", tools); code != 0 || strings.Contains(stderr, "warning") {
		t.Errorf("a command on PATH: exit %d, stderr %q", code, stderr)
	}
}

// FuzzDecodeToolsFile decodes arbitrary text as a tools file: it never
// panics, and a fault never names a Go type or struct ("[]main.toolSpec",
// "Go struct field") or runs over a few KiB with the text it quotes.
func FuzzDecodeToolsFile(f *testing.F) {
	for _, seed := range []string{
		`{"description": "d", "tools": [{"name": "count", "description": "d", "inputSchema": {}, "outputSchema": {}, "command": ["true"]}]}`,
		`{"tools": [{"name": "a", "inputSchma": {}, "command": "true --x", "env": ["A=1"], "requiresApproval": "yes"}]}`,
		`{"tools": {"name": 5}}`,
		`{"tools": []} {"tools": []}`,
		`{"descripton": "x", "tools": [`,
		"\uFEFF{}",
		`[]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		_, err := decodeToolsFile(raw)
		if err == nil {
			return
		}
		msg := err.Error()
		if strings.Contains(msg, "main.") || strings.Contains(msg, "Go struct") || strings.Contains(msg, "Go value") {
			t.Fatalf("a fault names a Go type: %s", msg)
		}
		if len(msg) > 4096+len(raw) {
			t.Fatalf("a fault of %d bytes for %d bytes of text", len(msg), len(raw))
		}
	})
}
