package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/internal/childenv"
	"github.com/codemode-go/codemode/internal/procgroup"
	"github.com/codemode-go/codemode/internal/tail"
	"github.com/codemode-go/codemode/internal/typegen"
)

// toolsFile is the JSON file of `--tools`: tools that run commands, on the
// codemode namespace, in plain and durable runs alike.
//
//	{"description": "…",
//	 "tools": [{"name": "getWeather", "description": "…",
//	            "inputSchema": {…}, "outputSchema": {…},
//	            "command": ["./weather.sh", "--celsius"]}]}
//
// A call runs the command with the input JSON on stdin; the command prints
// the output JSON on stdout. A non-zero exit is the tool's error, with its
// stderr as the message. Output that is not JSON, or that breaks
// outputSchema, fails the call with a ToolValidationError naming the tool,
// as a Go handler's output does. A schema that is not a valid JSON Schema
// is refused when the file is loaded, naming each fault at its JSON
// pointer within the file (/tools/1/inputSchema/properties/city/type).
// A relative command path (one containing a slash)
// is resolved against the tools file's folder, which is also the working
// directory. The file's description is the codemode namespace's
// instructions.
//
// A tool's policy (contract.Policy) takes five optional fields:
//
//	"requiresApproval": true         a call waits for a person's approval: a run with a journal pauses,
//	                                 a plain run refuses the call
//	"replay": "log" | "reexecute"    reexecute: a replay runs the command again instead of
//	                                 returning the recorded result (idempotent reads only)
//	"revert": ["./undo.sh", "--x"]   compensation for rollback: receives {"args", "result"}
//	                                 as JSON on stdin; a non-zero exit is the revert's error
//	"idempotent": true               running a call twice does what running it once does
//	"callers": "model" | "both"      the model calls it directly (mcp serve lists it beside
//	                                 the code tool); model: programs never do
//
// The command's environment is HOME, LOGNAME, PATH, SHELL, TERM and USER
// from the host plus the tool's "env" object (see internal/childenv): no
// other host variable, CODEMODE_RUNNER_TOKEN included, reaches it unless
// "env" names it. It runs in a process group of its own: when its call ends
// (it exits, is cancelled, or codemode exits) the whole group is killed, so
// background jobs it started do not outlive the call. At most
// --max-commands commands (reverts included) run at once; further calls
// wait their turn.
type toolsFile struct {
	Description string     `json:"description,omitempty"`
	Tools       []toolSpec `json:"tools"`
}

type toolSpec struct {
	Name             string            `json:"name"`
	Description      string            `json:"description"`
	InputSchema      json.RawMessage   `json:"inputSchema"`
	OutputSchema     json.RawMessage   `json:"outputSchema"`
	Command          []string          `json:"command"`
	Env              map[string]string `json:"env,omitempty"`
	RequiresApproval bool              `json:"requiresApproval,omitempty"`
	Replay           contract.Replay   `json:"replay,omitempty"`
	Revert           []string          `json:"revert,omitempty"`
	Idempotent       bool              `json:"idempotent,omitempty"`
	Callers          contract.Callers  `json:"callers,omitempty"`
}

// commandSlots bounds how many tool commands run at once, across every tool
// of a tools file: a 200-way Promise.all must queue, not fork 200 processes
// on two cores.
type commandSlots chan struct{}

// defaultMaxCommands is --max-commands' default: twice the CPUs, at least 4.
// Tool commands mostly wait (on a network, a disk), so a few more than the
// CPUs keep them busy; far more only adds scheduling delay.
func defaultMaxCommands() int { return max(4, 2*runtime.NumCPU()) }

