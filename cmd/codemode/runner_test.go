package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/remote"
)

func TestRunnerServeBadCommandLines(t *testing.T) {
	for _, tc := range []struct {
		name  string
		token string
		args  []string
		code  int
		want  string
	}{
		{"no subcommand", "", []string{"runner"}, 2, "the only subcommand is serve"},
		{"no listen", "0123456789abcdef", []string{"runner", "serve"}, 2, "--listen is required"},
		{"no token", "", []string{"runner", "serve", "--listen", "127.0.0.1:0"}, 1, "set CODEMODE_RUNNER_TOKEN"},
		{"short token", "short", []string{"runner", "serve", "--listen", "127.0.0.1:0"}, 1, "at least 16 are required"},
		{"unknown runtime", "0123456789abcdef", []string{"runner", "serve", "--listen", "127.0.0.1:0", "--runtime", "deno"}, 2, `"deno" is neither quickjs nor node`},
		{"client CA without a certificate", "", []string{"runner", "serve", "--listen", "127.0.0.1:0", "--tls-client-ca", "ca.pem"}, 2, "--tls-client-ca needs --tls-cert"},
		{"bad address", "0123456789abcdef", []string{"runner", "serve", "--listen", "nowhere", "--cache-dir", ""}, 1, "neither host:port nor unix:/path"},
		{"stray argument", "0123456789abcdef", []string{"runner", "serve", "--listen", "127.0.0.1:0", "extra"}, 2, `unexpected argument "extra"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(tokenEnv, tc.token)
			var stdout, stderr bytes.Buffer
			code := cli(context.Background(), tc.args, &stdout, &stderr)
			if code != tc.code || !strings.Contains(stderr.String(), tc.want) || strings.Count(stderr.String(), "\n") != 1 {
				t.Fatalf("exit %d, stderr %q; want %d and %q on one line", code, stderr.String(), tc.code, tc.want)
			}
		})
	}
}

// TestRunnerServeDrainsOnSIGTERM builds the command, serves on a unix
// socket, and sends SIGTERM while an execution waits in a tool call: the
// execution finishes, the host exits 0, and every log line is one record.
func TestRunnerServeDrainsOnSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "codemode")
	if out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	const token = "0123456789abcdef0123456789abcdef"
	addr := "unix:" + filepath.Join(dir, "runner.sock")
	cmd := exec.Command(bin, "runner", "serve", "--listen", addr, "--cache-dir", filepath.Join(dir, "cache"))
	cmd.Env = append(os.Environ(), tokenEnv+"="+token)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	lines := bufio.NewScanner(stderr)
	waitLine := func(want string) {
		t.Helper()
		for lines.Scan() {
			if !strings.HasPrefix(lines.Text(), "time=") {
				t.Errorf("stderr line is not one log record: %q", lines.Text())
			}
			if strings.Contains(lines.Text(), want) {
				return
			}
		}
		t.Fatalf("stderr ended before %q: %v", want, lines.Err())
	}
	waitLine("codemode runner: serving")

	d, err := remote.New(remote.Options{Address: addr, Token: []byte(token)})
	if err != nil {
		t.Fatal(err)
	}
	rt, err := client.NewRuntime(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	started, release := make(chan struct{}), make(chan struct{})
	schema := json.RawMessage(`{"type":"object","additionalProperties":false}`)
	wait, err := contract.NewRawTool("wait", "Waits for the test.", schema, schema, func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
		close(started)
		<-release
		return in, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	k, err := contract.New(wait)
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		out *client.Outcome
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := client.New(rt, k).Run(context.Background(), `export default async function ({ codemode, result }) { await codemode.wait({}); result.appendText("finished"); }`, client.RunOptions{})
		done <- result{out, err}
	}()
	<-started
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitLine("codemode runner: draining")
	close(release)
	if r := <-done; r.err != nil || r.out.Kind != client.Success || r.out.Content[0].Text != "finished" {
		t.Fatalf("in-flight execution: %+v %v", r.out, r.err)
	}
	waitLine("codemode runner: drained")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("codemode runner serve exited with %v, want 0", err)
	}
}

func TestMaxEnginesFromMemory(t *testing.T) {
	const gib = 1 << 30
	for _, tc := range []struct {
		name             string
		memTotal, cgroup uint64
		want             int
	}{
		{"unknown", 0, 0, 0},
		{"24 GiB machine", 24 * gib, 0, 153},
		{"a cgroup limit below the machine's memory", 24 * gib, 2 * gib, 12},
		{"a cgroup limit above it", 4 * gib, 64 * gib, 25},
		{"only a cgroup limit", 0, 1 * gib, 6},
		{"a tiny machine still runs one", 64 << 20, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := maxEnginesFor(tc.memTotal, tc.cgroup); got != tc.want {
				t.Errorf("maxEnginesFor(%d, %d) = %d, want %d", tc.memTotal, tc.cgroup, got, tc.want)
			}
		})
	}
	meminfo := filepath.Join(t.TempDir(), "meminfo")
	if err := os.WriteFile(meminfo, []byte("MemFree:  100 kB\nMemTotal:       24683620 kB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := readMemTotal(meminfo); got != 24683620<<10 {
		t.Errorf("readMemTotal = %d", got)
	}
	cg := filepath.Join(t.TempDir(), "memory.max")
	for text, want := range map[string]uint64{"max\n": 0, "2147483648\n": 2 << 30} {
		if err := os.WriteFile(cg, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := readCgroupMax(cg); got != want {
			t.Errorf("readCgroupMax(%q) = %d, want %d", text, got, want)
		}
	}
}
