package durable_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
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
	// A short lease: the test waits for it to end after killing the child.
	return newHandle(t, st, durable.Options{Lease: 300 * time.Millisecond}, svc.github(), connector{Name: "slow", Tools: []connectorTool{wait}}), svc, nil
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
// call executing (evidence) and its lease to run out. Once it has, the run
// is an orphan: each documented recovery ends it as it says, and the
// interrupted action, whose outcome nobody knows, is put to a person.
func TestKilledProcessLeavesAnOrphan(t *testing.T) {
	for _, c := range []struct {
		name    string
		recover func(t *testing.T, h *durable.Handle, id string) (codetool.Answer, error)
		want    string // the execution's status afterwards
		waits   int    // how often slow.wait ran in this process
	}{
		{"resume, then it happened", func(t *testing.T, h *durable.Handle, id string) (codetool.Answer, error) {
			out := uncertain(t, h, id)
			if _, err := h.Resolve(context.Background(), id, out.Pending[0].Seq, json.RawMessage(`"not an object"`)); err == nil {
				t.Fatal("Resolve recorded a result the tool could not return")
			}
			return h.Resolve(context.Background(), id, out.Pending[0].Seq, json.RawMessage(`{}`))
		}, "completed", 0},
		{"resume, then run it again", func(t *testing.T, h *durable.Handle, id string) (codetool.Answer, error) {
			uncertain(t, h, id)
			return h.Approve(context.Background(), id)
		}, "completed", 1},
		{"resume, then fail the run", func(t *testing.T, h *durable.Handle, id string) (codetool.Answer, error) {
			out := uncertain(t, h, id)
			if ok, err := h.Reject(context.Background(), id, out.Pending[0].Seq); err != nil || !ok {
				t.Fatalf("Reject = %v, %v", ok, err)
			}
			return h.Answer(context.Background(), id)
		}, "rejected", 0},
		{"approve resumes an orphan", func(t *testing.T, h *durable.Handle, id string) (codetool.Answer, error) {
			return h.Approve(context.Background(), id)
		}, "paused", 0},
		{"expire ends it", func(t *testing.T, h *durable.Handle, id string) (codetool.Answer, error) {
			if err := h.Expire(context.Background(), id); err != nil {
				t.Fatal(err)
			}
			return h.Answer(context.Background(), id)
		}, "error", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "journal.db")
			id := killedChild(t, path)
			svc := newService()
			waits := 0
			wait := must(funcTool("wait", "Counts.", func(context.Context, empty) (empty, error) { waits++; return empty{}, nil }))
			h := newHandle(t, openStore(t, path), durable.Options{}, svc.github(), connector{Name: "slow", Tools: []connectorTool{wait}})
			out, err := c.recover(t, h, id)
			if err != nil {
				t.Fatal(err)
			}
			e := record(t, h, id)
			if string(e.Status) != c.want || waits != c.waits {
				t.Fatalf("after recovery: %s (answer %+v), slow.wait ran %d time(s); want %s, %d", e.Status, out, waits, c.want, c.waits)
			}
			if svc.count("list_pull_requests") != 0 {
				t.Fatalf("the applied read ran again: %v", svc.calls)
			}
		})
	}
}

// killedChild runs a child whose pass hangs in slow.wait, kills it
// (SIGKILL), checks the evidence and waits for the run's lease to end. It
// returns the run's ID.
func killedChild(t *testing.T, path string) string {
	t.Helper()
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
	h := newHandle(t, openStore(t, path), durable.Options{}, newService().github(), slowConnector())
	list, err := h.Executions(context.Background(), 0)
	if err != nil || len(list) != 1 {
		t.Fatalf("executions after the kill: %d, %v", len(list), err)
	}
	e := list[0]
	if e.Status != store.StatusRunning || states(e) != "1:github.list_pull_requests=applied 2:slow.wait=executing" || e.LeaseOwner == "" {
		t.Fatalf("after kill -9: %s %s, lease %q", e.Status, states(e), e.LeaseOwner)
	}
	// The read ended; how the interrupted call ended nobody knows.
	if got := ends(e); got != "1:github.list_pull_requests=completed 2:slow.wait=" {
		t.Fatalf("after kill -9: ends %s", got)
	}
	for time.Now().UnixMilli() <= e.LeaseUntil {
		time.Sleep(10 * time.Millisecond)
	}
	return e.ID
}

