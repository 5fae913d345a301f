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
	"strings"
	"syscall"
	"time"

	"github.com/codemode-go/codemode/contract"
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
// directory. The command is killed when its call is cancelled.
type toolsFile struct {
	Description string     `json:"description,omitempty"`
	Tools       []toolSpec `json:"tools"`
}

type toolSpec struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Command      []string        `json:"command"`
}

func loadTools(path string) ([]*contract.Tool, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var f toolsFile
	if err := dec.Decode(&f); err != nil {
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
		t, err := contract.NewRawTool(s.Name, s.Description, s.InputSchema, s.OutputSchema, commandHandler(argv, dir))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// commandHandler runs argv for each call: input on stdin, output on stdout.
func commandHandler(argv []string, dir string) contract.Handler {
	return func(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Dir = dir
		cmd.Stdin = bytes.NewReader(input)
		stdout := &cappedBuffer{limit: maxCommandOutput}
		stderr := &cappedBuffer{limit: maxCommandStderr, keepTail: true}
		cmd.Stdout, cmd.Stderr = stdout, stderr
		// Kill the whole process group on cancel, so children go too.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
		cmd.WaitDelay = time.Second
		err := cmd.Run()
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

// cappedBuffer collects up to limit bytes. Past the limit it either fails the
// write (so the command gets a broken pipe and is not waited on forever) or,
// with keepTail, keeps only the last limit bytes.
type cappedBuffer struct {
	buf      []byte
	limit    int
	keepTail bool
	overflow bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if b.keepTail {
		b.buf = append(b.buf, p...)
		if extra := len(b.buf) - b.limit; extra > 0 {
			b.buf = append(b.buf[:0], b.buf[extra:]...)
		}
		return len(p), nil
	}
	if len(b.buf)+len(p) > b.limit {
		b.overflow = true
		return 0, errors.New("output limit reached")
	}
	b.buf = append(b.buf, p...)
	return len(p), nil
}

func (b *cappedBuffer) String() string { return string(b.buf) }
