package procgroup_test

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/internal/procgroup"
)

// failingWriter refuses every write past limit bytes, as an output cap does.
// (It has no ReadFrom: one would bypass Write.)
type failingWriter struct {
	buf   []byte
	limit int
}

func (w *failingWriter) Write(p []byte) (int, error) {
	if len(w.buf)+len(p) > w.limit {
		return 0, errors.New("limit")
	}
	w.buf = append(w.buf, p...)
	return len(p), nil
}

func (w *failingWriter) String() string { return string(w.buf) }

func TestRun(t *testing.T) {
	for _, tc := range []struct {
		name    string
		script  string
		stdin   string
		cancel  time.Duration // cancel the context after this long (0: never)
		stdout  func() interface{ String() string }
		want    string        // stdout
		wantErr string        // substring of the error; "" for none
		within  time.Duration // Run must return within this
	}{
		{name: "stdin to stdout", script: "cat", stdin: "hello", want: "hello", within: 5 * time.Second},
		{name: "exit status", script: "echo out; exit 3", want: "out\n", wantErr: "exit status 3", within: 5 * time.Second},
		{name: "background child holding stdout is killed", script: "sleep 300 & echo done", want: "done\n", within: 5 * time.Second},
		{name: "a child that never reads a large stdin", script: "sleep 300 & true", stdin: strings.Repeat("x", 1<<20), within: 5 * time.Second},
		{name: "cancel kills the group", script: "sleep 300 & sleep 300", cancel: 200 * time.Millisecond, wantErr: "killed", within: 5 * time.Second},
		{name: "an escaped process is given up on after the drain", script: "setsid sleep 2 & sleep 0.5; echo started", want: "started\n", wantErr: "WaitDelay", within: 5 * time.Second},
		{name: "a refusing writer breaks the pipe", script: "exec yes", stdout: func() interface{ String() string } { return &failingWriter{limit: 1 << 10} }, wantErr: "signal: broken pipe", within: 5 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			if tc.cancel > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.cancel)
				defer cancel()
			}
			cmd := exec.Command("sh", "-c", tc.script)
			if tc.stdin != "" {
				cmd.Stdin = strings.NewReader(tc.stdin)
			}
			var out interface{ String() string } = new(bytes.Buffer)
			if tc.stdout != nil {
				out = tc.stdout()
			}
			cmd.Stdout = out.(interface {
				Write([]byte) (int, error)
			})
			start := time.Now()
			err := procgroup.Run(ctx, cmd, time.Second)
			if d := time.Since(start); d > tc.within {
				t.Errorf("Run took %s", d)
			}
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("Run: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("Run: %v, want an error containing %q", err, tc.wantErr)
			}
			if tc.stdout == nil && out.String() != tc.want {
				t.Errorf("stdout %q, want %q", out.String(), tc.want)
			}
		})
	}
}

func TestKillBeforeStartDoesNothing(t *testing.T) {
	if err := procgroup.Kill(exec.Command("true")); err != nil {
		t.Fatal(err)
	}
}