// acquire waits for a free slot or ctx's end.
func (s commandSlots) acquire(ctx context.Context) error {
	select {
	case s <- struct{}{}:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func (s commandSlots) release() { <-s }

// loadTools reads the tools file at path as the codemode namespace; at most
// maxCommands of its commands run at once. The warnings name the commands
// that cannot start now (not on PATH, no such file): the file is still
// loaded, as types and check need no command, but each call would fail.
func loadTools(path string, maxCommands int) (contract.Namespace, []string, error) {
	if maxCommands < 1 {
		return contract.Namespace{}, nil, fmt.Errorf("at most %d commands at once: must be at least 1", maxCommands)
	}
	slots := make(commandSlots, maxCommands)
	raw, err := os.ReadFile(path)
	if err != nil {
		return contract.Namespace{}, nil, err
	}
	f, err := decodeToolsFile(raw)
	if err != nil {
		return contract.Namespace{}, nil, fmt.Errorf("%s: %w", path, err)
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return contract.Namespace{}, nil, err
	}
	ns := contract.Namespace{Name: contract.DefaultNamespace, Instructions: f.Description}
	var warnings []string
	for i, s := range f.Tools {
		t, err := s.tool(fmt.Sprintf("/tools/%d", i), dir, slots)
		if err != nil {
			return contract.Namespace{}, nil, fmt.Errorf("%s: tools[%d] (%s): %w", path, i, s.Name, err)
		}
		ns.Tools = append(ns.Tools, t)
		for _, w := range s.unstartable(dir) {
			warnings = append(warnings, fmt.Sprintf("%s: tools[%d] (%s): %s", path, i, s.Name, w))
		}
	}
	return ns, warnings, nil
}

// unstartable says which of s's command and revert cannot start now, as
// exec would find them ("command \"jqq\" cannot start: exec: …").
func (s toolSpec) unstartable(dir string) []string {
	var out []string
	for _, argv := range []struct {
		field string
		args  []string
	}{{"command", s.Command}, {"revert", s.Revert}} {
		if len(argv.args) == 0 {
			continue
		}
		if _, err := exec.LookPath(resolveCommand(argv.args, dir)[0]); err != nil {
			out = append(out, fmt.Sprintf("%s %q cannot start (%v): its calls will fail until it can", argv.field, argv.args[0], err))
		}
	}
	return out
}

// decodeToolsFile decodes a tools file's text: one JSON object with no
// unknown field and nothing after it (a second object pasted after the
// first would otherwise be dropped unread). A fault encoding/json places
// is reported at its line and column; faults are said in JSON terms
// (toolsfilefaults.go).
func decodeToolsFile(raw []byte) (toolsFile, error) {
	var f toolsFile
	text := bytes.TrimSpace(raw)
	if bytes.HasPrefix(text, []byte("\uFEFF")) {
		return f, errors.New("the file starts with a byte order mark (U+FEFF), which JSON does not allow: save it as UTF-8 without one")
	}
	if len(text) == 0 || text[0] != '{' {
		return f, errors.New(`not a JSON object: a tools file is {"description": "…", "tools": [{"name": …, "command": […]}, …]}`)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		var syntax *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syntax):
			return f, fmt.Errorf("%s: %w", textPlace(raw, syntax.Offset), err)
		case errors.As(err, &typ):
			return f, fmt.Errorf("%s: %w", textPlace(raw, typ.Offset), typeFault(typ))
		case errors.Is(err, io.ErrUnexpectedEOF):
			return f, fmt.Errorf("the JSON ends early (an object or list not closed): %w", err)
		}
		if fault := unknownKeyFault(raw); fault != nil {
			return f, fault
		}
		return f, err
	}
	if rest := dec.InputOffset(); len(bytes.TrimSpace(raw[rest:])) > 0 {
		at := rest + int64(len(raw[rest:])-len(bytes.TrimLeft(raw[rest:], " \t\r\n")))
		return f, fmt.Errorf("%s: more text after the tools file's object (one object holds every tool)", textPlace(raw, at+1))
	}
	return f, nil
}

// textPlace names the place of the byte before offset in text as "line
// L, column C" (1-based; columns count bytes).
func textPlace(text []byte, offset int64) string {
	offset = min(max(offset, 1), int64(len(text)))
	before := text[:offset-1]
	line := 1 + bytes.Count(before, []byte("\n"))
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return fmt.Sprintf("line %d, column %d", line, col)
}

