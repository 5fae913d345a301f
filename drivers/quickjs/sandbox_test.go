//go:build linux

package quickjs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/internal/runnertest"
	"github.com/codemode-go/codemode/internal/wire"
)

// TestSandboxSurvivesStuckPrograms: while a program is stuck where the
// engine's interrupt never comes (deep JSON nesting that corrupts the
// engine's stack, a long C string search), a benign program on the same
// runtime answers promptly, and the stuck one ends with a TimeoutError by
// its deadline plus the kill grace; the runtime then serves on.
func TestSandboxSurvivesStuckPrograms(t *testing.T) {
	needSandbox(t)
	const deadline = 3 * time.Second
	c := echoClient(t, quickjs.Options{Timeout: deadline, MemoryLimit: 128 << 20})
	ctx := context.Background()
	for _, hostile := range []struct{ name, expr string }{
		{"deep JSON.parse", `JSON.parse("[".repeat(6000) + "]".repeat(6000))`},
		{"long indexOf", `"a".repeat(1 << 23).indexOf("a".repeat(1 << 13) + "b")`},
		{"timer flood", `await new Promise(() => { for (let i = 0; i < 100; i++) setInterval(() => { for (let j = 0; j < 1000; j++); }, 0); })`},
	} {
		t.Run(hostile.name, func(t *testing.T) {
			type res struct {
				out  *client.Outcome
				err  error
				took time.Duration
			}
			done := make(chan res, 1)
			start := time.Now()
			go func() {
				out, err := c.Run(ctx, `export default async function ({ result }) { result.appendText(String(`+hostile.expr+`)); }`, client.RunOptions{})
				done <- res{out, err, time.Since(start)}
			}()
			time.Sleep(500 * time.Millisecond) // it is stuck by now
			benignStart := time.Now()
			out, err := c.Run(ctx, `export default async function ({ result }) { result.appendText(String(6 * 7)); }`, client.RunOptions{})
			took := time.Since(benignStart)
			if err != nil || out.Kind != client.Success || out.Content[0].Text != "42" {
				t.Fatalf("the benign program beside a stuck one: %+v %+v %v", out, out.Error, err)
			}
			if took > time.Second {
				t.Errorf("the benign program took %s beside a stuck one", took)
			}
			r := <-done
			if r.err != nil {
				t.Fatalf("the stuck program: %v", r.err)
			}
			t.Logf("stuck program: %s after %s; benign program: %s", r.out.Kind, r.took, took)
			if r.out.Kind == client.ProgramFailed && r.out.Error.Name != "TimeoutError" {
				// A clean engine failure (the stack guard) is fine too.
				t.Logf("the stuck program ended with %s: %s", r.out.Error.Name, r.out.Error.Message)
			} else if r.out.Kind != client.ProgramFailed {
				t.Fatalf("the stuck program: %+v", r.out)
			}
			if r.took > deadline+time.Second {
				t.Errorf("the stuck program ended after %s (deadline %s)", r.took, deadline)
			}
			after, err := c.Run(ctx, `export default async function ({ result }) { result.appendText("again"); }`, client.RunOptions{})
			if err != nil || after.Kind != client.Success {
				t.Fatalf("after the stuck program: %+v %v", after, err)
			}
		})
	}
}

