package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/codemode-go/codemode/durable/store"
)

// Run runs the suite. newStore returns an empty store; Run closes it.
func Run(t *testing.T, newStore func(t *testing.T) store.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s store.Store)
	}{
		{"CreateAndRead", testCreateAndRead},
		{"NotFound", testNotFound},
		{"RuntimesAreSeparate", testRuntimesAreSeparate},
		{"RuntimesListsNamesWithExecutions", testRuntimes},
		{"TransitionIsConditional", testTransitionIsConditional},
		{"ConcurrentTransitionHasOneWinner", testConcurrentTransition},
		{"EntriesOnlyWhileRunning", testEntriesOnlyWhileRunning},
		{"EntryTransitions", testEntryTransitions},
		{"ConcurrentEntryTransitionHasOneWinner", testConcurrentEntryTransition},
		{"Pending", testPending},
		{"Expire", testExpire},
		{"Delete", testDelete},
		{"PruneKeepsNewestTerminal", testPrune},
		{"CreateEndedCountsItInThePrune", testCreateEnded},
		{"ExecutionsNewestFirst", testExecutionsOrder},
		{"LargeValues", testLargeValues},
		{"ClaimOnlyWhileRunning", testClaimOnlyWhileRunning},
		{"ArbitraryStrings", testArbitraryStrings},
		{"Snippets", testSnippets},
		{"WriteEntriesInOneBatch", testWriteEntries},
		{"LeaseRenewAndTakeover", testLease},
		{"ConcurrentTakeoverHasOneWinner", testConcurrentTakeover},
		{"ExpireSkipsLeasedRuns", testExpireSkipsLeased},
		{"RecoveryFields", testRecoveryFields},
		{"PruneOlderKeepsNewAndUnended", testPruneOlder},
		{"ConfigurationRoundTrips", testConfiguration},
		{"EntryEndRoundTrips", testEntryEnd},
		{"EntryErrorNameRoundTrips", testEntryErrorName},
		{"EntryUpstreamRoundTrips", testEntryUpstream},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t)
			t.Cleanup(func() { _ = s.Close() })
			tc.fn(t, s)
		})
	}
}

const rt = "default"

func create(t *testing.T, s store.Store, runtime, id string, at int64) {
	t.Helper()
	_, err := s.CreateExecution(context.Background(), runtime, &store.Execution{
		ID: id, Code: "async () => 1", Status: store.StatusRunning, Connectors: []string{"github"},
		CreatedAt: at, UpdatedAt: at, Passes: 1,
	}, -1)
	if err != nil {
		t.Fatalf("CreateExecution(%s): %v", id, err)
	}
}

func get(t *testing.T, s store.Store, runtime, id string) *store.Execution {
	t.Helper()
	e, err := s.Execution(context.Background(), runtime, id)
	if err != nil {
		t.Fatalf("Execution(%s): %v", id, err)
	}
	return e
}

func move(t *testing.T, s store.Store, id string, from []store.Status, to store.Status) bool {
	t.Helper()
	ok, err := s.TransitionExecution(context.Background(), rt, id, from, to, store.ExecutionUpdate{})
	if err != nil {
		t.Fatalf("TransitionExecution(%s -> %s): %v", id, to, err)
	}
	return ok
}

func entry(seq uint64, state store.EntryState) *store.Entry {
	return &store.Entry{Seq: seq, Connector: "github", Method: "create_issue", Args: json.RawMessage(`{"title":"t"}`),
		RequiresApproval: state == store.EntryPending, State: state, UpdatedAt: 5}
}

func insert(t *testing.T, s store.Store, runtime, id string, e *store.Entry) bool {
	t.Helper()
	ok, err := s.InsertEntry(context.Background(), runtime, id, e)
	if err != nil {
		t.Fatalf("InsertEntry(%s, %d): %v", id, e.Seq, err)
	}
	return ok
}