// tool makes the contract tool of s, found at the JSON pointer at in its
// tools file, its commands resolved against dir.
func (s toolSpec) tool(at, dir string, slots commandSlots) (*contract.Tool, error) {
	switch {
	case len(s.Command) == 0 || s.Command[0] == "":
		return nil, errors.New("command is missing or empty")
	case s.InputSchema == nil || s.OutputSchema == nil:
		return nil, errors.New("inputSchema and outputSchema are required")
	case s.Revert != nil && (len(s.Revert) == 0 || s.Revert[0] == ""):
		return nil, errors.New("revert is empty: give a command, or leave it out")
	}
	if err := s.checkProcess(); err != nil {
		return nil, err
	}
	t, err := s.newTool(at, commandHandler(s.Name, resolveCommand(s.Command, dir), dir, s.Env, slots))
	if err != nil {
		return nil, err
	}
	p := contract.Policy{RequiresApproval: s.RequiresApproval, Replay: s.Replay, Idempotent: s.Idempotent, Callers: s.Callers}
	if s.Revert != nil {
		p.Revert = revertCommand(commandHandler(s.Name, resolveCommand(s.Revert, dir), dir, s.Env, slots))
	}
	return t.WithPolicy(p)
}

// checkProcess refuses what no process can be started with: a NUL in a
// command's or revert's argument or in an env value, and an env name that
// is empty or holds "=" or NUL ("A=B" would set A to "B=…", overriding an
// inherited A).
func (s toolSpec) checkProcess() error {
	for _, argv := range []struct {
		field string
		args  []string
	}{{"command", s.Command}, {"revert", s.Revert}} {
		for i, a := range argv.args {
			if strings.IndexByte(a, 0) >= 0 {
				return fmt.Errorf("%s[%d] holds a NUL character", argv.field, i)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		switch v := s.Env[k]; {
		case k == "" || strings.ContainsAny(k, "=\x00"):
			return fmt.Errorf("env: the name %q is empty or holds \"=\" or NUL", k)
		case strings.IndexByte(v, 0) >= 0:
			return fmt.Errorf("env: the value of %s holds a NUL character", k)
		}
	}
	return nil
}

// newTool makes the tool of s, found at the JSON pointer at in its tools
// file, with handler h: declared exactly when its schemas have an exact
// declaration (closed objects; typegen.Type), else declared leniently
// (open objects, unknown where TypeScript cannot say it), and validated
// against them either way. A schema that does not compile is an error
// naming each fault's JSON pointer within the tools file (see
// schemaFaults).
func (s toolSpec) newTool(at string, h contract.Handler) (*contract.Tool, error) {
	for _, p := range []struct {
		field  string
		schema json.RawMessage
	}{{"inputSchema", s.InputSchema}, {"outputSchema", s.OutputSchema}} {
		if _, err := contract.NewSchema(p.schema); err != nil {
			return nil, schemaFaults(at+"/"+p.field, p.field, err)
		}
	}
	if exact(s.InputSchema) && exact(s.OutputSchema) {
		return contract.NewRawTool(s.Name, s.Description, s.InputSchema, s.OutputSchema, h)
	}
	return contract.NewForeignTool(s.Name, s.Description, s.InputSchema, s.OutputSchema, h)
}

// maxSchemaFaults bounds the faults named for one schema of a tools file.
const maxSchemaFaults = 10

// schemaFaults is the error of a tool's schema, the tools file's field at
// the JSON pointer at, that contract.NewSchema refused with err: each
// fault at its pointer within the file ("inputSchema is not a valid JSON
// Schema: /tools/1/inputSchema/properties/city/type: value must be one of
// …"), which a person finds with their editor's JSON outline, rather than
// within the schema alone.
func schemaFaults(at, field string, err error) error {
	var se *contract.SchemaError
	if !errors.As(err, &se) {
		return fmt.Errorf("%s: %w", field, err)
	}
	var lines []string
	for _, f := range se.Faults[:min(len(se.Faults), maxSchemaFaults)] {
		lines = append(lines, at+f.Pointer+": "+f.Message)
	}
	if n := len(se.Faults) - maxSchemaFaults; n > 0 {
		lines = append(lines, fmt.Sprintf("… and %d more", n))
	}
	return fmt.Errorf("%s is not a valid JSON Schema: %s", field, strings.Join(lines, "; "))
}

// exact reports whether schema has an exact TypeScript declaration.
func exact(schema json.RawMessage) bool {
	_, err := typegen.Type(schema)
	return err == nil
}

// resolveCommand resolves a relative command path (one with a slash)
// against the tools file's folder.
func resolveCommand(command []string, dir string) []string {
	argv := append([]string(nil), command...)
	if strings.Contains(argv[0], "/") && !filepath.IsAbs(argv[0]) {
		argv[0] = filepath.Join(dir, argv[0])
	}
	return argv
}

// revertCommand runs a command handler with {"args": …, "result": …} on
// stdin; what it prints is ignored, a non-zero exit (with its stderr) is the
// error.
func revertCommand(run contract.Handler) func(ctx context.Context, args, result json.RawMessage) error {
	return func(ctx context.Context, args, result json.RawMessage) error {
		if len(result) == 0 {
			result = json.RawMessage("null")
		}
		in, err := json.Marshal(map[string]json.RawMessage{"args": args, "result": result})
		if err != nil {
			return err
		}
		_, err = run(ctx, in)
		var notJSON *contract.ValidationError
		if errors.As(err, &notJSON) {
			return nil // a revert's output is not used
		}
		return err
	}
}

// commandHandler runs argv for each call of the tool named tool: input on
// stdin, output on stdout. Output that is not JSON is a
// *contract.ValidationError of the tool's output (Phase "output"), as the
// output of a Go handler that is not JSON is: programs see a
// ToolValidationError naming the tool, the command and the start of what
// it printed.
func commandHandler(tool string, argv []string, dir string, env map[string]string, slots commandSlots) contract.Handler {
	return func(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
		if err := slots.acquire(ctx); err != nil {
			return nil, err
		}
		defer slots.release()
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = dir
		cmd.Env = childenv.Build(env, nil)
		cmd.Stdin = bytes.NewReader(input)
		stdout := &cappedBuffer{limit: maxCommandOutput}
		stderr := tail.New(maxCommandStderr)
		cmd.Stdout, cmd.Stderr = stdout, stderr
		err := procgroup.Run(ctx, cmd, commandDrain)
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		if stdout.overflow {
			return nil, fmt.Errorf("%s printed more than %d bytes of output", argv[0], maxCommandOutput)
		}
		if err != nil {
			msg := strings.TrimSpace(stderr.String())
			var exit *exec.ExitError
			if errors.As(err, &exit) && msg != "" {
				return nil, errors.New(msg)
			}
			if msg != "" {
				return nil, fmt.Errorf("%v: %s", err, msg)
			}
			if cmd.Process == nil {
				return nil, fmt.Errorf("codemode.%s cannot start its command %s (%w). No change to the program makes it start; whoever runs codemode must fix the tools file's command or install it", tool, argv[0], err)
			}
			return nil, fmt.Errorf("running %s: %w", argv[0], err)
		}
		out := bytes.TrimSpace(stdout.buf)
		if !json.Valid(out) {
			return nil, &contract.ValidationError{Tool: tool, Phase: "output", Lines: []string{
				fmt.Sprintf("/: the command %s printed output that is not JSON: %.200q", argv[0], out),
			}}
		}
		return out, nil
	}
}

// Bounds on what a tool command may print, in bytes: its output must fit a
// wire frame; of its stderr only the tail is kept for the error message.
const (
	maxCommandOutput = 16 << 20
	maxCommandStderr = 64 << 10
)

// commandDrain is how long a finished command's output may stay open, held
// by a process that left its group, before the call gives up on it. It is
// generous because on a loaded machine (a 200-way fan-out on two cores) the
// copies of a command's output can lag its exit by seconds.
const commandDrain = 10 * time.Second

// cappedBuffer collects up to limit bytes. Past the limit it fails the write,
// so the command gets a broken pipe and is not waited on forever.
type cappedBuffer struct {
	buf      []byte
	limit    int
	overflow bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if len(b.buf)+len(p) > b.limit {
		b.overflow = true
		return 0, errors.New("output limit reached")
	}
	b.buf = append(b.buf, p...)
	return len(p), nil
}

func (b *cappedBuffer) String() string { return string(b.buf) }