// TestSandboxKilledFromOutside: a sandbox process killed with SIGKILL in the
// middle of an execution fails that execution alone (program-failed, saying
// what happened), and the runtime starts a new process and serves on.
func TestSandboxKilledFromOutside(t *testing.T) {
	needSandbox(t)
	release := make(chan struct{})
	schema := json.RawMessage(`{"type":"object","additionalProperties":false}`)
	hold, err := contract.NewRawTool("hold", "Waits.", schema, json.RawMessage(`{"type":"null"}`), func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return json.RawMessage("null"), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	before := sandboxPIDs(t)
	c := echoClient(t, quickjs.Options{Timeout: 20 * time.Second}, hold)
	// The runtime's process is the first new one; the driver's spare
	// process starts after it has booted.
	var pid int
	for p := range sandboxPIDs(t) {
		if !before[p] && (pid == 0 || startTime(p) < startTime(pid)) {
			pid = p
		}
	}
	if pid == 0 {
		t.Fatal("no new sandbox process")
	}
	done := make(chan *client.Outcome, 1)
	go func() {
		out, err := c.Run(context.Background(), `export default async function ({ codemode }) { await codemode.hold({}); }`, client.RunOptions{})
		if err != nil {
			t.Error(err)
		}
		done <- out
	}()
	time.Sleep(300 * time.Millisecond)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	out := <-done
	close(release)
	if out == nil || out.Kind != client.ProgramFailed || out.Error.Name != "InternalError" || !strings.Contains(out.Error.Message, "sandbox process") {
		t.Fatalf("the execution on the killed process: %+v", out)
	}
	t.Logf("%s: %s", out.Error.Name, out.Error.Message)
	for range 3 {
		after, err := c.Run(context.Background(), `export default async function ({ codemode, result }) { result.appendText((await codemode.echo({ value: "on" })).value); }`, client.RunOptions{})
		if err != nil || after.Kind != client.Success || after.Content[0].Text != "on" {
			t.Fatalf("after the kill: %+v %v", after, err)
		}
	}
	if sandboxPIDs(t)[pid] {
		t.Fatal("the killed process is still listed")
	}
}

// sandboxPIDs lists this process's sandbox children.
func sandboxPIDs(t *testing.T) map[int]bool {
	t.Helper()
	pids := map[int]bool{}
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	for _, f := range tasks {
		raw, _ := os.ReadFile(f)
		for _, field := range strings.Fields(string(raw)) {
			pid, _ := strconv.Atoi(field)
			cmd, _ := os.ReadFile("/proc/" + field + "/cmdline")
			if pid > 0 && strings.HasPrefix(string(cmd), "codemode-quickjs-sandbox") {
				pids[pid] = true
			}
		}
	}
	return pids
}

// startTime is when a process started, in clock ticks since boot
// (/proc/PID/stat field 22).
func startTime(pid int) uint64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(raw)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		s = s[i+1:]
	}
	f := strings.Fields(s)
	if len(f) < 20 {
		return 0
	}
	v, _ := strconv.ParseUint(f[19], 10, 64)
	return v
}