func testCreateAndRead(t *testing.T, s store.Store) {
	ctx := context.Background()
	want := &store.Execution{ID: "exec_1_a", Code: "async () => github.x({})", Status: store.StatusRunning,
		Connectors: []string{"github", "stripe"}, Seed: []byte("0123456789abcdef"), Clock: []float64{1.5, 1700000000000},
		CreatedAt: 10, UpdatedAt: 10, Passes: 1}
	if _, err := s.CreateExecution(ctx, rt, want, -1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateExecution(ctx, rt, want, -1); err == nil {
		t.Fatal("creating the same ID twice succeeded")
	}
	insert(t, s, rt, want.ID, entry(2, store.EntryExecuting))
	insert(t, s, rt, want.ID, entry(1, store.EntryApplied))
	got := get(t, s, rt, want.ID)
	if got.Code != want.Code || got.Status != want.Status || !slices.Equal(got.Connectors, want.Connectors) ||
		string(got.Seed) != string(want.Seed) || !slices.Equal(got.Clock, want.Clock) || got.CreatedAt != 10 || got.Passes != 1 {
		t.Fatalf("read back %+v, want %+v", got, want)
	}
	if len(got.Log) != 2 || got.Log[0].Seq != 1 || got.Log[1].Seq != 2 {
		t.Fatalf("log %+v, want seq 1 then 2", got.Log)
	}
	if e := got.Log[1]; e.Connector != "github" || e.Method != "create_issue" || string(e.Args) != `{"title":"t"}` || e.State != store.EntryExecuting || e.Result != nil {
		t.Fatalf("entry %+v", e)
	}
	res, msg, passes := json.RawMessage(`{"n":[1,2]}`), "", 2
	ok, err := s.TransitionExecution(ctx, rt, want.ID, []store.Status{store.StatusRunning}, store.StatusCompleted,
		store.ExecutionUpdate{At: 20, Value: res, Error: &msg, Logs: []string{"a", "b"}, Clock: []float64{3}, Passes: &passes})
	if err != nil || !ok {
		t.Fatalf("completing: %v, %v", ok, err)
	}
	got = get(t, s, rt, want.ID)
	if got.Status != store.StatusCompleted || string(got.Value) != string(res) || !slices.Equal(got.Logs, []string{"a", "b"}) ||
		got.UpdatedAt != 20 || !slices.Equal(got.Clock, []float64{3}) || got.Passes != 2 || string(got.Seed) != string(want.Seed) {
		t.Fatalf("after completing: %+v", got)
	}
}

func testNotFound(t *testing.T, s store.Store) {
	ctx := context.Background()
	if _, err := s.Execution(ctx, rt, "exec_missing"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Execution of a missing ID: %v, want ErrNotFound", err)
	}
	if ok := move(t, s, "exec_missing", []store.Status{store.StatusPaused}, store.StatusRunning); ok {
		t.Fatal("a missing execution moved")
	}
	if e, err := s.DeleteExecution(ctx, rt, "exec_missing"); err != nil || e != nil {
		t.Fatalf("DeleteExecution of a missing ID: %v, %v", e, err)
	}
	if _, ok, err := s.Entry(ctx, rt, "exec_missing", 1); ok || err != nil {
		t.Fatalf("Entry of a missing execution: %v, %v", ok, err)
	}
}

func testRuntimesAreSeparate(t *testing.T, s store.Store) {
	ctx := context.Background()
	create(t, s, "research", "exec_1", 1)
	create(t, s, "operations", "exec_2", 2)
	if _, err := s.Execution(ctx, "operations", "exec_1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("runtime operations sees research's execution: %v", err)
	}
	for name, want := range map[string]string{"research": "exec_1", "operations": "exec_2"} {
		list, err := s.Executions(ctx, name, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 1 || list[0].ID != want {
			t.Fatalf("Executions(%s) = %d records, want only %s", name, len(list), want)
		}
	}
	// The same ID may exist in two runtimes.
	create(t, s, "operations", "exec_1", 3)
	if insert(t, s, "research", "exec_1", entry(1, store.EntryApplied)); len(get(t, s, "operations", "exec_1").Log) != 0 {
		t.Fatal("an entry of research's exec_1 shows in operations' exec_1")
	}
	if n, err := s.PruneExecutions(ctx, "research", 0); err != nil || n != 0 {
		t.Fatalf("pruning research (nothing terminal): %d, %v", n, err)
	}
}

// testRuntimes checks store.RuntimeLister, for a store that implements it:
// each name with an execution once, in byte order, and a name whose
// executions were all deleted no more.
func testRuntimes(t *testing.T, s store.Store) {
	l, ok := s.(store.RuntimeLister)
	if !ok {
		t.Skip("the store does not implement store.RuntimeLister")
	}
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		change func()
		want   []string
	}{
		{"empty", func() {}, nil},
		{"three names", func() {
			create(t, s, "research", "exec_1", 1)
			create(t, s, "research", "exec_2", 2)
			create(t, s, "Research", "exec_1", 3)
			create(t, s, rt, "exec_1", 4)
		}, []string{"Research", rt, "research"}},
		{"a name's executions deleted", func() {
			if _, err := s.DeleteExecution(ctx, "Research", "exec_1"); err != nil {
				t.Fatal(err)
			}
		}, []string{rt, "research"}},
	} {
		c.change()
		got, err := l.Runtimes(ctx)
		if err != nil || !slices.Equal(got, c.want) {
			t.Fatalf("%s: Runtimes = %q, %v; want %q", c.name, got, err, c.want)
		}
	}
}

func testTransitionIsConditional(t *testing.T, s store.Store) {
	create(t, s, rt, "exec_1", 1)
	paused := []store.Status{store.StatusPaused}
	if move(t, s, "exec_1", paused, store.StatusRunning) {
		t.Fatal("a running execution moved from paused")
	}
	if !move(t, s, "exec_1", []store.Status{store.StatusRunning}, store.StatusPaused) {
		t.Fatal("running -> paused failed")
	}
	if !move(t, s, "exec_1", []store.Status{store.StatusRunning, store.StatusPaused}, store.StatusRejected) {
		t.Fatal("paused -> rejected (from a set) failed")
	}
	if move(t, s, "exec_1", paused, store.StatusRunning) {
		t.Fatal("a rejected execution was revived")
	}
	if got := get(t, s, rt, "exec_1").Status; got != store.StatusRejected {
		t.Fatalf("status %s, want rejected", got)
	}
}

func testConcurrentTransition(t *testing.T, s store.Store) {
	create(t, s, rt, "exec_1", 1)
	move(t, s, "exec_1", []store.Status{store.StatusRunning}, store.StatusPaused)
	var wins atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			ok, err := s.TransitionExecution(context.Background(), rt, "exec_1", []store.Status{store.StatusPaused}, store.StatusRunning, store.ExecutionUpdate{})
			if err != nil {
				t.Error(err)
			}
			if ok {
				wins.Add(1)
			}
		})
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d approvals won, want exactly 1", wins.Load())
	}
}

func testEntriesOnlyWhileRunning(t *testing.T, s store.Store) {
	create(t, s, rt, "exec_1", 1)
	if !insert(t, s, rt, "exec_1", entry(1, store.EntryExecuting)) {
		t.Fatal("insert into a running execution failed")
	}
	if insert(t, s, rt, "exec_1", entry(1, store.EntryExecuting)) {
		t.Fatal("a taken seq was inserted twice")
	}
	move(t, s, "exec_1", []store.Status{store.StatusRunning}, store.StatusPaused)
	if insert(t, s, rt, "exec_1", entry(2, store.EntryExecuting)) {
		t.Fatal("an entry was added to a paused execution")
	}
	if insert(t, s, rt, "exec_missing", entry(1, store.EntryExecuting)) {
		t.Fatal("an entry was added to a missing execution")
	}
}

