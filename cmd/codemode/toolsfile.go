package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/internal/childenv"
	"github.com/codemode-go/codemode/internal/procgroup"
	"github.com/codemode-go/codemode/internal/tail"
)

// toolsFile is the JSON file of `--tools`: tools that run commands.
//
//	{"tools": [{"name": "getWeather", "description": "…",
//	            "inputSchema": {…}, "outputSchema": {…},
//	            "command": ["./weather.sh", "--celsius"]}]}
//
// A call runs the command with the input JSON on stdin; the command prints
// the output JSON on stdout. A non-zero exit is the tool's error, with its
// stderr as the message. A relative command path (one containing a slash)
// is resolved against the tools file's folder, which is also the working
// directory.
//
// The command's environment is HOME, LOGNAME, PATH, SHELL, TERM and USER
// from the host plus the tool's "env" object (see internal/childenv): no
// other host variable, CODEMODE_RUNNER_TOKEN included, reaches it unless
// "env" names it. It runs in a process group of its own: when its call ends
// (it exits, is cancelled, or codemode exits) the whole group is killed, so
// background jobs it started do not outlive the call. At most
// --max-commands commands run at once; further calls wait their turn.
type toolsFile struct {
	Description string     `json:"description,omitempty"`
	Tools       []toolSpec `json:"tools"`
}

type toolSpec struct {
	Name         string            `json:"name"`
	Description  string            `json:"description"`
	InputSchema  json.RawMessage   `json:"inputSchema"`
	OutputSchema json.RawMessage   `json:"outputSchema"`
	Command      []string          `json:"command"`
	Env          map[string]string `json:"env,omitempty"`
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

// loadTools reads the tools file at path; at most maxCommands of its
// commands run at once.
func loadTools(path string, maxCommands int) ([]*contract.Tool, error) {
	if maxCommands < 1 {
		return nil, fmt.Errorf("at most %d commands at once: must be at least 1", maxCommands)
	}
	slots := make(commandSlots, maxCommands)
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var f toolsFile
	if err := dec.Decode(&f); err != nil {
		for _, field := range []string{"requiresApproval", "replay", "revert"} {
			if strings.Contains(err.Error(), `unknown field "`+field+`"`) {
				return nil, fmt.Errorf("%s: %w: %q is a durable tools file's field, for runs with a journal (give --journal FILE.db, or set $CODEMODE_JOURNAL)", path, err, field)
			}
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	var tools []*contract.Tool
	for i, s := range f.Tools {
		where := fmt.Sprintf("%s: tools[%d] (%s)", path, i, s.Name)
		if len(s.Command) == 0 || s.Command[0] == "" {
			return nil, fmt.Errorf("%s: command is missing or empty", where)
		}
		if s.InputSchema == nil || s.OutputSchema == nil {
			return nil, fmt.Errorf("%s: inputSchema and outputSchema are required", where)
		}
		argv := append([]string(nil), s.Command...)
		if strings.Contains(argv[0], "/") && !filepath.IsAbs(argv[0]) {
			argv[0] = filepath.Join(dir, argv[0])
		}
		t, err := contract.NewRawTool(s.Name, s.Description, s.InputSchema, s.OutputSchema, commandHandler(argv, dir, s.Env, slots))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// commandHandler runs argv for each call: input on stdin, output on stdout.
func commandHandler(argv []string, dir string, env map[string]string, slots commandSlots) contract.Handler {
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
			return nil, fmt.Errorf("running %s: %w", argv[0], err)
		}
		out := bytes.TrimSpace(stdout.buf)
		if !json.Valid(out) {
			return nil, fmt.Errorf("%s printed output that is not JSON: %.200q", argv[0], out)
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