// TestSpareSandbox: once a runtime has booted, the driver keeps one spare
// sandbox process; the next runtime takes it (closing that runtime ends
// that process) and a new spare boots; without runtimes, or with NoSpare,
// the driver holds no process.
func TestSpareSandbox(t *testing.T) {
	needSandbox(t)
	newPIDs := func(before map[int]bool, want int) []int {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for {
			var pids []int
			for p := range sandboxPIDs(t) {
				if !before[p] {
					pids = append(pids, p)
				}
			}
			if len(pids) == want {
				return pids
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d new sandbox processes (%v), want %d", len(pids), pids, want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	before := sandboxPIDs(t)
	d := quickjs.New(quickjs.Options{})
	defer d.Close()
	ctx := context.Background()
	rt1, err := client.NewRuntime(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	pids := newPIDs(before, 2) // the runtime's process and the spare
	first, spare := pids[0], pids[1]
	if startTime(spare) < startTime(first) {
		first, spare = spare, first
	}
	rt2, err := client.NewRuntime(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	k, err := contract.New()
	if err != nil {
		t.Fatal(err)
	}
	out, err := client.New(rt2, k).Run(ctx, `export default async function () { return 6 * 7; }`, client.RunOptions{})
	if err != nil || out.Kind != client.Success || string(out.Value) != "42" {
		t.Fatalf("on the runtime that took the spare: %+v %v", out, err)
	}
	newPIDs(before, 3) // two runtimes and the next spare
	_ = rt2.Close()
	if sandboxPIDs(t)[spare] {
		t.Fatalf("closing the second runtime left process %d (the spare it took) running", spare)
	}
	if !sandboxPIDs(t)[first] {
		t.Fatal("closing the second runtime ended the first one's process")
	}
	_ = rt1.Close()
	newPIDs(before, 0) // the last runtime took the spare with it

	nd := quickjs.New(quickjs.Options{NoSpare: true})
	defer nd.Close()
	rt3, err := client.NewRuntime(ctx, nd)
	if err != nil {
		t.Fatal(err)
	}
	defer rt3.Close()
	time.Sleep(500 * time.Millisecond)
	newPIDs(before, 1)
}

// TestSandboxReplacementKeepsScopes: a replacement sandbox process keeps no
// scope (wire 1.2), yet an execute message naming one alone, which the host
// may send because the runtime was sent its list before, runs with that
// list: the supervisor keeps the lists and sends a new process the list with
// the scope. Spoken on the raw wire, so that no host retries.
func TestSandboxReplacementKeepsScopes(t *testing.T) {
	needSandbox(t)
	before := sandboxPIDs(t)
	d := quickjs.New(quickjs.Options{NoSpare: true})
	t.Cleanup(func() { _ = d.Close() })
	c := runnertest.Dial(t, d)
	scope := "sha256:replacement"
	runnertest.CheckScope(t, c.Exec(runnertest.ScopeProgram, wire.Message{Scope: scope, Namespaces: runnertest.ScopeList("r")}), "r")
	var pid int
	for p := range sandboxPIDs(t) {
		if !before[p] {
			pid = p
		}
	}
	if pid == 0 {
		t.Fatal("no new sandbox process")
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// An execution sent before the supervisor saw the process die fails
	// as replaced; the next goes to the new process.
	run := c.Exec(runnertest.ScopeProgram, wire.Message{Scope: scope})
	for i := 0; i < 50 && run.Result.Error != nil && strings.Contains(run.Result.Error.Message, "was replaced"); i++ {
		time.Sleep(20 * time.Millisecond)
		run = c.Exec(runnertest.ScopeProgram, wire.Message{Scope: scope})
	}
	runnertest.CheckScope(t, run, "r")
	runnertest.CheckScope(t, c.Exec(runnertest.ScopeProgram, wire.Message{Scope: scope}), "r")
	if sandboxPIDs(t)[pid] {
		t.Fatal("the killed process is still listed")
	}
	// A scope neither the supervisor nor the process keeps is still refused.
	runnertest.CheckScope(t, c.Exec(runnertest.ScopeProgram, wire.Message{Scope: "sha256:unheard"}), "")
}

// TestSandboxKilledWhileHostWrites: a sandbox process that stops reading
// while the host writes it a tool result many times the pipe's buffer, and
// is then killed, fails its execution alone, saying the process ended (not
// that it broke the protocol: the host's read sees the end of the process's
// pipe, and its write EPIPE), and the runtime serves on; neither the write
// nor the read hangs.
func TestSandboxKilledWhileHostWrites(t *testing.T) {
	needSandbox(t)
	before := sandboxPIDs(t)
	var pid int
	big, err := contract.NewRawTool("big", "A large result.", json.RawMessage(`{"type":"object","additionalProperties":false}`), json.RawMessage(`{"type":"string"}`),
		func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
			// The process stops reading; the host's write of the result
			// waits for room until the process is killed.
			_ = syscall.Kill(pid, syscall.SIGSTOP)
			time.AfterFunc(300*time.Millisecond, func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
			return json.Marshal(strings.Repeat("x", 4<<20))
		})
	if err != nil {
		t.Fatal(err)
	}
	c := echoClient(t, quickjs.Options{Timeout: 20 * time.Second}, big)
	for p := range sandboxPIDs(t) {
		if !before[p] && (pid == 0 || startTime(p) < startTime(pid)) {
			pid = p
		}
	}
	if pid == 0 {
		t.Fatal("no new sandbox process")
	}
	out, err := c.Run(context.Background(), `export default async function ({ codemode }) { await codemode.big({}); }`, client.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Kind != client.ProgramFailed || out.Error.Name != "InternalError" || !strings.Contains(out.Error.Message, "ended unexpectedly") {
		t.Fatalf("the execution on the killed process: %+v", out)
	}
	t.Logf("%s: %s", out.Error.Name, out.Error.Message)
	after, err := c.Run(context.Background(), `export default async function ({ codemode, result }) { result.appendText((await codemode.echo({ value: "on" })).value); }`, client.RunOptions{})
	if err != nil || after.Kind != client.Success || after.Content[0].Text != "on" {
		t.Fatalf("after the kill: %+v %v", after, err)
	}
}