func testEntryTransitions(t *testing.T, s store.Store) {
	ctx := context.Background()
	create(t, s, rt, "exec_1", 1)
	insert(t, s, rt, "exec_1", entry(1, store.EntryExecuting))
	res := json.RawMessage(`{"id":7}`)
	ok, err := s.TransitionEntry(ctx, rt, "exec_1", 1, []store.EntryState{store.EntryPending}, store.EntryApplied, store.EntryUpdate{Result: res})
	if err != nil || ok {
		t.Fatalf("executing moved as if pending: %v, %v", ok, err)
	}
	ok, err = s.TransitionEntry(ctx, rt, "exec_1", 1, []store.EntryState{store.EntryExecuting}, store.EntryApplied, store.EntryUpdate{At: 9, Result: res})
	if err != nil || !ok {
		t.Fatalf("executing -> applied: %v, %v", ok, err)
	}
	e, found, err := s.Entry(ctx, rt, "exec_1", 1)
	if err != nil || !found || e.State != store.EntryApplied || string(e.Result) != string(res) || e.UpdatedAt != 9 {
		t.Fatalf("entry after applying: %+v, %v, %v", e, found, err)
	}
	msg := "boom"
	insert(t, s, rt, "exec_1", entry(2, store.EntryExecuting))
	if ok, err := s.TransitionEntry(ctx, rt, "exec_1", 2, []store.EntryState{store.EntryExecuting}, store.EntryError, store.EntryUpdate{Error: &msg}); !ok || err != nil {
		t.Fatalf("executing -> error: %v, %v", ok, err)
	}
	if e, _, _ := s.Entry(ctx, rt, "exec_1", 2); e.Error != "boom" || e.State != store.EntryError {
		t.Fatalf("entry 2: %+v", e)
	}
	// Entries of ended executions still move (rollback marks them reverted).
	move(t, s, "exec_1", []store.Status{store.StatusRunning}, store.StatusCompleted)
	if ok, err := s.TransitionEntry(ctx, rt, "exec_1", 1, []store.EntryState{store.EntryApplied}, store.EntryReverted, store.EntryUpdate{}); !ok || err != nil {
		t.Fatalf("applied -> reverted on a completed execution: %v, %v", ok, err)
	}
}

func testConcurrentEntryTransition(t *testing.T, s store.Store) {
	create(t, s, rt, "exec_1", 1)
	insert(t, s, rt, "exec_1", entry(1, store.EntryPending))
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := range 8 {
		to := store.EntryExecuting // an approval's replay
		if i%2 == 1 {
			to = store.EntryError // a reject
		}
		wg.Go(func() {
			ok, err := s.TransitionEntry(context.Background(), rt, "exec_1", 1, []store.EntryState{store.EntryPending}, to, store.EntryUpdate{})
			if err != nil {
				t.Error(err)
			}
			if ok {
				wins.Add(1)
			}
		})
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d transitions out of pending won, want exactly 1", wins.Load())
	}
}

