package durable_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store"
)

// The child side of the process tests: TestMain runs it instead of the
// tests when DURABLE_CHILD is set.
func TestMain(m *testing.M) {
	switch os.Getenv("DURABLE_CHILD") {
	case "":
		code := m.Run()
		closeDrivers()
		os.Exit(code)
	case "pause":
		os.Exit(childPause(os.Getenv("DURABLE_JOURNAL")))
	case "hang":
		os.Exit(childHang(os.Getenv("DURABLE_JOURNAL")))
	}
	os.Exit(2)
}

// childPause runs the read-then-write program until it pauses and prints the
// output as JSON.
func childPause(path string) int {
	t := &testing.T{}
	h, _, _ := childHandle(t, path, nil)
	out, err := h.Execute(context.Background(), readThenWrite)
	if err != nil {
		os.Stderr.WriteString(err.Error())
		return 1
	}
	b, _ := json.Marshal(out)
	os.Stdout.Write(append(b, '\n'))
	return 0
}

// childHang starts a program whose second call never returns, says "ready"
// once the first call is applied and the second is executing, and waits to
// be killed.
func childHang(path string) int {
	t := &testing.T{}
	block := make(chan struct{})
	h, _, _ := childHandle(t, path, block)
	go func() {
		_, _ = h.Execute(context.Background(), `await github.list_pull_requests({ repo: "a" }); await slow.wait({})`)
	}()
	<-block
	os.Stdout.WriteString("ready\n")
	select {}
}

func childHandle(t *testing.T, path string, entered chan struct{}) (*durable.Handle, *service, error) {
	svc := newService()
	st := openStore(t, path)
	wait := must(funcTool("wait", "Never returns.", func(ctx context.Context, _ empty) (empty, error) {
		close(entered)
		<-ctx.Done()
		select {}
	}))
	return newHandle(t, st, durable.Options{}, svc.github(), connector{Name: "slow", Tools: []connectorTool{wait}}), svc, nil
}

func child(t *testing.T, mode, path string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "DURABLE_CHILD="+mode, "DURABLE_JOURNAL="+path)
	cmd.Stderr = os.Stderr
	return cmd
}

func slowConnector() connector {
	wait := must(funcTool("wait", "Never returns.", func(ctx context.Context, _ empty) (empty, error) {
		return empty{}, nil
	}))
	return connector{Name: "slow", Tools: []connectorTool{wait}}
}

// A journal reopened by a new process approves a run that another process
// paused; the read is replayed from the journal, not called again.
func TestApproveFromAnotherProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	outText, err := child(t, "pause", path).Output()
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	var out codetool.Answer
	if err := json.Unmarshal(outText, &out); err != nil {
		t.Fatalf("child printed %q: %v", outText, err)
	}
	wantStatus(t, out, codetool.StatusPaused)

	svc := newService()
	h := newHandle(t, openStore(t, path), durable.Options{}, svc.github(), slowConnector())
	done := approve(t, h, out.ExecutionID)
	wantStatus(t, done, codetool.StatusCompleted)
	if svc.count("list_pull_requests") != 0 || svc.count("create_issue") != 1 {
		t.Fatalf("calls in this process %v: the read must come from the journal", svc.calls)
	}
}

// A process killed mid-pass leaves the run running with the interrupted
// call executing (evidence); ExpirePaused from another process ends it as
// error, and approval cannot revive it.
func TestKilledProcessLeavesEvidenceAndExpires(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.db")
	cmd := child(t, "hang", path)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "ready\n" {
		_ = cmd.Process.Kill()
		t.Fatalf("child said %q, %v", line, err)
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	_ = cmd.Wait()

	svc := newService()
	h := newHandle(t, openStore(t, path), durable.Options{}, svc.github(), slowConnector())
	ctx := context.Background()
	list, err := h.Executions(ctx, 0)
	if err != nil || len(list) != 1 {
		t.Fatalf("executions after the kill: %d, %v", len(list), err)
	}
	e := list[0]
	if e.Status != store.StatusRunning || states(e) != "1:github.list_pull_requests=applied 2:slow.wait=executing" {
		t.Fatalf("after kill -9: %s %s", e.Status, states(e))
	}
	if _, err := h.Approve(ctx, e.ID); err == nil || !strings.Contains(err.Error(), "(status: running)") {
		t.Fatalf("approving a stale running run: %v", err)
	}
	time.Sleep(5 * time.Millisecond)
	ids, err := h.ExpirePaused(ctx, time.Millisecond)
	if err != nil || len(ids) != 1 || ids[0] != e.ID {
		t.Fatalf("ExpirePaused = %v, %v", ids, err)
	}
	e = record(t, h, e.ID)
	if e.Status != store.StatusError || e.Error != "expired while running: the host never completed the pass" {
		t.Fatalf("after expiry: %s %q", e.Status, e.Error)
	}
}
