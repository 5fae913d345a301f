package cases

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/internal/fixtures"
)

// Case is one directory under programs/.
type Case struct {
	Name        string
	Source      string
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Input       json.RawMessage `json:"input"`
	Runs        int             `json:"runs"`
	Expect      Expect          `json:"expect"`
}

// Expect is a case's expected outcome (testdata/cases/README.md).
type Expect struct {
	Outcome        string             `json:"outcome"`
	Content        []contract.Content `json:"content"`
	ErrorName      string             `json:"errorName"`
	MessageMatches string             `json:"messageMatches"`
	StackMatches   string             `json:"stackMatches"`
	StdoutMatches  string             `json:"stdoutMatches"`
	StderrMatches  string             `json:"stderrMatches"`
	ToolCalls      []string           `json:"toolCalls"`
	HostRejects    bool               `json:"hostRejects"`
}

// Load reads every case under dir/programs.
func Load(dir string) ([]Case, error) {
	entries, err := os.ReadDir(filepath.Join(dir, "programs"))
	if err != nil {
		return nil, fmt.Errorf("cases: %w", err)
	}
	var out []Case
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		base := filepath.Join(dir, "programs", e.Name())
		src, err := os.ReadFile(filepath.Join(base, "program.ts"))
		if err != nil {
			return nil, fmt.Errorf("cases: %w", err)
		}
		raw, err := os.ReadFile(filepath.Join(base, "case.json"))
		if err != nil {
			return nil, fmt.Errorf("cases: %w", err)
		}
		c := Case{Name: e.Name(), Source: string(src)}
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, fmt.Errorf("cases: %s: %w", e.Name(), err)
		}
		if c.Runs == 0 {
			c.Runs = 1
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Contract builds the case's contract over the fixture tools.
func (c *Case) Contract() (*contract.Contract, error) {
	tools, err := fixtures.Tools(nil)
	if err != nil {
		return nil, err
	}
	if c.InputSchema == nil {
		return contract.New(tools...)
	}
	s, err := contract.NewSchema(c.InputSchema)
	if err != nil {
		return nil, err
	}
	k, err := contract.New(tools...)
	if err != nil {
		return nil, err
	}
	return k.WithInput(s)
}

// Check runs the case Runs times on rt and reports every mismatch.
func (c *Case) Check(t *testing.T, rt *client.Runtime) {
	t.Helper()
	k, err := c.Contract()
	if err != nil {
		t.Fatal(err)
	}
	cl := client.New(rt, k)
	for run := 0; run < c.Runs; run++ {
		var mu sync.Mutex
		var stdout, stderr strings.Builder
		var calls []string
		opts := client.RunOptions{OnTelemetry: func(e client.Event) {
			mu.Lock()
			defer mu.Unlock()
			switch e.Kind {
			case client.EventProgramOutput:
				if e.Stream == "stderr" {
					stderr.WriteString(e.Text)
				} else {
					stdout.WriteString(e.Text)
				}
			case client.EventToolCallStarted:
				calls = append(calls, e.Tool)
			}
		}}
		if c.Input != nil {
			opts.Input = c.Input
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		out, err := cl.Run(ctx, c.Source, opts)
		cancel()
		if c.Expect.HostRejects {
			if err == nil {
				t.Fatalf("run %d: host accepted the run: %+v", run, out)
			}
			match(t, "host error", c.Expect.MessageMatches, err.Error())
			continue
		}
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if string(out.Kind) != c.Expect.Outcome {
			t.Fatalf("run %d: outcome %s (error %+v, content %+v), want %s", run, out.Kind, out.Error, out.Content, c.Expect.Outcome)
		}
		if out.Kind == client.Success && c.Expect.Content != nil {
			got, _ := json.Marshal(out.Content)
			want, _ := json.Marshal(c.Expect.Content)
			if string(got) != string(want) {
				t.Errorf("run %d: content %s, want %s", run, got, want)
			}
		}
		if out.Kind == client.ProgramFailed {
			if c.Expect.ErrorName != "" && out.Error.Name != c.Expect.ErrorName {
				t.Errorf("run %d: error name %q, want %q", run, out.Error.Name, c.Expect.ErrorName)
			}
			match(t, "message", c.Expect.MessageMatches, out.Error.Message)
			match(t, "stack", c.Expect.StackMatches, out.Error.Stack)
		}
		mu.Lock()
		match(t, "stdout", c.Expect.StdoutMatches, stdout.String())
		match(t, "stderr", c.Expect.StderrMatches, stderr.String())
		if c.Expect.ToolCalls != nil && strings.Join(calls, ",") != strings.Join(c.Expect.ToolCalls, ",") {
			t.Errorf("run %d: tool calls %v, want %v", run, calls, c.Expect.ToolCalls)
		}
		mu.Unlock()
	}
}

func match(t *testing.T, what, pattern, text string) {
	t.Helper()
	if pattern == "" {
		return
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		t.Fatalf("bad %s pattern %q: %v", what, pattern, err)
	}
	if !re.MatchString(text) {
		t.Errorf("%s %q does not match %q", what, text, pattern)
	}
}