func testPending(t *testing.T, s store.Store) {
	ctx := context.Background()
	for i, id := range []string{"exec_1", "exec_2", "exec_3"} {
		create(t, s, rt, id, int64(i+1))
		insert(t, s, rt, id, entry(1, store.EntryApplied))
		insert(t, s, rt, id, entry(3, store.EntryPending))
		insert(t, s, rt, id, entry(2, store.EntryPending))
	}
	move(t, s, "exec_1", []store.Status{store.StatusRunning}, store.StatusPaused)
	move(t, s, "exec_2", []store.Status{store.StatusRunning}, store.StatusPaused)
	// exec_3 stays running: its pending entries are not shown yet.
	all, err := s.Pending(ctx, rt, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range all {
		got = append(got, fmt.Sprintf("%s/%d", p.ExecutionID, p.Seq))
	}
	if want := []string{"exec_1/2", "exec_1/3", "exec_2/2", "exec_2/3"}; !slices.Equal(got, want) {
		t.Fatalf("Pending() = %v, want %v", got, want)
	}
	one, err := s.Pending(ctx, rt, "exec_2")
	if err != nil || len(one) != 2 || one[0].ExecutionID != "exec_2" || one[0].Method != "create_issue" || string(one[0].Args) != `{"title":"t"}` {
		t.Fatalf("Pending(exec_2) = %+v, %v", one, err)
	}
	if none, err := s.Pending(ctx, "other", ""); err != nil || len(none) != 0 {
		t.Fatalf("Pending of another runtime = %+v, %v", none, err)
	}
}

func testExpire(t *testing.T, s store.Store) {
	ctx := context.Background()
	create(t, s, rt, "exec_old_paused", 1)
	create(t, s, rt, "exec_new_paused", 100)
	create(t, s, rt, "exec_old_running", 1)
	create(t, s, rt, "exec_done", 1)
	move(t, s, "exec_old_paused", []store.Status{store.StatusRunning}, store.StatusPaused)
	move(t, s, "exec_new_paused", []store.Status{store.StatusRunning}, store.StatusPaused)
	move(t, s, "exec_done", []store.Status{store.StatusRunning}, store.StatusCompleted)
	ids, err := s.ExpireExecutions(ctx, rt, store.StatusPaused, 50, store.StatusRejected, "expired awaiting approval", 200)
	if err != nil || !slices.Equal(ids, []string{"exec_old_paused"}) {
		t.Fatalf("expiring paused: %v, %v", ids, err)
	}
	ids, err = s.ExpireExecutions(ctx, rt, store.StatusRunning, 50, store.StatusError, "expired while running", 200)
	if err != nil || !slices.Equal(ids, []string{"exec_old_running"}) {
		t.Fatalf("expiring running: %v, %v", ids, err)
	}
	if e := get(t, s, rt, "exec_old_paused"); e.Status != store.StatusRejected || e.Error != "expired awaiting approval" || e.UpdatedAt != 200 {
		t.Fatalf("expired paused run: %+v", e)
	}
	if e := get(t, s, rt, "exec_new_paused"); e.Status != store.StatusPaused {
		t.Fatalf("a recent paused run was expired: %s", e.Status)
	}
	if move(t, s, "exec_old_paused", []store.Status{store.StatusPaused}, store.StatusRunning) {
		t.Fatal("an approval revived an expired run")
	}
}

func testDelete(t *testing.T, s store.Store) {
	ctx := context.Background()
	create(t, s, rt, "exec_1", 1)
	insert(t, s, rt, "exec_1", entry(1, store.EntryApplied))
	e, err := s.DeleteExecution(ctx, rt, "exec_1")
	if err != nil || e == nil || e.ID != "exec_1" || e.Status != store.StatusRunning {
		t.Fatalf("DeleteExecution = %+v, %v", e, err)
	}
	if _, err := s.Execution(ctx, rt, "exec_1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("deleted execution still readable: %v", err)
	}
	if _, found, _ := s.Entry(ctx, rt, "exec_1", 1); found {
		t.Fatal("a deleted execution's entry is still readable")
	}
	// The ID is free again, with an empty log.
	create(t, s, rt, "exec_1", 2)
	if n := len(get(t, s, rt, "exec_1").Log); n != 0 {
		t.Fatalf("a recreated execution has %d old entries", n)
	}
}

func testPrune(t *testing.T, s store.Store) {
	ctx := context.Background()
	statuses := []store.Status{store.StatusCompleted, store.StatusError, store.StatusRunning, store.StatusRejected,
		store.StatusPaused, store.StatusRolledBack, store.StatusCompleted}
	for i, st := range statuses {
		id := fmt.Sprintf("exec_%d", i)
		create(t, s, rt, id, int64(i))
		insert(t, s, rt, id, entry(1, store.EntryApplied))
		if st != store.StatusRunning {
			move(t, s, id, []store.Status{store.StatusRunning}, st)
		}
	}
	n, err := s.PruneExecutions(ctx, rt, 2)
	if err != nil || n != 3 {
		t.Fatalf("PruneExecutions(2) = %d, %v; want 3 (5 terminal, keep 2)", n, err)
	}
	ids := executionIDs(t, s)
	// Newest first: exec_6 (completed), exec_5 (rolled_back) kept; exec_4
	// (paused) and exec_2 (running) are never pruned.
	if want := []string{"exec_6", "exec_5", "exec_4", "exec_2"}; !slices.Equal(ids, want) {
		t.Fatalf("after pruning: %v, want %v", ids, want)
	}
	// Creating an execution prunes in the same step: the new one is running.
	n, err = s.CreateExecution(ctx, rt, &store.Execution{ID: "exec_7", Code: "1", Status: store.StatusRunning, CreatedAt: 7, UpdatedAt: 7}, 1)
	if err != nil || n != 1 {
		t.Fatalf("CreateExecution(keep 1) pruned %d, %v; want 1", n, err)
	}
	if get(t, s, rt, "exec_7").Status != store.StatusRunning {
		t.Fatal("the created execution is missing")
	}
	if n, err := s.PruneExecutions(ctx, rt, 0); err != nil || n != 1 {
		t.Fatalf("PruneExecutions(0) = %d, %v; want 1", n, err)
	}
}

// An execution created in its end state (durable's first pass that ended
// before its record was written) is one of the terminal executions its
// own prune keeps, and is read back as written.
func testCreateEnded(t *testing.T, s store.Store) {
	ctx := context.Background()
	for i := range 3 {
		id := fmt.Sprintf("exec_%d", i)
		create(t, s, rt, id, int64(i))
		move(t, s, id, []store.Status{store.StatusRunning}, store.StatusCompleted)
	}
	e := &store.Execution{ID: "exec_3", Code: "1", Status: store.StatusCompleted, Value: json.RawMessage(`2`), Logs: []string{"hi"},
		Clock: []float64{5}, Seed: []byte("0123456789abcdef"), Passes: 1, CreatedAt: 3, UpdatedAt: 4}
	n, err := s.CreateExecution(ctx, rt, e, 2)
	if err != nil || n != 2 {
		t.Errorf("CreateExecution(completed, keep 2) pruned %d, %v; want 2 (4 terminal with it)", n, err)
	}
	ids := executionIDs(t, s)
	if want := []string{"exec_3", "exec_2"}; !slices.Equal(ids, want) {
		t.Errorf("after creating an ended execution with keep 2: %v, want %v", ids, want)
	}
	got := get(t, s, rt, "exec_3")
	if got.Status != store.StatusCompleted || string(got.Value) != "2" || !slices.Equal(got.Logs, e.Logs) ||
		!slices.Equal(got.Clock, e.Clock) || got.Passes != 1 || got.UpdatedAt != 4 {
		t.Errorf("read back %+v", got)
	}
}

func testExecutionsOrder(t *testing.T, s store.Store) {
	ctx := context.Background()
	for i := range 5 {
		create(t, s, rt, fmt.Sprintf("exec_%d", i), int64(100+i))
	}
	list, err := s.Executions(ctx, rt, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 || list[0].ID != "exec_4" || list[2].ID != "exec_2" {
		t.Fatalf("Executions(3): %d records starting %v", len(list), list)
	}
	if list[0].Log == nil {
		t.Fatal("Executions returns a nil log; want an empty one")
	}
}

func testLargeValues(t *testing.T, s store.Store) {
	ctx := context.Background()
	create(t, s, rt, "exec_1", 1)
	big := make([]byte, 0, store.MaxValueLength+2)
	big = append(big, '"')
	for len(big) < store.MaxValueLength-1 {
		big = append(big, "é☃𝄞x"...)
	}
	big = append(big, '"')
	e := entry(1, store.EntryApplied)
	e.Result = big
	insert(t, s, rt, "exec_1", e)
	got, _, err := s.Entry(ctx, rt, "exec_1", 1)
	if err != nil || string(got.Result) != string(big) {
		t.Fatalf("a %d-byte result did not round-trip: %v", len(big), err)
	}
}

// A pending action is claimed (pending -> executing) only while its run is
// running: an approval cannot apply an action of a paused, rejected or
// expired run. Other moves out of pending (a reject) do not need it.
func testClaimOnlyWhileRunning(t *testing.T, s store.Store) {
	ctx := context.Background()
	claim := func(seq uint64) bool {
		t.Helper()
		ok, err := s.TransitionEntry(ctx, rt, "exec_1", seq, []store.EntryState{store.EntryPending}, store.EntryExecuting, store.EntryUpdate{At: 7})
		if err != nil {
			t.Fatalf("claiming seq %d: %v", seq, err)
		}
		return ok
	}
	create(t, s, rt, "exec_1", 1)
	insert(t, s, rt, "exec_1", entry(1, store.EntryPending))
	insert(t, s, rt, "exec_1", entry(2, store.EntryPending))
	insert(t, s, rt, "exec_1", entry(3, store.EntryPending))
	move(t, s, "exec_1", []store.Status{store.StatusRunning}, store.StatusPaused)
	if claim(1) {
		t.Fatal("a pending action of a paused run was claimed")
	}
	move(t, s, "exec_1", []store.Status{store.StatusPaused}, store.StatusRunning) // approved
	if !claim(1) {
		t.Fatal("a pending action of a running run was not claimed")
	}
	msg := "rejected by user"
	if ok, err := s.TransitionEntry(ctx, rt, "exec_1", 3, []store.EntryState{store.EntryPending}, store.EntryError, store.EntryUpdate{Error: &msg}); !ok || err != nil {
		t.Fatalf("rejecting a pending action of a running run: %v, %v", ok, err)
	}
	move(t, s, "exec_1", []store.Status{store.StatusRunning}, store.StatusError) // expired while running
	if claim(2) {
		t.Fatal("a pending action of an expired run was claimed")
	}
	if e, _, _ := s.Entry(ctx, rt, "exec_1", 2); e.State != store.EntryPending {
		t.Fatalf("entry 2 is %s after a refused claim, want pending", e.State)
	}
}

// Code, error messages and console lines are arbitrary strings: NUL,
// astral characters and quotes round-trip exactly.
func testArbitraryStrings(t *testing.T, s store.Store) {
	ctx := context.Background()
	code := "async () => \"a\x00b\" + '𝄞' // \u0000 é"
	if _, err := s.CreateExecution(ctx, rt, &store.Execution{ID: "exec_1", Code: code, Status: store.StatusRunning, CreatedAt: 1, UpdatedAt: 1}, -1); err != nil {
		t.Fatal(err)
	}
	msg := "Error: bad\x00 input 'x' \"y\" 𝄞"
	ok, err := s.TransitionExecution(ctx, rt, "exec_1", []store.Status{store.StatusRunning}, store.StatusError,
		store.ExecutionUpdate{Error: &msg, Logs: []string{"nul\x00line", "[stderr] 𝄞"}})
	if err != nil || !ok {
		t.Fatalf("ending with an error message holding NUL: %v, %v", ok, err)
	}
	e := get(t, s, rt, "exec_1")
	if e.Code != code || e.Error != msg || !slices.Equal(e.Logs, []string{"nul\x00line", "[stderr] 𝄞"}) {
		t.Fatalf("read back code %q error %q logs %q", e.Code, e.Error, e.Logs)
	}
	if _, err := s.Execution(ctx, rt, "exec\x00bad"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Execution of an ID holding NUL: %v, want ErrNotFound", err)
	}
}

// testWriteEntries checks store.EntryBatcher for a store that has it:
// the moves apply in order and stay committed when the insert is refused.
func testWriteEntries(t *testing.T, s store.Store) {
	b, ok := s.(store.EntryBatcher)
	if !ok {
		t.Skip("the store is not a store.EntryBatcher")
	}
	ctx := context.Background()
	create(t, s, rt, "exec_1", 1)
	insert(t, s, rt, "exec_1", entry(1, store.EntryExecuting))
	insert(t, s, rt, "exec_1", entry(2, store.EntryExecuting))
	applied := func(seq uint64, result string) store.EntryMove {
		return store.EntryMove{Seq: seq, From: []store.EntryState{store.EntryExecuting}, To: store.EntryApplied,
			Update: store.EntryUpdate{At: 7, Result: json.RawMessage(result)}}
	}
	inserted, err := b.WriteEntries(ctx, rt, "exec_1", []store.EntryMove{applied(1, `{"n":1}`)}, entry(3, store.EntryExecuting))
	if err != nil || !inserted {
		t.Fatalf("WriteEntries(apply 1, insert 3) = %v, %v", inserted, err)
	}
	// A taken seq: the insert is refused, the moves are committed; a move
	// that does not apply (entry 1 is applied already) is skipped.
	inserted, err = b.WriteEntries(ctx, rt, "exec_1", []store.EntryMove{applied(1, `{"n":9}`), applied(2, `{"n":2}`)}, entry(3, store.EntryExecuting))
	if err != nil || inserted {
		t.Fatalf("WriteEntries(apply 2, insert taken 3) = %v, %v", inserted, err)
	}
	// Moves alone, and on an execution no longer running (the actions
	// happened: their results are recorded).
	move(t, s, "exec_1", []store.Status{store.StatusRunning}, store.StatusCompleted)
	if inserted, err := b.WriteEntries(ctx, rt, "exec_1", []store.EntryMove{applied(3, `{"n":3}`)}, entry(4, store.EntryExecuting)); err != nil || inserted {
		t.Fatalf("WriteEntries(apply 3, insert 4 into a completed execution) = %v, %v", inserted, err)
	}
	var got []string
	for _, l := range get(t, s, rt, "exec_1").Log {
		got = append(got, fmt.Sprintf("%d:%s:%s:%d", l.Seq, l.State, l.Result, l.UpdatedAt))
	}
	want := []string{`1:applied:{"n":1}:7`, `2:applied:{"n":2}:7`, `3:applied:{"n":3}:7`}
	if !slices.Equal(got, want) {
		t.Fatalf("log after the batches: %v, want %v", got, want)
	}
	claim := store.EntryMove{Seq: 4, From: []store.EntryState{store.EntryPending}, To: store.EntryExecuting}
	if _, err := b.WriteEntries(ctx, rt, "exec_1", []store.EntryMove{claim}, nil); err == nil {
		t.Fatal("a batch claimed an entry")
	}
}

// A lease is renewed by its owner, refused to another process while it
// lasts, taken over once it has ended, and only on a running execution.
func testLease(t *testing.T, s store.Store) {
	ctx := context.Background()
	create(t, s, rt, "exec_1", 1)
	lease := func(owner string, until, at int64) bool {
		t.Helper()
		ok, err := s.LeaseExecution(ctx, rt, "exec_1", store.Lease{Owner: owner, Until: until}, at)
		if err != nil {
			t.Fatalf("LeaseExecution(%s): %v", owner, err)
		}
		return ok
	}
	steps := []struct {
		what       string
		owner      string
		until, at  int64
		want       bool
		wantOwner  string
		wantUntil  int64
		wantUpdate int64
	}{
		{"a run without a lease is taken", "a", 100, 10, true, "a", 100, 10},
		{"the owner renews", "a", 200, 50, true, "a", 200, 50},
		{"another process is refused while it lasts", "b", 300, 150, false, "a", 200, 50},
		{"the owner renews even after the end", "a", 400, 250, true, "a", 400, 250},
		{"another process takes over once it has ended", "b", 600, 401, true, "b", 600, 401},
		{"the old owner is refused then", "a", 700, 402, false, "b", 600, 401},
	}
	for _, st := range steps {
		if got := lease(st.owner, st.until, st.at); got != st.want {
			t.Fatalf("%s: LeaseExecution = %v, want %v", st.what, got, st.want)
		}
		e := get(t, s, rt, "exec_1")
		if e.LeaseOwner != st.wantOwner || e.LeaseUntil != st.wantUntil || e.UpdatedAt != st.wantUpdate {
			t.Fatalf("%s: lease %q until %d, updated %d; want %q until %d, updated %d", st.what, e.LeaseOwner, e.LeaseUntil, e.UpdatedAt, st.wantOwner, st.wantUntil, st.wantUpdate)
		}
	}
	move(t, s, "exec_1", []store.Status{store.StatusRunning}, store.StatusPaused)
	if lease("b", 2000, 1000) {
		t.Fatal("a paused execution was leased")
	}
	if ok, err := s.LeaseExecution(ctx, rt, "exec_missing", store.Lease{Owner: "a", Until: 5}, 1); err != nil || ok {
		t.Fatalf("leasing a missing execution: %v, %v", ok, err)
	}
}

func testConcurrentTakeover(t *testing.T, s store.Store) {
	create(t, s, rt, "exec_1", 1)
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			ok, err := s.LeaseExecution(context.Background(), rt, "exec_1", store.Lease{Owner: fmt.Sprintf("replica-%d", i), Until: 1000}, 10)
			if err != nil {
				t.Error(err)
			}
			if ok {
				wins.Add(1)
			}
		})
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d takeovers won, want exactly 1", wins.Load())
	}
}