// uncertain resumes the orphan id and checks that it paused on its
// interrupted action, as uncertain.
func uncertain(t *testing.T, h *durable.Handle, id string) codetool.Answer {
	t.Helper()
	out, err := h.Resume(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != codetool.StatusPaused || len(out.Pending) != 1 || !out.Pending[0].Uncertain || out.Pending[0].Method != "wait" {
		t.Fatalf("resumed: %+v; want a pause on the uncertain slow.wait", out)
	}
	// Not marked completed or failed by a guess.
	if got := ends(record(t, h, id)); got != "1:github.list_pull_requests=completed 2:slow.wait=" {
		t.Fatalf("resumed: ends %s", got)
	}
	return out
}

// A live pass (its process is running it, renewing its lease) is never
// taken by recovery: not by Resume, Approve, Expire or ExpirePaused on
// another handle, however long it runs.
func TestLivePassIsNeverRecovered(t *testing.T) {
	st := openStore(t, filepath.Join(t.TempDir(), "journal.db"))
	entered, release := make(chan struct{}), make(chan struct{})
	hold := must(funcTool("wait", "Waits for the test.", func(context.Context, empty) (empty, error) {
		close(entered)
		<-release
		return empty{}, nil
	}))
	// A lease long enough that a loaded machine does not stall a renewal
	// past it, short enough to see several renewals.
	opts := durable.Options{Lease: time.Second}
	live := newHandle(t, st, opts, newService().github(), connector{Name: "slow", Tools: []connectorTool{hold}})
	other := newHandle(t, st, opts, newService().github(), slowConnector())
	done := make(chan codetool.Answer, 1)
	go func() {
		out, err := live.Execute(context.Background(), `await slow.wait({}); return "done"`)
		if err != nil {
			t.Error(err)
		}
		done <- out
	}()
	<-entered
	ctx := context.Background()
	list, err := other.Executions(ctx, 0)
	if err != nil || len(list) != 1 {
		t.Fatalf("executions: %d, %v", len(list), err)
	}
	id := list[0].ID
	// Several lease lengths: the heartbeat keeps renewing it.
	for end := time.Now().Add(3 * opts.Lease); time.Now().Before(end); time.Sleep(opts.Lease / 2) {
		if _, err := other.Resume(ctx, id); !errors.Is(err, durable.ErrRunning) {
			t.Fatalf("Resume of a live pass: %v, want ErrRunning", err)
		}
		if _, err := other.Approve(ctx, id); !errors.Is(err, durable.ErrNotPaused) {
			t.Fatalf("Approve of a live pass: %v, want ErrNotPaused", err)
		}
		if err := other.Expire(ctx, id); !errors.Is(err, durable.ErrRunning) {
			t.Fatalf("Expire of a live pass: %v, want ErrRunning", err)
		}
		if ids, err := other.ExpirePaused(ctx, time.Nanosecond); err != nil || len(ids) != 0 {
			t.Fatalf("ExpirePaused ended %v, %v: a live pass", ids, err)
		}
		if ids, err := other.ResumeOrphans(ctx); err != nil || len(ids) != 0 {
			t.Fatalf("ResumeOrphans took %v, %v: a live pass", ids, err)
		}
	}
	close(release)
	if out := <-done; out.Status != codetool.StatusCompleted {
		t.Fatalf("the live pass ended %+v", out)
	}
	if e := record(t, other, id); e.LeaseOwner != "" || e.LeaseUntil != 0 {
		t.Fatalf("the ended pass still holds its lease: %q until %d", e.LeaseOwner, e.LeaseUntil)
	}
}
