package postgres_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers/quickjs"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/durable/store/postgres"
)

// ledger counts each connector call's effect in memory, by execution and
// key, so that it survives the database's restart.
type ledger struct {
	mu     sync.Mutex
	counts map[string]int
}

func (l *ledger) connector() contract.Namespace {
	effect := func(ctx context.Context, in keyInput) (effectOutput, error) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.counts[durable.ExecutionIDFrom(ctx)+"/"+in.Key]++
		return effectOutput{Key: in.Key, Done: true}, nil
	}
	note := must(contract.NewTool("note", "A write without approval.", effect))
	act := must(must(contract.NewTool("act", "A write that needs approval.", effect)).WithPolicy(contract.Policy{RequiresApproval: true}))
	return contract.Namespace{Name: "svc", Tools: []*contract.Tool{note, act}}
}

func (l *ledger) count(id string, args json.RawMessage) int {
	var in keyInput
	_ = json.Unmarshal(args, &in)
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.counts[id+"/"+in.Key]
}

// The database restarts (pg_ctl restart -m fast: every connection is cut)
// while two workers execute and approve runs. Each run completes or fails
// with an error (no panic, no hang); afterwards the pool has recovered,
// runs complete again, and the journal is consistent with the effects:
// an applied call happened exactly once, an executing one (the evidence of
// an interrupted call) at most once, a pending or failed one never.
//
// It needs a server of its own, since restarting one would fail other
// tests using it: CODEMODE_TEST_POSTGRES_RESTART is its DSN and
// CODEMODE_TEST_POSTGRES_CTL its pg_ctl (scripts/postgres start DIR
// restartable exports both); without them the test skips.
func TestRestartDuringRuns(t *testing.T) {
	testDSN(t) // skips or fails as the other PostgreSQL tests do
	dsn, ctl := os.Getenv("CODEMODE_TEST_POSTGRES_RESTART"), os.Getenv("CODEMODE_TEST_POSTGRES_CTL")
	if dsn == "" || ctl == "" {
		t.Skip("CODEMODE_TEST_POSTGRES_RESTART or CODEMODE_TEST_POSTGRES_CTL is unset: the test needs a server of its own and its pg_ctl (scripts/postgres start DIR restartable)")
	}
	st, err := postgres.Open(context.Background(), dsn, postgres.Options{QueryTimeout: 5 * time.Second, ConnectTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	d := quickjs.New(quickjs.Options{Timeout: 30 * time.Second})
	defer d.Close()
	rt, err := client.NewRuntime(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	// A fresh history on each run of the test (the server is the test's own).
	if _, err := postgres.Pool(st).Exec(context.Background(), "TRUNCATE codemode_executions CASCADE"); err != nil {
		t.Fatal(err)
	}
	l := &ledger{counts: map[string]int{}}
	// A short lease: a pass the outage cut off could not release its lease,
	// and its run is expired below once the lease has ended.
	h, err := durable.New(st, rt, must(contract.NewNamespaced(l.connector())), durable.Options{MaxExecutions: 1 << 20, PauseSettle: 2 * time.Millisecond, Lease: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	const code = `for (let i = 0; i < 10; i++) await svc.note({ key: "n" + i });
return await svc.act({ key: "a" });`

	var (
		completed, afterRestart atomic.Int64
		restarted               atomic.Bool
		errMu                   sync.Mutex
		errs                    []error
	)
	run := func(ctx context.Context) {
		out, err := h.Execute(ctx, code)
		if err == nil && out.Status == codetool.StatusPaused {
			out, err = h.Approve(ctx, out.ExecutionID)
		}
		switch {
		case err != nil:
			errMu.Lock()
			errs = append(errs, err)
			errMu.Unlock()
			time.Sleep(20 * time.Millisecond) // the server is away: do not spin
		case out.Status == codetool.StatusCompleted:
			completed.Add(1)
			if restarted.Load() {
				afterRestart.Add(1)
			}
		}
	}
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for ctx.Err() == nil {
				run(context.WithoutCancel(ctx))
			}
		})
	}
	deadline := time.Now().Add(60 * time.Second)
	for completed.Load() < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if out, err := exec.Command(ctl, "restart", "-m", "fast").CombinedOutput(); err != nil {
		stop()
		wg.Wait()
		t.Fatalf("%s restart: %v\n%s", ctl, err, out)
	}
	restarted.Store(true)
	for afterRestart.Load() < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	wg.Wait()
	if afterRestart.Load() < 3 {
		t.Fatalf("%d runs completed after the restart: the store did not recover (errors: %v)", afterRestart.Load(), errs)
	}
	unavailable := 0
	for _, err := range errs {
		if errors.Is(err, postgres.ErrUnavailable) {
			unavailable++
		} else if !strings.Contains(err.Error(), "postgres: ") {
			t.Errorf("a run failed with an error that is not the store's: %v", err)
		}
	}
	if unavailable == 0 {
		t.Fatalf("no run failed with ErrUnavailable across the restart (errors: %v)", errs)
	}
	t.Logf("%d runs completed (%d after the restart); %d failed, %d with ErrUnavailable", completed.Load(), afterRestart.Load(), len(errs), unavailable)

	// Runs a failure left running end by expiry, as on any replica, once
	// their lease has ended (a live pass is never expired).
	before, err := h.Executions(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range before {
		for time.Now().UnixMilli() <= e.LeaseUntil {
			time.Sleep(10 * time.Millisecond)
		}
	}
	time.Sleep(5 * time.Millisecond)
	if _, err := h.ExpirePaused(context.Background(), time.Millisecond); err != nil {
		t.Fatal(err)
	}
	list, err := h.Executions(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	statuses := map[string]int{}
	for _, e := range list {
		statuses[string(e.Status)]++
		for _, entry := range e.Log {
			if entry.State == store.EntryExecuting {
				statuses["with an executing entry"]++
			}
		}
	}
	t.Logf("runs: %v", statuses)
	for _, e := range list {
		if !e.Status.Terminal() {
			t.Errorf("run %s is %s after expiry", e.ID, e.Status)
		}
		for _, entry := range e.Log {
			n := l.count(e.ID, entry.Args)
			what := fmt.Sprintf("run %s (%s) entry %d %s.%s(%s) is %s", e.ID, e.Status, entry.Seq, entry.Connector, entry.Method, entry.Args, entry.State)
			switch entry.State {
			case store.EntryApplied:
				if n != 1 {
					t.Errorf("%s but happened %d times", what, n)
				}
			case store.EntryExecuting:
				if n > 1 {
					t.Errorf("%s but happened %d times", what, n)
				}
			default:
				if n != 0 {
					t.Errorf("%s but happened %d times", what, n)
				}
			}
		}
		if e.Status == store.StatusCompleted && (len(e.Log) != 11 || e.Log[10].State != store.EntryApplied) {
			t.Errorf("run %s completed with log %+v", e.ID, e.Log)
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for k, n := range l.counts {
		if n > 1 {
			t.Errorf("effect %s happened %d times", k, n)
		}
	}
}

// The server stops (pg_ctl restart -m immediate: no goodbye to clients)
// while a statement waits on a row lock: the statement fails with an error
// wrapping ErrUnavailable, not a bare "conn closed" or "unexpected EOF",
// and the store works again once the server is back.
func TestServerStopsMidCall(t *testing.T) {
	testDSN(t)
	dsn, ctl := os.Getenv("CODEMODE_TEST_POSTGRES_RESTART"), os.Getenv("CODEMODE_TEST_POSTGRES_CTL")
	if dsn == "" || ctl == "" {
		t.Skip("CODEMODE_TEST_POSTGRES_RESTART or CODEMODE_TEST_POSTGRES_CTL is unset: the test needs a server of its own and its pg_ctl (scripts/postgres start DIR restartable)")
	}
	// Bounded: a server that never answers fails the test instead of hanging it.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	st, err := postgres.Open(ctx, dsn, postgres.Options{QueryTimeout: 30 * time.Second, ConnectTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	id := fmt.Sprintf("exec_stop_%d", time.Now().UnixNano())
	if _, err := st.CreateExecution(ctx, "stop", &store.Execution{ID: id, Code: "1", Status: store.StatusRunning, CreatedAt: 1, UpdatedAt: 1}, -1); err != nil {
		t.Fatal(err)
	}
	// Another session holds the row, so the transition waits on the server.
	tx, err := postgres.Pool(st).Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, "SELECT 1 FROM codemode_executions WHERE runtime = 'stop' AND id = $1 FOR UPDATE", id); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := st.TransitionExecution(ctx, "stop", id, []store.Status{store.StatusRunning}, store.StatusPaused, store.ExecutionUpdate{At: 2})
		done <- err
	}()
	// Wait until the transition is blocked on the lock, as the server sees it.
	for {
		var waiting int
		if err := postgres.Pool(st).QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'UPDATE codemode_executions%'").Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if out, err := exec.Command(ctl, "restart", "-m", "immediate").CombinedOutput(); err != nil {
		t.Fatalf("%s restart: %v\n%s", ctl, err, out)
	}
	err = <-done
	if !errors.Is(err, postgres.ErrUnavailable) {
		t.Fatalf("the transition cut off by the server's stop failed with %v, want an error wrapping ErrUnavailable", err)
	}
	// Back: the pool reconnects (the first read retries a dead pooled connection).
	e, err := st.Execution(ctx, "stop", id)
	if err != nil {
		t.Fatalf("reading after the restart: %v", err)
	}
	if e.Status != store.StatusRunning {
		t.Fatalf("status after the interrupted transition: %s, want running (the lock holder never committed)", e.Status)
	}
}