// Bulk expiry ends a running execution only when its lease has ended: a
// live pass is never touched, however old the execution.
func testExpireSkipsLeased(t *testing.T, s store.Store) {
	ctx := context.Background()
	create(t, s, rt, "exec_live", 1)
	create(t, s, rt, "exec_orphan", 1)
	for id, until := range map[string]int64{"exec_live": 500, "exec_orphan": 150} {
		if ok, err := s.LeaseExecution(ctx, rt, id, store.Lease{Owner: "a", Until: until}, 2); err != nil || !ok {
			t.Fatalf("leasing %s: %v, %v", id, ok, err)
		}
	}
	orphans, err := s.Orphans(ctx, rt, 200)
	if err != nil || !slices.Equal(orphans, []string{"exec_orphan"}) {
		t.Fatalf("Orphans = %v, %v; want only the orphan", orphans, err)
	}
	ids, err := s.ExpireExecutions(ctx, rt, store.StatusRunning, 100, store.StatusError, "expired while running", 200)
	if err != nil || !slices.Equal(ids, []string{"exec_orphan"}) {
		t.Fatalf("expiring running: %v, %v; want only the orphan", ids, err)
	}
	if e := get(t, s, rt, "exec_live"); e.Status != store.StatusRunning {
		t.Fatalf("a leased run was expired: %s", e.Status)
	}
}

