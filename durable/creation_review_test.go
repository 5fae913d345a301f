package durable_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store"
)

// orderStore lists every journal write of executions and entries, in the
// order the store received them ("create running", "insert 1 executing",
// "move completed"): writesStore's list with the entries' inserts.
type orderStore struct {
	writesStore
}

func (s *orderStore) InsertEntry(ctx context.Context, runtime, id string, e *store.Entry) (bool, error) {
	s.note(fmt.Sprintf("insert %d %s", e.Seq, e.State))
	return s.Store.InsertEntry(ctx, runtime, id, e)
}

// The record is committed, once, before any entry of the execution
// whatever the first journal write is (concurrent calls, a step, a pause
// for approval), and whether the timer writes it at once or never.
func TestRecordPrecedesEveryFirstWrite(t *testing.T) {
	for _, c := range []struct {
		name, code string
		status     codetool.Status
	}{
		{"concurrent reads", `(await Promise.all([1, 2, 3].map((i) => github.list_pull_requests({ repo: "r" + i })))).length`, codetool.StatusCompleted},
		{"concurrent approvals", `await Promise.all([github.create_issue({ title: "a" }), github.create_issue({ title: "b" })]); 1`, codetool.StatusPaused},
		{"a read beside an approval", `await Promise.all([github.list_pull_requests({ repo: "r" }), github.create_issue({ title: "b" })]); 1`, codetool.StatusPaused},
		{"a step", `await codemode.step("s", async () => (await github.list_pull_requests({ repo: "r" })).length)`, codetool.StatusCompleted},
		{"a step without calls", `await codemode.step("t", () => Math.random())`, codetool.StatusCompleted},
	} {
		for _, delay := range []time.Duration{0, time.Hour} {
			t.Run(fmt.Sprintf("%s, timer %v", c.name, delay), func(t *testing.T) {
				st := &orderStore{writesStore{Store: openStore(t, filepath.Join(t.TempDir(), "j.db"))}}
				svc := newService()
				h := newHandle(t, st, durable.Options{PauseSettle: 5 * time.Millisecond}, svc.github())
				durable.SetCreateDelay(h, delay)
				out := execute(t, h, c.code)
				wantStatus(t, out, c.status)
				w := st.list()
				creates := 0
				for _, s := range w {
					if strings.HasPrefix(s, "create ") {
						creates++
					}
				}
				if creates != 1 || len(w) < 2 || w[0] != "create running" {
					t.Fatalf("writes %q: want the running record first, once", w)
				}
				if c.status != codetool.StatusPaused {
					return
				}
				done, err := h.Approve(context.Background(), out.ExecutionID)
				if err != nil {
					t.Fatalf("Approve: %v", err)
				}
				wantStatus(t, done, codetool.StatusCompleted)
				if n := svc.count("create_issue"); n != len(out.Pending) {
					t.Fatalf("create_issue ran %d times for %d approved", n, len(out.Pending))
				}
			})
		}
	}
}

// Whichever of the timer and the pass's end comes first, the record is
// written once and holds the program's end; nothing is written after
// Execute returns.
func TestRecordTimerRacesThePassEnd(t *testing.T) {
	for _, delay := range []time.Duration{0, time.Microsecond, 100 * time.Microsecond, time.Millisecond, 3 * time.Millisecond} {
		for _, code := range []string{`1 + 1`, `await new Promise((r) => setTimeout(r, 2)); 2`, `await 0; throw new Error("no")`} {
			t.Run(fmt.Sprintf("%v %s", delay, code), func(t *testing.T) {
				st := &orderStore{writesStore{Store: openStore(t, filepath.Join(t.TempDir(), "j.db"))}}
				h := newHandle(t, st, durable.Options{MaxExecutions: 1}, newService().github())
				durable.SetCreateDelay(h, delay)
				for range 5 {
					out := execute(t, h, code)
					after := st.list()
					e := record(t, h, out.ExecutionID)
					if e.Status != store.Status(out.Status) || e.LeaseOwner != "" || e.LeaseUntil != 0 {
						t.Fatalf("answer %s, record %+v", out.Status, e)
					}
					if out.Status == codetool.StatusCompleted && string(e.Value) != "2" {
						t.Fatalf("value %s", e.Value)
					}
					time.Sleep(delay + time.Millisecond)
					if later := st.list(); !slices.Equal(later, after) {
						t.Fatalf("written after Execute returned: %q", later[len(after):])
					}
				}
				l, err := h.Executions(context.Background(), 0)
				if err != nil || len(l) > 2 {
					t.Fatalf("%d executions kept with MaxExecutions 1 (%v)", len(l), err)
				}
			})
		}
	}
}

// cancelOnCreate cancels the caller's context while the running record is
// written (a deadline that passes during the write).
type cancelOnCreate struct {
	store.Store
	cancel context.CancelFunc
}

func (s *cancelOnCreate) CreateExecution(ctx context.Context, runtime string, e *store.Execution, keep int) (int, error) {
	if e.Status == store.StatusRunning {
		s.cancel()
	}
	return s.Store.CreateExecution(ctx, runtime, e, keep)
}

// A context that ends while the first call writes the record: the action
// does not run, and the execution ends recorded as error.
func TestContextEndsWhileTheFirstCallWritesTheRecord(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st := &cancelOnCreate{Store: openStore(t, filepath.Join(t.TempDir(), "j.db")), cancel: cancel}
	svc := newService()
	h := newHandle(t, st, durable.Options{}, svc.github())
	durable.SetCreateDelay(h, time.Hour)
	out, err := h.Execute(ctx, `await github.add_label({ title: "x" }); 1`)
	if !errors.Is(err, context.Canceled) || out.Status != codetool.StatusError {
		t.Fatalf("Execute: %+v, %v", out, err)
	}
	e := record(t, h, out.ExecutionID)
	if e.Status != store.StatusError {
		t.Fatalf("record %s, want error", e.Status)
	}
	// The journal says what happened to the action, whether it ran or not.
	ran := svc.count("add_label")
	if ran > 1 || len(e.Log) != ran || ran == 1 && e.Log[0].State != store.EntryApplied {
		t.Fatalf("add_label ran %d times, log %+v", ran, e.Log)
	}
}

// A record the timer cannot write ends the pass with the store's error,
// records nothing, and runs none of the program's later calls.
func TestTimerCannotWriteTheRecord(t *testing.T) {
	refused := errors.New("the disk is full")
	st := &writesStore{Store: openStore(t, filepath.Join(t.TempDir(), "j.db")), refuse: refused}
	svc := newService()
	h := newHandle(t, st, durable.Options{}, svc.github())
	durable.SetCreateDelay(h, time.Millisecond)
	_, err := h.Execute(context.Background(), `await new Promise((r) => setTimeout(r, 3000)); await github.list_pull_requests({ repo: "a" }); 1`)
	if !errors.Is(err, refused) {
		t.Fatalf("Execute: %v", err)
	}
	if l, _ := h.Executions(context.Background(), 0); len(l) != 0 || svc.count("list_pull_requests") != 0 {
		t.Fatalf("recorded %d, ran %d", len(l), svc.count("list_pull_requests"))
	}
}
