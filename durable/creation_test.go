package durable_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store"
)

// writesStore is a store that lists the writes of executions' records
// ("create running", "move completed") and can refuse to create them.
type writesStore struct {
	store.Store
	refuse error // CreateExecution's error, when set

	mu     sync.Mutex
	writes []string
}

func (s *writesStore) CreateExecution(ctx context.Context, runtime string, e *store.Execution, keep int) (int, error) {
	if s.refuse != nil {
		return 0, s.refuse
	}
	s.note("create " + string(e.Status))
	return s.Store.CreateExecution(ctx, runtime, e, keep)
}

func (s *writesStore) TransitionExecution(ctx context.Context, runtime, id string, from []store.Status, to store.Status, u store.ExecutionUpdate) (bool, error) {
	s.note("move " + string(to))
	return s.Store.TransitionExecution(ctx, runtime, id, from, to, u)
}

func (s *writesStore) note(w string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writes = append(s.writes, w)
}

func (s *writesStore) list() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.writes)
}

// An execution's record is written with its first pass's first journal
// write: at its first call (running, before the call's action), once when
// the pass ends first (in its end state, with everything a running record
// moved to that state would hold), or after a moment of a longer program.
func TestExecuteWritesItsRecordOnce(t *testing.T) {
	for _, c := range []struct {
		name, code string
		delay      time.Duration // durable.SetCreateDelay
		status     store.Status
		writes     []string
		value      string
		logs       []string
	}{
		{"without calls", `console.log("hi"); 1 + 1`, time.Hour, store.StatusCompleted, []string{"create completed"}, "2", []string{"hi"}},
		{"failing without calls", `throw new Error("no")`, time.Hour, store.StatusError, []string{"create error"}, "", []string{}},
		{"with a call", `(await github.list_pull_requests({ repo: "a" })).length`, time.Hour, store.StatusCompleted, []string{"create running", "move completed"}, "2", []string{}},
		{"longer than the delay", `await new Promise((r) => setTimeout(r, 200)); 3`, time.Millisecond, store.StatusCompleted, []string{"create running", "move completed"}, "3", []string{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := &writesStore{Store: openStore(t, filepath.Join(t.TempDir(), "j.db"))}
			h := newHandle(t, st, durable.Options{Configuration: map[string]string{"github base URL": "https://example.com"}}, newService().github())
			durable.SetCreateDelay(h, c.delay)
			out := execute(t, h, c.code)
			if got := st.list(); !slices.Equal(got, c.writes) {
				t.Errorf("writes %q, want %q", got, c.writes)
			}
			e := record(t, h, out.ExecutionID)
			if e.Status != c.status || string(e.Value) != c.value || !slices.Equal(e.Logs, c.logs) {
				t.Errorf("record %s value %s logs %q, want %s %s %q", e.Status, e.Value, e.Logs, c.status, c.value, c.logs)
			}
			if e.Code != c.code || e.Passes != 1 || len(e.Seed) != 16 || e.LeaseOwner != "" || e.LeaseUntil != 0 ||
				!slices.Equal(e.Connectors, []string{"github"}) || e.Configuration["github base URL"] != "https://example.com" || e.UpdatedAt < e.CreatedAt {
				t.Errorf("record %+v", e)
			}
			if (c.status == store.StatusError) != (e.Error != "") {
				t.Errorf("error %q for status %s", e.Error, e.Status)
			}
		})
	}
}

// A call's action runs only once its execution's record, running and
// leased, and its own executing mark are in the journal.
func TestCallRunsAfterItsExecutionIsRecorded(t *testing.T) {
	st := openStore(t, filepath.Join(t.TempDir(), "j.db"))
	var seen *store.Execution
	probe := must(funcTool("probe", "Reads its execution's record.", func(ctx context.Context, in repoInput) (repoInput, error) {
		e, err := st.Execution(ctx, "default", durable.ExecutionIDFrom(ctx))
		seen = e
		return in, err
	}))
	h := newHandle(t, st, durable.Options{}, connector{Name: "svc", Tools: []connectorTool{probe}})
	out := execute(t, h, `await svc.probe({ repo: "r" }); 1`)
	wantStatus(t, out, codetool.StatusCompleted)
	if seen == nil || seen.Status != store.StatusRunning || seen.LeaseOwner == "" || seen.LeaseUntil == 0 ||
		len(seen.Log) != 1 || seen.Log[0].State != store.EntryExecuting {
		t.Fatalf("the call saw %+v", seen)
	}
}

// When the record cannot be written, Execute fails with the store's error,
// records nothing and runs no action.
func TestExecuteFailsWithoutItsRecord(t *testing.T) {
	for _, code := range []string{`1`, `await github.list_pull_requests({ repo: "a" }); 1`} {
		t.Run(code, func(t *testing.T) {
			refused := errors.New("the disk is full")
			st := &writesStore{Store: openStore(t, filepath.Join(t.TempDir(), "j.db")), refuse: refused}
			svc := newService()
			h := newHandle(t, st, durable.Options{}, svc.github())
			out, err := h.Execute(context.Background(), code)
			if !errors.Is(err, refused) {
				t.Fatalf("Execute: %v, %+v", err, out)
			}
			l, lerr := h.Executions(context.Background(), 0)
			if lerr != nil || len(l) != 0 || svc.count("list_pull_requests") != 0 || len(st.list()) != 0 {
				t.Fatalf("recorded %d executions (%v), ran %d calls, writes %q", len(l), lerr, svc.count("list_pull_requests"), st.list())
			}
		})
	}
}

// Execute refuses a context that is done before anything is recorded.
func TestExecuteRefusesADoneContext(t *testing.T) {
	st := &writesStore{Store: openStore(t, filepath.Join(t.TempDir(), "j.db"))}
	h := newHandle(t, st, durable.Options{}, newService().github())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := h.Execute(ctx, `1`); !errors.Is(err, context.Canceled) {
		t.Fatalf("Execute: %v", err)
	}
	if w := st.list(); len(w) != 0 {
		t.Fatal(fmt.Sprint("writes ", w))
	}
}

// A pass whose context ends before its record was written is recorded as
// an error, as one that ends later is.
func TestCancelledPassIsRecordedBeforeItsFirstWrite(t *testing.T) {
	st := &writesStore{Store: openStore(t, filepath.Join(t.TempDir(), "j.db"))}
	h := newHandle(t, st, durable.Options{}, newService().github())
	durable.SetCreateDelay(h, time.Hour)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := h.Execute(ctx, `await new Promise((r) => setTimeout(r, 60000)); 1`); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Execute: %v", err)
	}
	l, err := h.Executions(context.Background(), 0)
	if err != nil || len(l) != 1 || l[0].Status != store.StatusError || l[0].Error == "" {
		t.Fatalf("executions %+v, %v", l, err)
	}
	if w := st.list(); !slices.Equal(w, []string{"create error"}) {
		t.Fatalf("writes %q", w)
	}
}