// The fields crash recovery keeps round-trip: the lease set and released
// by a transition, the approval's seq, an uncertain entry (shown by
// Pending when it awaits a person).
func testRecoveryFields(t *testing.T, s store.Store) {
	ctx := context.Background()
	_, err := s.CreateExecution(ctx, rt, &store.Execution{ID: "exec_1", Code: "1", Status: store.StatusRunning, CreatedAt: 1, UpdatedAt: 1,
		LeaseOwner: "host-1", LeaseUntil: 99, Approved: 0}, -1)
	if err != nil {
		t.Fatal(err)
	}
	if e := get(t, s, rt, "exec_1"); e.LeaseOwner != "host-1" || e.LeaseUntil != 99 {
		t.Fatalf("created with lease %q until %d", e.LeaseOwner, e.LeaseUntil)
	}
	insert(t, s, rt, "exec_1", entry(1, store.EntryExecuting))
	yes := true
	if ok, err := s.TransitionEntry(ctx, rt, "exec_1", 1, []store.EntryState{store.EntryExecuting}, store.EntryPending, store.EntryUpdate{At: 7, Uncertain: &yes}); err != nil || !ok {
		t.Fatalf("marking entry 1 uncertain: %v, %v", ok, err)
	}
	if ok, err := s.TransitionExecution(ctx, rt, "exec_1", []store.Status{store.StatusRunning}, store.StatusPaused, store.ExecutionUpdate{At: 8, Lease: &store.Lease{}}); err != nil || !ok {
		t.Fatalf("pausing: %v, %v", ok, err)
	}
	e := get(t, s, rt, "exec_1")
	if e.LeaseOwner != "" || e.LeaseUntil != 0 || !e.Log[0].Uncertain || e.Log[0].State != store.EntryPending {
		t.Fatalf("after the pause: lease %q until %d, entry %+v", e.LeaseOwner, e.LeaseUntil, e.Log[0])
	}
	p, err := s.Pending(ctx, rt, "exec_1")
	if err != nil || len(p) != 1 || !p[0].Uncertain {
		t.Fatalf("Pending = %+v, %v; want the uncertain action", p, err)
	}
	approved := uint64(1)
	if ok, err := s.TransitionExecution(ctx, rt, "exec_1", []store.Status{store.StatusPaused}, store.StatusRunning,
		store.ExecutionUpdate{At: 9, Approved: &approved, Lease: &store.Lease{Owner: "host-2", Until: 1000}}); err != nil || !ok {
		t.Fatalf("approving: %v, %v", ok, err)
	}
	if e := get(t, s, rt, "exec_1"); e.Approved != 1 || e.LeaseOwner != "host-2" || e.LeaseUntil != 1000 {
		t.Fatalf("after the approval: approved %d, lease %q until %d", e.Approved, e.LeaseOwner, e.LeaseUntil)
	}
}

// PruneOlder removes ended executions created before the cutoff, and no
// running or paused one, however old.
func testPruneOlder(t *testing.T, s store.Store) {
	ctx := context.Background()
	for i, st := range []store.Status{store.StatusCompleted, store.StatusError, store.StatusPaused, store.StatusRunning, store.StatusCompleted} {
		id := fmt.Sprintf("exec_%d", i)
		create(t, s, rt, id, int64(10*(i+1)))
		if st != store.StatusRunning {
			move(t, s, id, []store.Status{store.StatusRunning}, st)
		}
	}
	// Created at 10, 20, 30, 40, 50; the cutoff 45 takes the ended ones before it.
	n, err := s.PruneOlder(ctx, rt, 45)
	if err != nil || n != 2 {
		t.Fatalf("PruneOlder = %d, %v; want 2", n, err)
	}
	ids := executionIDs(t, s)
	if want := []string{"exec_4", "exec_3", "exec_2"}; !slices.Equal(ids, want) {
		t.Fatalf("left %v, want %v", ids, want)
	}
}

// An execution's configuration fingerprint is kept as given (names and
// values byte for byte, NUL and non-ASCII included) by every read, through
// transitions that do not name it; an execution created without one reads
// back nil.
func testConfiguration(t *testing.T, s store.Store) {
	ctx := context.Background()
	want := map[string]string{
		"petstore base URL":   "https://api.example.com/v3",
		"petstore headers":    "Authorization, X-Api-Key",
		"codemode tools file": "sha256:0123456789abcdef",
		"odd \x00 name ✓":     "value with \x00, \"quotes\" and ✓",
	}
	_, err := s.CreateExecution(ctx, rt, &store.Execution{ID: "exec_1", Code: "1", Status: store.StatusRunning, CreatedAt: 1, UpdatedAt: 1,
		Configuration: want}, -1)
	if err != nil {
		t.Fatal(err)
	}
	create(t, s, rt, "exec_2", 2)
	if !move(t, s, "exec_1", []store.Status{store.StatusRunning}, store.StatusPaused) {
		t.Fatal("pausing exec_1 did not apply")
	}
	if got := get(t, s, rt, "exec_1").Configuration; !maps.Equal(got, want) {
		t.Fatalf("Execution: configuration %q, want %q", got, want)
	}
	if got := get(t, s, rt, "exec_2").Configuration; got != nil {
		t.Fatalf("an execution created without a configuration reads back %q, want nil", got)
	}
	list, err := s.Executions(ctx, rt, 0)
	if err != nil || len(list) != 2 || list[0].ID != "exec_2" || !maps.Equal(list[1].Configuration, want) {
		t.Fatalf("Executions = %+v, %v", list, err)
	}
	gone, err := s.DeleteExecution(ctx, rt, "exec_1")
	if err != nil || gone == nil || !maps.Equal(gone.Configuration, want) {
		t.Fatalf("DeleteExecution = %+v, %v", gone, err)
	}
}

// A failed entry's error name and properties are kept as inserted and as
// a transition sets them (with its error, as a pass records a failure); a
// transition that does not name them leaves them; every read returns them,
// bytes as written.
func testEntryErrorName(t *testing.T, s store.Store) {
	ctx := context.Background()
	create(t, s, rt, "exec_1", 1)
	failed := entry(1, store.EntryError)
	failed.Error, failed.ErrorName, failed.ErrorData = "HTTP 404 Not Found: GET /gone", "HTTPError", json.RawMessage(`{"status":404,"path":"/gone"}`)
	insert(t, s, rt, "exec_1", failed)
	insert(t, s, rt, "exec_1", entry(2, store.EntryExecuting))
	insert(t, s, rt, "exec_1", entry(3, store.EntryExecuting))
	msg := "upstream is down"
	odd := "Odd\x00Name\xff"
	for _, st := range []struct {
		seq  uint64
		from store.EntryState
		u    store.EntryUpdate
	}{
		{2, store.EntryExecuting, store.EntryUpdate{At: 7, Error: &msg, ErrorName: odd, ErrorData: json.RawMessage(`{"retryAfter":"1 s"}`)}},
		{3, store.EntryExecuting, store.EntryUpdate{At: 7, Error: &msg}},
		{1, store.EntryError, store.EntryUpdate{End: "failed"}},
	} {
		ok, err := s.TransitionEntry(ctx, rt, "exec_1", st.seq, []store.EntryState{st.from}, store.EntryError, st.u)
		if err != nil || !ok {
			t.Fatalf("moving entry %d with %+v: %v, %v", st.seq, st.u, ok, err)
		}
	}
	want := map[uint64]string{1: "HTTPError", 2: odd, 3: ""}
	wantData := map[uint64]string{1: `{"status":404,"path":"/gone"}`, 2: `{"retryAfter":"1 s"}`, 3: ""}
	for _, e := range get(t, s, rt, "exec_1").Log {
		if e.ErrorName != want[e.Seq] || string(e.ErrorData) != wantData[e.Seq] || (e.ErrorData == nil) != (wantData[e.Seq] == "") {
			t.Fatalf("Execution: entry %d error name %q and data %q, want %q and %q", e.Seq, e.ErrorName, e.ErrorData, want[e.Seq], wantData[e.Seq])
		}
	}
	for seq, name := range want {
		e, ok, err := s.Entry(ctx, rt, "exec_1", seq)
		if err != nil || !ok || e.ErrorName != name || string(e.ErrorData) != wantData[seq] {
			t.Fatalf("Entry(%d) = %+v, %v, %v; want error name %q and data %q", seq, e, ok, err, name, wantData[seq])
		}
	}
}

// An entry's End is kept as inserted and as a transition (or, on an
// EntryBatcher, a batch's move) sets it; a transition that does not name
// it leaves it, also one to the same state (how a pass records how a call
// ended after its result); every read returns it.
func testEntryEnd(t *testing.T, s store.Store) {
	ctx := context.Background()
	create(t, s, rt, "exec_1", 1)
	done := entry(1, store.EntryApplied)
	done.End = "completed"
	insert(t, s, rt, "exec_1", done)
	insert(t, s, rt, "exec_1", entry(2, store.EntryExecuting))
	insert(t, s, rt, "exec_1", entry(3, store.EntryExecuting))
	insert(t, s, rt, "exec_1", entry(4, store.EntryPending))
	msg := "upstream is down"
	steps := []struct {
		seq      uint64
		from, to store.EntryState
		u        store.EntryUpdate
	}{
		{2, store.EntryExecuting, store.EntryExecuting, store.EntryUpdate{End: "cancelled"}}, // ended while it runs
		{2, store.EntryExecuting, store.EntryApplied, store.EntryUpdate{At: 7, Result: json.RawMessage(`1`)}},
		{3, store.EntryExecuting, store.EntryError, store.EntryUpdate{At: 7, Error: &msg, End: "failed"}},
		{3, store.EntryError, store.EntryError, store.EntryUpdate{End: "timeout"}},
	}
	for _, st := range steps {
		ok, err := s.TransitionEntry(ctx, rt, "exec_1", st.seq, []store.EntryState{st.from}, st.to, st.u)
		if err != nil || !ok {
			t.Fatalf("moving entry %d from %s to %s with %+v: %v, %v", st.seq, st.from, st.to, st.u, ok, err)
		}
	}
	want := map[uint64]string{1: "completed", 2: "cancelled", 3: "timeout", 4: ""}
	if b, ok := s.(store.EntryBatcher); ok {
		_, err := b.WriteEntries(ctx, rt, "exec_1", []store.EntryMove{
			{Seq: 1, From: []store.EntryState{store.EntryApplied}, To: store.EntryApplied, Update: store.EntryUpdate{End: "halted"}},
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		want[1] = "halted"
	}
	check := func(how string, log []store.Entry) {
		t.Helper()
		got := map[uint64]string{}
		for _, e := range log {
			got[e.Seq] = e.End
		}
		if !maps.Equal(got, want) {
			t.Fatalf("%s: ends %v, want %v", how, got, want)
		}
	}
	check("Execution", get(t, s, rt, "exec_1").Log)
	for seq, end := range want {
		e, ok, err := s.Entry(ctx, rt, "exec_1", seq)
		if err != nil || !ok || e.End != end {
			t.Fatalf("Entry(%d) = %+v, %v, %v; want end %q", seq, e, ok, err, end)
		}
	}
	list, err := s.Executions(ctx, rt, 0)
	if err != nil || len(list) != 1 {
		t.Fatalf("Executions = %v, %v", list, err)
	}
	check("Executions", list[0].Log)
	gone, err := s.DeleteExecution(ctx, rt, "exec_1")
	if err != nil || gone == nil {
		t.Fatalf("DeleteExecution = %v, %v", gone, err)
	}
}

// An entry's Upstream is kept as inserted (by InsertEntry, and by a
// batch's insert on an EntryBatcher), bytes as written, and a transition
// leaves it; every read returns it, "" for an entry inserted without one.
func testEntryUpstream(t *testing.T, s store.Store) {
	ctx := context.Background()
	create(t, s, rt, "exec_1", 1)
	odd := "MCP tool get\x00file 𝄞\xff"
	want := map[uint64]string{1: "MCP tool get-file", 2: odd, 3: ""}
	for _, seq := range []uint64{1, 2, 3} {
		e := entry(seq, store.EntryExecuting)
		e.Upstream = want[seq]
		insert(t, s, rt, "exec_1", e)
	}
	ok, err := s.TransitionEntry(ctx, rt, "exec_1", 1, []store.EntryState{store.EntryExecuting}, store.EntryApplied, store.EntryUpdate{At: 7, Result: json.RawMessage(`1`), End: "completed"})
	if err != nil || !ok {
		t.Fatalf("applying entry 1: %v, %v", ok, err)
	}
	if b, ok := s.(store.EntryBatcher); ok {
		e := entry(4, store.EntryPending)
		e.Upstream = "operation DELETE /pets/{petId}"
		if inserted, err := b.WriteEntries(ctx, rt, "exec_1", nil, e); err != nil || !inserted {
			t.Fatalf("WriteEntries(insert 4) = %v, %v", inserted, err)
		}
		want[4] = e.Upstream
	}
	check := func(how string, log []store.Entry) {
		t.Helper()
		got := map[uint64]string{}
		for _, e := range log {
			got[e.Seq] = e.Upstream
		}
		if !maps.Equal(got, want) {
			t.Fatalf("%s: upstream names %v, want %v", how, got, want)
		}
	}
	check("Execution", get(t, s, rt, "exec_1").Log)
	for seq, up := range want {
		e, ok, err := s.Entry(ctx, rt, "exec_1", seq)
		if err != nil || !ok || e.Upstream != up {
			t.Fatalf("Entry(%d) = %+v, %v, %v; want upstream %q", seq, e, ok, err, up)
		}
	}
	list, err := s.Executions(ctx, rt, 0)
	if err != nil || len(list) != 1 {
		t.Fatalf("Executions = %v, %v", list, err)
	}
	check("Executions", list[0].Log)
}

// executionIDs lists the runtime's executions' ids, newest first.
func executionIDs(t *testing.T, s store.Store) []string {
	t.Helper()
	list, err := s.Executions(context.Background(), rt, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range list {
		ids = append(ids, e.ID)
	}
	return ids
}
